import Testing
@testable import ScanCore

/// The visual hit test skips subtrees by their bounds: children that lie outside their
/// parent's frame, nodes in any order, and frames moved by a layout effect are still hit.
@Suite("Hit testing")
struct HitTestTests {
    func node(_ id: String, _ frame: Rect, children: [Int] = [], parent: Int?) -> ElementNode {
        var n = ElementNode(id: id)
        n.frame = frame
        n.children = children
        n.parent = parent
        n.isAccessibilityElement = children.isEmpty
        return n
    }

    @Test func childrenOutsideTheirParentAndOutOfOrder() {
        // The container (index 2) comes after its child (index 1); its frame is small and
        // its child lies far outside it.
        let nodes = [
            node("root", Rect(x: 0, y: 0, width: 100, height: 100), children: [2, 3], parent: nil),
            node("far", Rect(x: 500, y: 500, width: 10, height: 10), parent: 2),
            node("box", Rect(x: 0, y: 0, width: 10, height: 10), children: [1], parent: 0),
            node("near", Rect(x: 20, y: 20, width: 10, height: 10), parent: 0),
        ]
        var tree = ElementTree(screenID: "s", size: (1000, 1000), nodes: nodes)
        #expect(tree.hitTest(Point(x: 505, y: 505)) == 1)
        #expect(tree.hitTest(Point(x: 25, y: 25)) == 3)
        #expect(tree.hitTest(Point(x: 5, y: 5)) == 2)
        #expect(tree.hitTest(Point(x: 300, y: 300)) == nil)
        // A frame moved far away is hit there, and no longer where it was.
        tree.update(3) { $0.frame = Rect(x: 800, y: 100, width: 10, height: 10) }
        #expect(tree.hitTest(Point(x: 805, y: 105)) == 3)
        #expect(tree.hitTest(Point(x: 25, y: 25)) == 0)
    }
}

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

    /// The topmost visible, non-virtual node containing `p`, by looking at every node: what
    /// the indexed hit test must find.
    static func reference(_ tree: ElementTree, _ p: Point, in i: Int = 0) -> Int? {
        guard tree[i].isVisible else { return nil }
        for c in tree[i].children.reversed() { if let hit = reference(tree, p, in: c) { return hit } }
        return !tree[i].isVirtual && tree[i].frame.contains(p) ? i : nil
    }

    /// Hundreds of children (rows, a grid, overlapping and nested, some hidden, some with
    /// children of their own outside them), looked up through the bands of children: the
    /// same answer as looking at every node, on edges and after frames move.
    @Test(arguments: [1, 2, 3, 4])
    func manyChildrenAreLookedUpByBandAsEveryNodeWouldBe(_ seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var nodes = [node("root", Rect(x: 0, y: 0, width: 1000, height: 1000), parent: nil)]
        for k in 0..<300 {
            let wide = rng.next() % 3 == 0
            let x = Double(rng.next() % 1000), y = Double(rng.next() % 1000)
            let frame = wide ? Rect(x: 0, y: y, width: 1000, height: Double(1 + rng.next() % 40))
                             : Rect(x: x, y: y, width: Double(1 + rng.next() % 80), height: Double(1 + rng.next() % 80))
            var n = node("n\(k)", frame, parent: 0)
            n.isVisible = rng.next() % 10 != 0
            n.isVirtual = rng.next() % 20 == 0
            nodes[0].children.append(nodes.count)
            nodes.append(n)
            if rng.next() % 8 == 0 {
                // A child of its own, somewhere else.
                let child = node("c\(k)", Rect(x: Double(rng.next() % 1000), y: Double(rng.next() % 1000), width: 30, height: 30), parent: nodes.count - 1)
                nodes[nodes.count - 1].children.append(nodes.count)
                nodes.append(child)
            }
        }
        var tree = ElementTree(screenID: "s", size: (1000, 1000), nodes: nodes)
        func check(_ what: String) {
            for _ in 0..<2000 {
                let p = Point(x: Double(rng.next() % 10_010) / 10, y: Double(rng.next() % 10_010) / 10)
                #expect(tree.hitTest(p) == Self.reference(tree, p), "\(what) at \(p)")
            }
            // Every node's corners and centre.
            for i in 1..<tree.count {
                let f = tree[i].frame
                for p in [Point(x: f.minX, y: f.minY), Point(x: f.maxX, y: f.maxY), f.center] {
                    #expect(tree.hitTest(p) == Self.reference(tree, p), "\(what) at \(p)")
                }
            }
        }
        check("as built")
        for _ in 0..<20 {
            let i = 1 + Int(rng.next() % UInt64(tree.count - 1))
            tree.update(i) { $0.frame = Rect(x: Double(rng.next() % 900), y: Double(rng.next() % 900), width: 50, height: 50) }
        }
        check("after frames moved")
    }
}

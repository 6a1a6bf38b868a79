@testable import ScanCore
@testable import ScanFormats
import Testing

/// The storage a layout is read into: slots filled in place by one reader or two, the
/// object count that sizes them, and the id index kept in parts.
@Suite("Node storage")
struct NodeStorageTests {
    /// Instances alive, one count per test (tests run in parallel).
    final class Census { var alive = 0 }

    /// Counted in its census, so that a test sees which slots were deinitialized.
    final class Tracked {
        let value: Int
        let census: Census
        init(_ value: Int, _ census: Census) { self.value = value; self.census = census; census.alive += 1 }
        deinit { census.alive -= 1 }
    }

    @Test func slotsFilledByTwoReadersJoinIntoOneRange() {
        let base = UnsafeMutablePointer<Tracked>.allocate(capacity: 8)
        defer { base.deallocate() }
        let census = Census()
        func item(_ v: Int) -> Tracked { Tracked(v, census) }
        var first = Slots(base, capacity: 8)
        let root = first.append(item(0))
        var second = first.handOff(from: 3)
        // The second reader fills from index 3 while the first fills 1 and 2.
        _ = second.append(item(3))
        _ = first.append(item(1))
        _ = second.append(item(4))
        _ = first.append(item(2))
        #expect(first.indices == 0..<3 && second.indices == 3..<5)
        #expect(second[4].value == 4)
        // Pointers handed out stay valid: the storage never moves.
        #expect(root.pointee.value == 0)
        first.join(second)
        #expect(first.indices == 0..<5)
        #expect((0..<5).map { first[$0].value } == [0, 1, 2, 3, 4])
        // Appending goes on after the joined range, up to the whole capacity.
        _ = first.append(item(5))
        _ = first.append(item(6))
        _ = first.append(item(7))
        #expect(first.end == 8)
        #expect(census.alive == 8)
        base.deinitialize(count: first.end)
        #expect(census.alive == 0)
    }

    @Test func slotsDiscardedAreDeinitializedAndTheirRangeGivenBack() {
        let base = UnsafeMutablePointer<Tracked>.allocate(capacity: 6)
        defer { base.deallocate() }
        let census = Census()
        func item(_ v: Int) -> Tracked { Tracked(v, census) }
        var first = Slots(base, capacity: 6)
        _ = first.append(item(0))
        var second = first.handOff(from: 4)
        _ = second.append(item(40))
        _ = second.append(item(50))
        _ = first.append(item(1))
        // The count was wrong (only two nodes before the second range): its nodes are
        // dropped, and the first reader reads the rest itself into the same slots.
        first.discard(second)
        #expect(census.alive == 2)
        for v in 2..<6 { _ = first.append(item(v)) }
        #expect((0..<6).map { first[$0].value } == [0, 1, 2, 3, 4, 5])
        base.deinitialize(count: first.end)
        #expect(census.alive == 0)
    }

    @Test func theObjectCountBoundsTheNodes() throws {
        let text = Array(#"{"a": [{}, {"b": {"c": [1, {"d": "{}"}]}}], "e": {}}"#.utf8)
        let document = try JSONParser.parseDocument(text)
        #expect(document.objectCount == 6)
        // Every node is an object: a layout's node count never exceeds it.
        let layout = Array(SplitReadTests.bigLayout(rows: 3).utf8)
        let parsed = try JSONParser.parseDocument(layout)
        let doc = try LayoutLoader.load(bytes: layout, file: "three.json")
        #expect(doc.tree.count == 1 + 3 * 6)
        #expect(parsed.objectCount == 3 /* top, screen, size */ + 1 + 3 * (1 + 5 * 2) /* rows, buttons, frames */)
    }

    @Test func anIDIndexInPartsGivesTheFirstNodeThatDefinesIt() {
        let nodes = ["root", "a", "b", "a", "c", "b"].map { ElementNode(id: $0) }
        // Parts as a split read leaves them: ids first defined in each half, in file order.
        let parts: [[String: Int]] = [["root": 0, "a": 1, "b": 2], ["a": 3, "c": 4, "b": 5]]
        let tree = ElementTree(screenID: "s", size: (100, 100), nodes: nodes, index: parts)
        #expect(tree.index(of: "a") == 1)
        #expect(tree.index(of: "b") == 2)
        #expect(tree.index(of: "c") == 4)
        #expect(tree.index(of: "d") == nil)
        // Without an index the tree builds one, with the same answers.
        let built = ElementTree(screenID: "s", size: (100, 100), nodes: nodes)
        #expect(["root", "a", "b", "c", "d"].map { built.index(of: $0) } == [0, 1, 2, 4, nil])
    }
}

@testable import DesktopAccess
import ScanCore
import Testing

/// A menu scanned alone ends with a Close entry (its tap sends Escape).
@Suite struct MenuCloseTests {
    static func menu(at y: Double) -> [LiveNode] {
        var root = LiveNode(id: "a1.5:7", role: "menu", frame: Rect(x: 100, y: y, width: 120, height: 60))
        root.children = [1, 2]
        var red = LiveNode(id: "a1.5:8", role: "menu item", label: "Red", frame: Rect(x: 100, y: y, width: 120, height: 30), isElement: true)
        red.parent = 0
        var green = LiveNode(id: "a1.5:9", role: "menu item", label: "Green", frame: Rect(x: 100, y: y + 30, width: 120, height: 30), isElement: true)
        green.parent = 0
        return [root, red, green]
    }

    @Test func theMenuEndsWithCloseJustBelowIt() {
        let nodes = DesktopAccess.withCloseEntry(Self.menu(at: 200), screenHeight: 800)
        #expect(nodes.count == 4)
        let close = nodes[3]
        #expect(close.id == DesktopAccess.closeID(of: "a1.5:7") && close.label == "Close" && close.isElement)
        #expect(close.traits == TraitSet([.button]) && close.parent == 0)
        #expect(nodes[0].children == [1, 2, 3], "the last of the menu's items")
        #expect(close.frame == Rect(x: 100, y: 260, width: 120, height: 30))
    }

    @Test func atTheScreensFootItGoesAboveTheMenu() {
        let nodes = DesktopAccess.withCloseEntry(Self.menu(at: 740), screenHeight: 800)
        #expect(nodes[3].frame == Rect(x: 100, y: 710, width: 120, height: 30))
    }

    @Test func itIsScannedLast() {
        let nodes = DesktopAccess.withCloseEntry(Self.menu(at: 200), screenHeight: 800)
        let tree = DesktopAccess.tree(nodes, screenID: "a1.5:7", title: "menu", screen: (800, 800))
        let elements = tree.nodes.filter(\.isAccessibilityElement).map { $0.label ?? "" }
        #expect(elements == ["Red", "Green", "Close"])
    }

    /// Its tap is Escape, as the engine's `key` effect (front ends see it).
    @Test func itsTapIsEscape() {
        let nodes = DesktopAccess.withCloseEntry(Self.menu(at: 200), screenHeight: 800)
        let tree = DesktopAccess.tree(nodes, screenID: "a1.5:7", title: "menu", screen: (800, 800))
        let close = tree.nodes.first { $0.label == "Close" }
        #expect(close?.onActivate == [.key(.escape)])
    }
}

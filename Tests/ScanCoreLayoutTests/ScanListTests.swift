import Foundation
import ScanCore
import ScanFormats
import Testing

// ScanCore's scan list (ScanTreeBuilder.build) on screens written as layout files: reading
// order, groups, hiding, modal views and item scope, as Layouts/README.md describes them.

// MARK: - Reading order

@Suite("Reading order")
struct ReadingOrderTests {
    static let keypadFlat = ["key1", "key2", "key3", "key4", "key7", "key6", "key8", "key9", "key5"]

    @Test func keypadFlatOrder() throws {
        let top = try topLevel(try readLayout("keypad-order.json"), settings(groupItems: false))
        #expect(top == Self.keypadFlat)
    }

    @Test func keypadWithGroupItems() throws {
        let (scan, tree) = try scanList(try readLayout("keypad-order.json"), settings(groupItems: true))
        #expect(render(scan, tree) == ["greyColumn{key1,key2,key3}", "key4", "key7", "blueBlock{key6,key8,key9,key5}"])
        #expect(flatElements(scan, tree) == Self.keypadFlat)
        // Group bookkeeping: both groups hang off the top level at their positions.
        #expect(scan.groups.count == 3)
        for g in scan.groups.indices.dropFirst() {
            #expect(scan.groups[g].parent == 0)
        }
        #expect(scan.groups.dropFirst().map(\.indexInParent).sorted() == [0, 3])
    }

    @Test func keypadWithoutShouldGroupChildren() throws {
        let json = try readLayout("keypad-order.json")
            .replacingOccurrences(of: #""shouldGroupChildren": true,"#, with: "")
        #expect(!json.contains("shouldGroupChildren"))
        let top = try topLevel(json, settings(groupItems: false))
        #expect(top == ["key1", "key4", "key7", "key2", "key6", "key8", "key9", "key5", "key3"])
    }

    /// The SwiftUI version of the keypad: no `elements`, only sort priorities.
    static let keypadPriorities = layout(#"""
        {"id": "stack123", "sortPriority": 1000, "frame": {"x": 20, "y": 100, "width": 50, "height": 170},
         "children": [
           {"id": "key1", "label": "1", "traits": ["keyboardKey"], "frame": {"x": 20, "y": 100, "width": 50, "height": 50}},
           {"id": "key2", "label": "2", "traits": ["keyboardKey"], "frame": {"x": 20, "y": 160, "width": 50, "height": 50}},
           {"id": "key3", "label": "3", "traits": ["keyboardKey"], "frame": {"x": 20, "y": 220, "width": 50, "height": 50}}]},
        {"id": "key4", "label": "4", "traits": ["keyboardKey"], "sortPriority": 900, "frame": {"x": 80, "y": 100, "width": 50, "height": 50}},
        {"id": "key5", "label": "5", "traits": ["keyboardKey"], "sortPriority": 400, "frame": {"x": 80, "y": 160, "width": 50, "height": 50}},
        {"id": "key6", "label": "6", "traits": ["keyboardKey"], "sortPriority": 700, "frame": {"x": 80, "y": 220, "width": 50, "height": 50}},
        {"id": "key7", "label": "7", "traits": ["keyboardKey"], "sortPriority": 800, "frame": {"x": 140, "y": 100, "width": 50, "height": 50}},
        {"id": "key8", "label": "8", "traits": ["keyboardKey"], "sortPriority": 600, "frame": {"x": 140, "y": 160, "width": 50, "height": 50}},
        {"id": "key9", "label": "9", "traits": ["keyboardKey"], "sortPriority": 500, "frame": {"x": 140, "y": 220, "width": 50, "height": 50}}
        """#)

    @Test func keypadBySortPriorityGivesTheSameOrder() throws {
        #expect(try topLevel(Self.keypadPriorities, settings(groupItems: false)) == Self.keypadFlat)
        let (scan, tree) = try scanList(Self.keypadPriorities, settings(groupItems: true))
        #expect(flatElements(scan, tree) == Self.keypadFlat)
        #expect(render(scan, tree).first == "stack123{key1,key2,key3}")
        // Without the priorities, the same frames read row by row: proof the priorities matter.
        let plain = Self.keypadPriorities.replacingOccurrences(of: #""sortPriority": \d+, "#, with: "", options: .regularExpression)
        #expect(!plain.contains("sortPriority"))
        #expect(try topLevel(plain, settings(groupItems: false)) == ["key1", "key4", "key7", "key2", "key5", "key8", "key3", "key6", "key9"])
    }

    @Test func sortPriorityIgnoredInsideAnExplicitList() throws {
        let json = layout(button("b1", y: 10, #", "sortPriority": 10"#) + "," + button("b2", y: 60), root: #", "elements": ["b2", "b1"]"#)
        #expect(try topLevel(json) == ["b2", "b1"])
    }

    @Test func geometricRowsThenDocumentOrder() throws {
        let children = [button("c", x: 10, y: 300), button("a", x: 200, y: 100), button("b", x: 10, y: 110), button("d", x: 10, y: 130)]
            .joined(separator: ",")
        // b starts 10 pt below a (< 22, half the height): same row, left to right. d is 30 pt
        // below a: a new row.
        #expect(try topLevel(layout(children)) == ["b", "a", "d", "c"])
        #expect(try topLevel(layout(children, screen: #", "naturalOrder": "geometric""#)) == ["b", "a", "d", "c"])
        #expect(try topLevel(layout(children, screen: #", "naturalOrder": "document""#)) == ["c", "a", "b", "d"])
    }

    static func box(_ id: String, x: Double, y: Double, height: Double) -> String {
        #"{"id": "\#(id)", "label": "\#(id)", "traits": ["button"], "frame": {"x": \#(x), "y": \#(y), "width": 100, "height": \#(height)}}"#
    }

    @Test func rowThresholdIsStrictlyLessThanHalfTheSmallerHeight() throws {
        // Exactly half the height (22 of 44) below: a new row.
        #expect(try topLevel(layout(Self.box("a", x: 200, y: 100, height: 44) + "," + Self.box("e", x: 10, y: 122, height: 44))) == ["a", "e"])
        // Just under half: the same row, read left to right.
        #expect(try topLevel(layout(Self.box("a", x: 200, y: 100, height: 44) + "," + Self.box("e", x: 10, y: 121.5, height: 44))) == ["e", "a"])
        // The smaller height counts: 40 pt is less than half the tall block but not the short one.
        #expect(try topLevel(layout(Self.box("tall", x: 200, y: 100, height: 200) + "," + Self.box("short", x: 10, y: 140, height: 44))) == ["tall", "short"])
        #expect(try topLevel(layout(Self.box("tall", x: 200, y: 100, height: 200) + "," + Self.box("short", x: 10, y: 120, height: 44))) == ["short", "tall"])
    }

    @Test func documentOrderKeepsTransparentContainersInPlace() throws {
        let json = layout([button("z", y: 500), #"{"id": "box", "navigationStyle": "separate", "children": [\#(button("y", y: 300)), \#(button("x", y: 10))]}"#,
                           button("w", y: 200)].joined(separator: ","), screen: #", "naturalOrder": "document""#)
        #expect(try topLevel(json) == ["z", "y", "x", "w"])
        let geometric = json.replacingOccurrences(of: #""naturalOrder": "document""#, with: #""naturalOrder": "geometric""#)
        #expect(try topLevel(geometric) == ["x", "w", "y", "z"])
    }

    @Test func explicitElementsOrderOverridesGeometry() throws {
        let json = layout([button("a", y: 10), button("b", y: 60), button("c", y: 110)].joined(separator: ","),
                          root: #", "elements": ["c", "a", "b"]"#)
        #expect(try topLevel(json) == ["c", "a", "b"])
    }

    @Test func claimedNodesLeaveTheirParentsImplicitList() throws {
        // `box` lists b3 from its own subtree; b3 is scanned once, in box's order.
        let json = layout(#"""
            {"id": "box", "navigationStyle": "combined", "elements": ["b3", "b1"], "children": [
              \#(button("b1", y: 10)),
              {"id": "inner", "children": [\#(button("b2", y: 60)), \#(button("b3", y: 110))]}]},
            \#(button("b4", y: 300))
            """#)
        let (scan, tree) = try scanList(json, settings(groupItems: false))
        #expect(render(scan, tree) == ["box{b3,b1}", "b4"])
        #expect(!flatElements(scan, tree).contains("b2"))
    }
}

// MARK: - The seed's examples

@Suite("Switch Control examples")
struct SwitchControlExampleTests {
    @Test(arguments: [true, false])
    func uikitTopLevel(_ groupItems: Bool) throws {
        let (scan, tree) = try scanList(try readLayout("switch-control.uikit.json"), settings(groupItems: groupItems))
        #expect(render(scan, tree) == ["testWrap{test1,test2}", "btn1", "btn2", "thirdGroup{btn5,btn6}"])
        let all = flatElements(scan, tree)
        #expect(!all.contains("btn3"))
        #expect(!all.contains("btn4"))
        for id in ["btn3", "btn4"] {
            let i = try #require(tree.index(of: id))
            #expect(scan.locate(node: i) == nil)
        }
        // The groups know where they sit, for exit items and re-anchoring.
        let third = try #require(tree.index(of: "thirdGroup"))
        let at = try #require(scan.locate(node: third))
        #expect(at.group == 0 && at.index == 3)
    }

    @Test func uikitBtn3AndBtn4StayTappable() throws {
        let doc = try load(try readLayout("switch-control.uikit.json"))
        let hit = try #require(doc.tree.hitTest(Point(x: 188, y: 330)))
        #expect(doc.tree[hit].id == "btn3")
    }

    @Test(arguments: [true, false])
    func swiftUITopLevel(_ groupItems: Bool) throws {
        let (scan, tree) = try scanList(try readLayout("switch-control.swiftui.json"), settings(groupItems: groupItems))
        #expect(render(scan, tree) == ["test1", "test2", "block{button1,button2,button5,button6}"])
        #expect(scan.top.items.count == 3)
    }

    @Test func customActionsElementIsScannedAlthoughStaticText() throws {
        #expect(try topLevel(try readLayout("custom-actions.json")) == ["persoElt"])
    }

    @Test func modalDialogFile() throws {
        #expect(try topLevel(try readLayout("modal-dialog.json")) == ["cancelButton", "deleteButton"])
        #expect(try topLevel(try readLayout("modal-dialog.json"), settings(itemScope: .all))
                == ["dialogTitle", "dialogMessage", "cancelButton", "deleteButton"])
    }

    @Test func mailInboxFile() throws {
        let json = try readLayout("mail-inbox.json")
        let rows = (1...8).map { "msg\($0)" }
        #expect(try topLevel(json, settings(groupItems: true))
                == ["navBar{backButton,editButton}", "searchField", "markAllRead", "messageList{\(rows.joined(separator: ","))}",
                    "loadMore", "toolbar{filterButton,composeButton}"])
        #expect(try topLevel(json, settings(groupItems: false))
                == ["backButton", "editButton", "searchField", "markAllRead"] + rows + ["loadMore", "toolbar{filterButton,composeButton}"])
        // "Updated just now" is static text: it joins the toolbar only with itemScope all.
        let all = try topLevel(json, settings(groupItems: false, itemScope: .all))
        #expect(all.last == "toolbar{filterButton,updatedStatus,composeButton}")
        #expect(all.contains("moveButton"))
    }
}

// MARK: - Groups: combined, separate, automatic

@Suite("Grouping")
struct GroupingTests {
    static func box(_ style: String, _ members: [String], id: String = "box") -> String {
        #"{"id": "\#(id)", "navigationStyle": "\#(style)", "children": [\#(members.joined(separator: ","))]}"#
    }

    static let staticText = #"{"id": "txt", "label": "Some text", "traits": ["staticText"], "frame": {"x": 10, "y": 200, "width": 100, "height": 20}}"#

    @Test(arguments: [true, false])
    func combinedIsOneGroup(_ groupItems: Bool) throws {
        let json = layout(button("b0", y: 10) + "," + Self.box("combined", [button("b1", y: 60), button("b2", y: 110)]))
        #expect(try topLevel(json, settings(groupItems: groupItems)) == ["b0", "box{b1,b2}"])
    }

    @Test func combinedWithOneMemberIsThatMember() throws {
        let json = layout(button("b0", y: 10) + "," + Self.box("combined", [button("b1", y: 60)]))
        let (scan, tree) = try scanList(json)
        #expect(render(scan, tree) == ["b0", "b1"])
        #expect(scan.groups.count == 1)
        // One scannable member among others that are not scanned collapses the same way.
        let json2 = layout(button("b0", y: 10) + "," + Self.box("combined", [button("b1", y: 60), Self.staticText]))
        #expect(try topLevel(json2) == ["b0", "b1"])
    }

    @Test func combinedWithNoMemberDisappears() throws {
        let json = layout(button("b0", y: 10) + "," + Self.box("combined", [Self.staticText]))
        let (scan, tree) = try scanList(json)
        #expect(render(scan, tree) == ["b0"])
        #expect(scan.groups.count == 1)
        let hidden = layout(button("b0", y: 10) + "," + Self.box("combined", [button("b1", y: 60, #", "hidden": true"#)]))
        #expect(try topLevel(hidden) == ["b0"])
    }

    @Test(arguments: [true, false])
    func separateSplicesIntoTheParent(_ groupItems: Bool) throws {
        let json = layout(button("b0", y: 10) + "," + Self.box("separate", [button("b1", y: 60), button("b2", y: 110)]) + "," + button("b3", y: 160))
        let (scan, tree) = try scanList(json, settings(groupItems: groupItems))
        #expect(render(scan, tree) == ["b0", "b1", "b2", "b3"])
        #expect(scan.groups.count == 1)
    }

    @Test func automaticFollowsGroupItems() throws {
        let json = layout(button("b0", y: 10) + "," + Self.box("automatic", [button("b1", y: 60), button("b2", y: 110)]))
        #expect(try topLevel(json, settings(groupItems: true)) == ["b0", "box{b1,b2}"])
        #expect(try topLevel(json, settings(groupItems: false)) == ["b0", "b1", "b2"])
        // The default style is automatic.
        let implicit = json.replacingOccurrences(of: #""navigationStyle": "automatic", "#, with: "")
        #expect(try topLevel(implicit, settings(groupItems: true)) == ["b0", "box{b1,b2}"])
    }

    @Test func automaticWithOneMemberIsNoGroup() throws {
        let json = layout(button("b0", y: 10) + "," + Self.box("automatic", [button("b1", y: 60), Self.staticText]))
        #expect(try topLevel(json, settings(groupItems: true)) == ["b0", "b1"])
        #expect(try topLevel(json, settings(groupItems: true, itemScope: .all)) == ["b0", "box{b1,txt}"])
    }

    @Test func nestedGroups() throws {
        let inner = Self.box("combined", [button("b2", y: 110), button("b3", y: 160)], id: "inner")
        let json = layout(button("b0", y: 10) + "," + Self.box("combined", [button("b1", y: 60), inner], id: "outer"))
        let (scan, tree) = try scanList(json, settings(groupItems: false))
        #expect(render(scan, tree) == ["b0", "outer{b1,inner{b2,b3}}"])
        let innerGroup = try #require(scan.groups.firstIndex { tree[$0.node].id == "inner" })
        let outerGroup = try #require(scan.groups.firstIndex { tree[$0.node].id == "outer" })
        #expect(scan.groups[innerGroup].parent == outerGroup)
        #expect(scan.groups[innerGroup].indexInParent == 1)
        #expect(scan.ancestors(of: innerGroup) == [0, outerGroup])
    }

    @Test func theRootIsNeverAGroup() throws {
        let json = layout(button("b1", y: 10) + "," + button("b2", y: 60), root: #", "navigationStyle": "combined""#)
        // W20 does not apply (the root is a container); the top level holds the members.
        #expect(try topLevel(json) == ["b1", "b2"])
    }

    @Test func aScreenThatIsOneGroupScansItsMembers() throws {
        // Layouts/README.md: a top level that would be a single group shows its members.
        let json = layout(Self.box("combined", [button("b1", y: 60), button("b2", y: 110)]))
        #expect(try topLevel(json) == ["b1", "b2"])
        // A group inside it is re-parented to the top level.
        let inner = Self.box("combined", [button("b2", y: 110), button("b3", y: 160)], id: "inner")
        let (scan, tree) = try scanList(layout(Self.box("combined", [button("b1", y: 60), inner], id: "outer")))
        #expect(render(scan, tree) == ["b1", "inner{b2,b3}"])
        let g = try #require(scan.groups.firstIndex { tree[$0.node].id == "inner" })
        #expect(scan.groups[g].parent == 0)
        #expect(scan.groups[g].indexInParent == 1)
        #expect(scan.ancestors(of: g) == [0])
    }

    @Test func accessibleWrapperHidesItsChildren() throws {
        let json = layout(#"{"id": "row", "isAccessibilityElement": true, "label": "Row", "traits": ["button"], "children": [\#(button("b1")), \#(button("b2", y: 60))]}"#)
        #expect(try topLevel(json) == ["row"])
    }
}

// MARK: - Hiding

@Suite("Hiding")
struct HidingTests {
    @Test func hiddenRemovesTheSubtree() throws {
        let json = layout(button("b0", y: 10) + "," + #"{"id": "box", "hidden": true, "children": [\#(button("b1", y: 60)), \#(button("b2", y: 110))]}"#)
        let (scan, tree) = try scanList(json, settings(groupItems: true, itemScope: .all))
        #expect(render(scan, tree) == ["b0"])
        #expect(try topLevel(layout(button("b0", y: 10) + "," + button("b1", y: 60, #", "hidden": true"#))) == ["b0"])
    }

    @Test func elementsHiddenRemovesTheDescendants() throws {
        let json = layout(button("b0", y: 10) + "," + #"{"id": "box", "elementsHidden": true, "children": [\#(button("b1", y: 60)), {"id": "deep", "children": [\#(button("b2", y: 110))]}]}"#)
        #expect(try topLevel(json, settings(itemScope: .all)) == ["b0"])
    }

    @Test func elementsHiddenKeepsAnAccessibleWrapperItself() throws {
        let json = layout(button("b0", y: 10) + "," + #"{"id": "row", "isAccessibilityElement": true, "elementsHidden": true, "label": "Row", "traits": ["button"], "children": [\#(button("b1", y: 60))]}"#)
        #expect(try topLevel(json) == ["b0", "row"])
    }

    @Test func invisibleIsNotAccessible() throws {
        let json = layout(button("b0", y: 10) + "," + button("b1", y: 60, #", "visible": false"#) + ","
                          + #"{"id": "box", "visible": false, "children": [\#(button("b2", y: 110)), \#(button("b3", y: 160))]}"#)
        #expect(try topLevel(json, settings(itemScope: .all)) == ["b0"])
        // And not hit-testable either.
        let doc = try load(json)
        #expect(doc.tree.hitTest(Point(x: 50, y: 80)) == doc.tree.index(of: "root"))
    }

    @Test func hiddenElementInAnExplicitList() throws {
        let json = layout(button("b1", y: 10) + "," + button("b2", y: 60, #", "hidden": true"#) + "," + button("b3", y: 110),
                          root: #", "elements": ["b3", "b2", "b1"]"#)
        #expect(try topLevel(json) == ["b3", "b1"])
    }

    @Test func hiddenIsStillTappable() throws {
        let doc = try load(try readLayout("switch-control.swiftui.json"))
        let hit = try #require(doc.tree.hitTest(Point(x: 188, y: 330)))
        #expect(doc.tree[hit].id == "button3")
    }
}

// MARK: - Modal views

@Suite("Modal views")
struct ModalTests {
    /// Parent A {A1, A2, A3}; Parent B {B1 {B1.1, B1.2}, B2 {B2.1, B2.2, B2.3}}; all leaves
    /// buttons. `extra` adds members to a node by id.
    static func tree(_ extra: [String: String] = [:]) -> String {
        func leaf(_ id: String, _ y: Double) -> String { button(id, x: 10, y: y, extra[id] ?? "") }
        func node(_ id: String, _ children: [String]) -> String {
            #"{"id": "\#(id)"\#(extra[id] ?? ""), "children": [\#(children.joined(separator: ","))]}"#
        }
        let a = node("parentA", [leaf("a1", 10), leaf("a2", 60), leaf("a3", 110)])
        let b = node("parentB", [node("b1", [leaf("b11", 200), leaf("b12", 250)]),
                                 node("b2", [leaf("b21", 300), leaf("b22", 350), leaf("b23", 400)])])
        return layout(a + "," + b)
    }

    static let modal = #", "viewIsModal": true"#

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var extra: [String: String]
        var expected: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "Ex. 1: parent A modal", extra: ["parentA": modal], expected: ["a1", "a2", "a3"]),
        Case(name: "Ex. 2: A2 modal, no fix", extra: ["a2": modal], expected: ["a2", "b11", "b12", "b21", "b22", "b23"]),
        Case(name: "Ex. 2 fixed", extra: ["a2": modal, "parentB": #", "isAccessibilityElement": false, "elementsHidden": true"#],
             expected: ["a2"]),
        Case(name: "Ex. 3: B1.1 modal, no fix", extra: ["b11": modal], expected: ["a1", "a2", "a3", "b11", "b21", "b22", "b23"]),
        Case(name: "Ex. 3 fixed", extra: ["b11": modal, "parentA": #", "elementsHidden": true"#, "b2": #", "elementsHidden": true"#],
             expected: ["b11"]),
    ]

    @Test(arguments: cases, [ItemScope.all, .interactive])
    func modalExamples(_ c: Case, _ scope: ItemScope) throws {
        for groupItems in [false, true] {
            let (scan, tree) = try scanList(Self.tree(c.extra), settings(groupItems: groupItems, itemScope: scope))
            let scanned = flatElements(scan, tree)
            #expect(Set(scanned) == Set(c.expected), "groupItems \(groupItems)")
            #expect(scanned.count == c.expected.count, "each element once")
        }
    }

    /// W21, the modal pitfall: warned exactly for the unfixed cases, naming what leaks.
    @Test(arguments: cases)
    func modalPitfallIsWarnedWhenTheModalLeaks(_ c: Case) throws {
        let doc = try load(Self.tree(c.extra))
        let pitfall = doc.warnings.filter { $0.code == "W21" }
        if c.name.contains("no fix") {
            let w = try #require(pitfall.first, "\(c.name) must warn")
            #expect(pitfall.count == 1)
            let leaked = c.expected.filter { !(c.extra[$0] ?? "").contains("viewIsModal") }
            for id in leaked.prefix(6) { #expect(w.message.contains("\"\(id)\""), "\(w.message)") }
            #expect(w.message.contains("modalScope"))
        } else {
            #expect(pitfall.isEmpty, "\(c.name): \(pitfall)")
        }
    }

    @Test func withoutAModalEverythingIsScanned() throws {
        let (scan, tree) = try scanList(Self.tree(), settings(groupItems: false))
        #expect(flatElements(scan, tree) == ["a1", "a2", "a3", "b11", "b12", "b21", "b22", "b23"])
    }

    @Test func modalScopeScreen() throws {
        let screen = #", "viewIsModal": true, "modalScope": "screen""#
        for (id, expected) in [("a2", ["a2"]), ("b11", ["b11"]), ("parentB", ["b11", "b12", "b21", "b22", "b23"])] {
            let (scan, tree) = try scanList(Self.tree([id: screen]), settings(groupItems: false))
            #expect(flatElements(scan, tree) == expected, "modal \(id)")
        }
    }

    @Test func hiddenModalHidesNothing() throws {
        let (scan, tree) = try scanList(Self.tree(["a2": #", "viewIsModal": true, "hidden": true"#]), settings(groupItems: false))
        #expect(flatElements(scan, tree) == ["a1", "a3", "b11", "b12", "b21", "b22", "b23"])
    }

    @Test func lastModalSiblingWins() throws {
        let (scan, tree) = try scanList(Self.tree(["a1": Self.modal, "a3": Self.modal]), settings(groupItems: false))
        #expect(flatElements(scan, tree) == ["a3", "b11", "b12", "b21", "b22", "b23"])
    }
}

// MARK: - Item scope

@Suite("Item scope")
struct ItemScopeTests {
    static let mixed = layout([
        #"{"id": "text", "label": "Plain text", "traits": ["staticText"], "frame": {"x": 10, "y": 10, "width": 100, "height": 30}}"#,
        #"{"id": "dimmed", "label": "Dimmed", "traits": ["button", "notEnabled"], "frame": {"x": 10, "y": 50, "width": 100, "height": 30}}"#,
        #"{"id": "actions", "label": "Row", "traits": ["staticText"], "customActions": [{"name": "flag"}], "frame": {"x": 10, "y": 90, "width": 100, "height": 30}}"#,
        #"{"id": "responds", "label": "Responds", "respondsToUserInteraction": true, "frame": {"x": 10, "y": 130, "width": 100, "height": 30}}"#,
        #"{"id": "silenced", "label": "Silenced", "traits": ["button"], "respondsToUserInteraction": false, "frame": {"x": 10, "y": 170, "width": 100, "height": 30}}"#,
        #"{"id": "handler", "label": "Handler", "frame": {"x": 10, "y": 210, "width": 100, "height": 30}, "onTap": [{"emit": "x"}]}"#,
        #"{"id": "adjust", "label": "Level", "traits": ["adjustable"], "adjustable": {"min": 0, "max": 3}, "frame": {"x": 10, "y": 250, "width": 100, "height": 30}}"#,
        #"{"id": "link", "label": "More", "traits": ["link"], "frame": {"x": 10, "y": 290, "width": 100, "height": 30}}"#,
        #"{"id": "search", "label": "Search", "traits": ["searchField"], "frame": {"x": 10, "y": 330, "width": 100, "height": 30}}"#,
        #"{"id": "image", "label": "Photo", "traits": ["image"], "frame": {"x": 10, "y": 370, "width": 100, "height": 30}}"#,
    ].joined(separator: ","))

    @Test func interactiveKeepsOnlyWhatCanBeActedOn() throws {
        #expect(try topLevel(Self.mixed, settings(itemScope: .interactive))
                == ["actions", "responds", "handler", "adjust", "link", "search"])
    }

    @Test func allScansEveryAccessibleElement() throws {
        #expect(try topLevel(Self.mixed, settings(itemScope: .all))
                == ["text", "dimmed", "actions", "responds", "silenced", "handler", "adjust", "link", "search", "image"])
    }

    @Test func defaultScopeIsInteractive() throws {
        #expect(try topLevel(Self.mixed) == ["actions", "responds", "handler", "adjust", "link", "search"])
    }

    @Test func virtualProxyCountsWhenItsActivationPointHitsAHandler() throws {
        let json = layout([
            #"{"id": "realButton", "isAccessibilityElement": false, "frame": {"x": 10, "y": 10, "width": 100, "height": 40}, "onTap": [{"emit": "tap"}]}"#,
            #"{"id": "proxy", "virtual": true, "label": "Proxy", "frame": {"x": 10, "y": 10, "width": 100, "height": 40}}"#,
            #"{"id": "emptyProxy", "virtual": true, "label": "Nothing under", "frame": {"x": 10, "y": 300, "width": 100, "height": 40}}"#,
            #"{"id": "movedPoint", "virtual": true, "label": "Moved", "frame": {"x": 10, "y": 300, "width": 300, "height": 40}, "activationPoint": {"x": 60, "y": 30}, "activationPointOutsideFrame": true}"#,
        ].joined(separator: ","))
        #expect(try topLevel(json) == ["proxy", "movedPoint"])
    }

    @Test func navbarProxies() throws {
        let json = try readLayout("navbar-order.json")
        #expect(try topLevel(json) == ["a11yLBB", "centralButton", "a11yRBB"])
        #expect(try topLevel(json, settings(groupItems: false)) == ["a11yLBB", "centralButton", "a11yRBB"])
        #expect(try topLevel(json, settings(groupItems: false, itemScope: .all))
                == ["a11yLBB", "a11yTBV", "label1", "label2", "label3", "centralButton", "label4", "label5", "a11yRBB"])
    }

    @Test func groupingActivationPointFile() throws {
        let json = try readLayout("grouping-activation-point.json")
        #expect(try topLevel(json) == ["elt"])
        // Without the moved activation point the tap would land on the label, which does
        // nothing: the element is then not interactive.
        let centred = json.replacingOccurrences(of: #"44},\#n        "activationPoint": {"x": 285.5, "y": 121.5}"#, with: "44}")
        #expect(centred != json)
        #expect(try topLevel(centred).isEmpty)
        #expect(try topLevel(centred, settings(itemScope: .all)) == ["elt"])
    }
}

import Foundation
import ScanCore
import ScanFormats
import Testing

/// Large layouts are read by two readers at once (the root's children in two halves of the
/// file). The result must be exactly that of one reader: the same tree, and the same
/// messages at the same places, including ids defined in one half and again in the other.
@Suite("Layouts read in two halves")
struct SplitReadTests {
    /// A root with `rows` rows of five buttons; `extra(row)` adds members to a row's first
    /// button, and `rowExtra(row)` to the row itself.
    static func bigLayout(rows: Int, extra: (Int) -> String = { _ in "" },
                          rowExtra: (Int) -> String = { _ in "" }) -> String {
        var rowsText: [String] = []
        for r in 0..<rows {
            var cells: [String] = []
            for c in 0..<5 {
                let more = c == 0 ? extra(r) : ""
                cells.append(#"{"id": "b\#(r)_\#(c)", "label": "Item \#(r) \#(c)", "traits": ["button"], "frame": {"x": \#(c * 70), "y": \#(r * 50), "width": 60, "height": 40}\#(more)}"#)
            }
            rowsText.append(#"{"id": "row\#(r)", "isAccessibilityElement": false\#(rowExtra(r)), "children": [\#(cells.joined(separator: ", "))]}"#)
        }
        return """
        {"schemaVersion": 1, "screen": {"id": "big", "size": {"width": 400, "height": \(rows * 50 + 50)}},
         "root": {"id": "root", "isAccessibilityElement": false, "children": [
        \(rowsText.joined(separator: ",\n"))
        ]}}
        """
    }

    enum Outcome: Equatable {
        case loaded(nodes: [String], warnings: [String])
        case rejected([String])
    }

    @Test func largeFilesAreSplitAndSmallOnesAreNot() throws {
        let json = Array(Self.bigLayout(rows: 40).utf8)
        #expect(try LayoutLoader.load(bytes: json, file: "big.json", splitAbove: 0).readers == 2)
        #expect(try LayoutLoader.load(bytes: json, file: "big.json", splitAbove: Int.max).readers == 1)
        #expect(try LayoutLoader.load(bytes: json, file: "big.json").readers == 1)  // 40 rows is under 1 MiB
        // A root with one child has nothing to split.
        let one = Array(Self.bigLayout(rows: 1).utf8)
        #expect(try LayoutLoader.load(bytes: one, file: "one.json", splitAbove: 0).readers == 1)
    }

    /// The whole observable result: every node's fields that the reader sets, and every
    /// message as printed (file, line, column, code, path, element, text).
    static func outcome(_ json: String, splitAbove: Int) -> Outcome {
        do {
            let doc = try LayoutLoader.load(bytes: Array(json.utf8), file: "big.json", splitAbove: splitAbove)
            let nodes = doc.tree.nodes.indices.map { i -> String in
                let n = doc.tree[i]
                return "\(i) \(n.id) parent=\(n.parent.map(String.init) ?? "-") children=\(n.children) label=\(n.label ?? "-") "
                    + "ax=\(n.isAccessibilityElement) frame=\(n.frame) point=\(n.activationPoint) elements=\(n.elements ?? []) "
                    + "actions=\(n.customActions.map(\.name)) index=\(doc.tree.index(of: n.id) ?? -1)"
            }
            return .loaded(nodes: nodes, warnings: doc.warnings.map(\.description))
        } catch {
            return .rejected(error.diagnostics.map(\.description))
        }
    }

    func expectSame(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) -> Outcome {
        let one = Self.outcome(json, splitAbove: Int.max)
        let two = Self.outcome(json, splitAbove: 0)
        #expect(one == two, sourceLocation: sourceLocation)
        return two
    }

    @Test func aValidLayoutGivesTheSameTree() throws {
        let json = Self.bigLayout(rows: 40, extra: { r in
            switch r {
            case 3, 35: return #", "hint": "tap here""#                 // warnings in both halves
            case let r where r % 7 == 0: return #", "customActions": [{"name": "delete", "effects": [{"emit": "delete"}]}]"#
            default: return ""
            }
        }, rowExtra: { r in
            switch r {
            case 31: return #", "elements": ["b31_4", "b31_0"]"#      // custom order in the second half
            case 2: return #", "frame": {"x": 0, "y": 100, "width": 400, "height": 50}"#
            default: return ""
            }
        }).replacingOccurrences(of: #"{"id": "row33", "isAccessibilityElement": false"#,
                                with: #"{"id": "row33", "isAccessibilityElement": true, "labelFromChildren": true"#)
          .replacingOccurrences(of: #""id": "b2_3", "label": "Item 2 3", "traits": ["button"], "frame": {"x": 210, "y": 100, "width": 60, "height": 40}"#,
                                with: #""id": "b2_3", "label": "Item 2 3", "traits": ["button"], "frameInContainer": {"x": 5, "y": 5, "width": 10, "height": 10}"#)
        guard case .loaded(let nodes, let warnings) = expectSame(json) else {
            Issue.record("the layout should load"); return
        }
        #expect(nodes.count == 1 + 40 * 6)
        #expect(warnings.filter { $0.contains("W24") && $0.contains("gesture") }.count == 2)
        #expect(warnings.contains { $0.contains("children[35].children[0]") })
        // Whole-tree indices: the last row's first button sits at 1 + 39 × 6 + 1.
        #expect(nodes[1 + 39 * 6 + 1].hasPrefix("\(1 + 39 * 6 + 1) b39_0 parent=\(1 + 39 * 6) "))
        // A label from the children, read in the second half.
        #expect(nodes[1 + 33 * 6].contains("label=Item 33 0, Item 33 1, Item 33 2, Item 33 3, Item 33 4 "))
        // A frame relative to its framed row: (0, 100) + (5, 5).
        #expect(nodes[1 + 2 * 6 + 4].contains("b2_3") && nodes[1 + 2 * 6 + 4].contains("frame=Rect(x: 5.0, y: 105.0"))
    }

    @Test func idsDefinedAgainAcrossTheHalvesNameTheFirstDefinition() {
        // b0_0 is defined in the first half and again twice in the second; b30_1 twice in
        // the second half only.
        let json = Self.bigLayout(rows: 40).replacingOccurrences(of: #""id": "b35_2""#, with: #""id": "b0_0""#)
            .replacingOccurrences(of: #""id": "b38_3""#, with: #""id": "b0_0""#)
            .replacingOccurrences(of: #""id": "b33_4""#, with: #""id": "b30_1""#)
        guard case .rejected(let messages) = expectSame(json) else {
            Issue.record("duplicate ids must be rejected"); return
        }
        let duplicates = messages.filter { $0.contains("duplicate id") }
        #expect(duplicates.count == 3)
        #expect(duplicates.filter { $0.contains(#"duplicate id "b0_0" (first defined at "#) && $0.contains("$.root.children[0].children[0].id)") }.count == 2)
        #expect(duplicates.contains { $0.contains("$.root.children[33].children[4].id") && $0.contains("$.root.children[30].children[1].id)") })
    }

    @Test func errorsInEitherHalfAndAcrossThemAreTheSame() {
        let json = Self.bigLayout(rows: 40, extra: { r in
            switch r {
            case 2: return #", "lable": "typo""#                       // unknown field, first half
            case 36: return #", "hint": 7"#                            // wrong type, second half
            case 37: return #", "onTap": [{"post": "screenChanged", "argument": {"element": "b1_1"}}]"#  // target in the other half
            case 38: return #", "onTap": [{"post": "screenChanged", "argument": {"element": "nowhere"}}]"#
            default: return ""
            }
        }, rowExtra: { r in
            switch r {
            case 34: return #", "elements": ["b3_0"]"#                  // not a descendant
            case 35: return #", "frame": {"x": 0, "y": 0, "width": -1, "height": 5}"#
            default: return ""
            }
        })
        guard case .rejected(let messages) = expectSame(json) else {
            Issue.record("the layout must be rejected"); return
        }
        #expect(messages.contains { $0.contains("E03") && $0.contains("lable") })
        #expect(messages.contains { $0.contains("E04") && $0.contains("children[36].children[0].hint") })
        #expect(messages.contains { $0.contains("E12") && $0.contains("b3_0") })
        #expect(messages.contains { $0.contains("nowhere") })
        #expect(!messages.contains { $0.contains("\"b1_1\"") && $0.contains("unknown") })
    }

    @Test func theRootsIdAgainAndChildrenThatAreNoListAreTheSame() {
        // "children" that is not a list in the first half (no nodes under it), an escaped
        // "children" key, and the root's id again in the second half.
        let json = Self.bigLayout(rows: 40)
            .replacingOccurrences(of: #"{"id": "row1", "isAccessibilityElement": false, "children": ["#,
                                  with: #"{"id": "row1", "isAccessibilityElement": false, "frame": {"x": 0, "y": 0, "width": 5, "height": 5}, "children": 3, "x": ["#)
            .replacingOccurrences(of: #"{"id": "row4", "isAccessibilityElement": false, "children": "#,
                                  with: #"{"id": "row4", "isAccessibilityElement": false, "ch\u0069ldren": "#)
            .replacingOccurrences(of: #""id": "b37_2""#, with: #""id": "root""#)
        guard case .rejected(let messages) = expectSame(json) else {
            Issue.record("the layout must be rejected"); return
        }
        #expect(messages.contains { $0.contains(#"duplicate id "root""#) && $0.contains("$.root.id)") })
        #expect(messages.contains { $0.contains("$.root.children[1].children") && $0.contains("must be an array") })
    }

    @Test func aRootWithTwoChildrenOrOneHugeChild() {
        // Two children: one each. A huge first child: the split still leaves one to each.
        let two = Self.bigLayout(rows: 2)
        _ = expectSame(two)
        let huge = Self.bigLayout(rows: 3).replacingOccurrences(
            of: #"{"id": "row0", "isAccessibilityElement": false, "children": ["#,
            with: #"{"id": "row0", "isAccessibilityElement": false, "children": [\#((0..<300).map { #"{"id": "h\#($0)", "label": "H", "frame": {"x": 0, "y": 0, "width": 5, "height": 5}}"# }.joined(separator: ", ")), "#)
        guard case .loaded(let nodes, _) = expectSame(huge) else {
            Issue.record("the layout should load"); return
        }
        #expect(nodes.count == 1 + 3 * 6 + 300)
    }

    @Test func oddChildrenAndDeepNestingCountTheSameNodes() {
        // Children that are not objects make no node; nesting past the limit is refused:
        // the second half's first index must still come out right.
        var deep = #"{"id": "d0", "frame": {"x": 0, "y": 0, "width": 1, "height": 1}}"#
        for k in 1...(LayoutLoader.maxElementDepth + 3) {
            deep = #"{"id": "d\#(k)", "isAccessibilityElement": false, "children": [\#(deep)]}"#
        }
        let json = Self.bigLayout(rows: 40, rowExtra: { r in
            r == 1 ? #", "label": "x""# : ""
        }).replacingOccurrences(of: #"{"id": "row3", "#, with: #"42, "text", null, \#(deep), {"id": "row3", "#)
        guard case .rejected(let messages) = expectSame(json) else {
            Issue.record("the layout must be rejected"); return
        }
        #expect(messages.contains { $0.contains("nested deeper than") })
        #expect(messages.contains { $0.contains("must be an object, got a number") })
    }
}

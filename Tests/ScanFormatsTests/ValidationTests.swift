import Foundation
import ScanCore
import ScanFormats
import Testing

/// One test per validation rule of Layouts/README.md (E01–E17, W18–W26, I25): the exact code,
/// JSON path, element id and the key part of the message.

let allTraits = "none, button, link, header, adjustable, searchField, keyboardKey, staticText, image, selected, playsSound, summaryElement, updatesFrequently, notEnabled"

// MARK: - E01 malformed JSON

@Suite("E01 malformed JSON")
struct MalformedJSONTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var json: String
        var message: String
        var line: Int
        var column: Int
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "trailing comma in an array", json: "{\n  \"schemaVersion\": 1,\n  \"root\": [1, 2,]\n}",
             message: "malformed JSON: trailing comma before ']'", line: 3, column: 17),
        Case(name: "trailing comma in an object", json: "{\"schemaVersion\": 1,\n}",
             message: "malformed JSON: trailing comma before '}'", line: 2, column: 1),
        Case(name: "line comment", json: "{\"schemaVersion\": 1,\n \"screen\": // the screen\n {}}",
             message: "malformed JSON: comments are not allowed in JSON", line: 2, column: 12),
        Case(name: "block comment before the document", json: "/* layout */ {}",
             message: "malformed JSON: comments are not allowed in JSON", line: 1, column: 1),
        Case(name: "duplicate key", json: "{\"schemaVersion\": 1,\n  \"schemaVersion\": 1}",
             message: "malformed JSON: duplicate key \"schemaVersion\" in one object", line: 2, column: 3),
        Case(name: "unterminated string", json: "{\"schemaVersion\": 1, \"screen\": {\"id\": \"abc}}",
             message: "malformed JSON: unterminated string", line: 1, column: 39),
        Case(name: "raw line break in a string", json: "{\"schemaVersion\": 1, \"screen\": {\"id\": \"abc}}\n",
             message: "malformed JSON: control character in string; escape it (\\n, \\t, \\u00XX)", line: 1, column: 45),
        Case(name: "leading zeros", json: "{\"schemaVersion\": 01}",
             message: "malformed JSON: numbers may not have leading zeros", line: 1, column: 19),
        Case(name: "non-finite number", json: "{\"schemaVersion\": 1, \"x\": 1e999}",
             message: "malformed JSON: number 1e999 is out of range (must be finite)", line: 1, column: 27),
        Case(name: "negative non-finite number", json: "{\"x\": -1e999}",
             message: "malformed JSON: number -1e999 is out of range (must be finite)", line: 1, column: 7),
        Case(name: "NaN literal", json: "{\"x\": NaN}",
             message: "malformed JSON: unexpected character 'N'; expected a value", line: 1, column: 7),
        Case(name: "garbage after the document", json: "{} {}",
             message: "malformed JSON: unexpected character '{' after the end of the document", line: 1, column: 4),
        Case(name: "single-quoted string", json: "{'schemaVersion': 1}",
             message: "malformed JSON: unexpected character '''; expected a quoted key", line: 1, column: 2),
    ]

    @Test(arguments: cases)
    func rejected(_ c: Case) throws {
        let e = try onlyError(c.json)
        #expect(e.code == "E01")
        #expect(e.severity == .error)
        #expect(e.path == "$")
        #expect(e.element == nil)
        #expect(e.message == c.message)
        #expect(e.line == c.line)
        #expect(e.column == c.column)
    }

    @Test func duplicateKeyInABigObjectIsStillFound() throws {
        // Many keys (past any small-object fast path), the duplicate far from the original.
        let keys = (0..<40).map { "\"k\($0)\": \($0)" }.joined(separator: ", ")
        for dup in ["k0", "k15", "k16", "k17", "k39"] {
            let e = try onlyError("{\(keys), \"\(dup)\": 1}")
            #expect(e.code == "E01")
            #expect(e.message == "malformed JSON: duplicate key \"\(dup)\" in one object")
        }
        // And the same object without a duplicate parses (then fails only on schema grounds).
        let errs = errors("{\(keys)}")
        #expect(!errs.contains { $0.code == "E01" })
    }

    @Test func duplicateKeyInANestedNodeIsFound() throws {
        let json = layout(#"{"id": "b1", "label": "A", "label": "B", "frame": {"x": 0, "y": 0, "width": 1, "height": 1}}"#)
        let e = try onlyError(json)
        #expect(e.code == "E01")
        #expect(e.message == "malformed JSON: duplicate key \"label\" in one object")
        let expected = try #require(position(of: #""label": "B""#, in: json))
        #expect((e.line, e.column) == (expected.line, expected.column))
    }
}

@Suite("Escaped keys")
struct EscapedKeyTests {
    @Test func escapedFieldNamesAreTheirDecodedNames() throws {
        let doc = try load(layout(#"{"\u0069d": "b1", "l\u0061bel": "OK", "traits": ["button"], "fr\u0061me": {"x": 1, "y": 2, "width": 3, "height": 4}}"#))
        let i = try #require(doc.tree.index(of: "b1"))
        #expect(doc.tree[i].label == "OK")
        #expect(doc.tree[i].frame == Rect(x: 1, y: 2, width: 3, height: 4))
    }

    @Test func escapedDuplicateKeyIsADuplicate() throws {
        let e = try onlyError(#"{"label": "a", "l\u0061bel": "b"}"#)
        #expect(e.code == "E01")
        #expect(e.message == #"malformed JSON: duplicate key "label" in one object"#)
    }

    @Test func escapedSettingsKey() throws {
        let s = try SettingsLoader.load(bytes: bytes(#"{"l\u006fops": 7}"#), file: "s.json")
        #expect(s.loops == 7)
    }

    @Test func emptyAndNonASCIIKeysAreUnknownFields() throws {
        let errs = errors(layout(button("b1", #", "": 1, "läbel": "x""#)))
        #expect(errs.map(\.code) == ["E03", "E03"])
        #expect(errs.map(\.path) == ["$.root.children[0].", "$.root.children[0].läbel"])
        #expect(errs.last?.message.contains(#"did you mean "label"?"#) == true)
    }
}

// MARK: - E02 schema version

@Suite("E02 schemaVersion")
struct SchemaVersionTests {
    @Test func missing() throws {
        let json = layout(button("b1")).replacingOccurrences(of: #""schemaVersion": 1,"#, with: "")
        let e = try onlyError(json)
        #expect(e.code == "E02")
        #expect(e.path == "$")
        #expect(e.element == nil)
        #expect(e.message.contains("missing \"schemaVersion\""))
        #expect((e.line, e.column) == (1, 1))
    }

    @Test(arguments: ["2", "0", "\"1\"", "1.5"])
    func wrongVersion(_ version: String) throws {
        let json = layout(button("b1")).replacingOccurrences(of: #""schemaVersion": 1,"#, with: #""schemaVersion": \#(version),"#)
        let e = try onlyError(json)
        #expect(e.code == "E02")
        #expect(e.path == "$.schemaVersion")
        #expect(e.element == nil)
        #expect(e.message.contains("must be 1"))
        #expect((e.line, e.column) == (1, 19))
    }
}

// MARK: - E03 unknown fields

@Suite("E03 unknown field")
struct UnknownFieldTests {
    @Test func misspeltNodeFieldSuggestsTheKnownName() throws {
        let json = layout(#"{"id": "b1", "lable": "OK", "label": "OK", "traits": ["button"], "frame": {"x": 0, "y": 0, "width": 10, "height": 10}}"#)
        let e = try onlyError(json)
        #expect(e.code == "E03")
        #expect(e.path == "$.root.children[0].lable")
        #expect(e.message == #"unknown field "lable"; did you mean "label"?"#)
        // Position is at the key.
        let expected = try #require(position(of: #""lable""#, in: json))
        #expect((e.line, e.column) == (expected.line, expected.column))
        #expect(e.element == "b1")
    }

    @Test func misspeltScreenField() throws {
        let e = try onlyError(layout(button("b1"), screen: #", "titel": "Home""#))
        #expect(e.code == "E03")
        #expect(e.path == "$.screen.titel")
        #expect(e.element == nil)
        #expect(e.message == #"unknown field "titel"; did you mean "title"?"#)
    }

    @Test func unknownFieldInAFrame() throws {
        let e = try onlyError(layout(#"{"id": "b1", "label": "B", "traits": ["button"], "frame": {"x": 0, "y": 0, "width": 10, "height": 10, "heigth": 3}}"#))
        #expect(e.code == "E03")
        #expect(e.path == "$.root.children[0].frame.heigth")
        #expect(e.element == "b1")
        #expect(e.message == #"unknown field "heigth"; did you mean "height"?"#)
    }

    @Test func dollarSchemaIsUnknownAndListsAllowedFields() throws {
        let json = layout(button("b1")).replacingOccurrences(of: #"{"schemaVersion": 1,"#,
                                                             with: #"{"$schema": "layout.schema.json", "schemaVersion": 1,"#)
        let e = try onlyError(json)
        #expect(e.code == "E03")
        #expect(e.path == "$.$schema")
        #expect(e.message.contains(#"unknown field "$schema""#))
        #expect(e.message.contains("schemaVersion, screen, root"))
    }
}

// MARK: - E04 types and enums

@Suite("E04 wrong type or enum value")
struct WrongTypeTests {
    @Test func boolGivenAsString() throws {
        let e = try onlyError(layout(button("b1", #", "hidden": "yes""#)))
        #expect(e.code == "E04")
        #expect(e.path == "$.root.children[0].hidden")
        #expect(e.element == "b1")
        #expect(e.message == "must be true or false, got a string")
    }

    @Test func numberGivenAsString() throws {
        let e = try onlyError(layout(#"{"id": "b1", "label": "B", "traits": ["button"], "frame": {"x": "10", "y": 0, "width": 10, "height": 10}}"#))
        #expect(e.code == "E04")
        #expect(e.path == "$.root.children[0].frame.x")
        #expect(e.element == "b1")
        #expect(e.message == "must be a number, got a string")
    }

    @Test func childrenNotAnArray() throws {
        let errs = errors(layout("").replacingOccurrences(of: #""children": []"#, with: #""children": {}"#))
        let e = try #require(errs.first { $0.code == "E04" })
        #expect(e.path == "$.root.children")
        #expect(e.element == "root")
        #expect(e.message == "must be an array, got an object")
    }

    @Test func badNavigationStyleListsAllowedValues() throws {
        let e = try onlyError(layout(button("b1") + "," + button("b2", y: 60), root: #", "navigationStyle": "combine""#))
        #expect(e.code == "E04")
        #expect(e.path == "$.root.navigationStyle")
        #expect(e.element == "root")
        #expect(e.message == #"unknown value "combine"; allowed: automatic, separate, combined; did you mean "combined"?"#)
    }

    @Test func enumsAreCaseSensitive() throws {
        let e = try onlyError(layout(button("b1"), screen: #", "naturalOrder": "Document""#))
        #expect(e.code == "E04")
        #expect(e.path == "$.screen.naturalOrder")
        #expect(e.message.contains("allowed: geometric, document"))
        #expect(e.message.contains(#"did you mean "document"?"#))
    }

    @Test func badModalScopeWithoutSuggestion() throws {
        let e = try onlyError(layout(button("b1", #", "viewIsModal": true, "modalScope": "everything""#)))
        #expect(e.code == "E04")
        #expect(e.path == "$.root.children[0].modalScope")
        #expect(e.message == #"unknown value "everything"; allowed: siblings, screen"#)
    }
}

// MARK: - E05 ids

@Suite("E05 ids")
struct IDTests {
    @Test(arguments: ["1st", "has space", "", "é", "a/b"])
    func badSyntax(_ id: String) throws {
        let json = layout(#"{"id": "\#(id)", "label": "B", "traits": ["button"], "frame": {"x": 0, "y": 0, "width": 10, "height": 10}}"#)
        let errs = errors(json)
        let e = try #require(errs.first { $0.code == "E05" }, "\(errs.map(\.description))")
        #expect(e.path == "$.root.children[0].id")
        #expect(e.message.hasPrefix("bad id \"\(id)\": an id starts with a letter or \"_\""))
    }

    @Test(arguments: ["a", "_", "_x", "a.b:c-d_1", "Z9"])
    func goodSyntax(_ id: String) throws {
        let json = layout(#"{"id": "\#(id)", "label": "B", "traits": ["button"], "frame": {"x": 0, "y": 0, "width": 10, "height": 10}}"#)
        let doc = try load(json)
        #expect(doc.tree.nodes.map(\.id) == ["root", id])
    }

    @Test func longestAllowedIdAndOneLonger() throws {
        let ok = "a" + String(repeating: "b", count: 127)
        _ = try load(layout(button(ok)))
        let e = try onlyError(layout(button(ok + "c")))
        #expect(e.code == "E05")
    }

    @Test func punctuationAllowedInIds() throws {
        _ = try load(layout(button("_a.b:c-d9")))
    }

    @Test func duplicateNamesTheFirstDefinition() throws {
        let json = layout(button("b1") + ",\n" + button("b1", y: 60))
        let e = try onlyError(json)
        #expect(e.code == "E05")
        #expect(e.path == "$.root.children[1].id")
        let first = try #require(position(of: #""b1""#, in: json, occurrence: 1))
        #expect(e.message == #"duplicate id "b1" (first defined at \#(first.line):\#(first.column), $.root.children[0].id)"#)
        let expected = try #require(position(of: #""b1""#, in: json, occurrence: 2))
        #expect(e.description == #"test.json:\#(expected.line):\#(expected.column): error E05: $.root.children[1].id: duplicate id "b1" (first defined at \#(first.line):\#(first.column), $.root.children[0].id)"#)
        #expect(expected.line == 6)
    }

    @Test func duplicateOfTheRootId() throws {
        let e = try onlyError(layout(button("root")))
        #expect(e.code == "E05")
        #expect(e.message.contains(", $.root.id)"))
    }

    @Test func missingId() throws {
        let e = try onlyError(layout(#"{"label": "B", "traits": ["button"], "frame": {"x": 0, "y": 0, "width": 10, "height": 10}}"#))
        #expect(e.code == "E05")
        #expect(e.path == "$.root.children[0]")
        #expect(e.message.contains("missing required field \"id\""))
    }
}

// MARK: - E06 frames

@Suite("E06 frames")
struct FrameTests {
    @Test func negativeWidth() throws {
        let e = try onlyError(layout(#"{"id": "b1", "label": "B", "traits": ["button"], "frame": {"x": 0, "y": 0, "width": -4, "height": 10}}"#))
        #expect(e.code == "E06")
        #expect(e.path == "$.root.children[0].frame.width")
        #expect(e.element == "b1")
        #expect(e.message == "must be >= 0, got -4")
    }

    @Test func negativeHeightWithFraction() throws {
        let e = try onlyError(layout(#"{"id": "b1", "label": "B", "traits": ["button"], "frame": {"x": 0, "y": 0, "width": 4, "height": -0.5}}"#))
        #expect(e.code == "E06")
        #expect(e.path == "$.root.children[0].frame.height")
        #expect(e.message == "must be >= 0, got -0.5")
    }

    @Test func zeroSizeIsAllowed() throws {
        let doc = try load(layout(#"{"id": "b1", "label": "B", "traits": ["button"], "frame": {"x": 5, "y": 5, "width": 0, "height": 0}}"#))
        // Allowed, but linted as zero-area (W22).
        #expect(doc.warnings.contains { $0.code == "W22" && $0.element == "b1" })
    }

    @Test func missingFrameOnALeaf() throws {
        let e = try onlyError(layout(#"{"id": "b1", "label": "B", "traits": ["button"]}"#))
        #expect(e.code == "E06")
        #expect(e.path == "$.root.children[0]")
        #expect(e.element == "b1")
        #expect(e.message.contains("missing \"frame\""))
    }

    @Test func containerFrameDefaultsToTheUnionOfItsChildren() throws {
        let doc = try load(layout(#"{"id": "box", "children": [\#(button("b1", x: 10, y: 20)), \#(button("b2", x: 200, y: 100))]}"#))
        let box = try #require(doc.tree.index(of: "box"))
        #expect(doc.tree[box].frame == Rect(x: 10, y: 20, width: 290, height: 124))
    }

    @Test func frameAndFrameInContainerTogether() throws {
        let e = try onlyError(layout(#"{"id": "b1", "label": "B", "traits": ["button"], "frame": {"x": 0, "y": 0, "width": 4, "height": 4}, "frameInContainer": {"x": 0, "y": 0, "width": 4, "height": 4}}"#))
        #expect(e.code == "E06")
        #expect(e.path == "$.root.children[0].frameInContainer")
        #expect(e.element == "b1")
        #expect(e.message == #"use either "frame" or "frameInContainer", not both"#)
    }

    @Test func frameInContainerIsRelativeToTheParentFrame() throws {
        let doc = try load(layout(#"""
            {"id": "box", "frame": {"x": 100, "y": 200, "width": 200, "height": 100},
             "children": [{"id": "b1", "label": "B", "traits": ["button"], "frameInContainer": {"x": 10, "y": 20, "width": 30, "height": 40}}]}
            """#))
        let b1 = try #require(doc.tree.index(of: "b1"))
        #expect(doc.tree[b1].frame == Rect(x: 110, y: 220, width: 30, height: 40))
        #expect(doc.tree[b1].activationPoint == Point(x: 125, y: 240))
    }
}

// MARK: - E07 activation point

@Suite("E07 activation point")
struct ActivationPointTests {
    static let elt = #"{"id": "elt", "label": "regrouping elements", "virtual": true, "frame": {"x": 20, "y": 100, "width": 291, "height": 44}, "activationPoint": {"x": 400, "y": 121.5}"#

    @Test func outsideTheFrame() throws {
        let json = layout(Self.elt + "}")
        let e = try onlyError(json)
        #expect(e.code == "E07")
        #expect(e.path == "$.root.children[0].activationPoint")
        #expect(e.element == "elt")
        #expect(e.message == #"point (400, 121.5) lies outside frame {x:20, y:100, width:291, height:44}; set "activationPointOutsideFrame": true to allow it"#)
        let at = try #require(position(of: #"{"x": 400"#, in: json))
        #expect(e.description == #"test.json:\#(at.line):\#(at.column): error E07: $.root.children[0].activationPoint (element "elt"): point (400, 121.5) lies outside frame {x:20, y:100, width:291, height:44}; set "activationPointOutsideFrame": true to allow it"#)
    }

    @Test func allowedWhenDeclared() throws {
        let doc = try load(layout(Self.elt + #", "activationPointOutsideFrame": true}"#))
        let i = try #require(doc.tree.index(of: "elt"))
        #expect(doc.tree[i].activationPoint == Point(x: 400, y: 121.5))
        #expect(doc.tree[i].hasExplicitActivationPoint)
    }

    @Test func edgesAreInside() throws {
        for (x, y) in [(20.0, 100.0), (311.0, 144.0), (20.0, 144.0), (311.0, 100.0)] {
            _ = try load(layout(#"{"id": "elt", "label": "E", "traits": ["button"], "frame": {"x": 20, "y": 100, "width": 291, "height": 44}, "activationPoint": {"x": \#(x), "y": \#(y)}}"#))
        }
        let e = try onlyError(layout(#"{"id": "elt", "label": "E", "traits": ["button"], "frame": {"x": 20, "y": 100, "width": 291, "height": 44}, "activationPoint": {"x": 311.5, "y": 144}}"#))
        #expect(e.code == "E07")
    }

    @Test func insideThePathCounts() throws {
        // Outside the (small) frame but inside the polygon: allowed (frame ∪ path).
        _ = try load(layout(#"{"id": "elt", "label": "E", "traits": ["button"], "frame": {"x": 0, "y": 0, "width": 10, "height": 10}, "path": [[0, 0], [200, 0], [0, 200]], "activationPoint": {"x": 50, "y": 50}}"#))
        // Outside both: still an error.
        let e = try onlyError(layout(#"{"id": "elt", "label": "E", "traits": ["button"], "frame": {"x": 0, "y": 0, "width": 10, "height": 10}, "path": [[0, 0], [200, 0], [0, 200]], "activationPoint": {"x": 150, "y": 150}}"#))
        #expect(e.code == "E07")
    }

    @Test func defaultIsTheFrameCentre() throws {
        let doc = try load(layout(button("b1", x: 10, y: 20)))
        let i = try #require(doc.tree.index(of: "b1"))
        #expect(doc.tree[i].activationPoint == Point(x: 60, y: 42))
        #expect(!doc.tree[i].hasExplicitActivationPoint)
    }
}

// MARK: - E08 path

@Suite("E08 path")
struct PathTests {
    @Test func twoPoints() throws {
        let e = try onlyError(layout(button("b1", #", "path": [[0, 0], [10, 0]]"#)))
        #expect(e.code == "E08")
        #expect(e.path == "$.root.children[0].path")
        #expect(e.element == "b1")
        #expect(e.message.hasSuffix("needs at least 3 points, got 2"))
        #expect(e.message == "a path needs at least 3 points, got 2")
    }

    @Test func malformedPoint() throws {
        let e = try onlyError(layout(button("b1", #", "path": [[0, 0], [10, 0], [5]]"#)))
        #expect(e.code == "E04")
        #expect(e.path == "$.root.children[0].path[2]")
        #expect(e.element == "b1")
        #expect(e.message == "must be a point [x, y] of two numbers")
    }

    @Test func threePointsLoad() throws {
        _ = try load(layout(button("b1", #", "path": [[0, 0], [10, 0], [5, 8]]"#)))
    }
}

// MARK: - E09 traits

@Suite("E09 traits")
struct TraitTests {
    static func leaf(_ traits: String) -> String {
        layout(#"{"id": "b1", "label": "B", "traits": \#(traits), "frame": {"x": 0, "y": 0, "width": 10, "height": 10}, "onTap": [{"emit": "x"}]}"#)
    }

    @Test func misspeltTraitListsAllowedAndSuggests() throws {
        let e = try onlyError(Self.leaf(#"["buton"]"#))
        #expect(e.code == "E09")
        #expect(e.path == "$.root.children[0].traits[0]")
        #expect(e.element == "b1")
        #expect(e.message == #"unknown trait "buton"; allowed: \#(allTraits); did you mean "button"?"#)
    }

    @Test(arguments: [(".button", "button"), ("isButton", "button"), ("UIAccessibilityTraitButton", "button"),
                      ("Button", "button"), ("isHeader", "header"), ("UIAccessibilityTraitStaticText", "staticText")])
    func foreignSpellingsSuggestTheCanonicalName(_ spelling: String, _ canonical: String) throws {
        let e = try onlyError(Self.leaf(#"["\#(spelling)"]"#))
        #expect(e.code == "E09")
        #expect(e.path == "$.root.children[0].traits[0]")
        #expect(e.message.hasPrefix(#"unknown trait "\#(spelling)""#))
        #expect(e.message.hasSuffix(#"did you mean "\#(canonical)"?"#))
    }

    @Test func rawBitmask() throws {
        let e = try onlyError(Self.leaf("1"))
        #expect(e.code == "E09")
        #expect(e.path == "$.root.children[0].traits")
        #expect(e.element == "b1")
        #expect(e.message.contains("not a raw bitmask"))
    }

    @Test func duplicateTrait() throws {
        let e = try onlyError(Self.leaf(#"["button", "selected", "button"]"#))
        #expect(e.code == "E09")
        #expect(e.path == "$.root.children[0].traits[2]")
        #expect(e.message == #"duplicate trait "button""#)
    }

    @Test func noneCombinedWithOthers() throws {
        let e = try onlyError(Self.leaf(#"["none", "button"]"#))
        #expect(e.code == "E09")
        #expect(e.path == "$.root.children[0].traits")
        #expect(e.message == #""none" must be the only trait"#)
        // Alone it is fine.
        _ = try load(Self.leaf(#"["none"]"#))
    }

    @Test func isModalIsNotATrait() throws {
        let e = try onlyError(Self.leaf(#"["button", "isModal"]"#))
        #expect(e.code == "E09")
        #expect(e.path == "$.root.children[0].traits[1]")
        #expect(e.message.contains(#"use "viewIsModal": true"#))
    }

    @Test func traitThatIsNotAString() throws {
        let e = try onlyError(Self.leaf(#"["button", 4]"#))
        #expect(e.code == "E09")
        #expect(e.path == "$.root.children[0].traits[1]")
        #expect(e.message.contains("a trait is a name"))
    }

    @Test func everyTraitOfTheVocabularyLoads() throws {
        for t in Trait.allCases where t != .none && t != .adjustable {
            let doc = try load(Self.leaf(#"["\#(t.rawValue)"]"#))
            let i = try #require(doc.tree.index(of: "b1"))
            #expect(doc.tree[i].traits.contains(t))
        }
    }
}

// MARK: - E10 adjustable

@Suite("E10 adjustable")
struct AdjustableTests {
    static func element(_ members: String) -> String {
        layout(#"{"id": "vol", "label": "Volume", "frame": {"x": 0, "y": 0, "width": 100, "height": 44}\#(members)}"#)
    }

    @Test func traitWithoutSpec() throws {
        let e = try onlyError(Self.element(#", "traits": ["adjustable"]"#))
        #expect(e.code == "E10")
        #expect(e.path == "$.root.children[0].traits")
        #expect(e.element == "vol")
        #expect(e.message.contains(#"needs an "adjustable" spec"#))
    }

    @Test func specWithoutTrait() throws {
        let e = try onlyError(Self.element(#", "traits": ["button"], "adjustable": {"min": 0, "max": 10}"#))
        #expect(e.code == "E10")
        #expect(e.path == "$.root.children[0].adjustable")
        #expect(e.element == "vol")
        #expect(e.message.contains(#"needs the trait "adjustable""#))
    }

    @Test func valueOnAnAdjustable() throws {
        let e = try onlyError(Self.element(#", "traits": ["adjustable"], "value": "5", "adjustable": {"min": 0, "max": 10, "value": 5}"#))
        #expect(e.code == "E10")
        #expect(e.path == "$.root.children[0].value")
        #expect(e.element == "vol")
        #expect(e.message.contains("computed"))
    }

    @Test func minGreaterThanMax() throws {
        let e = try onlyError(Self.element(#", "traits": ["adjustable"], "adjustable": {"min": 10, "max": 0}"#))
        #expect(e.code == "E10")
        #expect(e.path == "$.root.children[0].adjustable.min")
        #expect(e.message == "min 10 is greater than max 0")
    }

    @Test(arguments: ["11", "-1", "10.5"])
    func valueOutOfRange(_ v: String) throws {
        let e = try onlyError(Self.element(#", "traits": ["adjustable"], "adjustable": {"min": 0, "max": 10, "value": \#(v)}"#))
        #expect(e.code == "E10")
        #expect(e.path == "$.root.children[0].adjustable.value")
        #expect(e.element == "vol")
        #expect(e.message == "must be between min 0 and max 10, got \(v)")
    }

    @Test(arguments: ["0", "-1"])
    func stepNotPositive(_ step: String) throws {
        let e = try onlyError(Self.element(#", "traits": ["adjustable"], "adjustable": {"min": 0, "max": 10, "step": \#(step)}"#))
        #expect(e.code == "E10")
        #expect(e.path == "$.root.children[0].adjustable.step")
        #expect(e.message == "must be > 0, got \(step)")
    }

    @Test func listIndexOutOfRange() throws {
        let e = try onlyError(Self.element(#", "traits": ["adjustable"], "adjustable": {"values": ["low", "high"], "index": 2}"#))
        #expect(e.code == "E10")
        #expect(e.path == "$.root.children[0].adjustable.index")
        #expect(e.element == "vol")
        #expect(e.message == "must be between 0 and 1, got 2")
    }

    @Test func emptyList() throws {
        let e = try onlyError(Self.element(#", "traits": ["adjustable"], "adjustable": {"values": []}"#))
        #expect(e.code == "E10")
        #expect(e.path == "$.root.children[0].adjustable.values")
    }

    @Test func unknownSpecFieldIsE10() throws {
        let e = try onlyError(Self.element(#", "traits": ["adjustable"], "adjustable": {"min": 0, "max": 10, "stp": 2}"#))
        #expect(e.code == "E10")
        #expect(e.path == "$.root.children[0].adjustable.stp")
        #expect(e.message.contains(#"did you mean "step"?"#))
    }

    @Test func validSpecsLoadWithTheirValues() throws {
        let doc = try load(Self.element(#", "traits": ["adjustable"], "adjustable": {"min": 0, "max": 10, "step": 2, "value": 4, "decimals": 1, "valueFormat": "{value} dB"}"#))
        let i = try #require(doc.tree.index(of: "vol"))
        let adj = try #require(doc.tree[i].adjustable)
        #expect(adj.kind == .numeric(min: 0, max: 10, step: 2, decimals: 1, format: "{value} dB"))
        #expect(adj.current == 4)
        let list = try load(Self.element(#", "traits": ["adjustable"], "adjustable": {"values": ["a", "b", "c"], "index": 1}"#))
        let j = try #require(list.tree.index(of: "vol"))
        #expect(list.tree[j].adjustable?.kind == .list(["a", "b", "c"]))
        #expect(list.tree[j].adjustable?.current == 1)
    }
}

// MARK: - E11 labels

@Suite("E11 labels")
struct LabelTests {
    @Test func reachableElementWithoutLabel() throws {
        let json = layout(#"{"id": "b1", "traits": ["button"], "frame": {"x": 0, "y": 0, "width": 10, "height": 10}}"#)
        let e = try onlyError(json)
        #expect(e.code == "E11")
        #expect(e.path == "$.root.children[0]")
        #expect(e.element == "b1")
        #expect(e.message.contains(#"needs a non-empty "label""#))
    }

    @Test func emptyLabel() throws {
        let e = try onlyError(layout(#"{"id": "b1", "label": "", "traits": ["button"], "frame": {"x": 0, "y": 0, "width": 10, "height": 10}}"#))
        #expect(e.code == "E11")
        #expect(e.element == "b1")
    }

    @Test func unreachableElementNeedsNoLabel() throws {
        // `elements` names only b1: b2 is outside the accessibility tree (I25, not E11).
        let json = layout(button("b1") + #", {"id": "b2", "traits": ["button"], "frame": {"x": 0, "y": 60, "width": 10, "height": 10}}"#,
                          root: #", "elements": ["b1"]"#)
        let doc = try load(json)
        let info = try #require(doc.warnings.first { $0.code == "I25" })
        #expect(info.message.contains(#""b2""#))
        #expect(!info.message.contains(#""b1""#))
    }

    @Test func decorativeNodeNeedsNoLabel() throws {
        _ = try load(layout(button("b1") + #", {"id": "deco", "isAccessibilityElement": false, "frame": {"x": 0, "y": 60, "width": 10, "height": 10}}"#))
    }

    @Test func labelSpansAndLabelFromChildrenCount() throws {
        let doc = try load(layout(#"""
            {"id": "fr", "labelSpans": [{"text": "croissant", "language": "fr"}], "traits": ["button"], "frame": {"x": 0, "y": 0, "width": 10, "height": 10}},
            {"id": "row", "isAccessibilityElement": true, "labelFromChildren": true, "traits": ["button"],
             "children": [{"id": "t1", "isAccessibilityElement": false, "label": "Anna", "frame": {"x": 0, "y": 60, "width": 50, "height": 20}},
                          {"id": "t2", "isAccessibilityElement": false, "label": "Lunch?", "frame": {"x": 60, "y": 60, "width": 50, "height": 20}}]}
            """#))
        #expect(doc.tree[try #require(doc.tree.index(of: "fr"))].label == "croissant")
        #expect(doc.tree[try #require(doc.tree.index(of: "row"))].label == "Anna, Lunch?")
    }
}

// MARK: - E12 elements lists

@Suite("E12 elements lists")
struct ElementsListTests {
    @Test func unknownIdWithSuggestion() throws {
        let e = try onlyError(layout(button("okButton"), root: #", "elements": ["okButon"]"#))
        #expect(e.code == "E12")
        #expect(e.path == "$.root.elements[0]")
        #expect(e.element == "root")
        #expect(e.message == #"unknown element id "okButon"; did you mean "okButton"?"#)
    }

    @Test func notADescendant() throws {
        let json = layout(#"{"id": "box", "elements": ["b2"], "children": [\#(button("b1"))]}, \#(button("b2", y: 60))"#)
        let e = try onlyError(json)
        #expect(e.code == "E12")
        #expect(e.path == "$.root.children[0].elements[0]")
        #expect(e.element == "box")
        #expect(e.message.contains(#""b2" is not a descendant of "box""#))
    }

    @Test func selfIsNotADescendant() throws {
        let e = try onlyError(layout(#"{"id": "box", "elements": ["box"], "children": [\#(button("b1"))]}"#))
        #expect(e.code == "E12")
        #expect(e.message.contains("not a descendant"))
    }

    @Test func repeatedInOneList() throws {
        let e = try onlyError(layout(button("b1") + "," + button("b2", y: 60), root: #", "elements": ["b1", "b2", "b1"]"#))
        #expect(e.code == "E12")
        #expect(e.path == "$.root.elements[2]")
        #expect(e.element == "root")
        #expect(e.message == #""b1" is listed twice"#)
    }

    @Test func listedInTwoLists() throws {
        let json = layout(#"""
            {"id": "outer", "elements": ["b1", "b2"], "children": [
              {"id": "inner", "elements": ["b1"], "children": [\#(button("b1")), \#(button("b2", y: 60))]}]}
            """#)
        let e = try onlyError(json)
        #expect(e.code == "E12")
        #expect(e.path == "$.root.children[0].children[0].elements[0]")
        #expect(e.element == "inner")
        #expect(e.message.contains(#""b1" is already listed in $.root.children[0].elements (element "outer")"#))
    }

    @Test func nodeAndItsDescendantInOneList() throws {
        let json = layout(#"{"id": "box", "children": [\#(button("b1")), \#(button("b2", y: 60))]}"#, root: #", "elements": ["box", "b1"]"#)
        let e = try onlyError(json)
        #expect(e.code == "E12")
        #expect(e.path == "$.root.elements")
        #expect(e.element == "root")
        #expect(e.message == #"lists both "box" and its descendant "b1""#)
    }

    @Test func onANodeWithoutChildren() throws {
        let e = try onlyError(layout(button("b1", #", "elements": ["root"]"#)))
        #expect(e.code == "E12")
        #expect(e.path == "$.root.children[0].elements")
        #expect(e.element == "b1")
        #expect(e.message.contains("this node has no children"))
    }

    @Test func entryThatIsNotAString() throws {
        let e = try onlyError(layout(button("b1"), root: #", "elements": ["b1", 3]"#))
        #expect(e.code == "E04")
        #expect(e.path == "$.root.elements[1]")
    }
}

// MARK: - E13 custom actions

@Suite("E13 custom actions")
struct CustomActionTests {
    @Test func emptyName() throws {
        let e = try onlyError(layout(button("b1", #", "customActions": [{"name": ""}]"#)))
        #expect(e.code == "E13")
        #expect(e.path == "$.root.children[0].customActions[0].name")
        #expect(e.element == "b1")
        #expect(e.message.contains("needs a name"))
    }

    @Test func duplicateName() throws {
        let e = try onlyError(layout(button("b1", #", "customActions": [{"name": "flag"}, {"name": "delete"}, {"name": "flag"}]"#)))
        #expect(e.code == "E13")
        #expect(e.path == "$.root.children[0].customActions[2].name")
        #expect(e.element == "b1")
        #expect(e.message == #"duplicate action name "flag" (also customActions[0])"#)
    }

    @Test func missingName() throws {
        let e = try onlyError(layout(button("b1", #", "customActions": [{"effects": []}]"#)))
        #expect(e.code == "E13")
        #expect(e.path == "$.root.children[0].customActions[0]")
    }

    @Test func actionsKeepTheirOrder() throws {
        let doc = try load(layout(button("b1", #", "customActions": [{"name": "more"}, {"name": "flag"}, {"name": "delete"}]"#)))
        let i = try #require(doc.tree.index(of: "b1"))
        #expect(doc.tree[i].customActions.map(\.name) == ["more", "flag", "delete"])
    }
}

// MARK: - E14 rotors and custom content

@Suite("E14 rotors and custom content")
struct RotorAndContentTests {
    @Test func rotorTargetUnknown() throws {
        let e = try onlyError(layout(button("b1", #", "customRotors": [{"name": "Links", "targets": ["b1", "b9"]}]"#)))
        #expect(e.code == "E14")
        #expect(e.path == "$.root.children[0].customRotors[0].targets[1]")
        #expect(e.element == "b1")
        #expect(e.message.contains(#"unknown element id "b9""#))
    }

    @Test func customContentEmptyLabel() throws {
        let e = try onlyError(layout(button("b1", #", "customContent": [{"label": "", "value": "42"}]"#)))
        #expect(e.code == "E14")
        #expect(e.path == "$.root.children[0].customContent[0].label")
        #expect(e.element == "b1")
        #expect(e.message == "must not be empty")
    }

    @Test func customContentEmptyValue() throws {
        let e = try onlyError(layout(button("b1", #", "customContent": [{"label": "Age", "value": ""}]"#)))
        #expect(e.code == "E14")
        #expect(e.path == "$.root.children[0].customContent[0].value")
    }
}

// MARK: - E15 effects

@Suite("E15 effects")
struct EffectTests {
    @Test func unknownVerbSuggests() throws {
        let e = try onlyError(layout(button("b1", #", "onTap": [{"emitt": "x"}]"#)))
        #expect(e.code == "E15")
        #expect(e.path == "$.root.children[0].onTap[0]")
        #expect(e.element == "b1")
        #expect(e.message.contains("an effect needs exactly one verb"))
        #expect(e.message.contains(#"did you mean "emit"?"#))
    }

    @Test func setTargetingAnUnknownId() throws {
        let e = try onlyError(layout(button("b1", #", "onTap": [{"set": {"id": "b2", "label": "x"}}]"#) + "," + button("b3", y: 60)))
        #expect(e.code == "E15")
        #expect(e.path == "$.root.children[0].onTap[0].set.id")
        #expect(e.element == "b1")
        #expect(e.message.hasPrefix(#"unknown element id "b2""#))
    }

    @Test func badPostKind() throws {
        let e = try onlyError(layout(button("b1", #", "onTap": [{"post": "layoutChange"}]"#)))
        #expect(e.code == "E15")
        #expect(e.path == "$.root.children[0].onTap[0].post")
        #expect(e.element == "b1")
        #expect(e.message.contains(#"unknown notification "layoutChange"; allowed: announcement, layoutChanged, screenChanged, pageScrolled"#))
        #expect(e.message.contains(#"did you mean "layoutChanged"?"#))
    }

    @Test func announcementWithoutText() throws {
        let e = try onlyError(layout(button("b1", #", "onTap": [{"post": "announcement"}]"#)))
        #expect(e.code == "E15")
        #expect(e.path == "$.root.children[0].onTap[0].argument")
        #expect(e.element == "b1")
        #expect(e.message.contains("needs the text"))
    }

    @Test func postTargetingAnUnknownElement() throws {
        let e = try onlyError(layout(button("b1", #", "onTap": [{"post": "layoutChanged", "argument": {"element": "nope"}}]"#)))
        #expect(e.code == "E15")
        #expect(e.path == "$.root.children[0].onTap[0].argument.element")
    }

    @Test func effectThatIsNotAnObject() throws {
        let e = try onlyError(layout(button("b1", #", "onActivate": ["emit"]"#)))
        #expect(e.code == "E15")
        #expect(e.path == "$.root.children[0].onActivate[0]")
    }

    @Test func validEffectsLoad() throws {
        let doc = try load(layout(button("b1", #"""
            , "onTap": [{"emit": "x", "data": {"k": [1, "two"]}}, {"set": {"id": "b1", "label": "New"}},
                        {"toggle": {"id": "b1", "field": "value", "values": ["off", "on"]}},
                        {"post": "announcement", "argument": "Saved"}, {"post": "screenChanged", "argument": {"element": "b1"}},
                        {"loadScreen": "other.json"}, {"key": "escape"}, {"result": false}]
            """#)))
        let i = try #require(doc.tree.index(of: "b1"))
        #expect(doc.tree[i].onTap?.count == 8)
        #expect(doc.tree[i].onTap?[6] == .key(.escape))
    }

    /// A key is one the Keys page sends, named as it names them.
    @Test func anUnknownKeyIsRefusedWithTheKeysThereAre() throws {
        let e = try onlyError(layout(button("b1", #", "onActivate": [{"key": "escpe"}]"#)))
        #expect(e.code == "E04")
        #expect(e.path == "$.root.children[0].onActivate[0].key")
        #expect(e.message.contains("escape"), "\(e.message)")
    }
}

// MARK: - E16 root and screen

@Suite("E16 root and screen")
struct RootAndScreenTests {
    @Test func rootVirtual() throws {
        let e = try onlyError(layout(button("b1"), root: #", "virtual": true"#))
        #expect(e.code == "E16")
        #expect(e.path == "$.root")
        #expect(e.element == "root")
        #expect(e.message == "the root must not be virtual")
    }

    @Test func rootAccessible() throws {
        let json = layout(button("b1")).replacingOccurrences(of: #""isAccessibilityElement": false,"#,
                                                             with: #""isAccessibilityElement": true, "label": "Everything","#)
        let e = try onlyError(json)
        #expect(e.code == "E16")
        #expect(e.path == "$.root")
        #expect(e.element == "root")
        #expect(e.message.contains("the root must be a container"))
    }

    @Test(arguments: [("width", "0"), ("height", "-1")])
    func screenSizeNotPositive(_ key: String, _ v: String) throws {
        let size = key == "width" ? #"{"width": \#(v), "height": 667}"# : #"{"width": 375, "height": \#(v)}"#
        let json = layout(button("b1")).replacingOccurrences(of: #""size": {"width": 375, "height": 667}"#,
                                                             with: #""size": \#(size)"#)
        let e = try onlyError(json)
        #expect(e.code == "E16")
        #expect(e.path == "$.screen.size.\(key)")
        #expect(e.element == nil)
        #expect(e.message == "must be > 0, got \(v)")
    }

    @Test func initialFocusNamingAContainer() throws {
        let e = try onlyError(layout(#"{"id": "box", "children": [\#(button("b1")), \#(button("b2", y: 60))]}"#,
                                     screen: #", "initialFocus": "box""#))
        #expect(e.code == "E16")
        #expect(e.path == "$.screen.initialFocus")
        #expect(e.message.contains(#""box" is a container"#))
    }

    @Test func initialFocusUnknown() throws {
        let e = try onlyError(layout(button("b1"), screen: #", "initialFocus": "b2""#))
        #expect(e.code == "E16")
        #expect(e.path == "$.screen.initialFocus")
        #expect(e.message == #"unknown element id "b2"; did you mean "b1"?"#)
    }

    @Test func initialFocusOnAnElementLoads() throws {
        _ = try load(layout(button("b1"), screen: #", "initialFocus": "b1""#))
    }

    @Test func missingScreenAndRoot() throws {
        let errs = errors(#"{"schemaVersion": 1}"#)
        #expect(errs.map(\.code) == ["E04", "E04"])
        #expect(errs.allSatisfy { $0.path == "$" })
        #expect(errs.contains { $0.message == #"missing required field "screen""# })
        #expect(errs.contains { $0.message == #"missing required field "root""# })
    }
}

// MARK: - E17 language and labelSpans

@Suite("E17 language")
struct LanguageTests {
    @Test(arguments: ["english_US", "e", "en-", "toolonglanguage", "fr CA"])
    func badLanguageTag(_ tag: String) throws {
        let e = try onlyError(layout(button("b1", #", "language": "\#(tag)""#)))
        #expect(e.code == "E17")
        #expect(e.path == "$.root.children[0].language")
        #expect(e.element == "b1")
        #expect(e.message.contains("is not a BCP 47 language tag"))
    }

    @Test(arguments: ["en", "fr-CA", "zh-Hant-TW", "es-419"])
    func goodLanguageTag(_ tag: String) throws {
        _ = try load(layout(button("b1", #", "language": "\#(tag)""#), screen: #", "language": "\#(tag)""#))
    }

    @Test func badScreenLanguage() throws {
        let e = try onlyError(layout(button("b1"), screen: #", "language": "en_GB""#))
        #expect(e.code == "E17")
        #expect(e.path == "$.screen.language")
        #expect(e.element == nil)
    }

    @Test func labelAndLabelSpans() throws {
        let e = try onlyError(layout(button("b1", #", "labelSpans": [{"text": "B"}]"#)))
        #expect(e.code == "E17")
        #expect(e.path == "$.root.children[0].labelSpans")
        #expect(e.element == "b1")
        #expect(e.message == #"use either "label" or "labelSpans", not both"#)
    }
}

// MARK: - Warnings and information never block loading

@Suite("Warnings")
struct WarningTests {
    @Test func w18ButtonAndLink() throws {
        let doc = try load(layout(#"{"id": "b1", "label": "Go", "traits": ["button", "link"], "frame": {"x": 0, "y": 0, "width": 10, "height": 10}}"#))
        let w = try #require(doc.warnings.first { $0.code == "W18" })
        #expect(w.severity == .warning)
        #expect(w.path == "$.root.children[0].traits")
        #expect(w.element == "b1")
        #expect(w.message.contains("button, link"))
        #expect(w.message.contains("mutually exclusive"))
    }

    @Test func w20ContainerFieldOnALeaf() throws {
        let doc = try load(layout(button("b1", #", "navigationStyle": "combined""#)))
        let w = try #require(doc.warnings.first { $0.code == "W20" })
        #expect(w.severity == .warning)
        #expect(w.path == "$.root.children[0].navigationStyle")
        #expect(w.element == "b1")
        #expect(w.message.contains("is ignored"))
    }

    @Test func w21SeveralModalSiblings() throws {
        let doc = try load(layout(#"""
            {"id": "d1", "viewIsModal": true, "children": [\#(button("b1"))]},
            {"id": "d2", "viewIsModal": true, "children": [\#(button("b2", y: 60))]}
            """#))
        let w = try #require(doc.warnings.first { $0.code == "W21" })
        #expect(w.element == "d2")
        #expect(w.message.contains("last one wins"))
    }

    @Test(arguments: ["Double tap to open the message.", "Swipe up to delete.", "Tap to play."])
    func w24HintNamesAGesture(_ hint: String) throws {
        let doc = try load(layout(button("b1", #", "hint": "\#(hint)""#)))
        let w = try #require(doc.warnings.first { $0.code == "W24" })
        #expect(w.severity == .warning)
        #expect(w.path == "$.root.children[0]")
        #expect(w.element == "b1")
        #expect(w.message.contains("hint names a gesture"))
    }

    @Test func w24QuietForAGoodHint() throws {
        let doc = try load(layout(button("b1", #", "hint": "Opens the message.""#)))
        #expect(!doc.warnings.contains { $0.code == "W24" })
    }

    @Test func w26LeafFieldsOnAContainerByDefault() throws {
        let doc = try load(layout(#"""
            {"id": "row", "label": "Row", "traits": ["button"], "children": [\#(button("b1")), \#(button("b2", y: 60))]}
            """#))
        let labelWarning = try #require(doc.warnings.first { $0.code == "W26" && $0.path == "$.root.children[0].label" })
        #expect(labelWarning.element == "row")
        #expect(labelWarning.message.contains(#"set "isAccessibilityElement": true"#))
        #expect(doc.warnings.contains { $0.code == "W26" && $0.path == "$.root.children[0].traits" })
        // Said explicitly, the wrapper is one element and nothing is warned.
        let wrapper = try load(layout(#"""
            {"id": "row", "isAccessibilityElement": true, "label": "Row", "traits": ["button"], "children": [\#(button("b1")), \#(button("b2", y: 60))]}
            """#))
        #expect(!wrapper.warnings.contains { $0.code == "W26" })
    }

    @Test func i25UnreachableButtonsOfTheUIKitExample() throws {
        let doc = try load(try readLayout("switch-control.uikit.json"), file: "switch-control.uikit.json")
        let notes = doc.warnings.filter { $0.code == "I25" }
        #expect(notes.count == 1)
        let note = try #require(notes.first)
        #expect(note.severity == .info)
        #expect(note.message.contains(#"accessible elements "btn3", "btn4" are unreachable"#))
        #expect(!doc.warnings.contains { $0.severity == .error })
    }

    @Test func oneErrorRejectsAFileThatAlsoHasWarnings() throws {
        // An error anywhere rejects the file even when other nodes only have warnings.
        let errs = errors(layout(button("b1", #", "navigationStyle": "combined""#) + "," + button("b2", y: 60, #", "hidden": 1"#)))
        #expect(errs.map(\.code) == ["E04"])
    }
}

// MARK: - Reporting: all errors, positions, no half-loaded trees, hostile input

@Suite("Reporting")
struct ReportingTests {
    static let threeMistakes = """
        {
          "schemaVersion": 1,
          "screen": {"id": "s", "size": {"width": 375, "height": 667}},
          "root": {
            "id": "root",
            "isAccessibilityElement": false,
            "frame": {"x": 0, "y": 0, "width": 375, "height": 667},
            "children": [
              {"id": "b1", "label": "Café", "traits": ["buton"],
               "frame": {"x": 10, "y": 10, "width": 100, "height": 44}},
              {"id": "b2", "label": "B2", "traits": ["button"],
               "frame": {"x": 10, "y": 60, "width": -4, "height": 44}},
              {"id": "b3", "hidde": true, "label": "B3", "traits": ["button"],
               "frame": {"x": 10, "y": 110, "width": 100, "height": 44}}
            ]
          }
        }
        """

    @Test func allErrorsOfAFileSortedByPosition() throws {
        let failure = try #require(rejection(Self.threeMistakes))
        let errs = failure.errors
        #expect(errs.map(\.code) == ["E09", "E06", "E03"])
        #expect(errs.map(\.line) == [9, 12, 13])
        #expect(errs.prefix(2).map(\.element) == ["b1", "b2"])
        #expect(errs.map(\.offset) == errs.map(\.offset).sorted())
    }

    @Test func lineAndColumnAreOneBasedAndCountCharacters() throws {
        let errs = try #require(rejection(Self.threeMistakes)).errors
        try #require(errs.count == 3)
        // "Café" has a two-byte character before the trait: columns count characters.
        #expect((errs[0].line, errs[0].column) == (9, 48))
        #expect((errs[1].line, errs[1].column) == (12, 45))
        #expect((errs[2].line, errs[2].column) == (13, 20))
        // The same positions found independently of the loader.
        #expect(position(of: #""buton""#, in: Self.threeMistakes).map { [$0.line, $0.column] } == [9, 48])
        #expect(position(of: "-4", in: Self.threeMistakes).map { [$0.line, $0.column] } == [12, 45])
        #expect(position(of: #""hidde""#, in: Self.threeMistakes).map { [$0.line, $0.column] } == [13, 20])
    }

    @Test func exactLines() throws {
        let failure = try #require(rejection(Self.threeMistakes, file: "Layouts/demo.json"))
        let lines = failure.description.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines.first == #"Layouts/demo.json:9:48: error E09: $.root.children[0].traits[0] (element "b1"): unknown trait "buton"; allowed: \#(allTraits); did you mean "button"?"#)
        #expect(lines.dropFirst().first == #"Layouts/demo.json:12:45: error E06: $.root.children[1].frame.width (element "b2"): must be >= 0, got -4"#)
        #expect(lines.last == "Layouts/demo.json: 3 errors; the file was not loaded.")
    }

    @Test func errorsAcrossTheDocumentAreAllCollected() throws {
        // Mistakes in the screen, in the root and in an effect, plus a cross-reference error.
        let json = layout(button("b1", #", "onTap": [{"set": {"id": "zz"}}]"#) + "," + button("b2", y: 60, #", "language": "en_US""#),
                          root: #", "elements": ["b1", "b2", "b7"]"#, screen: #", "naturalOrder": "rows""#)
        let errs = errors(json)
        #expect(Set(errs.map(\.code)) == ["E04", "E12", "E15", "E17"])
        #expect(errs.count == 4)
        #expect(errs.map(\.offset) == errs.map(\.offset).sorted())
    }

    @Test func badFileNeverYieldsATree() {
        // LayoutLoader.load throws: there is no partial document to use.
        var loaded: LayoutDocument?
        do { loaded = try LayoutLoader.load(bytes: bytes(Self.threeMistakes), file: "x.json") } catch { #expect(error.errors.count == 3) }
        #expect(loaded == nil)
    }

    @Test func emptyFile() throws {
        for text in ["", "   \n\t  ", "\u{FEFF}"] {
            let e = try onlyError(text)
            #expect(e.code == "E01")
            #expect(e.message == "malformed JSON: unexpected end of file; expected a value")
        }
    }

    @Test(arguments: [("[]", "an array"), ("\"x\"", "a string"), ("null", "null"), ("42", "a number"), ("true", "a boolean")])
    func documentThatIsNotAnObject(_ text: String, _ kind: String) throws {
        let e = try onlyError(text)
        #expect(e.code == "E04")
        #expect(e.path == "$")
        #expect(e.message == "must be an object, got \(kind)")
        #expect((e.line, e.column) == (1, 1))
    }

    /// `levels` nested nodes, each the only child of the one above; the innermost a button.
    static func nested(_ levels: Int) -> String {
        var s = ""
        for k in 1..<levels { s += #"{"id": "n\#(k)", "children": ["# }
        s += button("leaf")
        s += String(repeating: "]}", count: levels - 1)
        return layout(s)
    }

    @Test func deeplyNestedElementsAreRejectedWithAMessage() throws {
        for levels in [230, 300, 2000] {
            let errs = errors(Self.nested(levels))
            #expect(errs.contains { $0.message.contains("deeper than") && $0.message.contains("flatten the") },
                    "\(levels) levels: \(errs.prefix(3).map(\.description))")
            // Only that error where the elements nest too deep: the container cut off there is
            // not then also read as an unlabelled leaf without a frame.
            if levels == 230 {
                #expect(errs.map(\.code) == ["E04"], "\(errs.map(\.description))")
            }
        }
    }

    @Test func deepButAllowedNestingLoadsAndScans() throws {
        let (scan, tree) = try scanList(Self.nested(150), settings(groupItems: false))
        #expect(render(scan, tree) == ["leaf"])
        let grouped = ScanTreeBuilder.build(tree, settings: settings(groupItems: true))
        #expect(flatElements(grouped, tree) == ["leaf"])
    }

    @Test func tenThousandOpenBrackets() throws {
        for text in [String(repeating: "[", count: 10_000), String(repeating: #"{"a": "#, count: 10_000),
                     String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)] {
            let e = try onlyError(text)
            #expect(e.code == "E01")
            #expect(e.message.contains("nesting deeper than"))
        }
    }
}

@Suite("W24 style lint")
struct StyleLintTests {
    @Test func labelRepeatingItsTraitWord() throws {
        let doc = try load(layout(#"{"id": "ok", "label": "OK button", "traits": ["button"], "frame": {"x": 0, "y": 0, "width": 10, "height": 10}}"#))
        let w = try #require(doc.warnings.first { $0.code == "W24" })
        #expect(w.element == "ok")
        #expect(w.message.contains("trait word \"button\""))
    }

    @Test(arguments: [("OK button", true), ("button", true), ("BUTTON!", true), ("big-button", true), ("Café button", true),
                      ("Buttons", false), ("rebutton", false), ("buttoné", false), ("butto", false), ("Save", false)])
    func traitWordIsFoundAsAWholeWordIgnoringCase(_ label: String, _ found: Bool) throws {
        let doc = try load(layout(#"{"id": "b", "label": "\#(label)", "traits": ["button"], "frame": {"x": 0, "y": 0, "width": 10, "height": 10}}"#))
        #expect(doc.warnings.contains { $0.code == "W24" && $0.message.contains("trait word") } == found, "\(doc.warnings)")
    }

    @Test func hintMustBeASentence() throws {
        let doc = try load(layout(button("b1", x: 10, y: 10, #", "hint": "opens the settings""#)))
        #expect(doc.warnings.contains { $0.code == "W24" && $0.message.contains("capitalised") })
        let fine = try load(layout(button("b1", x: 10, y: 10, #", "hint": "Opens the settings.""#)))
        #expect(!fine.warnings.contains { $0.code == "W24" })
    }
}

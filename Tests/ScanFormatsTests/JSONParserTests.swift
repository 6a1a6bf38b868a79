import JSONTape
import ScanFormats
import Testing

/// The strict JSON parser under the loaders: numbers exactly as strtod reads them, strings
/// with escapes, positions of values.
@Suite("JSON parser")
struct JSONParserTests {
    /// The root of a document no variable holds: a value keeps its document alive.
    func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try JSONDocument.parse(Array(text.utf8)).root
    }

    static let numbers = [
        "0", "-0", "7", "-7", "1.5", "-2.25", "0.1", "0.2", "0.3", "3.14159265358979", "123456789012345",
        "1234567890123456", "12345678901234567890", "9007199254740993", "0.000001", "0.1234567890123456789",
        "1e2", "1E2", "1e+2", "-2.5E-3", "5e-324", "1.7976931348623157e308", "100.000", "285.5", "121.5",
        "999999999999999", "0.999999999999999", "4.35", "2.675", "1.005",
    ]

    @Test(arguments: numbers)
    func numbersMatchTheStandardLibrary(_ text: String) throws {
        guard case .number(let v, let offset) = try parse(text).content else {
            Issue.record("\(text) is not a number"); return
        }
        let expected = try #require(Double(text))
        #expect(v == expected)
        #expect(v.bitPattern == expected.bitPattern, "\(text): \(v) vs \(expected)")
        #expect(offset == 0)
    }

    @Test func numbersInsideStructures() throws {
        guard case .array(let items, _) = try parse("[1.25, -0.5, 3e1, 10]").content else { Issue.record("not an array"); return }
        let values = items.compactMap(\.number)
        #expect(values == [1.25, -0.5, 30, 10])
        #expect(items.map(\.offset) == [1, 7, 13, 18])
    }

    @Test func stringsWithEscapes() throws {
        guard case .string(let s, _) = try parse(#""a\"b\\c\/d\n\t\u00e9\ud83d\ude00""#).content else { Issue.record("not a string"); return }
        #expect(s == "a\"b\\c/d\n\té😀")
        guard case .string(let u, _) = try parse("\"Café ✓\"").content else { Issue.record("not a string"); return }
        #expect(u == "Café ✓")
    }

    @Test(arguments: [("\"\\ud83d\"", "unpaired surrogate"), ("\"\\x\"", "invalid escape"), ("\"a\nb\"", "control character"),
                      ("1.", "decimal point"), ("1e", "exponent"), ("-", "incomplete number"), ("tru", "expected a value"),
                      ("[1 2]", "expected ',' or ']'"), ("{\"a\" 1}", "expected ':'")])
    func syntaxErrors(_ text: String, _ fragment: String) {
        do {
            let v = try parse(text)
            Issue.record("\(text) parsed as \(v)")
        } catch {
            #expect(error.message.contains(fragment), "\(error.message)")
        }
    }

    /// Strings are scanned eight bytes at a time and then from the first special byte:
    /// a quote, escape, control byte or non-ASCII byte at every position of the word.
    @Test(arguments: 0..<20)
    func specialBytesAtEveryPositionOfAWord(_ k: Int) throws {
        let before = String(repeating: "a", count: k)
        let cases: [(json: String, text: String)] = [
            ("\"\(before)\"", before),
            ("\"\(before)\\nb\"", before + "\nb"),
            ("\"\(before)éb\"", before + "éb"),
            ("\"\(before)\\u0041\\\"\"", before + "A\""),
        ]
        for c in cases {
            // Inside an array, with more after the string, so that a word read past its
            // end is inside the buffer too.
            let items = try #require(try parse("[\(c.json), \"zzzzzzzzzzzz\"]").array.map(Array.init))
            #expect(items.first?.string == c.text, "\(c.json)")
            #expect(items.last?.string == "zzzzzzzzzzzz")
        }
        #expect(throws: JSONSyntaxError.self) { try parse("[\"\(before)\u{01}\", \"zzzzzzzzzzzz\"]") }
        // And as the whole document, so that the string ends at the end of the buffer.
        for c in cases {
            #expect(try parse(c.json).string == c.text, "\(c.json)")
        }
        #expect(throws: JSONSyntaxError.self) { try parse("\"\(before)") }
    }

    @Test func objectMembersKeepOrderAndPositions() throws {
        guard case .object(let members, let o) = try parse(#"{"b": 1, "a": [true, null]}"#).content else { Issue.record("not an object"); return }
        #expect(o == 0)
        #expect(members.map(\.key) == ["b", "a"])
        #expect(members.map(\.keyOffset) == [1, 9])
        #expect(members.map(\.value.offset) == [6, 14])
    }

    @Test func duplicateKeysAreFoundPastContainerValues() {
        // Earlier keys are found on the tape by skipping over their values' contents.
        for (text, key) in [(#"{"a": {"x": 1, "a": 2}, "b": [1, {"a": 3}], "a": 2}"#, "a"),
                            (#"{"b": [], "c": {}, "b": null}"#, "b"),
                            (#"{"k\u0061": 1, "ka": 2}"#, "ka")] {
            do {
                let v = try parse(text)
                Issue.record("\(text) parsed as \(v.kindName)")
            } catch {
                #expect(error.message == "duplicate key \"\(key)\" in one object", "\(text)")
            }
        }
        // The same keys in nested objects are not duplicates.
        #expect(throws: Never.self) { try parse(#"{"a": {"a": {"a": 1}}, "b": [{"a": 1}, {"a": 2}]}"#) }
    }

    @Test func lineIndexCountsFromOne() {
        let text = Array("ab\ncé\nx".utf8)
        let index = LineIndex(text)
        #expect(index.position(of: 0) == (1, 1))
        #expect(index.position(of: 3) == (2, 1))
        // "cé" is 3 bytes: the byte after é is column 3.
        #expect(index.position(of: 6) == (2, 3))
        #expect(index.position(of: 7) == (3, 1))
    }

    @Test func valuesOutliveTheirParseCall() throws {
        // Values taken from a document that went out of scope stay readable.
        func members() throws -> [JSONMember] {
            Array(try #require(try JSONDocument.parse(Array(#"{"a": "x", "b": [1, "\u00e9"]}"#.utf8)).root.object))
        }
        let m = try members()
        #expect(m.map(\.key) == ["a", "b"])
        #expect(m[0].value.string == "x")
        #expect(m[1].value.array.map { $0.map(\.kindName) } == ["a number", "a string"])
        #expect(m[1].value.array.map { Array($0) }?.last?.string == "é")
    }

    @Test func aByteOrderMarkAndSurroundingSpaceAreTolerated() throws {
        let marked = [0xEF, 0xBB, 0xBF] + Array(" \n[1, 2] \t".utf8)
        let root = try JSONDocument.parse(marked).root
        #expect(root.array?.count == 2)
        #expect(root.offset == 5)
        #expect(throws: JSONSyntaxError.self) { try JSONDocument.parse(Array("[1] 2".utf8)) }
        #expect(throws: JSONSyntaxError.self) { try JSONDocument.parse([]) }
    }

    @Test func nestingIsBounded() {
        let deep = String(repeating: "[", count: JSONDocument.maxDepth + 1) + String(repeating: "]", count: JSONDocument.maxDepth + 1)
        do {
            _ = try JSONDocument.parse(Array(deep.utf8))
            Issue.record("nesting past the limit parsed")
        } catch {
            #expect(error.message.contains("nesting deeper than"))
        }
        let ok = String(repeating: "[", count: JSONDocument.maxDepth) + String(repeating: "]", count: JSONDocument.maxDepth)
        #expect(throws: Never.self) { try JSONDocument.parse(Array(ok.utf8)) }
    }

    @Test func aLargeDocumentKeepsEveryValueAndPosition() throws {
        var parts: [String] = []
        for k in 0..<3000 {
            parts.append(#"{"id": "n\#(k)", "label": "caf\u00e9 \#(k) \"q\"", "v": [\#(k), -\#(k).5, 1e\#(k % 300), true, false, null], "o": {"x": \#(k * 3)}}"#)
        }
        let text = Array(("[" + parts.joined(separator: ",\n") + "]").utf8)
        let document = try JSONDocument.parse(text)
        #expect(document.objectCount == 6000)
        let items = Array(try #require(document.root.array))
        #expect(items.count == 3000)
        for k in [0, 1, 1234, 2999] {
            let o = try #require(items[k].object)
            #expect(o.member("id")?.value.string == "n\(k)")
            #expect(o.member("label")?.value.string == "café \(k) \"q\"")
            let v = Array(try #require(o.member("v")?.value.array))
            #expect(v.map(\.kindName) == ["a number", "a number", "a number", "a boolean", "a boolean", "null"])
            #expect(v[1].number == -Double(k) - 0.5)
            #expect(v[2].number == Double("1e\(k % 300)"))
            #expect(o.member("o")?.value.object?.member("x")?.value.number == Double(k * 3))
            // Every value's offset points at its own text.
            #expect(text[items[k].offset] == UInt8(ascii: "{"))
            #expect(text[v[3].offset] == UInt8(ascii: "t"))
        }
    }

    @Test func compactTextRoundTrips() throws {
        let root = try parse(#"{ "a" : [1, 2.5, "x\"y", null, true], "b": {} }"#)
        #expect(root.compactText == #"{"a":[1,2.5,"x\"y",null,true],"b":{}}"#)
        #expect(try parse(root.compactText).compactText == root.compactText)
    }

    @Test func largeObjectsFindDuplicatesToo() throws {
        // Past 16 keys an object's keys go into a set; the duplicate may be anywhere.
        let keys = (0..<40).map { "\"k\($0)\": [\($0), {\"k\($0)\": 1}]" }
        let ok = try parse("{" + keys.joined(separator: ", ") + "}")
        #expect(ok.object?.count == 40)
        for dup in [0, 15, 16, 17, 39] {
            do {
                _ = try parse("{" + (keys + ["\"k\(dup)\": null"]).joined(separator: ", ") + "}")
                Issue.record("duplicate k\(dup) accepted")
            } catch {
                #expect(error.message == "duplicate key \"k\(dup)\" in one object")
            }
        }
    }
}

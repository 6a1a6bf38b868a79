@testable import ScanFormats
import Testing

/// The strict JSON parser under the loaders: numbers exactly as strtod reads them, strings
/// with escapes, positions of values.
@Suite("JSON parser")
struct JSONParserTests {
    /// Values are views into their document: each test's documents are kept for the rest of
    /// the run (they are a few bytes each).
    func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        let document = try JSONParser.parseDocument(Array(text.utf8))
        _ = Unmanaged.passRetained(document)
        return document.root
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
}

/// A large file is parsed while a second thread faults in the tape and copies the text:
/// the document must be the same as from one thread, and so must an error.
@Suite("JSON parser with a helper thread")
struct HelpedParseTests {
    /// Every value with its offset, in document order.
    static func dump(_ v: JSONValue, into out: inout [String]) {
        switch v.content {
        case .object(let o, let at):
            out.append("{\(o.count)@\(at)")
            for m in o { out.append("\(m.key)@\(m.keyOffset)"); dump(m.value, into: &out) }
        case .array(let a, let at):
            out.append("[\(a.count)@\(at)")
            for x in a { dump(x, into: &out) }
        case .string(let s, let at): out.append("s\(s)@\(at)")
        case .number(let n, let at): out.append("n\(n.bitPattern)@\(at)")
        case .bool(let b, let at): out.append("b\(b)@\(at)")
        case .null(let at): out.append("null@\(at)")
        }
    }

    static func parsed(_ text: [UInt8], helpAbove: Int) -> Result<[String], JSONSyntaxError> {
        do {
            let document = try JSONParser.parseDocument(text, helpAbove: helpAbove)
            return withExtendedLifetime(document) {
                var out: [String] = []
                dump(document.root, into: &out)
                return .success(out)
            }
        } catch {
            return .failure(error)
        }
    }

    static let big: [UInt8] = {
        var parts: [String] = []
        for k in 0..<3000 {
            parts.append(#"{"id": "n\#(k)", "label": "caf\u00e9 \#(k) \"q\"", "v": [\#(k), -\#(k).5, 1e\#(k % 300), true, false, null], "o": {"x": \#(k * 3)}}"#)
        }
        return Array(("[" + parts.joined(separator: ",\n") + "]").utf8)
    }()

    @Test func theSameDocumentWithAndWithoutHelp() throws {
        let one = Self.parsed(Self.big, helpAbove: Int.max)
        let two = Self.parsed(Self.big, helpAbove: 0)
        guard case .success(let a) = one, case .success(let b) = two else {
            Issue.record("both parses should succeed: \(one), \(two)"); return
        }
        #expect(a.count == 1 + 3000 * 17)
        #expect(a == b)
    }

    @Test func aDenseFileGrowsTheTapeWhileHelped() throws {
        // Two bytes per token: more than the first reservation, so the tape moves while the
        // helper may still be faulting in the old one.
        let dense = Array(("[" + Array(repeating: "0", count: 400_000).joined(separator: ",") + "]").utf8)
        let one = Self.parsed(dense, helpAbove: Int.max)
        let two = Self.parsed(dense, helpAbove: 0)
        guard case .success(let a) = one, case .success(let b) = two else {
            Issue.record("both parses should succeed"); return
        }
        #expect(a.count == 400_001)
        #expect(a == b)
    }

    @Test func errorsEarlyAndAByteOrderMarkWithHelp() {
        var early = Self.big
        early[5] = UInt8(ascii: "}")
        guard case .failure(let a) = Self.parsed(early, helpAbove: Int.max),
              case .failure(let b) = Self.parsed(early, helpAbove: 0) else {
            Issue.record("both parses should fail"); return
        }
        #expect(a.offset == b.offset && a.message == b.message)
        let marked = [0xEF, 0xBB, 0xBF] + Self.big
        let one = Self.parsed(marked, helpAbove: Int.max), two = Self.parsed(marked, helpAbove: 0)
        guard case .success(let x) = one, case .success(let y) = two else {
            Issue.record("a byte order mark is tolerated"); return
        }
        #expect(x == y)
        #expect(Self.parsed([], helpAbove: 0).isFailure)
    }

    @Test func aKeyAtTheVeryEndOfALargeLayoutIsCompared() {
        // Over 1 MiB, so the default parse is helped where there are two CPUs; the last key
        // is compared a word at a time against the zero padding of the helper's copy.
        let big = SplitReadTests.bigLayout(rows: 2200)
        #expect(big.utf8.count > JSONParser.helpedParseMinimumBytes)
        let wrong = String(big.dropLast(2)) + #"}, "hiddeN": true}"#
        let errs = errors(wrong, file: "big.json")
        #expect(errs.map(\.code) == ["E03"])
        #expect(errs.first?.path == "$.hiddeN")
    }

    @Test func theSameErrorWithAndWithoutHelp() {
        var text = Self.big
        text[text.count - 20] = UInt8(ascii: "@")
        let one = Self.parsed(text, helpAbove: Int.max)
        let two = Self.parsed(text, helpAbove: 0)
        guard case .failure(let a) = one, case .failure(let b) = two else {
            Issue.record("both parses should fail"); return
        }
        #expect(a.offset == b.offset && a.message == b.message)
        #expect(a.offset == text.count - 20)
    }
}

extension Result {
    var isFailure: Bool { if case .failure = self { return true } else { return false } }
}

/// A large array parsed in two parts: a second thread parses its rest from a guessed
/// element start near the middle, and the main parse takes those tokens when it arrives
/// there. The document (every value, offset, key and count) and every error must be those
/// of one parse, whether the guess holds, is wrong, or is inside a string.
@Suite("JSON parser with a tail parsed at once")
struct TailParseTests {
    /// The document as one thread parses it, and with the tail parsed by a second one, at
    /// once (taken or not, as the threads happen to run) and first (always taken where the
    /// guess holds); `parts`: whether that last one took it.
    static func both(_ text: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> (parts: Int, same: Bool) {
        func parsed(_ help: JSONParser.Help) -> Result<(values: [String], objects: Int, parts: Int), JSONSyntaxError> {
            do {
                let document = try JSONParser.parseDocument(text, help: help)
                return withExtendedLifetime(document) {
                    var out: [String] = []
                    HelpedParseTests.dump(document.root, into: &out)
                    return .success((out, document.objectCount, document.parts))
                }
            } catch {
                return .failure(error)
            }
        }
        let one = parsed(.none)
        var parts = 0
        var same = true
        for help in [JSONParser.Help.concurrent, .tailFirst] {
            switch (one, parsed(help)) {
            case (.success(let a), .success(let b)):
                same = same && a.values == b.values && a.objects == b.objects
                if help == .tailFirst { parts = b.parts }
            case (.failure(let a), .failure(let b)):
                same = same && a.offset == b.offset && a.message == b.message
            default:
                same = false
            }
        }
        return (parts, same)
    }

    /// A layout-like document: rows (objects) holding cells (objects) in arrays.
    static func rows(_ count: Int, cell: (Int, Int) -> String = { r, c in #"{"id": "b\#(r)_\#(c)", "label": "Item \#(r)", "v": [\#(r), true, null]}"# }) -> String {
        let rows = (0..<count).map { r in
            #"{"id": "row\#(r)", "children": [\#((0..<5).map { cell(r, $0) }.joined(separator: ", "))], "frame": {"x": 0, "y": \#(r)}}"#
        }
        return #"{"schemaVersion": 1, "root": {"id": "root", "children": [\#(rows.joined(separator: ",\n"))]}, "after": [1, 2]}"#
    }

    @Test func aLayoutIsParsedInTwoPartsAndIsTheSame() {
        // The middle falls among a row's cells; the cells are not the row's last member, so
        // the tail is the rest of that row's cells.
        let r = Self.both(Array(Self.rows(400).utf8))
        #expect(r.same)
        #expect(r.parts == 2)
        // A top-level array of objects, as in the helped-parse tests.
        let big = Self.both(HelpedParseTests.big)
        #expect(big.same && big.parts == 2)
    }

    @Test func aTailOutgrowsTheRowItStartedIn() throws {
        // Cells last in their rows, as layouts write them: "] }, {" ends the row's cells,
        // and the tail starts again at the next row, in the root's children.
        let layout = Array(SplitReadTests.bigLayout(rows: 400).utf8)
        let r = Self.both(layout)
        #expect(r.same && r.parts == 2)
        let start = layout.withUnsafeBufferPointer { buffer -> Int in
            let tail = TailParse(bytes: buffer)
            #expect(tail.run())
            return tail.start
        }
        #expect(start > layout.count / 2)
        #expect(String(decoding: layout[start..<(start + 12)], as: UTF8.self) == #"{"id": "row2"#)
    }

    @Test func escapesAndDuplicateKeysInTheTail() {
        let escaped = Self.rows(400) { r, c in #"{"id": "b\#(r)_\#(c)", "label": "caf\u00e9 \"\#(r)\"", "k\u0065y": 1}"# }
        let r = Self.both(Array(escaped.utf8))
        #expect(r.same && r.parts == 2)
        // A duplicate key late in the file: the same error, at the same place.
        let dup = Self.rows(400) { r, c in r == 350 && c == 2 ? #"{"id": "x", "id": "y"}"# : #"{"id": "b\#(r)_\#(c)"}"# }
        #expect(Self.both(Array(dup.utf8)).same)
    }

    @Test func errorsInTheTailAreThoseOfOneParse() {
        for (r0, bad) in [(390, #"{"id": 1,}"#), (399, #"{"id": tru}"#), (300, "[1, 2,]"), (250, #"{"a": 1e999}"#)] {
            let text = Self.rows(400) { r, c in r == r0 && c == 1 ? bad : #"{"id": "b\#(r)_\#(c)"}"# }
            #expect(Self.both(Array(text.utf8)).same, "\(bad)")
        }
        // Cut short, and a trailing comma in the large array itself.
        let full = Self.rows(400)
        #expect(Self.both(Array(full.utf8.dropLast(30))).same)
        let trailing = full.replacingOccurrences(of: #"}}]}, "after""#, with: #"}},]}, "after""#)
        #expect(trailing != full)
        #expect(Self.both(Array(trailing.utf8)).same)
    }

    @Test func aGuessInsideAStringIsNeverTaken() {
        // The middle of the file is one long string that looks like array elements.
        let fake = String(repeating: #"}, {\"a\": 1}, {"#, count: 20_000)
        let text = #"{"head": [{"a": 1}, {"b": 2}], "s": "\#(fake)", "tail": [{"c": 3}, {"d": 4}]}"#
        let r = Self.both(Array(text.utf8))
        #expect(r.same)
        #expect(r.parts == 1)
        // Unescaped look-alikes: an array of strings "}, {".
        let strings = "[" + Array(repeating: #""}, {""#, count: 40_000).joined(separator: ", ") + "]"
        #expect(Self.both(Array(strings.utf8)).same)
    }

    @Test func nestingPastTheLimitAcrossTheSplice() {
        // Deep only in the tail: within the limit there, past it where it is spliced in.
        let deep = String(repeating: "[", count: 509) + String(repeating: "]", count: 509)
        let text = Self.rows(400) { r, c in r == 380 && c == 0 ? #"{"d": \#(deep)}"# : #"{"id": "b\#(r)_\#(c)"}"# }
        let r = Self.both(Array(text.utf8))
        #expect(r.same)
        guard case .failure(let e) = HelpedParseTests.parsed(Array(text.utf8), helpAbove: Int.max) else {
            Issue.record("nesting past the limit must fail"); return
        }
        #expect(e.message.contains("nesting deeper than"))
    }
}

/// A parsed JSON text as a tape: one flat array of tokens in document order, each value
/// remembering where it stood in the file, so that a loader can name the line and column of
/// every mistake. Foundation's decoders keep no positions and accept duplicate keys
/// silently; data files need both, and a layout of 100 000 elements (two million values)
/// must load in a few tens of milliseconds.
///
/// A `JSONValue` is a position on the tape together with its document: it keeps the
/// document alive, so no value can outlive the memory it reads.
public final class JSONDocument: Sendable {
    /// The text, as given.
    public let bytes: [UInt8]
    let tokens: [Token]
    /// The decoded text of strings that had escapes, by token index; other strings are
    /// their bytes between the quotes.
    let unescaped: [Int: String]
    /// How many objects the text holds: a bound on anything read one per object.
    public let objectCount: Int

    init(bytes: [UInt8], tokens: [Token], unescaped: [Int: String], objectCount: Int) {
        self.bytes = bytes; self.tokens = tokens; self.unescaped = unescaped; self.objectCount = objectCount
    }

    /// Parses strict RFC 8259 JSON: no comments, no trailing commas, finite numbers, valid
    /// UTF-8, no key twice in one object, nesting at most `maxDepth` deep.
    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONDocument {
        guard bytes.count < maxSize else {
            throw JSONSyntaxError(offset: 0, message: "the text is \(bytes.count >> 20) MiB; at most \(maxSize >> 20) MiB can be parsed")
        }
        let result = bytes.withUnsafeBufferPointer { buffer -> Result<JSONDocument, JSONSyntaxError> in
            var parser = Parser(bytes: buffer)
            do throws(JSONSyntaxError) {
                try parser.document()
            } catch {
                return .failure(error)
            }
            return .success(JSONDocument(bytes: bytes, tokens: parser.tokens, unescaped: parser.unescaped,
                                         objectCount: parser.objects))
        }
        return try result.get()
    }

    /// Nesting past this is refused, so that a hostile file cannot exhaust the stack.
    public static let maxDepth = 512
    /// Offsets are stored in 32 bits.
    public static let maxSize = Int(UInt32.max)

    /// The top-level value.
    public var root: JSONValue { JSONValue(document: self, index: 0) }

    /// The tape index just past the value at `i` and its contents.
    @inline(__always) func next(_ i: Int) -> Int {
        let t = tokens[i]
        return t.kind == .object || t.kind == .array ? t.end : i + 1
    }

    /// The string at token `i`.
    func string(at i: Int) -> String {
        let t = tokens[i]
        if t.escaped { return unescaped[i] ?? "" }
        return String(decoding: bytes[(t.offset + 1)..<t.end], as: UTF8.self)
    }

    /// Whether the string at token `i` is `text`, compared as bytes without decoding.
    func string(at i: Int, equals text: String) -> Bool {
        let t = tokens[i]
        if t.escaped { return unescaped[i] == text }
        var text = text
        return text.withUTF8 { u in
            guard u.count == t.end - t.offset - 1 else { return false }
            var k = t.offset + 1
            for b in u {
                if bytes[k] != b { return false }
                k += 1
            }
            return true
        }
    }
}

public enum JSONKind: UInt8, Sendable {
    case object, array, string, number, bool, null
}

/// One value or key on the tape.
struct Token: Sendable {
    /// Where the value starts in the file (a string's opening quote).
    private var start: UInt32
    let kind: JSONKind
    /// Strings: the text has escapes, decoded in `JSONDocument.unescaped`.
    let escaped: Bool
    /// Numbers: the value's bits. Containers: the token index after the subtree (low half)
    /// and the number of members or elements (high half). Strings: the offset of the
    /// closing quote. Booleans: 1 for true.
    private var payload: UInt64

    init(offset: Int, kind: JSONKind, escaped: Bool = false, payload: UInt64 = 0) {
        start = UInt32(offset); self.kind = kind; self.escaped = escaped; self.payload = payload
    }

    var offset: Int { Int(start) }
    var number: Double { Double(bitPattern: payload) }
    var bool: Bool { payload != 0 }
    /// Strings: the closing quote. Containers: the tape index after the subtree.
    var end: Int { Int(truncatingIfNeeded: payload & 0xFFFF_FFFF) }
    var count: Int { Int(truncatingIfNeeded: payload >> 32) }

    mutating func close(end: Int, count: Int) { payload = UInt64(UInt32(end)) | UInt64(UInt32(count)) << 32 }
}

/// A value of a document: a position on its tape.
public struct JSONValue: Sendable {
    public let document: JSONDocument
    let index: Int

    var token: Token { document.tokens[index] }
    public var kind: JSONKind { token.kind }
    /// Where the value starts in the file, in bytes.
    public var offset: Int { token.offset }

    public var string: String? { kind == .string ? document.string(at: index) : nil }
    public var number: Double? { let t = token; return t.kind == .number ? t.number : nil }
    public var bool: Bool? { let t = token; return t.kind == .bool ? t.bool : nil }
    public var isNull: Bool { kind == .null }
    public var object: JSONObject? { kind == .object ? JSONObject(document: document, index: index) : nil }
    public var array: JSONArray? { kind == .array ? JSONArray(document: document, index: index) : nil }

    /// Whether this is the string `text`, compared without decoding.
    public func isString(_ text: String) -> Bool { kind == .string && document.string(at: index, equals: text) }

    /// The value as an enum, for code that switches over every kind.
    public var content: JSONContent {
        let t = token
        switch t.kind {
        case .object: return .object(JSONObject(document: document, index: index), offset: t.offset)
        case .array: return .array(JSONArray(document: document, index: index), offset: t.offset)
        case .string: return .string(document.string(at: index), offset: t.offset)
        case .number: return .number(t.number, offset: t.offset)
        case .bool: return .bool(t.bool, offset: t.offset)
        case .null: return .null(offset: t.offset)
        }
    }

    /// The words a message uses for this kind of value ("got a string").
    public var kindName: String {
        switch kind {
        case .object: return "an object"
        case .array: return "an array"
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        }
    }
}

public enum JSONContent {
    case object(JSONObject, offset: Int)
    case array(JSONArray, offset: Int)
    case string(String, offset: Int)
    case number(Double, offset: Int)
    case bool(Bool, offset: Int)
    case null(offset: Int)
}

/// An object's members in file order.
public struct JSONObject: Sequence, Sendable {
    let document: JSONDocument
    let index: Int

    public var count: Int { document.tokens[index].count }

    /// The member named `key`.
    public func member(_ key: String) -> JSONMember? {
        first { $0.hasKey(key) }
    }

    public struct Iterator: IteratorProtocol {
        let document: JSONDocument
        var key: Int
        let end: Int
        public mutating func next() -> JSONMember? {
            guard key < end else { return nil }
            let m = JSONMember(document: document, keyIndex: key)
            key = document.next(key + 1)
            return m
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(document: document, key: index + 1, end: document.tokens[index].end)
    }
}

public struct JSONMember: Sendable {
    let document: JSONDocument
    let keyIndex: Int

    public var key: String { document.string(at: keyIndex) }
    public var keyOffset: Int { document.tokens[keyIndex].offset }
    public var value: JSONValue { JSONValue(document: document, index: keyIndex + 1) }
    public func hasKey(_ name: String) -> Bool { document.string(at: keyIndex, equals: name) }
}

/// An array's elements in file order.
public struct JSONArray: Sequence, Sendable {
    let document: JSONDocument
    let index: Int

    public var count: Int { document.tokens[index].count }
    public var isEmpty: Bool { count == 0 }

    public struct Iterator: IteratorProtocol {
        let document: JSONDocument
        var at: Int
        let end: Int
        public mutating func next() -> JSONValue? {
            guard at < end else { return nil }
            let v = JSONValue(document: document, index: at)
            at = document.next(at)
            return v
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(document: document, at: index + 1, end: document.tokens[index].end)
    }
}

public struct JSONSyntaxError: Error, Sendable {
    /// Where in the text, in bytes.
    public var offset: Int
    public var message: String
}

/// A set of names that object keys are matched against by their bytes in place, without
/// decoding each key into a String or hashing it: readers match every key of every object
/// of a large file against the names they allow.
public struct JSONNames: Sendable {
    public let names: [String]
    private let bytes: [[UInt8]]
    /// The positions of the names in each bucket of length and end bytes.
    private let buckets: [[Int]]
    private let positions: [String: Int]

    public init(_ names: [String]) {
        self.names = names
        bytes = names.map { Array($0.utf8) }
        var b = [[Int]](repeating: [], count: 64)
        for (k, u) in bytes.enumerated() where !u.isEmpty { b[Self.bucket(u.count, u[0], u[u.count - 1])].append(k) }
        buckets = b
        positions = Dictionary(names.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { a, _ in a })
    }

    @inline(__always) static func bucket(_ count: Int, _ first: UInt8, _ last: UInt8) -> Int {
        (count &* 7 &+ Int(first) &* 3 &+ Int(last)) & 63
    }

    /// The position in `names` of `name`.
    public func position(of name: String) -> Int? { positions[name] }

    /// The position in `names` of the member's key.
    public func position(ofKey m: JSONMember) -> Int? {
        let document = m.document
        let t = document.tokens[m.keyIndex]
        if t.escaped { return positions[document.unescaped[m.keyIndex] ?? ""] }
        let start = t.offset + 1, count = t.end - start
        guard count > 0 else { return positions[""] }
        return document.bytes.withUnsafeBufferPointer { text in
            for k in buckets[Self.bucket(count, text[start], text[t.end - 1])] where bytes[k].count == count {
                if bytes[k].elementsEqual(UnsafeBufferPointer(rebasing: text[start..<t.end])) { return k }
            }
            return nil
        }
    }
}

extension JSONValue {
    /// An object of exactly the four `names`, each a number, in any order: the values in
    /// the order of `names`; nil for anything else. A fast path for small records read by
    /// the hundred thousand (a frame); the caller reads anything else member by member, to
    /// say exactly what is wrong.
    public func fourNumbers(named names: JSONNames) -> (Double, Double, Double, Double)? {
        let tokens = document.tokens
        let t = tokens[index]
        guard names.names.count == 4, t.kind == .object, t.count == 4, t.end == index + 9 else { return nil }
        var v = (0.0, 0.0, 0.0, 0.0)
        var seen = 0
        for k in stride(from: index + 1, to: index + 9, by: 2) {
            let value = tokens[k + 1]
            guard value.kind == .number, let p = names.position(ofKey: JSONMember(document: document, keyIndex: k)) else { return nil }
            seen |= 1 << p
            switch p {
            case 0: v.0 = value.number
            case 1: v.1 = value.number
            case 2: v.2 = value.number
            default: v.3 = value.number
            }
        }
        return seen == 0b1111 ? v : nil
    }
}

/// A JSON value that remembers where it stood in its file, so that every validation message
/// can name a line and column. Foundation's decoders keep no positions and accept duplicate
/// keys silently; layout files need both (seeds-spec §15.1).
public enum JSONValue: Sendable {
    case object([JSONMember], offset: Int)
    case array([JSONValue], offset: Int)
    case string(String, offset: Int)
    case number(Double, offset: Int)
    case bool(Bool, offset: Int)
    case null(offset: Int)

    public var offset: Int {
        switch self {
        case .object(_, let o), .array(_, let o), .string(_, let o), .number(_, let o),
             .bool(_, let o), .null(let o): return o
        }
    }

    /// The word a message uses for this kind of value ("got a string").
    public var kindName: String {
        switch self {
        case .object: return "an object"
        case .array: return "an array"
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        }
    }
}

public struct JSONMember: Sendable {
    public var key: String
    public var keyOffset: Int
    public var value: JSONValue
    /// The key's bucket (see KeySet.bucket), computed from the raw bytes while parsing.
    var bucket: UInt8
}

public struct JSONSyntaxError: Error, Sendable {
    public var offset: Int
    public var message: String
}

/// A strict RFC 8259 parser over UTF-8 bytes: no comments, no trailing commas, finite
/// numbers, duplicate keys rejected, nesting bounded so a hostile file cannot overflow the
/// stack.
public struct JSONParser {
    public static let maxDepth = 512

    /// Valid only during `parse`: the parser reads the caller's array in place.
    let bytes: UnsafeBufferPointer<UInt8>
    var i = 0
    var depth = 0
    /// Whether the last string had no escapes (its raw bytes are its UTF-8).
    var lastStringWasRaw = true

    public static func parse(_ array: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        let result: Result<JSONValue, JSONSyntaxError> = array.withUnsafeBufferPointer { buffer in
            var p = JSONParser(bytes: buffer)
            // A UTF-8 byte order mark is tolerated; nothing else may precede the value.
            if array.starts(with: [0xEF, 0xBB, 0xBF]) { p.i = 3 }
            do throws(JSONSyntaxError) {
                p.skipSpace()
                let v = try p.value()
                p.skipSpace()
                if p.i < buffer.count { throw p.fail("unexpected \(p.describeHere()) after the end of the document") }
                return .success(v)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// ASCII (nearly every string in a layout) decodes directly; anything else is
    /// validated strictly, since String(decoding:) would silently repair bad bytes.
    func decodeUTF8(_ from: Int, _ to: Int) -> String? {
        var k = from
        while k < to && bytes[k] < 0x80 { k += 1 }
        if k == to { return String(decoding: text(from, to), as: UTF8.self) }
        return String(validating: text(from, to), as: UTF8.self)
    }

    func text(_ from: Int, _ to: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[from..<to])
    }

    func fail(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
        JSONSyntaxError(offset: offset ?? i, message: message)
    }

    func describeHere() -> String {
        guard i < bytes.count else { return "end of file" }
        let b = bytes[i]
        if b >= 0x20 && b < 0x7F { return "character '\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x\(String(b, radix: 16))"
    }

    mutating func skipSpace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: return
            }
        }
    }

    mutating func value() throws(JSONSyntaxError) -> JSONValue {
        guard i < bytes.count else { throw fail("unexpected end of file; expected a value") }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): let o = i; return .string(try string(), offset: o)
        case UInt8(ascii: "t"): return try literal("true", .bool(true, offset: i))
        case UInt8(ascii: "f"): return try literal("false", .bool(false, offset: i))
        case UInt8(ascii: "n"): return try literal("null", .null(offset: i))
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        case UInt8(ascii: "/"): throw fail("comments are not allowed in JSON")
        default: throw fail("unexpected \(describeHere()); expected a value")
        }
    }

    mutating func literal(_ word: String, _ v: JSONValue) throws(JSONSyntaxError) -> JSONValue {
        let w = Array(word.utf8)
        guard i + w.count <= bytes.count, text(i, i + w.count).elementsEqual(w) else {
            throw fail("unexpected \(describeHere()); expected a value")
        }
        i += w.count
        return v
    }

    mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > Self.maxDepth {
            throw fail("nesting deeper than \(Self.maxDepth) levels; flatten the layout")
        }
    }

    mutating func object() throws(JSONSyntaxError) -> JSONValue {
        let start = i
        try enter()
        i += 1
        var members: [JSONMember] = []
        members.reserveCapacity(8)
        // Objects are small (a node has a handful of keys): a linear scan finds duplicates
        // faster than hashing; big objects switch to a set.
        var seen: Set<String>?
        skipSpace()
        if i < bytes.count && bytes[i] == UInt8(ascii: "}") { i += 1; depth -= 1; return .object([], offset: start) }
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else {
                if i < bytes.count && bytes[i] == UInt8(ascii: "}") { throw fail("trailing comma before '}'") }
                throw fail("unexpected \(describeHere()); expected a quoted key")
            }
            let keyOffset = i
            let key = try string()
            let bucket: UInt8
            if lastStringWasRaw && i - keyOffset > 2 {
                bucket = UInt8(KeySet.bucket(count: i - keyOffset - 2, first: bytes[keyOffset + 1], last: bytes[i - 2]))
            } else {
                bucket = UInt8(KeySet.bucket(key))
            }
            let duplicate: Bool
            if let set = seen {
                duplicate = set.contains(key)
                seen!.insert(key)
            } else {
                duplicate = members.contains { $0.key == key }
                if members.count >= 16 { seen = Set(members.map(\.key) + [key]) }
            }
            if duplicate {
                throw fail("duplicate key \"\(key)\" in one object", at: keyOffset)
            }
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("unexpected \(describeHere()); expected ':'") }
            i += 1
            skipSpace()
            let v = try value()
            members.append(JSONMember(key: key, keyOffset: keyOffset, value: v, bucket: bucket))
            skipSpace()
            guard i < bytes.count else { throw fail("unexpected end of file; expected ',' or '}'") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; break }
            throw fail("unexpected \(describeHere()); expected ',' or '}'")
        }
        depth -= 1
        return .object(members, offset: start)
    }

    mutating func array() throws(JSONSyntaxError) -> JSONValue {
        let start = i
        try enter()
        i += 1
        var items: [JSONValue] = []
        skipSpace()
        if i < bytes.count && bytes[i] == UInt8(ascii: "]") { i += 1; depth -= 1; return .array([], offset: start) }
        while true {
            skipSpace()
            if i < bytes.count && bytes[i] == UInt8(ascii: "]") { throw fail("trailing comma before ']'") }
            items.append(try value())
            skipSpace()
            guard i < bytes.count else { throw fail("unexpected end of file; expected ',' or ']'") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; break }
            throw fail("unexpected \(describeHere()); expected ',' or ']'")
        }
        depth -= 1
        return .array(items, offset: start)
    }

    mutating func string() throws(JSONSyntaxError) -> String {
        let start = i
        i += 1
        // Fast path: no escapes.
        var j = i
        while j < bytes.count {
            let b = bytes[j]
            if b == UInt8(ascii: "\"") {
                guard let s = decodeUTF8(i, j) else { throw fail("invalid UTF-8 in string", at: start) }
                i = j + 1
                lastStringWasRaw = true
                return s
            }
            if b == UInt8(ascii: "\\") || b < 0x20 { break }
            j += 1
        }
        lastStringWasRaw = false
        var out: [UInt8] = Array(text(i, j))
        i = j
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                i += 1
                guard let s = String(validating: out, as: UTF8.self) else {
                    throw fail("invalid UTF-8 in string", at: start)
                }
                return s
            }
            if b < 0x20 { throw fail("control character in string; escape it (\\n, \\t, \\u00XX)") }
            if b == UInt8(ascii: "\\") {
                i += 1
                guard i < bytes.count else { break }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                            throw fail("unpaired surrogate in \\u escape")
                        }
                        i += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("unpaired surrogate in \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw fail("unpaired surrogate in \\u escape")
                    }
                    out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
                default:
                    throw fail("invalid escape '\\\(Character(Unicode.Scalar(e)))' in string", at: i - 2)
                }
                continue
            }
            out.append(b)
            i += 1
        }
        throw fail("unterminated string", at: start)
    }

    mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw fail("incomplete \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let d: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw fail("invalid hex digit in \\u escape")
            }
            v = v * 16 + d
            i += 1
        }
        return v
    }

    mutating func number() throws(JSONSyntaxError) -> JSONValue {
        let start = i
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        func digits(_ p: inout JSONParser) -> Int {
            let s = p.i
            while p.i < p.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(p.bytes[p.i]) { p.i += 1 }
            return p.i - s
        }
        guard i < bytes.count else { throw fail("incomplete number", at: start) }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) {
                throw fail("numbers may not have leading zeros", at: start)
            }
        } else if digits(&self) == 0 {
            throw fail("invalid number", at: start)
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            if digits(&self) == 0 { throw fail("a decimal point must be followed by digits", at: start) }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            if digits(&self) == 0 { throw fail("an exponent must have digits", at: start) }
        }
        if let v = fastNumber(start, i) { return .number(v, offset: start) }
        let literal = String(decoding: text(start, i), as: UTF8.self)
        guard let v = Double(literal), v.isFinite else {
            throw fail("number \(literal) is out of range (must be finite)", at: start)
        }
        return .number(v, offset: start)
    }
}

private let exactPowersOfTen: [Double] = (0...22).map { k in (0..<k).reduce(1.0) { r, _ in r * 10 } }

extension JSONParser {
    /// Integers and plain decimals of at most 15 significant digits: the mantissa and the
    /// power of ten are both exact doubles, so one division is correctly rounded (the same
    /// result as strtod). Anything else takes the general path.
    func fastNumber(_ start: Int, _ end: Int) -> Double? {
        var k = start
        let negative = bytes[k] == UInt8(ascii: "-")
        if negative { k += 1 }
        var mantissa: Int64 = 0
        var digits = 0
        var fraction = 0
        var seenPoint = false
        while k < end {
            let b = bytes[k]
            if b == UInt8(ascii: ".") { seenPoint = true; k += 1; continue }
            guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return nil }
            mantissa = mantissa * 10 + Int64(b - UInt8(ascii: "0"))
            digits += 1
            if seenPoint { fraction += 1 }
            if digits > 15 { return nil }
            k += 1
        }
        let v = Double(mantissa) / exactPowersOfTen[fraction]
        return negative ? -v : v
    }
}

/// Turns byte offsets into 1-based line:column, built once per file with errors.
public struct LineIndex: Sendable {
    var lineStarts: [Int] = [0]
    let bytes: [UInt8]

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        for (k, b) in bytes.enumerated() where b == 0x0A { lineStarts.append(k + 1) }
    }

    public func position(of offset: Int) -> (line: Int, column: Int) {
        var lo = 0, hi = lineStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if lineStarts[mid] <= offset { lo = mid } else { hi = mid - 1 }
        }
        // Columns count characters (UTF-8 scalars), not bytes, so they match an editor's.
        let start = lineStarts[lo]
        let end = min(max(offset, start), bytes.count)
        var column = 1
        for k in start..<end where bytes[k] & 0xC0 != 0x80 { column += 1 }
        return (lo + 1, column)
    }
}

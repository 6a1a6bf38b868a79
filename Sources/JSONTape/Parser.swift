/// The parser behind `JSONDocument.parse`: one pass over the bytes, appending tokens in
/// document order. It reads the caller's buffer in place for the length of the parse only.
struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    var i = 0
    var depth = 0
    var tokens: [Token] = []
    var unescaped: [Int: String] = [:]
    var objects = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        // Data files have about one token per six bytes; pages reserved and never written
        // cost nothing, and growing the tape would copy it.
        tokens.reserveCapacity(bytes.count / 4 + 16)
    }

    mutating func document() throws(JSONSyntaxError) {
        // A UTF-8 byte order mark, which some editors write, is not part of the text.
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { i = 3 }
        skipSpace()
        try value()
        skipSpace()
        if i < bytes.count { throw fail("unexpected \(describeHere()) after the end of the document") }
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

    @inline(__always) mutating func skipSpace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: return
            }
        }
    }

    mutating func value() throws(JSONSyntaxError) {
        guard i < bytes.count else { throw fail("unexpected end of file; expected a value") }
        switch bytes[i] {
        case UInt8(ascii: "{"): try object()
        case UInt8(ascii: "["): try array()
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "t"): try literal("true", .bool, 1)
        case UInt8(ascii: "f"): try literal("false", .bool, 0)
        case UInt8(ascii: "n"): try literal("null", .null, 0)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        case UInt8(ascii: "/"): throw fail("comments are not allowed in JSON")
        default: throw fail("unexpected \(describeHere()); expected a value")
        }
    }

    mutating func literal(_ word: StaticString, _ kind: JSONKind, _ payload: UInt64) throws(JSONSyntaxError) {
        let n = word.utf8CodeUnitCount
        guard i + n <= bytes.count, UnsafeBufferPointer(rebasing: bytes[i..<(i + n)])
            .elementsEqual(UnsafeBufferPointer(start: word.utf8Start, count: n)) else {
            throw fail("unexpected \(describeHere()); expected a value")
        }
        tokens.append(Token(offset: i, kind: kind, payload: payload))
        i += n
    }

    mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > JSONDocument.maxDepth { throw fail("nesting deeper than \(JSONDocument.maxDepth) levels; flatten the file") }
    }

    /// The bytes of the key at token `k`, decoded if it had escapes.
    func keyBytes(_ k: Int) -> [UInt8] {
        let t = tokens[k]
        if t.escaped { return Array((unescaped[k] ?? "").utf8) }
        return Array(bytes[(t.offset + 1)..<t.end])
    }

    func sameKey(_ a: Int, _ b: Int) -> Bool {
        let ta = tokens[a], tb = tokens[b]
        if !ta.escaped && !tb.escaped {
            guard ta.end - ta.offset == tb.end - tb.offset else { return false }
            return bytes[ta.offset..<ta.end].elementsEqual(bytes[tb.offset..<tb.end])
        }
        return keyBytes(a) == keyBytes(b)
    }

    mutating func object() throws(JSONSyntaxError) {
        try enter()
        let me = tokens.count
        tokens.append(Token(offset: i, kind: .object))
        objects += 1
        i += 1
        var count = 0
        // Objects in data files have a handful of keys: comparing with the earlier ones is
        // cheaper than hashing, up to a point; a large object switches to a set.
        var seen: Set<[UInt8]>?
        skipSpace()
        if i < bytes.count && bytes[i] == UInt8(ascii: "}") {
            i += 1
        } else {
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else {
                    if i < bytes.count && bytes[i] == UInt8(ascii: "}") { throw fail("trailing comma before '}'") }
                    throw fail("unexpected \(describeHere()); expected a quoted key")
                }
                let keyOffset = i
                let k = tokens.count
                try string()
                var duplicate = false
                if seen != nil {
                    duplicate = !seen!.insert(keyBytes(k)).inserted
                } else {
                    var s = me + 1
                    while s < k && !duplicate { duplicate = sameKey(s, k); s = nextOnTape(s + 1) }
                    if count >= 16 {
                        // This key's value is not on the tape yet: the earlier keys, then it.
                        var all: Set<[UInt8]> = [keyBytes(k)]
                        var s = me + 1
                        while s < k { all.insert(keyBytes(s)); s = nextOnTape(s + 1) }
                        seen = all
                    }
                }
                if duplicate {
                    throw fail("duplicate key \"\(String(decoding: keyBytes(k), as: UTF8.self))\" in one object", at: keyOffset)
                }
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("unexpected \(describeHere()); expected ':'") }
                i += 1
                skipSpace()
                try value()
                count += 1
                skipSpace()
                guard i < bytes.count else { throw fail("unexpected end of file; expected ',' or '}'") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; break }
                throw fail("unexpected \(describeHere()); expected ',' or '}'")
            }
        }
        depth -= 1
        tokens[me].close(end: tokens.count, count: count)
    }

    /// The tape index after the complete value at `i`.
    func nextOnTape(_ i: Int) -> Int {
        let t = tokens[i]
        return t.kind == .object || t.kind == .array ? t.end : i + 1
    }

    mutating func array() throws(JSONSyntaxError) {
        try enter()
        let me = tokens.count
        tokens.append(Token(offset: i, kind: .array))
        i += 1
        var count = 0
        skipSpace()
        if i < bytes.count && bytes[i] == UInt8(ascii: "]") {
            i += 1
        } else {
            while true {
                skipSpace()
                if i < bytes.count && bytes[i] == UInt8(ascii: "]") { throw fail("trailing comma before ']'") }
                try value()
                count += 1
                skipSpace()
                guard i < bytes.count else { throw fail("unexpected end of file; expected ',' or ']'") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; break }
                throw fail("unexpected \(describeHere()); expected ',' or ']'")
            }
        }
        depth -= 1
        tokens[me].close(end: tokens.count, count: count)
    }

    /// Appends a string token. Strings without escapes stay in the file. Only ASCII is
    /// accepted without a check: other text is validated as UTF-8 here, since decoding
    /// later would silently repair bad bytes.
    mutating func string() throws(JSONSyntaxError) {
        let start = i
        i += 1
        var j = i
        var ascii = true
        // Eight bytes at a time while none is a quote, a backslash, a control byte or
        // non-ASCII (a word-wide zero-byte test), then byte by byte from the first that is.
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        if let base = bytes.baseAddress {
            while j + 8 <= bytes.count {
                let w = UInt64(littleEndian: UnsafeRawPointer(base + j).loadUnaligned(as: UInt64.self))
                let q = w ^ (ones &* 0x22), bs = w ^ (ones &* 0x5C)
                let special = ((q &- ones) & ~q) | ((bs &- ones) & ~bs) | ((w &- ones &* 0x20) & ~w) | w
                let hit = special & highs
                if hit != 0 { j += hit.trailingZeroBitCount >> 3; break }
                j += 8
            }
        }
        while j < bytes.count {
            let b = bytes[j]
            if b == UInt8(ascii: "\"") {
                if !ascii && String(validating: UnsafeBufferPointer(rebasing: bytes[i..<j]), as: UTF8.self) == nil {
                    throw fail("invalid UTF-8 in string", at: start)
                }
                tokens.append(Token(offset: start, kind: .string, payload: UInt64(j)))
                i = j + 1
                return
            }
            if b == UInt8(ascii: "\\") || b < 0x20 { break }
            if b >= 0x80 { ascii = false }
            j += 1
        }
        try escapedString(from: start, plainUpTo: j)
    }

    /// The rest of a string that has escapes (or is broken), decoded.
    mutating func escapedString(from start: Int, plainUpTo j: Int) throws(JSONSyntaxError) {
        var out = Array(bytes[(start + 1)..<j])
        i = j
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                guard let s = String(validating: out, as: UTF8.self) else { throw fail("invalid UTF-8 in string", at: start) }
                unescaped[tokens.count] = s
                tokens.append(Token(offset: start, kind: .string, escaped: true, payload: UInt64(i)))
                i += 1
                return
            }
            if b < 0x20 { throw fail("control character in string; escape it (\\n, \\t, \\u00XX)") }
            guard b == UInt8(ascii: "\\") else { out.append(b); i += 1; continue }
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
                // Surrogates are excluded above, so every scalar here is valid.
                out.append(contentsOf: Array(String(Unicode.Scalar(scalar) ?? "\u{FFFD}").utf8))
            default:
                throw fail("invalid escape '\\\(Character(Unicode.Scalar(e)))' in string", at: i - 2)
            }
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

    /// Integers and plain decimals of at most 15 significant digits are computed while
    /// scanning: the mantissa and the power of ten are both exact doubles, so one division
    /// rounds correctly (as strtod does). Anything else goes through the standard library.
    mutating func number() throws(JSONSyntaxError) {
        let start = i
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        guard i < bytes.count else { throw fail("incomplete number", at: start) }
        var mantissa: Int64 = 0
        var digits = 0
        var fraction = 0
        @inline(__always) func digit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            digits = 1
            if i < bytes.count, digit(bytes[i]) { throw fail("numbers may not have leading zeros", at: start) }
        } else {
            while i < bytes.count, digit(bytes[i]) {
                if digits < 16 { mantissa = mantissa &* 10 &+ Int64(bytes[i] &- UInt8(ascii: "0")) }
                digits += 1
                i += 1
            }
            if digits == 0 { throw fail("invalid number", at: start) }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            let from = i
            while i < bytes.count, digit(bytes[i]) {
                if digits < 16 { mantissa = mantissa &* 10 &+ Int64(bytes[i] &- UInt8(ascii: "0")) }
                digits += 1
                i += 1
            }
            fraction = i - from
            if fraction == 0 { throw fail("a decimal point must be followed by digits", at: start) }
        }
        var exponent = false
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            exponent = true
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            let from = i
            while i < bytes.count, digit(bytes[i]) { i += 1 }
            if i == from { throw fail("an exponent must have digits", at: start) }
        }
        var v: Double
        if !exponent && digits <= 15 && fraction <= 22 {
            v = fraction == 0 ? Double(mantissa) : Double(mantissa) / exactPowersOfTen[fraction]
            if negative { v = -v }
        } else {
            let literal = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
            guard let d = Double(literal), d.isFinite else {
                throw fail("number \(literal.prefix(40)) is out of range (must be finite)", at: start)
            }
            v = d
        }
        tokens.append(Token(offset: start, kind: .number, payload: v.bitPattern))
    }
}

private let exactPowersOfTen: [Double] = (0...22).map { k in (0..<k).reduce(1.0) { r, _ in r * 10 } }

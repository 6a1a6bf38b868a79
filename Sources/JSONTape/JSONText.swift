/// A JSON string literal with the escapes RFC 8259 requires.
public func jsonString(_ s: String) -> String {
    var out = "\""
    for u in s.unicodeScalars {
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            // Besides what JSON requires: DEL, C1 controls, the line and paragraph separators
            // (which end a line in JavaScript) and bidi formatting, so that the text printed
            // on a terminal or pasted into a script is what it says.
            if u.value < 0x20 || (0x7F...0x9F).contains(u.value) || u.value == 0x2028 || u.value == 0x2029
                || u.value == 0x200E || u.value == 0x200F || u.value == 0x061C || (0x202A...0x202E).contains(u.value)
                || (0x2066...0x2069).contains(u.value) {
                let h = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
            } else {
                out.unicodeScalars.append(u)
            }
        }
    }
    return out + "\""
}

/// A number as a person writes it: 4, not 4.0. Whole numbers beyond 2^53 keep the
/// exponent form, since Int64 cannot hold every Double.
public func jsonNumber(_ d: Double) -> String {
    if d == d.rounded() && abs(d) < 1e15 { return String(Int64(d)) }
    return d.isFinite ? String(d) : "null"
}

extension JSONValue {
    /// The value as compact JSON text (for data passed through to a host).
    public var compactText: String {
        switch content {
        case .object(let members, _):
            return "{" + members.map { jsonString($0.key) + ":" + $0.value.compactText }.joined(separator: ",") + "}"
        case .array(let items, _): return "[" + items.map(\.compactText).joined(separator: ",") + "]"
        case .string(let s, _): return jsonString(s)
        case .number(let d, _): return jsonNumber(d)
        case .bool(let b, _): return b ? "true" : "false"
        case .null: return "null"
        }
    }
}

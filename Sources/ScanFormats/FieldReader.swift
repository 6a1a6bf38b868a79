import ScanCore

/// Collects diagnostics while reading typed fields out of JSON values, so a file reports all
/// its mistakes at once instead of stopping at the first.
struct FieldReader {
    let file: String
    var diagnostics: [Diagnostic] = []

    init(file: String) { self.file = file }

    var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    mutating func report(_ severity: Diagnostic.Severity, _ code: String, _ offset: Int,
                         _ path: String, _ element: String?, _ message: String) {
        diagnostics.append(Diagnostic(severity, code, file: file, offset: offset, path: path,
                                      element: element, message))
    }

    mutating func report(_ code: String, _ offset: Int, _ path: String, _ element: String?, _ message: String) {
        report(.error, code, offset, path, element, message)
    }

    /// The members of an object by key; unknown keys are reported with the nearest known one.
    mutating func object(_ v: JSONValue, _ path: String, _ element: String?, allowed: [String],
                         unknownCode: String = "E03") -> [String: JSONMember]? {
        guard case .object(let members, _) = v else {
            report("E04", v.offset, path, element, "must be an object, got \(v.kindName)")
            return nil
        }
        var dict = [String: JSONMember](minimumCapacity: members.count)
        for m in members {
            if allowed.contains(m.key) {
                dict[m.key] = m
            } else {
                var msg = "unknown field \"\(m.key)\""
                if let s = suggestion(for: m.key, among: allowed) { msg += "; did you mean \"\(s)\"?" }
                else { msg += "; allowed: \(quotedList(allowed))" }
                report(unknownCode, m.keyOffset, path + "." + m.key, element, msg)
            }
        }
        return dict
    }

    mutating func require(_ dict: [String: JSONMember], _ key: String, in v: JSONValue, _ path: String,
                          _ element: String?, code: String = "E04") -> JSONMember? {
        if let m = dict[key] { return m }
        report(code, v.offset, path, element, "missing required field \"\(key)\"")
        return nil
    }

    mutating func bool(_ m: JSONMember?, _ path: String, _ element: String?) -> Bool? {
        guard let m else { return nil }
        if case .bool(let b, _) = m.value { return b }
        report("E04", m.value.offset, path + "." + m.key, element, "must be true or false, got \(m.value.kindName)")
        return nil
    }

    mutating func string(_ m: JSONMember?, _ path: String, _ element: String?) -> String? {
        guard let m else { return nil }
        if case .string(let s, _) = m.value { return s }
        report("E04", m.value.offset, path + "." + m.key, element, "must be a string, got \(m.value.kindName)")
        return nil
    }

    mutating func number(_ m: JSONMember?, _ path: String, _ element: String?) -> Double? {
        guard let m else { return nil }
        if case .number(let d, _) = m.value { return d }
        report("E04", m.value.offset, path + "." + m.key, element, "must be a number, got \(m.value.kindName)")
        return nil
    }

    mutating func integer(_ m: JSONMember?, _ path: String, _ element: String?) -> Int? {
        guard let d = number(m, path, element) else { return nil }
        guard d == d.rounded(), abs(d) < 1e15 else {
            report("E04", m!.value.offset, path + "." + m!.key, element, "must be a whole number, got \(d)")
            return nil
        }
        return Int(d)
    }

    mutating func array(_ m: JSONMember?, _ path: String, _ element: String?) -> [JSONValue]? {
        guard let m else { return nil }
        if case .array(let a, _) = m.value { return a }
        report("E04", m.value.offset, path + "." + m.key, element, "must be an array, got \(m.value.kindName)")
        return nil
    }

    mutating func enumValue<E: RawRepresentable & CaseIterable>(_ m: JSONMember?, _ type: E.Type, _ path: String,
                                                                 _ element: String?) -> E? where E.RawValue == String {
        guard let s = string(m, path, element) else { return nil }
        if let e = E(rawValue: s) { return e }
        let allowed = E.allCases.map(\.rawValue)
        var msg = "unknown value \"\(s)\"; allowed: \(quotedList(allowed))"
        if let sug = suggestion(for: s, among: allowed) { msg += "; did you mean \"\(sug)\"?" }
        report("E04", m!.value.offset, path + "." + m!.key, element, msg)
        return nil
    }

    mutating func point(_ m: JSONMember?, _ path: String, _ element: String?) -> Point? {
        guard let m else { return nil }
        let p = path + "." + m.key
        guard let d = object(m.value, p, element, allowed: ["x", "y"]) else { return nil }
        let x = number(require(d, "x", in: m.value, p, element), p, element)
        let y = number(require(d, "y", in: m.value, p, element), p, element)
        guard let x, let y else { return nil }
        return Point(x: x, y: y)
    }

    /// A rectangle; negative sizes are E06.
    mutating func rect(_ m: JSONMember?, _ path: String, _ element: String?) -> Rect? {
        guard let m else { return nil }
        let p = path + "." + m.key
        guard let d = object(m.value, p, element, allowed: ["x", "y", "width", "height"]) else { return nil }
        let x = number(require(d, "x", in: m.value, p, element), p, element)
        let y = number(require(d, "y", in: m.value, p, element), p, element)
        var w = number(require(d, "width", in: m.value, p, element), p, element)
        var h = number(require(d, "height", in: m.value, p, element), p, element)
        if let wv = w, wv < 0 {
            report("E06", d["width"]!.value.offset, p + ".width", element, "must be >= 0, got \(format(wv))"); w = nil
        }
        if let hv = h, hv < 0 {
            report("E06", d["height"]!.value.offset, p + ".height", element, "must be >= 0, got \(format(hv))"); h = nil
        }
        guard let x, let y, let w, let h else { return nil }
        return Rect(x: x, y: y, width: w, height: h)
    }
}

/// Numbers as a person wrote them: 4, not 4.0.
func format(_ d: Double) -> String {
    if d == d.rounded() && abs(d) < 1e15 { return String(Int64(d)) }
    return String(d)
}

func format(_ r: Rect) -> String {
    "{x:\(format(r.x)), y:\(format(r.y)), width:\(format(r.width)), height:\(format(r.height))}"
}

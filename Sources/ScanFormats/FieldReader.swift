import JSONTape
import ScanCore

/// Collects diagnostics while reading typed fields out of JSON values, so that a file
/// reports all its mistakes at once instead of stopping at the first.
struct FieldReader {
    let file: String
    var diagnostics: [Diagnostic] = []
    /// Findings past `maxDiagnostics`, counted but not kept: a generated file can have
    /// millions of the same mistake.
    var omitted = 0
    static let maxDiagnostics = 1000

    init(file: String) { self.file = file }

    var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    mutating func report(_ severity: Diagnostic.Severity, _ code: String, _ offset: Int,
                         _ path: String, _ element: String?, _ message: String) {
        guard diagnostics.count < Self.maxDiagnostics else { omitted += 1; return }
        diagnostics.append(Diagnostic(severity, code, file: file, offset: offset, path: path,
                                      element: element.map { excerpt($0) }, message))
    }

    mutating func report(_ code: String, _ offset: Int, _ path: String, _ element: String?, _ message: String) {
        report(.error, code, offset, path, element, message)
    }

    /// The members of an object, those of `allowed` by their position in it; unknown keys
    /// are reported with the nearest known one. `elsewhere` explains known fields that
    /// belong in another kind of file.
    mutating func object(_ v: JSONValue, _ path: @autoclosure () -> String, _ element: String?, allowed: FieldNames,
                         unknownCode: String = "E03", elsewhere: [String: String] = [:]) -> ObjectView? {
        guard let members = v.object else {
            report("E04", v.offset, path(), element, "must be an object, got \(v.kindName)")
            return nil
        }
        var view = ObjectView(names: allowed)
        view.members.reserveCapacity(members.count)
        for m in members {
            if let p = allowed.keys.position(ofKey: m) {
                view.members.append((p, m))
                view.present |= 1 << UInt64(p)
            } else {
                let key = m.key
                var msg = "unknown field \"\(excerpt(key))\""
                if let note = elsewhere[key] { msg += "; \(note)" }
                else if let s = suggestion(for: key, among: allowed.names) { msg += "; did you mean \"\(s)\"?" }
                else { msg += "; allowed: \(quotedList(allowed.names))" }
                report(unknownCode, m.keyOffset, path() + "." + excerpt(key), element, msg)
            }
        }
        return view
    }

    mutating func require(_ d: ObjectView, _ key: String, in v: JSONValue, _ path: @autoclosure () -> String,
                          _ element: String?, code: String = "E04") -> JSONMember? {
        if let m = d[key] { return m }
        report(code, v.offset, path(), element, "missing required field \"\(key)\"")
        return nil
    }

    mutating func bool(_ m: JSONMember?, _ path: @autoclosure () -> String, _ element: String?) -> Bool? {
        guard let m else { return nil }
        if let b = m.value.bool { return b }
        report("E04", m.value.offset, path() + "." + m.key, element, "must be true or false, got \(m.value.kindName)")
        return nil
    }

    mutating func string(_ m: JSONMember?, _ path: @autoclosure () -> String, _ element: String?) -> String? {
        guard let m else { return nil }
        if let s = m.value.string { return s }
        report("E04", m.value.offset, path() + "." + m.key, element, "must be a string, got \(m.value.kindName)")
        return nil
    }

    mutating func number(_ m: JSONMember?, _ path: @autoclosure () -> String, _ element: String?) -> Double? {
        guard let m else { return nil }
        if let d = m.value.number { return d }
        report("E04", m.value.offset, path() + "." + m.key, element, "must be a number, got \(m.value.kindName)")
        return nil
    }

    /// A number within `range`; outside it, an error that states the range.
    mutating func number(_ m: JSONMember?, in range: ClosedRange<Double>, _ path: @autoclosure () -> String,
                         _ element: String?, code: String = "E04") -> Double? {
        guard let d = number(m, path(), element) else { return nil }
        guard range.contains(d) else {
            // A range from (nearly) zero reads as a sign to a person: ">= 0", "> 0".
            let bound = range.lowerBound == 0 && d < 0 ? "must be >= 0"
                : range.lowerBound > 0 && range.lowerBound <= 1e-3 && d <= 0 ? "must be > 0"
                : "must be between \(format(range.lowerBound)) and \(format(range.upperBound))"
            report(code, m!.value.offset, path() + "." + m!.key, element, "\(bound), got \(format(d))")
            return nil
        }
        return d
    }

    mutating func integer(_ m: JSONMember?, _ path: @autoclosure () -> String, _ element: String?) -> Int? {
        guard let d = number(m, path(), element) else { return nil }
        guard d == d.rounded(), abs(d) < 1e15 else {
            report("E04", m!.value.offset, path() + "." + m!.key, element, "must be a whole number, got \(format(d))")
            return nil
        }
        return Int(d)
    }

    mutating func array(_ m: JSONMember?, _ path: @autoclosure () -> String, _ element: String?) -> JSONArray? {
        guard let m else { return nil }
        if let a = m.value.array { return a }
        report("E04", m.value.offset, path() + "." + m.key, element, "must be an array, got \(m.value.kindName)")
        return nil
    }

    mutating func enumValue<E: RawRepresentable & CaseIterable>(_ m: JSONMember?, _ type: E.Type, _ path: @autoclosure () -> String,
                                                                 _ element: String?) -> E? where E.RawValue == String {
        choice(m, among: E.allCases.map(\.rawValue), path(), element).flatMap(E.init(rawValue:))
    }

    /// One of the names `allowed`; another is reported with the nearest.
    mutating func choice(_ m: JSONMember?, among allowed: [String], _ path: @autoclosure () -> String,
                         _ element: String?) -> String? {
        guard let s = string(m, path(), element) else { return nil }
        if allowed.contains(s) { return s }
        var msg = "unknown value \"\(excerpt(s))\"; allowed: \(quotedList(allowed))"
        if let sug = suggestion(for: s, among: allowed) { msg += "; did you mean \"\(sug)\"?" }
        report("E04", m!.value.offset, path() + "." + m!.key, element, msg)
        return nil
    }

    /// A point on the screen.
    mutating func point(_ m: JSONMember?, _ path: @autoclosure () -> String, _ element: String?) -> Point? {
        guard let m else { return nil }
        func p() -> String { path() + "." + m.key }
        guard let d = object(m.value, p(), element, allowed: FieldNames.point) else { return nil }
        let x = number(require(d, "x", in: m.value, p(), element), in: LayoutRanges.coordinates, p(), element)
        let y = number(require(d, "y", in: m.value, p(), element), in: LayoutRanges.coordinates, p(), element)
        guard let x, let y else { return nil }
        return Point(x: x, y: y)
    }

    /// A rectangle on the screen; negative sizes are E06.
    mutating func rect(_ m: JSONMember?, _ path: @autoclosure () -> String, _ element: String?) -> Rect? {
        guard let m else { return nil }
        if let (x, y, w, h) = m.value.fourNumbers(named: FieldNames.rect.keys),
           LayoutRanges.coordinates.contains(x), LayoutRanges.coordinates.contains(y), LayoutRanges.sizes.contains(w), LayoutRanges.sizes.contains(h) {
            return Rect(x: x, y: y, width: w, height: h)
        }
        func p() -> String { path() + "." + m.key }
        guard let d = object(m.value, p(), element, allowed: FieldNames.rect) else { return nil }
        let x = number(require(d, "x", in: m.value, p(), element), in: LayoutRanges.coordinates, p(), element)
        let y = number(require(d, "y", in: m.value, p(), element), in: LayoutRanges.coordinates, p(), element)
        let w = number(require(d, "width", in: m.value, p(), element), in: LayoutRanges.sizes, p(), element, code: "E06")
        let h = number(require(d, "height", in: m.value, p(), element), in: LayoutRanges.sizes, p(), element, code: "E06")
        guard let x, let y, let w, let h else { return nil }
        return Rect(x: x, y: y, width: w, height: h)
    }
}

/// The names an object may have, each with its position in the list.
struct FieldNames: ExpressibleByArrayLiteral, Sendable {
    let keys: JSONNames
    var names: [String] { keys.names }

    init(_ names: [String]) {
        // Presence is one bit per name of a UInt64 (`ObjectView.present`).
        precondition(names.count <= 64, "an object kind has at most 64 field names")
        keys = JSONNames(names)
    }

    func position(_ name: String) -> Int? { keys.position(of: name) }

    init(arrayLiteral elements: String...) { self.init(elements) }

    static let point: FieldNames = ["x", "y"]
    static let rect: FieldNames = ["x", "y", "width", "height"]
}

/// An object's allowed members, looked up by name. Objects in data files have a handful
/// of members: a linear scan of them is cheaper than a hash table per object.
struct ObjectView {
    let names: FieldNames
    var members: [(position: Int, member: JSONMember)] = []
    /// One bit per allowed name present, by its position.
    var present: UInt64 = 0

    init(names: FieldNames) { self.names = names }

    func has(_ position: Int) -> Bool { present & (1 << UInt64(position)) != 0 }

    subscript(position: Int) -> JSONMember? {
        guard has(position) else { return nil }
        return members.first { $0.position == position }?.member
    }

    subscript(key: String) -> JSONMember? {
        guard let p = names.position(key) else { return nil }
        return self[p]
    }
}

/// Numbers as a person wrote them: 4, not 4.0.
func format(_ d: Double) -> String { jsonNumber(d) }

func format(_ r: Rect) -> String {
    "{x:\(format(r.x)), y:\(format(r.y)), width:\(format(r.width)), height:\(format(r.height))}"
}

/// At most `limit` characters of a text from a file, for a message: a name can be
/// megabytes long.
public func excerpt(_ s: String, limit: Int = 80) -> String {
    guard let end = s.index(s.startIndex, offsetBy: limit, limitedBy: s.endIndex), end < s.endIndex else { return s }
    return s[..<end] + "…"
}

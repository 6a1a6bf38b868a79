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
    mutating func object(_ json: JSONValue, _ path: @autoclosure () -> String, _ element: String?, allowed: FieldNames,
                         unknownCode: String = "E03", elsewhere: [String: String] = [:]) -> ObjectView? {
        guard let members = json.object else {
            report("E04", json.offset, path(), element, "must be an object, got \(json.kindName)")
            return nil
        }
        var view = ObjectView(names: allowed)
        view.members.reserveCapacity(members.count)
        for member in members {
            if let position = allowed.keys.position(ofKey: member) {
                view.members.append((position, member))
                view.present |= 1 << UInt64(position)
            } else {
                let key = member.key
                var msg = "unknown field \"\(excerpt(key))\""
                if let note = elsewhere[key] { msg += "; \(note)" }
                else if let suggested = suggestion(for: key, among: allowed.names) { msg += "; did you mean \"\(suggested)\"?" }
                else { msg += "; allowed: \(quotedList(allowed.names))" }
                report(unknownCode, member.keyOffset, path() + "." + excerpt(key), element, msg)
            }
        }
        return view
    }

    mutating func require(_ object: ObjectView, _ key: String, in json: JSONValue, _ path: @autoclosure () -> String,
                          _ element: String?, code: String = "E04") -> JSONMember? {
        if let member = object[key] { return member }
        report(code, json.offset, path(), element, "missing required field \"\(key)\"")
        return nil
    }

    mutating func bool(_ member: JSONMember?, _ path: @autoclosure () -> String, _ element: String?) -> Bool? {
        guard let member else { return nil }
        if let value = member.value.bool { return value }
        report("E04", member.value.offset, path() + "." + member.key, element, "must be true or false, got \(member.value.kindName)")
        return nil
    }

    mutating func string(_ member: JSONMember?, _ path: @autoclosure () -> String, _ element: String?) -> String? {
        guard let member else { return nil }
        if let value = member.value.string { return value }
        report("E04", member.value.offset, path() + "." + member.key, element, "must be a string, got \(member.value.kindName)")
        return nil
    }

    mutating func number(_ member: JSONMember?, _ path: @autoclosure () -> String, _ element: String?) -> Double? {
        guard let member else { return nil }
        if let value = member.value.number { return value }
        report("E04", member.value.offset, path() + "." + member.key, element, "must be a number, got \(member.value.kindName)")
        return nil
    }

    /// A number within `range`; outside it, an error that states the range.
    mutating func number(_ member: JSONMember?, in range: ClosedRange<Double>, _ path: @autoclosure () -> String,
                         _ element: String?, code: String = "E04") -> Double? {
        guard let value = number(member, path(), element) else { return nil }
        guard range.contains(value) else {
            // A range from (nearly) zero reads as a sign to a person: ">= 0", "> 0".
            let bound = range.lowerBound == 0 && value < 0 ? "must be >= 0"
                : range.lowerBound > 0 && range.lowerBound <= 1e-3 && value <= 0 ? "must be > 0"
                : "must be between \(format(range.lowerBound)) and \(format(range.upperBound))"
            report(code, member!.value.offset, path() + "." + member!.key, element, "\(bound), got \(format(value))")
            return nil
        }
        return value
    }

    mutating func integer(_ member: JSONMember?, _ path: @autoclosure () -> String, _ element: String?) -> Int? {
        guard let value = number(member, path(), element) else { return nil }
        guard value == value.rounded(), abs(value) < 1e15 else {
            report("E04", member!.value.offset, path() + "." + member!.key, element, "must be a whole number, got \(format(value))")
            return nil
        }
        return Int(value)
    }

    mutating func array(_ member: JSONMember?, _ path: @autoclosure () -> String, _ element: String?) -> JSONArray? {
        guard let member else { return nil }
        if let value = member.value.array { return value }
        report("E04", member.value.offset, path() + "." + member.key, element, "must be an array, got \(member.value.kindName)")
        return nil
    }

    mutating func enumValue<E: RawRepresentable & CaseIterable>(_ member: JSONMember?, _ type: E.Type, _ path: @autoclosure () -> String,
                                                                 _ element: String?) -> E? where E.RawValue == String {
        choice(member, among: E.allCases.map(\.rawValue), path(), element).flatMap(E.init(rawValue:))
    }

    /// One of the names `allowed`; another is reported with the nearest.
    mutating func choice(_ member: JSONMember?, among allowed: [String], _ path: @autoclosure () -> String,
                         _ element: String?) -> String? {
        guard let value = string(member, path(), element) else { return nil }
        if allowed.contains(value) { return value }
        var msg = "unknown value \"\(excerpt(value))\"; allowed: \(quotedList(allowed))"
        if let sug = suggestion(for: value, among: allowed) { msg += "; did you mean \"\(sug)\"?" }
        report("E04", member!.value.offset, path() + "." + member!.key, element, msg)
        return nil
    }

    /// A point on the screen.
    mutating func point(_ member: JSONMember?, _ path: @autoclosure () -> String, _ element: String?) -> Point? {
        guard let member else { return nil }
        func fieldPath() -> String { path() + "." + member.key }
        guard let pointObject = object(member.value, fieldPath(), element, allowed: FieldNames.point) else { return nil }
        let x = number(require(pointObject, "x", in: member.value, fieldPath(), element), in: LayoutRanges.coordinates, fieldPath(), element)
        let y = number(require(pointObject, "y", in: member.value, fieldPath(), element), in: LayoutRanges.coordinates, fieldPath(), element)
        guard let x, let y else { return nil }
        return Point(x: x, y: y)
    }

    /// A rectangle on the screen; negative sizes are E06.
    mutating func rect(_ member: JSONMember?, _ path: @autoclosure () -> String, _ element: String?) -> Rect? {
        guard let member else { return nil }
        if let (x, y, width, height) = member.value.fourNumbers(named: FieldNames.rect.keys),
           LayoutRanges.coordinates.contains(x), LayoutRanges.coordinates.contains(y), LayoutRanges.sizes.contains(width), LayoutRanges.sizes.contains(height) {
            return Rect(x: x, y: y, width: width, height: height)
        }
        func fieldPath() -> String { path() + "." + member.key }
        guard let rectObject = object(member.value, fieldPath(), element, allowed: FieldNames.rect) else { return nil }
        let x = number(require(rectObject, "x", in: member.value, fieldPath(), element), in: LayoutRanges.coordinates, fieldPath(), element)
        let y = number(require(rectObject, "y", in: member.value, fieldPath(), element), in: LayoutRanges.coordinates, fieldPath(), element)
        let width = number(require(rectObject, "width", in: member.value, fieldPath(), element), in: LayoutRanges.sizes, fieldPath(), element, code: "E06")
        let height = number(require(rectObject, "height", in: member.value, fieldPath(), element), in: LayoutRanges.sizes, fieldPath(), element, code: "E06")
        guard let x, let y, let width, let height else { return nil }
        return Rect(x: x, y: y, width: width, height: height)
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
/// megabytes long (`TerminalText.excerpt`).
public func excerpt(_ s: String, limit: Int = 80) -> String { TerminalText.excerpt(s, limit: limit) }

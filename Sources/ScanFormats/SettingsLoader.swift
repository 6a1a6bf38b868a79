import JSONTape
import ScanCore

/// Reads a settings file (JSON) into ScanSettings: every setting of `ScanSettings.table`,
/// each optional, defaults for the rest. Durations are seconds; those that can be off take
/// `false` (or `null`, or 0) for off.
public enum SettingsLoader {
    public static let fields = ScanSettings.table.map(\.key)
    static let names = FieldNames(fields)

    public static func load(bytes: [UInt8], file: String) throws(DataFileError) -> ScanSettings {
        let document = try parseDataFile(bytes, file: file)
        return try read(document.root, bytes: bytes, file: file)
    }

    /// A file already parsed (by `validate`, to tell layouts from settings).
    public static func load(_ parsed: ParsedDataFile) throws(DataFileError) -> ScanSettings {
        try read(parsed.document.root, bytes: parsed.bytes, file: parsed.file)
    }

    static func read(_ json: JSONValue, bytes: [UInt8], file: String) throws(DataFileError) -> ScanSettings {
        var r = FieldReader(file: file)
        var s = ScanSettings()
        if let d = r.object(json, "$", nil, allowed: names, elsewhere: [
            "debounce": "debounce is set per switch device, in its profile's section (see Devices/README.md)",
        ]) {
            for (member, spec) in d.members.map({ ($0.member, ScanSettings.table[$0.position]) }) {
                read(member, spec, into: &s, &r)
            }
        }
        let diagnostics = locate(r.diagnostics, in: bytes)
        if diagnostics.contains(where: { $0.severity == .error }) {
            throw DataFileError(file: file, diagnostics: diagnostics)
        }
        return s
    }

    /// One setting, as its kind says; what is wrong is reported and leaves the default.
    static func read(_ m: JSONMember, _ spec: SettingSpec, into s: inout ScanSettings, _ r: inout FieldReader) {
        let p = "$." + spec.key
        switch spec.kind {
        case let .seconds(path, range, canBeOff):
            if let v = seconds(m, range, canBeOff: canBeOff, whenTrue: nil, p, &r) { s[keyPath: path] = v ?? .zero }
        case let .optionalSeconds(path, range, whenTrue):
            if let v = seconds(m, range, canBeOff: true, whenTrue: whenTrue, p, &r) { s[keyPath: path] = v }
        case let .number(path, range, unit):
            guard let v = r.number(m, "$", nil) else { return }
            if range.contains(v) { s[keyPath: path] = v }
            else { r.report("E04", m.value.offset, p, nil, "must be between \(format(range.lowerBound)) and \(format(range.upperBound))\(unit), got \(format(v))") }
        case let .integer(path, range, unit):
            guard let v = r.integer(m, "$", nil) else { return }
            if range.contains(v) { s[keyPath: path] = v }
            else { r.report("E04", m.value.offset, p, nil, "must be between \(range.lowerBound) and \(range.upperBound)\(unit), got \(v)") }
        case .flag(let path):
            if let v = r.bool(m, "$", nil) { s[keyPath: path] = v }
        case .choice(let choice):
            if let v = r.choice(m, among: choice.values, "$", nil) { _ = choice.set(&s, v) }
        case .colour(let path):
            guard let v = r.string(m, "$", nil) else { return }
            if let c = RGBColor(hex: v) { s[keyPath: path] = c }
            else { r.report("E04", m.value.offset, p, nil, "must be a colour \"#rrggbb\", e.g. \"#ff8c00\", got \"\(v)\"") }
        case let .weights(path, range):
            guard let members = m.value.object else {
                r.report("E04", m.value.offset, p, nil, "must be an object of element ids to relative frequencies, e.g. {\"send\": 10}")
                return
            }
            for w in members {
                if let v = w.value.number, range.contains(v) { s[keyPath: path][w.key] = v }
                else {
                    r.report("E04", w.value.offset, p + "." + excerpt(w.key), nil,
                             "a weight is a number from \(format(range.lowerBound)) to \(format(range.upperBound)) (how often the element is used, relative to others), got \(w.value.number.map(format) ?? w.value.kindName)")
                }
            }
        case let .pause(path, range):
            switch m.value.content {
            case .bool(false, _), .null, .number(0, _): s[keyPath: path] = .off
            case .number(let v, _) where range.contains(v): s[keyPath: path] = .seconds(.seconds(v))
            case .string("untilPress", _): s[keyPath: path] = .untilPress
            default:
                r.report("E04", m.value.offset, p, nil,
                         "must be false (off), seconds between \(format(range.lowerBound)) and \(format(range.upperBound)), or \"untilPress\"")
            }
        }
    }

    /// A duration: `.some(nil)` for off, nil for a value refused.
    static func seconds(_ m: JSONMember, _ range: ClosedRange<Double>, canBeOff: Bool, whenTrue: ScanDuration?,
                        _ p: String, _ r: inout FieldReader) -> ScanDuration?? {
        let between = "between \(format(range.lowerBound)) and \(format(range.upperBound))"
        switch m.value.content {
        case .bool(false, _), .null:
            if canBeOff { return .some(nil) }
            r.report("E04", m.value.offset, p, nil, "cannot be off; give seconds \(between)")
        case .bool(true, _) where whenTrue != nil:
            return whenTrue
        case .number(let v, _):
            if v == 0 && canBeOff { return .some(nil) }
            if range.contains(v) { return ScanDuration.seconds(v) }
            r.report("E04", m.value.offset, p, nil, "must be \(between) seconds\(canBeOff ? " (or false for off)" : ""), got \(format(v))")
        default:
            r.report("E04", m.value.offset, p, nil, "must be a number of seconds\(canBeOff ? " or false for off" : ""), got \(m.value.kindName)")
        }
        return nil
    }
}

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
        var reader = FieldReader(file: file)
        var settings = ScanSettings()
        if let fileObject = reader.object(json, "$", nil, allowed: names, elsewhere: [
            "debounce": "debounce is set per switch device, in its profile's section (see Devices/README.md)",
        ]) {
            var offsets: [String: Int] = [:]
            for (member, spec) in fileObject.members.map({ ($0.member, ScanSettings.table[$0.position]) }) {
                read(member, spec, into: &settings, &reader)
                offsets[spec.key] = member.value.offset
            }
            // Bounds that cross leave adaptation nowhere to go: said where they were given.
            if settings.adaptMinimum > settings.adaptMaximum, let at = offsets["adaptMinimum"] ?? offsets["adaptMaximum"] {
                let key = offsets["adaptMinimum"] != nil ? "adaptMinimum" : "adaptMaximum"
                reader.report("E04", at, "$." + key, nil,
                              "adaptMinimum (\(format(settings.adaptMinimum.seconds)) s) must not be above adaptMaximum (\(format(settings.adaptMaximum.seconds)) s)")
            }
        }
        let diagnostics = locate(reader.diagnostics, in: bytes)
        if diagnostics.contains(where: { $0.severity == .error }) {
            throw DataFileError(file: file, diagnostics: diagnostics)
        }
        return settings
    }

    /// One setting, as its kind says; what is wrong is reported and leaves the default.
    static func read(_ member: JSONMember, _ spec: SettingSpec, into settings: inout ScanSettings, _ reader: inout FieldReader) {
        let jsonPath = "$." + spec.key
        switch spec.kind {
        case let .seconds(path, range, canBeOff):
            if let value = seconds(member, range, canBeOff: canBeOff, whenTrue: nil, jsonPath, &reader) { settings[keyPath: path] = value ?? .zero }
        case let .optionalSeconds(path, range, whenTrue):
            if let value = seconds(member, range, canBeOff: true, whenTrue: whenTrue, jsonPath, &reader) { settings[keyPath: path] = value }
        case let .number(path, range, unit):
            guard let value = reader.number(member, "$", nil) else { return }
            if range.contains(value) { settings[keyPath: path] = value }
            else { reader.report("E04", member.value.offset, jsonPath, nil, "must be between \(format(range.lowerBound)) and \(format(range.upperBound))\(unit), got \(format(value))") }
        case let .integer(path, range, unit):
            guard let value = reader.integer(member, "$", nil) else { return }
            if range.contains(value) { settings[keyPath: path] = value }
            else { reader.report("E04", member.value.offset, jsonPath, nil, "must be between \(range.lowerBound) and \(range.upperBound)\(unit), got \(value)") }
        case .flag(let path):
            if let value = reader.bool(member, "$", nil) { settings[keyPath: path] = value }
        case .choice(let choice):
            if let value = reader.choice(member, among: choice.values, "$", nil) { _ = choice.set(&settings, value) }
        case .colour(let path):
            guard let value = reader.string(member, "$", nil) else { return }
            if let colour = RGBColor(hex: value) { settings[keyPath: path] = colour }
            else { reader.report("E04", member.value.offset, jsonPath, nil, "must be a colour \"#rrggbb\", e.g. \"#ff8c00\", got \"\(value)\"") }
        case let .weights(path, range):
            guard let members = member.value.object else {
                reader.report("E04", member.value.offset, jsonPath, nil, "must be an object of element ids to relative frequencies, e.g. {\"send\": 10}")
                return
            }
            for weight in members {
                if let value = weight.value.number, range.contains(value) { settings[keyPath: path][weight.key] = value }
                else {
                    reader.report("E04", weight.value.offset, jsonPath + "." + excerpt(weight.key), nil,
                             "a weight is a number from \(format(range.lowerBound)) to \(format(range.upperBound)) (how often the element is used, relative to others), got \(weight.value.number.map(format) ?? weight.value.kindName)")
                }
            }
        case .voice(let path):
            // Members not given keep their values (speechRate may have set the rate).
            if let voice = voice(member, settings[keyPath: path], jsonPath, &reader) { settings[keyPath: path] = voice }
        case let .pause(path, range):
            switch member.value.content {
            case .bool(false, _), .null, .number(0, _): settings[keyPath: path] = .off
            case .number(let value, _) where range.contains(value): settings[keyPath: path] = .seconds(.seconds(value))
            case .string("untilPress", _): settings[keyPath: path] = .untilPress
            default:
                reader.report("E04", member.value.offset, jsonPath, nil,
                         "must be false (off), seconds between \(format(range.lowerBound)) and \(format(range.upperBound)), or \"untilPress\"")
            }
        }
    }

    /// A voice's object; nil when anything in it is wrong (each thing reported).
    static func voice(_ member: JSONMember, _ current: VoiceSettings, _ jsonPath: String, _ reader: inout FieldReader) -> VoiceSettings? {
        guard let members = member.value.object else {
            reader.report("E04", member.value.offset, jsonPath, nil,
                          "must be an object of \(VoiceSettings.members.joined(separator: ", ")), e.g. {\"rate\": 20, \"pitch\": -10}, got \(member.value.kindName)")
            return nil
        }
        var voice = current, wrong = false
        let range = VoiceSettings.levelRange
        for m in members {
            let path = jsonPath + "." + excerpt(m.key)
            func refuse(_ why: String) {
                reader.report("E04", m.value.offset, path, nil, why)
                wrong = true
            }
            switch m.key {
            case "rate", "volume", "pitch":
                guard let n = m.value.number, n == n.rounded(), range.contains(Int(exactly: n) ?? .max) else {
                    refuse("must be a whole number from \(range.lowerBound) to \(range.upperBound) (0 is the voice's default), got \(m.value.number.map(format) ?? m.value.kindName)")
                    continue
                }
                let v = Int(n)
                if m.key == "rate" { voice.rate = v } else if m.key == "volume" { voice.volume = v } else { voice.pitch = v }
            case "voice", "module", "address":
                guard let text = m.value.string, !text.contains(where: \.isNewline) else {
                    refuse("must be a text on one line, got \(m.value.kindName)")
                    continue
                }
                if m.key == "address", !text.isEmpty, !VoiceSettings.isAddress(text) {
                    refuse("must be where a speech-dispatcher listens, \"unix_socket:/path\" or \"inet_socket:host:port\", got \"\(excerpt(text))\"")
                    continue
                }
                if m.key == "voice" { voice.voice = text } else if m.key == "module" { voice.module = text } else { voice.address = text }
            default:
                refuse("is not a member of a voice; a voice has \(VoiceSettings.members.joined(separator: ", "))")
            }
        }
        return wrong ? nil : voice
    }

    /// A duration: `.some(nil)` for off, nil for a value refused.
    static func seconds(_ member: JSONMember, _ range: ClosedRange<Double>, canBeOff: Bool, whenTrue: ScanDuration?,
                        _ jsonPath: String, _ reader: inout FieldReader) -> ScanDuration?? {
        let between = "between \(format(range.lowerBound)) and \(format(range.upperBound))"
        switch member.value.content {
        case .bool(false, _), .null:
            if canBeOff { return .some(nil) }
            reader.report("E04", member.value.offset, jsonPath, nil, "cannot be off; give seconds \(between)")
        case .bool(true, _) where whenTrue != nil:
            return whenTrue
        case .number(let value, _):
            if value == 0 && canBeOff { return .some(nil) }
            if range.contains(value) { return ScanDuration.seconds(value) }
            reader.report("E04", member.value.offset, jsonPath, nil, "must be \(between) seconds\(canBeOff ? " (or false for off)" : ""), got \(format(value))")
        default:
            reader.report("E04", member.value.offset, jsonPath, nil, "must be a number of seconds\(canBeOff ? " or false for off" : ""), got \(member.value.kindName)")
        }
        return nil
    }
}

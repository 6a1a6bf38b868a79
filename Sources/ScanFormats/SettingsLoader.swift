import JSONTape
import ScanCore

/// Reads a settings file (JSON) into ScanSettings: every setting, each optional,
/// defaults for the rest. Durations are seconds; those that can be off take `false`
/// (or `null`) for off.
public enum SettingsLoader {
    // Key paths are immutable values; Swift just does not mark them Sendable yet.
    struct Duration: @unchecked Sendable {
        let key: String
        let range: ClosedRange<Double>
        let canBeOff: Bool
        let path: WritableKeyPath<ScanSettings, ScanDuration?>?
        let requiredPath: WritableKeyPath<ScanSettings, ScanDuration>?
    }

    static let durations: [Duration] = [
        .init(key: "autoScanInterval", range: ScanSettings.autoScanIntervalRange, canBeOff: false, path: nil, requiredPath: \.autoScanInterval),
        .init(key: "pauseOnFirstItem", range: 0...10, canBeOff: true, path: nil, requiredPath: \.pauseOnFirstItem),
        .init(key: "moveRepeat", range: 0.05...5, canBeOff: true, path: \.moveRepeat, requiredPath: nil),
        .init(key: "holdDuration", range: 0.01...5, canBeOff: true, path: \.holdDuration, requiredPath: nil),
        .init(key: "ignoreRepeat", range: 0.01...5, canBeOff: true, path: \.ignoreRepeat, requiredPath: nil),
        .init(key: "longPress", range: 0.2...5, canBeOff: true, path: \.longPress, requiredPath: nil),
        .init(key: "autoTapTime", range: 0.2...5, canBeOff: false, path: nil, requiredPath: \.autoTapTime),
        .init(key: "stepSelectDelay", range: 0.3...10, canBeOff: false, path: nil, requiredPath: \.stepSelectDelay),
        .init(key: "reactionTime", range: 0.06...5, canBeOff: false, path: nil, requiredPath: \.reactionTime),
    ]

    public static let fields = durations.map(\.key) + [
        "style", "mode", "loops", "longPressAction", "glideSpeed", "tapBehavior", "focusAfterTap",
        "groupItems", "itemScope", "precise", "bandFraction", "fineSpeedFactor", "actOn",
        "speech", "speechRate", "speechVolume", "sound", "highlightColor", "highlightWidth", "grouping", "weights",
        "resumeAt", "pauseAfterSelection", "keyboardLayout", "autoCapitalize", "learnWords",
    ]

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
        if let d = r.object(json, "$", nil, allowed: FieldNames(fields), elsewhere: [
            "debounce": "debounce is set per switch device, in its profile's section (see Devices/README.md)",
        ]) {
            for spec in durations {
                guard let m = d[spec.key] else { continue }
                let p = "$." + spec.key
                switch m.value.content {
                case .bool(false, _), .null:
                    if spec.canBeOff {
                        if let kp = spec.path { s[keyPath: kp] = nil }
                        if let kp = spec.requiredPath { s[keyPath: kp] = .zero }
                    } else {
                        r.report("E04", m.value.offset, p, nil, "cannot be off; give seconds between \(format(spec.range.lowerBound)) and \(format(spec.range.upperBound))")
                    }
                case .bool(true, _) where spec.key == "longPress":
                    s.longPress = .seconds(1.0)
                case .number(let v, _):
                    if v == 0 && spec.canBeOff {
                        if let kp = spec.path { s[keyPath: kp] = nil }
                        if let kp = spec.requiredPath { s[keyPath: kp] = .zero }
                    } else if spec.range.contains(v) {
                        if let kp = spec.path { s[keyPath: kp] = .seconds(v) }
                        if let kp = spec.requiredPath { s[keyPath: kp] = .seconds(v) }
                    } else {
                        r.report("E04", m.value.offset, p, nil,
                                 "must be between \(format(spec.range.lowerBound)) and \(format(spec.range.upperBound)) seconds\(spec.canBeOff ? " (or false for off)" : ""), got \(format(v))")
                    }
                default:
                    r.report("E04", m.value.offset, p, nil,
                             "must be a number of seconds\(spec.canBeOff ? " or false for off" : ""), got \(m.value.kindName)")
                }
            }
            if let v = r.enumValue(d["style"], ScanStyle.self, "$", nil) { s.style = v }
            if let v = r.enumValue(d["mode"], ScanMode.self, "$", nil) { s.mode = v }
            if let v = r.enumValue(d["longPressAction"], SwitchAction.self, "$", nil) { s.longPressAction = v }
            if let v = r.enumValue(d["tapBehavior"], TapBehavior.self, "$", nil) { s.tapBehavior = v }
            if let v = r.enumValue(d["focusAfterTap"], FocusAfterTap.self, "$", nil) { s.focusAfterTap = v }
            if let v = r.enumValue(d["itemScope"], ItemScope.self, "$", nil) { s.itemScope = v }
            if let v = r.enumValue(d["actOn"], ActOn.self, "$", nil) { s.actOn = v }
            if let v = r.enumValue(d["grouping"], Grouping.self, "$", nil) { s.grouping = v }
            if let v = r.enumValue(d["resumeAt"], ResumeAt.self, "$", nil) { s.resumeAt = v }
            if let v = r.enumValue(d["keyboardLayout"], KeyboardLayoutName.self, "$", nil) { s.typing.keyboardLayout = v }
            if let v = r.bool(d["autoCapitalize"], "$", nil) { s.typing.autoCapitalize = v }
            if let v = r.bool(d["learnWords"], "$", nil) { s.typing.learnWords = v }
            if let m = d["pauseAfterSelection"] {
                let range = 0.1...60.0
                switch m.value.content {
                case .bool(false, _), .null: s.pauseAfterSelection = .off
                case .number(0, _): s.pauseAfterSelection = .off
                case .number(let v, _) where range.contains(v): s.pauseAfterSelection = .seconds(.seconds(v))
                case .string("untilPress", _): s.pauseAfterSelection = .untilPress
                default:
                    r.report("E04", m.value.offset, "$.pauseAfterSelection", nil,
                             "must be false (off), seconds between \(format(range.lowerBound)) and \(format(range.upperBound)), or \"untilPress\"")
                }
            }
            if let w = d["weights"] {
                if let members = w.value.object {
                    for m in members {
                        if let v = m.value.number, v >= 0, v <= 1e6 { s.weights[m.key] = v }
                        else { r.report("E04", m.value.offset, "$.weights." + excerpt(m.key), nil, "a weight is a number from 0 to 1000000 (how often the element is used, relative to others), got \(m.value.number.map(format) ?? m.value.kindName)") }
                    }
                } else {
                    r.report("E04", w.value.offset, "$.weights", nil, "must be an object of element ids to relative frequencies, e.g. {\"send\": 10}")
                }
            }
            if let v = r.bool(d["groupItems"], "$", nil) { s.groupItems = v }
            if let v = r.bool(d["precise"], "$", nil) { s.precise = v }
            if let v = r.integer(d["loops"], "$", nil) {
                if (1...100).contains(v) { s.loops = v } else { r.report("E04", d["loops"]!.value.offset, "$.loops", nil, "must be between 1 and 100, got \(v)") }
            }
            number(&r, d, "glideSpeed", 5...5000, unit: " points per second") { s.glideSpeed = $0 }
            number(&r, d, "bandFraction", 0.02...0.5, unit: " of the screen") { s.bandFraction = $0 }
            number(&r, d, "fineSpeedFactor", 0.05...1, unit: " of glideSpeed") { s.fineSpeedFactor = $0 }
            if let v = r.bool(d["speech"], "$", nil) { s.feedback.speech = v }
            if let v = r.bool(d["sound"], "$", nil) { s.feedback.sound = v }
            for (key, path) in [("speechRate", \FeedbackSettings.speechRate), ("speechVolume", \FeedbackSettings.speechVolume)] {
                guard let v = r.integer(d[key], "$", nil) else { continue }
                if (-100...100).contains(v) { s.feedback[keyPath: path] = v }
                else { r.report("E04", d[key]!.value.offset, "$." + key, nil, "must be between -100 and 100 (0 is the voice's default), got \(v)") }
            }
            if let v = r.integer(d["highlightWidth"], "$", nil) {
                let range = FeedbackSettings.highlightWidthRange
                if range.contains(v) { s.feedback.highlightWidth = v }
                else { r.report("E04", d["highlightWidth"]!.value.offset, "$.highlightWidth", nil, "must be between \(range.lowerBound) and \(range.upperBound) pixels, got \(v)") }
            }
            if let v = r.string(d["highlightColor"], "$", nil) {
                if let c = RGBColor(hex: v) { s.feedback.highlightColor = c }
                else { r.report("E04", d["highlightColor"]!.value.offset, "$.highlightColor", nil, "must be a colour \"#rrggbb\", e.g. \"#ff8c00\", got \"\(v)\"") }
            }
        }
        let diagnostics = locate(r.diagnostics, in: bytes)
        if diagnostics.contains(where: { $0.severity == .error }) {
            throw DataFileError(file: file, diagnostics: diagnostics)
        }
        return s
    }

    static func number(_ r: inout FieldReader, _ d: ObjectView, _ key: String, _ range: ClosedRange<Double>,
                       unit: String, set: (Double) -> Void) {
        guard let v = r.number(d[key], "$", nil) else { return }
        if range.contains(v) { set(v) }
        else { r.report("E04", d[key]!.value.offset, "$." + key, nil, "must be between \(format(range.lowerBound)) and \(format(range.upperBound))\(unit), got \(format(v))") }
    }
}

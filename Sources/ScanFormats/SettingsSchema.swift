import JSONTape
import ScanCore

/// The JSON Schema of settings files, made from `ScanSettings.table` (the checked-in
/// `Layouts/schema/settings.schema.json` is this text; `switchscan settings schema` prints
/// it). One line a setting, so that a new setting is a one-line change of the file.
public enum SettingsSchema {
    public static var text: String {
        let defaults = ScanSettings()
        let properties = ScanSettings.table.map { spec in
            "    \(jsonString(spec.key)): {\"description\": \(jsonString(description(spec))), \"default\": \(spec.json(in: defaults)), "
                + shape(spec.kind) + "}"
        }
        return """
            {
              "$schema": "https://json-schema.org/draft/2020-12/schema",
              "$id": "switchscan-settings",
              "title": "SwitchScan settings file",
              "description": "The user's scanning preferences: every key optional, defaults for the rest. Durations are seconds. This schema checks the values' shape and ranges; switchscan validate reports the same with the file, line and column.",
              "type": "object",
              "additionalProperties": false,
              "properties": {
            \(properties.joined(separator: ",\n"))
              }
            }

            """
    }

    static func description(_ spec: SettingSpec) -> String {
        spec.doc + (spec.menu ? " The scanner menu's Settings page changes it." : "")
    }

    /// The values a kind takes, as schema keywords.
    static func shape(_ kind: SettingKind) -> String {
        func range<T>(_ type: String, _ r: ClosedRange<T>, _ text: (T) -> String) -> String {
            "\"type\": \"\(type)\", \"minimum\": \(text(r.lowerBound)), \"maximum\": \(text(r.upperBound))"
        }
        let seconds = { (r: ClosedRange<Double>) in range("number", r, jsonNumber) }
        switch kind {
        case let .seconds(_, r, canBeOff):
            return canBeOff ? "\"anyOf\": [{\(seconds(r))}, {\"enum\": [false, null, 0]}]" : seconds(r)
        case let .optionalSeconds(_, r, whenTrue):
            return "\"anyOf\": [{\(seconds(r))}, {\"enum\": [false, null, 0\(whenTrue == nil ? "" : ", true")]}]"
        case .number(_, let r, _): return range("number", r, jsonNumber)
        case .integer(_, let r, _): return range("integer", r) { String($0) }
        case .flag: return "\"type\": \"boolean\""
        case .choice(let c): return "\"enum\": [" + c.values.map(jsonString).joined(separator: ", ") + "]"
        case .colour: return "\"type\": \"string\", \"pattern\": \"^#[0-9A-Fa-f]{6}$\""
        case .weights(_, let r): return "\"type\": \"object\", \"additionalProperties\": {\(range("number", r, jsonNumber))}"
        case .voice:
            let level = range("integer", VoiceSettings.levelRange) { String($0) }
            let members = VoiceSettings.members.map { "\"\($0)\": {" + ($0 == "voice" || $0 == "module" || $0 == "address" ? "\"type\": \"string\"" : level) + "}" }
            return "\"type\": \"object\", \"additionalProperties\": false, \"properties\": {" + members.joined(separator: ", ") + "}"
        case .pause(_, let r): return "\"anyOf\": [{\(seconds(r))}, {\"enum\": [false, null, 0, \"untilPress\"]}]"
        }
    }
}

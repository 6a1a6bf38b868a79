import Foundation
import JSONTape
import ScanCore
@testable import ScanFormats
import Testing

/// `ScanSettings.table` is the one list of settings: the loader reads every key of it into
/// the property it names, and the schema, docs/SETTINGS.md's table and the menu's changes agree
/// with it.
@Suite("Settings table")
struct SettingsTableTests {
    static let table = ScanSettings.table

    func load(_ json: String) throws -> ScanSettings {
        try SettingsLoader.load(bytes: bytes(json), file: "settings.json")
    }

    /// A value other than the default, as the file would say it.
    static func otherValue(_ spec: SettingSpec) -> String {
        let d = ScanSettings()
        // Below the default maximum: adaptation's bounds must not cross.
        if spec.key == "adaptMinimum" { return "0.1" }
        func other<T: Comparable>(_ r: ClosedRange<T>, _ current: T, _ text: (T) -> String) -> String {
            text(current == r.upperBound ? r.lowerBound : r.upperBound)
        }
        switch spec.kind {
        case let .seconds(path, r, _): return other(r, d[keyPath: path].seconds, jsonNumber)
        case .optionalSeconds(_, let r, _): return jsonNumber(r.upperBound)
        case let .number(path, r, _): return other(r, d[keyPath: path], jsonNumber)
        case let .integer(path, r, _): return other(r, d[keyPath: path]) { String($0) }
        case .flag(let path): return d[keyPath: path] ? "false" : "true"
        case .choice(let c): return jsonString(c.values.first { $0 != c.get(d) }!)
        case .colour: return ##""#123abc""##
        case .weights: return #"{"send": 10}"#
        case .pause: return #""untilPress""#
        case .voice: return #"{"pitch": 30, "voice": "en-gb", "module": "espeak-ng", "address": "unix_socket:/run/speech/hp.sock"}"#
        }
    }

    @Test func keysAreUniqueAndFitThePresenceBits() {
        let keys = Self.table.map(\.key)
        #expect(Set(keys).count == keys.count)
        #expect(keys.count <= 64)
        #expect(SettingsLoader.fields == keys)
    }

    /// Each key alone, given a value other than its default, changes the settings there and
    /// nowhere else, and what the table writes for it reads back the same.
    @Test(arguments: ScanSettings.table.map(\.key))
    func everyKeyIsReadWhereTheTableSays(_ key: String) throws {
        let spec = try #require(Self.table.first { $0.key == key })
        let value = Self.otherValue(spec)
        let s = try load("{\(jsonString(key)): \(value)}")
        #expect(s != ScanSettings())
        #expect(spec.json(in: s) != spec.json(in: ScanSettings()))
        #expect(try load("{\(jsonString(key)): \(spec.json(in: s))}") == s)
        // speechRate and speechVolume are the cue voice's rate and volume by their older keys.
        let aliases = ["speechRate": "cueVoice", "speechVolume": "cueVoice"]
        for other in Self.table where other.key != key && aliases[key] != other.key {
            #expect(other.json(in: s) == other.json(in: ScanSettings()), "\(key) also changed \(other.key)")
        }
    }

    /// What the table writes for the defaults reads back as the defaults.
    @Test func theDefaultsAsAFileLoadAsTheDefaults() throws {
        let defaults = ScanSettings()
        let text = "{" + Self.table.map { "\(jsonString($0.key)): \($0.json(in: defaults))" }.joined(separator: ", ") + "}"
        #expect(try load(text) == defaults)
        #expect(Self.table.first { $0.key == "autoScanInterval" }?.json(in: defaults) == "1.0")
        #expect(Self.table.first { $0.key == "longPress" }?.json(in: defaults) == "false")
    }

    /// A change from the menu is written as a settings file says it, and the file then
    /// holds exactly that change.
    @Test(arguments: [(SettingChange.autoScanInterval(.seconds(0.9)), "autoScanInterval", "0.9"),
                      (.autoScanInterval(.seconds(1)), "autoScanInterval", "1.0"),
                      (.autoScanInterval(.seconds(10)), "autoScanInterval", "10.0"),
                      (.glideSpeed(110), "glideSpeed", "110"),
                      (.speech(true), "speech", "true"),
                      (.sound(false), "sound", "false")])
    func aChangeIsWrittenAsTheFileSaysIt(_ change: SettingChange, _ key: String, _ value: String) throws {
        #expect(change.json.key == key)
        #expect(change.json.value == value)
        var expected = ScanSettings()
        change.apply(to: &expected)
        #expect(try load("{\(jsonString(key)): \(value)}") == expected)
        #expect(Self.table.first { $0.key == key }?.menu == true)
    }

    // MARK: - the schema

    static func schemaURL() -> URL { layoutsDirectory().appendingPathComponent("schema/settings.schema.json") }

    @Test func theCheckedInSchemaIsTheGeneratedOne() throws {
        let file = try String(contentsOf: Self.schemaURL(), encoding: .utf8)
        #expect(file == SettingsSchema.text,
                "Layouts/schema/settings.schema.json is out of date: swift run switchscan settings schema > Layouts/schema/settings.schema.json")
    }

    @Test func theSchemaIsJSONNamingEveryKeyWithItsDefault() throws {
        let data = Data(SettingsSchema.text.utf8)
        let schema = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(schema["additionalProperties"] as? Bool == false)
        let properties = try #require(schema["properties"] as? [String: [String: Any]])
        #expect(Set(properties.keys) == Set(Self.table.map(\.key)))
        #expect(properties["loops"]?["default"] as? Int == 2)
        #expect(properties["loops"]?["maximum"] as? Int == 100)
        #expect(properties["style"]?["enum"] as? [String] == ["auto", "manual", "step", "hold"])
        #expect((properties["speech"]?["description"] as? String)?.hasSuffix("The scanner menu's Settings page changes it.") == true)
        #expect((properties["loops"]?["description"] as? String)?.contains("Settings page") == false)
    }

    // MARK: - docs/SETTINGS.md

    /// The settings table of docs/SETTINGS.md: one row a key, `key | default | range | meaning`.
    static func documentedRows() throws -> [(key: String, defaultValue: String, range: String)] {
        let body = try String(contentsOf: packageRoot.appendingPathComponent("docs/SETTINGS.md"), encoding: .utf8)
        return body.split(separator: "\n").filter { $0.hasPrefix("| `") }.map { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            return (String(cells[1].dropFirst().dropLast()), cells[2], cells[3].replacingOccurrences(of: "\u{2212}", with: "-"))
        }
    }

    @Test func theSettingsPageNamesEveryKeyWithItsDefaultAndRange() throws {
        let rows = try Self.documentedRows()
        #expect(Set(rows.map(\.key)) == Set(Self.table.map(\.key)), "docs/SETTINGS.md's table: \(rows.map(\.key))")
        #expect(Set(rows.map(\.key)).count == rows.count)
        for spec in Self.table {
            guard let row = rows.first(where: { $0.key == spec.key }) else { Issue.record("docs/SETTINGS.md does not name \(spec.key)"); continue }
            let json = spec.json(in: ScanSettings())
            // Off is written "off" where a setting can be off; every other default as in a file.
            let expected = json == "false" && !Self.isFlag(spec.kind) ? "off" : "`\(json)`"
            #expect(row.defaultValue.hasPrefix(expected), "\(spec.key): docs/SETTINGS.md says \(row.defaultValue), the default is \(expected)")
            if let range = Self.range(spec.kind) {
                #expect(row.range == range || [" ", ","].contains { row.range.hasPrefix(range + $0) },
                        "\(spec.key): docs/SETTINGS.md says \(row.range), the range is \(range)")
            }
        }
    }

    /// A kind's range as docs/SETTINGS.md writes it ("0.1–10").
    static func range(_ kind: SettingKind) -> String? {
        func text(_ r: ClosedRange<Double>) -> String { "\(jsonNumber(r.lowerBound))\u{2013}\(jsonNumber(r.upperBound))" }
        switch kind {
        case .seconds(_, let r, _), .optionalSeconds(_, let r, _), .number(_, let r, _), .weights(_, let r), .pause(_, let r): return text(r)
        case .integer(_, let r, _): return "\(r.lowerBound)\u{2013}\(r.upperBound)"
        case .flag, .choice, .colour, .voice: return nil
        }
    }

    static func isFlag(_ kind: SettingKind) -> Bool {
        if case .flag = kind { return true }
        return false
    }
}

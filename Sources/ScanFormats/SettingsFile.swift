#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSONTape
import ScanCore

/// The user's settings file, and changes written into it: a setting replaced or added, the
/// others kept, and the file replaced atomically (written aside, flushed, renamed over), so
/// that a crash in the middle of a write leaves the old file or the new one, never half of
/// either; writers take turns (UserFile).
public enum SettingsFile {
    /// `$XDG_CONFIG_HOME/switchscan/settings.json`, else `~/.config/switchscan/settings.json`
    /// (an empty or relative variable counts as unset, as the XDG rules say); nil without a home.
    public static func userPath(environment env: [String: String]) -> String? {
        let config = env["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? env["HOME"].flatMap { !$0.hasPrefix("/") ? nil : $0 + "/.config" }
        return config.map { $0 + "/switchscan/settings.json" }
    }

    /// Sets `key` to `value` (JSON text) in the settings file at `path`, creating the file
    /// and its folder if needed, in the file as it is at that moment (UserFile). The result
    /// must be a valid settings file; if it would not be, or the file is not a JSON object,
    /// nothing is written.
    public static func set(_ key: String, to value: String, in path: String) throws(FileReadError) {
        try UserFile.update(path, what: "settings file", mode: 0o644) { (current) throws(FileReadError) -> [UInt8] in
            var members: [(key: String, value: String)] = []
            if let current {
                guard let document = try? JSONDocument.parse(current), let object = document.root.object else {
                    throw FileReadError(description: "Error: \(path) is not a JSON object of settings; it was left unchanged.")
                }
                members = object.map { ($0.key, $0.value.compactText) }
            }
            if let k = members.firstIndex(where: { $0.key == key }) { members[k].value = value } else { members.append((key, value)) }
            let text = "{\n" + members.map { "  \(jsonString($0.key)): \($0.value)" }.joined(separator: ",\n") + "\n}\n"
            do throws(DataFileError) {
                _ = try SettingsLoader.load(bytes: Array(text.utf8), file: path)
            } catch {
                throw FileReadError(description: error.description + "\n\(path) was left unchanged.")
            }
            return Array(text.utf8)
        }
    }

    static func makeFolders(_ folder: String) throws(FileReadError) {
        var path = folder.hasPrefix("/") ? "" : "."
        for part in folder.split(separator: "/") {
            path += "/" + part
            if mkdir(path, 0o755) != 0 && errno != EEXIST {
                throw FileReadError(description: "Error: cannot create the folder \(path): \(String(cString: strerror(errno))).")
            }
        }
    }
}

extension SettingSpec {
    /// Its value in `s` as a settings file says it (JSON text): seconds with a decimal
    /// point, `false` for off.
    public func json(in s: ScanSettings) -> String {
        func seconds(_ d: ScanDuration) -> String {
            let t = jsonNumber(d.seconds)
            return t.contains(where: { $0 == "." || $0 == "e" }) ? t : t + ".0"
        }
        switch kind {
        case let .seconds(path, _, canBeOff): return canBeOff && s[keyPath: path] == .zero ? "false" : seconds(s[keyPath: path])
        case .optionalSeconds(let path, _, _): return s[keyPath: path].map(seconds) ?? "false"
        case .number(let path, _, _): return jsonNumber(s[keyPath: path])
        case .integer(let path, _, _): return String(s[keyPath: path])
        case .flag(let path): return s[keyPath: path] ? "true" : "false"
        case .choice(let choice): return jsonString(choice.get(s))
        case .colour(let path): return jsonString(s[keyPath: path].hex)
        case .weights(let path, _):
            return "{" + s[keyPath: path].sorted { $0.key < $1.key }.map { jsonString($0.key) + ": " + jsonNumber($0.value) }.joined(separator: ", ") + "}"
        case .voice(let path):
            let v = s[keyPath: path], none = VoiceSettings()
            var members: [String] = []
            for (key, level, unset) in [("rate", v.rate, none.rate), ("volume", v.volume, none.volume), ("pitch", v.pitch, none.pitch)] where level != unset {
                members.append("\"\(key)\": \(level)")
            }
            for (key, text) in [("voice", v.voice), ("module", v.module), ("address", v.address)] where !text.isEmpty {
                members.append("\"\(key)\": " + jsonString(text))
            }
            return "{" + members.joined(separator: ", ") + "}"
        case .pause(let path, _):
            switch s[keyPath: path] {
            case .off: return "false"
            case .seconds(let d): return seconds(d)
            case .untilPress: return jsonString("untilPress")
            }
        }
    }
}

extension SettingChange {
    /// The change as a settings file says it: its key, and the value as JSON text.
    public var json: (key: String, value: String) {
        var s = ScanSettings()
        apply(to: &s)
        guard let spec = ScanSettings.table.first(where: { $0.key == key }) else {
            preconditionFailure("\(key) is not in ScanSettings.table")
        }
        return (key, spec.json(in: s))
    }
}

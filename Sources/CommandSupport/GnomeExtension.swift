import Compositors
import Foundation
import JSONTape
import ScanSession

/// SwitchScan's GNOME Shell extension as the commands see it: where it is installed, whether
/// GNOME Shell is asked to load it (its settings, through `gsettings`), whether it answers;
/// and enabling it (`autostart enable`, `setup`). GNOME Shell loads an extension at login:
/// enabling takes effect then.
public enum GnomeExtension {
    public static let uuid = GnomeShell.uuid

    /// The folders GNOME Shell looks in, in its order: the user's data folder first.
    static func folders(_ env: [String: String]) -> [String] {
        let home = env["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? ((env["HOME"] ?? "") + "/.local/share")
        let dirs = (env["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share").split(separator: ":").map(String.init)
        return ([home] + dirs).map { $0 + "/gnome-shell/extensions/" + uuid }
    }

    /// The installed extension GNOME Shell would load, and its version.
    public static func installed(_ env: [String: String]) -> (folder: String, version: String)? {
        for folder in folders(env) where FileManager.default.fileExists(atPath: folder + "/metadata.json") {
            let data = FileManager.default.contents(atPath: folder + "/metadata.json").map(Array.init) ?? []
            let version = (try? JSONDocument.parse(data))?.root.object?.member("version-name")?.value.string ?? "unknown"
            return (folder, version)
        }
        return nil
    }

    /// Whether GNOME Shell's settings ask it to load the extension; nil with why when they
    /// cannot be read.
    public static func isEnabled(_ env: [String: String]) -> Result<Bool, Failure> {
        do {
            let enabled = try list("enabled-extensions", env)
            let disabled = try list("disabled-extensions", env)
            return .success(enabled.contains(uuid) && !disabled.contains(uuid))
        } catch {
            return .failure(error)
        }
    }

    public struct Failure: Error, CustomStringConvertible { public let description: String }

    /// Asks GNOME Shell to load the extension from the next login on (its settings'
    /// `enabled-extensions`, and not `disabled-extensions`); false when it already was.
    public static func enable(_ env: [String: String]) throws(Failure) -> Bool {
        var enabled = try list("enabled-extensions", env)
        var disabled = try list("disabled-extensions", env)
        guard !enabled.contains(uuid) || disabled.contains(uuid) else { return false }
        if !enabled.contains(uuid) { enabled.append(uuid); try set("enabled-extensions", enabled, env) }
        if disabled.contains(uuid) { disabled.removeAll { $0 == uuid }; try set("disabled-extensions", disabled, env) }
        return true
    }

    /// What `desktop`, `autostart status` and `setup` say of it, in a GNOME session: one line.
    public static func status(_ env: [String: String]) -> String {
        guard let (folder, version) = installed(env) else {
            return "GNOME Shell extension: not installed (the switchscan package installs it in /usr/share/gnome-shell/extensions/\(uuid)); "
                + "without it SwitchScan scans by AT-SPI alone, draws nothing and cannot tap where windows are."
        }
        var parts = ["installed in \(folder) (version \(version))"]
        switch isEnabled(env) {
        case .success(true): parts.append("enabled")
        case .success(false): parts.append("not enabled ('switchscan autostart enable' enables it; GNOME Shell loads it at your next login)")
        case .failure(let why): parts.append("whether it is enabled is not known (\(why))")
        }
        do {
            let shell = try GnomeShell()
            defer { shell.close() }
            parts.append("answering (version \(shell.version))")
        } catch {
            parts.append("not answering: \(error)")
        }
        return "GNOME Shell extension: " + parts.joined(separator: "; ") + "."
    }

    /// The strings of a GNOME Shell setting that is a list of strings.
    static func list(_ key: String, _ env: [String: String]) throws(Failure) -> [String] {
        let r = gsettings(["get", "org.gnome.shell", key], env)
        guard r.status == 0 else { throw Failure(description: "gsettings get org.gnome.shell \(key) failed: \(r.output.trimmingCharacters(in: .whitespacesAndNewlines))") }
        return parse(r.output)
    }

    /// "['a', 'b']" or "@as []": the strings (names without quotes in them, as UUIDs are).
    static func parse(_ text: String) -> [String] {
        text.split(separator: "'").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    static func set(_ key: String, _ values: [String], _ env: [String: String]) throws(Failure) {
        let r = gsettings(["set", "org.gnome.shell", key, "[" + values.map { "'\($0)'" }.joined(separator: ", ") + "]"], env)
        guard r.status == 0 else { throw Failure(description: "gsettings set org.gnome.shell \(key) failed: \(r.output.trimmingCharacters(in: .whitespacesAndNewlines))") }
    }

    static func gsettings(_ args: [String], _ env: [String: String]) -> (status: Int32, output: String) {
        let path = env["PATH"] ?? "/usr/bin:/bin"
        guard let tool = path.split(separator: ":").map({ $0 + "/gsettings" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return (127, "gsettings is not installed (libglib2.0-bin)")
        }
        return ToolRun.run(tool, args)
    }
}

/// A tool run to its end, its output (stdout and stderr together) kept.
public enum ToolRun {
    public static func run(_ tool: String, _ arguments: [String]) -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return (127, "\(tool): \(error)") }
        try? pipe.fileHandleForWriting.close()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

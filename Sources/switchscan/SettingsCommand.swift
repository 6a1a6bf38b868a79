import ArgumentParser
import CommandSupport
import Foundation
import ScanCore
import JSONTape
import ScanFormats
import ScanSession

/// The user's settings file: where it is, what it says, and one setting changed in it
/// (the scanner menu's Settings change it the same way while scanning).
struct SettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "Show or change the user's settings file (~/.config/switchscan/settings.json).",
        subcommands: [SettingsPath.self, SettingsShow.self, SettingsSet.self, SettingsSchemaCommand.self]
    )

    static func file(_ given: String?) throws -> String {
        try HomeFolder.file(given, xdg: "XDG_CONFIG_HOME") { SettingsFile.userPath(environment: $0) }
    }
}

struct SettingsPath: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "path", abstract: "Print where the user's settings file is.")
    func run() throws { writeOut(try SettingsCommand.file(nil) + "\n") }
}

struct SettingsShow: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Print the settings file, checked.")
    @Option(help: "The settings file (default: the user's).")
    var file: String?

    func run() throws {
        let path = try SettingsCommand.file(file)
        guard FileManager.default.fileExists(atPath: path) else {
            writeMessage("\(path) does not exist yet: every setting has its default.\n")
            return
        }
        let bytes: [UInt8]
        do {
            _ = try loadSettings(path)  // refuses a broken file with its place
            bytes = try readBytes(path, what: "settings file")
        } catch {
            throw fail(error.message)
        }
        // The file is valid JSON, so characters that could drive the terminal can only be
        // inside its strings, where a \u escape means the same: printed so, the output is
        // the same settings and the terminal is safe.
        var text = ""
        for u in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            if u != "\n" && u != "\t" && u != "\r" && TerminalText.needsReplacing(u) {
                text += "\\u" + String(repeating: "0", count: 4 - String(u.value, radix: 16).count) + String(u.value, radix: 16, uppercase: true)
            } else {
                text.unicodeScalars.append(u)
            }
        }
        writeOut(text)
    }
}

struct SettingsSet: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set one setting in the settings file, keeping the others; the file is replaced atomically.",
        discussion: "VALUE is JSON (0.8, true, \"untilPress\", {\"send\": 5}); a bare word is taken as a string."
    )
    @Argument(help: "The setting, e.g. autoScanInterval.")
    var key: String
    // Every input not an option: a negative number ("-5") looks like one and is a value here.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("Its value, e.g. 0.8 or -5.", valueName: "value"))
    var values: [String] = []
    @Option(help: "The settings file (default: the user's).")
    var file: String?

    func validate() throws {
        guard values.count == 1 else {
            throw ValidationError(values.isEmpty ? "Missing expected argument '<value>'" : "One value only, not \(values.count): \(excerpt(values.joined(separator: " ")))")
        }
    }

    func run() throws {
        let value = values[0]
        let path = try SettingsCommand.file(file)
        let json = (try? JSONDocument.parse(Array(value.utf8))) != nil ? value : jsonString(value)
        do { try SettingsFile.set(key, to: json, in: path) } catch { throw fail(error.description) }
    }
}

struct SettingsSchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema of settings files (Layouts/schema/settings.schema.json is this output)."
    )
    func run() throws { writeOut(SettingsSchema.text) }
}

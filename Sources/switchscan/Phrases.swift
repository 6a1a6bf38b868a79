import ArgumentParser
import CommandSupport
import Foundation
import ScanCore
import ScanFormats

/// The phrases of the message screen, for a carer: list, add and remove them without
/// opening the file (docs/MESSAGES.md).
struct Phrases: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, add or remove the phrases the message screen offers (~/.config/switchscan/phrases.txt).",
        subcommands: [PhrasesPath.self, PhrasesList.self, PhrasesAdd.self, PhrasesRemove.self]
    )

    static func file(_ given: String?) throws -> String {
        try HomeFolder.file(given, xdg: "XDG_CONFIG_HOME") { PhrasesFile.userPath(environment: $0) }
    }
}

struct PhrasesPath: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "path", abstract: "Print where the phrases are kept.")
    func run() throws { writeOut(try Phrases.file(nil) + "\n") }
}

struct PhrasesList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the phrases, in the order they are offered.")
    @Option(help: "The phrases file (default: the user's).")
    var file: String?

    func run() throws {
        let path = try Phrases.file(file)
        guard FileManager.default.fileExists(atPath: path) else {
            writeMessage("No phrases yet: \(path) does not exist. Add one with: switchscan phrases add \"I need a drink\"\n")
            return
        }
        let loaded: PhrasesFile.Loaded
        do { loaded = try PhrasesFile.load(path) } catch { throw fail(error.description) }
        for p in loaded.phrases { writeOut(TerminalText.visible(p) + "\n") }
        for p in loaded.problems { writeErr(p + "\n") }
        writeMessage("\(loaded.phrases.count == 1 ? "1 phrase" : "\(loaded.phrases.count) phrases") in \(path).\n")
    }
}

struct PhrasesAdd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add a phrase at the end; the file is replaced atomically (made, readable by you alone, if needed).")
    @Argument(help: "The phrase, in quotes: \"I need a drink\".")
    var phrase: String
    @Option(help: "The phrases file (default: the user's).")
    var file: String?

    func run() throws {
        let path = try Phrases.file(file)
        let change: PhrasesFile.Change
        do { change = try PhrasesFile.add(phrase, to: path) } catch { throw fail(error.description) }
        let shown = "\"" + TerminalText.visible(excerpt(phrase)) + "\""
        writeMessage(change == .alreadyThere ? "\(shown) is already a phrase in \(path); nothing changed.\n" : "Added \(shown) to \(path).\n")
    }
}

struct PhrasesRemove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove a phrase (every line that is it); the other lines stay as they are.")
    @Argument(help: "The phrase, as it is listed.")
    var phrase: String
    @Option(help: "The phrases file (default: the user's).")
    var file: String?

    func run() throws {
        let path = try Phrases.file(file)
        let change: PhrasesFile.Change
        do { change = try PhrasesFile.remove(phrase, from: path) } catch { throw fail(error.description) }
        let shown = "\"" + TerminalText.visible(excerpt(phrase)) + "\""
        guard change == .removed else {
            throw fail("\(shown) is not a phrase in \(path); nothing changed. 'switchscan phrases list' shows them.")
        }
        writeMessage("Removed \(shown) from \(path).\n")
    }
}

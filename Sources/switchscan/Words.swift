import ArgumentParser
import CommandSupport
import Foundation
import ScanCore
import ScanFormats
import ScanRuntime
import ScanSession
import WordPrediction

/// The words the predictor learned from the user's typing: where they are kept, which they
/// are, and forgetting one or all of them.
struct Words: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show or forget the words learned from your typing (~/.local/share/switchscan/words.txt).",
        subcommands: [WordsPath.self, WordsList.self, WordsForget.self]
    )

    static func file(_ given: String?) throws -> String {
        try HomeFolder.file(given, xdg: "XDG_DATA_HOME") { WordsFile.userPath(environment: $0) }
    }

    /// The learned words at `path`, or nil (with a message printed) when there is no file yet.
    static func load(_ path: String) throws -> WordList? {
        guard FileManager.default.fileExists(atPath: path) else {
            writeMessage("No words learned yet: \(path) does not exist.\n")
            return nil
        }
        let bytes: [UInt8]
        do { bytes = try readFile(path, what: "word list", limit: WordsFile.maxFileSize) } catch { throw fail(error.description) }
        do { return try WordList(parsing: bytes, file: path) } catch {
            throw fail(error.description + "\n" + WordsFile.mend)
        }
    }
}

struct WordsPath: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "path", abstract: "Print where the learned words are kept.")
    func run() throws { writeOut(try Words.file(nil) + "\n") }
}

struct WordsList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the learned words with how often each was typed, most often first.")
    @Option(help: "The learned-words file (default: the user's).")
    var file: String?

    func run() throws {
        let path = try Words.file(file)
        guard let list = try Words.load(path) else { return }
        let words = list.sortedWords()
        let width = String(words.first?.count ?? 0).count
        for (word, count) in words {
            writeOut(String(repeating: " ", count: width - String(count).count) + "\(count) \(TerminalText.visible(word))\n")
        }
        writeMessage("\(words.count == 1 ? "1 word" : "\(words.count) words") and \(list.pairCount == 1 ? "1 pair" : "\(list.pairCount) pairs") learned, in \(path).\n")
    }
}

struct WordsForget: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Forget a learned word (any case) and the pairs it is in, or all of them with --all; the file is replaced atomically.",
        discussion: "The language's own word list is not changed: a word it has is still predicted, as if never typed."
    )
    @Argument(help: "The word to forget.")
    var word: String?
    @Flag(help: "Forget every learned word and pair.")
    var all = false
    @Option(help: "The learned-words file (default: the user's).")
    var file: String?

    func validate() throws {
        if all && word != nil { throw ValidationError("Give either a word or --all, not both.") }
        if !all && word == nil { throw ValidationError("No word given. Give the word to forget, e.g. 'switchscan words forget teh', or --all to forget every learned word.") }
    }

    func run() throws {
        let path = try Words.file(file)
        // Forgetting everything does not need the file to read well: it mends a damaged one.
        if all {
            guard FileManager.default.fileExists(atPath: path) else {
                writeMessage("No words learned yet: \(path) does not exist.\n")
                return
            }
        } else {
            guard try Words.load(path) != nil else { return }
        }
        // The change is made to the file as it is when it is written (a running keyboard
        // may have learned a word meanwhile).
        var said = ""
        do {
            try WordsFile.change(path, skippingBadLines: all) { list in
                if all {
                    let words = list.wordCount, pairs = list.pairCount
                    list = WordList()
                    said = "Forgot every learned word (\(words == 1 ? "1 word" : "\(words) words"), \(pairs == 1 ? "1 pair" : "\(pairs) pairs")) in \(path).\n"
                    return true
                }
                let pairs = list.pairCount
                guard list.remove(word!) else {
                    said = "\"\(TerminalText.visible(excerpt(word!)))\" is not among the learned words in \(path); nothing changed.\n"
                    return false
                }
                let gone = pairs - list.pairCount
                said = "Forgot \"\(TerminalText.visible(excerpt(word!)))\"\(gone > 0 ? " and \(gone == 1 ? "1 pair" : "\(gone) pairs") with it" : "") in \(path).\n"
                return true
            }
        } catch {
            throw fail(error.description)
        }
        writeMessage(said)
    }
}

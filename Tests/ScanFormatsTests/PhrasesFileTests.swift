import Foundation
import ScanFormats
import Testing

/// The message screen's phrases file and history: read with every bad line named, changed
/// as the settings are.
@Suite("Phrases and history files")
struct PhrasesFileTests {
    static func folder() throws -> URL {
        let f = FileManager.default.temporaryDirectory.appendingPathComponent("phrases-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: f, withIntermediateDirectories: true)
        return f
    }

    static func write(_ bytes: [UInt8], _ path: String) { FileManager.default.createFile(atPath: path, contents: Data(bytes)) }

    @Test func theUsersFileIsInTheConfigFolder() {
        #expect(PhrasesFile.userPath(environment: ["XDG_CONFIG_HOME": "/c", "HOME": "/h"]) == "/c/switchscan/phrases.txt")
        #expect(PhrasesFile.userPath(environment: ["XDG_CONFIG_HOME": "rel", "HOME": "/h"]) == "/h/.config/switchscan/phrases.txt")
        #expect(PhrasesFile.userPath(environment: [:]) == nil)
        #expect(MessageHistoryFile.userPath(environment: ["HOME": "/h"]) == "/h/.local/share/switchscan/history.txt")
    }

    @Test func blankLinesCommentsAndRepeatsAreLeftOutSilently() {
        let text = "# for Ann\nI need a drink\r\n\n   \n  Thank you  \nI need a drink\n\tPlease\u{7} turn me over"
        let loaded = PhrasesFile.parse(Array(text.utf8), file: "p.txt")
        #expect(loaded.phrases == ["I need a drink", "Thank you", "Please  turn me over"])
        #expect(loaded.problems.isEmpty)
    }

    @Test func anOverlongOrBrokenLineIsNamedAndTheOthersRead() {
        var bytes = Array("Hello\n".utf8) + Array(String(repeating: "a", count: 301).utf8) + [0x0A]
        bytes += [0x48, 0x69, 0xFF, 0x0A] + Array("Bye".utf8)
        let loaded = PhrasesFile.parse(bytes, file: "p.txt")
        #expect(loaded.phrases == ["Hello", "Bye"])
        #expect(loaded.problems == [
            "p.txt:2: a phrase of 301 characters; left out. A phrase is at most 300 characters: split it.",
            "p.txt:3: not UTF-8 text; left out. Write the phrase again in UTF-8.",
        ])
    }

    @Test func phrasesPastTheLimitAreLeftOutAndSaid() {
        let text = (1...(PhrasesFile.maxPhrases + 7)).map { "Phrase \($0)" }.joined(separator: "\n")
        let loaded = PhrasesFile.parse(Array(text.utf8), file: "p.txt")
        #expect(loaded.phrases.count == PhrasesFile.maxPhrases)
        #expect(loaded.problems == ["p.txt: 7 phrases after the first 500 are left out. Remove some, or put the ones most used first."])
    }

    @Test func aFileThatIsNotTextOrNotAFileIsRefusedWithItsName() throws {
        let f = try Self.folder()
        defer { try? FileManager.default.removeItem(at: f) }
        let binary = f.appendingPathComponent("phrases.txt").path
        Self.write(Array("Hi\nthere\n".utf8) + [0, 1, 2], binary)
        #expect(throws: FileReadError.self) { try PhrasesFile.load(binary) }
        do { _ = try PhrasesFile.load(binary) } catch {
            #expect(error.description.contains(binary) && error.description.contains("line 3") && error.description.contains("not text"))
        }
        let fifo = f.appendingPathComponent("fifo.txt").path
        #expect(mkfifo(fifo, 0o600) == 0)
        do { _ = try PhrasesFile.load(fifo); Issue.record("a FIFO was read") } catch {
            #expect(error.description.contains("FIFO"))
        }
        let huge = f.appendingPathComponent("huge.txt").path
        Self.write([UInt8](repeating: 0x61, count: PhrasesFile.maxFileSize + 1), huge)
        #expect(throws: FileReadError.self) { try PhrasesFile.load(huge) }
        // A missing file is no phrases yet.
        #expect(try PhrasesFile.load(f.appendingPathComponent("none.txt").path).phrases.isEmpty)
        if getuid() != 0 {
            let locked = f.appendingPathComponent("locked.txt").path
            Self.write(Array("Hi\n".utf8), locked)
            chmod(locked, 0)
            #expect(throws: FileReadError.self) { try PhrasesFile.load(locked) }
        }
    }

    @Test func addAndRemoveKeepTheRestOfTheFile() throws {
        let f = try Self.folder()
        defer { try? FileManager.default.removeItem(at: f) }
        let path = f.appendingPathComponent("new/phrases.txt").path
        #expect(try PhrasesFile.add("  I need a drink ", to: path) == .added)
        #expect(try PhrasesFile.add("I need a drink", to: path) == .alreadyThere)
        #expect(try PhrasesFile.add("Thank you", to: path) == .added)
        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o600, "the user's alone")
        Self.write(Array("# mine\nI need a drink\n\nThank you\nI need a drink".utf8), path)
        #expect(try PhrasesFile.remove("I need a drink", from: path) == .removed)
        #expect(String(decoding: FileManager.default.contents(atPath: path)!, as: UTF8.self) == "# mine\n\nThank you")
        #expect(try PhrasesFile.remove("Not there", from: path) == .notThere)
        #expect(throws: FileReadError.self) { try PhrasesFile.add("   ", to: path) }
        #expect(throws: FileReadError.self) { try PhrasesFile.add(String(repeating: "b", count: 301), to: path) }
        // A file another editor wrote: a byte order mark, CR LF line ends.
        Self.write(Array("\u{FEFF}# for Ann\r\nThank you\r\n".utf8), path)
        #expect(PhrasesFile.parse([UInt8](FileManager.default.contents(atPath: path)!), file: "p").phrases == ["Thank you"])
        #expect(try PhrasesFile.add("Thank you", to: path) == .alreadyThere)
        #expect(try PhrasesFile.add("Water", to: path) == .added)
        #expect(String(decoding: FileManager.default.contents(atPath: path)!, as: UTF8.self) == "\u{FEFF}# for Ann\r\nThank you\r\nWater\r\n")
        // A phrase past the first 500 is there all the same: not added twice.
        Self.write(Array(((1...501).map { "P\($0)" }.joined(separator: "\n") + "\n").utf8), path)
        #expect(try PhrasesFile.add("P501", to: path) == .alreadyThere)
        // A line that is not UTF-8 stays as it was when another is removed.
        Self.write([0xFF, 0x0A] + Array("Bye\n".utf8), path)
        #expect(try PhrasesFile.remove("Bye", from: path) == .removed)
        #expect([UInt8](FileManager.default.contents(atPath: path)!) == [0xFF, 0x0A])
    }

    @Test func theHistoryKeepsTheNewestFiftyOnceEach() throws {
        let f = try Self.folder()
        defer { try? FileManager.default.removeItem(at: f) }
        let path = f.appendingPathComponent("data/history.txt").path
        #expect(try MessageHistoryFile.load(path).isEmpty)
        for k in 1...60 { try MessageHistoryFile.add("Message \(k)", to: path) }
        try MessageHistoryFile.add("Message 55", to: path)
        try MessageHistoryFile.add("Two\nlines \\ kept", to: path)
        let history = try MessageHistoryFile.load(path)
        #expect(history.count == MessageHistoryFile.limit)
        #expect(Array(history.prefix(3)) == ["Two\nlines \\ kept", "Message 55", "Message 60"])
        #expect(history.last == "Message 12")
        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o600)
        // A damaged line is left out, the rest read.
        Self.write(Array("Good\nbad \\x escape\n".utf8) + [0xC3, 0x0A] + Array("Fine\n".utf8), path)
        #expect(try MessageHistoryFile.load(path) == ["Good", "Fine"])
    }
}

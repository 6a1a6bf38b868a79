import Foundation
import ScanFormats
import Testing
import WordPrediction

@Suite("The user's learned-words file")
struct WordsFileTests {
    @Test func whereTheLearnedWordsAreKept() {
        #expect(WordsFile.userPath(environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/u"]) == "/data/switchscan/words.txt")
        #expect(WordsFile.userPath(environment: ["XDG_DATA_HOME": "", "HOME": "/home/u"]) == "/home/u/.local/share/switchscan/words.txt")
        #expect(WordsFile.userPath(environment: ["HOME": "/home/u"]) == "/home/u/.local/share/switchscan/words.txt")
        #expect(WordsFile.userPath(environment: ["HOME": ""]) == nil)
        #expect(WordsFile.userPath(environment: [:]) == nil)
        // A relative folder would depend on where SwitchScan was started: the XDG rules say to
        // ignore it.
        #expect(WordsFile.userPath(environment: ["XDG_DATA_HOME": "data", "HOME": "/home/u"]) == "/home/u/.local/share/switchscan/words.txt")
        #expect(WordsFile.userPath(environment: ["HOME": "home"]) == nil)
        #expect(SettingsFile.userPath(environment: ["XDG_CONFIG_HOME": "conf", "HOME": "/home/u"]) == "/home/u/.config/switchscan/settings.json")
        #expect(SettingsFile.userPath(environment: ["XDG_CONFIG_HOME": "/conf", "HOME": "/home/u"]) == "/conf/switchscan/settings.json")
        #expect(SettingsFile.userPath(environment: ["HOME": "."]) == nil)
    }

    @Test func savedWordsLoadBackAndOnlyTheUserCanReadThem() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("words-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("switchscan/words.txt").path
        #expect(try WordsFile.loadUser(path).list == WordList(), "no file yet: nothing learned")

        var words = WordList()
        words.add("hello", count: 3)
        words.add("world", after: "hello")
        try WordsFile.change(path) { $0 = words; return true }
        #expect(try WordsFile.load(path) == words)
        #expect(try WordsFile.loadUser(path).list == words)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("# SwitchScan: the words you taught the predictor"))
        #expect(text.hasSuffix("\n3 hello\n1 hello world\n"))
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("switchscan").path) == ["words.txt"],
                "the copy written aside was renamed over the file")
    }

    @Test func aBrokenFileIsRefusedWithItsPathAndLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("words-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("words.txt").path
        try Data("3 hello\nhello 3\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try WordsFile.loadUser(path).damaged?.problems.map(\.line) == [2], "the user's own file: the bad line skipped")
        do {
            _ = try WordsFile.load(path)
        } catch {
            #expect(error.description == """
                \(path):2: "hello" is not a count; a count is a whole number from 1 to 1000000000000000
                \(path): 1 error; the word list was not loaded.
                """)
        }
        do {
            _ = try WordsFile.load(folder.appendingPathComponent("missing.words").path)
        } catch {
            #expect(error.description.hasPrefix("Error: word list '\(folder.path)/missing.words' does not exist."))
        }
    }
}

@Suite("The user's learned-words file, damaged")
struct DamagedWordsFileTests {
    @Test func aDamagedLineIsSkippedAndNamedAndTheRestRead() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("words-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("words.txt").path
        try Data("3 hello\n9223372036854775808 world\n1 hello there\n".utf8).write(to: URL(fileURLWithPath: path))
        let read = try WordsFile.loadUser(path)
        #expect(read.list.count(of: "hello") == 3)
        #expect(read.list.count(of: "there", after: "hello") == 1)
        #expect(read.list.count(of: "world") == 0)
        #expect(read.damaged?.description == """
            \(path):2: "9223372036854775808" is not a count; a count is a whole number from 1 to 1000000000000000
            \(path): 1 error; that line was skipped.
            """)
        #expect(try WordsFile.loadUser(folder.appendingPathComponent("none.txt").path).damaged == nil)
    }

    @Test func aChangeThatChangesNothingLeavesTheFileAsItIs() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("words-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("words.txt").path
        let text = "# my own note\n3 hello\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        var before = stat()
        #expect(stat(path, &before) == 0)
        try WordsFile.change(path) { $0.remove("absent") }
        var after = stat()
        #expect(stat(path, &after) == 0)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text, "the user's comment stays")
        #expect(after.st_ino == before.st_ino, "not replaced by a copy")
        let missing = folder.appendingPathComponent("new/words.txt").path
        try WordsFile.change(missing) { _ in false }
        #expect(!FileManager.default.fileExists(atPath: missing), "nothing to keep: no file made")
    }
}

/// The user's files are read only when they are regular files: anything else is refused at
/// once, never waited on.
@Suite("Reading the user's files")
struct UserFileKindTests {
    @Test func aDeviceIsNotReadAsTheLearnedWordsOrTheSettings() throws {
        do {
            _ = try WordsFile.loadUser("/dev/null")
            Issue.record("/dev/null was read as the learned words")
        } catch {
            #expect(error.description == "Error: word list '/dev/null' is a character device, not a regular file; it was not read. Put a regular file there.")
        }
        #expect(throws: FileReadError.self) { try readFile("/dev/zero", what: "settings file", limit: 1 << 20) }
        // A file named to be read as it comes is read as it comes.
        #expect(try readFile("/dev/null", what: "events file", limit: 1 << 20, streams: true) == [])
    }

    @Test func aFIFOIsRefusedWithoutWaitingForAWriter() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("90-local.json").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let listed = try #require(readFolder(folder.path, suffix: ".json", what: "device profile", limit: 1 << 20))
        #expect(listed.count == 1)
        guard case .failure(let error) = listed.first?.contents else { Issue.record("the FIFO was read"); return }
        #expect(error.description == "Error: device profile '\(fifo)' is a FIFO (a named pipe), not a regular file; it was not read. Put a regular file there.")
        // The learned words as `run`'s keyboard reads them, and a word list.
        #expect(throws: FileReadError.self) { try WordsFile.loadUser(fifo) }
        #expect(throws: FileReadError.self) { try WordsFile.load(fifo) }
    }
}

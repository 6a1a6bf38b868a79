import Foundation
@testable import ScanFormats
import Testing

/// The user's files (settings, learned words) are changed in turn, never lost, never
/// written through something placed beside them, and keep their link and permissions.
@Suite("The user's files")
struct UserFileTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("userfile-\(UUID().uuidString)").path

    init() throws { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }

    func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "<none>" }

    @Test func writersTakeTurnsAndNoChangeIsLost() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/list.txt"
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 40) { i in
            do {
                try UserFile.update(path, what: "list", mode: 0o644) { current in (current ?? []) + Array("\(i)\n".utf8) }
            } catch {
                failures.add("\(error)")
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all)")
        let lines = read(path).split(separator: "\n").compactMap { Int($0) }
        #expect(lines.sorted() == Array(0..<40), "every writer's line is there: \(lines)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["list.txt"], "no copy left beside it")
    }

    @Test func settingsSetBySeveralWritersAreAllKept() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/switchscan/settings.json"
        let keys = ["autoScanInterval", "pauseOnFirstItem", "moveRepeat", "holdDuration", "ignoreRepeat", "longPress",
                    "autoTapTime", "stepSelectDelay", "reactionTime"]
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: keys.count) { i in
            do { try SettingsFile.set(keys[i], to: "1", in: path) } catch { failures.add("\(error)") }
        }
        #expect(failures.all.isEmpty, "\(failures.all)")
        _ = try SettingsLoader.load(bytes: Array(read(path).utf8), file: path)
        for key in keys { #expect(read(path).contains("\"\(key)\": 1"), "\(key) kept") }
    }

    @Test func aSymbolicLinkIsWrittenThroughAndKept() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/dotfiles", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/config", withIntermediateDirectories: true)
        try "{\"loops\": 2}\n".write(toFile: folder + "/dotfiles/settings.json", atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: folder + "/config/settings.json", withDestinationPath: "../dotfiles/settings.json")
        try SettingsFile.set("loops", to: "3", in: folder + "/config/settings.json")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder + "/config/settings.json") == "../dotfiles/settings.json")
        #expect(read(folder + "/dotfiles/settings.json").contains("\"loops\": 3"))
        // A link to a file not made yet: the file is made where it points.
        try FileManager.default.createSymbolicLink(atPath: folder + "/config/words.txt", withDestinationPath: folder + "/dotfiles/words.txt")
        try WordsFile.change(folder + "/config/words.txt") { $0.add("hello", count: 2) }
        #expect(read(folder + "/dotfiles/words.txt").hasSuffix("\n2 hello\n"))
        // A loop is refused, with the path.
        try FileManager.default.createSymbolicLink(atPath: folder + "/config/a", withDestinationPath: "b")
        try FileManager.default.createSymbolicLink(atPath: folder + "/config/b", withDestinationPath: "a")
        #expect(throws: FileReadError.self) { try SettingsFile.set("loops", to: "3", in: folder + "/config/a") }
    }

    @Test func theFilesPermissionsAreKept() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/settings.json"
        try "{}\n".write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o600)
        try SettingsFile.set("loops", to: "3", in: path)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        chmod(path, 0o640)
        try SettingsFile.set("loops", to: "4", in: path)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o640)
    }

    @Test func aReadOnlyFileIsRefusedAndLeftAsItIs() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/settings.json"
        try "{\"loops\": 2}\n".write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o444)
        do {
            try SettingsFile.set("loops", to: "3", in: path)
            Issue.record("a read-only file was changed")
        } catch {
            #expect(error.description == "Error: settings file \(path) is read-only; it was left unchanged. Make it writable (chmod u+w) to let SwitchScan change it.")
        }
        #expect(read(path) == "{\"loops\": 2}\n")
    }

    @Test func aFifoIsRefusedWithoutWaitingOnIt() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/settings.json"
        #expect(mkfifo(path, 0o644) == 0)
        do {
            try SettingsFile.set("loops", to: "3", in: path)
            Issue.record("a FIFO was written")
        } catch {
            #expect(error.description == "Error: settings file \(path) is a FIFO (a named pipe), not a regular file; it was left as it is. Put a regular file there.", "\(error)")
        }
    }

    /// Whatever sits at the name a new file would take (a link to another file, placed there
    /// to have that file overwritten) is passed over, never written through.
    @Test func somethingPlacedWhereTheCopyGoesIsNotWrittenThrough() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let victim = folder + "/victim.txt"
        try "precious\n".write(toFile: victim, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: folder + "/.planted", withDestinationPath: victim)
        var names = [".planted", ".fresh"]
        try UserFile.replace(folder + "/settings.json", shownAs: "settings.json", with: Array("{}\n".utf8), mode: 0o644, keepMode: false,
                             names: { names.removeFirst() })
        #expect(read(victim) == "precious\n")
        #expect(read(folder + "/settings.json") == "{}\n")
        var st = stat()
        #expect(lstat(folder + "/settings.json", &st) == 0 && st.st_mode & S_IFMT == S_IFREG, "the file itself, not a link")
    }

    @Test func aWriterThatDoesNotLetGoIsReportedNotWaitedForEver() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let holder = open(folder, O_RDONLY | O_DIRECTORY)
        defer { close(holder) }
        #expect(flock(holder, LOCK_EX) == 0)
        do {
            try UserFile.update(folder + "/settings.json", what: "settings file", mode: 0o644, waitSeconds: 0) { _ in [] }
            Issue.record("written while another writer held its turn")
        } catch {
            #expect(error.description == "Error: cannot change \(folder)/settings.json: another program has been changing it for 0 s; it was left unchanged. Try again.")
        }
        #expect(!FileManager.default.fileExists(atPath: folder + "/settings.json"))
    }
}

final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ s: String) { lock.lock(); list.append(s); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return list }
}

import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A FIFO (or anything but a regular file) at a path of the user's — the learned words, a
/// word list, the settings file, a device profile — is refused at once with a message that
/// names it; nothing waits for a writer that never comes.
@Suite("FIFOs at the user's paths")
struct SpecialFilesTests {
    /// A home whose config and data folders hold what the test puts there.
    struct Home {
        let dir: TempDir
        var home: String { dir.url.path + "/home" }
        var words: String { home + "/.local/share/switchscan/words.txt" }
        var settings: String { home + "/.config/switchscan/settings.json" }
        var localProfile: String { home + "/.config/switchscan/devices/90-local.json" }
        var environment: [String: String] { ["HOME": home, "PATH": "/usr/bin:/bin"] }

        init() throws { dir = try TempDir() }

        @discardableResult
        func fifo(_ path: String) throws -> String {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            #expect(mkfifo(path, 0o600) == 0)
            return path
        }
    }

    static func refusal(_ what: String, _ path: String) -> String {
        "Error: \(what) '\(path)' is a FIFO (a named pipe), not a regular file; it was not read. Put a regular file there.\n"
    }

    @Test func learnedWordsThatAreAFIFO() throws {
        let h = try Home()
        defer { h.dir.remove() }
        try h.fifo(h.words)
        for command in [["words", "list"], ["words", "forget", "teh"]] {
            let r = try CLI.run(command, timeout: 5, environment: h.environment)
            #expect(r.status == 2 && r.stdout.isEmpty, "\(command): \(r)")
            #expect(r.stderr == Self.refusal("word list", h.words), "\(command): \(r)")
        }
        let given = try CLI.run(["words", "list", "--file", h.words], timeout: 5, environment: h.environment)
        #expect(given.status == 2 && given.stderr == Self.refusal("word list", h.words), "\(given)")
        // A folder keeps its own message.
        let folder = h.dir.url.path + "/folder"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let dir = try CLI.run(["words", "list", "--file", folder], timeout: 5)
        #expect(dir.status == 2 && dir.stderr == "Error: word list '\(folder)' is a directory; give a file in it.\n", "\(dir)")
    }

    @Test func aWordListThatIsAFIFO() throws {
        let h = try Home()
        defer { h.dir.remove() }
        let list = try h.fifo(h.dir.url.path + "/list.words")
        for command in [["cost", "--text", "hello", "--words", list], ["simulate", "--keyboard", "--words", list]] {
            let r = try CLI.run(command, timeout: 5, environment: h.environment)
            #expect(r.status == 2 && r.stdout.isEmpty, "\(command): \(r)")
            #expect(r.stderr == Self.refusal("word list", list), "\(command): \(r)")
        }
    }

    @Test func aSettingsFileThatIsAFIFO() throws {
        let h = try Home()
        defer { h.dir.remove() }
        try h.fifo(h.settings)
        let run = try CLI.run(["run", "--no-devices", "--output", "json", "--duration", "1", "--no-terminal-keys"], timeout: 5, environment: h.environment)
        #expect(run.status == 2 && run.stdout.isEmpty, "\(run)")
        #expect(run.stderr == Self.refusal("settings file", h.settings), "\(run)")
        for command in [["settings", "show"], ["cost", "Layouts/mail-inbox.json", "--settings", h.settings],
                        ["simulate", "Layouts/mail-inbox.json", "--settings", h.settings]] {
            let r = try CLI.run(command, timeout: 5, environment: h.environment)
            #expect(r.status == 2 && r.stdout.isEmpty, "\(command): \(r)")
            #expect(r.stderr == Self.refusal("settings file", h.settings), "\(command): \(r)")
        }
    }

    @Test func aLocalProfileThatIsAFIFO() throws {
        let h = try Home()
        defer { h.dir.remove() }
        try h.fifo(h.localProfile)
        let run = try CLI.run(["run", "--output", "json", "--duration", "1", "--no-terminal-keys"], timeout: 5, environment: h.environment)
        #expect(run.status == 2 && run.stdout.isEmpty, "\(run)")
        #expect(run.stderr.contains(Self.refusal("device profile", h.localProfile).dropLast()), "\(run)")
        let list = try CLI.run(["setup", "--list"], timeout: 5, environment: h.environment)
        #expect(list.status == 2 && list.stdout.isEmpty, "\(list)")
        #expect(list.stderr == Self.refusal("device profile", h.localProfile), "\(list)")
        let reset = try CLI.run(["setup", "--reset"], timeout: 5, environment: h.environment)
        #expect(reset.status == 2 && reset.stdout.isEmpty, "\(reset)")
        #expect(reset.stderr == "Error: device profile \(h.localProfile) is a FIFO (a named pipe), not a regular file; it was left as it is. Put a regular file there.\n", "\(reset)")
        var kind = stat()
        #expect(lstat(h.localProfile, &kind) == 0 && kind.st_mode & S_IFMT == S_IFIFO, "left as it is")
    }
}

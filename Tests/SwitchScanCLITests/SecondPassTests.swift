import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a second adversarial pass found: Ctrl-\ while a command waits, a newline or a bidi
/// override in a settings file's key, seconds written in hex, and counts in the singular.
@Suite("Hostile input, second pass")
struct SecondPassTests {
    /// Ctrl-\ (SIGQUIT) ends a command waiting on a FIFO at once, dying of it, with no
    /// backtrace and nothing waiting at the terminal.
    @Test func sigquitEndsACommandThatWaits() throws {
        try withTempDir { dir in
            let fifo = dir.url.appendingPathComponent("events.fifo").path
            #expect(mkfifo(fifo, 0o600) == 0)
            let (binary, arguments) = try CLI.command(["simulate", "Layouts/mail-inbox.json", "--events", fifo])
            let p = Process()
            p.executableURL = binary
            p.arguments = arguments
            p.currentDirectoryURL = CLI.packageRoot
            let err = Pipe()
            p.standardError = err
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            // Sent once it waits in open() for a writer, as the kernel shows its threads.
            #expect(Self.waitsInOpen(p.processIdentifier, timeout: 20), "it never waited to open the FIFO")
            let sent = Date()
            kill(p.processIdentifier, SIGQUIT)
            p.waitUntilExit()
            let took = Date().timeIntervalSince(sent)
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(p.terminationReason == .uncaughtSignal && p.terminationStatus == SIGQUIT, "\(p.terminationReason) \(p.terminationStatus): \(stderr)")
            #expect(took < 1, "ended after \(took) s")
            #expect(!stderr.contains("crashed"), "\(stderr)")
        }
    }

    /// Whether a thread of `pid` waits for the other end of a FIFO it opens (the kernel's
    /// `wait_for_partner`; where the kernel hides that, asleep in `openat`), polled from
    /// /proc until `timeout` seconds have passed.
    static func waitsInOpen(_ pid: Int32, timeout: Double) -> Bool {
        #if arch(arm64)
        let openat = "56 "
        #else
        let openat = "257 "
        #endif
        func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            for t in tasks {
                let dir = "/proc/\(pid)/task/\(t)"
                let wchan = read(dir + "/wchan")
                if wchan == "wait_for_partner" { return true }
                if wchan == "0" || wchan.isEmpty, read(dir + "/syscall").hasPrefix(openat),
                   read(dir + "/stat").split(separator: ")").last?.split(separator: " ").first == "S" { return true }
            }
            usleep(2_000)
        }
        return false
    }

    /// A newline in a key cannot forge a line of the messages: every finding is one line.
    @Test func aNewlineInAKeyStaysInItsMessage() throws {
        try withTempDir { dir in
            let file = try dir.write("nl.json", "{\"loops\\nforged.json:1:1: all good, 0 errors\": 1}")
            let r = try CLI.run(["settings", "show", "--file", file])
            #expect(r.status == 2, "\(r)")
            #expect(!r.stderr.split(separator: "\n").contains { $0.hasPrefix("forged.json") }, "\(r.stderr)")
            #expect(r.stderr.contains("loops␊forged.json"), "\(r.stderr)")
        }
    }

    /// `settings show` prints characters that could drive the terminal as JSON escapes: the
    /// same settings, safe to show.
    @Test func settingsShowEscapesWhatCouldDriveTheTerminal() throws {
        try withTempDir { dir in
            let file = try dir.write("w.json", "{\"weights\": {\"a\u{202E}b\u{2028}c\u{7F}d\u{9B}e\": 1}}\n")
            let r = try CLI.run(["settings", "show", "--file", file])
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout == "{\"weights\": {\"a\\u202Eb\\u2028c\\u007Fd\\u009Be\": 1}}\n", "\(r.stdout)")
            let shown = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: [String: Int]]
            #expect(shown?["weights"]?.keys.first == "a\u{202E}b\u{2028}c\u{7F}d\u{9B}e", "the same settings")
        }
    }

    @Test(arguments: ["0x3", "1e0", "inf", "0X1p1"])
    func runDurationIsSecondsAsAPersonWritesThem(_ value: String) throws {
        let r = try CLI.run(["run", "--layout", "Layouts/mail-inbox.json", "--no-devices", "--duration", value])
        #expect(r.status == 64, "\(r)")
        #expect(r.stderr.contains("--duration takes seconds between 0 and 86400"), "\(r.stderr)")
    }

    @Test func validateCountsInTheSingular() throws {
        let r = try CLI.run(["validate", "Layouts/custom-actions.json"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("2 nodes, 1 top-level item)"), "\(r.stdout)")
    }
}

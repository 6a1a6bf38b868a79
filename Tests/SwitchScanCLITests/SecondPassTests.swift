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
            // Sent once it has the FIFO open and waits for events on it: the writer's open
            // returns when the reader's does.
            let opened = DispatchSemaphore(value: 0)
            let writer = Descriptor()
            Thread.detachNewThread {
                writer.set(open(fifo, O_WRONLY | O_CLOEXEC))
                opened.signal()
            }
            #expect(opened.wait(timeout: .now() + 20) == .success, "it never opened the FIFO")
            defer { writer.close() }
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

/// A descriptor set on one thread and closed on another.
private final class Descriptor: @unchecked Sendable {
    private let lock = NSLock()
    private var fd: Int32 = -1
    func set(_ d: Int32) { lock.withLock { fd = d } }
    func close() { lock.withLock { if fd >= 0 { _ = Glibc.close(fd); fd = -1 } } }
}

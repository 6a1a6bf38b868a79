import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `switchscan run` in a real pseudo-terminal: whichever way the run ends, the terminal is
/// left as it was (main screen, cursor shown, line editing and echo back on).
@Suite("switchscan run in a terminal", .serialized)
struct TerminalRestoreTests {
    enum Ending: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// SIGTERM the moment the screen is taken: the earliest point the terminal differs.
        case sigtermAtOnce
        case sigquitWhileScanning
        case sighupWhileScanning
        case quitKey
        var testDescription: String { rawValue }
    }

    @Test("the terminal is restored", arguments: Ending.allCases)
    func restored(_ ending: Ending) throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let before = try pty.modes()
        let process = Process()
        process.executableURL = try #require(CLI.binary)
        // Devices are looked for in one case, so that its message is seen after the restore.
        process.arguments = ["run", "--rt-priority", "0", "--no-mlock", "--allow-deep-idle", "--duration", "20"]
            + (ending == .quitKey ? [] : ["--no-devices"])
        // Elsewhere than the checkout: Ctrl-\ may leave a core file where it runs.
        let scratch = try TempDir()
        defer { scratch.remove() }
        process.currentDirectoryURL = scratch.url
        let slave = FileHandle(fileDescriptor: pty.slave, closeOnDealloc: false)
        process.standardInput = slave
        process.standardOutput = slave
        process.standardError = slave
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        try process.run()

        let takeScreen = "\u{1B}[?1049h"
        switch ending {
        case .sigtermAtOnce:
            #expect(pty.waitFor(takeScreen), "the screen was never taken: \(pty.output)")
            kill(process.processIdentifier, SIGTERM)
        case .sigquitWhileScanning, .sighupWhileScanning:
            // The first frame shows the first item's label.
            #expect(pty.waitFor("Test_1"), "nothing was drawn: \(pty.output)")
            kill(process.processIdentifier, ending == .sigquitWhileScanning ? SIGQUIT : SIGHUP)
        case .quitKey:
            #expect(pty.waitFor("Test_1"), "nothing was drawn: \(pty.output)")
            pty.type("q")
        }
        if finished.wait(timeout: .now() + 15) == .timedOut {
            process.terminate()
            Issue.record("switchscan did not end after \(ending)")
            return
        }
        // After cleaning up, a run ended by a signal dies of it, as the shell expects.
        let (reason, status): (Process.TerminationReason, Int32) = switch ending {
        case .sigtermAtOnce: (.uncaughtSignal, SIGTERM)
        case .sigquitWhileScanning: (.uncaughtSignal, SIGQUIT)
        case .sighupWhileScanning: (.uncaughtSignal, SIGHUP)
        case .quitKey: (.exit, 0)
        }
        #expect(process.terminationReason == reason)
        #expect(process.terminationStatus == status)
        #expect(try pty.modes() == before, "line editing or echo were left off")
        let output = pty.drain()
        let taken = try #require(output.range(of: takeScreen, options: .backwards), "no screen taken: \(output)")
        let after = output[taken.upperBound...]
        #expect(after.contains("\u{1B}[?1049l"), "the main screen was not restored")
        #expect(after.contains("\u{1B}[?25h"), "the cursor was left hidden")
        if ending == .quitKey {
            // What the run said while the screen was drawn is repeated once it is gone.
            let restored = try #require(after.range(of: "\u{1B}[?1049l"))
            let rest = after[restored.upperBound...]
            #expect(rest.contains("No switch device found") || rest.contains("Using /dev/input/"), "\(rest)")
        }
    }
}

extension TerminalRestoreTests {
    /// With the scanner menu open on a key, the key and the menu are named by the key's
    /// label, never by its id.
    @Test func theMenuNamesTheKeyByItsLabel() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let process = Process()
        process.executableURL = try #require(CLI.binary)
        process.arguments = ["run", "--no-devices", "--rt-priority", "0", "--no-mlock", "--duration", "20",
                             "--layout", CLI.packageRoot.appendingPathComponent("Layouts/keyboard.json").path]
        let slave = FileHandle(fileDescriptor: pty.slave, closeOnDealloc: false)
        process.standardInput = slave
        process.standardOutput = slave
        process.standardError = slave
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        try process.run()
        #expect(pty.waitFor("item mode — Q"), "the first key was not highlighted: \(pty.output)")
        pty.type("m")
        let opened = pty.waitFor("Menu for Q:")
        pty.type("q")
        if finished.wait(timeout: .now() + 15) == .timedOut {
            process.terminate()
            Issue.record("switchscan did not end")
        }
        let output = pty.drain()
        #expect(opened, "the menu does not name the key: \(output)")
        #expect(output.contains("menu for Q"))
        #expect(!output.contains("key_"), "an id is shown")
    }
}

/// A pseudo-terminal pair; the test holds the master side and reads everything written.
/// Waits are on a condition signalled as bytes arrive, never on a clock.
final class PseudoTerminal: @unchecked Sendable {
    let master: Int32
    private(set) var slave: Int32
    private let changed = NSCondition()
    private var bytes: [UInt8] = []
    private var ended = false

    init() throws {
        // posix_openpt and friends are not visible to Swift; these are the ioctls they use
        // (TIOCSPTLCK, TIOCGPTN: Linux's asm-generic numbers).
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
            throw POSIXError(.ENODEV)
        }
        slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw POSIXError(.ENODEV) }
        var size = winsize(ws_row: 40, ws_col: 100, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(slave, UInt(TIOCSWINSZ), &size)
        // The master is drained all the time, so the child never blocks on a full terminal.
        // The read ends (EIO) once every slave descriptor is closed: the child's and ours.
        let fd = master
        let t = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                changed.lock()
                if n > 0 { bytes += buffer[0..<n] } else { ended = true }
                changed.broadcast()
                changed.unlock()
                if n <= 0 { break }
            }
        }
        t.start()
    }

    var output: String {
        changed.lock(); defer { changed.unlock() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Waits (up to 10 s) until the output contains `text` or the reader has ended.
    func waitFor(_ text: String) -> Bool {
        let deadline = Date() + 10
        changed.lock(); defer { changed.unlock() }
        while !String(decoding: bytes, as: UTF8.self).contains(text) {
            if ended || !changed.wait(until: deadline) { return false }
        }
        return true
    }

    func type(_ text: String) {
        _ = text.utf8CString.withUnsafeBufferPointer { write(master, $0.baseAddress, text.utf8.count) }
    }

    /// Everything a child that has exited wrote: our side of the slave is closed, and the
    /// reader has read up to the end.
    func drain() -> String {
        closeSlave()
        waitForEnd()
        return output
    }

    /// Closes both sides, once the reader has left (so that no other test's new descriptor
    /// with the same number is read from).
    func close() {
        closeSlave()
        waitForEnd()
        Glibc.close(master)
    }

    private func closeSlave() {
        if slave >= 0 { Glibc.close(slave); slave = -1 }
    }

    private func waitForEnd() {
        let deadline = Date() + 10
        changed.lock(); defer { changed.unlock() }
        while !ended && changed.wait(until: deadline) {}
    }

    /// The modes a run changes: canonical input and echo.
    func modes() throws -> [Bool] {
        var t = termios()
        guard tcgetattr(slave, &t) == 0 else { throw POSIXError(.ENOTTY) }
        return [t.c_lflag & tcflag_t(ICANON) != 0, t.c_lflag & tcflag_t(ECHO) != 0]
    }
}

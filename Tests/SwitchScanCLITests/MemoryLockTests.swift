import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `run` locks its memory (so that a page fault never delays a highlight) as it uses it:
/// locking costs no more memory than the run touches, not every library and reservation it
/// maps. Needs the right to lock memory: root (as in CI), CAP_IPC_LOCK, or an unlimited
/// memlock limit.
@Suite("Locked memory", .serialized)
struct MemoryLockTests {
    struct Figures {
        /// /proc/PID/status, in KiB.
        var resident: Int
        var lockedVirtual: Int
        /// The locked pages that are resident (/proc/PID/smaps_rollup "Locked"), in KiB.
        var lockedResident: Int
        var stderr: String
    }

    /// Starts `switchscan run ARGS…`, waits for its first highlight, and reads its memory.
    static func figures(_ extra: [String]) throws -> Figures {
        let binary = try #require(CLI.binary)
        let scratch = try TempDir()
        defer { scratch.remove() }
        let errPath = scratch.url.appendingPathComponent("stderr").path
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let p = Process()
        p.executableURL = binary
        p.arguments = ["run", "--layout", "Layouts/switch-control.uikit.json", "--output", "json", "--no-devices",
                       "--no-terminal-keys", "--duration", "30"] + extra
        p.currentDirectoryURL = CLI.packageRoot
        let out = Pipe()
        p.standardOutput = out
        p.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        try p.run()
        defer { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() }
        // The first highlight: the session has started, every thread with it.
        var seen: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let fd = out.fileHandleForReading.fileDescriptor
        while !String(decoding: seen, as: UTF8.self).contains("\"highlight\"") {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            try #require(poll(&pfd, 1, Int32(CLI.timeout * 1000)) == 1, "no highlight within \(CLI.timeout) s: \(seen)")
            let n = read(fd, &buffer, buffer.count)
            try #require(n > 0, "switchscan ended: \(String(decoding: seen, as: UTF8.self))")
            seen += buffer[0..<n]
        }
        func field(_ text: String, _ name: String) -> Int {
            let line = text.split(separator: "\n").first { $0.hasPrefix(name + ":") }
            return line.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true)[1]) } ?? -1
        }
        let status = try String(contentsOfFile: "/proc/\(p.processIdentifier)/status", encoding: .utf8)
        let rollup = try String(contentsOfFile: "/proc/\(p.processIdentifier)/smaps_rollup", encoding: .utf8)
        let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return Figures(resident: field(status, "VmRSS"), lockedVirtual: field(status, "VmLck"),
                       lockedResident: field(rollup, "Locked"), stderr: stderr)
    }

    @Test func lockingCostsNoMoreMemoryThanTheRunUses() throws {
        let locked = try Self.figures([])
        try #require(!locked.stderr.contains("mlockall"), "this test needs the right to lock memory (root, CAP_IPC_LOCK or an unlimited memlock limit): \(locked.stderr)")
        let unlocked = try Self.figures(["--no-mlock"])
        // Memory is locked…
        #expect(locked.lockedVirtual > 0 && locked.lockedResident > 0, "VmLck \(locked.lockedVirtual) KiB, locked and resident \(locked.lockedResident) KiB")
        #expect(unlocked.lockedVirtual == 0)
        // …as it is used: resident memory is what the run without locking holds, give or take
        // the real-time thread's stack, resident from the start, and what the two runs
        // allocated differently (16 MiB).
        #expect(locked.resident < unlocked.resident + 16 * 1024,
                "resident: \(locked.resident) KiB locked (VmLck \(locked.lockedVirtual) KiB), \(unlocked.resident) KiB not")
    }
}

import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed write is an error, not a trap: a full disk, a closed stream, a reader that went
/// away. Exit status 1 with a message where one can still be written; a closed pipe kills
/// the process with SIGPIPE, as it does any Unix tool, unless SIGPIPE is ignored.
@Suite("Output that cannot be written")
struct OutputFailureTests {
    enum Stream { case file(String), devFull, closed, brokenPipe }

    /// Runs switchscan with its standard output and error set up as asked, through
    /// `sh -c` so that a signal can be ignored from the start as `nohup`-style parents do
    /// (`shellPrefix`, e.g. "trap '' PIPE; "). Returns the status as a shell reports it
    /// (128 + signal) and what stderr received. `whileRunning` runs once it has started.
    static func run(_ arguments: [String], stdout: Stream, stderr: Stream, ignorePipe: Bool = false,
                    shellPrefix: String = "", sourceLocation: SourceLocation = #_sourceLocation,
                    whileRunning: () -> Void = {}) throws -> (status: Int32, stderr: String) {
        let (binary, arguments) = try CLI.command(arguments)
        let scratch = try TempDir()
        defer { scratch.remove() }
        let errPath = scratch.url.appendingPathComponent("stderr").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var pipeEnds: [Int32] = [-1, -1]
        func set(_ fd: Int32, _ stream: Stream) {
            switch stream {
            case .file(let path): posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            case .devFull: posix_spawn_file_actions_addopen(&actions, fd, "/dev/full", O_WRONLY, 0)
            case .closed: posix_spawn_file_actions_addclose(&actions, fd)
            case .brokenPipe:
                // A pipe whose reader is gone before the writer starts.
                _ = pipe(&pipeEnds)
                close(pipeEnds[0])
                posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], fd)
                posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
            }
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        set(1, stdout)
        set(2, { if case .file = stderr { return .file(errPath) } else { return stderr } }())
        // Nothing else of the test process's (other tests' pipes and sockets): the child's
        // descriptors are its own (last: after the pipe's dup2), as a shell would start it.
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }
        // In the package root, so that the bundled files resolve.
        let script = "cd \"$1\" || exit 99; shift; " + (ignorePipe ? "trap '' PIPE; " : "") + shellPrefix + "exec \"$0\" \"$@\""
        let argv = ["/bin/sh", "-c", script, binary.path, CLI.packageRoot.path] + arguments
        var cArgs = argv.map { strdup($0) } + [nil]
        defer { for p in cArgs { free(p) } }
        var pid: pid_t = 0
        // The test runner may block signals; the child starts with none blocked.
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attr, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for sig in [SIGPIPE, SIGHUP, SIGTERM, SIGINT] { sigaddset(&defaults, sig) }
        posix_spawnattr_setsigdefault(&attr, &defaults)
        // A group of its own, so that a run that does not end is killed whole (a pipeline in
        // `shellPrefix` has switchscan in a child of the shell).
        posix_spawnattr_setpgroup(&attr, 0)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let rc = posix_spawn(&pid, "/bin/sh", &actions, &attr, &cArgs, environ)
        if pipeEnds[1] >= 0 { close(pipeEnds[1]) }
        try #require(rc == 0, "posix_spawn: \(rc)")
        whileRunning()
        // A run that does not end is killed and recorded, never waited for without end.
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(CLI.timeout)
        while true {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid || (r < 0 && errno != EINTR) { break }
            if Date() > deadline {
                kill(-pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                Issue.record("switchscan \(arguments.joined(separator: " ")) did not end within \(CLI.timeout) s; killed", sourceLocation: sourceLocation)
                break
            }
            _ = poll(nil, 0, 10)
        }
        let signalled = status & 0x7F
        let code = signalled != 0 ? 128 + signalled : (status >> 8) & 0xFF
        let text = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return (code, text)
    }

    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    // glibc has it (2.34), but Swift's Glibc module does not declare it.
    static let addCloseFrom: AddCloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }

    static let simulate = ["simulate", "Layouts/switch-control.uikit.json", "--events", "Examples/uikit-demo.events"]

    @Test(arguments: [simulate, ["validate", "Layouts/mail-inbox.json"], ["devices"], ["--help"], ["switchscan-bench", "layout", "--sizes", "10", "--repeats", "1"]])
    func aFullDiskIsAnError(_ arguments: [String]) throws {
        let r = try Self.run(arguments, stdout: .devFull, stderr: .file(""))
        #expect(r.status == 1, "\(arguments): \(r)")
        #expect(r.stderr.contains("cannot write to standard output: No space left on device"), "\(r.stderr)")
    }

    @Test func aClosedStandardOutputIsAnError() throws {
        let r = try Self.run(Self.simulate, stdout: .closed, stderr: .file(""))
        #expect(r.status == 1)
        #expect(r.stderr.contains("cannot write to standard output"))
    }

    @Test func aClosedStandardErrorNeverTraps() throws {
        // The bad file's errors cannot be shown: the status still says what happened.
        let bad = try Self.run(["validate", "Layouts/does-not-exist.json"], stdout: .file("/dev/null"), stderr: .closed)
        #expect(bad.status == 2)
        let good = try Self.run(["validate", "Layouts/mail-inbox.json"], stdout: .file("/dev/null"), stderr: .closed)
        #expect(good.status == 0)
        let full = try Self.run(Self.simulate, stdout: .devFull, stderr: .closed)
        #expect(full.status == 1)
    }

    @Test func aReaderThatWentAwayEndsTheProcessQuietly() throws {
        let killed = try Self.run(Self.simulate, stdout: .brokenPipe, stderr: .file(""))
        #expect(killed.status == 128 + SIGPIPE, "killed by SIGPIPE, as any Unix tool")
        #expect(killed.stderr.isEmpty)
        let ignored = try Self.run(Self.simulate, stdout: .brokenPipe, stderr: .file(""), ignorePipe: true)
        #expect(ignored.status == 1)
        #expect(ignored.stderr.contains("cannot write to standard output: Broken pipe"))
    }
}

import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Why a desktop test could not go on. The description is the whole story: what was
/// expected, what was seen so far, and (for a missing program) which Debian package has it.
struct DesktopError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }

    static func missing(_ path: String, package: String) -> DesktopError {
        DesktopError("\(path) is missing: install the Debian package '\(package)' (apt-get install -y --no-install-recommends \(package)). Desktop tests never skip.")
    }
}

/// A program the desktop tests run, and the Debian package that has it. Absolute paths:
/// `python3` on PATH may be a pyenv build without `gi`.
struct DesktopTool: Sendable {
    var path: String
    var package: String

    static let xvfb = DesktopTool(path: "/usr/bin/Xvfb", package: "xvfb")
    static let dbusDaemon = DesktopTool(path: "/usr/bin/dbus-daemon", package: "dbus-daemon")
    static let dbusSend = DesktopTool(path: "/usr/bin/dbus-send", package: "dbus-bin")
    static let atspiBusLauncher = DesktopTool(path: "/usr/libexec/at-spi-bus-launcher", package: "at-spi2-core")
    static let openbox = DesktopTool(path: "/usr/bin/openbox", package: "openbox")
    static let xprop = DesktopTool(path: "/usr/bin/xprop", package: "x11-utils")
    static let xwininfo = DesktopTool(path: "/usr/bin/xwininfo", package: "x11-utils")
    static let xdotool = DesktopTool(path: "/usr/bin/xdotool", package: "xdotool")
    static let importImage = DesktopTool(path: "/usr/bin/import", package: "imagemagick")
    static let convertImage = DesktopTool(path: "/usr/bin/convert", package: "imagemagick")
    static let python3 = DesktopTool(path: "/usr/bin/python3", package: "python3-gi")
    static let echo = DesktopTool(path: "/bin/echo", package: "coreutils")

    /// Throws (so the test fails, never skips) when the program is not installed.
    func require() throws {
        guard FileManager.default.isExecutableFile(atPath: path) else { throw DesktopError.missing(path, package: package) }
    }
}

/// Hints for the Python errors that mean a missing package.
func packageHints(forStderr text: String) -> String {
    var hints: [String] = []
    if text.contains("No module named 'gi'") { hints.append("install python3-gi (and run the script with /usr/bin/python3)") }
    if text.contains("Namespace Gtk not available") { hints.append("install gir1.2-gtk-3.0") }
    if text.contains("Namespace Atspi not available") { hints.append("install gir1.2-atspi-2.0") }
    if text.contains("Couldn't connect to accessibility bus") { hints.append("the accessibility bus is not reachable: is at-spi2-core installed?") }
    return hints.isEmpty ? "" : "\nHint: " + hints.joined(separator: "; ")
}

/// What a one-shot program printed and how it ended (a death by signal N is 128 + N).
struct ToolResult: Sendable, CustomStringConvertible {
    var command: [String]
    var status: Int32
    var stdout: String
    var stderr: String
    var timedOut: Bool

    var stdoutLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }

    var description: String {
        "\(command.map { $0.contains(" ") || $0.isEmpty ? "'\($0)'" : $0 }.joined(separator: " ")): exit status \(status)\(timedOut ? " (timed out)" : "")\n--- stdout ---\n\(stdout)--- stderr ---\n\(stderr)"
    }
}

/// A child process started with posix_spawn: in a process group of its own, with an empty
/// signal mask and default signal dispositions (the test runner's threads block signals,
/// and Foundation's Process passes that mask on, so a child would ignore SIGTERM), with
/// exactly the given environment, and no descriptors but 0, 1 and 2.
final class ChildProcess: @unchecked Sendable {
    let pid: pid_t
    let command: [String]
    private let lock = NSLock()
    private var status: Int32?

    /// `stdin`, `stdout`, `stderr`: descriptors to give the child as 0, 1, 2.
    init(_ path: String, _ arguments: [String], environment: [String: String], directory: URL? = nil,
         stdin: Int32, stdout: Int32, stderr: Int32) throws {
        command = [path] + arguments
        do {
            pid = try spawnChild(path, arguments, environment: environment, directory: directory, stdin: stdin, stdout: stdout, stderr: stderr)
        } catch {
            throw DesktopError(error.description)
        }
    }

    /// A child with a pipe on its stdout (and optionally on its stdin): the parent's ends.
    struct Piped {
        var process: ChildProcess
        var output: FileHandle
        var input: FileHandle?
    }

    static func startPiped(_ path: String, _ arguments: [String], environment: [String: String], directory: URL? = nil,
                           stdinPipe: Bool = false, stderr: FileHandle) throws -> Piped {
        let out = Pipe()
        let input = stdinPipe ? Pipe() : nil
        let null = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/null"))
        defer { try? null.close() }
        let process = try ChildProcess(path, arguments, environment: environment, directory: directory,
                                       stdin: input?.fileHandleForReading.fileDescriptor ?? null.fileDescriptor,
                                       stdout: out.fileHandleForWriting.fileDescriptor, stderr: stderr.fileDescriptor)
        // Only the child keeps these ends: the reader sees end-of-file when the child is gone.
        try? out.fileHandleForWriting.close()
        try? input?.fileHandleForReading.close()
        return Piped(process: process, output: out.fileHandleForReading, input: input?.fileHandleForWriting)
    }


    /// The exit status once it ended (128 + N after signal N), else nil. Reaps it.
    var exitStatus: Int32? {
        lock.lock()
        defer { lock.unlock() }
        if status == nil {
            var raw: Int32 = 0
            let r = waitpid(pid, &raw, WNOHANG)
            if r == pid {
                status = raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
            } else if r < 0 && errno == ECHILD {
                status = -1  // reaped elsewhere
            }
        }
        return status
    }

    var isRunning: Bool { exitStatus == nil }

    /// Waits up to `timeout` seconds for it to end; true if it did.
    @discardableResult
    func wait(timeout: Double) -> Bool {
        if !isRunning { return true }
        _ = Self.waitGone(pid, timeout: timeout * TestTime.scale)
        return !isRunning
    }

    typealias PidfdOpen = @convention(c) (pid_t, UInt32) -> Int32
    // glibc 2.36 has it; Swift's Glibc module does not declare it.
    static let pidfdOpen: PidfdOpen? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pidfd_open")
        .map { unsafeBitCast($0, to: PidfdOpen.self) }

    /// Blocks until process `pid` (a child or not) has ended, or `timeout` seconds passed:
    /// true if it is gone. Woken by the kernel through a pidfd, not by polling.
    static func waitGone(_ pid: pid_t, timeout: Double) -> Bool {
        guard let open = pidfdOpen else { return kill(pid, 0) != 0 && errno == ESRCH }
        let fd = open(pid, 0)
        guard fd >= 0 else { return errno == ESRCH }
        defer { close(fd) }
        let deadline = Date().addingTimeInterval(timeout)
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let left = Int32(max(0, min(Double(Int32.max), deadline.timeIntervalSinceNow * 1000)).rounded(.up))
            let r = poll(&p, 1, left)
            if r > 0 { return true }
            if r == 0 || errno != EINTR { return false }
        }
    }

    /// SIGTERM to each whole group, then SIGKILL to the groups after `grace` seconds.
    static func stop(_ processes: [ChildProcess], grace: Double = 2) {
        for p in processes where p.isRunning { kill(-p.pid, SIGTERM) }
        let deadline = Date().addingTimeInterval(grace)
        for p in processes { p.wait(timeout: max(0, deadline.timeIntervalSinceNow)) }
        for p in processes {
            // The group may outlive its leader (D-Bus-activated services), so kill it either way.
            kill(-p.pid, SIGKILL)
            p.wait(timeout: 1)
        }
    }

    /// Runs a program to its end with stdout and stderr in files (no pipe can fill up).
    static func run(
        _ path: String, _ arguments: [String], environment: [String: String], scratch: URL,
        directory: URL? = nil, stdin: String? = nil, timeout: Double = 10
    ) throws -> ToolResult {
        let id = UUID().uuidString.prefix(8)
        let outURL = scratch.appendingPathComponent("out-\(id)")
        let errURL = scratch.appendingPathComponent("err-\(id)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        let null = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/null"))
        defer { try? outHandle.close(); try? errHandle.close(); try? null.close() }
        let input = stdin.map { _ in Pipe() }
        let process = try ChildProcess(path, arguments, environment: environment, directory: directory,
                                       stdin: input?.fileHandleForReading.fileDescriptor ?? null.fileDescriptor,
                                       stdout: outHandle.fileDescriptor, stderr: errHandle.fileDescriptor)
        if let input, let stdin {
            try? input.fileHandleForReading.close()
            // From another thread, so that a child that does not read cannot block us.
            let writer = input.fileHandleForWriting
            let bytes = Data(stdin.utf8)
            DispatchQueue.global().async {
                try? writer.write(contentsOf: bytes)
                try? writer.close()
            }
        }
        var timedOut = false
        if !process.wait(timeout: timeout) {
            timedOut = true
            stop([process], grace: 1)
        }
        let out = String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self)
        let err = String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self)
        return ToolResult(command: [path] + arguments, status: process.exitStatus ?? -1, stdout: out, stderr: err, timedOut: timedOut)
    }
}

/// The lines a child prints on a pipe, collected by a thread of their own as they come.
/// Waits consume: each `waitForLine` looks only at lines after the previous match, so a
/// test that clicks the same button twice waits for two lines.
final class LineCollector: @unchecked Sendable {
    private let condition = NSCondition()
    private var collected: [String] = []
    /// When each line arrived (CLOCK_MONOTONIC, seconds), as read by the thread.
    private var arrivals: [Double] = []
    private var partial: [UInt8] = []
    private var cursor = 0
    private var ended = false
    private let handle: FileHandle

    init(reading handle: FileHandle) {
        self.handle = handle
        let thread = Thread { [self] in
            let fd = handle.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 8192)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                append(buffer[0..<n])
            }
            finish()
        }
        thread.name = "DesktopTests line reader"
        thread.start()
    }

    private func append(_ bytes: ArraySlice<UInt8>) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        condition.lock()
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                collected.append(String(decoding: partial, as: UTF8.self))
                arrivals.append(Double(now.tv_sec) + Double(now.tv_nsec) / 1e9)
                partial.removeAll(keepingCapacity: true)
            } else {
                partial.append(byte)
            }
        }
        condition.broadcast()
        condition.unlock()
    }

    private func finish() {
        condition.lock()
        if !partial.isEmpty {
            collected.append(String(decoding: partial, as: UTF8.self))
            arrivals.append(arrivals.last ?? 0)
        }
        partial.removeAll()
        ended = true
        condition.broadcast()
        condition.unlock()
        try? handle.close()
    }

    /// Every line so far (consumed or not).
    var lines: [String] {
        condition.lock()
        defer { condition.unlock() }
        return collected
    }

    /// When the last line equal to `line` arrived (CLOCK_MONOTONIC, seconds).
    func arrival(of line: String) -> Double? {
        condition.lock()
        defer { condition.unlock() }
        return collected.lastIndex(of: line).map { arrivals[$0] }
    }

    /// True once the writer closed the pipe (normally: the process ended).
    var isAtEnd: Bool {
        condition.lock()
        defer { condition.unlock() }
        return ended
    }

    /// Marks every line so far as consumed.
    func skipToEnd() {
        condition.lock()
        cursor = collected.count
        condition.unlock()
    }

    /// The first line after the previous match for which `predicate` holds; waits up to
    /// `timeout` seconds. On timeout, or when the pipe ends first, throws an error that
    /// shows every line seen and `context()` (the stderr of the process, typically).
    func waitForLine(
        _ what: String, timeout: Double, context: () -> String, where predicate: (String) -> Bool
    ) throws -> String {
        let deadline = Date().addingTimeInterval(timeout * TestTime.scale)
        condition.lock()
        let start = cursor
        while true {
            while cursor < collected.count {
                let line = collected[cursor]
                cursor += 1
                if predicate(line) {
                    condition.unlock()
                    return line
                }
            }
            if ended || !condition.wait(until: deadline) {
                // One last look: the line may have come with the wake-up.
                if !ended && cursor < collected.count { continue }
                let seen = collected
                let reason = ended ? "the output ended (the process exited or closed stdout)" : "timed out after \(timeout) s"
                condition.unlock()
                throw DesktopError(describeWait(what, reason: reason, lines: seen, from: start, context: context()))
            }
        }
    }

    /// Watches the output for `seconds`, as a person looks at the screen before pressing:
    /// returns then, and throws at once if the output ends first (the process is gone).
    /// Consumes nothing.
    func watch(for seconds: Double, context: () -> String) throws {
        guard seconds > 0 else { return }
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while !ended && Date() < deadline { _ = condition.wait(until: deadline) }
        if ended {
            throw DesktopError(describeWait("a press in \(seconds) s", reason: "the output ended (the process exited or closed stdout)",
                                            lines: collected, from: cursor, context: context()))
        }
    }

    /// Waits `duration` seconds and throws if a line after the previous match satisfies
    /// `predicate` in that time (for "nothing happens" checks). Consumes nothing.
    func expectNoLine(_ what: String, within duration: Double, context: () -> String, where predicate: (String) -> Bool) throws {
        let deadline = Date().addingTimeInterval(duration)
        condition.lock()
        defer { condition.unlock() }
        var checked = cursor
        while true {
            while checked < collected.count {
                if predicate(collected[checked]) {
                    throw DesktopError(describeWait("no \(what)", reason: "it came: \(collected[checked])", lines: collected, from: cursor, context: context()))
                }
                checked += 1
            }
            if ended || !condition.wait(until: deadline) { return }
        }
    }

    private func describeWait(_ what: String, reason: String, lines: [String], from start: Int, context: String) -> String {
        var text = "Waiting for \(what): \(reason).\n--- lines so far (\(lines.count); the wait looked from line \(start + 1)) ---\n"
        for (i, line) in lines.enumerated() { text += "\(i + 1 == start + 1 ? ">" : " ")\(i + 1): \(line)\n" }
        if !context.isEmpty { text += context.hasSuffix("\n") ? context : context + "\n" }
        return text
    }
}

/// A GTK fixture application started by `DesktopSession.launchFixture`. Its stdout (one line
/// per state change) is collected as it comes; stderr goes to a file.
final class FixtureProcess: @unchecked Sendable {
    let process: ChildProcess
    let stderrURL: URL
    let output: LineCollector
    /// The name it has on the AT-SPI desktop (its --app-name).
    let applicationName: String
    /// Its window title (its --title).
    let title: String

    init(process: ChildProcess, output: LineCollector, stderrURL: URL, applicationName: String, title: String) {
        self.process = process
        self.output = output
        self.stderrURL = stderrURL
        self.applicationName = applicationName
        self.title = title
    }

    var pid: Int32 { process.pid }
    var isRunning: Bool { process.isRunning }
    var lines: [String] { output.lines }
    var stderr: String { String(decoding: (try? Data(contentsOf: stderrURL)) ?? Data(), as: UTF8.self) }

    private func context() -> String {
        let err = stderr
        return "--- fixture stderr ---\n\(err)\(packageHints(forStderr: err))"
    }

    /// Waits for the line `expected` exactly (after the previous match); returns it.
    @discardableResult
    func waitForLine(matching expected: String, timeout: Double = 5) throws -> String {
        try output.waitForLine("fixture line \"\(expected)\"", timeout: timeout, context: context) { $0 == expected }
    }

    @discardableResult
    func waitForLine(timeout: Double = 5, where predicate: (String) -> Bool) throws -> String {
        try output.waitForLine("a fixture line", timeout: timeout, context: context, where: predicate)
    }

    func expectNoLine(matching unexpected: String, within duration: Double) throws {
        try output.expectNoLine("fixture line \"\(unexpected)\"", within: duration, context: context) { $0 == unexpected }
    }

    func skipToEnd() { output.skipToEnd() }

    /// SIGTERM (the fixture prints "terminated" and exits 0), then SIGKILL after `grace`.
    @discardableResult
    func terminate(grace: Double = 2) -> Int32 {
        ChildProcess.stop([process], grace: grace)
        return process.exitStatus ?? -1
    }
}

/// A long-running `switchscan` (e.g. `run --desktop`) with a pipe on its stdin, its stdout
/// lines collected as they come, and stderr in a file.
final class LiveProcess: @unchecked Sendable {
    let arguments: [String]
    let process: ChildProcess
    let output: LineCollector
    let stderrURL: URL
    private let input: FileHandle
    private let lock = NSLock()
    private var inputClosed = false

    init(arguments: [String], process: ChildProcess, input: FileHandle, output: LineCollector, stderrURL: URL) {
        self.arguments = arguments
        self.process = process
        self.input = input
        self.output = output
        self.stderrURL = stderrURL
    }

    var pid: Int32 { process.pid }
    var isRunning: Bool { process.isRunning }
    var lines: [String] { output.lines }
    var stderr: String { String(decoding: (try? Data(contentsOf: stderrURL)) ?? Data(), as: UTF8.self) }
    /// The exit status once it ended (128 + N for signal N), else nil.
    var exitStatus: Int32? { process.exitStatus }

    private func context() -> String {
        let status = exitStatus.map { "exited with status \($0)" } ?? "still running"
        return "--- switchscan \(arguments.joined(separator: " ")) (\(status)) stderr ---\n\(stderr)"
    }

    /// Writes `text` to its stdin (a key press, for `switchscan run`: " " selects).
    func send(_ text: String) throws {
        lock.lock()
        defer { lock.unlock() }
        guard !inputClosed else { throw DesktopError("send(\(text.debugDescription)): stdin is already closed\n\(context())") }
        do { try input.write(contentsOf: Data(text.utf8)) } catch {
            throw DesktopError("send(\(text.debugDescription)) failed: \(error)\n\(context())")
        }
    }

    /// Watches its output for `seconds` (a person reacting to what they see), failing at
    /// once if it ends first.
    func watch(for seconds: Double) throws {
        try output.watch(for: seconds, context: context)
    }

    /// Sends `text` (a press: " " selects) `seconds` from now, as a person reacting to what
    /// they see presses; fails at once if the process ends before.
    func press(_ text: String = " ", after seconds: Double) throws {
        try watch(for: seconds)
        try send(text)
    }

    /// Closes its stdin (end of input).
    func closeInput() {
        lock.lock()
        defer { lock.unlock() }
        guard !inputClosed else { return }
        inputClosed = true
        try? input.close()
    }

    /// The first stdout line after the previous match for which `predicate` holds.
    @discardableResult
    func waitForLine(_ what: String = "a switchscan line", timeout: Double = 5, where predicate: (String) -> Bool) throws -> String {
        try output.waitForLine(what, timeout: timeout, context: context, where: predicate)
    }

    /// The first stdout line (after the previous match) that contains `fragment`.
    @discardableResult
    func waitForLine(containing fragment: String, timeout: Double = 5) throws -> String {
        try output.waitForLine("a switchscan line containing \(fragment)", timeout: timeout, context: context) { $0.contains(fragment) }
    }

    func expectNoLine(_ what: String, within duration: Double, where predicate: (String) -> Bool) throws {
        try output.expectNoLine(what, within: duration, context: context, where: predicate)
    }

    func skipToEnd() { output.skipToEnd() }

    /// Waits for it to end by itself; returns the exit status.
    func waitForExit(timeout: Double = 5) throws -> Int32 {
        guard process.wait(timeout: timeout) else {
            throw DesktopError("switchscan did not exit within \(timeout) s\n--- stdout ---\n\(lines.joined(separator: "\n"))\n\(context())")
        }
        return process.exitStatus ?? -1
    }

    /// SIGTERM to its process group, SIGKILL after `grace`; returns the exit status.
    @discardableResult
    func terminate(grace: Double = 3) -> Int32 {
        closeInput()
        ChildProcess.stop([process], grace: grace)
        return process.exitStatus ?? -1
    }
}


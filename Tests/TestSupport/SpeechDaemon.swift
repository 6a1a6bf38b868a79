import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

public struct SpeechTestError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A file the tests need, and the Debian package that has it. Missing means failed, never skipped.
public struct SpeechRequirement: Sendable {
    public var path: String
    public var package: String

    public static let daemon = SpeechRequirement(path: "/usr/bin/speech-dispatcher", package: "speech-dispatcher")
    public static let generic = SpeechRequirement(path: "/usr/lib/speech-dispatcher-modules/sd_generic", package: "speech-dispatcher")
    public static let espeak = SpeechRequirement(path: "/usr/lib/speech-dispatcher-modules/sd_espeak-ng", package: "speech-dispatcher-espeak-ng")
    public static let espeakConf = SpeechRequirement(path: "/etc/speech-dispatcher/modules/espeak-ng.conf", package: "speech-dispatcher-espeak-ng")
    public static let soundIcons = SpeechRequirement(path: "/usr/share/sounds/sound-icons/percussion-10.wav", package: "sound-icons")
    public static let say = SpeechRequirement(path: "/usr/bin/spd-say", package: "speech-dispatcher")

    public func require() throws {
        guard access(path, R_OK) == 0 else {
            throw SpeechTestError("\(path) is missing: install the Debian package '\(package)' (apt-get install -y --no-install-recommends \(package)). Speech tests never skip.")
        }
    }
}

/// A private speech-dispatcher: its own configuration, socket and runtime directory in a
/// temporary directory, its log read from its stdout; audio to an ALSA `file:` sink (there
/// is no sound card); one output module. The test modules write what they are given to
/// `spoken.txt`:
/// - `textlog`: each text as a line;
/// - `slowlog`: `start TEXT`, half a second, `end TEXT` (a cancelled message has no end);
/// - `paramlog`: `rate=R volume=V TEXT`.
/// The generic module plays a sound icon with the audio output's play command (`aplay`);
/// a stand-in `aplay` first on the daemon's PATH logs `icon NAME` to the same file.
public final class SpeechDaemon {
    public enum Module: String { case textlog, slowlog, paramlog, otherlog, espeak = "espeak-ng" }

    public let directory: String
    public let socket: String
    public let pid: pid_t
    public let spokenFile: String
    public let audioFile: String
    private let output: DaemonOutput
    /// Everything it logged so far (its modules' messages too).
    public var log: String { output.text }

    /// `settings`: more speechd.conf lines (DefaultRate, DefaultVolume, …).
    /// `also`: modules loaded beside `module` (the default), for a client that names one.
    public init(module: Module, also: [Module] = [], logLevel: Int = 3, settings: [String] = []) throws {
        try SpeechRequirement.daemon.require()
        try (module == .espeak ? [SpeechRequirement.espeak, .espeakConf] : [SpeechRequirement.generic]).forEach { try $0.require() }
        var template = Array("/tmp/speechtest.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw SpeechTestError("mkdtemp: \(String(cString: strerror(errno)))") }
        directory = String(cString: made)
        socket = directory + "/speechd.sock"
        spokenFile = directory + "/spoken.txt"
        audioFile = directory + "/out.raw"
        let fm = FileManager.default
        for sub in ["conf/modules", "bin"] {
            try fm.createDirectory(atPath: directory + "/" + sub, withIntermediateDirectories: true)
        }
        // The runtime directory must be private (0700), as speech-dispatcher checks.
        try fm.createDirectory(atPath: directory + "/xdg", withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])

        let spoken = spokenFile
        let modules: [Module: (binary: String, conf: String)] = [
            .textlog: ("sd_generic", """
                GenericExecuteSynth "printf '%s\\\\n' \\'$DATA\\' >> \(spoken)"
                GenericLanguage "en" "en" "utf-8"
                AddVoice "en" "MALE1" "en"

                """),
            // sd_generic substitutes only the first $DATA: keep it in a shell variable.
            .slowlog: ("sd_generic", """
                GenericExecuteSynth "t=\\'$DATA\\'; printf 'start %s\\\\n' \\"$t\\" >> \(spoken); sleep 0.5; printf 'end %s\\\\n' \\"$t\\" >> \(spoken)"
                GenericLanguage "en" "en" "utf-8"
                AddVoice "en" "MALE1" "en"

                """),
            .paramlog: ("sd_generic", """
                GenericExecuteSynth "printf 'rate=%s volume=%s pitch=%s %s\\\\n' '$RATE' '$VOLUME' '$PITCH' \\'$DATA\\' >> \(spoken)"
                GenericLanguage "en" "en" "utf-8"
                AddVoice "en" "MALE1" "en"

                """),
            // Another module, for a voice that names its own; it logs its voice too.
            .otherlog: ("sd_generic", """
                GenericExecuteSynth "printf 'other voice=%s rate=%s %s\\\\n' '$VOICE' '$RATE' \\'$DATA\\' >> \(spoken)"
                GenericLanguage "en" "en" "utf-8"
                AddVoice "en" "MALE1" "en"
                AddVoice "en" "FEMALE1" "en-gb"

                """),
            .espeak: ("sd_espeak-ng", try String(contentsOfFile: SpeechRequirement.espeakConf.path, encoding: .utf8)),
        ]
        var added: [String] = []
        for m in [module] + also {
            let (binary, moduleConf) = modules[m]!
            let confName = m.rawValue + ".conf"
            try moduleConf.write(toFile: directory + "/conf/modules/" + confName, atomically: true, encoding: .utf8)
            added.append("AddModule \"\(m.rawValue)\" \"\(binary)\" \"\(confName)\"")
        }
        let conf = """
            LogDir "stdout"
            LogLevel \(logLevel)
            DefaultLanguage "en"
            AudioOutputMethod "alsa"
            AudioALSADevice "file:FILE=\(audioFile),FORMAT=raw"
            \(added.joined(separator: "\n"))
            DefaultModule \(module.rawValue)
            \(settings.joined(separator: "\n"))

            """
        try conf.write(toFile: directory + "/conf/speechd.conf", atomically: true, encoding: .utf8)
        let aplay = directory + "/bin/aplay"
        try "#!/bin/sh\nprintf 'icon %s\\n' \"$(basename \"$1\")\" >> \(spoken)\n".write(toFile: aplay, atomically: true, encoding: .utf8)
        chmod(aplay, 0o755)

        let environment = [
            "PATH": directory + "/bin:/usr/bin:/bin",
            "HOME": directory,
            "XDG_RUNTIME_DIR": directory + "/xdg",
            "XDG_CONFIG_HOME": directory + "/config",
            "LANG": "C.UTF-8",
        ]
        // Its log on a pipe: it says it waits for clients once the socket listens, and the
        // line waits in the pipe however late it is read.
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw SpeechTestError("pipe: \(String(cString: strerror(errno)))") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }  // no other test's child may hold them
        do {
            pid = try Self.spawn(SpeechRequirement.daemon.path,
                                 ["-s", "-t", "0", "-C", directory + "/conf", "-c", "unix_socket", "-S", socket],
                                 environment: environment, output: fds[1])
        } catch {
            close(fds[0]); close(fds[1])
            try? fm.removeItem(atPath: directory)
            throw error
        }
        close(fds[1])
        output = DaemonOutput(reading: fds[0])
        guard output.waitForLine(containing: "Speech Dispatcher started and waiting for clients", timeout: 10) else {
            let why = output.ended ? "it ended first" : "timed out after 10 s"
            stop()
            throw SpeechTestError("speech-dispatcher did not start listening on \(socket): \(why).\n--- its log ---\n\(output.text)")
        }
    }

    deinit { stop() }

    private var stopped = false

    /// Ends the server and its modules (its own process group), then removes the directory.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        kill(-pid, SIGTERM)
        if !Self.waitExit(pid, timeout: 2) { kill(-pid, SIGKILL) }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The lines written so far.
    public func spoken() -> [String] {
        guard let text = try? String(contentsOfFile: spokenFile, encoding: .utf8) else { return [] }
        return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// Waits (at most `timeout`) until `done` holds for the lines; returns them either way.
    /// Woken by inotify on each write to the directory, watched before the first look.
    @discardableResult
    public func waitForSpoken(timeout: TimeInterval = 5, until done: ([String]) -> Bool) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        let watch = inotify_init1(Int32(IN_CLOEXEC))
        guard watch >= 0, inotify_add_watch(watch, directory, UInt32(IN_CREATE | IN_MODIFY)) >= 0 else {
            Issue.record("Watching \(directory) with inotify: \(String(cString: strerror(errno)))")
            if watch >= 0 { close(watch) }
            return spoken()
        }
        defer { close(watch) }
        var lines = spoken()
        var events = [UInt8](repeating: 0, count: 4096)
        while !done(lines) {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { break }
            var pfd = pollfd(fd: watch, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, Int32((left * 1000).rounded(.up))) > 0 { _ = read(watch, &events, events.count) }
            lines = spoken()
        }
        return lines
    }

    typealias PidfdOpen = @convention(c) (pid_t, UInt32) -> Int32
    // glibc has both (2.34, 2.36), but Swift's Glibc module does not declare them.
    static let pidfdOpen: PidfdOpen? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pidfd_open")
        .map { unsafeBitCast($0, to: PidfdOpen.self) }

    /// Waits up to `timeout` seconds for the child `pid` to end, woken by its pidfd; true if
    /// it did (it is left to reap).
    static func waitExit(_ pid: pid_t, timeout: Double) -> Bool {
        guard let open = pidfdOpen else { return false }
        let fd = open(pid, 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let r = poll(&pfd, 1, Int32((max(0, deadline.timeIntervalSinceNow) * 1000).rounded(.up)))
            if r > 0 { return true }
            if r == 0 || errno != EINTR { return false }
        }
    }

    /// posix_spawn in a process group of its own, with an empty signal mask and default
    /// dispositions (the test runner's threads block signals; Foundation's Process would pass
    /// that mask on), exactly the given environment, stdout and stderr to `output`, and no
    /// other descriptor (a pipe of a test running beside it would never see its end).
    private static func spawn(_ path: String, _ arguments: [String], environment: [String: String], output: Int32) throws -> pid_t {
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        guard null >= 0 else { throw SpeechTestError("/dev/null: \(String(cString: strerror(errno)))") }
        defer { close(null) }
        do { return try spawnChild(path, arguments, environment: environment, stdin: null, stdout: output, stderr: output) } catch {
            throw SpeechTestError(error.description)
        }
    }
}

/// The daemon's stdout and stderr (its log, and its modules'), read by a thread of its own
/// as they come, so that the daemon never blocks on a full pipe.
final class DaemonOutput: @unchecked Sendable {
    private let condition = NSCondition()
    private var collected: [UInt8] = []
    private var finished = false

    init(reading fd: Int32) {
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 8192)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                condition.lock()
                collected += buffer[0..<n]
                condition.broadcast()
                condition.unlock()
            }
            close(fd)
            condition.lock()
            finished = true
            condition.broadcast()
            condition.unlock()
        }
        thread.name = "speech-dispatcher output"
        thread.start()
    }

    var text: String { condition.withLock { String(decoding: collected, as: UTF8.self) } }
    /// True once every writer closed the pipe (the daemon and its modules ended).
    var ended: Bool { condition.withLock { finished } }

    /// Waits up to `timeout` seconds for a whole line containing `fragment`.
    func waitForLine(containing fragment: String, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            let text = String(decoding: collected, as: UTF8.self)
            if text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().contains(where: { $0.contains(fragment) }) { return true }
            if finished || !condition.wait(until: deadline) { return false }
        }
    }
}

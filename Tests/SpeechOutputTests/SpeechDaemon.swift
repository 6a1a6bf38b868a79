import Foundation
import SpeechOutput

#if canImport(Glibc)
import Glibc
#endif

struct SpeechTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A file the tests need, and the Debian package that has it. Missing means failed, never skipped.
struct SpeechRequirement {
    var path: String
    var package: String

    static let daemon = SpeechRequirement(path: "/usr/bin/speech-dispatcher", package: "speech-dispatcher")
    static let generic = SpeechRequirement(path: "/usr/lib/speech-dispatcher-modules/sd_generic", package: "speech-dispatcher")
    static let espeak = SpeechRequirement(path: "/usr/lib/speech-dispatcher-modules/sd_espeak-ng", package: "speech-dispatcher-espeak-ng")
    static let espeakConf = SpeechRequirement(path: "/etc/speech-dispatcher/modules/espeak-ng.conf", package: "speech-dispatcher-espeak-ng")
    static let soundIcons = SpeechRequirement(path: "/usr/share/sounds/sound-icons/percussion-10.wav", package: "sound-icons")

    func require() throws {
        guard access(path, R_OK) == 0 else {
            throw SpeechTestError("\(path) is missing: install the Debian package '\(package)' (apt-get install -y --no-install-recommends \(package)). Speech tests never skip.")
        }
    }
}

/// A private speech-dispatcher: its own configuration,
/// socket, runtime directory and logs in a temporary directory; audio to an ALSA `file:`
/// sink (there is no sound card); one output module. The test modules write what they are
/// given to `spoken.txt`:
/// - `textlog`: each text as a line;
/// - `slowlog`: `start TEXT`, half a second, `end TEXT` (a cancelled message has no end);
/// - `paramlog`: `rate=R volume=V TEXT`.
/// The generic module plays a sound icon with the audio output's play command (`aplay`);
/// a stand-in `aplay` first on the daemon's PATH logs `icon NAME` to the same file.
final class SpeechDaemon {
    enum Module: String { case textlog, slowlog, paramlog, espeak = "espeak-ng" }

    let directory: String
    let socket: String
    let pid: pid_t
    var address: SpeechDispatcherAddress { .unixSocket(socket) }
    let spokenFile: String
    let audioFile: String
    var logFile: String { directory + "/log/speech-dispatcher.log" }

    /// `settings`: more speechd.conf lines (DefaultRate, DefaultVolume, …).
    init(module: Module, logLevel: Int = 3, settings: [String] = []) throws {
        try SpeechRequirement.daemon.require()
        try (module == .espeak ? [SpeechRequirement.espeak, .espeakConf] : [SpeechRequirement.generic]).forEach { try $0.require() }
        var template = Array("/tmp/speechtest.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw SpeechTestError("mkdtemp: \(String(cString: strerror(errno)))") }
        directory = String(cString: made)
        socket = directory + "/speechd.sock"
        spokenFile = directory + "/spoken.txt"
        audioFile = directory + "/out.raw"
        let fm = FileManager.default
        for sub in ["conf/modules", "log", "bin"] {
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
                GenericExecuteSynth "printf 'rate=%s volume=%s %s\\\\n' '$RATE' '$VOLUME' \\'$DATA\\' >> \(spoken)"
                GenericLanguage "en" "en" "utf-8"
                AddVoice "en" "MALE1" "en"

                """),
            .espeak: ("sd_espeak-ng", try String(contentsOfFile: SpeechRequirement.espeakConf.path, encoding: .utf8)),
        ]
        let (binary, moduleConf) = modules[module]!
        let confName = module.rawValue + ".conf"
        try moduleConf.write(toFile: directory + "/conf/modules/" + confName, atomically: true, encoding: .utf8)
        let conf = """
            LogDir "\(directory)/log"
            LogLevel \(logLevel)
            DefaultLanguage "en"
            AudioOutputMethod "alsa"
            AudioALSADevice "file:FILE=\(audioFile),FORMAT=raw"
            AddModule "\(module.rawValue)" "\(binary)" "\(confName)"
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
        pid = try Self.spawn(SpeechRequirement.daemon.path,
                             ["-s", "-t", "0", "-C", directory + "/conf", "-c", "unix_socket", "-S", socket],
                             environment: environment, output: directory + "/daemon.out")
        // The socket appears once the server listens (about 0.1–0.3 s).
        let deadline = Date().addingTimeInterval(10)
        while access(socket, F_OK) != 0 {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                let out = (try? String(contentsOfFile: directory + "/daemon.out", encoding: .utf8)) ?? ""
                throw SpeechTestError("speech-dispatcher ended at start (status \(status)):\n\(out)")
            }
            if Date() > deadline {
                stop()
                throw SpeechTestError("speech-dispatcher did not open \(socket) within 10 s")
            }
            usleep(10_000)
        }
    }

    deinit { stop() }

    private var stopped = false

    /// Ends the server and its modules (its own process group), then removes the directory.
    func stop() {
        guard !stopped else { return }
        stopped = true
        kill(-pid, SIGTERM)
        var status: Int32 = 0
        var waited = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if waited == 200 { kill(-pid, SIGKILL) }
            usleep(10_000)
            waited += 1
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The lines written so far.
    func spoken() -> [String] {
        guard let text = try? String(contentsOfFile: spokenFile, encoding: .utf8) else { return [] }
        return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// Waits (at most `timeout`) until `done` holds for the lines; returns them either way.
    @discardableResult
    func waitForSpoken(timeout: TimeInterval = 5, until done: ([String]) -> Bool) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var lines = spoken()
        while !done(lines) && Date() < deadline {
            usleep(5_000)
            lines = spoken()
        }
        return lines
    }

    /// posix_spawn in a process group of its own, with an empty signal mask and default
    /// dispositions (the test runner's threads block signals; Foundation's Process would pass
    /// that mask on), exactly the given environment, and output to a file.
    private static func spawn(_ path: String, _ arguments: [String], environment: [String: String], output: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        sigdelset(&all, SIGKILL)
        sigdelset(&all, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &all)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, path, &actions, &attributes, argv, envp)
        guard rc == 0 else { throw SpeechTestError("Starting \(path): \(String(cString: strerror(rc)))") }
        return child
    }
}

/// Collects values from other threads.
final class Collected<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    func append(_ item: T) { lock.withLock { items.append(item) } }
    var all: [T] { lock.withLock { items } }
}

import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// systemd's user manager for one desktop session, as a login starts it: `systemd --user`
/// with the session's HOME, XDG_CONFIG_HOME and XDG_RUNTIME_DIR (so `systemctl --user` and
/// `switchscan autostart` run in the session reach it), but without DISPLAY and the session
/// bus, which the login imports later (`importDisplay`).
///
/// systemd refuses to run a user manager on a machine it did not boot (no
/// /run/systemd/system); in a container running as root it starts in a mount namespace of
/// its own with a private /run/systemd. There:
/// - no journald runs: `Fixtures/journal.py` listens on journald's sockets, and `journal`
///   holds each unit's output as "UNIT: line" and the manager's own messages ("Start request
///   repeated too quickly.") as "systemd: MESSAGE (UNIT)";
/// - it runs in a cgroup of its own (one for each hierarchy mounted under /sys/fs/cgroup),
///   under which it makes its slices; `stop()` kills what is left there and removes them.
///
/// The session's own bus stays the session bus: the user manager's dbus.socket and
/// dbus.service are masked in the session's config (they would take $XDG_RUNTIME_DIR/bus).
/// Throws with the manager's messages when it cannot start: the test fails, it never skips.
final class UserManagerSession: @unchecked Sendable {
    static let systemd = DesktopTool(path: "/lib/systemd/systemd", package: "systemd")
    static let systemctl = DesktopTool(path: "/usr/bin/systemctl", package: "systemd")
    static let unshare = DesktopTool(path: "/usr/bin/unshare", package: "util-linux")
    static let journalScript = DesktopSession.fixturesDirectory.appendingPathComponent("journal.py")

    let session: DesktopSession
    let process: ChildProcess
    /// The units' output, "UNIT: line", and the manager's messages, "systemd: MESSAGE (UNIT)".
    let journal: URL
    private let cgroups: [String]
    private let scratch: URL
    private var stopped = false

    /// The unit folder of the session's user (`autostart enable` writes there too).
    var unitFolder: URL { URL(fileURLWithPath: session.environment["XDG_CONFIG_HOME"]!).appendingPathComponent("systemd/user") }

    init(session: DesktopSession) throws {
        for tool in [Self.systemd, Self.systemctl, Self.unshare, DesktopTool.python3] { try tool.require() }
        self.session = session
        let fm = FileManager.default
        let dir = session.directory.appendingPathComponent("user-manager")
        scratch = dir.appendingPathComponent("scratch")
        journal = dir.appendingPathComponent("journal.log")
        try fm.createDirectory(at: scratch, withIntermediateDirectories: true)
        _ = fm.createFile(atPath: journal.path, contents: nil)

        let units = URL(fileURLWithPath: session.environment["XDG_CONFIG_HOME"]!).appendingPathComponent("systemd/user")
        try fm.createDirectory(at: units, withIntermediateDirectories: true)
        for masked in ["dbus.socket", "dbus.service"] {
            try fm.createSymbolicLink(atPath: units.appendingPathComponent(masked).path, withDestinationPath: "/dev/null")
        }

        // A cgroup of its own in every hierarchy (cgroup v2 alone, or v1 and v2 side by side).
        let name = "switchscan-user-manager-\(getpid())-\(UUID().uuidString.prefix(8).lowercased())"
        let root = "/sys/fs/cgroup"
        var hierarchies: [String] = []
        if fm.fileExists(atPath: root + "/cgroup.procs") {
            hierarchies = [root]
        } else {
            for h in ["unified", "systemd"] where fm.fileExists(atPath: "\(root)/\(h)/cgroup.procs") { hierarchies.append("\(root)/\(h)") }
        }
        guard !hierarchies.isEmpty else { throw DesktopError("No cgroup hierarchy under \(root) to run systemd's user manager in.") }
        // What a test run that died left behind.
        for h in hierarchies {
            for entry in (try? fm.contentsOfDirectory(atPath: h)) ?? [] where entry.hasPrefix("switchscan-user-manager-") {
                if let owner = pid_t(entry.split(separator: "-")[3]), kill(owner, 0) != 0 && errno == ESRCH {
                    Self.removeCgroups([h + "/" + entry])
                }
            }
        }
        var made: [String] = []
        for h in hierarchies {
            let path = h + "/" + name
            guard mkdir(path, 0o755) == 0 else {
                let why = String(cString: strerror(errno))
                Self.removeCgroups(made)
                throw DesktopError("Cannot make the cgroup \(path) for systemd's user manager: \(why) (the user-manager tests run as root).")
            }
            made.append(path)
        }
        cgroups = made

        // Inside the namespace: into the cgroups, a private /run/systemd that says systemd
        // runs, the journal's sockets, then the manager itself.
        let script = """
            set -e
            for cg in $1; do echo $$ > "$cg/cgroup.procs"; done
            mkdir -p /run/systemd
            mount -t tmpfs tmpfs /run/systemd
            mkdir -p /run/systemd/system /run/systemd/journal
            "$2" "$3" /run/systemd/journal "$4" &
            while [ ! -S /run/systemd/journal/stdout ]; do sleep 0.02; done
            exec "$5" --user --log-target=journal
            """
        var env = session.environment
        env["DISPLAY"] = nil
        env["DBUS_SESSION_BUS_ADDRESS"] = nil
        let errURL = dir.appendingPathComponent("stderr.log")
        _ = fm.createFile(atPath: errURL.path, contents: nil)
        let err = try FileHandle(forWritingTo: errURL)
        defer { try? err.close() }
        let null = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/null"))
        defer { try? null.close() }
        do {
            process = try ChildProcess(Self.unshare.path,
                                       ["--mount", "--propagation", "private", "/bin/sh", "-c", script, "sh",
                                        made.joined(separator: " "), DesktopTool.python3.path,
                                        Self.journalScript.path, journal.path, Self.systemd.path],
                                       environment: env, stdin: null.fileDescriptor, stdout: err.fileDescriptor, stderr: err.fileDescriptor)
        } catch {
            Self.removeCgroups(made)
            throw error
        }

        // Up once it answers and has started its default target (`is-system-running` says
        // "offline" outside the namespace).
        var state = ""
        let up = TestTime.poll(timeout: 10, every: 0.05) {
            guard process.isRunning else { return true }
            if let answer = try? ChildProcess.run(Self.systemctl.path, ["--user", "show", "-p", "SystemState", "--value"], environment: session.environment,
                                                  scratch: scratch, timeout: 5) {
                state = answer.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            return state == "running" || state == "degraded"
        }
        if up && process.isRunning { return }
        let why = process.isRunning ? "it did not report running within 10 s (SystemState: \(state))"
            : "it exited with status \(process.exitStatus ?? -1)"
        let said = Self.read(errURL) + Self.read(journal)
        stop()
        throw DesktopError("""
            systemd's user manager did not start: \(why). It runs as root in a private mount namespace \
            (unshare --mount) with a private /run/systemd; a machine that allows neither cannot run these tests.
            \(said)
            """)
    }

    deinit { stop() }

    /// `systemctl --user ARGS…` in the session.
    @discardableResult
    func systemctl(_ arguments: [String], timeout: Double = 10) throws -> ToolResult {
        let result = try ChildProcess.run(Self.systemctl.path, ["--user"] + arguments, environment: session.environment,
                                          scratch: scratch, timeout: timeout)
        if result.timedOut { throw DesktopError("systemctl --user timed out.\n\(result)") }
        return result
    }

    /// Unit properties (`systemctl --user show -p …`).
    func show(_ unit: String, _ properties: [String]) throws -> [String: String] {
        let result = try systemctl(["show", unit] + properties.flatMap { ["-p", $0] })
        guard result.status == 0 else { throw DesktopError("systemctl --user show \(unit) failed.\n\(result)") }
        var values: [String: String] = [:]
        for line in result.stdoutLines {
            guard let eq = line.firstIndex(of: "=") else { continue }
            values[String(line[..<eq])] = String(line[line.index(after: eq)...])
        }
        return values
    }

    /// What a login does once the display and the session bus are up: hands them to the manager.
    func importDisplay() throws {
        let result = try systemctl(["import-environment", "DISPLAY", "DBUS_SESSION_BUS_ADDRESS"])
        guard result.status == 0 else { throw DesktopError("systemctl --user import-environment failed.\n\(result)") }
    }

    /// The journal so far (for failure messages).
    var logs: String { Self.read(journal) }

    /// The journal's entries so far: who wrote it (a unit, a program's name, or "systemd" for
    /// the manager) and the message.
    func journalEntries() -> [(source: String, message: String)] {
        let text = String(decoding: (try? Data(contentsOf: journal)) ?? Data(), as: UTF8.self)
        return text.split(separator: "\n").compactMap { line in
            guard let colon = line.range(of: ": ") else { return nil }
            return (String(line[..<colon.lowerBound]), String(line[colon.upperBound...]))
        }
    }

    /// Sets the environment of the units the manager starts from now on.
    func setEnvironment(_ assignments: [String: String]) throws {
        let result = try systemctl(["set-environment"] + assignments.map { "\($0.key)=\($0.value)" })
        guard result.status == 0 else { throw DesktopError("systemctl --user set-environment failed.\n\(result)") }
    }

    /// Ends the manager (it stops its units), kills whatever is left in its cgroups and
    /// removes them. Idempotent.
    func stop() {
        guard !stopped else { return }
        stopped = true
        if process.isRunning {
            kill(process.pid, SIGTERM)
            if !process.wait(timeout: 5) { kill(process.pid, SIGKILL); process.wait(timeout: 2) }
        }
        Self.removeCgroups(cgroups)
    }

    /// Kills every process in the cgroups and below, then removes them, deepest first.
    static func removeCgroups(_ roots: [String]) {
        let fm = FileManager.default
        func tree(_ root: String) -> [String] {
            guard fm.fileExists(atPath: root) else { return [] }
            var all = [root]
            if let e = fm.enumerator(atPath: root) {
                while let sub = e.nextObject() as? String {
                    let path = root + "/" + sub
                    var isDir: ObjCBool = false
                    if fm.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue { all.append(path) } else { e.skipDescendants() }
                }
            }
            return all
        }
        let deadline = Date().addingTimeInterval(5)
        repeat {
            var pids: [pid_t] = []
            for root in roots {
                for dir in tree(root) {
                    let text = (try? String(contentsOfFile: dir + "/cgroup.procs", encoding: .utf8)) ?? ""
                    pids += text.split(separator: "\n").compactMap { pid_t($0) }
                }
            }
            if pids.isEmpty { break }
            for pid in pids { kill(pid, SIGKILL) }
            for pid in pids { _ = ChildProcess.waitGone(pid, timeout: 1) }
        } while Date() < deadline
        for root in roots {
            for dir in tree(root).sorted(by: { $0.count > $1.count }) { rmdir(dir) }
        }
    }

    static func read(_ url: URL) -> String {
        "--- \(url.lastPathComponent) ---\n" + String(decoding: (try? Data(contentsOf: url)) ?? Data(), as: UTF8.self)
    }
}

import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `switchscan autostart`: the desktop entry where no user manager runs, the systemd user
/// unit where one does (a stand-in `systemctl` on PATH), never both; and `--version`.
@Suite("switchscan autostart and --version")
struct AutostartTests {
    /// A home of its own: HOME, XDG_CONFIG_HOME (unless `config` is given: that value), and
    /// a PATH of one folder that holds only what the test puts there.
    struct Home {
        let dir: TempDir
        var config: URL { dir.url.appendingPathComponent("config") }
        var bin: URL { dir.url.appendingPathComponent("bin") }
        var entry: String { config.appendingPathComponent("autostart/switchscan.desktop").path }
        var unitFolder: String { config.appendingPathComponent("systemd/user").path }
        var log: URL { dir.url.appendingPathComponent("systemctl.log") }

        init() throws {
            dir = try TempDir()
            try FileManager.default.createDirectory(at: dir.url.appendingPathComponent("bin"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: dir.url.appendingPathComponent("home"), withIntermediateDirectories: true)
        }

        func environment(config value: String? = nil) -> [String: String] {
            var env = ["HOME": dir.url.appendingPathComponent("home").path, "XDG_CONFIG_HOME": value ?? config.path, "PATH": bin.path,
                       "SYSTEMCTL_LOG": log.path]
            // Under the sanitizers, the children run as the sanitizer run asks (leaks not checked).
            for key in ["ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS"] { env[key] = ProcessInfo.processInfo.environment[key] }
            return env
        }

        /// A `systemctl` that logs its arguments and answers like a user manager that runs a
        /// graphical session (or one that does not start graphical-session.target). It keeps
        /// its unit files as systemd does: `enable` links the user's unit (else the package's,
        /// `packaged`) into graphical-session.target.wants, `disable` removes the link,
        /// `is-enabled` and `show --property=FragmentPath` answer from them. `enableFails`:
        /// what a failed `enable` says. (PATH holds the fake alone: the tools it uses are named whole.)
        func fakeUserManager(graphicalSession: Bool = true, enableFails: String? = nil) throws {
            let script = """
                #!/bin/sh
                echo "$*" >>"$SYSTEMCTL_LOG"
                units="$XDG_CONFIG_HOME/systemd/user"
                wants="$units/graphical-session.target.wants/switchscan.service"
                packaged="\(packaged)"
                case "$*" in
                    "--user show --property=Version") echo Version=252 ;;
                    "--user is-active --quiet graphical-session.target") exit \(graphicalSession ? 0 : 3) ;;
                    "--user is-active switchscan.service") echo inactive; exit 3 ;;
                    "--user is-enabled switchscan.service")
                        if [ -L "$wants" ] || [ -e "$wants" ]; then echo enabled; exit 0; fi
                        if [ -e "$units/switchscan.service" ] || [ -e "$packaged" ]; then echo disabled; exit 1; fi
                        echo "Failed to get unit file state for switchscan.service: No such file or directory" >&2; exit 1 ;;
                    "--user show --property=FragmentPath switchscan.service")
                        if [ -e "$units/switchscan.service" ]; then echo "FragmentPath=$units/switchscan.service"
                        elif [ -e "$packaged" ]; then echo "FragmentPath=$packaged"
                        else echo "FragmentPath="; fi ;;
                    "--user enable switchscan.service")
                        \(enableFails.map { "echo '\($0)' >&2; exit 1" } ?? ":")
                        if [ -e "$units/switchscan.service" ]; then unit="$units/switchscan.service"
                        elif [ -e "$packaged" ]; then unit="$packaged"
                        else echo "Failed to enable unit: Unit file switchscan.service does not exist." >&2; exit 1; fi
                        /bin/mkdir -p "${wants%/*}" && /bin/ln -sf "$unit" "$wants" ;;
                    "--user disable switchscan.service") /bin/rm -f "$wants" ;;
                esac
                exit 0
                """
            let path = bin.appendingPathComponent("systemctl").path
            try Data((script + "\n").utf8).write(to: URL(fileURLWithPath: path))
            chmod(path, 0o755)
        }

        /// Where the fake manager finds the package's unit (/usr/lib/systemd/user on a real system).
        var packaged: String { dir.url.appendingPathComponent("usr-lib-systemd-user/switchscan.service").path }
        var wants: String { unitFolder + "/graphical-session.target.wants/switchscan.service" }
        var unit: String { unitFolder + "/switchscan.service" }

        var systemctlCalls: [String] {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
    }

    /// The binary as /proc/self/exe names it (the files run it again).
    static var executable: String { (CLI.binary?.resolvingSymlinksInPath().path) ?? "switchscan" }

    static var exec: String { "\(executable) run --desktop --wait-for-desktop 60 --output quiet --no-terminal-keys" }

    static var entryText: String {
        """
        [Desktop Entry]
        Type=Application
        Name=SwitchScan
        Comment=Scan the desktop with switches (started at login by 'switchscan autostart enable')
        Exec=\(exec)
        Terminal=false
        NoDisplay=true
        X-GNOME-Autostart-enabled=true

        """
    }

    /// The first line of a file `autostart enable` wrote, up to its check.
    static let stampStart = "# Written by 'switchscan autostart enable' (check "

    /// A file's text without the line saying who wrote it.
    static func unstamped(_ text: String) -> String {
        text.hasPrefix(stampStart) ? String(text[text.index(after: text.firstIndex(of: "\n")!)...]) : text
    }

    static func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "<none>" }

    static func kind(_ path: String) -> mode_t {
        var st = stat()
        return lstat(path, &st) == 0 ? st.st_mode & S_IFMT : 0
    }

    @Test func versionIsTheOneInVersionSwift() throws {
        let source = try String(contentsOf: CLI.packageRoot.appendingPathComponent("Sources/CommandSupport/Version.swift"), encoding: .utf8)
        let version = try #require(source.split(separator: "\n").first { $0.hasPrefix("public let switchScanVersion = ") }?
            .split(separator: "\"").dropFirst().first.map(String.init))
        let r = try CLI.run(["--version"])
        #expect(r.status == 0 && r.stderr.isEmpty)
        #expect(r.stdout == version + "\n")
        #expect(version.split(separator: ".").count == 3 && version.allSatisfy { $0.isNumber || $0 == "." })
    }

    @Test func withoutAUserManagerTheDesktopEntryIsWrittenAndRemoved() throws {
        let home = try Home()
        defer { home.dir.remove() }
        let env = home.environment()
        let off = try CLI.run(["autostart", "status"], environment: env)
        #expect(off.status == 0 && off.stdout == "SwitchScan does not start at login. 'switchscan autostart enable' turns that on.\n", "\(off)")

        let on = try CLI.run(["autostart", "enable"], environment: env)
        #expect(on.status == 0 && on.stderr.isEmpty, "\(on)")
        #expect(on.stdout == """
            Enabled: SwitchScan starts when you log in to the desktop, from the autostart entry \(home.entry).
            It runs: \(Self.exec)

            """, "\(on)")
        let written = (try? String(contentsOfFile: home.entry, encoding: .utf8)) ?? ""
        #expect(written.hasPrefix(Self.stampStart) && Self.unstamped(written) == Self.entryText, "\(written)")
        #expect(!FileManager.default.fileExists(atPath: home.unitFolder))

        let status = try CLI.run(["autostart", "status"], environment: env)
        #expect(status.stdout == "On: the autostart entry \(home.entry) starts SwitchScan when you log in to the desktop.\n", "\(status)")

        let disabled = try CLI.run(["autostart", "disable"], environment: env)
        #expect(disabled.status == 0 && disabled.stdout == "Disabled: removed the autostart entry \(home.entry).\n", "\(disabled)")
        #expect(!FileManager.default.fileExists(atPath: home.entry))
        let again = try CLI.run(["autostart", "disable"], environment: env)
        #expect(again.status == 0 && again.stdout == "Nothing to disable: SwitchScan does not start at login.\n", "\(again)")

        // Asked for the unit, it says why not and changes nothing.
        let unit = try CLI.run(["autostart", "enable", "--method", "unit"], environment: env)
        #expect(unit.status == 1 && unit.stdout.isEmpty, "\(unit)")
        #expect(unit.stderr == "Error: cannot use a systemd user unit: systemctl is not installed. Run 'switchscan autostart enable' to start SwitchScan from the desktop entry instead.\n", "\(unit)")
        #expect(!FileManager.default.fileExists(atPath: home.entry))
    }

    @Test func aRelativeConfigHomeIsIgnored() throws {
        let home = try Home()
        defer { home.dir.remove() }
        let r = try CLI.run(["autostart", "enable"], environment: home.environment(config: "relative/config"))
        #expect(r.status == 0, "\(r)")
        let entry = home.dir.url.appendingPathComponent("home/.config/autostart/switchscan.desktop").path
        #expect(r.stdout.hasPrefix("Enabled: SwitchScan starts when you log in to the desktop, from the autostart entry \(entry).\n"), "\(r)")
        #expect(FileManager.default.fileExists(atPath: entry))
    }

    @Test func aReadOnlyFolderIsRefusedWithAMessage() throws {
        let home = try Home()
        defer { home.dir.remove() }
        let folder = home.config.appendingPathComponent("autostart")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        chmod(folder.path, 0o555)
        defer { chmod(folder.path, 0o755) }
        let r: RunResult
        if getuid() == 0 {
            // Root writes anywhere: the refusal is an ordinary user's (nobody), who can reach
            // the folders and a copy of the binary but write none of them.
            try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "root needs setpriv (util-linux) to test as an ordinary user")
            let copy = home.dir.url.appendingPathComponent("exe")
            try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: try #require(CLI.binary), to: copy.appendingPathComponent("switchscan"))
            for url in [home.dir.url, home.config, home.bin, copy] { chmod(url.path, 0o755) }
            chmod(copy.appendingPathComponent("switchscan").path, 0o755)
            r = try Self.runAsNobody(copy.appendingPathComponent("switchscan"), ["autostart", "enable"], environment: home.environment())
        } else {
            r = try CLI.run(["autostart", "enable"], environment: home.environment())
        }
        #expect(r.status == 1 && r.stdout.isEmpty, "\(r)")
        #expect(r.stderr == "Error: cannot write \(home.entry) (creating a file in \(folder.path): Permission denied); it was left unchanged.\n", "\(r)")
        #expect(!FileManager.default.fileExists(atPath: home.entry))
    }

    static func runAsNobody(_ binary: URL, _ arguments: [String], environment: [String: String]) throws -> RunResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", binary.path] + arguments
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: "/")
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return RunResult(status: process.terminationStatus, stdout: stdout, stderr: stderr, timedOut: false)
    }

    @Test func withAUserManagerTheUnitReplacesTheEntry() throws {
        let home = try Home()
        defer { home.dir.remove() }
        let env = home.environment()
        #expect(try CLI.run(["autostart", "enable", "--method", "entry"], environment: env).status == 0)
        #expect(FileManager.default.fileExists(atPath: home.entry))
        try home.fakeUserManager()

        let on = try CLI.run(["autostart", "enable"], environment: env)
        let unit = home.unitFolder + "/switchscan.service"
        #expect(on.status == 0 && on.stdout == """
            Enabled: SwitchScan starts with your graphical session, from the systemd user unit \(unit); after a crash it is restarted within 2 s (3 failures within 60 s end the restarts).
            Removed the autostart entry \(home.entry): the unit starts it instead.
            Start it now with: systemctl --user start switchscan
            It runs: \(Self.exec)

            """, "\(on)")
        #expect(!FileManager.default.fileExists(atPath: home.entry), "never both")
        let text = try String(contentsOfFile: unit, encoding: .utf8)
        for line in ["ExecStart=\(Self.exec)", "Restart=on-failure", "RestartSec=500ms", "StartLimitIntervalSec=60", "StartLimitBurst=3",
                     "OnFailure=switchscan-failed.service", "PartOf=graphical-session.target", "WantedBy=graphical-session.target",
                     "Environment=SWIFT_BACKTRACE=enable=no"] {
            #expect(text.split(separator: "\n").contains(Substring(line)), "\(line) in\n\(text)")
        }
        let failure = try String(contentsOfFile: home.unitFolder + "/switchscan-failed.service", encoding: .utf8)
        #expect(failure.contains("spd-say --wait 'SwitchScan stopped and will not be restarted: it failed 3 times within 60 seconds.'"), "\(failure)")
        #expect(home.systemctlCalls.suffix(2) == ["--user daemon-reload", "--user enable switchscan.service"], "\(home.systemctlCalls)")

        let status = try CLI.run(["autostart", "status"], environment: env)
        #expect(status.stdout == "On: the systemd user unit \(unit) (enabled, not running now (inactive)).\n", "\(status)")

        let off = try CLI.run(["autostart", "disable"], environment: env)
        #expect(off.status == 0 && off.stdout == "Disabled: removed the systemd user unit \(unit).\n", "\(off)")
        #expect(home.systemctlCalls.suffix(2) == ["--user disable switchscan.service", "--user daemon-reload"], "\(home.systemctlCalls)")
        #expect(!FileManager.default.fileExists(atPath: unit) && !FileManager.default.fileExists(atPath: home.unitFolder + "/switchscan-failed.service"))
    }

    @Test func aUserManagerWithoutAGraphicalSessionGetsTheEntry() throws {
        let home = try Home()
        defer { home.dir.remove() }
        try home.fakeUserManager(graphicalSession: false)
        let r = try CLI.run(["autostart", "enable"], environment: home.environment())
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.hasPrefix("Enabled: SwitchScan starts when you log in to the desktop, from the autostart entry \(home.entry) (systemd's user manager runs, but graphical-session.target is not active in the desktop session, so a unit would not start).\n"), "\(r)")
        #expect(!FileManager.default.fileExists(atPath: home.unitFolder + "/switchscan.service"))
    }

    /// The run a session starts waits for the accessibility bus rather than failing at once,
    /// asks for it without libatspi meanwhile (which would abort on a second try), and
    /// when it never comes says what is missing.
    @Test func aRunStartedWithTheSessionWaitsForTheBus() throws {
        let home = try Home()
        defer { home.dir.remove() }
        var env = home.environment()
        env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(home.dir.url.path)/no-bus"
        let started = Date()
        let r = try CLI.run(["run", "--desktop", "--wait-for-desktop", "1.5", "--output", "quiet", "--no-terminal-keys"], environment: env)
        let seconds = Date().timeIntervalSince(started)
        #expect(r.status == 1 && r.stdout.isEmpty, "\(r)")
        #expect(r.stderr.hasPrefix("Error: the accessibility bus (AT-SPI) cannot be reached"), "\(r)")
        #expect(seconds >= 1.5, "it gave up after \(seconds) s")
        let bad = try CLI.run(["run", "--wait-for-desktop", "5"], environment: env)
        #expect(bad.status == 64 && bad.stderr.contains("--wait-for-desktop goes with --desktop"), "\(bad)")
    }

    static let systemdAnalyze = "/usr/bin/systemd-analyze"

    /// The unit and its failure unit as `autostart print` gives them (and the package
    /// installs them) pass systemd's own check.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: systemdAnalyze),
                   "precondition: systemd-analyze (Debian package systemd) checks the unit; not installed here"))
    func theUnitPassesSystemdAnalyzeVerify() throws {
        try withTempDir { dir in
            let unit = try CLI.run(["autostart", "print", "unit"])
            let failure = try CLI.run(["autostart", "print", "failure-unit"])
            #expect(unit.status == 0 && failure.status == 0)
            let path = try dir.write("switchscan.service", unit.stdout)
            try dir.write("switchscan-failed.service", failure.stdout)
            let runtime = dir.url.appendingPathComponent("run")
            try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            // The user manager's checks (--user needs a runtime folder); the manual page is
            // the package's, not installed by the tests.
            func verify(_ files: [String]) throws -> (Int32, String) {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: Self.systemdAnalyze)
                process.arguments = ["verify", "--man=no", "--user"] + files
                process.environment = ["XDG_RUNTIME_DIR": runtime.path, "HOME": dir.url.path, "PATH": "/usr/bin:/bin"]
                let out = Pipe()
                process.standardOutput = out
                process.standardError = out
                try process.run()
                let said = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                return (process.terminationStatus, said)
            }
            let (status, said) = try verify([path, dir.url.appendingPathComponent("switchscan-failed.service").path])
            #expect(status == 0 && said.isEmpty, "\(said)")
            // And it does check: a unit with a bad value fails.
            let bad = try dir.write("broken.service", unit.stdout.replacingOccurrences(of: "Type=exec", with: "Type=sometimes")
                .replacingOccurrences(of: "OnFailure=switchscan-failed.service\n", with: ""))
            let (badStatus, badSaid) = try verify([bad])
            #expect(badStatus != 0 || badSaid.contains("sometimes"), "\(badSaid)")
        }
    }
}

/// What `autostart` meets on a user's machine: the package's unit enabled by hand, files
/// changed by hand, a manager that refuses, links, and a binary others could replace.
extension AutostartTests {
    @Test func thePackagesUnitEnabledBySystemctlIsRecognised() throws {
        let home = try AutostartTests.Home()
        defer { home.dir.remove() }
        let env = home.environment()
        let packaged = home.packaged
        try FileManager.default.createDirectory(atPath: (packaged as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(try CLI.run(["autostart", "print", "unit"]).stdout.utf8).write(to: URL(fileURLWithPath: packaged))
        // `systemctl --user enable switchscan`, as docs/USING.md says: only the link.
        try FileManager.default.createDirectory(atPath: (home.wants as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: home.wants, withDestinationPath: packaged)

        // Without the manager, the link says it.
        let seen = try CLI.run(["autostart", "status"], environment: env)
        #expect(seen.stdout == "On: the systemd user unit \(packaged) (enabled; systemd's user manager cannot be reached to say more).\n", "\(seen)")

        try home.fakeUserManager()
        let status = try CLI.run(["autostart", "status"], environment: env)
        #expect(status.status == 0 && status.stdout == "On: the systemd user unit \(packaged) (enabled, not running now (inactive)).\n", "\(status)")

        let off = try CLI.run(["autostart", "disable"], environment: env)
        #expect(off.status == 0 && off.stdout == "Disabled: the systemd user unit \(packaged) no longer starts at login; it belongs to the package and stays installed.\n", "\(off)")
        #expect(home.systemctlCalls.contains("--user disable switchscan.service"), "\(home.systemctlCalls)")
        #expect(Self.kind(home.wants) == 0 && Self.kind(packaged) == S_IFREG)

        let after = try CLI.run(["autostart", "status"], environment: env)
        #expect(after.stdout == """
            Off: the systemd user unit \(packaged) (disabled, not running now (inactive)).
            SwitchScan does not start at login. 'switchscan autostart enable' turns that on.

            """, "\(after)")
        let again = try CLI.run(["autostart", "disable"], environment: env)
        #expect(again.stdout == "Nothing to disable: SwitchScan does not start at login.\n", "\(again)")
    }

    @Test func aUnitChangedByHandIsKeptUnlessForced() throws {
        let home = try AutostartTests.Home()
        defer { home.dir.remove() }
        let env = home.environment()
        try home.fakeUserManager()
        #expect(try CLI.run(["autostart", "enable"], environment: env).status == 0)
        let mine = Self.read(home.unit).replacingOccurrences(of: "[Service]\n", with: "[Service]\nEnvironment=MY_CUSTOM=1\n")
        try Data(mine.utf8).write(to: URL(fileURLWithPath: home.unit))
        let calls = home.systemctlCalls.count

        let refused = try CLI.run(["autostart", "enable"], environment: env)
        #expect(refused.status == 1 && refused.stdout.isEmpty, "\(refused)")
        #expect(refused.stderr == """
            Error: the systemd user unit \(home.unit) was changed by hand (or not written by SwitchScan); it was left as it is. \
            Keep your changes in a drop-in ('systemctl --user edit switchscan') and run 'switchscan autostart enable --force' to replace it.

            """, "\(refused)")
        #expect(Self.read(home.unit) == mine)
        #expect(!home.systemctlCalls.dropFirst(calls).contains("--user enable switchscan.service"))

        // Disabling keeps it too: it is only no longer started.
        let off = try CLI.run(["autostart", "disable"], environment: env)
        #expect(off.status == 0 && off.stdout == """
            Disabled: the systemd user unit \(home.unit) no longer starts at login; it was changed by hand, so it is kept \
            (remove it, or run 'switchscan autostart disable --force').

            """, "\(off)")
        #expect(Self.read(home.unit) == mine && Self.kind(home.wants) == 0)

        let forced = try CLI.run(["autostart", "enable", "--force"], environment: env)
        #expect(forced.status == 0, "\(forced)")
        #expect(forced.stdout.contains("\nReplaced \(home.unit), which had been changed by hand.\n"), "\(forced)")
        #expect(!Self.read(home.unit).contains("MY_CUSTOM") && Self.read(home.unit).hasPrefix(Self.stampStart))

        // A unit as an earlier SwitchScan wrote it, without the line saying so, is its own.
        try Data(try CLI.run(["autostart", "print", "unit"]).stdout.utf8).write(to: URL(fileURLWithPath: home.unit))
        let older = try CLI.run(["autostart", "enable"], environment: env)
        #expect(older.status == 0 && older.stderr.isEmpty && !older.stdout.contains("Replaced"), "\(older)")
    }

    @Test func anEntryChangedByHandIsKeptUnlessForced() throws {
        let home = try AutostartTests.Home()
        defer { home.dir.remove() }
        let env = home.environment()
        try FileManager.default.createDirectory(atPath: (home.entry as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let mine = "[Desktop Entry]\nType=Application\nName=Mine\nExec=/usr/local/bin/my-scanner\n"
        try Data(mine.utf8).write(to: URL(fileURLWithPath: home.entry))

        let refused = try CLI.run(["autostart", "enable"], environment: env)
        #expect(refused.status == 1 && refused.stdout.isEmpty, "\(refused)")
        #expect(refused.stderr == """
            Error: the autostart entry \(home.entry) was changed by hand (or not written by SwitchScan); it was left as it is. \
            Run 'switchscan autostart enable --force' to replace it.

            """, "\(refused)")
        let kept = try CLI.run(["autostart", "disable"], environment: env)
        #expect(kept.status == 1 && kept.stdout.isEmpty, "\(kept)")
        #expect(kept.stderr == """
            Error: the autostart entry \(home.entry) was changed by hand (or not written by SwitchScan); it was left as it is. \
            Remove it yourself, or run 'switchscan autostart disable --force'.

            """, "\(kept)")
        #expect(Self.read(home.entry) == mine)
        let forced = try CLI.run(["autostart", "disable", "--force"], environment: env)
        #expect(forced.status == 0 && forced.stdout == "Disabled: removed the autostart entry \(home.entry).\n", "\(forced)")
        #expect(Self.kind(home.entry) == 0)
    }

    @Test func aFailedEnableLeavesWhatWasThere() throws {
        let home = try AutostartTests.Home()
        defer { home.dir.remove() }
        let env = home.environment()
        #expect(try CLI.run(["autostart", "enable", "--method", "entry"], environment: env).status == 0)
        let entry = Self.read(home.entry)
        // An older unit of SwitchScan's, not enabled.
        let older = try CLI.run(["autostart", "print", "unit"]).stdout
        try FileManager.default.createDirectory(atPath: home.unitFolder, withIntermediateDirectories: true)
        try Data(older.utf8).write(to: URL(fileURLWithPath: home.unit))
        try home.fakeUserManager(enableFails: "Failed to enable unit: Access denied")

        let r = try CLI.run(["autostart", "enable"], environment: env)
        #expect(r.status == 1 && r.stdout.isEmpty, "\(r)")
        #expect(r.stderr == "Error: 'systemctl --user enable switchscan.service' failed: Failed to enable unit: Access denied. Nothing was changed.\n", "\(r)")
        #expect(Self.read(home.entry) == entry, "the entry still starts SwitchScan")
        #expect(Self.read(home.unit) == older, "the unit as it was")
        #expect(Self.kind(home.unitFolder + "/switchscan-failed.service") == 0)
        #expect(home.systemctlCalls.suffix(2) == ["--user enable switchscan.service", "--user daemon-reload"], "\(home.systemctlCalls)")
        let status = try CLI.run(["autostart", "status"], environment: env)
        #expect(status.stdout.hasSuffix("On: the autostart entry \(home.entry) starts SwitchScan when you log in to the desktop.\n"), "\(status)")
    }

    @Test func aControlCharacterInTheExecutablesPathIsRefused() throws {
        let path = "/opt/x\nExecStartPre=/bin/touch /tmp/pwned\n/s"
        for which in ["unit", "entry", "application"] {
            let r = try CLI.run(["autostart", "print", which, "--executable", path])
            #expect(r.status == 2 && r.stdout.isEmpty, "\(which): \(r)")
            #expect(r.stderr == """
                Error: the executable's path '/opt/x␊ExecStartPre=/bin/touch /tmp/pwned␊/s' holds a control character (U+000A), \
                which would break the file's lines; use a path without control characters.

                """, "\(which): \(r)")
        }
        // switchscan itself at such a path.
        let home = try AutostartTests.Home()
        defer { home.dir.remove() }
        let folder = home.dir.url.appendingPathComponent("bad\nExecStartPre=x")
        let copy = try Self.copyOfSwitchscan(in: folder)
        let r = try Self.runCopy(copy, ["autostart", "enable"], environment: home.environment())
        #expect(r.status == 2 && r.stdout.isEmpty, "\(r)")
        #expect(r.stderr.hasPrefix("Error: the executable's path '\(home.dir.url.path)/bad␊ExecStartPre=x/switchscan' holds a control character (U+000A)"), "\(r)")
        #expect(Self.kind(home.entry) == 0)
    }

    @Test func aSwitchscanOthersCouldReplaceIsRefused() throws {
        let home = try AutostartTests.Home()
        defer { home.dir.remove() }
        let open = home.dir.url.appendingPathComponent("open")
        let copy = try Self.copyOfSwitchscan(in: open)
        chmod(open.path, 0o777)
        let r = try Self.runCopy(copy, ["autostart", "enable"], environment: home.environment())
        #expect(r.status == 1 && r.stdout.isEmpty, "\(r)")
        #expect(r.stderr == """
            Error: the folder \(open.path) can be written by anyone (mode 0777): whoever put another program at \(copy.path) \
            would run it as you at every login. Nothing was changed. Install SwitchScan where only you or root can change it \
            (the package puts it in /usr/bin), or make the folder writable by you alone (chmod o-w \(open.path)).

            """, "\(r)")
        #expect(Self.kind(home.entry) == 0)

        chmod(open.path, 0o755)
        chmod(copy.path, 0o777)
        let writable = try Self.runCopy(copy, ["autostart", "enable"], environment: home.environment())
        #expect(writable.status == 1 && writable.stderr == """
            Error: \(copy.path) can be written by anyone (mode 0777): whoever changed it would run their program as you at \
            every login. Nothing was changed. Make it writable by you alone (chmod o-w \(copy.path)), or install SwitchScan \
            where only you or root can change it (the package puts it in /usr/bin).

            """, "\(writable)")

        // A folder like /tmp (anyone may add, only the owner may replace) is no danger to a
        // file of one's own.
        chmod(copy.path, 0o755)
        chmod(open.path, 0o1777)
        let sticky = try Self.runCopy(copy, ["autostart", "enable"], environment: home.environment())
        #expect(sticky.status == 0, "\(sticky)")
    }

    @Test func aLinkAtTheEntryOrUnitIsReplacedNotWrittenThrough() throws {
        let home = try AutostartTests.Home()
        defer { home.dir.remove() }
        let env = home.environment()
        let menu = home.dir.url.appendingPathComponent("usr-share-applications/switchscan.desktop").path
        let application = try CLI.run(["autostart", "print", "application"]).stdout
        try FileManager.default.createDirectory(atPath: (menu as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(application.utf8).write(to: URL(fileURLWithPath: menu))
        try FileManager.default.createDirectory(atPath: (home.entry as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: home.entry, withDestinationPath: menu)

        let r = try CLI.run(["autostart", "enable"], environment: env)
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout == """
            Enabled: SwitchScan starts when you log in to the desktop, from the autostart entry \(home.entry).
            Replaced the symbolic link \(home.entry) (to \(menu)) with a file of its own; \(menu) was left as it is.
            It runs: \(Self.exec)

            """, "\(r)")
        #expect(Self.kind(home.entry) == S_IFREG && Self.unstamped(Self.read(home.entry)) == Self.entryText)
        #expect(Self.read(menu) == application, "the link's target is untouched")

        // Disabling a linked entry removes the link alone.
        try FileManager.default.removeItem(atPath: home.entry)
        try FileManager.default.createSymbolicLink(atPath: home.entry, withDestinationPath: menu)
        let off = try CLI.run(["autostart", "disable"], environment: env)
        #expect(off.status == 0 && off.stdout == "Disabled: removed the autostart entry \(home.entry) (a link to \(menu), which was left as it is).\n", "\(off)")
        #expect(Self.kind(home.entry) == 0 && Self.read(menu) == application)

        // The unit likewise.
        try home.fakeUserManager()
        let other = home.dir.url.appendingPathComponent("other.service").path
        try Data("[Service]\nExecStart=/bin/true\n".utf8).write(to: URL(fileURLWithPath: other))
        try FileManager.default.createDirectory(atPath: home.unitFolder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: home.unit, withDestinationPath: other)
        let unit = try CLI.run(["autostart", "enable"], environment: env)
        #expect(unit.status == 0, "\(unit)")
        #expect(unit.stdout.contains("\nReplaced the symbolic link \(home.unit) (to \(other)) with a file of its own; \(other) was left as it is.\n"), "\(unit)")
        #expect(Self.kind(home.unit) == S_IFREG && Self.read(other) == "[Service]\nExecStart=/bin/true\n")
    }

    /// A copy of the built switchscan in `folder` (made, 0755), to run from another path.
    static func copyOfSwitchscan(in folder: URL) throws -> URL {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let copy = folder.appendingPathComponent("switchscan")
        try FileManager.default.copyItem(at: try #require(CLI.binary).resolvingSymlinksInPath(), to: copy)
        chmod(folder.path, 0o755)
        chmod(copy.path, 0o755)
        return copy
    }

    static func runCopy(_ binary: URL, _ arguments: [String], environment: [String: String]) throws -> RunResult {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = CLI.packageRoot
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return RunResult(status: process.terminationStatus, stdout: stdout, stderr: stderr, timedOut: false)
    }
}

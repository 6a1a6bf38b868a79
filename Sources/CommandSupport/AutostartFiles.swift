import ScanCore

/// The files that start SwitchScan with the user's desktop session, as text: an XDG
/// autostart entry, a systemd user unit with the unit that speaks when it gives up, and the
/// applications-menu entry the package installs. `switchscan autostart` writes the first
/// three for one user; scripts/package-deb.sh installs what `autostart print` gives.
/// Pure: paths come from the environment handed in, nothing is read or written here.
public enum AutostartFiles {
    /// The unit's and the entries' file names.
    public static let unitName = "switchscan.service"
    public static let failureUnitName = "switchscan-failed.service"
    public static let entryName = "switchscan.desktop"

    /// How long a run started with the session waits for the display and the accessibility bus.
    public static let waitSeconds = 60
    /// The restart policy: a crash is restarted after `restartMilliseconds` (half of the 2 s
    /// from a crash to scanning again; the start limit, not this, ends a crash loop); `burst`
    /// starts within `intervalSeconds` and systemd stops restarting (and the failure unit speaks).
    public static let restartMilliseconds = 500
    public static let intervalSeconds = 60
    public static let burst = 3

    /// What a session starts: the live desktop, waiting for it, nothing on standard output
    /// (it would fill the session's log), and no terminal to read keys from.
    public static func runArguments() -> [String] {
        ["run", "--desktop", "--wait-for-desktop", String(waitSeconds), "--output", "quiet", "--no-terminal-keys"]
    }

    /// `$XDG_CONFIG_HOME`, else `~/.config` (a relative or empty value counts as unset, as
    /// the XDG rules say and `SettingsFile.userPath` does); nil without a home.
    public static func configHome(environment env: [String: String]) -> String? {
        env["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? env["HOME"].flatMap { $0.hasPrefix("/") ? $0 + "/.config" : nil }
    }

    /// Where the user's files go: `autostart/switchscan.desktop` and
    /// `systemd/user/switchscan{,-failed}.service` under the config home.
    public struct Paths: Sendable, Equatable {
        public var entry: String
        public var unitFolder: String
        public var unit: String { unitFolder + "/" + AutostartFiles.unitName }
        public var failureUnit: String { unitFolder + "/" + AutostartFiles.failureUnitName }
        /// The link `systemctl --user enable` makes.
        public var unitWants: String { unitFolder + "/graphical-session.target.wants/" + AutostartFiles.unitName }

        public init?(environment: [String: String]) {
            guard let config = AutostartFiles.configHome(environment: environment) else { return nil }
            entry = config + "/autostart/" + AutostartFiles.entryName
            unitFolder = config + "/systemd/user"
        }
    }

    /// The XDG autostart entry (`~/.config/autostart/switchscan.desktop`).
    public static func autostartEntry(executable: String) -> String {
        """
        [Desktop Entry]
        Type=Application
        Name=SwitchScan
        Comment=Scan the desktop with switches (started at login by 'switchscan autostart enable')
        Exec=\(desktopExec([executable] + runArguments()))
        Terminal=false
        NoDisplay=true
        X-GNOME-Autostart-enabled=true

        """
    }

    /// The entry in the applications menu (/usr/share/applications): the same run, started by
    /// hand. It also gives the executable KWin's fake input: KWin offers it only to a program
    /// whose .desktop file's Exec names it and lists the interface.
    public static func applicationEntry(executable: String) -> String {
        """
        [Desktop Entry]
        Type=Application
        Name=SwitchScan
        GenericName=Switch access
        Comment=Scan the desktop with switches
        Exec=\(desktopExec([executable] + runArguments()))
        Terminal=false
        Categories=Utility;Accessibility;
        Keywords=switch;scanning;accessibility;
        X-KDE-Wayland-Interfaces=org_kde_kwin_fake_input

        """
    }

    /// The systemd user unit: started with the graphical session, stopped with it, restarted
    /// after a crash within `restartMilliseconds`, until `burst` starts in `intervalSeconds`; then
    /// the failure unit says so. Without Swift's crash backtracer, so a crash ends it at once.
    public static func unit(executable: String) -> String {
        """
        [Unit]
        Description=SwitchScan switch access scanning
        Documentation=man:switchscan(1)
        PartOf=graphical-session.target
        After=graphical-session.target
        StartLimitIntervalSec=\(intervalSeconds)
        StartLimitBurst=\(burst)
        OnFailure=\(failureUnitName)

        [Service]
        Type=exec
        # A crash ends the process at once, for systemd to restart it within 2 s: Swift's
        # backtracer would first symbolicate, and it outlives a SIGSEGV sent by another process.
        Environment=SWIFT_BACKTRACE=enable=no
        ExecStart=\(systemdExec([executable] + runArguments()))
        Restart=on-failure
        RestartSec=\(restartMilliseconds)ms

        [Install]
        WantedBy=graphical-session.target

        """
    }

    /// How long the failure unit may take to say it.
    public static let failureTimeoutSeconds = 30

    /// What the user hears and the journal keeps once systemd stops restarting SwitchScan.
    public static let failureMessage = "SwitchScan stopped and will not be restarted: it failed \(burst) times within \(intervalSeconds) seconds."

    /// Run when switchscan.service fails for good: a line in the journal, and the same said
    /// through speech-dispatcher where `spd-say` is installed.
    public static func failureUnit() -> String {
        let hint = " Start it again with: systemctl --user restart switchscan"
        let script = "echo \(shellQuote(failureMessage + hint)) >&2; command -v spd-say >/dev/null && spd-say --wait \(shellQuote(failureMessage)) || true"
        return """
        [Unit]
        Description=Tell the user that SwitchScan stopped after repeated failures
        Documentation=man:switchscan(1)

        [Service]
        Type=oneshot
        ExecStart=\(systemdExec(["/bin/sh", "-c", script]))
        # spd-say --wait waits as long as speech does; where it never ends (no sound), not forever.
        TimeoutStartSec=\(failureTimeoutSeconds)

        """
    }

    // MARK: Whose file

    /// The first line of a file `autostart enable` writes, up to the check of the rest.
    public static let stampStart = "# Written by 'switchscan autostart enable' (check "

    /// `text` as `autostart enable` writes it: first a line saying so, with a check of the
    /// text, so that a later run can tell its own file, unchanged, from one edited by hand
    /// (which it leaves alone).
    public static func stamped(_ text: String) -> String {
        stampStart + check(text) + "); once edited, it is left as it is.\n" + text
    }

    /// Whether `existing` is a file SwitchScan wrote and no one changed since: stamped with
    /// the check of its text, or, without the stamp, one of `unstamped` (as an earlier
    /// SwitchScan, or `autostart print`, wrote it).
    public static func isOwn(_ existing: String, unstamped: [String]) -> Bool {
        if unstamped.contains(existing) { return true }
        guard existing.hasPrefix(stampStart), let end = existing.firstIndex(of: "\n") else { return false }
        let line = existing[..<end], rest = String(existing[existing.index(after: end)...])
        return line == stamped(rest).prefix { $0 != "\n" }
    }

    /// FNV-1a, 64 bits, in hex: it tells an edit from the text written, nothing more.
    static func check(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Why the files cannot run `executable`: a control character would end an `Exec=` or
    /// `ExecStart=` line and start another (a command of someone else's choosing).
    public static func problem(executable: String) -> String? {
        guard let u = executable.unicodeScalars.first(where: TerminalText.needsReplacing) else { return nil }
        let code = String(u.value, radix: 16, uppercase: true)
        return "Error: the executable's path '\(TerminalText.visible(TerminalText.excerpt(executable, limit: 200)))' holds a control character "
            + "(U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code)), which would break the file's lines; use a path without control characters."
    }

    // MARK: Quoting

    /// A word for `sh`, in single quotes where it needs any.
    public static func shellQuote(_ word: String) -> String {
        if !word.isEmpty, word.allSatisfy(isPlain) { return word }
        return "'" + word.replacingAll("'", with: "'\\''") + "'"
    }

    /// An Exec= line of a desktop entry: words with anything but plain characters in double
    /// quotes, `"`, `` ` ``, `$` and `\` escaped inside them, then every `\` doubled for the
    /// entry's string escapes and `%` doubled (field codes).
    public static func desktopExec(_ words: [String]) -> String {
        words.map { word in
            guard word.isEmpty || !word.allSatisfy(isPlain) else { return word }
            var quoted = "\""
            for c in word {
                if c == "\"" || c == "`" || c == "$" || c == "\\" { quoted.append("\\") }
                quoted.append(c)
            }
            return quoted + "\""
        }.joined(separator: " ").replacingAll("\\", with: "\\\\").replacingAll("%", with: "%%")
    }

    /// An ExecStart= line of a unit: words in double quotes where needed (`\` and `"` escaped),
    /// `%` (specifiers) and `$` (variables) doubled.
    public static func systemdExec(_ words: [String]) -> String {
        words.map { word in
            var w = word.replacingAll("%", with: "%%").replacingAll("$", with: "$$")
            guard word.isEmpty || !word.allSatisfy(isPlain) else { return w }
            w = w.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"")
            return "\"" + w + "\""
        }.joined(separator: " ")
    }

    static func isPlain(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || "/._+-=:,@".contains(c))
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

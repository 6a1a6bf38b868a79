import ArgumentParser
import CommandSupport
import Foundation
import ScanFormats
import ScanSession

/// Starting SwitchScan with the user's desktop session: a systemd user unit where systemd's
/// user manager runs the graphical session (restarted after a crash), else an XDG autostart
/// entry; never both.
struct Autostart: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start scanning the desktop at login (a systemd user unit, or an XDG autostart entry), or stop doing so.",
        discussion: """
        The session runs 'switchscan run --desktop' with your settings. Where systemd's user manager \
        runs and the desktop starts graphical-session.target, a user unit does it and restarts it after \
        a crash (three failures within a minute end the restarts, and that is said aloud and in the \
        journal); otherwise an entry in ~/.config/autostart does.
        """,
        subcommands: [AutostartEnable.self, AutostartDisable.self, AutostartStatus.self, AutostartPrint.self]
    )

    static func paths() throws -> AutostartFiles.Paths {
        guard let paths = AutostartFiles.Paths(environment: ProcessInfo.processInfo.environment) else {
            throw fail("Error: no home folder (\(HomeFolder.problem(xdg: "XDG_CONFIG_HOME"))); set HOME to your home folder.")
        }
        return paths
    }

    /// This binary, wherever it was started from (the unit and the entry run it again).
    static func executable() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
    }

    /// Under KWin, how to give this executable KWin's fake input where no applications entry
    /// does (the entries of the data folders, as KWin looks them up).
    static func kwinNote() -> String? {
        let env = ProcessInfo.processInfo.environment
        guard Compositor(env) == .kwin else { return nil }
        let home = env["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? ((env["HOME"] ?? "") + "/.local/share")
        let dirs = [home] + (env["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share").split(separator: ":").map(String.init)
        var entries: [String] = []
        for dir in dirs {
            let folder = dir + "/applications"
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasSuffix(".desktop") {
                // Only a small file can be an entry; a big one is not read.
                guard let data = FileManager.default.contents(atPath: folder + "/" + name), data.count < 65_536 else { continue }
                let text = String(decoding: data, as: UTF8.self)
                if text.contains("X-KDE-Wayland-Interfaces") { entries.append(text) }
            }
        }
        return AutostartAdvice.forKWin(session: env, executable: executable(), entries: entries) {
            URL(fileURLWithPath: $0).resolvingSymlinksInPath().path
        }
    }

    /// In a GNOME session: the extension enabled, or why not.
    static func enableGnomeExtension() -> String? {
        let env = ProcessInfo.processInfo.environment
        guard Compositor(env) == .gnome else { return nil }
        guard GnomeExtension.installed(env) != nil else { return GnomeExtension.status(env) }
        do {
            return try GnomeExtension.enable(env)
                ? "Enabled SwitchScan's GNOME Shell extension (\(GnomeExtension.uuid)): GNOME Shell loads it at your next login; until then nothing is outlined."
                : "SwitchScan's GNOME Shell extension was already enabled."
        } catch {
            return "Warning: SwitchScan's GNOME Shell extension could not be enabled: \(error). Enable it with 'gnome-extensions enable \(GnomeExtension.uuid)'."
        }
    }

    static func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    /// Where a symbolic link at `path` points, if one is there.
    static func linkTarget(_ path: String) -> String? { try? FileManager.default.destinationOfSymbolicLink(atPath: path) }

    /// What is at one of the paths `autostart` writes.
    enum Found {
        case nothing
        /// A symbolic link: replaced or removed itself, its target never touched.
        case link(to: String)
        /// A file SwitchScan wrote, unchanged since (its bytes and permissions, to put back).
        case own([UInt8], mode_t)
        /// A file changed by hand, or not SwitchScan's: left alone unless --force.
        case changed([UInt8], mode_t)
        /// Something that is not a file (a folder, a FIFO), or cannot be read: left alone.
        case other(String)

        var isThere: Bool { if case .nothing = self { return false } else { return true } }
    }

    /// What is at `path`; a file is SwitchScan's if it is `ours` (unstamped) or stamped so.
    static func found(_ path: String, ours: String) -> Found {
        var st = stat()
        guard lstat(path, &st) == 0 else { return .nothing }
        if st.st_mode & S_IFMT == S_IFLNK { return .link(to: linkTarget(path) ?? "?") }
        guard st.st_mode & S_IFMT == S_IFREG else { return .other("it is \(kindName(st.st_mode & S_IFMT))") }
        guard let bytes = try? readFile(path, what: "file", limit: 1 << 20) else { return .other("it cannot be read") }
        let own = AutostartFiles.isOwn(String(decoding: bytes, as: UTF8.self), unstamped: [ours])
        return own ? .own(bytes, st.st_mode & 0o7777) : .changed(bytes, st.st_mode & 0o7777)
    }

    /// Refuses, before anything is changed, to replace or remove what is not SwitchScan's:
    /// a file changed by hand (unless `force`), or something that is not a file at all.
    static func mayChange(_ path: String, _ found: Found, what: String, force: Bool, advice: String) throws {
        switch found {
        case .changed where !force:
            writeErr("Error: the \(what) \(path) was changed by hand (or not written by SwitchScan); it was left as it is. \(advice)\n")
            throw ExitCode(1)
        case .other(let why):
            writeErr("Error: the \(what) \(path) cannot be replaced: \(why). It was left as it is; move it away.\n")
            throw ExitCode(1)
        default:
            break
        }
    }

    /// Writes `text` (stamped) at `path` as a file of its own, and says what it replaced.
    /// `undo` gets what puts back what was there.
    static func put(_ path: String, _ text: String, was: Found, undo: inout [() -> Void]) throws -> String? {
        do {
            try UserFile.replaceItself(path, with: Array(AutostartFiles.stamped(text).utf8), mode: 0o644)
        } catch {
            writeErr(error.description + "\n")
            throw ExitCode(1)
        }
        undo.append { restore(path, was) }
        switch was {
        case .link(let target): return "Replaced the symbolic link \(path) (to \(target)) with a file of its own; \(target) was left as it is.\n"
        case .changed: return "Replaced \(path), which had been changed by hand.\n"
        default: return nil
        }
    }

    /// Puts back what `found` said was at `path` (after a failure: best effort).
    static func restore(_ path: String, _ found: Found) {
        switch found {
        case .nothing: unlink(path)
        case .link(let target): unlink(path); symlink(target, path)
        case .own(let bytes, let mode), .changed(let bytes, let mode): try? UserFile.replaceItself(path, with: bytes, mode: mode, exactMode: true)
        case .other: break
        }
    }

    /// Removes a file or link if it is there; true if it was.
    @discardableResult
    static func remove(_ path: String) throws -> Bool {
        guard exists(path) else { return false }
        guard unlink(path) == 0 else {
            writeErr("Error: cannot remove \(path): \(String(cString: strerror(errno))); it was left as it is.\n")
            throw ExitCode(1)
        }
        return true
    }

    /// Refuses a switchscan at a path the files cannot hold (a control character), or one
    /// that someone else could replace: the session would run whatever is there at every login.
    static func checkExecutable(_ path: String) throws {
        if let problem = AutostartFiles.problem(executable: path) { throw fail(problem) }
        if let problem = replaceableByOthers(path) {
            writeErr(problem + "\n")
            throw ExitCode(1)
        }
    }

    /// Why someone other than the user (or root) could put another program at `path`: the
    /// file or a folder on its way writable by anyone, or another user's. A folder anyone may
    /// write with the sticky bit (/tmp) lets no one replace what they do not own.
    static func replaceableByOthers(_ path: String) -> String? {
        let me = getuid()
        func trusted(_ st: stat) -> Bool { st.st_uid == 0 || st.st_uid == me }
        func octal(_ st: stat) -> String {
            let digits = String(st.st_mode & 0o7777, radix: 8)
            return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }
        let fix = "install SwitchScan where only you or root can change it (the package puts it in /usr/bin)"
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        if st.st_mode & S_IWOTH != 0 || !trusted(st) {
            let why = st.st_mode & S_IWOTH != 0 ? "can be written by anyone (mode \(octal(st)))" : "belongs to another user (uid \(st.st_uid))"
            return "Error: \(path) \(why): whoever changed it would run their program as you at every login. Nothing was changed. "
                + "Make it writable by you alone (chmod o-w \(path)), or \(fix)."
        }
        var child = st
        var folder = path
        while folder != "/" {
            folder = folder.lastIndex(of: "/").map { $0 == folder.startIndex ? "/" : String(folder[..<$0]) } ?? "/"
            var dir = stat()
            guard stat(folder, &dir) == 0 else { return nil }
            let openToAll = dir.st_mode & S_IWOTH != 0 && !(dir.st_mode & S_ISVTX != 0 && trusted(child))
            if openToAll || !trusted(dir) {
                let why = openToAll ? "can be written by anyone (mode \(octal(dir)))" : "belongs to another user (uid \(dir.st_uid))"
                return "Error: the folder \(folder) \(why): whoever put another program at \(path) would run it as you at every login. "
                    + "Nothing was changed. \(fix.prefix(1).uppercased() + fix.dropFirst()), or make the folder writable by you alone (chmod o-w \(folder))."
            }
            child = dir
        }
        return nil
    }

    /// Whether the entry is there but turned off (Hidden=true, or GNOME's own switch).
    static func entryTurnedOff(_ path: String) -> Bool {
        guard let bytes = try? readFile(path, what: "file", limit: 1 << 20) else { return false }
        let lines = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).map { $0.replacingOccurrences(of: " ", with: "") }
        return lines.contains("Hidden=true") || lines.contains("X-GNOME-Autostart-enabled=false")
    }
}

/// systemd's user manager through `systemctl --user` (the one on PATH).
struct UserManager {
    let systemctl: String

    struct Answer {
        var status: Int32
        /// What it printed, on stdout and stderr together (it says little).
        var output: String
    }

    /// Why `systemctl --user` reaches no manager.
    struct Unreachable: Error { var reason: String }

    /// The manager if `systemctl --user` reaches one, else why not.
    static func find() -> Result<UserManager, Unreachable> {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        guard let systemctl = path.split(separator: ":").map({ $0 + "/systemctl" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else { return .failure(Unreachable(reason: "systemctl is not installed")) }
        let manager = UserManager(systemctl: systemctl)
        let answer = manager.run(["show", "--property=Version"])
        guard answer.status == 0 else {
            let said = answer.output.split(whereSeparator: \.isNewline).first.map(String.init) ?? "exit status \(answer.status)"
            return .failure(Unreachable(reason: "'systemctl --user' reaches no user manager: \(said)"))
        }
        return .success(manager)
    }

    func run(_ arguments: [String]) -> Answer {
        let r = ToolRun.run(systemctl, ["--user"] + arguments)
        return Answer(status: r.status, output: r.output)
    }

    /// `is-enabled`'s word for the unit (enabled, disabled, …), or nil where it knows no such
    /// unit (it says so on stderr, in words that differ between versions).
    func unitState() -> String? {
        let answer = run(["is-enabled", AutostartFiles.unitName])
        let word = answer.output.trimmingCharacters(in: CharacterSet.whitespacesAndNewlines)
        guard !word.isEmpty, !word.contains(" "), word != "not-found" else { return nil }
        return word
    }

    /// The unit file systemd uses: the user's, else the package's (/usr/lib/systemd/user).
    func unitFile() -> String? {
        let answer = run(["show", "--property=FragmentPath", AutostartFiles.unitName])
        guard answer.status == 0, let line = answer.output.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("FragmentPath=") }) else { return nil }
        let path = String(line.dropFirst("FragmentPath=".count))
        return path.isEmpty ? nil : path
    }

    /// The manager's environment, what its units start with (empty when it says nothing).
    func environment() -> [String: String] {
        let answer = run(["show-environment"])
        guard answer.status == 0 else { return [:] }
        var env: [String: String] = [:]
        for line in answer.output.split(whereSeparator: \.isNewline) {
            guard let eq = line.firstIndex(of: "=") else { continue }
            env[String(line[..<eq])] = String(line[line.index(after: eq)...])
        }
        return env
    }

    /// Whether the desktop session started graphical-session.target (GNOME, KDE Plasma, …
    /// do; many lighter desktops do not, and a unit wanted by it does not start there).
    var graphicalSessionActive: Bool { run(["is-active", "--quiet", "graphical-session.target"]).status == 0 }
}

enum AutostartMethod: String, ExpressibleByArgument, CaseIterable {
    case auto, unit, entry
}

struct AutostartEnable: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enable",
        abstract: "Start scanning the desktop at every login, with your settings; restarted after a crash where systemd runs the session."
    )

    @Option(help: "auto: the systemd user unit where the user manager runs the graphical session, else the desktop entry; unit or entry: that one.")
    var method: AutostartMethod = .auto

    @Flag(help: "Replace (or remove) autostart files that were changed by hand, or not written by SwitchScan.")
    var force = false

    func run() throws {
        let paths = try Autostart.paths()
        let executable = Autostart.executable()
        try Autostart.checkExecutable(executable)
        let manager = UserManager.find()
        var useUnit = false
        var why = ""
        switch (method, manager) {
        case (.entry, _):
            useUnit = false
        case (.unit, .success):
            useUnit = true
        case (.unit, .failure(let why)):
            writeErr("Error: cannot use a systemd user unit: \(why.reason). Run 'switchscan autostart enable' to start SwitchScan from the desktop entry instead.\n")
            throw ExitCode(1)
        case (.auto, .success(let m)):
            useUnit = m.graphicalSessionActive
            if !useUnit { why = " (systemd's user manager runs, but graphical-session.target is not active in the desktop session, so a unit would not start)" }
        case (.auto, .failure):
            useUnit = false
        }
        let entryText = AutostartFiles.autostartEntry(executable: executable)
        let unitText = AutostartFiles.unit(executable: executable)
        let entry = Autostart.found(paths.entry, ours: entryText)
        var said: [String] = []
        var undo: [() -> Void] = []
        if useUnit, case .success(let m) = manager {
            let unit = Autostart.found(paths.unit, ours: unitText)
            let failureUnit = Autostart.found(paths.failureUnit, ours: AutostartFiles.failureUnit())
            // Nothing is changed until every file may be.
            let dropIn = "Keep your changes in a drop-in ('systemctl --user edit switchscan') and run 'switchscan autostart enable --force' to replace it."
            try Autostart.mayChange(paths.unit, unit, what: "systemd user unit", force: force, advice: dropIn)
            try Autostart.mayChange(paths.failureUnit, failureUnit, what: "systemd user unit", force: force, advice: dropIn)
            try Autostart.mayChange(paths.entry, entry, what: "autostart entry", force: force, advice: "Run 'switchscan autostart enable --force' to replace it.")
            do {
                said += [try Autostart.put(paths.unit, unitText, was: unit, undo: &undo),
                         try Autostart.put(paths.failureUnit, AutostartFiles.failureUnit(), was: failureUnit, undo: &undo)].compactMap { $0 }
            } catch {
                undo.reversed().forEach { $0() }
                throw error
            }
            _ = m.run(["daemon-reload"])
            let enabled = m.run(["enable", AutostartFiles.unitName])
            guard enabled.status == 0 else {
                // What was there is put back: a failure leaves login as it was.
                undo.reversed().forEach { $0() }
                _ = m.run(["daemon-reload"])
                let output = enabled.output.trimmingCharacters(in: CharacterSet.whitespacesAndNewlines)
                writeErr("Error: 'systemctl --user enable \(AutostartFiles.unitName)' failed: \(output.isEmpty ? "exit status \(enabled.status)" : output)\(output.hasSuffix(".") ? "" : ".") Nothing was changed.\n")
                throw ExitCode(1)
            }
            writeMessage("""
                Enabled: SwitchScan starts with your graphical session, from the systemd user unit \(paths.unit); \
                after a crash it is restarted within 2 s (\(AutostartFiles.burst) failures within \(AutostartFiles.intervalSeconds) s end the restarts).\n
                """)
            said.forEach(writeMessage)
            if try Autostart.remove(paths.entry) {
                if case .link(let target) = entry {
                    writeMessage("Removed the autostart entry \(paths.entry) (a link to \(target), which was left as it is): the unit starts it instead.\n")
                } else {
                    writeMessage("Removed the autostart entry \(paths.entry): the unit starts it instead.\n")
                }
            }
            writeMessage("Start it now with: systemctl --user start switchscan\n")
            if let note = AutostartAdvice.forUnit(session: ProcessInfo.processInfo.environment, manager: { m.environment() }) { writeMessage(note + "\n") }
        } else {
            try Autostart.mayChange(paths.entry, entry, what: "autostart entry", force: force, advice: "Run 'switchscan autostart enable --force' to replace it.")
            if let line = try Autostart.put(paths.entry, entryText, was: entry, undo: &undo) { said.append(line) }
            let removed: UnitRemoval?
            do { removed = try removeUnit(paths, manager: try? manager.get(), force: force) } catch {
                undo.reversed().forEach { $0() }
                throw error
            }
            writeMessage("Enabled: SwitchScan starts when you log in to the desktop, from the autostart entry \(paths.entry)\(why).\n")
            said.forEach(writeMessage)
            if let removed { writeMessage(removed.sentence(instead: true)) }
            let command = AutostartFiles.desktopExec([executable] + AutostartFiles.runArguments())
            if let note = AutostartAdvice.forEntry(session: ProcessInfo.processInfo.environment, command: command) { writeMessage(note + "\n") }
        }
        writeMessage("It runs: \(AutostartFiles.desktopExec([executable] + AutostartFiles.runArguments()))\n")
        if let note = Autostart.kwinNote() { writeMessage(note + "\n") }
        if let note = Autostart.enableGnomeExtension() { writeMessage(note + "\n") }
    }
}

/// What taking the unit away did, to say it truthfully.
struct UnitRemoval {
    /// The user's unit file, removed; or kept (changed by hand) but no longer started.
    var removed: String?
    var kept: String?
    /// The package's unit (no file of the user's), no longer started.
    var packaged: String?

    func sentence(instead: Bool) -> String {
        let start = instead ? "" : "Disabled: "
        let end = instead ? ": the entry starts it instead.\n" : ".\n"
        if let removed { return (instead ? "Removed" : "Disabled: removed") + " the systemd user unit \(removed)\(end)" }
        if let kept {
            return "\(start)the systemd user unit \(kept) no longer starts at login; it was changed by hand, so it is kept "
                + "(remove it, or run 'switchscan autostart disable --force')\(end)"
        }
        return "\(start)the systemd user unit \(packaged ?? AutostartFiles.unitName) no longer starts at login; it belongs to the package and stays installed\(end)"
    }
}

/// Stops the unit starting at login and removes the user's unit files that are
/// SwitchScan's (or all of them with `force`): systemd's own `disable` where the manager
/// runs, else the link it made. Nil when there was nothing of the unit's.
func removeUnit(_ paths: AutostartFiles.Paths, manager: UserManager?, force: Bool) throws -> UnitRemoval? {
    let executable = Autostart.executable()
    let unit = Autostart.found(paths.unit, ours: AutostartFiles.unit(executable: executable))
    let failureUnit = Autostart.found(paths.failureUnit, ours: AutostartFiles.failureUnit())
    let linkedTo = Autostart.linkTarget(paths.unitWants)
    let enabled = manager?.unitState().map { $0 == "enabled" || $0 == "enabled-runtime" } ?? false
    guard unit.isThere || failureUnit.isThere || Autostart.exists(paths.unitWants) || enabled else { return nil }
    if case .other = unit { try Autostart.mayChange(paths.unit, unit, what: "systemd user unit", force: force, advice: "") }
    let packaged = unit.isThere ? nil : (manager?.unitFile() ?? linkedTo)
    if let manager { _ = manager.run(["disable", AutostartFiles.unitName]) }
    // Without the manager (or where it failed), the link it made goes by hand.
    try Autostart.remove(paths.unitWants)
    var result = UnitRemoval()
    switch unit {
    case .nothing: result.packaged = packaged
    case .changed where !force: result.kept = paths.unit
    default: try Autostart.remove(paths.unit); result.removed = paths.unit
    }
    switch failureUnit {
    case .changed where !force, .other: break
    default: try Autostart.remove(paths.failureUnit)
    }
    _ = manager?.run(["daemon-reload"])
    return result
}

struct AutostartDisable: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disable", abstract: "Stop starting SwitchScan at login (a running one goes on until it is ended).")

    @Flag(help: "Also remove autostart files that were changed by hand, or not written by SwitchScan.")
    var force = false

    func run() throws {
        let paths = try Autostart.paths()
        let entry = Autostart.found(paths.entry, ours: AutostartFiles.autostartEntry(executable: Autostart.executable()))
        try Autostart.mayChange(paths.entry, entry, what: "autostart entry", force: force,
                                advice: "Remove it yourself, or run 'switchscan autostart disable --force'.")
        let removedEntry = try Autostart.remove(paths.entry)
        let removedUnit = try removeUnit(paths, manager: try? UserManager.find().get(), force: force)
        if removedEntry {
            if case .link(let target) = entry {
                writeMessage("Disabled: removed the autostart entry \(paths.entry) (a link to \(target), which was left as it is).\n")
            } else {
                writeMessage("Disabled: removed the autostart entry \(paths.entry).\n")
            }
        }
        if let removedUnit { writeMessage(removedUnit.sentence(instead: false)) }
        if !removedEntry && removedUnit == nil { writeMessage("Nothing to disable: SwitchScan does not start at login.\n") }
    }
}

struct AutostartStatus: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Say whether SwitchScan starts at login, and from which file.")

    func run() throws {
        let paths = try Autostart.paths()
        let manager = try? UserManager.find().get()
        var on = false
        // The user's unit, or the package's that `systemctl --user enable switchscan` links.
        let userUnit = Autostart.exists(paths.unit)
        let linkedTo = Autostart.linkTarget(paths.unitWants)
        if let manager, let state = manager.unitState() {
            let file = manager.unitFile() ?? (userUnit ? paths.unit : linkedTo ?? paths.unit)
            let active = manager.run(["is-active", AutostartFiles.unitName]).output.trimmingCharacters(in: CharacterSet.whitespacesAndNewlines)
            on = state == "enabled" || state == "enabled-runtime"
            writeMessage("\(on ? "On" : "Off"): the systemd user unit \(file) (\(state), \(active == "active" ? "running now" : "not running now (\(active))")).\n")
            if on, let note = AutostartAdvice.forUnit(session: ProcessInfo.processInfo.environment, manager: { manager.environment() }) { writeMessage(note + "\n") }
        } else if manager == nil, userUnit || Autostart.exists(paths.unitWants) {
            on = Autostart.exists(paths.unitWants)
            let file = userUnit ? paths.unit : linkedTo ?? paths.unitWants
            writeMessage("\(on ? "On" : "Off"): the systemd user unit \(file) (\(on ? "enabled" : "not enabled"); systemd's user manager cannot be reached to say more).\n")
        }
        var entryKind = stat()
        if Autostart.exists(paths.entry) {
            if stat(paths.entry, &entryKind) == 0, entryKind.st_mode & S_IFMT != S_IFREG {
                writeMessage("Off: the autostart entry \(paths.entry) is \(kindName(entryKind.st_mode & S_IFMT)), not an entry the desktop can read.\n")
            } else if Autostart.entryTurnedOff(paths.entry) {
                writeMessage("Off: the autostart entry \(paths.entry) is there but turned off (Hidden=true or X-GNOME-Autostart-enabled=false).\n")
            } else {
                writeMessage("\(on ? "Also on" : "On"): the autostart entry \(paths.entry) starts SwitchScan when you log in to the desktop.\n")
                on = true
                let command = AutostartFiles.desktopExec([Autostart.executable()] + AutostartFiles.runArguments())
                if let note = AutostartAdvice.forEntry(session: ProcessInfo.processInfo.environment, command: command) { writeMessage(note + "\n") }
            }
        }
        if !on { writeMessage("SwitchScan does not start at login. 'switchscan autostart enable' turns that on.\n") }
        if let note = Autostart.kwinNote() { writeMessage(note + "\n") }
        if Compositor(ProcessInfo.processInfo.environment) == .gnome { writeMessage(GnomeExtension.status(ProcessInfo.processInfo.environment) + "\n") }
    }
}

struct AutostartPrint: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "print", abstract: "Print one of the files: entry (autostart), unit, failure-unit, or application (the menu entry).")

    enum Which: String, ExpressibleByArgument, CaseIterable {
        case entry, unit, failureUnit = "failure-unit", application
    }

    @Argument(help: "entry, unit, failure-unit or application.")
    var which: Which

    @Option(help: "The switchscan they run (default: this one).")
    var executable: String?

    func run() throws {
        let exe = executable ?? Autostart.executable()
        if which != .failureUnit, let problem = AutostartFiles.problem(executable: exe) { throw fail(problem) }
        switch which {
        case .entry: writeOut(AutostartFiles.autostartEntry(executable: exe))
        case .unit: writeOut(AutostartFiles.unit(executable: exe))
        case .failureUnit: writeOut(AutostartFiles.failureUnit())
        case .application: writeOut(AutostartFiles.applicationEntry(executable: exe))
        }
    }
}

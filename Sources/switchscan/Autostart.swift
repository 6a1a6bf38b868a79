import ArgumentParser
import CommandSupport
import Foundation
import ScanFormats

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

    static func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    static func write(_ path: String, _ text: String) throws {
        do {
            try UserFile.update(path, what: "file", mode: 0o644) { _ in Array(text.utf8) }
        } catch {
            writeErr(error.description + "\n")
            throw ExitCode(1)
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

    /// Whether the entry is there but turned off (Hidden=true, or GNOME's own switch).
    static func entryTurnedOff(_ path: String) -> Bool {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return false }
        let lines = text.split(whereSeparator: \.isNewline).map { $0.replacingOccurrences(of: " ", with: "") }
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: systemctl)
        process.arguments = ["--user"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return Answer(status: 127, output: "\(systemctl): \(error)") }
        try? pipe.fileHandleForWriting.close()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Answer(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
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

    func run() throws {
        let paths = try Autostart.paths()
        let executable = Autostart.executable()
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
        if useUnit, case .success(let m) = manager {
            try Autostart.write(paths.unit, AutostartFiles.unit(executable: executable))
            try Autostart.write(paths.failureUnit, AutostartFiles.failureUnit())
            let removedEntry = try Autostart.remove(paths.entry)
            _ = m.run(["daemon-reload"])
            let enabled = m.run(["enable", AutostartFiles.unitName])
            guard enabled.status == 0 else {
                writeErr("Error: 'systemctl --user enable \(AutostartFiles.unitName)' failed: \(enabled.output.trimmingCharacters(in: CharacterSet.whitespacesAndNewlines))\n")
                throw ExitCode(1)
            }
            writeMessage("""
                Enabled: SwitchScan starts with your graphical session, from the systemd user unit \(paths.unit); \
                after a crash it is restarted within 2 s (\(AutostartFiles.burst) failures within \(AutostartFiles.intervalSeconds) s end the restarts).\n
                """)
            if removedEntry { writeMessage("Removed the autostart entry \(paths.entry): the unit starts it instead.\n") }
            writeMessage("Start it now with: systemctl --user start switchscan\n")
        } else {
            try Autostart.write(paths.entry, AutostartFiles.autostartEntry(executable: executable))
            let removed = try removeUnit(paths, manager: try? manager.get())
            writeMessage("Enabled: SwitchScan starts when you log in to the desktop, from the autostart entry \(paths.entry)\(why).\n")
            if removed { writeMessage("Removed the systemd user unit \(paths.unit): the entry starts it instead.\n") }
        }
        writeMessage("It runs: \(AutostartFiles.desktopExec([executable] + AutostartFiles.runArguments()))\n")
    }
}

/// Disables and removes the user's unit files; true if there were any.
func removeUnit(_ paths: AutostartFiles.Paths, manager: UserManager?) throws -> Bool {
    let there = [paths.unit, paths.failureUnit, paths.unitWants].contains(where: Autostart.exists)
    guard there else { return false }
    if let manager, Autostart.exists(paths.unit) { _ = manager.run(["disable", AutostartFiles.unitName]) }
    for path in [paths.unitWants, paths.unit, paths.failureUnit] { try Autostart.remove(path) }
    _ = manager?.run(["daemon-reload"])
    return true
}

struct AutostartDisable: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disable", abstract: "Stop starting SwitchScan at login (a running one goes on until it is ended).")

    func run() throws {
        let paths = try Autostart.paths()
        let removedEntry = try Autostart.remove(paths.entry)
        let removedUnit = try removeUnit(paths, manager: try? UserManager.find().get())
        if removedEntry { writeMessage("Disabled: removed the autostart entry \(paths.entry).\n") }
        if removedUnit { writeMessage("Disabled: removed the systemd user unit \(paths.unit).\n") }
        if !removedEntry && !removedUnit { writeMessage("Nothing to disable: SwitchScan does not start at login.\n") }
    }
}

struct AutostartStatus: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Say whether SwitchScan starts at login, and from which file.")

    func run() throws {
        let paths = try Autostart.paths()
        let manager = try? UserManager.find().get()
        var on = false
        if Autostart.exists(paths.unit) {
            let enabled: String
            if let manager {
                let state = manager.run(["is-enabled", AutostartFiles.unitName]).output.trimmingCharacters(in: CharacterSet.whitespacesAndNewlines)
                let active = manager.run(["is-active", AutostartFiles.unitName]).output.trimmingCharacters(in: CharacterSet.whitespacesAndNewlines)
                on = state == "enabled"
                enabled = "\(state.isEmpty ? "unknown" : state), \(active == "active" ? "running now" : "not running now (\(active))")"
            } else {
                on = Autostart.exists(paths.unitWants)
                enabled = "\(on ? "enabled" : "not enabled"); systemd's user manager cannot be reached to say more"
            }
            writeMessage("\(on ? "On" : "Off"): the systemd user unit \(paths.unit) (\(enabled)).\n")
        }
        if Autostart.exists(paths.entry) {
            if Autostart.entryTurnedOff(paths.entry) {
                writeMessage("Off: the autostart entry \(paths.entry) is there but turned off (Hidden=true or X-GNOME-Autostart-enabled=false).\n")
            } else {
                writeMessage("\(on ? "Also on" : "On"): the autostart entry \(paths.entry) starts SwitchScan when you log in to the desktop.\n")
                on = true
            }
        }
        if !on { writeMessage("SwitchScan does not start at login. 'switchscan autostart enable' turns that on.\n") }
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
        switch which {
        case .entry: writeOut(AutostartFiles.autostartEntry(executable: exe))
        case .unit: writeOut(AutostartFiles.unit(executable: exe))
        case .failureUnit: writeOut(AutostartFiles.failureUnit())
        case .application: writeOut(AutostartFiles.applicationEntry(executable: exe))
        }
    }
}

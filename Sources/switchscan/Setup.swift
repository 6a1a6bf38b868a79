import ArgumentParser
import CommandSupport
import CSys
import Foundation
import ScanCore
import ScanFormats
import ScanHost
import ScanRuntime
import ScanSession
import SwitchInput
import SwitchSetup

/// `switchscan setup`: the switches assigned by pressing them. The flow is `SetupFlow`'s;
/// this reads the devices and the terminal, says and shows what it asks, and writes the files.
struct Setup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Assign switches by pressing them, and choose a scanning style: a local device profile, written once.",
        discussion: """
        Asks for the switch that selects, then optionally a second switch for next and further \
        switches for other actions; each is pressed twice (heard, then confirmed). Questions \
        highlight their answers in turn and the select switch takes one, so the person with \
        the switch can answer alone; at a terminal, y, n or an answer's number answer too. \
        With one switch, a practice of under a minute measures the reaction time (ten \
        targets, then a trial at the interval proposed); accepted, the timing is kept with \
        adaptTiming on. At a terminal, s skips the practice. \
        The switches are written to ~/.config/switchscan/devices/90-local.json (other sections \
        of that file are kept), the scanning style to the settings file once accepted. \
        Ctrl-C stops it, with nothing half written.
        """
    )

    @Flag(help: "Show the switches assigned with setup.")
    var list = false

    @Flag(help: "Remove the switches assigned with setup (the settings file is left as it is).")
    var reset = false

    @Option(help: "Listen only to this input device (repeatable), e.g. /dev/input/event5.")
    var device: [String] = []

    @Option(help: "Seconds each answer of a question stays highlighted (0.5 to 10).")
    var interval = 2.0

    @Flag(name: .customLong("no-speech"), help: "Do not speak the questions (they are spoken through speech-dispatcher where it is available).")
    var noSpeech = false

    func validate() throws {
        if list && reset { throw ValidationError("--list and --reset go alone: run one, then the other.") }
        guard (0.5...10).contains(interval) else { throw ValidationError("--interval takes seconds from 0.5 to 10, e.g. --interval 2") }
    }

    /// Where `run` and `devices` read the user's own profiles: the local profile is there.
    static func localProfile(_ env: [String: String]) throws -> String {
        guard let folder = ProfileLibrary.defaultFolders(devices: "", environment: env).dropFirst().first else {
            throw fail("Error: no home folder (\(HomeFolder.problem(xdg: "XDG_CONFIG_HOME"))), so there is no place for your switches. Set HOME to your home folder.")
        }
        return folder + "/" + LocalProfile.fileName
    }

    func run() throws {
        let env = ProcessInfo.processInfo.environment
        let path = try Self.localProfile(env)
        if list { return try showList(path) }
        if reset { return try removeSetup(path) }
        try assign(path: path, env: env)
    }

    func showList(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            writeMessage("No switches are assigned: \(path) does not exist. Run 'switchscan setup' to assign them.\n")
            return
        }
        let lines: [String]
        do { lines = try LocalProfile.listing(try readFile(path, what: "device profile", limit: ProfileLibrary.maxFileSize), file: path) }
        catch { throw fail(error.description) }
        if lines.isEmpty {
            writeMessage("No switches are assigned with setup in \(path). Run 'switchscan setup' to assign them.\n")
        } else {
            writeMessage("Switches assigned with setup, in \(path):\n" + lines.map { "  " + TerminalText.visible($0) + "\n" }.joined())
        }
    }

    func removeSetup(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            writeMessage("Nothing to remove: \(path) does not exist.\n")
            return
        }
        var remaining = 0, removed = 0
        do {
            try UserFile.update(path, what: "device profile", mode: 0o644) { (current) throws(FileReadError) -> [UInt8] in
                let result = try LocalProfile.removingSetup(current ?? [], file: path, codes: LibevdevCodes())
                (removed, remaining) = (result.removed, result.remaining)
                // Nothing of setup's: the file is written back as it was.
                return result.removed == 0 ? (current ?? []) : result.bytes
            }
        } catch { throw fail(error.description) }
        // A link (a dotfile manager's) is followed and kept, as for every file of the user's:
        // its target keeps an empty list of sections rather than being deleted behind it.
        let link = try? FileManager.default.destinationOfSymbolicLink(atPath: path)
        if removed == 0 {
            writeMessage("Nothing to remove: \(path) has no switches assigned with setup.\n")
        } else if remaining == 0, let link {
            writeMessage("Removed the switches assigned with setup: \(path) (a link to \(link)) now has no sections; the link and its file are kept. The settings file was left as it is.\n")
        } else if remaining == 0 {
            unlink(path)
            writeMessage("Removed the switches assigned with setup: \(path) is deleted. The settings file was left as it is.\n")
        } else {
            writeMessage("Removed the switches assigned with setup from \(path); your own sections are kept. The settings file was left as it is.\n")
        }
    }

    // MARK: The assignment

    /// The assignment is `SetupSession`'s: this parses, prints what it writes, and on its
    /// end exits, dies of the signal that stopped it, or becomes the practice run.
    func assign(path: String, env: [String: String]) throws {
        guard let settingsPath = SettingsFile.userPath(environment: env) else {
            throw fail("Error: no home folder (\(HomeFolder.problem(xdg: "XDG_CONFIG_HOME"))), so there is no place for your settings. Set HOME to your home folder.")
        }
        var c = SetupSession.Configuration(profilePath: path, settingsPath: settingsPath)
        c.devices = device
        c.interval = interval
        c.speech = !noSpeech
        c.profileFolders = ProfileLibrary.defaultFolders(devices: BundledData.file("Devices"), environment: env)
        c.interactive = TerminalState.inputIsTerminal
        c.offerPractice = c.interactive && TerminalState.outputIsTerminal
        c.afterProfileSaved = { Autostart.enableGnomeExtension() }
        TerminationSignals.watch(early: { TerminalState.restore() })
        let ended = OneShot<SetupSession.End>()
        let session = SetupSession(c, out: { writeOut($0); fflush(csys_stdout()) }, err: { writeErr($0) }, onEnd: { ended.set($0) })
        do { try session.start() } catch { throw fail(error.message) }
        TerminationSignals.handle { session.interrupt($0) }
        switch ended.wait() {
        case .finished(practise: false):
            endProcess(finishOutput(0))
        case .finished(practise: true):
            practiceRun()
        case .failed(let message):
            writeErr(message + "\n")
            endProcess(finishOutput(1))
        case .signal(let sig):
            _ = finishOutput(0)
            TerminationSignals.dieOf(sig)
        }
    }

    /// Becomes a short run on the example screen: it opens the devices with the new profile
    /// and reads the new settings.
    func practiceRun() -> Never {
        fflush(csys_stdout())
        var arguments = ["switchscan", "run", "--duration", "60"] + (noSpeech ? [] : ["--speech"])
        arguments += device.flatMap { ["--device", $0] }
        var cArguments = arguments.map { strdup($0) } + [nil]
        execv("/proc/self/exe", &cArguments)
        writeErr("Error: could not start the practice run (\(errnoName(errno))); start it with: switchscan run\n")
        endProcess(finishOutput(1))
    }
}

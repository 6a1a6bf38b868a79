import ArgumentParser
import CommandSupport
import CSys
import Foundation
import ScanCore
import ScanFormats
import ScanHost
import ScanRuntime
import ScanSession
import SpeechOutput
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

    /// One open device and what setup reads from it.
    final class Input {
        let device: EvdevDevice
        var tracker: SwitchTracker
        let description: InputDeviceDescription
        init(device: EvdevDevice, tracker: SwitchTracker, description: InputDeviceDescription) {
            self.device = device; self.tracker = tracker; self.description = description
        }
    }

    static func open(_ d: InputDeviceDescription) throws(InputError) -> Input {
        let device = try EvdevDevice(path: d.node)
        let axes = d.capabilities.contains("joystick") || d.capabilities.contains("gamepad") ? device.axes() : nil
        return Input(device: device, tracker: SwitchTracker(device: SetupDevice(d), heldKeys: device.keysDown(), axes: axes), description: d)
    }

    func assign(path: String, env: [String: String]) throws {
        guard let settingsPath = SettingsFile.userPath(environment: env) else {
            throw fail("Error: no home folder (\(HomeFolder.problem(xdg: "XDG_CONFIG_HOME"))), so there is no place for your settings. Set HOME to your home folder.")
        }
        // A local profile that could not take setup's sections is said now, not after the pressing.
        if FileManager.default.fileExists(atPath: path) {
            do { _ = try LocalProfile.merged(try readFile(path, what: "device profile", limit: ProfileLibrary.maxFileSize), sections: [], file: path, codes: LibevdevCodes()) }
            catch { throw fail(error.description) }
        }
        let udev: Udev
        do { udev = try Udev() } catch { throw fail("Error: \(error)") }
        var found = udev.inputDevices()
        if !device.isEmpty {
            var chosen: [InputDeviceDescription] = []
            for node in device {
                if let d = found.first(where: { $0.node == node }) { chosen.append(d); continue }
                do { chosen.append(try EvdevDevice(path: node).describe()) } catch { throw fail("Error: \(error.description)") }
            }
            found = chosen
        }
        found = found.filter { !$0.isMadeBySwitchScan }
        guard !found.isEmpty else {
            throw fail("""
                Error: No input device found (no /dev/input/event* nodes). Plug in the switch (a switch interface, \
                a keyboard, a gamepad or a mouse) and run 'switchscan setup' again; in a container or VM, the host \
                must pass input devices through.
                """)
        }
        var inputs: [String: Input] = [:]
        var problems: [InputError] = []
        for d in found {
            do { inputs[d.node] = try Self.open(d) } catch { problems.append(error) }
        }
        guard !inputs.isEmpty else {
            // Usually one reason for all (no permission): said once, with its hint.
            var lines = problems.map { "  " + $0.description }
            if let first = problems.first, problems.allSatisfy({ $0.errno == first.errno }) {
                let nodes = problems.map { $0.attempted.hasPrefix("opening ") ? String($0.attempted.dropFirst(8)) : $0.attempted }
                var all = InputError.opening("/dev/input/eventN", first.errno)
                all.attempted = "opening " + (nodes.count <= 3 ? nodes.joined(separator: ", ") : nodes.prefix(3).joined(separator: ", ") + " and \(nodes.count - 3) more")
                lines = ["  " + all.description]
                if first.errno == EACCES || first.errno == EPERM {
                    // Which node is the switch: the helper chooses by name.
                    lines.append("  The devices: " + found.map { "\($0.node) (\(TerminalText.visible($0.name)))" }.joined(separator: ", ") + ".")
                }
            }
            throw fail("Error: No input device can be read, so no switch can be heard.\n" + lines.joined(separator: "\n"))
        }
        for p in problems { writeErr("Left out: \(p.description)\n") }

        // The profiles as they would be without setup's own sections: the codes they map on a
        // device are removed there, so that only the switches pressed act.
        var profiles = DeviceProfiles(sections: [])
        do { profiles = try ProfileLibrary.load(folders: ProfileLibrary.defaultFolders(devices: BundledData.file("Devices"), environment: env)) }
        catch { writeErr("Warning: \(error.description)\n") }
        profiles.sections.removeAll { LocalProfile.isSetupSection($0.name) }

        let interactive = TerminalState.inputIsTerminal
        TerminationSignals.watch(early: { TerminalState.restore() })
        if interactive {
            do { try TerminalState.enterRawInput() } catch { throw fail("Error: \(error)") }
        }
        var signalPipe: [Int32] = [-1, -1]
        guard pipe(&signalPipe) == 0 else { throw fail("Error: cannot make a pipe: \(errnoName(errno))") }
        let signalWrite = signalPipe[1]
        TerminationSignals.handle { sig in
            var byte = UInt8(truncatingIfNeeded: sig)
            _ = write(signalWrite, &byte, 1)
        }
        let monitor = try? Udev.Monitor(udev)

        var speech: SpeechPresenter?
        if !noSpeech {
            var feedback = FeedbackSettings()
            feedback.speech = true
            speech = SpeechPresenter(feedback: feedback, client: "switchscan-setup") { writeErr("Speech: \($0); setup goes on, shown only.\n") }
        }
        var options = SetupFlow.Options()
        options.choiceInterval = .seconds(interval)
        options.offerPractice = interactive && TerminalState.outputIsTerminal
        if let current = try? loadSettings(settingsPath), FileManager.default.fileExists(atPath: settingsPath),
           SetupFlow.intervalRange.contains(current.autoScanInterval.seconds), current.autoScanInterval != ScanSettings().autoScanInterval {
            options.proposedInterval = current.autoScanInterval.seconds
        }
        var flow = SetupFlow(devices: inputs.values.map { SetupDevice($0.description) }.sorted { $0.node < $1.node }, options: options)
        var choiceLineOpen = false
        var practise = false

        /// Shown, and spoken as `spoken` (the text itself by default).
        func say(_ text: String, spoken: String? = nil) {
            if choiceLineOpen { writeOut("\n"); choiceLineOpen = false }
            writeOut(TerminalText.visible(text) + "\n")
            speech.map { try? $0.present([TimedEffect(MonotonicClock.now(), .announce(spoken ?? text))]) }
        }
        func stop(_ message: String, status: Int32) -> Never {
            if choiceLineOpen { writeOut("\n") }
            TerminalState.restore()
            if status != 0 { writeErr(message + "\n") } else if !message.isEmpty { writeOut(message + "\n") }
            speech?.finish()
            endProcess(finishOutput(status))
        }
        /// Carries out what the flow asks; false once it has finished.
        func perform(_ outputs: [SetupOutput]) -> Bool {
            defer { fflush(csys_stdout()) }
            for output in outputs {
                switch output {
                case .say(let text):
                    say(text)
                case .choices(let labels, let k):
                    let line = labels.enumerated().map { $0.offset == k ? "[\($0.element)]" : " \($0.element) " }.joined(separator: " ")
                    if interactive {
                        writeOut("\r\u{1B}[K  " + line)
                        choiceLineOpen = true
                    } else {
                        writeOut("  " + line + "\n")
                    }
                    speech.map { try? $0.present([TimedEffect(MonotonicClock.now(), .announce(labels[k]))]) }
                case .saveProfile(let assignments):
                    var mapped: [String: [EventCode]] = [:]
                    for a in assignments {
                        let input = inputs[a.heard.device.node]
                        let m = profiles.mapping(for: input?.description ?? a.heard.device.description)
                        // Only codes the device has: a generic profile names many it lacks.
                        mapped[a.heard.device.node] = (Array(m.switches.keys) + Array(m.axes.keys)).filter { input?.device.hasCode($0) ?? true }
                    }
                    let sections = LocalProfile.sections(assignments, mapped: mapped)
                    do {
                        try UserFile.update(path, what: "device profile", mode: 0o644) { (current) throws(FileReadError) -> [UInt8] in
                            try LocalProfile.merged(current, sections: sections, file: path, codes: LibevdevCodes())
                        }
                    } catch {
                        stop(error.description, status: 1)
                    }
                    say("Saved the switches in \(path).", spoken: "The switches are saved.")
                    // On GNOME, the extension that draws the highlight and places windows.
                    if let note = Autostart.enableGnomeExtension() { say(note, spoken: note.hasPrefix("Enabled") ? "The GNOME extension is enabled from your next login." : nil) }
                case .saveSettings(let lines):
                    do {
                        for line in lines { try SettingsFile.set(line.key, to: line.json, in: settingsPath) }
                    } catch {
                        stop(error.description + "\nThe switches are saved; the scanning style is not.", status: 1)
                    }
                    say("Saved the scanning style in \(settingsPath).", spoken: "The scanning style is saved.")
                case .practice:
                    practise = true
                case .finished:
                    return false
                case .failed(let message):
                    stop("Error: " + message, status: 1)
                }
            }
            return true
        }

        guard perform(flow.start()) else { stop("", status: 0) }
        for input in inputs.values.sorted(by: { $0.description.node < $1.description.node }) {
            for change in input.tracker.start() { _ = perform(flow.handle(change, at: MonotonicClock.now())) }
        }
        let names = LibevdevCodes()
        var running = true
        while running {
            let order = inputs.keys.sorted()
            var fds = order.map { pollfd(fd: inputs[$0]!.device.fd, events: Int16(POLLIN), revents: 0) }
            fds.append(pollfd(fd: signalPipe[0], events: Int16(POLLIN), revents: 0))
            fds.append(pollfd(fd: interactive ? 0 : -1, events: Int16(POLLIN), revents: 0))
            fds.append(pollfd(fd: monitor?.fd ?? -1, events: Int16(POLLIN), revents: 0))
            var timeout: Int32 = -1
            if let deadline = flow.nextDeadline {
                let ns = max(0, (deadline - MonotonicClock.now()).nanoseconds)
                timeout = Int32(min(Int64(Int32.max), (ns + 999_999) / 1_000_000))
            }
            let n = poll(&fds, nfds_t(fds.count), timeout)
            if n < 0 && errno != EINTR { stop("Error: while waiting for the switches: \(errnoName(errno))", status: 1) }
            let now = MonotonicClock.now()
            if fds[order.count].revents != 0 {
                var byte: UInt8 = 0
                _ = read(signalPipe[0], &byte, 1)
                if choiceLineOpen { writeOut("\n"); choiceLineOpen = false }
                let sig = Int32(byte)
                writeErr(flow.profileSaved
                    ? "Setup stopped. The switches were saved in \(path); the scanning style was not changed.\n"
                    : "Setup stopped; nothing was written.\n")
                TerminalState.restore()
                speech?.finish()
                _ = finishOutput(0)
                TerminationSignals.dieOf(sig)
            }
            for (k, node) in order.enumerated() where fds[k].revents != 0 {
                guard let input = inputs[node] else { continue }
                var changes: [(SwitchChange, ScanInstant)] = []
                let gone = input.device.readRaw { e in
                    guard e.type == RawInputEvent.key || e.type == RawInputEvent.abs else { return }
                    let code = EventCode(type: e.type, code: e.code, name: names.name(type: e.type, code: e.code))
                    for c in input.tracker.handle(code, value: e.value) { changes.append((c, e.time)) }
                }
                for (change, t) in changes where running { running = perform(flow.handle(change, at: t)) }
                if gone != nil, running {
                    inputs[node] = nil
                    running = perform(flow.deviceGone(node, at: now))
                }
            }
            if running, interactive, fds[order.count + 1].revents != 0 {
                var bytes = [UInt8](repeating: 0, count: 64)
                let got = read(0, &bytes, bytes.count)
                for b in bytes.prefix(max(0, got)) where running {
                    running = perform(flow.handleKey(Character(Unicode.Scalar(b)), at: now))
                }
            }
            if running, let monitor, fds[order.count + 2].revents != 0 {
                for change in monitor.changes() where running {
                    switch change {
                    case .added(let d):
                        guard device.isEmpty, !d.isMadeBySwitchScan, inputs[d.node] == nil, let input = try? Self.open(d) else { continue }
                        inputs[d.node] = input
                        running = perform(flow.deviceAdded(SetupDevice(d)))
                    case .removed(let node):
                        if inputs.removeValue(forKey: node) != nil { running = perform(flow.deviceGone(node, at: now)) }
                    }
                }
            }
            if running { running = perform(flow.handleDeadline(at: MonotonicClock.now())) }
        }
        if practise {
            // The devices are closed as the process becomes the run: it opens them with the
            // new profile and reads the new settings.
            fflush(csys_stdout())
            TerminalState.restore()
            speech?.finish()
            var arguments = ["switchscan", "run", "--duration", "60"] + (noSpeech ? [] : ["--speech"])
            arguments += device.flatMap { ["--device", $0] }
            var cArguments = arguments.map { strdup($0) } + [nil]
            execv("/proc/self/exe", &cArguments)
            stop("Error: could not start the practice run (\(errnoName(errno))); start it with: switchscan run", status: 1)
        }
        stop("", status: 0)
    }
}

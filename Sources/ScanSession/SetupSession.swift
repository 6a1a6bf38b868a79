#if canImport(Glibc)
import Glibc
#endif
import Foundation
import ScanCore
import ScanFormats
import ScanHost
import ScanRuntime
import SpeechOutput
import SwitchInput
import SwitchSetup

/// `switchscan setup`'s assignment as a session, as `ScanSession` is `run`'s: `start()`
/// opens the input devices and the files' checks, then a thread of its own (`SerialThread`
/// with a `PollWaiter`) reads the devices, the terminal's keys and hotplug and wakes at the
/// flow's deadlines; `SetupFlow` decides, and the session says and shows what it asks (the
/// speech presenter), writes the files and ends once, through `onEnd`.
public final class SetupSession: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// The local device profile setup writes its sections to.
        public var profilePath: String
        /// The user's settings file, where the scanning style goes once accepted.
        public var settingsPath: String
        /// Only these input devices (`--device`); else every one, and those plugged in.
        public var devices: [String] = []
        /// Seconds each answer of a question stays highlighted.
        public var interval = 2.0
        public var speech = true
        /// Where the device profiles are read (the bundled ones and the user's).
        public var profileFolders: [String] = []
        /// Keys from the terminal answer too, and the choice line is redrawn in place.
        public var interactive = false
        /// The practice run is offered once setup has finished.
        public var offerPractice = false
        /// One switch: the person's reaction time is measured and a speed proposed from it.
        public var measure = true
        /// Called once the profile is saved: a note to say (GNOME's extension enabled), or nil.
        public var afterProfileSaved: @Sendable () -> String? = { nil }

        public init(profilePath: String, settingsPath: String) {
            self.profilePath = profilePath
            self.settingsPath = settingsPath
        }
    }

    public enum End: Sendable, Equatable {
        /// Finished; `practise`: the person asked for the practice run.
        case finished(practise: Bool)
        /// Something setup cannot go on without failed (the message, for stderr).
        case failed(String)
        /// A termination signal stopped it (what was saved is said on stderr).
        case signal(Int32)
    }

    /// One open device and what setup reads from it.
    struct Input {
        let device: EvdevDevice
        var tracker: SwitchTracker
        let description: InputDeviceDescription
    }

    public let configuration: Configuration
    let out: @Sendable (String) -> Void
    let err: @Sendable (String) -> Void
    let onEnd: @Sendable (End) -> Void

    // Made by `start`; then the thread's own.
    private var thread: SerialThread?
    private var waiter: PollWaiter?
    private var inputs: [String: Input] = [:]
    private var flow = SetupFlow(devices: [])
    private var profiles = DeviceProfiles(sections: [])
    private var monitor: Udev.Monitor?
    private var speech: EffectPresenter?
    private var choiceLineOpen = false
    private var practise = false
    private var deadline: (at: ScanInstant, token: Int)?
    private var ended = false
    private let names = LibevdevCodes()

    /// - Parameters:
    ///   - out, err: text for standard output and standard error, as it is to be written.
    ///   - onEnd: called once, on the session's thread, when setup has ended and put the
    ///     terminal back.
    public init(_ configuration: Configuration, out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void,
                onEnd: @escaping @Sendable (End) -> Void) {
        self.configuration = configuration
        self.out = out
        self.err = err
        self.onEnd = onEnd
    }

    /// Opens what setup reads and starts asking. Throws, having started nothing, when the
    /// local profile could not take setup's sections or no device can be read.
    public func start() throws(SessionError) {
        let c = configuration
        // A local profile that could not take setup's sections is said now, not after the pressing.
        if FileManager.default.fileExists(atPath: c.profilePath) {
            do {
                let bytes = try readFile(c.profilePath, what: "device profile", limit: ProfileLibrary.maxFileSize)
                _ = try LocalProfile.merged(bytes, sections: [], file: c.profilePath, codes: LibevdevCodes())
            } catch { throw SessionError(error.description, status: 2) }
        }
        let udev: Udev
        do { udev = try Udev() } catch { throw SessionError("Error: \(error)", status: 2) }
        let found = try Self.devices(udev, only: c.devices)
        var problems: [InputError] = []
        for d in found {
            do { inputs[d.node] = try Self.open(d) } catch { problems.append(error) }
        }
        guard !inputs.isEmpty else { throw SessionError(Self.noneReadable(problems, found: found), status: 2) }
        for p in problems { err("Left out: \(p.description)\n") }

        // The profiles as they would be without setup's own sections: the codes they map on a
        // device are removed there, so that only the switches pressed act.
        do { profiles = try ProfileLibrary.load(folders: c.profileFolders) } catch { err("Warning: \(error.description)\n") }
        profiles.sections.removeAll { LocalProfile.isSetupSection($0.name) }
        if c.devices.isEmpty { monitor = try? Udev.Monitor(udev) }

        if c.speech {
            var feedback = FeedbackSettings()
            feedback.speech = true
            speech = SpeechPresenter(feedback: feedback, client: "switchscan-setup") { [err] in err("Speech: \($0); setup goes on, shown only.\n") }
        }
        var options = SetupFlow.Options()
        options.choiceInterval = .seconds(c.interval)
        options.offerPractice = c.offerPractice
        options.measure = c.measure
        options.seed = UInt64.random(in: 1...UInt64.max)
        if FileManager.default.fileExists(atPath: c.settingsPath), let current = try? loadSettings(c.settingsPath) {
            if SetupFlow.intervalRange.contains(current.autoScanInterval.seconds), current.autoScanInterval != ScanSettings().autoScanInterval {
                options.proposedInterval = current.autoScanInterval.seconds
            }
            options.adaptBounds = current.adaptMinimum.seconds...max(current.adaptMinimum.seconds, current.adaptMaximum.seconds)
        }
        flow = SetupFlow(devices: inputs.values.map { SetupDevice($0.description) }.sorted { $0.node < $1.node }, options: options)

        if c.interactive {
            do { try TerminalState.enterRawInput() } catch { throw SessionError("Error: \(error)", status: 2) }
        }
        let waiter: PollWaiter
        let thread: SerialThread
        do {
            waiter = try PollWaiter()
            thread = try SerialThread(name: "switchscan.setup", body: .waiter(waiter))
        } catch {
            TerminalState.restore()
            throw SessionError("Error: \(error)", status: 1)
        }
        self.waiter = waiter
        self.thread = thread
        thread.async { [self] in begin() }
    }

    /// Stops setup for a termination signal: what was saved is said, then `onEnd`.
    /// (Once setup has ended, nothing: it ended another way first.)
    public func interrupt(_ sig: Int32) {
        guard let thread else { return onEnd(.signal(sig)) }
        thread.async { [self] in
            guard !ended else { return }
            closeChoiceLine()
            err(flow.profileSaved
                ? "Setup stopped. The switches were saved in \(configuration.profilePath); the scanning style was not changed.\n"
                : "Setup stopped; nothing was written.\n")
            end(.signal(sig))
        }
    }

    // MARK: - On the thread

    private func begin() {
        guard let waiter else { return }
        for node in inputs.keys.sorted() {
            waiter.addReader(inputs[node]!.device.fd) { [self] _ in read(node) }
        }
        if configuration.interactive { waiter.addReader(0) { [self] _ in readKeys() } }
        if let monitor { waiter.addReader(monitor.fd) { [self] _ in hotplug(monitor) } }
        var running = perform(flow.start())
        for node in inputs.keys.sorted() {
            for change in inputs[node]!.tracker.start() where running { running = perform(flow.handle(change, at: MonotonicClock.now())) }
        }
        after(running)
    }

    private func read(_ node: String) {
        guard !ended, var input = inputs[node] else { return }
        var changes: [(SwitchChange, ScanInstant)] = []
        let gone = input.device.readRaw { e in
            guard e.type == RawInputEvent.key || e.type == RawInputEvent.abs else { return }
            let code = EventCode(type: e.type, code: e.code, name: names.name(type: e.type, code: e.code))
            for c in input.tracker.handle(code, value: e.value) { changes.append((c, e.time)) }
        }
        inputs[node] = input
        var running = true
        for (change, t) in changes where running { running = perform(flow.handle(change, at: t)) }
        if gone != nil {
            drop(node)
            if running { running = perform(flow.deviceGone(node, at: MonotonicClock.now())) }
        }
        after(running)
    }

    private func readKeys() {
        guard !ended else { return }
        var bytes = [UInt8](repeating: 0, count: 64)
        let got = Glibc.read(0, &bytes, bytes.count)
        // The end of the terminal's input: no more keys, the switches still answer. (A read
        // interrupted is tried again when the terminal is readable.)
        if got == 0 { waiter?.removeReader(0) }
        guard got > 0 else { return }
        var running = true
        let now = MonotonicClock.now()
        for b in bytes.prefix(got) where running { running = perform(flow.handleKey(Character(Unicode.Scalar(b)), at: now)) }
        after(running)
    }

    private func hotplug(_ monitor: Udev.Monitor) {
        guard !ended else { return }
        var running = true
        for change in monitor.changes() where running {
            switch change {
            case .added(let d):
                guard !d.isMadeBySwitchScan, inputs[d.node] == nil, let input = try? Self.open(d) else { continue }
                inputs[d.node] = input
                waiter?.addReader(input.device.fd) { [self] _ in read(d.node) }
                running = perform(flow.deviceAdded(SetupDevice(d)))
            case .removed(let node):
                guard inputs[node] != nil else { continue }
                drop(node)
                running = perform(flow.deviceGone(node, at: MonotonicClock.now()))
            }
        }
        after(running)
    }

    private func drop(_ node: String) {
        guard let input = inputs.removeValue(forKey: node) else { return }
        waiter?.removeReader(input.device.fd)
    }

    /// After input: the end when the flow finished, else its next deadline armed.
    private func after(_ running: Bool) {
        guard !ended else { return }
        if running { armDeadline() } else { end(.finished(practise: practise)) }
    }

    private func armDeadline() {
        guard let thread, !ended else { return }
        let next = flow.nextDeadline
        guard next != deadline?.at else { return }
        if let old = deadline { thread.cancel(old.token) }
        deadline = next.map { at in
            (at, thread.schedule(at: at) { [self] in
                deadline = nil
                guard !ended else { return }
                after(perform(flow.handleDeadline(at: MonotonicClock.now())))
            })
        }
    }

    /// Carries out what the flow asks; false once it has finished (or failed).
    private func perform(_ outputs: [SetupOutput]) -> Bool {
        for output in outputs {
            switch output {
            case .say(let text):
                say(text)
            case .choices(let labels, let k):
                let line = labels.enumerated().map { $0.offset == k ? "[\($0.element)]" : " \($0.element) " }.joined(separator: " ")
                if configuration.interactive {
                    out("\r\u{1B}[K  " + TerminalText.visible(line))
                    choiceLineOpen = true
                } else {
                    out("  " + TerminalText.visible(line) + "\n")
                }
                speak(labels[k])
            case .target(let number, let count, let lit):
                // The target: a bright block while it is lit, for the person to press at.
                let shown = lit ? "\u{1B}[1;7m  ●  NOW  \u{1B}[0m" : "   ·  wait "
                if configuration.interactive {
                    out("\r\u{1B}[K  \(shown)   target \(number) of \(count)   (s skips the practice)")
                    choiceLineOpen = true
                } else if lit {
                    out("  ● now: target \(number) of \(count)\n")
                }
                if lit { speakAtOnce("now") }
            case .trial(let items, let star, let k):
                let row = (0..<items).map { i in
                    let mark = i == star ? "★" : "\(i + 1)"
                    return i == k ? "[\(mark)]" : " \(mark) "
                }.joined(separator: " ")
                if configuration.interactive {
                    out("\r\u{1B}[K  " + row)
                    choiceLineOpen = true
                } else if k >= 0 {
                    out("  " + row + "\n")
                }
                if k >= 0 { speakAtOnce(k == star ? "star" : "\(k + 1)") }
            case .saveProfile(let assignments):
                guard saveProfile(assignments) else { return false }
            case .saveSettings(let lines):
                let path = configuration.settingsPath
                do {
                    for line in lines { try SettingsFile.set(line.key, to: line.json, in: path) }
                } catch {
                    end(.failed(error.description + "\nThe switches are saved; the scanning style is not."))
                    return false
                }
                say("Saved the scanning \(lines.count > 2 ? "style and timing" : "style") in \(path).", spoken: "The scanning style is saved.")
            case .practice:
                practise = true
            case .finished:
                return false
            case .failed(let message):
                end(.failed("Error: " + message))
                return false
            }
        }
        return true
    }

    private func saveProfile(_ assignments: [Assignment]) -> Bool {
        let path = configuration.profilePath
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
            end(.failed(error.description))
            return false
        }
        say("Saved the switches in \(path).", spoken: "The switches are saved.")
        if let note = configuration.afterProfileSaved() {
            say(note, spoken: note.hasPrefix("Enabled") ? "The GNOME extension is enabled from your next login." : nil)
        }
        return true
    }

    /// Shown, and spoken as `spoken` (the text itself by default).
    private func say(_ text: String, spoken: String? = nil) {
        closeChoiceLine()
        out(TerminalText.visible(text) + "\n")
        speak(spoken ?? text)
    }

    private func speak(_ text: String) {
        try? speech?.present([TimedEffect(MonotonicClock.now(), .announce(text))])
    }

    /// Said as a highlight's label is: at once, cutting off what is still being said, so
    /// that the trial's items, a fraction of a second apart, are heard when they are lit.
    private func speakAtOnce(_ text: String) {
        try? speech?.present([TimedEffect(MonotonicClock.now(), .highlight(item: "setup", kind: .element, frame: nil, label: text, context: nil))])
    }

    private func closeChoiceLine() {
        if choiceLineOpen { out("\n"); choiceLineOpen = false }
    }

    /// Ends once: the devices and the terminal put back, speech finished, then `onEnd`.
    private func end(_ result: End) {
        guard !ended else { return }
        ended = true
        closeChoiceLine()
        if let d = deadline { thread?.cancel(d.token) }
        for node in Array(inputs.keys) { drop(node) }
        if let monitor { waiter?.removeReader(monitor.fd) }
        if configuration.interactive { waiter?.removeReader(0) }
        TerminalState.restore()
        speech?.finish()
        onEnd(result)
        thread?.stop()
    }

    // MARK: - The devices

    /// The input devices to listen to: those named (`--device`), else every one that is
    /// not SwitchScan's own.
    static func devices(_ udev: Udev, only: [String]) throws(SessionError) -> [InputDeviceDescription] {
        var found = udev.inputDevices()
        if !only.isEmpty {
            var chosen: [InputDeviceDescription] = []
            for node in only {
                if let d = found.first(where: { $0.node == node }) { chosen.append(d); continue }
                do { chosen.append(try EvdevDevice(path: node).describe()) } catch { throw SessionError("Error: \(error.description)", status: 2) }
            }
            found = chosen
        }
        found = found.filter { !$0.isMadeBySwitchScan }
        guard !found.isEmpty else {
            throw SessionError("""
                Error: No input device found (no /dev/input/event* nodes). Plug in the switch (a switch interface, \
                a keyboard, a gamepad or a mouse) and run 'switchscan setup' again; in a container or VM, the host \
                must pass input devices through.
                """, status: 2)
        }
        return found
    }

    static func open(_ d: InputDeviceDescription) throws(InputError) -> Input {
        let device = try EvdevDevice(path: d.node)
        let axes = d.capabilities.contains("joystick") || d.capabilities.contains("gamepad") ? device.axes() : nil
        return Input(device: device, tracker: SwitchTracker(device: SetupDevice(d), heldKeys: device.keysDown(), axes: axes), description: d)
    }

    /// Why no device can be read: usually one reason for all (no permission), said once,
    /// with its hint and, then, which devices there are.
    static func noneReadable(_ problems: [InputError], found: [InputDeviceDescription]) -> String {
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
        return "Error: No input device can be read, so no switch can be heard.\n" + lines.joined(separator: "\n")
    }
}

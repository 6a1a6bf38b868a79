import DesktopAccess
import Dispatch
import Foundation
import ScanCore
import ScanFormats
import ScanHost
import Compositors
import ScanRuntime
import ScreenScene
import SpeechOutput
import SwitchInput
import Typing
import WordPrediction
import WaylandOutput
import X11Output

/// What `start()` has read and opened before anything runs: the user's files, the desktop
/// (when it scans the desktop) and the first tree.
struct SessionInputs {
    var plan: SessionPlan
    var settings: ScanSettings
    var tree: ElementTree
    var profiles: DeviceProfiles
    var live: DesktopAccess?
    /// The live window's trees after the first, kept until the scanner takes them.
    var liveTrees = LiveTrees()
    var clicker: PointerClicker?
    /// The window `--app` chose when it is not the active one (covered, or behind): it is
    /// raised and activated, so that what is highlighted can be seen.
    var toRaise: String?
    /// Said once the scan runs (on the log, or on the drawn screen's status line).
    var notes: [String] = []
}

/// The presenters and injectors made for a session, before the engine.
struct SessionOutputs {
    var presenter: FanOutPresenter
    var terminal: TerminalPresenter?
    var socket: SocketPresenter?
    var injector: KeyInjector?
    var typing: KeyboardMaker?
    var windows: (any WindowList)?
    /// Makes the message screen: shown at the start (`run --messages`, once the scanner is
    /// there to take the predictions it asks for at once), or from the screen menu.
    var messages: MessageMaker?
    /// Says labels, and with `speechPacing` reports when each has been said.
    var speech: SpeechPresenter?
}

extension ScanSession {
    /// Starts scanning. Throws, having started nothing that outlives it, when the inputs are
    /// wrong or the desktop cannot be read; a failure once the scan runs ends the session
    /// through `shutdown` instead.
    public func start() throws(SessionError) {
        var inputs = try readInputs()
        let rt = RealTimeQueue(options: configuration.realTime)
        self.rt = rt
        if let warning = rt.status.warning { log("Warning: \(warning)") }
        desktop = inputs.live
        let outputs = try makeOutputs(&inputs)
        let scanner = startScanner(inputs, outputs, on: rt)
        startInputs(inputs, outputs, scanner: scanner)
    }

    // MARK: - Reading the inputs

    /// The settings, what is scanned (a layout, or the desktop connected with its pointer)
    /// and the device profiles; every problem with the user's files is said at once.
    private func readInputs() throws(SessionError) -> SessionInputs {
        let c = configuration
        // What the compositor offers, where it is there already (else its name decides).
        let globals = c.isDesktop && Compositor(c.environment).isWayland ? try? WaylandInterface.offered(environment: c.environment) : nil
        let plan = SessionPlan(c, outputIsTerminal: TerminalState.outputIsTerminal, globals: globals)
        var problems: [String] = []
        var settings = ScanSettings()
        if let file = c.settingsFile {
            do { settings = try loadSettings(file) } catch { problems.append(error.message) }
        }
        if let style = c.style { settings.style = style }
        if let mode = c.mode { settings.mode = mode }
        // The engine paces by speech only where it is on (scanning by ear).
        if c.speech { settings.feedback.speech = true }
        var tree: ElementTree?
        var live: DesktopAccess?
        var clicker: PointerClicker?
        var notes: [String] = []
        switch c.target {
        case .layout(let path):
            do { tree = try loadLayout(path).tree } catch { problems.append(error.message) }
        case .desktop(let app):
            guard problems.isEmpty else { throw SessionError(problems.joined(separator: "\n"), status: 2) }
            (live, clicker) = try openDesktop(app: app, plan, notes: &notes)
        case .messages:
            // The screen the message screen is shown over: the display's, where one is drawn on.
            let size = plan.overlay ? displaySize(plan) ?? Self.messageScreenSize : Self.messageScreenSize
            var root = ElementNode(id: "screen")
            root.frame = Rect(x: 0, y: 0, width: size.width, height: size.height)
            tree = ElementTree(screenID: "empty", size: size, nodes: [root])
        }
        let profiles = readProfiles(&problems)
        guard problems.isEmpty else {
            live?.stop()
            throw SessionError(problems.joined(separator: "\n"), status: 2)
        }
        var inputs = SessionInputs(plan: plan, settings: settings, tree: tree ?? ElementTree(screenID: "none", size: (1, 1), nodes: [ElementNode(id: "none")]),
                                   profiles: profiles, live: live, clicker: clicker, notes: notes)
        if let live {
            followWindow(live, &inputs)
        } else if tree == nil {
            throw SessionError("Error: nothing to scan.", status: 2)
        }
        return inputs
    }

    /// The desktop, reached once the display and the bus are there: the pointer first, as
    /// the desktop is given it, with where its reports go (the scanner, made later).
    private func openDesktop(app: String?, _ plan: SessionPlan, notes: inout [String]) throws(SessionError) -> (DesktopAccess, PointerClicker?) {
        try waitForDesktop()
        let screen = displaySize(plan)
        let clicker = try pointer(plan, fallback: screen, notes: &notes)
        var hooks = DesktopHooks(screen: screen, report: report,
                                 onFieldText: { [weak self] text in self?.liveScanner?.fieldText(text) },
                                 onFieldLeft: { [weak self] in self?.liveScanner?.dismissPresented() })
        if let clicker {
            hooks.click = { p in clicker.click(at: p) }
            hooks.gesture = { g, p, to in clicker.perform(g, at: p, to: to) }
        }
        let access = try connectDesktop(hooks)
        // Started with the session, the run may also come before any window: it waits for
        // one, and after the wait starts with nothing to scan (the follower reads the
        // desktop again while nothing can be scanned, and brings the first window that shows).
        let deadline = MonotonicClock.now() + .seconds(configuration.waitForDesktop)
        while case .failure(let e) = access.choose(app: app) {
            if MonotonicClock.now() < deadline { usleep(250_000); continue }
            if configuration.waitForDesktop > 0 { break }
            access.stop()
            throw SessionError(e.description, status: 1)
        }
        return (access, clicker)
    }

    /// The device profiles (when devices are used), and each device named on the command
    /// line opened once: one that is missing or unreadable is said before anything starts.
    private func readProfiles(_ problems: inout [String]) -> DeviceProfiles {
        var profiles = DeviceProfiles(sections: [])
        if configuration.useDevices {
            do { profiles = try ProfileLibrary.load(folders: configuration.profileFolders) } catch { problems.append(error.description) }
        }
        for path in configuration.devices {
            do { _ = try EvdevDevice(path: path) } catch { problems.append("Error: \(error.description)") }
        }
        return profiles
    }

    /// Follows the window scanned: its first tree now (an empty screen while it cannot be
    /// read: the next read brings it), later ones through `liveTrees`.
    private func followWindow(_ live: DesktopAccess, _ inputs: inout SessionInputs) {
        let app: String? = if case .desktop(let app) = configuration.target { app } else { nil }
        let trees = inputs.liveTrees
        let first = live.follow(app: app) { trees.put($0.tree) }
        if let tree = first?.tree { inputs.tree = tree }
        if app != nil, let w = first?.window, !w.active, !w.title.isEmpty, w.role != "menu" { inputs.toRaise = w.title }
        if live.turnedAccessibilityOn { inputs.notes.append(DesktopAccess.turnedOnNote) }
    }

    /// A failed action on the desktop, or text that may not have arrived: said, never
    /// fatal, on the log and through the engine as an announcement.
    var report: @Sendable (String) -> Void {
        { [weak self] text in
            self?.log("Warning: \(text)")
            self?.liveScanner?.report(text)
        }
    }

    // MARK: - The presenters

    /// Every presenter the plan asks for, in the order they are handed effects: the stream
    /// or the terminal, the desktop's actions, the screen's painters, speech, the pointer,
    /// keys and typing, the Windows page, the settings kept.
    private func makeOutputs(_ inputs: inout SessionInputs) throws(SessionError) -> SessionOutputs {
        let c = configuration
        let plan = inputs.plan
        let warn: @Sendable (String) -> Void = { [log] in log("Warning: \($0)") }
        var presenters: [EffectPresenter] = []
        let origin = MonotonicClock.now()
        var socket: SocketPresenter?
        // A start that fails after the socket is made takes it away again (its file, its
        // descriptor, the front ends waiting in it).
        var made = false
        defer { if !made { socket?.finish() } }
        if let path = c.socket {
            do {
                let p = try SocketPresenter(path: path, queue: presentQueue, origin: origin, accepting: false, warn: warn)
                socket = p
                presenters.append(p)
            } catch {
                undoStart()
                throw SessionError("Error: \(error)", status: 2)
            }
        }
        let terminal = plan.output == .terminal ? TerminalPresenter(queue: presentQueue) : nil
        if plan.output != .quiet { presenters.append(terminal ?? JSONLinesPresenter(fd: c.jsonOutput, origin: origin)) }
        if let live = inputs.live { presenters.append(DesktopActuator(live)) }
        let feedback = inputs.settings.feedback
        presenters += screenPainters(plan, feedback: feedback, screen: inputs.tree.screenSize, live: inputs.live != nil, notes: &inputs.notes)
        // The message screen speaks for the person whatever the scanning's speech is set to.
        let speaksForTheUser = c.target == .messages || c.isDesktop
        var speech: SpeechPresenter?
        if feedback.speech || feedback.sound || feedback.positionTones || speaksForTheUser {
            speech = SpeechPresenter(feedback: feedback, speaksForTheUser: speaksForTheUser, pacing: inputs.settings.speechPacing, warn: warn)
            presenters.append(speech!)
        }
        if inputs.live == nil {
            do { inputs.clicker = try pointer(plan, fallback: (inputs.tree.screenSize.width, inputs.tree.screenSize.height), notes: &inputs.notes) } catch {
                undoStart()
                throw error
            }
            if let clicker = inputs.clicker { presenters.append(PointerPresenter(clicker, warn: warn)) }
        }
        if let clicker = inputs.clicker { inputs.notes.append("Pointer: \(clicker.summary)") }
        let (injector, typing) = keysAndTyping(plan, inputs.settings, live: inputs.live != nil, notes: &inputs.notes, presenters: &presenters)
        let windows = windowsPage(plan, notes: &inputs.notes)
        if let windows { presenters.append(WindowPresenter(windows)) }
        self.windows = windows
        if let path = c.settingsKeptIn { presenters.append(SettingsKeeper(path: path, warn: warn)) }
        // The message screen: the whole run (--messages), or the desktop's screen menu's Message.
        let messages = c.target == .messages || c.isDesktop
            ? messageMaker(inputs, typing: typing, notes: &inputs.notes, presenters: &presenters) : nil
        let presenter = FanOutPresenter(presenters)
        self.presenter = presenter
        terminal?.onFailure = { [weak self] e in self?.shutdown(.failed("Error: the terminal presenter failed: \(e)", status: 1)) }
        made = true
        return SessionOutputs(presenter: presenter, terminal: terminal, socket: socket, injector: injector, typing: typing, windows: windows,
                              messages: messages, speech: speech)
    }

    /// What draws the highlight on the screen: GNOME Shell through SwitchScan's extension,
    /// else the X11 overlay wherever a display opens, and the layer-shell overlay on the
    /// other Wayland compositors. One that cannot be made is said; the run goes on.
    private func screenPainters(_ plan: SessionPlan, feedback: FeedbackSettings, screen: Rect, live: Bool,
                                notes: inout [String]) -> [EffectPresenter] {
        var painters: [EffectPresenter] = []
        // Without the extension (its notice said why) XWayland's windows still get the X11
        // overlay, which Mutter shows as drawn.
        var shellDraws = false
        if plan.shellOverlay && (!live || extensionNotice == nil) {
            let lost: @Sendable (String) -> Void = { [log] in log("Warning: \($0)") }
            let layout = (try? WaylandGlobals.layout(display: configuration.environment["WAYLAND_DISPLAY"])) ?? nil
            let whole = layout ?? PixelRect(x: 0, y: 0, width: Int(screen.width), height: Int(screen.height))
            do {
                let overlay = try ShellOverlay(feedback: feedback, screen: whole, queue: presentQueue, onLost: lost)
                if let note = overlay.fontNote { notes.append("Warning: \(note)") }
                painters.append(overlay)
                shellDraws = true
            } catch {
                notes.append("Warning: the highlight is not drawn on the screen: \(error).")
            }
        }
        if plan.overlay && !shellDraws {
            do { painters.append(try OverlayPresenter(feedback: feedback, queue: presentQueue)) } catch {
                notes.append("Warning: the highlight is not drawn on the screen: \(error)")
            }
        }
        if plan.layerOverlay {
            // A compositor that goes (a crash, a logout) ends the run, even while nothing is
            // presented (no windows left to scan).
            let lost: @Sendable (WaylandError) -> Void = { [weak self] e in self?.shutdown(.failed("Error: \(e)", status: 1)) }
            do {
                let overlay = try LayerOverlay(feedback: feedback, queue: presentQueue, onLost: lost)
                if let note = overlay.fontNote { notes.append("Warning: \(note)") }
                painters.append(overlay)
            } catch {
                notes.append("Warning: the highlight is not drawn on the screen: \(error).")
            }
        }
        return painters
    }

    /// The Keys page's keys, sent where the clicks go, and typing: selecting a text field
    /// (or the screen menu's Keyboard) opens the keyboard, whose text goes to the focused
    /// application, wherever keys can be sent.
    private func keysAndTyping(_ plan: SessionPlan, _ settings: ScanSettings, live: Bool, notes: inout [String],
                               presenters: inout [EffectPresenter]) -> (KeyInjector?, KeyboardMaker?) {
        guard plan.injection != .none else { return (nil, nil) }
        let injector = KeyInjector(plan.injection, compositor: plan.compositor)
        let warn: @Sendable (String) -> Void = { [log] in log("Warning: \($0)") }
        // On the desktop a key not sent (a menu's Close, the Keys page) is said, as a failed
        // action is.
        presenters.append(KeyPresenter(injector, warn: live ? report : warn))
        notes.append(injector.problem.map { "Warning: \($0)" } ?? "Keys: \(injector.summary)")
        guard injector.problem == nil, let typing = keyboardMaker(settings, notes: &notes, presenters: &presenters) else { return (injector, nil) }
        presenters.append(TextPresenter(injector, warn: report))
        return (injector, typing)
    }

    /// The window manager's (or the compositor's) windows, for the screen menu's Windows
    /// page. (Without GNOME Shell's extension, its notice says what the page needs.)
    private func windowsPage(_ plan: SessionPlan, notes: inout [String]) -> (any WindowList)? {
        guard let source = plan.windowsPage, source != .gnome || extensionNotice == nil else { return nil }
        do { return try WindowPlaces.list(source, environment: configuration.environment, report: report) } catch {
            notes.append("Note: the Windows page is not offered: \(error)")
            return nil
        }
    }

    // MARK: - The engine and the inputs

    /// The engine on its real-time thread, its effects handed to the presenters on their
    /// queue, and the desktop's trees and windows wired to it.
    private func startScanner(_ inputs: SessionInputs, _ outputs: SessionOutputs, on rt: RealTimeQueue) -> LiveScanner {
        let live = inputs.live
        var engine = ScanEngine(tree: inputs.tree, settings: inputs.settings)
        engine.keyboardProvider = outputs.typing
        if configuration.isDesktop { engine.messageProvider = outputs.messages }
        if outputs.windows != nil { engine.raiseWhenListed = inputs.toRaise }
        if live != nil, extensionNotice != nil {
            engine.pointModeRefusal = "Point mode cannot be used: SwitchScan's GNOME Shell extension is not answering, so its lines cannot be shown. "
                + "Enable the extension and log in again."
        } else if live != nil, inputs.clicker == nil {
            engine.pointModeRefusal = "Point mode cannot be used: there is no pointer to tap with."
        }
        // Scanning by ear: speech-dispatcher tells when each label has been said.
        if inputs.settings.speechPacing, outputs.speech != nil { engine.setLabelsReported(true) }
        engine.tallies = configuration.usageLog != nil
        let presenter = outputs.presenter
        let scanner = LiveScanner(engine: engine, queue: rt) { [presentQueue, live, weak self] effects in
            presentQueue.async { [weak self] in
                // While the application typed into does not answer, nothing chosen is sent to
                // it: a word chosen then is neither said as if it were typed nor learned.
                var effects = effects
                if live?.typingTargetStalled == true, effects.contains(where: \.effect.typesText) {
                    effects.removeAll {
                        switch $0.effect {
                        case .announce, .learnWord: return true
                        default: return false
                        }
                    }
                }
                do { try presenter.present(effects) } catch {
                    self?.shutdown(.failed("Error: presenting effects failed: \(error)", status: 1))
                }
            }
        }
        lock.withLock { self.scanner = scanner }
        outputs.speech?.onLabelSaid = { [weak scanner] shownAt in scanner?.labelSaid(shownAt: shownAt) }
        outputs.speech?.onLabelBegan = { [weak scanner] shownAt in scanner?.labelBegan(shownAt: shownAt) }
        if configuration.target == .messages, var maker = outputs.messages {
            // Shown when the scan starts, its keys first.
            let made = maker.messageScreen(on: inputs.tree.screenSize)
            scanner.present(made.tree, logic: made.logic, effects: made.effects)
        }
        outputs.windows?.start { list in scanner.setWindows(list) }
        if let path = configuration.usageLog {
            let keeper = UsageKeeper(path: path, scanner: scanner) { [log] in log("Warning: \($0)") }
            keeper.start()
            usageKeeper = keeper
        }
        // A phrase a carer adds while the run goes on is offered at once.
        if outputs.messages != nil, let path = configuration.phrasesFile {
            phrasesWatcher = PhrasesWatcher(path: path, deliver: { scanner.phrasesChanged($0) }) { [log] in log("Warning: \($0)") }
        }
        if let live {
            // Text goes into the field through AT-SPI where its toolkit does that well and the
            // field confirms it; keys elsewhere (docs/TYPING.md).
            let injector = outputs.injector
            injector?.insert = { text in live.insertIntoField(text) }
            injector?.sent = { keys in live.keysSent(keys) }
            injector?.stalled = { live.typingTargetStalled }
            inputs.liveTrees.attach { scanner.replaceTree($0) }
        }
        // The scan starts before any device is attached: both go through the engine's queue
        // in order, so a press read once "Using …" is printed always meets a running scan
        // (a press before the start would be dropped, as it highlighted nothing).
        scanner.start()
        return scanner
    }

    /// The notes said, then the switches (devices, else the terminal's keys), the run's
    /// duration, and last the socket's front ends.
    private func startInputs(_ inputs: SessionInputs, _ outputs: SessionOutputs, scanner: LiveScanner) {
        let c = configuration
        // Messages while scanning: on the log, or with the screen drawn, on its status line
        // (through the engine, as every presenter's input) and again once the terminal is
        // restored.
        let drawn = outputs.terminal != nil
        let say: @Sendable (String) -> Void = { [log, weak self] text in
            if drawn {
                self?.noteForLater(text)
                scanner.notice(text)
            } else {
                log(text)
            }
        }
        for note in inputs.notes { say(note) }
        if let extensionNotice { scanner.report(extensionNotice) }
        let keysAreSwitches = !(c.useDevices && attachDevices(inputs.profiles, scanner: scanner, say: say))
        if c.terminalKeys { startTerminalKeys(scanner: scanner, keysAreSwitches: keysAreSwitches) }
        if let duration = c.duration {
            control.asyncAfter(deadline: .now() + duration) { [weak self] in self?.shutdown(.finished) }
        }
        // Last: front ends that take every descriptor left cannot keep a part above from starting.
        outputs.socket?.startAccepting()
    }
}

private extension Effect {
    /// Text typed or deleted, or a key sent to the focused application.
    var typesText: Bool {
        switch self {
        case .typeText, .deleteText, .key, .shortcut: return true
        default: return false
        }
    }
}

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

/// Why a session could not start, and the exit status a command gives it: 2 for the user's
/// files and arguments, 1 for what the system refused (the accessibility bus, a display).
public struct SessionError: Error, CustomStringConvertible {
    public var message: String
    public var status: Int32
    public init(_ message: String, status: Int32) { self.message = message; self.status = status }
    public var description: String { message }
}

/// How a session ends.
public enum EndReason: Sendable, Equatable {
    /// The user quit (q, the end of the terminal's input) or the duration ran out.
    case finished
    /// A termination signal: the status is 128 + the signal, and the process should die of it.
    case signal(Int32)
    /// Something the scan cannot go on without failed after it started.
    case failed(String, status: Int32)
}

/// What the host is told once a session has ended and put everything back.
public struct SessionEnd: Sendable {
    public var reason: EndReason
    /// Messages shown on the drawn screen while it ran, to repeat on stderr now that the
    /// terminal is back (so they stay in the scrollback).
    public var notes: [String]
    public init(reason: EndReason, notes: [String]) { self.reason = reason; self.notes = notes }
    public var status: Int32 {
        switch reason {
        case .finished: 0
        case .signal(let sig): 128 + sig
        case .failed(_, let status): status
        }
    }
}

/// A scanning session: what `switchscan run` does, as a library. `start()` reads the inputs,
/// builds the presenters and injectors its configuration asks for, starts the engine on its
/// real-time thread and then the inputs (devices, the terminal's keys); `shutdown` ends it
/// once, in one order (inputs, the desktop, the engine, the presenters, the terminal), and
/// then calls `onEnd`.
public final class ScanSession: @unchecked Sendable {
    public let configuration: RunConfiguration
    /// One line per message (warnings, notes), without a newline.
    let log: @Sendable (String) -> Void
    let onEnd: @Sendable (SessionEnd) -> Void

    let presentQueue = DispatchQueue(label: "switchscan.present")
    /// Where a session ends.
    let control = DispatchQueue(label: "switchscan.control")
    private let lock = Lock()
    private var ending = false
    private var later: [String] = []

    // Set while starting, before anything can end the session; read once it ends.
    private var rt: RealTimeQueue?
    private var presenter: EffectPresenter?
    private var scanner: LiveScanner?     // set under `lock`
    /// The scanner once it is made, for the desktop's and the actions' reports (their
    /// threads' own).
    private var liveScanner: LiveScanner? { lock.withLock { scanner } }
    private var keyboard: KeyboardInput?
    private var devices: SwitchDevices?
    private var desktop: DesktopAccess?
    private var windows: (any WindowList)?
    /// Under GNOME without its extension answering: what the user is told, once on the log
    /// at the start and once through the scan (said aloud where speech is on).
    private var extensionNotice: String?

    /// - Parameters:
    ///   - log: where messages go that are not effects (stderr for the command line).
    ///   - onEnd: called once, on the session's own queue, after everything is put back.
    public init(_ configuration: RunConfiguration, log: @escaping @Sendable (String) -> Void,
                onEnd: @escaping @Sendable (SessionEnd) -> Void) {
        self.configuration = configuration
        self.log = log
        self.onEnd = onEnd
    }

    /// Starts scanning. Throws, having started nothing that outlives it, when the inputs are
    /// wrong or the desktop cannot be read; a failure once the scan runs ends the session
    /// through `shutdown` instead.
    public func start() throws(SessionError) {
        let c = configuration
        // What the compositor offers, where it is there already (else its name decides).
        let globals = c.isDesktop && Compositor(c.environment).isWayland ? try? WaylandInterface.offered(environment: c.environment) : nil
        let plan = SessionPlan(c, outputIsTerminal: TerminalState.outputIsTerminal, globals: globals)
        var problems: [String] = []
        var scanSettings = ScanSettings()
        if let file = c.settingsFile {
            do { scanSettings = try loadSettings(file) } catch { problems.append(error.message) }
        }
        if let style = c.style { scanSettings.style = style }
        if let mode = c.mode { scanSettings.mode = mode }
        var tree: ElementTree?
        var live: DesktopAccess?
        var notes: [String] = []
        var clicker: PointerClicker?
        // A failed action on the desktop, or text that may not have arrived, is said, never
        // fatal: on the log, and through the engine as an announcement.
        let report: @Sendable (String) -> Void = { [weak self] text in
            self?.log("Warning: \(text)")
            self?.liveScanner?.report(text)
        }
        switch c.target {
        case .layout(let path):
            do { tree = try loadLayout(path).tree } catch { problems.append(error.message) }
        case .desktop(let app):
            guard problems.isEmpty else { throw SessionError(problems.joined(separator: "\n"), status: 2) }
            // The pointer first: the desktop is given it, with what it tells the scanner
            // (which comes once the first window is read).
            try waitForDesktop()
            let screen = displaySize(plan)
            clicker = try pointer(plan, fallback: screen, notes: &notes)
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
            let windowDeadline = MonotonicClock.now() + .seconds(c.waitForDesktop)
            while case .failure(let e) = access.choose(app: app) {
                if MonotonicClock.now() < windowDeadline { usleep(250_000); continue }
                if c.waitForDesktop > 0 { break }
                access.stop()
                throw SessionError(e.description, status: 1)
            }
            live = access
        }
        var profiles = DeviceProfiles(sections: [])
        if c.useDevices {
            do { profiles = try ProfileLibrary.load(folders: c.profileFolders) } catch { problems.append(error.description) }
        }
        // An explicitly named device must exist and be readable: say so before starting.
        for path in c.devices {
            do { _ = try EvdevDevice(path: path) } catch { problems.append("Error: \(error.description)") }
        }
        guard problems.isEmpty else {
            live?.stop()
            throw SessionError(problems.joined(separator: "\n"), status: 2)
        }
        // The live window's first snapshot; later ones reach the scanner as they come.
        let liveTrees = LiveTrees()
        /// The window `--app` chose when it is not the active one (covered, or behind): it is
        /// raised and activated, so that what is highlighted can be seen.
        var toRaise: String?
        if let live {
            let app: String? = if case .desktop(let app) = c.target { app } else { nil }
            let first = live.follow(app: app) { liveTrees.put($0.tree) }
            tree = first?.tree
            if app != nil, let w = first?.window, !w.active, !w.title.isEmpty, w.role != "menu" { toRaise = w.title }
            // A window that could not be read yet: scanning starts with nothing, and the
            // next read brings it.
            if tree == nil { tree = ElementTree(screenID: "none", size: (1, 1), nodes: [ElementNode(id: "none")]) }
        }
        guard let tree else { throw SessionError("Error: nothing to scan.", status: 2) }

        let rt = RealTimeQueue(options: c.realTime)
        self.rt = rt
        if let warning = rt.status.warning { log("Warning: \(warning)") }
        desktop = live
        let warn: @Sendable (String) -> Void = { [log] in log("Warning: \($0)") }
        var presenters: [EffectPresenter] = []
        if live?.turnedAccessibilityOn == true { notes.append(DesktopAccess.turnedOnNote) }
        let origin = MonotonicClock.now()
        var socketPresenter: SocketPresenter?
        // A start that fails after the socket is made takes it away again (its file, its
        // descriptor, the front ends waiting in it).
        var startedAll = false
        defer { if !startedAll { socketPresenter?.finish() } }
        if let socket = c.socket {
            do {
                let p = try SocketPresenter(path: socket, queue: presentQueue, origin: origin, accepting: false, warn: warn)
                socketPresenter = p
                presenters.append(p)
            } catch {
                undoStart()
                throw SessionError("Error: \(error)", status: 2)
            }
        }
        let terminal = plan.output == .terminal ? TerminalPresenter(queue: presentQueue) : nil
        if plan.output != .quiet { presenters.append(terminal ?? JSONLinesPresenter(fd: c.jsonOutput, origin: origin)) }
        if let live { presenters.append(DesktopActuator(live)) }
        var feedback = scanSettings.feedback
        if c.speech { feedback.speech = true }
        // On GNOME, GNOME Shell draws the scene through SwitchScan's extension; without it
        // (the notice said why) XWayland's windows still get the X11 overlay, which Mutter
        // shows as drawn.
        var shellDraws = false
        if plan.shellOverlay && (live == nil || extensionNotice == nil) {
            let lost: @Sendable (String) -> Void = { [log] in log("Warning: \($0)") }
            let screen = (try? WaylandGlobals.layout(display: c.environment["WAYLAND_DISPLAY"])) ?? nil
            let whole = screen ?? PixelRect(x: 0, y: 0, width: Int(tree.screenSize.width), height: Int(tree.screenSize.height))
            do {
                let overlay = try ShellOverlay(feedback: feedback, screen: whole, queue: presentQueue, onLost: lost)
                if let note = overlay.fontNote { notes.append("Warning: \(note)") }
                presenters.append(overlay)
                shellDraws = true
            } catch {
                notes.append("Warning: the highlight is not drawn on the screen: \(error).")
            }
        }
        // The highlight on the real screen, wherever a display can be opened.
        if plan.overlay && !shellDraws {
            do { presenters.append(try OverlayPresenter(feedback: feedback, queue: presentQueue)) } catch {
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
                presenters.append(overlay)
            } catch {
                notes.append("Warning: the highlight is not drawn on the screen: \(error).")
            }
        }
        if feedback.speech || feedback.sound { presenters.append(SpeechPresenter(feedback: feedback, warn: warn)) }
        if live == nil {
            do { clicker = try pointer(plan, fallback: (tree.screenSize.width, tree.screenSize.height), notes: &notes) } catch {
                undoStart()
                throw error
            }
            if let clicker { presenters.append(PointerPresenter(clicker, warn: warn)) }
        }
        if let clicker { notes.append("Pointer: \(clicker.summary)") }
        // The Keys page's keys go where the clicks go.
        let injector = plan.injection == .none ? nil : KeyInjector(plan.injection, compositor: plan.compositor)
        if let injector {
            // On the desktop a key not sent (a menu's Close, the Keys page) is said, as a
            // failed action is.
            presenters.append(KeyPresenter(injector, warn: live != nil ? report : warn))
            notes.append(injector.problem.map { "Warning: \($0)" } ?? "Keys: \(injector.summary)")
        }
        // Typing: selecting a text field (or the screen menu's Keyboard) opens the keyboard,
        // whose text goes to the focused application: wherever keys can be sent.
        var typing: KeyboardMaker?
        if let injector, injector.problem == nil {
            typing = keyboardMaker(scanSettings, notes: &notes, presenters: &presenters)
            if typing != nil { presenters.append(TextPresenter(injector, warn: report)) }
        }
        // The window manager's (or the compositor's) windows, for the screen menu's Windows page.
        var desktopWindows: (any WindowList)?
        // (Without GNOME Shell's extension, its notice says what the Windows page needs.)
        if let source = plan.windowsPage, source != .gnome || extensionNotice == nil {
            do { desktopWindows = try WindowPlaces.list(source, environment: configuration.environment, report: report) } catch {
                notes.append("Note: the Windows page is not offered: \(error)")
            }
        }
        if let desktopWindows { presenters.append(WindowPresenter(desktopWindows)) }
        windows = desktopWindows
        if let path = c.settingsKeptIn { presenters.append(SettingsKeeper(path: path, warn: warn)) }
        let presenter = FanOutPresenter(presenters)
        self.presenter = presenter
        terminal?.onFailure = { [weak self] e in self?.shutdown(.failed("Error: the terminal presenter failed: \(e)", status: 1)) }

        var engine = ScanEngine(tree: tree, settings: scanSettings)
        engine.keyboardProvider = typing
        if desktopWindows != nil { engine.raiseWhenListed = toRaise }
        if live != nil, extensionNotice != nil {
            engine.pointModeRefusal = "Point mode cannot be used: SwitchScan's GNOME Shell extension is not answering, so its lines cannot be shown. "
                + "Enable the extension and log in again."
        } else if live != nil, clicker == nil {
            engine.pointModeRefusal = "Point mode cannot be used: there is no pointer to tap with."
        }
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
        desktopWindows?.start { list in scanner.setWindows(list) }
        if let live {
            // Text goes into the field through AT-SPI where its toolkit does that well and the
            // field confirms it; keys elsewhere (docs/TYPING.md).
            injector?.insert = { text in live.insertIntoField(text) }
            injector?.sent = { keys in live.keysSent(keys) }
            injector?.stalled = { live.typingTargetStalled }
            liveTrees.attach { scanner.replaceTree($0) }
        }
        // The scan starts before any device is attached: both go through the engine's queue
        // in order, so a press read once "Using …" is printed always meets a running scan
        // (a press before the start would be dropped, as it highlighted nothing).
        scanner.start()
        // Messages while scanning: on the log, or with the screen drawn, on its status line
        // (through the engine, as every presenter's input) and again once the terminal is
        // restored.
        let drawn = terminal != nil
        let say: @Sendable (String) -> Void = { [log, weak self] text in
            if drawn {
                self?.noteForLater(text)
                scanner.notice(text)
            } else {
                log(text)
            }
        }
        for note in notes { say(note) }
        if let extensionNotice { scanner.report(extensionNotice) }
        let keysAreSwitches = !(c.useDevices && attachDevices(profiles, scanner: scanner, say: say))
        if c.terminalKeys { startTerminalKeys(scanner: scanner, keysAreSwitches: keysAreSwitches) }
        if let duration = c.duration {
            control.asyncAfter(deadline: .now() + duration) { [weak self] in self?.shutdown(.finished) }
        }
        // Last: front ends that take every descriptor left cannot keep a part above from starting.
        socketPresenter?.startAccepting()
        startedAll = true
    }

    /// Ends the session once, whichever way it ends: stop the inputs, the desktop and the
    /// timing thread, let the presenters finish (the terminal restored), then `onEnd`.
    public func shutdown(_ reason: EndReason) {
        lock.lock()
        if ending { lock.unlock(); return }
        ending = true
        lock.unlock()
        control.async { [self] in
            keyboard?.stop()
            devices?.closeAll()
            desktop?.stop()
            windows?.stop()
            rt?.stop()
            presentQueue.sync { presenter?.finish() }
            TerminalState.restore()
            onEnd(SessionEnd(reason: reason, notes: lock.withLock { later }))
        }
    }

    /// A session that failed while starting puts back what it had begun.
    private func undoStart() {
        desktop?.stop()
        rt?.stop()
        TerminalState.restore()
    }

    private func noteForLater(_ text: String) {
        lock.withLock {
            later.append(text)
            // A long run with devices coming and going: the last messages are the ones that count.
            if later.count > 50 { later.removeFirst(later.count - 50) }
        }
    }

    /// With `waitForDesktop` (a run started with the session), the X display (when DISPLAY
    /// names one) and the accessibility bus are waited for that long, before the pointer and
    /// the desktop are made. libatspi cannot try twice in a process, so the bus is asked
    /// without it until it answers.
    private func waitForDesktop() throws(SessionError) {
        let wait = configuration.waitForDesktop
        guard wait > 0 else { return }
        let deadline = MonotonicClock.now() + .seconds(wait)
        let display = configuration.environment["DISPLAY"] ?? ""
        while !display.isEmpty && XTestPointer.screenSize(display: nil) == nil {
            guard MonotonicClock.now() < deadline else {
                throw SessionError("Error: the X display \(display) could not be opened within \(formatFixed(wait, decimals: 0)) s.", status: 1)
            }
            usleep(250_000)
        }
        while !DesktopAccess.busAnswers(timeoutMilliseconds: 2000) && MonotonicClock.now() < deadline { usleep(250_000) }
    }

    /// The accessibility bus, within 10 s, given `hooks` and the windows' places (asked once
    /// the display, and so the compositor, is there).
    private func connectDesktop(_ hooks: DesktopHooks) throws(SessionError) -> DesktopAccess {
        let env = configuration.environment
        let places = WindowPlaces.open(environment: env)
        if let note = places.note { log(note) }
        if places.source == nil, Compositor(env) == .gnome { extensionNotice = places.note }
        var hooks = hooks
        hooks.places = places.source
        hooks.wayland = Compositor(env).isWayland
        return try DesktopConnection.connect(hooks: hooks)
    }

    /// The screen's size from the display, known before the desktop's first read (point mode
    /// sweeps all of it): a compositor's layout of outputs (there may be no X server, and
    /// XWayland's root lags a new output), else the X display's (the registry's own idea lags).
    private func displaySize(_ plan: SessionPlan) -> (width: Double, height: Double)? {
        let env = configuration.environment
        if plan.compositor.isWayland, let l = try? WaylandGlobals.layout(display: env["WAYLAND_DISPLAY"].flatMap { $0.isEmpty ? nil : $0 }) {
            return (Double(l.x + l.width), Double(l.y + l.height))
        }
        return XTestPointer.screenSize(display: nil).map { (width: $0.0, height: $0.1) }
    }

    /// The pointer for taps, as planned. A pointer asked for by name that cannot be made is
    /// an error; one chosen is a note and the run goes on without it.
    private func pointer(_ plan: SessionPlan, fallback: (width: Double, height: Double)?, notes: inout [String]) throws(SessionError) -> PointerClicker? {
        switch plan.injection {
        case .none:
            return nil
        case .xtest:
            do { return XTestClicker(try XTestPointer(display: nil)) } catch {
                if plan.injectionAsked { throw SessionError("Error: --pointer xtest needs an X display: \(error). Use --pointer uinput on Wayland or the console.", status: 2) }
                notes.append("Warning: no pointer for taps: \(error)")
                return nil
            }
        case .wayland:
            do { return try CompositorInput.pointer(plan.compositor) } catch {
                if plan.injectionAsked { throw SessionError("Error: --pointer wayland: \(error). Use --pointer uinput where the compositor has no virtual pointer.", status: 2) }
                // Neither a wlroots compositor nor KWin that lets SwitchScan in: uinput, where it can be had.
                let size = configuration.screenSize.map { (Double($0.width), Double($0.height)) } ?? fallback
                if let size, let p = try? UinputPointer(width: Int(size.0), height: Int(size.1)) {
                    notes.append("Note: \(error); taps go through uinput.")
                    return UinputClicker(p)
                }
                notes.append("Warning: no pointer for taps: \(error), and uinput cannot be used either.")
                return nil
            }
        case .uinput:
            guard let size = configuration.screenSize.map({ (Double($0.width), Double($0.height)) })
                    ?? (plan.screenFromDisplay ? XTestPointer.screenSize(display: nil) : nil) ?? fallback else {
                if plan.injectionAsked { throw SessionError("Error: --pointer uinput needs the screen's size: no display tells it; give it with --screen WxH.", status: 2) }
                notes.append("Warning: no pointer for taps: no display tells the screen's size (--screen WxH gives it).")
                return nil
            }
            do { return UinputClicker(try UinputPointer(width: Int(size.0), height: Int(size.1))) } catch {
                if plan.injectionAsked { throw SessionError("Error: \(error)", status: 2) }
                notes.append("Warning: no pointer for taps: \(error)")
                return nil
            }
        }
    }

    /// The scanning keyboard and its predictions, made on a thread of their own
    /// (`PredictionThread`). The user's learned words join the language's; a file that
    /// cannot be read is said and left as it is (nothing learned is written over it). The
    /// language's list is big: it is read on another thread, so that the first highlight
    /// comes without waiting for it. A keyboard never waits for it either: one opened before
    /// it is read predicts from the user's words alone, and from the language's too once
    /// they are read. A list that cannot be read leaves the keyboard with the user's words
    /// alone, and says so.
    private func keyboardMaker(_ settings: ScanSettings, notes: inout [String], presenters: inout [EffectPresenter]) -> KeyboardMaker? {
        let (user, keepWords, note) = learnedWords(configuration.learnedWords, learn: settings.typing.learnWords)
        if let note { notes.append(note) }
        var typing = settings.typing
        typing.learnWords = keepWords
        if keepWords, let path = configuration.learnedWords {
            presenters.append(WordsKeeper(path: path, warn: { [log] in log("Warning: \($0)") }))
        }
        let list = configuration.wordList
        let words = PredictionThread(user: user, language: { [log] in
            do throws(InputProblem) { return WordPredictor(system: try loadWords(list).system) } catch {
                log("Warning: the keyboard predicts no words of the language: \(error.message)")
                return WordPredictor(system: WordList())
            }
        }, ready: { [weak self] in self?.scanner?.refreshPresented() })
        return KeyboardMaker(layout: KeyboardLayout(settings.typing.keyboardLayout), words: .source(words), settings: typing)
    }

    /// Opens the switch devices and follows hotplug; whether any is in use.
    private func attachDevices(_ profiles: DeviceProfiles, scanner: LiveScanner, say: @escaping @Sendable (String) -> Void) -> Bool {
        let only = configuration.devices
        var using = false
        if let udev = try? Udev() {
            let devices = SwitchDevices(sink: ScannerSink(scanner), profiles: profiles, grab: configuration.grab,
                                        only: only.isEmpty ? nil : Set(only), log: say)
            var found = udev.inputDevices()
            for path in only where !found.contains(where: { $0.node == path }) {
                if let d = try? EvdevDevice(path: path) { found.append(d.describe()) }
            }
            let reports = devices.add(found)
            using = reports.contains { $0.opened }
            for r in reports where r.opened {
                say("Using \(r.node) (\(r.name)): \(r.sections.joined(separator: "; "))")
            }
            for r in reports where !r.opened && r.problem?.hasPrefix("While") == true {
                say("Not using \(r.node) (\(r.name)): \(r.problem!)")
            }
            let unnamed = reports.filter { $0.problem == DeviceMapping.unnamedProblem }
            if !using, !unnamed.isEmpty {
                say("Not using \(unnamed.map { "\($0.node) (\($0.name))" }.joined(separator: ", ")): \(DeviceMapping.unnamedProblem).")
            }
            do { try devices.followHotplug(udev) } catch {
                say("Warning: devices plugged in later will not be seen: \(error)")
            }
            lock.withLock { self.devices = devices }
        }
        if !using {
            say(configuration.terminalKeys ? "No switch device found; using the terminal keyboard (space select, tab next, m menu, esc exit, q quit)."
                : "No switch device found yet; one plugged in is used at once.")
        }
        return using
    }

    /// The terminal's keys: switches when no device is in use, and always q to quit. From
    /// here on a failure ends the session, which restores the terminal and releases the
    /// devices.
    private func startTerminalKeys(scanner: LiveScanner, keysAreSwitches: Bool) {
        let keyboard: KeyboardInput
        let endsWithInput = configuration.duration == nil
        do { keyboard = try KeyboardInput { [weak self] key, t in
            switch key {
            case .action(let a):
                // With switch devices in use, the terminal only quits: the same keyboard seen
                // through evdev would otherwise press twice.
                guard keysAreSwitches else { return }
                // A terminal reports no release: a key is a press, down and up at once.
                scanner.submit(SwitchEvent(a, down: true, at: t))
                scanner.submit(SwitchEvent(a, down: false, at: t))
            case .quit:
                self?.shutdown(.finished)
            case .endOfInput:
                if endsWithInput { self?.shutdown(.finished) }
            }
        } } catch {
            return shutdown(.failed("Error: \(error)", status: 2))
        }
        lock.withLock { self.keyboard = keyboard }
        do {
            try TerminalState.enterRawInput()
            try keyboard.start()
        } catch {
            shutdown(.failed("Error: \(error)", status: 2))
        }
    }
}

/// The accessibility bus, reached within a time limit. The bus is found and started through
/// D-Bus activation, which can hang on a broken session: after the limit the caller is told
/// what to check rather than left waiting with the user.
public enum DesktopConnection {
    /// `hooks`: what the connection is given (its `places` from `WindowPlaces.open`),
    /// closed again when it fails.
    public static func connect(within seconds: Double = 10, hooks: DesktopHooks = DesktopHooks()) throws(SessionError) -> DesktopAccess {
        let result = OneShot<Result<DesktopAccess, DesktopError>>()
        do {
            // Detached: after the time limit it is abandoned, not joined.
            pthread_detach(try spawnThread(name: "switchscan.connect") {
                result.set(Result { () throws(DesktopError) in try DesktopAccess.connect(hooks) })
            })
        } catch {
            throw SessionError("Error: \(error).", status: 1)
        }
        guard let outcome = result.wait(until: MonotonicClock.now() + .seconds(seconds)) else {
            hooks.places?.close()
            throw SessionError("""
                Error: the accessibility bus did not answer within \(formatFixed(seconds, decimals: 0)) s. Check that the session's D-Bus works \
                (DBUS_SESSION_BUS_ADDRESS) and that at-spi2-core is installed; 'busctl --user status' tests the bus.
                """, status: 1)
        }
        switch outcome {
        case .success(let access):
            return access
        case .failure(let error):
            hooks.places?.close()
            throw SessionError(error.description, status: 1)
        }
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

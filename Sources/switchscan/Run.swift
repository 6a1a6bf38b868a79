import ArgumentParser
import DesktopAccess
import Dispatch
import Foundation
import ScanCore
import ScanHost
import ScanFormats
import ScanRuntime
import SpeechOutput
import SwitchInput
import Typing
import WordPrediction
import X11Output

enum OutputKind: String, ExpressibleByArgument, CaseIterable {
    case terminal, json
}

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Scan a layout, or the live desktop, in real time with switches or the terminal's keyboard.",
        discussion: """
        With --desktop, the active window of the desktop is scanned through the accessibility bus \
        (AT-SPI), followed as it changes, and activations act on the real widgets. Keys: space or Enter select, Tab next, Shift-Tab previous, m menu, Esc exit, \
        t toggle point mode, p pause, q quit (Ctrl-C works too). The terminal is restored \
        on every way out. Real-time scheduling (SCHED_FIFO, locked memory) is requested; \
        where refused, a warning says how to allow it and scanning goes on.
        """
    )

    @Option(help: "The layout file (default: the bundled Layouts/switch-control.uikit.json).")
    var layout: String?

    @Flag(help: "Scan the live desktop's active window through the accessibility bus, instead of a layout.")
    var desktop = false

    @Option(help: "With --desktop: scan this application's window (its name as 'switchscan desktop' lists it).")
    var app: String?

    @OptionGroup var options: ScanOptions

    @Option(help: "terminal (draw the screen) or json (effects as JSON lines). Default: terminal when stdout is a terminal.")
    var output: OutputKind?

    @Flag(name: .customLong("no-overlay"), help: "Do not draw the highlight over the screen (it is drawn whenever an X display can be opened).")
    var noOverlay = false

    @Option(help: "How taps reach the screen: xtest (X11), uinput (a virtual pointer: Wayland, the console) or none. Default: with --desktop xtest where there is a display, else uinput; with a layout none.")
    var pointer: PointerKind?

    @Option(help: "The screen's size in pixels for --pointer uinput, e.g. 1920x1080 (default: the display's, else the layout's).")
    var screen: ScreenSize?

    @Flag(help: "Speak each highlighted item through speech-dispatcher (the setting 'speech').")
    var speech = false

    @Option(help: "Also stream JSON lines to front ends connecting to this Unix socket.")
    var socket: String?

    @Option(name: .customLong("rt-priority"), help: "SCHED_FIFO priority of the timing thread (1-99); 0 for none.")
    var rtPriority: Int32 = 20

    @Flag(name: .customLong("no-mlock"), help: "Do not lock memory (mlockall).")
    var noMlock = false

    @Flag(name: .customLong("allow-deep-idle"), help: "Do not ask the kernel to keep idle CPUs quick to wake (/dev/cpu_dma_latency); saves power, and a press may reach the engine later.")
    var allowDeepIdle = false

    @Option(name: .customLong("spin-margin"), help: "Wake this long before each timer deadline and spin the rest (0 to 1ms; a bare number is in µs): the wake-up's cold path runs before the deadline, not after it, for at most this much CPU per tick. 0 turns it off.")
    var spinMargin = SpinMargin(ScanDuration(nanoseconds: 50_000))

    @Option(help: "Stop after this many seconds (for demos and tests).")
    var duration: Double?

    @Option(help: "Use only this input device (repeatable), e.g. /dev/input/event5.")
    var device: [String] = []

    @Flag(help: "Take switch devices exclusively (only while no switch is held), so their keys do not also type elsewhere.")
    var grab = false

    @Flag(name: .customLong("no-devices"), help: "Ignore input devices; use the terminal keyboard only.")
    var noDevices = false

    @Option(name: .customLong("profiles"), help: "A folder of device profiles (default: Devices/ and ~/.config/switchscan/devices/).")
    var profilesFolder: [String] = []

    func validate() throws {
        if desktop && layout != nil { throw ValidationError("--desktop scans the live desktop; leave out --layout, or leave out --desktop to scan the layout.") }
        if app != nil && !desktop { throw ValidationError("--app goes with --desktop, e.g. switchscan run --desktop --app gtk3-widget-factory") }
        guard (0...99).contains(rtPriority) else { throw ValidationError("--rt-priority takes 0 (none) to 99, e.g. --rt-priority 20") }
        if let duration, !(duration > 0 && duration <= 86_400) {
            throw ValidationError("--duration takes seconds between 0 and 86400, e.g. --duration 30")
        }
    }

    func run() throws {
        // Before any thread exists, so that every thread inherits the block; a signal during
        // setup ends the process at once, one after it ends the run through the session.
        TerminationSignals.watch(early: { TerminalState.restore() })
        var problems: [String] = []
        var tree: ElementTree?
        let scanSettings: ScanSettings
        var live: DesktopAccess?
        // Without --settings, the user's own settings file, where the scanner menu's
        // Settings keep their changes.
        var options = self.options
        let userSettings = SettingsFile.userPath(environment: ProcessInfo.processInfo.environment)
        if options.settings == nil, let user = userSettings, FileManager.default.fileExists(atPath: user) { options.settings = user }
        let keptIn = options.settings ?? userSettings
        if desktop {
            scanSettings = options.loadScanSettings(problems: &problems)
            guard problems.isEmpty else { throw fail(problems.joined(separator: "\n")) }
            let access = try connectDesktop()
            if case .failure(let e) = access.choose(app: app) {
                access.stop()
                writeErr(e.description + "\n")
                throw ExitCode(1)
            }
            // Point mode sweeps the screen the display has (the registry's own idea lags).
            if let size = XTestPointer.screenSize(display: nil) { access.screen = (size.0, size.1) }
            live = access
        } else {
            let (document, settings) = options.load(layout: layout ?? BundledData.file("Layouts/switch-control.uikit.json"), problems: &problems)
            tree = document?.tree
            scanSettings = settings
        }
        var profiles = DeviceProfiles(sections: [])
        if !noDevices {
            do { profiles = try ProfileLibrary.load(folders: profilesFolder.isEmpty ? ProfileLibrary.defaultFolders(devices: BundledData.file("Devices")) : profilesFolder) }
            catch { problems.append(error.description) }
        }
        // An explicitly named device must exist and be readable: say so before starting.
        for path in device {
            do { _ = try EvdevDevice(path: path) } catch { problems.append("Error: \(error.description)") }
        }
        guard problems.isEmpty else { throw fail(problems.joined(separator: "\n")) }
        // The live window's first snapshot; later ones reach the scanner as they come.
        let liveTrees = LiveTrees()
        if let live {
            tree = live.follow(app: app) { snapshot in liveTrees.put(snapshot.tree) }?.tree
        }
        // A window that could not be read yet: scanning starts with nothing, and the next
        // read brings it.
        if live != nil && tree == nil { tree = ElementTree(screenID: "none", size: (1, 1), nodes: [ElementNode(id: "none")]) }
        guard let tree else { throw fail("Error: the desktop's window could not be read.") }
        let kind = output ?? (TerminalState.outputIsTerminal ? .terminal : .json)

        let rt = RealTimeQueue(options: .init(priority: rtPriority, lockMemory: !noMlock, wakeupLatency: allowDeepIdle ? nil : 0,
                                              spinMargin: spinMargin.duration))
        if let warning = rt.status.warning {
            writeErr("Warning: \(warning)\n")
        }
        let presentQueue = DispatchQueue(label: "switchscan.present")
        let session = RunSession(rt: rt, presentQueue: presentQueue)
        let origin = MonotonicClock.now()
        var presenters: [EffectPresenter] = []
        do {
            if let socket {
                presenters.append(try SocketPresenter(path: socket, queue: presentQueue, origin: origin, warn: { writeErr("Warning: \($0)\n") }))
            }
        } catch {
            throw fail("Error: \(error)")
        }
        let terminal = kind == .terminal ? TerminalPresenter(tree: tree, queue: presentQueue) : nil
        presenters.append(terminal ?? JSONLinesPresenter(fd: 1, origin: origin))
        if let live { presenters.append(DesktopActuator(live)) }
        var feedbackSettings = scanSettings.feedback
        if speech { feedbackSettings.speech = true }
        var feedbackNotes: [String] = []
        // The highlight on the real screen, wherever a display can be opened.
        let hasDisplay = !(ProcessInfo.processInfo.environment["DISPLAY"] ?? "").isEmpty
        var overlay: OverlayPresenter?
        if !noOverlay && hasDisplay {
            do { overlay = try OverlayPresenter(feedback: feedbackSettings, queue: presentQueue) } catch {
                feedbackNotes.append("Warning: the highlight is not drawn on the screen: \(error)")
            }
        }
        if let overlay { presenters.append(overlay) }
        let spoken = feedbackSettings.speech || feedbackSettings.sound
            ? SpeechPresenter(feedback: feedbackSettings, tree: tree, warn: { text in writeErr("Warning: \(text)\n") })
            : nil
        if let spoken { presenters.append(spoken) }
        let (clicker, pointerNote) = try RunFeedback.pointer(pointer, desktop: desktop, screen: screen,
                                                            fallback: (tree.screenSize.width, tree.screenSize.height))
        if let pointerNote { feedbackNotes.append(pointerNote) }
        if let clicker {
            if let live {
                live.click = { p in clicker.click(at: p) }
            } else {
                presenters.append(PointerPresenter(clicker, warn: { text in writeErr("Warning: \(text)\n") }))
            }
            feedbackNotes.append("Pointer: \(clicker.summary)")
        }
        // A failed action on the desktop, or text that may not have arrived, is said, never
        // fatal: on stderr and as an announcement.
        let sayFailure: @Sendable (String) -> Void = { text in
            presentQueue.async {
                writeErr("Warning: \(text)\n")
                try? session.presenter?.present([TimedEffect(MonotonicClock.now(), .announce(text))])
            }
        }
        // The Keys page's keys go where the clicks go.
        let injectorKind = RunFeedback.injector(pointer, desktop: desktop)
        let injector = injectorKind == .none ? nil : KeyInjector(injectorKind)
        if let injector {
            presenters.append(KeyPresenter(injector, warn: { writeErr("Warning: \($0)\n") }))
            feedbackNotes.append(injector.problem.map { "Warning: \($0)" } ?? "Keys: \(injector.summary)")
        }
        // Typing: selecting a text field (or the screen menu's Keyboard) opens the keyboard,
        // whose text goes to the focused application: wherever keys can be sent.
        var typing: KeyboardMaker?
        if let injector, injector.problem == nil {
            do {
                // The user's learned words join the language's; a file that cannot be read is
                // said and left as it is (nothing learned is written over it).
                var predictor = try loadWords()
                let wordsPath = WordsFile.userPath(environment: ProcessInfo.processInfo.environment)
                var keepWords = scanSettings.typing.learnWords
                if let wordsPath {
                    do { predictor = WordPredictor(system: predictor.system, user: try WordsFile.loadUser(wordsPath)) } catch {
                        feedbackNotes.append("Warning: your learned words are not used: \(error.description)")
                        keepWords = false
                    }
                }
                var typingSettings = scanSettings.typing
                typingSettings.learnWords = keepWords
                typing = KeyboardMaker(layout: KeyboardLayout(scanSettings.typing.keyboardLayout), predictor: predictor,
                                       settings: typingSettings)
                if keepWords, let wordsPath { presenters.append(WordsKeeper(path: wordsPath, warn: { writeErr("Warning: \($0)\n") })) }
                presenters.append(TextPresenter(injector, warn: sayFailure))
            } catch {
                feedbackNotes.append("Note: the keyboard is not offered: \(error.message)")
            }
        }
        // The window manager's windows, for the screen menu's Windows page.
        var desktopWindows: DesktopWindows?
        if live != nil && hasDisplay {
            do { desktopWindows = try DesktopWindows(report: sayFailure) } catch {
                feedbackNotes.append("Note: the Windows page is not offered: \(error)")
            }
        }
        if let desktopWindows { presenters.append(WindowPresenter(desktopWindows)) }
        if let keptIn { presenters.append(SettingsKeeper(path: keptIn, warn: { writeErr("Warning: \($0)\n") })) }
        let presenter = FanOutPresenter(presenters)
        session.presenter = presenter
        terminal?.onFailure = { e in session.shutdown(code: 1, message: "Error: the terminal presenter failed: \(e)") }

        var engine = ScanEngine(tree: tree, settings: scanSettings)
        engine.keyboardProvider = typing
        let scanner = LiveScanner(engine: engine, queue: rt) { effects in
            presentQueue.async {
                do { try presenter.present(effects) } catch {
                    session.shutdown(code: 1, message: "Error: presenting effects failed: \(error)")
                }
            }
        }
        session.scanner = scanner
        session.desktop = live
        session.windows = desktopWindows
        desktopWindows?.start { scanner.setWindows($0) }
        if let live {
            // Text goes into the field through AT-SPI where its toolkit does that well and the
            // field confirms it; keys elsewhere (docs/TYPING.md).
            injector?.insert = { text in live.insertIntoField(text) }
            injector?.sent = { keys in live.keysSent(keys) }
            live.report = sayFailure
            live.onFieldText = { scanner.fieldText($0) }
            live.onFieldLeft = { scanner.dismissPresented() }
            liveTrees.attach { newTree in
                scanner.replaceTree(newTree)
                presentQueue.async {
                    terminal?.replaceTree(newTree)
                    spoken?.replaceTree(newTree)
                }
            }
        }
        // The scan starts before any device is attached: both go through the engine's queue
        // in order, so a press read once "Using …" is printed always meets a running scan
        // (a press before the start would be dropped, as it highlighted nothing).
        scanner.start()
        // Messages while scanning: on stderr, or with the screen drawn, on its status line and
        // again on stderr once the terminal is restored (so they stay in the scrollback).
        let say: @Sendable (String) -> Void = { text in
            presentQueue.async {
                if let terminal {
                    terminal.note(text)
                    session.noteForLater(text)
                } else {
                    writeErr("\(text)\n")
                }
            }
        }
        for note in feedbackNotes { say(note) }
        var usingDevices = false
        if !noDevices {
            let note = say
            if let udev = try? Udev() {
                let devices = SwitchDevices(sink: ScannerSink(scanner), profiles: profiles, grab: grab,
                                            only: device.isEmpty ? nil : Set(device), log: note)
                var found = udev.inputDevices()
                for path in device where !found.contains(where: { $0.node == path }) {
                    if let d = try? EvdevDevice(path: path) { found.append(d.describe()) }
                }
                let reports = devices.add(found)
                usingDevices = reports.contains { $0.opened }
                for r in reports where r.opened {
                    say("Using \(r.node) (\(r.name)): \(r.sections.joined(separator: "; "))")
                }
                for r in reports where !r.opened && r.problem?.hasPrefix("While") == true {
                    say("Not using \(r.node) (\(r.name)): \(r.problem!)")
                }
                do { try devices.followHotplug(udev) } catch {
                    say("Warning: devices plugged in later will not be seen: \(error)")
                }
                session.devices = devices
            }
            if !usingDevices {
                say("No switch device found; using the terminal keyboard (space select, tab next, m menu, esc exit, q quit).")
            }
        }
        let keysAreSwitches = !usingDevices
        // From here on the scan runs: a failure ends it through the session, which restores
        // the terminal and releases the devices.
        let keyboard: KeyboardInput
        do { keyboard = try KeyboardInput { key, t in
            switch key {
            case .action(let a):
                // With switch devices in use, the terminal only quits: the same keyboard seen
                // through evdev would otherwise press twice.
                guard keysAreSwitches else { return }
                // A terminal reports no release: a key is a press, down and up at once.
                scanner.submit(SwitchEvent(a, down: true, at: t))
                scanner.submit(SwitchEvent(a, down: false, at: t))
            case .quit:
                session.shutdown(code: 0)
            case .endOfInput:
                if duration == nil { session.shutdown(code: 0) }
            }
        } } catch {
            session.shutdown(code: 2, message: "Error: \(error)")
            session.waitForSignals()
        }
        session.keyboard = keyboard
        session.installResizeHandler(redraw: { terminal?.redraw() })
        do { try TerminalState.enterRawInput() } catch {
            session.shutdown(code: 2, message: "Error: \(error)")
            session.waitForSignals()
        }
        do { try keyboard.start() } catch {
            session.shutdown(code: 2, message: "Error: \(error)")
            session.waitForSignals()
        }
        if let duration {
            session.control.asyncAfter(deadline: .now() + duration) { session.shutdown(code: 0) }
        }
        session.waitForSignals()
    }
}

/// Ends a run once, whichever way it ends: stop input, stop the timing thread, let the
/// presenters finish (the terminal restored), then exit.
final class RunSession: @unchecked Sendable {
    let rt: RealTimeQueue
    /// Set once the presenters exist, before anything can end the run (until setup is
    /// done, a termination signal ends the process at once).
    var presenter: EffectPresenter?
    let presentQueue: DispatchQueue
    /// Where a run ends.
    let control = DispatchQueue(label: "switchscan.control")
    var scanner: LiveScanner?
    var keyboard: KeyboardInput?
    var devices: SwitchDevices?
    var desktop: DesktopAccess?
    var windows: DesktopWindows?
    var resizeSource: DispatchSourceSignal?
    private let lock = Lock()
    private var ending = false
    /// Messages shown on the drawn screen, repeated on stderr after it is gone.
    private var later: [String] = []

    func noteForLater(_ text: String) {
        lock.lock()
        later.append(text)
        // A long run with devices coming and going: the last messages are the ones that count.
        if later.count > 50 { later.removeFirst(later.count - 50) }
        lock.unlock()
    }

    init(rt: RealTimeQueue, presentQueue: DispatchQueue) {
        self.rt = rt
        self.presentQueue = presentQueue
    }

    /// The main thread's work once the run is set up. Ctrl-C, Ctrl-\, SIGTERM and a closed
    /// terminal end the run cleanly: devices released, terminal restored, and then the
    /// process dies of that same signal, so that the shell or a supervisor sees what ended
    /// it (Ctrl-\ still dumps core where that is enabled).
    func waitForSignals() -> Never {
        TerminationSignals.handle { [self] sig in shutdown(code: 128 + sig, signal: sig) }
        // The signals are taken on their own thread; the run ends from the control queue.
        while true { pause() }
    }

    func installResizeHandler(redraw: @escaping @Sendable () -> Void) {
        signal(SIGWINCH, SIG_IGN)
        let w = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: presentQueue)
        w.setEventHandler { redraw() }
        w.activate()
        resizeSource = w
    }

    func shutdown(code: Int32, message: String? = nil, signal sig: Int32? = nil) {
        lock.lock()
        if ending { lock.unlock(); return }
        ending = true
        lock.unlock()
        control.async { [self] in
            keyboard?.stop()
            devices?.closeAll()
            desktop?.stop()
            windows?.stop()
            rt.stop()
            presentQueue.sync { presenter?.finish() }
            TerminalState.restore()
            lock.lock(); let notes = later; lock.unlock()
            for text in notes { writeErr(text + "\n") }
            if let message { writeErr(message + "\n") }
            if let sig { TerminationSignals.dieOf(sig) }
            exit(code)
        }
    }
}

/// New trees of the live window, from the AT-SPI thread to the scanner: any that come
/// before the scanner exists are kept and the last one handed over on attach.
final class LiveTrees: @unchecked Sendable {
    private let lock = Lock()
    private var pending: ElementTree?
    private var sink: ((ElementTree) -> Void)?

    /// The sink is called under the lock, so trees reach it in order; it must not block.
    func put(_ tree: ElementTree) {
        lock.lock()
        defer { lock.unlock() }
        if let sink { sink(tree) } else { pending = tree }
    }

    func attach(_ sink: @escaping (ElementTree) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        self.sink = sink
        if let early = pending { sink(early) }
        pending = nil
    }
}

/// Performs the engine's activations, custom actions, adjustments and taps on the live
/// widgets. DesktopAccess does the work on its own thread; presenting never waits for it.
/// While the keyboard is open, what is selected is its keys, not widgets: nothing is done,
/// and the field it was opened from is followed (the text before its caret).
final class DesktopActuator: EffectPresenter, @unchecked Sendable {
    let desktop: DesktopAccess
    var keyboardOpen = false
    init(_ desktop: DesktopAccess) { self.desktop = desktop }
    func present(_ effects: [TimedEffect]) throws {
        var work: [TimedEffect] = []
        var activated: String?
        for e in effects {
            switch e.effect {
            case .keyboard:
                // Opened over the field just activated (its first report follows the tap).
                if !keyboardOpen { desktop.followField(activated) }
                keyboardOpen = true
            case .keyboardClose:
                keyboardOpen = false
                desktop.followField(nil)
            case .activate(let element, _, _) where !keyboardOpen:
                activated = element
                work.append(e)
            case .tap(_, nil) where keyboardOpen:
                // A point-mode tap outside the keyboard reaches the screen below it.
                work.append(e)
            default:
                if !keyboardOpen { work.append(e) }
            }
        }
        desktop.perform(work)
    }
    func finish() {}
}

/// The Windows page's commands, carried out by the window watcher on its own thread.
final class WindowPresenter: EffectPresenter, @unchecked Sendable {
    let windows: DesktopWindows
    init(_ windows: DesktopWindows) { self.windows = windows }
    func present(_ effects: [TimedEffect]) throws {
        for e in effects {
            if case let .window(command, id, _) = e.effect { windows.perform(command, window: id) }
        }
    }
    func finish() {}
}

/// The devices' events go to the live scanner, read on its real-time thread.
final class ScannerSink: SwitchEventSink, @unchecked Sendable {
    let scanner: LiveScanner
    init(_ scanner: LiveScanner) { self.scanner = scanner }
    func perform(_ body: @escaping @Sendable () -> Void) { scanner.queue.async(body) }
    func performAndWait<T>(_ body: @escaping () -> T) -> T? { try? scanner.queue.sync(body) }
    func attach(fd: Int32, decode: @escaping (Int32) -> (events: [SwitchEvent], gone: Bool)) { scanner.attach(fd: fd, decode: decode) }
    func detach(fd: Int32) { scanner.detach(fd: fd) }
    func submit(_ event: SwitchEvent) { scanner.submit(event) }
    var now: ScanInstant { MonotonicClock.now() }
    func preconditionOnThread() { scanner.queue.preconditionOnQueue() }
}

/// Keeps the words the keyboard learned in the user's words file, on a queue of its own.
/// Each word is added to the file as it is at that moment, so that a `switchscan words
/// forget` meanwhile is not undone by a stale copy.
final class WordsKeeper: EffectPresenter, @unchecked Sendable {
    let path: String
    let warn: @Sendable (String) -> Void
    let queue = DispatchQueue(label: "switchscan.words")

    init(path: String, warn: @escaping @Sendable (String) -> Void) { self.path = path; self.warn = warn }

    func present(_ effects: [TimedEffect]) throws {
        for e in effects {
            guard case let .learnWord(word, after) = e.effect else { continue }
            queue.async { [path, warn] in
                do throws(FileReadError) {
                    try WordsFile.change(path) { list in
                        var learner = WordPredictor(system: WordList(), user: list)
                        learner.learn(word, after: after)
                        list = learner.user
                    }
                } catch {
                    warn(error.description)
                }
            }
        }
    }

    /// What is queued is written before the process ends.
    func finish() { queue.sync {} }
}

/// Keeps the scanner menu's setting changes in the settings file, written atomically on a
/// queue of its own: never on the engine's thread, never holding up the presenters.
final class SettingsKeeper: EffectPresenter, @unchecked Sendable {
    let path: String
    let warn: @Sendable (String) -> Void
    let queue = DispatchQueue(label: "switchscan.settings")

    init(path: String, warn: @escaping @Sendable (String) -> Void) { self.path = path; self.warn = warn }

    func present(_ effects: [TimedEffect]) throws {
        for e in effects {
            guard case .settingChanged(let change) = e.effect else { continue }
            let (key, value) = change.json
            queue.async { [path, warn] in
                do throws(FileReadError) { try SettingsFile.set(key, to: value, in: path) } catch { warn(error.description) }
            }
        }
    }

    /// What is queued is written before the process ends.
    func finish() { queue.sync {} }
}

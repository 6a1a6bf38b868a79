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

// The parts `start()` is made of: the desktop and the pointer, typing and the message
// screen, the switches.
extension ScanSession {
    /// With `waitForDesktop` (a run started with the session), the X display (when DISPLAY
    /// names one) and the accessibility bus are waited for that long, before the pointer and
    /// the desktop are made. libatspi cannot try twice in a process, so the bus is asked
    /// without it until it answers.
    func waitForDesktop() throws(SessionError) {
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
    func connectDesktop(_ hooks: DesktopHooks) throws(SessionError) -> DesktopAccess {
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
    func displaySize(_ plan: SessionPlan) -> (width: Double, height: Double)? {
        let env = configuration.environment
        if plan.compositor.isWayland, let l = try? WaylandGlobals.layout(display: env["WAYLAND_DISPLAY"].flatMap { $0.isEmpty ? nil : $0 }) {
            return (Double(l.x + l.width), Double(l.y + l.height))
        }
        return XTestPointer.screenSize(display: nil).map { (width: $0.0, height: $0.1) }
    }

    /// The pointer for taps, as planned. A pointer asked for by name that cannot be made is
    /// an error; one chosen is a note and the run goes on without it.
    func pointer(_ plan: SessionPlan, fallback: (width: Double, height: Double)?, notes: inout [String]) throws(SessionError) -> PointerClicker? {
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
    func keyboardMaker(_ settings: ScanSettings, notes: inout [String], presenters: inout [EffectPresenter]) -> KeyboardMaker? {
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
        }, deliver: { [weak self] made in self?.liveScanner?.wordsMade(made) })
        return KeyboardMaker(layout: KeyboardLayout(settings.typing.keyboardLayout), words: .source(words), settings: typing)
    }

    /// The message screen's size where no display says it (the terminal, JSON lines): the
    /// keyboard's proportions with the message above it.
    static let messageScreenSize = (width: 1000.0, height: 600.0)

    /// The message screen's maker (`run --messages`, and the screen menu's Message on the
    /// desktop): the keyboard's words as typing has them (learned into the user's file;
    /// `typing`'s own where the session types), the user's phrases and the messages said
    /// lately. A phrases or history file that cannot be read is said; the screen opens
    /// without it.
    func messageMaker(_ inputs: SessionInputs, typing: KeyboardMaker?, notes: inout [String],
                              presenters: inout [EffectPresenter]) -> MessageMaker? {
        guard let maker = typing ?? keyboardMaker(inputs.settings, notes: &notes, presenters: &presenters) else { return nil }
        let warn: @Sendable (String) -> Void = { [log] in log("Warning: \($0)") }
        var phrases: [String] = []
        if let path = configuration.phrasesFile {
            do throws(InputProblem) {
                let loaded = try loadPhrases(path, mustExist: false)
                phrases = loaded.phrases
                notes += loaded.problems.map { "Warning: \($0)" }
            } catch {
                notes.append("Warning: \(error.message) The message screen offers no phrases.")
            }
        }
        var history: [String] = []
        if let path = configuration.historyFile {
            do throws(FileReadError) { history = try MessageHistoryFile.load(path) } catch {
                notes.append("Warning: \(error.description) The messages said are not offered again.")
            }
            presenters.append(HistoryKeeper(path: path, warn: warn))
        }
        // The whole run's screen has nothing to hide to.
        return MessageMaker(layout: maker.layout, words: maker.words, settings: maker.settings, phrases: phrases, history: history,
                            canHide: configuration.target != .messages)
    }

    /// Opens the switch devices and follows hotplug; whether any is in use.
    func attachDevices(_ profiles: DeviceProfiles, scanner: LiveScanner, say: @escaping @Sendable (String) -> Void) -> Bool {
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
    func startTerminalKeys(scanner: LiveScanner, keysAreSwitches: Bool) {
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

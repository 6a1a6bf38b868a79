#if canImport(Glibc)
import Glibc
#endif
import DesktopAccess
import Dispatch
import ScanCore
import ScanFormats
import ScanHost
import ScanRuntime
import SwitchInput
import WordPrediction
import X11Output

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
    let desktop: any DesktopActions
    var keyboardOpen = false
    init(_ desktop: any DesktopActions) { self.desktop = desktop }
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

/// What the actuator asks of the desktop: `DesktopAccess`, which does it on its own thread.
protocol DesktopActions: AnyObject, Sendable {
    /// Carries out the activations, actions, adjustments and taps among `effects`.
    func perform(_ effects: [TimedEffect])
    /// Follows the text of the field with this id (nil: none).
    func followField(_ id: String?)
}

extension DesktopAccess: DesktopActions {}

/// The Windows page's commands, carried out by the window watcher on its own thread.
final class WindowPresenter: EffectPresenter, @unchecked Sendable {
    let windows: any WindowList
    init(_ windows: any WindowList) { self.windows = windows }
    func present(_ effects: [TimedEffect]) throws {
        for e in effects {
            if case let .window(command, id, _, _) = e.effect { windows.perform(command, window: id) }
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
                        return true
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

/// Keeps each message the person spoke in their history (MessageHistoryFile), written
/// atomically on a queue of its own: a phrase or an answer said is not kept.
final class HistoryKeeper: EffectPresenter, @unchecked Sendable {
    let path: String
    let warn: @Sendable (String) -> Void
    let queue = DispatchQueue(label: "switchscan.history")

    init(path: String, warn: @escaping @Sendable (String) -> Void) { self.path = path; self.warn = warn }

    func present(_ effects: [TimedEffect]) throws {
        for e in effects {
            guard case .speak(let text, _, .message) = e.effect else { continue }
            queue.async { [path, warn] in
                do throws(FileReadError) { try MessageHistoryFile.add(text, to: path) } catch { warn(error.description) }
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

/// Keeps the person's usage (counts only: ScanCore's `Usage`) in the usage log that
/// `switchscan report` reads. Every `period` it asks the engine for its counts, which the
/// engine's thread hands over as a copy without waiting for anything, and adds them to
/// the day's line on a queue of its own; at the end, what is left. Counts that could not
/// be written stay here and go with the next write; the problem is said once.
final class UsageKeeper: @unchecked Sendable {
    let path: String
    let warn: @Sendable (String) -> Void
    let scanner: LiveScanner
    let queue = DispatchQueue(label: "switchscan.usage")
    private var timer: DispatchSourceTimer?
    // The queue's own.
    private var unsaved = Usage()
    private var since = MonotonicClock.now()
    private var warned = false
    private var finished = false

    init(path: String, scanner: LiveScanner, warn: @escaping @Sendable (String) -> Void) {
        self.path = path
        self.scanner = scanner
        self.warn = warn
    }

    /// Takes the counts every `period` seconds.
    func start(period: Double = 60) {
        let t = DispatchSource.makeTimerSource(queue: queue)
        t.schedule(deadline: .now() + period, repeating: period, leeway: .seconds(1))
        t.setEventHandler { [self] in
            scanner.takeUsage { [self] usage in queue.async { self.keep(usage, last: false) } }
        }
        timer = t
        t.resume()
    }

    /// Takes the last counts and writes them; before the engine's thread stops. (A take
    /// the timer asked for before is handed over first: the engine's queue keeps order.)
    func finish() {
        queue.sync { timer?.cancel() }
        let last = scanner.takeLastUsage() ?? Usage()
        queue.sync {
            keep(last, last: true)
            finished = true
        }
    }

    private func keep(_ usage: Usage, last: Bool) {
        guard !finished else { return }
        let now = MonotonicClock.now()
        unsaved.add(usage)
        unsaved.runningSeconds += (now - since).seconds
        since = now
        // Idle minutes are added with the next press, or at the end.
        guard usage.presses > 0 || last else { return }
        do throws(FileReadError) {
            let dropped = try UsageLog.add(unsaved, day: UsageLog.day(of: Int(time(nil))), to: path)
            unsaved = Usage()
            if !warned, let first = dropped.first {
                warn(first.prefix(1).uppercased() + first.dropFirst() + (dropped.count > 1 ? " (and \(dropped.count - 1) more)." : "."))
                warned = true
            }
        } catch {
            if !warned { warn(error.description + " The usage counts are kept for the next try.") }
            warned = true
        }
    }
}

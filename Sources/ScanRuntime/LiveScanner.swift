import ScanCore
import ScanHost

/// The engine running in real time: it lives on a RealTimeQueue, which alone touches it (no
/// locks); inputs arrive from reader threads with their kernel timestamps; the queue's one
/// timer follows the engine's `nextDeadline`. Effects go to `deliver` on the queue, which
/// should hand them to Dispatch for presenting.
public final class LiveScanner: @unchecked Sendable {
    public let queue: RealTimeQueue
    private var engine: ScanEngine
    private var timer: Int?
    private var armed: ScanInstant?
    private let deliver: ([TimedEffect]) -> Void
    private var started = false

    /// Called on the queue after each timer wake-up with (deadline, woke at): lateness data
    /// for benchmarks and diagnostics.
    public var onTimer: ((ScanInstant, ScanInstant) -> Void)?

    public init(engine: ScanEngine, queue: RealTimeQueue, deliver: @escaping ([TimedEffect]) -> Void) {
        self.engine = engine
        self.queue = queue
        self.deliver = deliver
    }

    public func start() {
        queue.async { [self] in
            guard !started else { return }
            started = true
            output(engine.start(at: MonotonicClock.now()))
        }
    }

    /// A switch event from any thread. Its timestamp decides what a press selects, however
    /// late this runs.
    public func submit(_ event: SwitchEvent) {
        queue.async { [self] in
            output(engine.handle(event, at: max(MonotonicClock.now(), event.timestamp)))
        }
    }

    /// Reads switch events from `fd` on the engine's own thread: the input wakes the same
    /// thread that decides, with no hand-over. `decode` reads what is available (it must not
    /// block) and returns the events, with their kernel timestamps, and whether the source is
    /// gone: its fd is then no longer polled, and the events read with it (e.g. releases of
    /// held switches) still count.
    public func attach(fd: Int32, decode: @escaping (Int32) -> (events: [SwitchEvent], gone: Bool)) {
        queue.addReader(fd) { [self] fd in
            let (events, gone) = decode(fd)
            if gone { queue.removeReader(fd) }
            for e in events { output(engine.handle(e, at: max(MonotonicClock.now(), e.timestamp))) }
        }
    }

    public func detach(fd: Int32) { queue.removeReader(fd) }

    /// A new screen, keeping the cursor on the same element where it survives.
    public func replaceTree(_ tree: ElementTree) {
        queue.async { [self] in output(engine.replaceTree(tree, at: MonotonicClock.now())) }
    }

    /// Shows `screen` over the current one, its `logic` answering it (the message screen at
    /// the start of `run --messages`); before `start`, scanning starts on it.
    public func present(_ screen: ElementTree, logic: any ScreenLogic, effects: [Effect]) {
        queue.async { [self] in output(engine.present(screen, logic: logic, effects: effects, at: MonotonicClock.now())) }
    }

    /// The text before the caret of the field the keyboard types into, as the application
    /// has it: predictions and capitals follow it.
    public func fieldText(_ text: String) {
        queue.async { [self] in output(engine.presentedFieldChanged(textBefore: text, at: MonotonicClock.now())) }
    }

    /// The open keyboard's predictions, made on another thread: it shows them.
    public func wordsMade(_ made: MadeWords) {
        queue.async { [self] in output(engine.wordsMade(made, at: MonotonicClock.now())) }
    }

    /// Scanning by ear: the label of the highlight shown at `shownAt` has been said.
    public func labelSaid(shownAt: ScanInstant) {
        queue.async { [self] in output(engine.labelSaid(shownAt: shownAt, at: MonotonicClock.now())) }
    }

    /// Scanning by ear: the label of the highlight shown at `shownAt` began to be said.
    public func labelBegan(shownAt: ScanInstant) {
        queue.async { [self] in output(engine.labelBegan(shownAt: shownAt, at: MonotonicClock.now())) }
    }

    /// The phrases file changed: the message screen offers these.
    public func phrasesChanged(_ phrases: [String]) {
        queue.async { [self] in output(engine.phrasesChanged(phrases, at: MonotonicClock.now())) }
    }

    /// Closes the keyboard (the focus left its field): scanning goes back to the window.
    public func dismissPresented() {
        queue.async { [self] in output(engine.dismissPresented(at: MonotonicClock.now())) }
    }

    /// A problem the host met on the user's behalf, said through the engine's effects.
    public func report(_ problem: String) {
        queue.async { [self] in output(engine.report(problem, at: MonotonicClock.now())) }
    }

    /// A message from the host, shown through the engine's effects.
    public func notice(_ text: String) {
        queue.async { [self] in output(engine.notice(text, at: MonotonicClock.now())) }
    }

    /// The desktop's windows, for the screen menu's Windows page (and the `--app` window's
    /// raise).
    public func setWindows(_ windows: [ManagedWindow]) {
        queue.async { [self] in output(engine.windowsListed(windows, at: MonotonicClock.now())) }
    }

    /// Reads engine state on its queue (not from the queue itself); throws once the queue
    /// has stopped.
    public func inspect<T>(_ body: @escaping (ScanEngine) -> T) throws(ThreadStopped) -> T {
        try queue.sync { [self] in body(engine) }
    }

    /// The usage counted since the last take (the engine's `tallies` on), handed to
    /// `handler` on the engine's queue: it must not block.
    public func takeUsage(_ handler: @escaping (Usage) -> Void) {
        queue.async { [self] in handler(engine.takeUsage()) }
    }

    /// The usage counted since the last take, waited for, as the run's last; nil once the
    /// queue has stopped.
    public func takeLastUsage() -> Usage? {
        try? queue.sync { [self] in engine.takeUsage(last: true) }
    }

    /// 0 once the queue has stopped.
    public var lateTicks: Int { (try? inspect { $0.lateTicks }) ?? 0 }

    /// Whether any switch is held (an exclusive grab waits for none).
    public var anySwitchDown: Bool { (try? inspect { $0.anySwitchDown }) ?? false }

    private func output(_ effects: [TimedEffect]) {
        queue.preconditionOnQueue()
        if !effects.isEmpty { deliver(effects) }
        rearm()
    }

    private func rearm() {
        let next = engine.nextDeadline
        guard next != armed else { return }
        if let t = timer { queue.cancel(t) }
        armed = next
        timer = next.map { d in queue.schedule(at: d) { [self] in fire(d) } }
    }

    private func fire(_ deadline: ScanInstant) {
        timer = nil
        armed = nil
        let now = MonotonicClock.now()
        onTimer?(deadline, now)
        output(engine.handleDeadline(at: now))
    }
}

import ScanCore

/// Drives the engine in virtual time: inputs and deadlines are processed in time order,
/// a deadline before an input at the same instant (a highlight that moves at t is what a
/// press at t sees). The real-time runtime shares the engine; only the clock differs.
public struct ManualDriver {
    public private(set) var engine: ScanEngine
    public private(set) var now: ScanInstant
    var pending: [SwitchEvent] = []
    var next = 0

    public init(engine: ScanEngine, start: ScanInstant = .zero) {
        self.engine = engine
        self.now = start
    }

    /// Starts scanning at the driver's current time.
    public mutating func start() -> [TimedEffect] { engine.start(at: now) }

    /// Queues switch events (in time order) to be delivered at their timestamps.
    public mutating func schedule(_ events: [SwitchEvent]) {
        pending.append(contentsOf: events)
        pending[next...].sort { $0.timestamp < $1.timestamp }
    }

    /// Runs everything due up to and including `t`.
    public mutating func advance(to t: ScanInstant) -> [TimedEffect] {
        var out: [TimedEffect] = []
        advance(to: t) { out += $0 }
        return out
    }

    /// Runs everything due up to and including `t`, handing each step's effects to `sink`
    /// as they are made: a long simulation's output is never held whole.
    public mutating func advance(to t: ScanInstant, _ sink: ([TimedEffect]) -> Void) {
        while true {
            let event = next < pending.count ? pending[next] : nil
            let deadline = engine.nextDeadline
            if let d = deadline, d <= t, event == nil || d <= event!.timestamp {
                now = d
                sink(engine.handleDeadline(at: d))
            } else if let e = event, e.timestamp <= t {
                now = e.timestamp
                next += 1
                sink(engine.handle(e, at: e.timestamp))
            } else {
                break
            }
        }
        now = max(now, t)
    }

    /// Predictions made elsewhere for the presented keyboard arrive, now.
    public mutating func wordsMade(_ made: MadeWords) -> [TimedEffect] {
        engine.wordsMade(made, at: now)
    }

    /// Runs everything due up to and including `t`, with `events` (in time order, none
    /// before the driver's time) delivered at their timestamps, as `schedule` then `advance`
    /// would; each is taken as it is reached, so a long list is never copied.
    public mutating func advance<Events: Sequence<SwitchEvent>>(to t: ScanInstant, delivering events: Events,
                                                                _ sink: ([TimedEffect]) -> Void) {
        for e in events {
            guard e.timestamp <= t else { break }
            // A deadline at the event's instant comes first.
            advance(to: e.timestamp, sink)
            sink(engine.handle(e, at: e.timestamp))
        }
        advance(to: t, sink)
    }

    /// Delivers one event now, as a late-processed input would arrive (its own timestamp
    /// may be earlier than `now`).
    public mutating func deliver(_ e: SwitchEvent) -> [TimedEffect] {
        engine.handle(e, at: now)
    }
}

import Dispatch

/// A painter's frame clock: a timer on its queue that calls `tick` so many times a second
/// while something moves (point mode's sweep), and nothing at all otherwise.
public final class FrameTicker {
    private var timer: DispatchSourceTimer?

    public init() {}

    /// Whether the timer runs (tests: none when idle).
    public var isRunning: Bool { timer != nil }

    /// Starts the timer when `moving` and it is off, stops it when not; on `queue`.
    public func update(moving: Bool, queue: DispatchQueue, perSecond: Int, tick: @escaping () -> Void) {
        if moving && timer == nil {
            let t = DispatchSource.makeTimerSource(queue: queue)
            let period = 1_000_000_000 / max(1, perSecond)
            t.schedule(deadline: .now() + .nanoseconds(period), repeating: .nanoseconds(period), leeway: .milliseconds(1))
            t.setEventHandler(handler: tick)
            t.activate()
            timer = t
        } else if !moving {
            stop()
        }
    }

    public func stop() {
        timer?.cancel()
        timer = nil
    }
}

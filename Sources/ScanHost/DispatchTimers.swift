import Dispatch

/// libdispatch makes the timer descriptor behind every `asyncAfter` and timer source when the
/// first one is armed, and when the process has no descriptor left at that moment it says
/// nothing and no timer of the process ever fires. Code that other programs can make run out
/// of descriptors (front ends connecting to the socket) calls `prepare()` first, so that its
/// retries, and the run's end after --duration, still come.
public enum DispatchTimers {
    private static let prepared: Void = {
        let fired = DispatchSemaphore(value: 0)
        // Due in the future, so that it is armed on the descriptor rather than run at once.
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(1)) { fired.signal() }
        _ = fired.wait(timeout: .now() + .seconds(2))
    }()

    /// Arms and waits out one timer (about a millisecond), once per process.
    public static func prepare() { prepared }
}

import Dispatch

/// libdispatch makes the timer descriptor behind `asyncAfter` and timer sources on
/// `DispatchTime` (the monotonic clock) when the first one is armed, and when the process has
/// no descriptor left at that moment it says nothing and no such timer ever fires. Code that other programs can make run out
/// of descriptors (front ends connecting to the socket) calls `prepare()` first, so that its
/// retries, and the run's end after --duration, still come.
public enum DispatchTimers {
    private static let prepared: Void = {
        let fired = DispatchSemaphore(value: 0)
        // Due far enough ahead to be armed on the descriptor, not run at once, however busy
        // the machine is when it is handed over.
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { fired.signal() }
        _ = fired.wait(timeout: .now() + .seconds(2))
    }()

    /// Arms and waits out one timer (50 ms), once per process.
    public static func prepare() { prepared }
}

#if canImport(Glibc)
import Glibc
#endif
import CSys
import ScanCore

/// The one clock of the runtime: CLOCK_MONOTONIC, the clock evdev timestamps use once a
/// device is set to it. (Swift's ContinuousClock is CLOCK_BOOTTIME on Linux: never mixed in.)
public enum MonotonicClock {
    @inlinable
    public static func now() -> ScanInstant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return ScanInstant(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }
}

/// Sleeps the calling thread until an absolute CLOCK_MONOTONIC instant.
public func sleepUntil(_ t: ScanInstant) {
    var ts = timespec(tv_sec: Int(t.nanoseconds / 1_000_000_000), tv_nsec: Int(t.nanoseconds % 1_000_000_000))
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
}

/// CPU time of the calling thread.
public func threadCPUTime() -> ScanDuration { ScanDuration(nanoseconds: csys_cputime_ns(0)) }

/// "Operation not permitted (EPERM)" for an errno value.
public func errnoName(_ code: Int32) -> String { String(cString: csys_errno_description(code)) }

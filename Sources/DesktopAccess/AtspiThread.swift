#if canImport(Glibc)
import Glibc
#endif
import CAtspi
import ScanCore
import ScanHost

/// The one thread that calls libatspi: a SerialThread whose body is GLib's main loop.
/// libatspi is not thread-safe and delivers its events on GLib's default main context, so
/// one thread runs that context's loop and every call is sent to it as a job. Nothing here
/// is real-time: the scanning engine runs elsewhere and receives finished trees.
enum AtspiThread {
    /// Called after `atspi_init` succeeded.
    static func start() throws(ThreadError) -> SerialThread {
        try SerialThread(name: "switchscan.atspi", body: .foreign(GLibLoop()))
    }
}

/// libatspi's event loop (`atspi_event_main`: libatspi trusts its cache only while its own
/// loop runs) with one GLib source that runs the executor's jobs and timers. Jobs stay in
/// the executor, never in GLib, so whatever is queued when the loop ends is released with it.
final class GLibLoop: ForeignLoop, @unchecked Sendable {
    func run(_ thread: SerialThread) {
        let source = catspi_job_source_new({ context, timeout in
            let thread = Unmanaged<SerialThread>.fromOpaque(context!).takeUnretainedValue()
            let (now, next) = thread.due()
            if now { return 1 }
            if let next {
                let ns = (next - MonotonicClock.now()).nanoseconds
                if ns <= 0 { return 1 }
                timeout?.pointee = Int32(clamping: (ns + 999_999) / 1_000_000)
            } else {
                timeout?.pointee = -1
            }
            return 0
        }, { context in
            let thread = Unmanaged<SerialThread>.fromOpaque(context!).takeUnretainedValue()
            if !thread.runDue() { atspi_event_quit() }
        }, { context in
            Unmanaged<SerialThread>.fromOpaque(context!).release()
        }, Unmanaged.passRetained(thread).toOpaque())
        // The source holds the thread until GLib finalises it (the release above).
        // Below libatspi's own sources (its D-Bus dispatch, and the idle one that hands on
        // the events it queued): the events that came during a long read reach the follower
        // before the next job or timer, so it reads the window the events say is there
        // (a dialog opened meanwhile), not the one its stale cache still shows.
        g_source_set_priority(source, G_PRIORITY_LOW)
        g_source_attach(source, nil)
        atspi_event_main()
        g_source_destroy(source)
        g_source_unref(source)
    }

    func wake() { g_main_context_wakeup(nil) }
}

import CSys
import Foundation
import ScanHost

/// Ctrl-C, Ctrl-\, SIGTERM and SIGHUP, taken by a thread that waits for them.
///
/// `block()` is called before any thread exists, so that every thread inherits the block:
/// such a signal then stays pending, whenever it comes, until `wait()` takes it. (A Dispatch
/// signal source lost a SIGTERM sent just after start: until Dispatch registers it the
/// disposition is SIG_IGN, and Dispatch's main loop unblocks signals on the main thread.)
public enum TerminationSignals {
    /// Those the parent left to us: a signal it ignores (`nohup` ignores SIGHUP) stays
    /// ignored for the whole run. Linux keeps a blocked signal pending even when it is
    /// ignored, so an ignored one must not be blocked and waited for.
    static let all = [SIGINT, SIGQUIT, SIGTERM, SIGHUP].filter { csys_signal_ignored($0) == 0 }

    static var set: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for sig in all { sigaddset(&set, sig) }
        return set
    }

    public static func block() {
        var s = set
        pthread_sigmask(SIG_BLOCK, &s, nil)
    }

    /// The next one to come (blocking).
    public static func wait() -> Int32 {
        var s = set
        var sig: Int32 = 0
        while sigwait(&s, &sig) != 0 {}
        return sig
    }

    /// Blocks them and takes them on a thread of its own from now on: until `handle` is
    /// given a way to end the run cleanly, one of them ends the process at once, dying of
    /// that signal (loading a FIFO, a pipe, an accessibility bus that never answers: the
    /// user can still stop it), after `early` has put back what setup changed (the
    /// terminal). The kernel releases devices grabbed and removes virtual ones with the
    /// process.
    public static func watch(early: @escaping @Sendable () -> Void) {
        block()
        guard let thread = try? spawnThread(name: "switchscan.signals", {
            while true {
                let sig = wait()
                if let end = handler.withLock({ $0 }) {
                    end(sig)
                } else {
                    early()
                    dieOf(sig)
                }
            }
        }) else { return }
        pthread_detach(thread)
    }

    /// How a signal ends the run from now on (the session's clean shutdown).
    public static func handle(_ end: @escaping @Sendable (Int32) -> Void) { handler.withLock { $0 = end } }

    private static let handler = Locked<(@Sendable (Int32) -> Void)?>(nil)

    /// Ends the process as that signal would have, so that a shell or a supervisor sees it.
    public static func dieOf(_ sig: Int32) -> Never {
        signal(sig, SIG_DFL)
        var one = sigset_t()
        sigemptyset(&one)
        sigaddset(&one, sig)
        pthread_sigmask(SIG_UNBLOCK, &one, nil)
        raise(sig)
        exit(128 + sig)
    }
}

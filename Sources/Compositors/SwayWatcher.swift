#if canImport(Glibc)
import Glibc
#endif
import ScanHost

/// sway's events followed on a connection and a thread of their own, not polled: `changed`
/// is called on that thread once subscribed (with `first`: what changed before the
/// subscription is read then) and after each burst of events (a window opening sends
/// several), and returns whether to go on; `ended` when sway goes or `stop` is called.
final class SwayWatcher: @unchecked Sendable {
    private let path: String
    private let events: String
    private let lock = Lock()
    private var connection: SwayConnection?  // under `lock`
    private var thread: pthread_t?           // under `lock`
    private var stopped = false              // under `lock`

    /// `events`: the subscription's JSON list (`["window","workspace"]`).
    init(path: String, events: String) {
        self.path = path
        self.events = events
    }

    deinit { stop() }

    /// Returns at once: the watcher connects and subscribes on its thread. Once only.
    func start(thread name: String, changed: @escaping @Sendable (_ first: Bool) -> Bool, ended: @escaping @Sendable () -> Void) {
        lock.withLock {
            guard thread == nil, !stopped else { return }
            thread = try? spawnThread(name: name) { [self] in
                watch(changed)
                // Closed by the last one to hold it: here, or `stop` once it has interrupted it.
                lock.withLock { connection = nil }
                ended()
            }
        }
    }

    private func watch(_ changed: (Bool) -> Bool) {
        guard let e = try? SwayConnection(path: path, timeout: SwayPlaces.timeout) else { return }
        // Kept where `stop` finds it before anything waits on it.
        guard lock.withLock({ () -> Bool in
            guard !stopped else { return false }
            connection = e
            return true
        }) else { return }
        do {
            guard SwayTree.succeeded(try e.request(SwayConnection.subscribe, events)) else { return }
            e.waitWithoutEnd()
        } catch { return }
        guard changed(true) else { return }
        while true {
            guard (try? e.receive()) != nil else { return }
            while e.hasMoreToRead, (try? e.receive()) != nil {}
            guard changed(false) else { return }
        }
    }

    /// Ends the watcher and waits for its thread (from the thread itself, lets it end).
    /// Idempotent.
    func stop() {
        let (e, t): (SwayConnection?, pthread_t?) = lock.withLock {
            stopped = true
            defer { thread = nil }
            return (connection, thread)
        }
        e?.interrupt()
        guard let t else { return }
        // From the watcher's own thread (its owner let go there): it ends by itself.
        if pthread_equal(t, pthread_self()) != 0 { pthread_detach(t) } else { pthread_join(t, nil) }
    }
}

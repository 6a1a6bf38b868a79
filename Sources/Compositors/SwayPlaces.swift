#if canImport(Glibc)
import Glibc
#endif
import ScanCore
import ScanHost

/// Where sway's windows are, from its IPC socket, in this process (no `swaymsg` child): the
/// tree is read once at the start and again when sway says a window changed (`SUBSCRIBE`
/// to window, workspace and output events, on a connection and a thread of their own), so
/// `places` answers from memory. Any thread.
public final class SwayPlaces: WindowPlaceSource, @unchecked Sendable {
    public let name = "sway's IPC"
    public let native = WindowPlace.Client.wayland
    /// How long a request waits for sway.
    static let timeout = 2.0
    private let path: String
    private let lock = Lock()
    private var query: SwayConnection?      // under `lock`
    private var known: [WindowPlace] = []   // under `lock`
    private var events: SwayConnection?     // under `lock`
    private var watcher: pthread_t?         // under `lock`
    private var closed = false              // under `lock`

    /// Connects to the socket at `path` (`$SWAYSOCK`) and reads the windows once; fails with
    /// what is wrong when sway does not answer.
    public init(socket path: String) throws(SwayError) {
        self.path = path
        let c = try SwayConnection(path: path, timeout: Self.timeout)
        known = try SwayTree.places(c.request(SwayConnection.getTree))
        query = c
    }

    deinit { close() }

    public func places(fresh: Bool) -> [WindowPlace] {
        lock.withLock {
            if fresh { readTree() }
            return known
        }
    }

    /// Reads the tree again; under `lock`. A connection that failed (sway gone) is dropped:
    /// no window is known then.
    private func readTree() {
        guard let q = query else { return }
        do { known = try SwayTree.places(q.request(SwayConnection.getTree)) } catch {
            q.close()
            query = nil
            known = []
        }
    }

    /// Follows sway's window events: `onChange` is called (on the watcher's thread) when a
    /// window came, went, moved, was resized or focused, so the desktop is read again.
    public func follow(_ onChange: @escaping @Sendable () -> Void) {
        lock.withLock {
            guard watcher == nil, !closed else { return }
            let e: SwayConnection
            do {
                e = try SwayConnection(path: path, timeout: 0)
                let answer = try e.request(SwayConnection.subscribe, #"["window","workspace","output"]"#)
                guard SwayTree.succeeded(answer) else { return }
            } catch { return }
            events = e
            watcher = try? spawnThread { [self] in watch(e, onChange) }
        }
    }

    private func watch(_ e: SwayConnection, _ onChange: @Sendable () -> Void) {
        while true {
            guard (try? e.receive()) != nil else { return }
            let changed = lock.withLock {
                let before = known
                readTree()
                return known != before
            }
            if changed { onChange() }
        }
    }

    /// Focuses the window with sway's container id `id`.
    public func activate(_ id: String) -> Bool {
        guard Int(id) != nil else { return false }
        return lock.withLock {
            guard let q = query, let answer = try? q.request(SwayConnection.runCommand, "[con_id=\(id)] focus") else { return false }
            return SwayTree.succeeded(answer)
        }
    }

    /// Stops following and closes both connections. Idempotent.
    public func close() {
        let (e, t): (SwayConnection?, pthread_t?) = lock.withLock {
            closed = true
            defer { events = nil; watcher = nil }
            return (events, watcher)
        }
        e?.interrupt()
        if let t { pthread_join(t, nil) }
        e?.close()
        lock.withLock {
            query?.close()
            query = nil
        }
    }
}

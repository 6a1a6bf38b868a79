#if canImport(Glibc)
import Glibc
#endif
import ScanCore
import ScanHost

/// Where sway's windows are, from its IPC socket, in this process (no `swaymsg` child): the
/// tree is read at the start and again when sway says a window changed (`SUBSCRIBE` to
/// window, workspace and output events, on a connection and a thread of their own), so
/// `places` answers from memory. A request that fails drops its connection, and the next
/// one connects again; while the events are not followed, every `places` reads afresh.
/// Any thread.
public final class SwayPlaces: WindowPlaceSource, @unchecked Sendable {
    public let name = "sway's IPC"
    public let native = WindowPlace.Client.wayland
    /// How long a request waits for sway.
    static let timeout = 2.0
    private let path: String
    private let lock = Lock()
    private var query: SwayConnection?      // under `lock`
    private var known: [WindowPlace] = []   // under `lock`
    private var watcher: SwayWatcher?       // under `lock`
    /// The watcher is reading events: the places it keeps are current.
    private var following = false           // under `lock`
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
            if fresh || !following { readTree() }
            return known
        }
    }

    /// Reads the tree again, connecting again if need be; under `lock`. What fails leaves
    /// no window known (sway gone, or too slow to say).
    private func readTree() {
        guard !closed else { return }
        do {
            if query == nil { query = try SwayConnection(path: path, timeout: Self.timeout) }
            known = try SwayTree.places(query!.request(SwayConnection.getTree))
        } catch {
            query?.close()
            query = nil
            known = []
        }
    }

    /// Follows sway's window events: `onChange` is called (on the watcher's thread) when a
    /// window came, went, moved or was resized, so the desktop is read again. Returns at once:
    /// the watcher connects and subscribes on its own thread.
    public func follow(_ onChange: @escaping @Sendable () -> Void) {
        let w = SwayWatcher(path: path, events: #"["window","workspace","output"]"#)
        guard lock.withLock({ () -> Bool in
            guard watcher == nil, !closed else { return false }
            watcher = w
            return true
        }) else { return }
        w.start(thread: "switchscan.sway-places", changed: { [self] first in
            let (go, changed) = lock.withLock { () -> (Bool, Bool) in
                guard !closed else { return (false, false) }
                following = true
                let before = Self.placement(known)
                readTree()
                return (true, first || Self.placement(known) != before)
            }
            if changed { onChange() }
            return go
        }, ended: { [self] in
            // `places` reads afresh from now on.
            lock.withLock { following = false }
        })
    }

    /// What decides where a window's frames go: a title or the focus changing does not.
    private static func placement(_ places: [WindowPlace]) -> [[String]] {
        places.map { [$0.id, "\($0.pid ?? -1)", "\($0.client)", "\($0.geometry)"] }
    }

    /// Focuses the window with sway's container id `id`.
    public func activate(_ id: String) -> Bool {
        guard Int(id) != nil else { return false }
        return lock.withLock {
            do {
                if query == nil { query = try SwayConnection(path: path, timeout: Self.timeout) }
                return SwayTree.succeeded(try query!.request(SwayConnection.runCommand, "[con_id=\(id)] focus"))
            } catch {
                // A late answer would be taken for the next request's.
                query?.close()
                query = nil
                return false
            }
        }
    }

    /// Stops following and closes both connections. Idempotent.
    public func close() {
        let w: SwayWatcher? = lock.withLock {
            closed = true
            return watcher
        }
        w?.stop()
        lock.withLock {
            watcher = nil
            query?.close()
            query = nil
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
import CAtspi
import ScanCore
import ScanHost

/// When events of one kind reached SwitchScan from the applications: for benchmarks that
/// time an action to the application's answer, apart from what SwitchScan then reads.
public final class EventArrivals: @unchecked Sendable {
    private let prefix: String
    private let lock = Lock()
    private let cond = Condition()
    private var times: [ScanInstant] = []  // under `lock`

    init(prefix: String) { self.prefix = prefix }

    /// On the AT-SPI thread, as the event is handed to SwitchScan.
    func note(_ type: String) {
        guard type.hasPrefix(prefix) else { return }
        let now = MonotonicClock.now()
        lock.withLock { times.append(now); cond.broadcast() }
    }

    public var count: Int { lock.withLock { times.count } }

    /// The arrival after the first `seen`, waiting until `deadline`; nil if none came.
    public func wait(after seen: Int, until deadline: ScanInstant) -> ScanInstant? {
        lock.withLock {
            while times.count <= seen {
                if !cond.wait(lock, until: deadline) { return nil }
            }
            return times[seen]
        }
    }
}

extension DesktopAccess {
    /// From now on, notes when each event whose type begins with `prefix`
    /// ("object:state-changed:checked") reaches SwitchScan. For `switchscan-bench tap`.
    public func recordArrivals(of prefix: String) -> EventArrivals {
        let log = EventArrivals(prefix: prefix)
        try? thread.sync { [self] in arrivalsForBench = log }
        return log
    }

    /// Walk times of the chosen window, in nanoseconds: the first read this process makes of
    /// it (libatspi knows nothing of the application yet); then, once libatspi has taken in
    /// the application's cache (asked for at first contact, and taken in only while the
    /// loop runs, as it has when a window is followed: up to a second is given
    /// for it), `repeats` reads with the caches (libatspi's, and what earlier reads
    /// learnt); then `uncachedRepeats` (default: as many) with both off (every getter not
    /// read in a batch a D-Bus round trip). For `switchscan-bench desktop`.
    public func benchWalks(app: String?, repeats: Int, uncachedRepeats: Int? = nil)
        -> (first: UInt64, cached: [UInt64], uncached: [UInt64], nodes: Int, visited: Int)? {
        func walk(_ ref: AccessibleRef, browser: Bool, known: WalkCache) -> (ns: UInt64, walker: Walker)? {
            var walker = Walker()
            walker.browser = browser
            walker.known = known
            let t0 = MonotonicClock.now()
            do { try walker.walkRoot(ref) } catch { return nil }
            return (UInt64((MonotonicClock.now() - t0).nanoseconds), walker)
        }
        guard let first = try? thread.sync({ [self] () -> (ns: UInt64, window: AccessibleRef)? in
            guard let c = chooseWindow(readApplications(), app: app),
                  let w = walk(c.window.ref, browser: RoleMapping.isBrowser(toolkit: c.app.info.toolkit), known: WalkCache()) else { return nil }
            return (w.ns, c.window.ref)
        }) ?? nil else { return nil }
        // Between these jobs the loop runs, and libatspi takes in the application's cache.
        let deadline = MonotonicClock.now() + .seconds(1)
        while MonotonicClock.now() < deadline {
            let filled = (try? thread.sync { _atspi_accessible_test_cache(first.window.pointer, ATSPI_CACHE_CHILDREN) != 0 }) ?? true
            if filled { break }
            usleep(10_000)
        }
        return try? thread.sync { [self] () -> (first: UInt64, cached: [UInt64], uncached: [UInt64], nodes: Int, visited: Int)? in
            guard let c = chooseWindow(readApplications(), app: app) else { return nil }
            let browser = RoleMapping.isBrowser(toolkit: c.app.info.toolkit)
            guard let warm = walk(c.window.ref, browser: browser, known: WalkCache()) else { return nil }
            knownForBench = warm.walker.known
            var cached: [UInt64] = [], uncached: [UInt64] = []
            for _ in 0..<repeats { if let t = walk(c.window.ref, browser: browser, known: knownForBench) { cached.append(t.ns) } }
            atspi_accessible_set_cache_mask(c.app.ref.pointer, ATSPI_CACHE_NONE)
            atspi_accessible_clear_cache(c.app.ref.pointer)
            for _ in 0..<(uncachedRepeats ?? repeats) {
                if let t = walk(c.window.ref, browser: browser, known: WalkCache()) { uncached.append(t.ns) }
            }
            Atspi.setCacheMask(c.app.ref)
            let last = walk(c.window.ref, browser: browser, known: WalkCache())?.walker ?? warm.walker
            return (first.ns, cached, uncached, last.nodes.count, last.visited)
        } ?? nil
    }

    /// Moves an adjustable element by its step without the read that follows an action, so
    /// that only the application's own change event brings the new tree: for timing that
    /// path (`switchscan-bench desktop`).
    public func benchAdjust(element: String, up: Bool) {
        thread.async { [self] in
            guard let ref = elementObject(element), let v = try? Atspi.value(ref), v.max > v.min else { return }
            let step = v.step > 0 ? v.step : (v.max - v.min) / 20
            _ = try? Atspi.setValue(ref, min(v.max, max(v.min, v.current + (up ? step : -step))))
        }
    }
}

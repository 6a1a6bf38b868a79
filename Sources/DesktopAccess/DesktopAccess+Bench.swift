import CAtspi
import ScanCore
import ScanHost

extension DesktopAccess {
    /// Walk times of the chosen window, in nanoseconds: `repeats` reads with the caches
    /// (libatspi's, and the action names of earlier reads), as following a window reads,
    /// then `uncachedRepeats` (default: as many) with both off (every getter a D-Bus round trip). For `switchscan-bench desktop`.
    public func benchWalks(app: String?, repeats: Int, uncachedRepeats: Int? = nil) -> (cached: [UInt64], uncached: [UInt64], nodes: Int, visited: Int)? {
        try? thread.sync { [self] () -> (cached: [UInt64], uncached: [UInt64], nodes: Int, visited: Int)? in
            let apps = readApplications()
            guard let c = chooseWindow(apps, app: app) else { return nil }
            let browser = RoleMapping.isBrowser(toolkit: c.app.info.toolkit)
            func time(cached: Bool) -> UInt64? {
                var walker = Walker()
                walker.browser = browser
                if cached { walker.known = knownForBench }
                let t0 = MonotonicClock.now()
                do { try walker.walkRoot(c.window.ref) } catch { return nil }
                return UInt64((MonotonicClock.now() - t0).nanoseconds)
            }
            var cached: [UInt64] = [], uncached: [UInt64] = []
            var nodes = 0
            var first = Walker()
            first.browser = browser
            try? first.walkRoot(c.window.ref)   // the first read fills the caches
            knownForBench = first.known
            for _ in 0..<repeats { if let t = time(cached: true) { cached.append(t) } }
            atspi_accessible_set_cache_mask(c.app.ref.pointer, ATSPI_CACHE_NONE)
            atspi_accessible_clear_cache(c.app.ref.pointer)
            for _ in 0..<(uncachedRepeats ?? repeats) { if let t = time(cached: false) { uncached.append(t) } }
            Atspi.setCacheMask(c.app.ref)
            var w = Walker()
            w.browser = browser
            try? w.walkRoot(c.window.ref)
            nodes = w.nodes.count
            return (cached, uncached, nodes, w.visited)
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

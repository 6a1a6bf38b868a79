#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import ScanCore
import Testing
@testable import X11Output

/// Figures for the docs, printed, never asserted (tests never assert wall-clock speed).
@Suite("Overlay measurements (printed)", .serialized)
struct OverlayMeasurements {
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
    }

    static func threadCPU() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    @Test("press → outline moved in the server, beside a bare XSync; the presenter's CPU per move")
    func latencyAndCPU() throws {
        let rig = try OverlayRig(realClock: true)
        let presenter = rig.presenter
        final class Box: @unchecked Sendable { var latencies: [Double] = []; var cpu: [Double] = [] }
        let box = Box()
        rig.queue.sync {
            presenter.onSynced = { effectTime, syncedAt in box.latencies.append((syncedAt - effectTime).seconds * 1e3) }
        }
        let frames = [Rect(x: 100, y: 100, width: 120, height: 40), Rect(x: 400, y: 300, width: 600, height: 300)]
        func move(_ i: Int) {
            let t = monotonicNow()
            rig.queue.sync {
                let c0 = Self.threadCPU()
                try? presenter.present([TimedEffect(t, .highlight(item: "i\(i)", kind: i % 5 == 0 ? .group : .element,
                                                                   frame: frames[i % 2], label: nil, context: nil))])
                box.cpu.append((Self.threadCPU() - c0) * 1e3)
            }
        }
        for i in 0..<20 { move(i) }  // warm-up
        box.latencies.removeAll(); box.cpu.removeAll()
        for i in 0..<200 { move(i) }
        #expect(box.latencies.count == 200, "onSynced is called once per highlight")
        var sync: [Double] = []
        for _ in 0..<200 {
            let t0 = now()
            rig.probe.roundTrip()
            sync.append((now() - t0) * 1e3)
        }
        func f(_ v: Double) -> String { String(Int((v * 1000).rounded())) + " µs" }
        print("overlay move, present → XSync done (200): p50 \(f(Self.percentile(box.latencies, 0.5))), p99 \(f(Self.percentile(box.latencies, 0.99))), max \(f(box.latencies.max()!))")
        print("bare XSync round trip (200):            p50 \(f(Self.percentile(sync, 0.5))), p99 \(f(Self.percentile(sync, 0.99)))")
        print("presenter CPU per move: p50 \(f(Self.percentile(box.cpu, 0.5))), p99 \(f(Self.percentile(box.cpu, 0.99)))")

        // Moving and sweeping over time: `switchscan-bench screen` (its CPU while moving once a
        // second and while a sweep is animated). Here, only that the sweep animates and stops.
        #expect(rig.queue.sync { presenter.isAnimating } == false)
        try rig.present([.modeChanged(.point), .sweep(Sweep(axis: .x, phase: .line, start: monotonicNow(), lo: 0, hi: 1280, speed: 200, passes: 4))])
        #expect(rig.queue.sync { presenter.isAnimating })
        try rig.present([.scanStopped(.paused)])
        #expect(rig.queue.sync { presenter.isAnimating } == false)
    }
}


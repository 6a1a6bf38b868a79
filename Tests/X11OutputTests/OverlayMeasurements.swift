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

    /// utime + stime of another process, from /proc (seconds).
    static func cpu(of pid: pid_t) -> Double {
        let fd = open("/proc/\(pid)/stat", O_RDONLY)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let n = read(fd, &buffer, buffer.count)
        guard n > 0 else { return 0 }
        let text = String(decoding: buffer[0..<n], as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the name: state is field 3, utime 14, stime 15 (1-based, whole line).
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ((Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)) / ticks
    }

    @Test("press → outline moved in the server, beside a bare XSync; CPU while moving and sweeping")
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

        // One move a second for 5 s: the presenter's CPU (its own count; the process runs
        // other suites meanwhile) and the X server's.
        let p0 = rig.queue.sync { presenter.cpuSeconds }, x0 = Self.cpu(of: rig.server.xvfb), w0 = now()
        for i in 0..<5 { move(i); usleep(1_000_000) }
        let wall = now() - w0
        print("moving once a second for \(Int(wall.rounded())) s: presenter CPU \(format3((rig.queue.sync { presenter.cpuSeconds } - p0) / wall * 100))%, Xvfb \(format2((Self.cpu(of: rig.server.xvfb) - x0) / wall * 100))%")
        #expect(rig.queue.sync { presenter.isAnimating } == false)

        // A point-mode sweep at 60 frames a second for 3 s.
        let start = monotonicNow()
        let q0 = rig.queue.sync { presenter.cpuSeconds }, y0 = Self.cpu(of: rig.server.xvfb), v0 = now()
        try rig.present([.modeChanged(.point), .sweep(Sweep(axis: .x, phase: .line, start: start, lo: 0, hi: 1280, speed: 200, passes: 4))])
        usleep(3_000_000)
        let sweepWall = now() - v0
        print("sweep animating (60 fps) for 3 s: presenter CPU \(format3((rig.queue.sync { presenter.cpuSeconds } - q0) / sweepWall * 100))%, Xvfb \(format2((Self.cpu(of: rig.server.xvfb) - y0) / sweepWall * 100))%")
        try rig.present([.scanStopped(.paused)])
        #expect(rig.queue.sync { presenter.isAnimating } == false)
    }
}

func format3(_ v: Double) -> String {
    let k = Int((v * 1000).rounded())
    let frac = k % 1000
    return "\(k / 1000).\(frac < 10 ? "00" : frac < 100 ? "0" : "")\(frac)"
}

func format2(_ v: Double) -> String {
    let hundredths = Int((v * 100).rounded())
    return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
}

import ArgumentParser
import CommandSupport
import Foundation
import ScanCore
import ScanHost
import ScanRuntime
import ScanSession

/// Lateness or latency samples in nanoseconds, summarised in microseconds.
struct Summary {
    var p50 = 0.0, p99 = 0.0, p999 = 0.0, max = 0.0
    var count = 0

    init(_ samples: [Int64]) {
        let s = samples.sorted()
        count = s.count
        guard !s.isEmpty else { return }
        func q(_ f: Double) -> Double {
            Double(s[Swift.min(s.count - 1, Int((Double(s.count) * f).rounded(.down)))]) / 1000
        }
        p50 = q(0.5); p99 = q(0.99); p999 = q(0.999); max = Double(s.last!) / 1000
    }

    func json(extra: String = "") -> String {
        "{\"p50_us\":\(r1(p50)),\"p99_us\":\(r1(p99)),\"p999_us\":\(r1(p999)),\"max_us\":\(r1(max))\(extra)}"
    }
}

func r1(_ v: Double) -> String { String(format: "%.1f", v) }
func r2(_ v: Double) -> String { String(format: "%.2f", v) }

/// Busy threads on every core at normal priority: the CPU load a switch user's machine may
/// be under while scanning.
final class CPULoad: @unchecked Sendable {
    private var threads: [pthread_t] = []
    private let lock = Lock()
    private var stopFlag = false

    init(threads count: Int) {
        for _ in 0..<count {
            threads.append(try! spawnThread(name: "switchscan.bench-load") { [self] in
                var x: UInt64 = 1
                while !stopped { for _ in 0..<100_000 { x = x &* 6364136223846793005 &+ 1 } }
                if x == 42 { print("") }
            })
        }
    }

    var stopped: Bool { lock.lock(); defer { lock.unlock() }; return stopFlag }

    func stop() {
        lock.lock(); stopFlag = true; lock.unlock()
        for t in threads { pthread_join(t, nil) }
    }
}

/// Progress on stderr for long runs, when stderr is a terminal.
func progress(_ text: String) {
    guard isatty(2) == 1 else { return }
    writeErr("\r\u{1B}[K\(text)")
}

func endProgress() {
    guard isatty(2) == 1 else { return }
    writeErr("\r\u{1B}[K")
}

/// A flat screen of `count` buttons in rows, for timing runs.
func benchTree(count: Int) -> ElementTree {
    var nodes = [ElementNode(id: "root")]
    nodes[0].frame = Rect(x: 0, y: 0, width: 1000, height: Double(count / 10 + 1) * 40)
    for i in 0..<count {
        var n = ElementNode(id: "b\(i)")
        n.isAccessibilityElement = true
        n.label = "Item \(i)"
        n.traits = TraitSet([.button])
        n.frame = Rect(x: Double(i % 10) * 100, y: Double(i / 10) * 40, width: 100, height: 40)
        n.activationPoint = n.frame.center
        n.parent = 0
        nodes[0].children.append(nodes.count)
        nodes.append(n)
    }
    return ElementTree(screenID: "bench", size: (1000, nodes[0].frame.height), nodes: nodes)
}

/// How idle CPUs were kept for a benchmark run, for its report.
func wakeupText(_ request: WakeupLatencyRequest?) -> String {
    guard let request else { return "allowed to sleep deeply (--allow-deep-idle)" }
    return request.held ? "kept quick to wake (/dev/cpu_dma_latency 0 µs)"
                        : "may sleep deeply: the wake-up request was refused (\(request.problem ?? "?"))"
}

func wakeupText(_ status: RealTimeQueue.Status) -> String {
    status.wakeupRequestHeld ? "kept quick to wake (/dev/cpu_dma_latency 0 µs)" : "may sleep deeply (no wake-up request held)"
}

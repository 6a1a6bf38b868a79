import ArgumentParser
import CommandSupport
import DesktopAccess
import Dispatch
import Foundation
import ScanCore
import ScanHost
import ScanRuntime
import ScanSession

struct BenchDesktop: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "desktop",
        abstract: "Time reading a live window (with and without libatspi's cache) and following its changes.",
        discussion: """
        Needs an application on the accessibility bus. The window's first read is timed alone \
        (libatspi knows nothing of the application yet); the reads with the cache start once \
        libatspi has taken in the application's cache, as it has when a window is followed. \
        The change latency is measured from a \
        new value set on one of the window's sliders through AT-SPI (as another program would \
        change it, so that only the application's own event reports it) to the engine having \
        rebuilt its scan list from the new tree: the event, the wait for the rest of its \
        burst, the read and the build. RSS is read before \
        and after the changes. With --json the last line is one JSON object.
        """
    )

    @Option(help: "The application to read (default: the one 'run --desktop' would scan).")
    var app: String?

    @Option(help: "Reads of the window, each way.")
    var repeats = 20

    @Option(help: "Reads without the caches (default: --repeats; a big page takes seconds each way).")
    var uncachedRepeats: Int?

    @Option(help: "Changes to follow (each one a value change and the snapshot it causes).")
    var changes = 100

    func validate() throws {
        guard (1...1000).contains(repeats) else { throw ValidationError("--repeats takes 1 to 1000") }
        guard (0...1000).contains(uncachedRepeats ?? repeats) else { throw ValidationError("--uncached-repeats takes 0 to 1000") }
        guard (1...100_000).contains(changes) else { throw ValidationError("--changes takes 1 to 100000") }
    }

    @Flag(help: "Print one JSON object as the last line.")
    var json = false

    func run() throws {
        let desktop = try connectDesktop()
        defer { desktop.stop() }
        guard let walks = desktop.benchWalks(app: app, repeats: repeats, uncachedRepeats: uncachedRepeats ?? repeats), !walks.cached.isEmpty else {
            throw fail("Error: no window to read; start an application first (see 'switchscan desktop').")
        }
        let cached = Summary(walks.cached.map { Int64($0) })
        let uncached = Summary(walks.uncached.map { Int64($0) })
        print("window: \(walks.nodes) nodes kept of \(walks.visited) accessible objects read")
        print("first read (this process's first look at the application): \(r2(Double(walks.first) / 1e6)) ms")
        print("snapshot with cache:    p50 \(r2(cached.p50 / 1000)) ms, max \(r2(cached.max / 1000)) ms (\(cached.count) reads)")
        print("snapshot without cache: p50 \(r2(uncached.p50 / 1000)) ms, max \(r2(uncached.max / 1000)) ms (\(uncached.count) reads)")

        // Change latency: an adjustment of a slider, followed to the engine's new scan list.
        let settings = ScanSettings()
        let arrivals = Arrivals()
        guard let first = desktop.follow(app: app, onChange: { snapshot in
            let t0 = MonotonicClock.now()
            var engine = ScanEngine(tree: snapshot.tree, settings: settings)
            _ = engine.start(at: t0)
            arrivals.add(MonotonicClock.now())
        }) else { throw fail("Error: the window could not be read.") }
        let tree = first.tree
        guard let slider = tree.nodes.first(where: { $0.adjustable != nil && !$0.traits.contains(.notEnabled) }) else {
            print("change latency: no adjustable element in this window (skipped)")
            return
        }
        let rss0 = residentBytes()
        var latencies: [Int64] = []
        var missed = 0
        for k in 0..<changes {
            let direction: AdjustDirection = k % 2 == 0 ? .increment : .decrement
            let sent = MonotonicClock.now()
            let before = arrivals.count
            desktop.benchAdjust(element: slider.id, up: direction == .increment)
            if let t = arrivals.wait(after: before, seconds: 1.0) {
                latencies.append(t.nanoseconds - sent.nanoseconds)
            } else {
                missed += 1
            }
            usleep(100_000)   // apart, as a switch user's presses are: each change is its own burst
        }
        let rss1 = residentBytes()
        let s = Summary(latencies)
        print("change to scan list (\(slider.label ?? slider.id)): p50 \(r2(s.p50 / 1000)) ms, p99 \(r2(s.p99 / 1000)) ms, max \(r2(s.max / 1000)) ms (\(s.count) changes, \(missed) not seen)")
        print("RSS: \(rss0 / 1_000_000) MB before, \(rss1 / 1_000_000) MB after \(changes) changes (\(String(format: "%+.1f", Double(rss1 - rss0) / 1e6)) MB)")
        if json {
            print("{\"nodes\":\(walks.nodes),\"visited\":\(walks.visited),\"first_read_ms\":\(r2(Double(walks.first) / 1e6)),\"cached_p50_ms\":\(r2(cached.p50 / 1000)),\"uncached_p50_ms\":\(r2(uncached.p50 / 1000)),"
                  + "\"change_p50_ms\":\(r2(s.p50 / 1000)),\"change_p99_ms\":\(r2(s.p99 / 1000)),\"missed\":\(missed),"
                  + "\"rss_growth_mb\":\(r2(Double(rss1 - rss0) / 1e6))}")
        }
    }
}

/// When new snapshots reached the engine, waited for from the benchmark's thread.
final class Arrivals: @unchecked Sendable {
    private let lock = Lock()
    private let cond = Condition()
    private var times: [ScanInstant] = []

    var count: Int { lock.withLock { times.count } }

    func add(_ t: ScanInstant) {
        lock.withLock { times.append(t); cond.broadcast() }
    }

    /// The first arrival after the first `index`, or nil after `seconds`.
    func wait(after index: Int, seconds: Double) -> ScanInstant? {
        let deadline = MonotonicClock.now() + .seconds(seconds)
        return lock.withLock {
            while times.count <= index {
                if !cond.wait(lock, until: deadline) { return nil }
            }
            return times[index]
        }
    }
}

/// Resident memory of this process, from /proc/self/statm.
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

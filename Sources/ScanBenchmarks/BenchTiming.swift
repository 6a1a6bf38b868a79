import ArgumentParser
import CommandSupport
import DesktopAccess
import Dispatch
import Foundation
import ScanCore
import ScanHost
import ScanRuntime
import ScanSession

enum TimingDriver: String, ExpressibleByArgument, CaseIterable { case realtime, dispatch }

/// New live trees seen by the last engine run (bench timing --desktop).
nonisolated(unsafe) var desktopTreesSeen = 0

struct RunResult {
    var trees = 0
    var samples: [Int64]
    var missed: Int
    var cpu: Double
    var warning: String?
    var scheduling = ""
}

struct BenchTiming: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timing",
        abstract: "Scan ticks through the real runtime and, in the same run, a reference thread; lateness in µs.",
        discussion: """
        The engine run drives a real ScanEngine on the runtime's timing thread (or, with \
        --driver dispatch, on a plain DispatchSourceTimer queue). The reference run is a bare \
        thread sleeping on clock_nanosleep(TIMER_ABSTIME) at the same priority: the best this \
        machine can do. With --json the last line is one JSON object.
        """
    )

    @Option(help: "Scan interval: 1ms, 16.7ms, 100ms, 1s …")
    var interval: Interval = Interval(argument: "16.7ms")!

    @Option(help: "Number of ticks in each run.")
    var ticks = 300

    @Flag(help: "Run a CPU hog on every core meanwhile.")
    var load = false

    @Option(help: "realtime (the runtime's queue) or dispatch (a DispatchSourceTimer, for comparison).")
    var driver: TimingDriver = .realtime

    @Option(name: .customLong("rt-priority"), help: "SCHED_FIFO priority for the engine and the reference (0: none).")
    var rtPriority: Int32 = 20

    @Flag(name: .customLong("allow-deep-idle"), help: "Do not ask the kernel to keep idle CPUs quick to wake (/dev/cpu_dma_latency); saves power, and a press may reach the engine later.")
    var allowDeepIdle = false

    @Option(name: .customLong("spin-margin"), help: "Wake this long before each timer deadline and spin the rest (0 to 1ms; a bare number is in µs): the wake-up's cold path runs before the deadline, not after it, for at most this much CPU per tick. 0 turns it off.")
    var spinMargin = SpinMargin(ScanDuration(nanoseconds: 50_000))

    @Flag(help: "Print one JSON object as the last line.")
    var json = false

    @Flag(help: "Scan the live desktop's active window meanwhile, as 'run --desktop' does, while a slider in it is moved every 20 ms (five steps up, five down): each change is read through AT-SPI and handed to the engine.")
    var desktop = false

    func validate() throws {
        if desktop && driver != .realtime { throw ValidationError("--desktop measures the real runtime; leave out --driver dispatch") }
        guard (10...1_000_000).contains(ticks) else { throw ValidationError("--ticks takes 10 to 1000000") }
        guard (0...99).contains(rtPriority) else { throw ValidationError("--rt-priority takes 0 to 99") }
    }

    func run() throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let hog = load ? CPULoad(threads: cores) : nil
        defer { hog?.stop() }
        // Held for the whole run, as `switchscan run` holds it, so that the engine, the
        // reference and the Dispatch driver all see the same idle CPUs.
        let wakeup = allowDeepIdle ? nil : WakeupLatencyRequest(microseconds: 0)
        defer { wakeup?.release() }
        // Both runs at once: a machine may stall now and then for milliseconds, and running them
        // side by side exposes both to the same stalls, so their ratio means something.
        var reference: (samples: [Int64], missed: Int) = ([], 0)
        let referenceThread = try spawnThread(name: "switchscan.bench-reference") { reference = self.runReference() }
        let engine = driver == .realtime ? runEngine() : runDispatch()
        pthread_join(referenceThread, nil)
        let (missed, cpu) = (engine.missed, engine.cpu)
        desktopTreesSeen = engine.trees
        if let warning = engine.warning { writeErr("Warning: \(warning)\n") }
        let e = Summary(engine.samples), r = Summary(reference.samples)
        let ratio = r.p99 > 0 ? e.p99 / r.p99 : 0
        if !json || isatty(1) == 1 {
            print("bench timing: interval \(interval.text), \(ticks) ticks, load \(load ? "on (\(cores) hogs)" : "off"), driver \(driver.rawValue)")
            print("run         p50 µs    p99 µs  p99.9 µs    max µs   missed")
            print(String(format: "%-10@ %8.1f %9.1f %9.1f %9.1f %8d", "engine" as NSString, e.p50, e.p99, e.p999, e.max, missed))
            print(String(format: "%-10@ %8.1f %9.1f %9.1f %9.1f %8d", "reference" as NSString, r.p50, r.p99, r.p999, r.max, reference.missed))
            print(String(format: "ratio engine/reference p99: %.2f; engine thread CPU: %.3f%% of a core", ratio, cpu))
            if !engine.scheduling.isEmpty { print("engine thread: \(engine.scheduling)") }
            print("idle CPUs: \(wakeupText(wakeup))")
            if desktop { print("desktop: \(desktopTreesSeen) new trees of the live window handed to the engine during the run") }
        }
        if json {
            print("{\"interval_ms\":\(interval.milliseconds),\"ticks\":\(ticks),\"load\":\(load),\"driver\":\"\(driver.rawValue)\","
                + "\"engine\":\(e.json(extra: ",\"missed\":\(missed)")),\"reference\":\(r.json(extra: ",\"missed\":\(reference.missed)")),"
                + "\"ratio_p99\":\(r2(ratio)),\"cpu_percent\":\(String(format: "%.4f", cpu))}")
        }
    }

    func engineSettings() -> ScanSettings {
        var s = ScanSettings()
        s.autoScanInterval = interval.duration
        s.loops = ticks + 10
        return s
    }

    /// The real runtime: LiveScanner on a RealTimeQueue; lateness is wake-up time minus the
    /// engine's deadline.
    func runEngine() -> RunResult {
        let rt = RealTimeQueue(options: .init(priority: rtPriority, lockMemory: rtPriority > 0, wakeupLatency: nil,
                                              spinMargin: spinMargin.duration))
        defer { rt.stop() }
        let source = desktop ? DesktopLoad() : nil
        defer { source?.stop() }
        let scanner = LiveScanner(engine: ScanEngine(tree: source?.firstTree ?? benchTree(count: 97), settings: engineSettings()), queue: rt) { _ in }
        source?.start(feeding: scanner)
        var samples: [Int64] = []
        samples.reserveCapacity(ticks)
        let done = DispatchSemaphore(value: 0)
        var cpuStart = ScanDuration.zero, wallStart = ScanInstant.zero
        var cpu = 0.0
        scanner.onTimer = { deadline, now in
            if samples.isEmpty { cpuStart = threadCPUTime(); wallStart = now }
            samples.append(now.nanoseconds - deadline.nanoseconds)
            if samples.count % 50 == 0 { progress("engine: \(samples.count)/\(ticks) ticks") }
            if samples.count == ticks {
                let wall = (now - wallStart).seconds
                cpu = wall > 0 ? (threadCPUTime() + ScanDuration(nanoseconds: -cpuStart.nanoseconds)).seconds / wall * 100 : 0
                done.signal()
            }
        }
        scanner.start()
        done.wait()
        endProgress()
        let missed = scanner.lateTicks
        let st = rt.status
        return RunResult(trees: source?.trees ?? 0, samples: samples, missed: missed, cpu: cpu, warning: st.warning,
                         scheduling: (st.realTime ? "SCHED_FIFO \(st.priority)" : "normal scheduling") + (st.memoryLocked ? ", memory locked" : ""))
    }

    /// The same engine on a serial DispatchQueue driven by a DispatchSourceTimer.
    func runDispatch() -> RunResult {
        let queue = DispatchQueue(label: "bench.dispatch", qos: .userInteractive)
        let done = DispatchSemaphore(value: 0)
        var engine = ScanEngine(tree: benchTree(count: 97), settings: engineSettings())
        var samples: [Int64] = []
        var missed = 0
        var cpu = 0.0
        let timer = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
        queue.sync {
            let start = MonotonicClock.now()
            _ = engine.start(at: start)
            var cpuStart = ScanDuration.zero
            timer.setEventHandler {
                let now = MonotonicClock.now()
                guard let d = engine.nextDeadline else { return }
                if samples.isEmpty { cpuStart = threadCPUTime() }
                let fires = Int(timer.data)
                missed += max(0, fires - 1)
                samples.append(now.nanoseconds - d.nanoseconds)
                _ = engine.handleDeadline(at: now)
                if samples.count == ticks {
                    let wall = (now - start).seconds
                    cpu = wall > 0 ? (threadCPUTime() + ScanDuration(nanoseconds: -cpuStart.nanoseconds)).seconds / wall * 100 : 0
                    timer.cancel()
                    done.signal()
                }
            }
            let first = start + interval.duration
            timer.schedule(deadline: DispatchTime(uptimeNanoseconds: UInt64(first.nanoseconds)),
                           repeating: .nanoseconds(Int(interval.duration.nanoseconds)), leeway: .nanoseconds(0))
            timer.activate()
        }
        done.wait()
        return RunResult(samples: samples, missed: missed, cpu: cpu, warning: nil)
    }

    /// A bare thread on clock_nanosleep(TIMER_ABSTIME), same priority, same deadlines.
    func runReference() -> (samples: [Int64], missed: Int) {
        var samples: [Int64] = []
        var missed = 0
        let period = interval.duration.nanoseconds
        let thread = try! spawnThread(name: "switchscan.bench-dispatch") { [ticks, rtPriority] in
            // A different phase from the engine's ticks, so the two threads never wake together.
            sleepUntil(MonotonicClock.now() + ScanDuration(nanoseconds: period / 2))
            makeCurrentThreadRealTime(priority: rtPriority)
            samples.reserveCapacity(ticks)
            let t0 = MonotonicClock.now().nanoseconds
            var k: Int64 = 1
            while samples.count < ticks {
                let d = t0 + k * period
                sleepUntil(ScanInstant(nanoseconds: d))
                let now = MonotonicClock.now().nanoseconds
                samples.append(now - d)
                let next = (now - t0) / period + 1
                if next > k + 1 { missed += Int(next - k - 1) }
                k = max(k + 1, next)
            }
        }
        pthread_join(thread, nil)
        endProgress()
        return (samples, missed)
    }
}

/// The live desktop as a busy element source for the timing benchmark: the active window
/// followed through AT-SPI while one of its sliders is moved every 20 ms.
final class DesktopLoad: @unchecked Sendable {
    let access: DesktopAccess
    let firstTree: ElementTree
    private let lock = Lock()
    private var count = 0
    private var running = true
    private var mover: Thread?
    var trees: Int { lock.lock(); defer { lock.unlock() }; return count }

    init() {
        do { access = try DesktopAccess.connect() } catch {
            writeErr("\(error.description)\n")
            exit(1)
        }
        guard case .success(let s) = access.snapshot(app: nil) else {
            writeErr("Error: no window to scan; start an application first (see 'switchscan desktop').\n")
            exit(1)
        }
        firstTree = s.tree
    }

    func start(feeding scanner: LiveScanner) {
        _ = access.follow(app: nil) { [self] snapshot in
            lock.lock(); count += 1; lock.unlock()
            scanner.replaceTree(snapshot.tree)
        }
        let slider = firstTree.nodes.first { $0.adjustable != nil && !$0.traits.contains(.notEnabled) }
        if slider == nil { writeErr("Warning: the window has no slider to move; it is followed but not changed.\n") }
        let t = Thread { [self] in
            var k = 0
            while true {
                lock.lock(); let go = running; lock.unlock()
                guard go else { break }
                if let slider {
                    access.perform([TimedEffect(MonotonicClock.now(), .adjust(element: slider.id, direction: k % 10 < 5 ? .increment : .decrement, value: ""))])
                }
                k += 1
                usleep(20_000)
            }
        }
        mover = t
        t.start()
    }

    func stop() {
        lock.lock(); running = false; lock.unlock()
        usleep(30_000)
        access.stop()
    }
}

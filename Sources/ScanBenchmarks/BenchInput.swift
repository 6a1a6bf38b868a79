import ArgumentParser
import CommandSupport
import Foundation
import JSONTape
import ScanCore
import ScanFormats
import ScanHost
import ScanRuntime
import ScanSession
import SwitchInput

struct BenchInput: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "input",
        abstract: "Input-to-effect latency: from a write to a pipe standing in for an evdev fd to the effect leaving the engine."
    )

    @Option(help: "Number of presses.")
    var presses = 500

    @Flag(help: "Run a CPU hog on every core meanwhile.")
    var load = false

    @Option(name: .customLong("rt-priority"), help: "SCHED_FIFO priority for the reader and the engine (0: none).")
    var rtPriority: Int32 = 20

    @Flag(name: .customLong("allow-deep-idle"), help: "Do not ask the kernel to keep idle CPUs quick to wake (/dev/cpu_dma_latency); saves power, and a press may reach the engine later.")
    var allowDeepIdle = false

    @Flag(help: "Print one JSON object as the last line.")
    var json = false

    @Option(help: "Measure a real evdev device instead (its kernel timestamp to the effect): press its 'next' switch --presses times.")
    var device: String?

    @Option(help: "With --device: give up after this many seconds.")
    var timeout: Double = 120

    func validate() throws {
        guard (10...100_000).contains(presses) else { throw ValidationError("--presses takes 10 to 100000") }
        guard timeout.isFinite, (1...86_400).contains(timeout) else { throw ValidationError("--timeout takes 1 to 86400 seconds") }
    }

    func run() throws {
        if let device { return try runDevice(device) }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let hog = load ? CPULoad(threads: cores) : nil
        defer { hog?.stop() }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw fail("Error: pipe: \(errnoName(errno))") }
        let (readFD, writeFD) = (fds[0], fds[1])
        defer { close(readFD); close(writeFD) }

        let rt = RealTimeQueue(options: .init(priority: rtPriority, lockMemory: rtPriority > 0, wakeupLatency: allowDeepIdle ? nil : 0))
        defer { rt.stop() }
        var settings = ScanSettings()
        settings.style = .manual
        let lock = Lock()
        var written: [Int64] = Array(repeating: 0, count: presses)
        var latencies: [Int64] = []
        latencies.reserveCapacity(presses)
        let done = DispatchSemaphore(value: 0)
        var highlights = 0
        // Manual style: every `next` press gives exactly one highlight, so the k-th highlight
        // after the first belongs to the k-th press.
        let scanner = LiveScanner(engine: ScanEngine(tree: benchTree(count: 97), settings: settings), queue: rt) { effects in
            let now = MonotonicClock.now().nanoseconds
            for e in effects {
                guard case .highlight = e.effect else { continue }
                highlights += 1
                let k = highlights - 2
                guard k >= 0 else { continue }
                lock.lock(); let t = written[k]; lock.unlock()
                latencies.append(now - t)
                if latencies.count == presses { done.signal() }
            }
        }
        scanner.start()
        // The pipe is read by the engine's own thread, as evdev devices are: the write
        // wakes the thread that decides. The bytes are the event's "kernel timestamp".
        _ = fcntl(readFD, F_SETFL, fcntl(readFD, F_GETFL) | O_NONBLOCK)
        scanner.attach(fd: readFD) { fd in
            var events: [SwitchEvent] = []
            var stamp: Int64 = 0
            while read(fd, &stamp, 8) == 8 {
                let t = ScanInstant(nanoseconds: stamp)
                events.append(SwitchEvent(.next, down: true, at: t))
                events.append(SwitchEvent(.next, down: false, at: t))
            }
            return (events, false)
        }
        // The writer stands in for the kernel, whose event delivery no user thread can delay:
        // it runs above the engine's priority, so a CPU hog cannot preempt it between taking
        // the timestamp and writing it.
        let writer = try spawnThread(name: "switchscan.bench-writer") { [presses, rtPriority] in
            if rtPriority > 0 { _ = makeCurrentThreadRealTime(priority: min(rtPriority + 1, 99)) }
            var rng = SystemRandomNumberGenerator()
            for k in 0..<presses {
                sleepUntil(MonotonicClock.now() + .milliseconds(Int64.random(in: 1...4, using: &rng)))
                var stamp = MonotonicClock.now().nanoseconds
                lock.lock(); written[k] = stamp; lock.unlock()
                _ = write(writeFD, &stamp, 8)
                if (k + 1) % 100 == 0 { progress("input: \(k + 1)/\(presses) presses") }
            }
        }
        pthread_join(writer, nil)
        if done.wait(timeout: .now() + 10) == .timedOut {
            throw fail("Error: only \(latencies.count) of \(presses) presses reached the engine within 10 s.")
        }
        endProgress()
        if let w = rt.status.warning { writeErr("Warning: \(w)\n") }
        let s = Summary(latencies)
        if !json || isatty(1) == 1 {
            print("bench input: \(presses) presses through a pipe, load \(load ? "on (\(cores) hogs)" : "off")")
            print(String(format: "write -> effect: p50 %.1f µs, p99 %.1f µs, p99.9 %.1f µs, max %.1f µs", s.p50, s.p99, s.p999, s.max))
            print("idle CPUs: \(wakeupText(rt.status))")
        }
        if json {
            print("{\"presses\":\(presses),\"load\":\(load),\"p50_us\":\(r1(s.p50)),\"p99_us\":\(r1(s.p99)),\"p999_us\":\(r1(s.p999)),\"max_us\":\(r1(s.max))}")
        }
    }

    /// From the kernel's event timestamp (CLOCK_MONOTONIC) to the effect leaving the engine,
    /// for presses of a real device's `next` switch, read on the engine's own thread.
    func runDevice(_ path: String) throws {
        let dev: EvdevDevice
        do { dev = try EvdevDevice(path: path) } catch { throw fail("Error: \(error.description)") }
        let profiles: DeviceProfiles
        do { profiles = try ProfileLibrary.load(folders: ProfileLibrary.defaultFolders(devices: BundledData.file("Devices"))) } catch { throw fail(error.description) }
        let mapping = profiles.mapping(for: dev.describe())
        guard mapping.switches.values.contains(.next) else {
            throw fail("Error: no profile maps a 'next' switch on \(path) (\(dev.name)); 'switchscan devices' shows its mapping.")
        }
        let rt = RealTimeQueue(options: .init(priority: rtPriority, lockMemory: rtPriority > 0, wakeupLatency: allowDeepIdle ? nil : 0))
        defer { rt.stop() }
        var settings = ScanSettings()
        settings.style = .manual
        // Kernel timestamps of presses not yet answered, oldest first. A slow reader (a
        // starved guest) can read several presses at once; each moves the highlight once.
        var pending: [ScanInstant] = []
        var latencies: [Int64] = []
        let done = DispatchSemaphore(value: 0)
        let scanner = LiveScanner(engine: ScanEngine(tree: benchTree(count: 97), settings: settings), queue: rt) { effects in
            let now = MonotonicClock.now()
            let moves = effects.filter { if case .highlight = $0.effect { return true }; return false }.count
            for _ in 0..<min(moves, pending.count) where latencies.count < presses {
                latencies.append(now.nanoseconds - pending.removeFirst().nanoseconds)
                if latencies.count == presses { done.signal() }
            }
        }
        var decoder = SwitchDecoder(mapping: mapping, deviceID: 1)
        _ = fcntl(dev.fd, F_SETFL, fcntl(dev.fd, F_GETFL) | O_NONBLOCK)
        // Started first: the queue runs both in order, so no press meets an engine not yet started.
        scanner.start()
        scanner.attach(fd: dev.fd) { _ in
            let (events, gone, _) = dev.readAvailable(into: &decoder)
            for e in events where e.isDown && e.action == .next { pending.append(e.timestamp) }
            return (events, gone != nil)
        }
        writeErr("Press the 'next' switch of \(dev.name) \(presses) times.\n")
        if done.wait(timeout: .now() + timeout) == .timedOut {
            throw fail("Error: only \(latencies.count) of \(presses) presses arrived within \(Int(timeout)) s.")
        }
        let s = Summary(latencies)
        if !json || isatty(1) == 1 {
            print("bench input: \(presses) presses of \(dev.name), kernel timestamp -> effect")
            print(String(format: "p50 %.1f µs, p99 %.1f µs, p99.9 %.1f µs, max %.1f µs", s.p50, s.p99, s.p999, s.max))
        }
        if json {
            print("{\"presses\":\(presses),\"device\":\(jsonString(dev.name)),\"p50_us\":\(r1(s.p50)),\"p99_us\":\(r1(s.p99)),\"p999_us\":\(r1(s.p999)),\"max_us\":\(r1(s.max))}")
        }
    }
}

import ArgumentParser
import CommandSupport
import Compositors
import Dispatch
import Foundation
import ScanCore
import ScanHost
import ScanRuntime
import ScanSession
import WaylandOutput
import X11Output

struct BenchScreen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screen",
        abstract: "Time a press to the outline's move being done in the X server (or shown by a Wayland compositor), beside a bare round trip.",
        discussion: """
        Presses (next, manual style) go to the engine on its real-time thread with their \
        timestamp; each highlight goes through the presenting queue to the on-screen overlay, \
        and the time is taken once the X server has processed the move (after XSync). In the \
        same run a second connection measures bare XSync round trips. Needs an X display \
        (Xvfb works). With --wayland, the layer-shell overlay instead, timed to the \
        compositor's frame callback (the move shown), beside bare wl_display round trips: \
        needs a compositor with the layer shell (headless sway works); under GNOME, the \
        extension's drawing, timed to GNOME Shell having painted the frame with it. Also reports the \
        overlay's CPU while moving once a second, and while a point-mode sweep is animated.
        """
    )

    @Option(help: "Presses to time.")
    var presses = 300

    @Flag(help: "Time the layer-shell overlay on the Wayland compositor (WAYLAND_DISPLAY) instead of the X11 one.")
    var wayland = false

    @Flag(help: "Run a CPU hog on every core meanwhile.")
    var load = false

    @Flag(help: "Show the scanning keyboard (48 labelled keys across the bottom of the screen) under the outline meanwhile.")
    var keyboard = false

    @Option(help: "Seconds of moving once a second, to measure the overlay's CPU (0: skip).")
    var idleSeconds = 10

    @Option(help: "Seconds of a point-mode sweep animated at the screen's rate, to measure the overlay's CPU (0: skip).")
    var sweepSeconds = 3

    func validate() throws {
        guard (1...100_000).contains(presses) else { throw ValidationError("--presses takes 1 to 100000") }
        guard (0...3600).contains(idleSeconds) else { throw ValidationError("--idle-seconds takes 0 to 3600") }
        guard (0...3600).contains(sweepSeconds) else { throw ValidationError("--sweep-seconds takes 0 to 3600") }
    }

    func run() throws {
        let hog = load ? CPULoad(threads: ProcessInfo.processInfo.activeProcessorCount) : nil
        defer { hog?.stop() }
        let presentQueue = DispatchQueue(label: "switchscan.present")
        let overlay: EffectPresenter
        let bare: () -> Void
        let results = Arrivals()
        var pending: [ScanInstant] = []   // press timestamps, on the present queue
        var latencies: [Int64] = []
        let done: (ScanInstant) -> Void = { at in
            guard !pending.isEmpty else { return }
            latencies.append(at.nanoseconds - pending.removeFirst().nanoseconds)
            results.add(at)
        }
        do {
            if wayland && Compositor(ProcessInfo.processInfo.environment) == .gnome {
                // GNOME Shell draws, through the extension: a press to its next frame painted.
                guard let screen = try WaylandGlobals.layout() else { throw fail("Error: GNOME Shell has no monitor.") }
                let o = try ShellOverlay(feedback: FeedbackSettings(), screen: screen, queue: presentQueue)
                // `done` runs on the present queue alone.
                nonisolated(unsafe) let finish = done
                o.onPainted = { _ in
                    let at = MonotonicClock.now()
                    presentQueue.async { finish(at) }
                }
                let r = try WaylandRoundTrip()
                overlay = o
                bare = { r.roundtrip() }
            } else if wayland {
                let o = try LayerOverlay(feedback: FeedbackSettings(), queue: presentQueue)
                o.onPresented = { _, at in done(at) }
                let r = try WaylandRoundTrip()
                overlay = o
                bare = { r.roundtrip() }
            } else {
                let o = try OverlayPresenter(feedback: FeedbackSettings(), queue: presentQueue)
                o.onSynced = { _, at in done(at) }
                let r = try X11RoundTrip()
                overlay = o
                bare = { r.sync() }
            }
        } catch { throw fail("Error: \(error)") }
        var settings = ScanSettings()
        settings.style = .manual
        let rt = RealTimeQueue(options: .init(priority: 20, lockMemory: false))
        defer { rt.stop() }
        let scanner = LiveScanner(engine: ScanEngine(tree: benchTree(count: 97), settings: settings), queue: rt) { effects in
            presentQueue.async { try? overlay.present(effects) }
        }
        scanner.start()
        if keyboard {
            // Drawn with every move of the outline: what a person typing sees.
            let labels = ["e", "space", "Backspace", "Caps lock", "123", "q", "Delete word", "Hide"]
            let keys = (0..<48).map { i in
                KeyboardKey(id: "key\(i)", label: labels[i % labels.count],
                            frame: Rect(x: Double(i % 8 * 128), y: Double(468 + i / 8 * 50), width: 128, height: 50))
            }
            presentQueue.async { try? overlay.present([TimedEffect(MonotonicClock.now(), .keyboard(keys))]) }
        }
        usleep(200_000)
        presentQueue.sync { latencies.removeAll(); pending.removeAll() }
        var round: [Int64] = []
        for k in 0..<presses {
            let t = MonotonicClock.now()
            presentQueue.sync { pending.append(t) }
            let before = results.count
            scanner.submit(SwitchEvent(.next, down: true, at: t))
            scanner.submit(SwitchEvent(.next, down: false, at: t))
            // A press the overlay never answered must not pair with the next one's move.
            if results.wait(after: before, seconds: 1) == nil { presentQueue.sync { pending.removeAll() } }
            // A bare round trip between presses, exposed to the same moments of load.
            let r0 = MonotonicClock.now()
            bare()
            round.append(MonotonicClock.now().nanoseconds - r0.nanoseconds)
            if k % 100 == 99 { progress("screen: \(k + 1)/\(presses) presses") }
            usleep(10_000)
        }
        endProgress()
        let s = presentQueue.sync { Summary(latencies) }, b = Summary(round)
        let gnome = Compositor(ProcessInfo.processInfo.environment) == .gnome
        let painter = !wayland ? "X11 overlay" : gnome ? "GNOME Shell's extension" : "layer-shell overlay (Wayland)"
        print("bench screen: \(presses) presses, \(painter), load \(load ? "on" : "off")\(keyboard ? ", keyboard shown" : "")")
        if wayland {
            let what = gnome ? "painted (GNOME Shell's after-paint)" : "shown (frame callback)"
            print("press → outline \(what): " + String(format: "p50 %.1f µs, p99 %.1f µs, max %.1f µs (%d)", s.p50, s.p99, s.max, s.count))
            print(String(format: "bare wl_display round trip:             p50 %.1f µs, p99 %.1f µs, max %.1f µs", b.p50, b.p99, b.max))
        } else {
            print(String(format: "press → outline moved (after XSync): p50 %.1f µs, p99 %.1f µs, max %.1f µs (%d)", s.p50, s.p99, s.max, s.count))
            print(String(format: "bare XSync round trip:              p50 %.1f µs, p99 %.1f µs, max %.1f µs", b.p50, b.p99, b.max))
        }
        if idleSeconds > 0 {
            // As in a run: no frame callbacks asked for.
            if let o = overlay as? LayerOverlay { presentQueue.sync { o.onPresented = nil } }
            if let o = overlay as? ShellOverlay { presentQueue.sync { o.onPainted = nil } }
            let c0 = processCPUSeconds()
            for _ in 0..<idleSeconds {
                let t = MonotonicClock.now()
                scanner.submit(SwitchEvent(.next, down: true, at: t))
                scanner.submit(SwitchEvent(.next, down: false, at: t))
                sleep(1)
            }
            let cpu = (processCPUSeconds() - c0) / Double(idleSeconds) * 100
            print(String(format: "moving once a second: %.3f%% of a core (the whole process: engine, presenting, overlay)", cpu))
        }
        if sweepSeconds > 0 {
            // The crosshair's line swept across the screen, as point mode draws it.
            let start = MonotonicClock.now()
            let sweep = Sweep(axis: .x, phase: .line, start: start, lo: 0, hi: 1280, speed: 200, passes: 1000)
            let c0 = processCPUSeconds()
            presentQueue.sync { try? overlay.present([TimedEffect(start, .modeChanged(.point)), TimedEffect(start, .sweep(sweep))]) }
            sleep(UInt32(sweepSeconds))
            let cpu = (processCPUSeconds() - c0) / Double(sweepSeconds) * 100
            presentQueue.sync { try? overlay.present([TimedEffect(MonotonicClock.now(), .scanStopped(.paused))]) }
            print(String(format: "a point-mode sweep animated for %d s: %.3f%% of a core (the whole process)", sweepSeconds, cpu))
        }
        presentQueue.sync { overlay.finish() }
    }
}

func processCPUSeconds() -> Double {
    var u = rusage()
    getrusage(RUSAGE_SELF.rawValue, &u)
    return Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) / 1e6 + Double(u.ru_stime.tv_sec) + Double(u.ru_stime.tv_usec) / 1e6
}

import ArgumentParser
import CommandSupport
import Compositors
import Foundation
import ScanCore
import ScanHost
import ScanSession

struct BenchPlaces: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "places",
        abstract: "Time learning where windows are: sway's IPC in the process ($SWAYSOCK), KWin's script, or GNOME Shell's extension.",
        discussion: """
        Under sway each read is a GET_TREE request over the socket SwitchScan keeps open and \
        the tree parsed into window places, as a read of the desktop asks it when a window is \
        not yet known. Under KWin the places come from a script SwitchScan loads: it times \
        the start (the script loaded, run and its first report in), and a window maximised \
        and restored in turn (by the Windows page's script) to the report of its new place. \
        Under GNOME each read asks SwitchScan's GNOME Shell extension over the session bus. \
        Needs sway, KWin or GNOME Shell (headless works) with some windows open.
        """
    )

    @Option(help: "Reads to time.")
    var reads = 1000

    func validate() throws {
        guard (1...1_000_000).contains(reads) else { throw ValidationError("--reads takes 1 to 1000000") }
    }

    func run() throws {
        let env = ProcessInfo.processInfo.environment
        if Compositor(env) == .kwin { return try kwin(env) }
        // Under GNOME each read asks the extension over the session bus, answered from GNOME
        // Shell's own list; under sway a GET_TREE over the socket kept open.
        let places: any WindowPlaceSource
        let what: (String, String)
        if Compositor(env) == .gnome {
            do { places = try GnomePlaces() } catch { throw fail("Error: \(error)") }
            what = ("GNOME Shell's windows through the extension", "GetWindows")
        } else {
            guard let socket = env["SWAYSOCK"], !socket.isEmpty else { throw fail("Error: SWAYSOCK is not set: run this inside sway.") }
            do { places = try SwayPlaces(socket: socket) } catch { throw fail("Error: \(error)") }
            what = ("sway's tree", "GET_TREE")
        }
        defer { places.close() }
        var samples: [Int64] = []
        samples.reserveCapacity(reads)
        var windows = 0
        for _ in 0..<reads {
            let t0 = MonotonicClock.now()
            windows = places.places(fresh: true).count
            samples.append(MonotonicClock.now().nanoseconds - t0.nanoseconds)
        }
        let s = Summary(samples)
        // What a run does: the places as last pushed (the extension's signals, sway's
        // events), kept in memory.
        var kept: [Int64] = []
        kept.reserveCapacity(reads)
        for _ in 0..<reads {
            let t0 = MonotonicClock.now()
            windows = max(windows, places.places(fresh: false).count)
            kept.append(MonotonicClock.now().nanoseconds - t0.nanoseconds)
        }
        let k = Summary(kept)
        print("bench places: \(reads) reads of \(what.0), \(windows) windows")
        print("a read (\(what.1), parsed): " + String(format: "p50 %.1f µs, p99 %.1f µs, max %.1f µs", s.p50, s.p99, s.max))
        print("a read of the places kept from what was pushed (as a run reads them): " + String(format: "p50 %.2f µs, p99 %.2f µs, max %.2f µs", k.p50, k.p99, k.max))
    }

    /// The KWin script's start, and a move to its report, `reads` times each (at most 50).
    private func kwin(_ env: [String: String]) throws {
        let rounds = min(reads, 50)
        var starts: [Int64] = []
        var windows: [WindowPlace] = []
        for _ in 0..<rounds {
            let t0 = MonotonicClock.now()
            let p: KWinPlaces
            do { p = try KWinPlaces(environment: env) } catch { throw fail("Error: \(error)") }
            starts.append(MonotonicClock.now().nanoseconds - t0.nanoseconds)
            windows = p.places(fresh: false)
            p.close()
        }
        let s = Summary(starts)
        print("bench places: KWin's script, \(windows.count) windows")
        print(String(format: "the start (script loaded, run, first report in): p50 %.2f ms, p99 %.2f ms, max %.2f ms (%d)",
                     s.p50 / 1000, s.p99 / 1000, s.max / 1000, s.count))
        guard let target = windows.first(where: { $0.active }) ?? windows.first else {
            return print("no window to move: open one to time a move")
        }
        let places: KWinPlaces
        do { places = try KWinPlaces(environment: env) } catch { throw fail("Error: \(error)") }
        defer { places.close() }
        let commands = try KWinWindows(environment: env) { print("KWin: \($0)") }
        defer { commands.stop() }
        let moved = Condition(), lock = Lock()
        nonisolated(unsafe) var changes = 0
        places.follow { lock.withLock { changes += 1; moved.broadcast() } }
        var samples: [Int64] = []
        for k in 0..<rounds {
            let seen = lock.withLock { changes }
            let t0 = MonotonicClock.now()
            commands.perform(k % 2 == 0 ? .maximize : .restore, window: target.id)
            let arrived = lock.withLock { () -> Bool in
                while changes == seen {
                    if !moved.wait(lock, until: t0 + .seconds(2)) { return false }
                }
                return true
            }
            if arrived { samples.append(MonotonicClock.now().nanoseconds - t0.nanoseconds) }
            usleep(50_000)
        }
        commands.perform(.restore, window: target.id)
        let m = Summary(samples)
        print(String(format: "'%@' maximised or restored (a command script) → its new place reported: p50 %.2f ms, p99 %.2f ms, max %.2f ms (%d of %d)",
                     target.title, m.p50 / 1000, m.p99 / 1000, m.max / 1000, m.count, rounds))
    }
}

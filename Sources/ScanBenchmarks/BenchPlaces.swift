import ArgumentParser
import CommandSupport
import Compositors
import Foundation
import ScanCore
import ScanHost

struct BenchPlaces: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "places",
        abstract: "Time reading where windows are from sway's IPC in the process ($SWAYSOCK).",
        discussion: """
        Each read is a GET_TREE request over the socket SwitchScan keeps open and the tree \
        parsed into window places, as a read of the desktop asks it when a window is not yet \
        known. Needs sway (headless works) with some windows open.
        """
    )

    @Option(help: "Reads to time.")
    var reads = 1000

    func validate() throws {
        guard (1...1_000_000).contains(reads) else { throw ValidationError("--reads takes 1 to 1000000") }
    }

    func run() throws {
        guard let socket = ProcessInfo.processInfo.environment["SWAYSOCK"], !socket.isEmpty else {
            throw fail("Error: SWAYSOCK is not set: run this inside sway.")
        }
        let places: SwayPlaces
        do { places = try SwayPlaces(socket: socket) } catch { throw fail("Error: \(error)") }
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
        print("bench places: \(reads) reads of sway's tree, \(windows) windows")
        print(String(format: "a read (GET_TREE, parsed): p50 %.1f µs, p99 %.1f µs, max %.1f µs", s.p50, s.p99, s.max))
    }
}

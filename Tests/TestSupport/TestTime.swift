#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// How much longer than usual the tests wait for a process: SWITCHSCAN_TEST_TIME_SCALE, set
/// under ThreadSanitizer, whose switchscan children start and run several times slower.
public enum TestTime {
    public static let scale: Double = ProcessInfo.processInfo.environment["SWITCHSCAN_TEST_TIME_SCALE"].flatMap(Double.init).map { max(1, $0) } ?? 1

    /// Waits for a state that sends the test no event (a process another one starts, a
    /// window another client maps, a unit's state, a thread's end): `condition` is asked
    /// every `interval` seconds until it holds or `timeout` seconds (times `scale`) pass.
    /// Whether it held. Where there is an event (a line, an exit), wait for that instead.
    public static func poll(timeout: Double, every interval: Double = 0.02, until condition: () throws -> Bool) rethrows -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * scale * 1000))
        while true {
            if try condition() { return true }
            if ContinuousClock.now >= deadline { return false }
            var none = pollfd()
            _ = Glibc.poll(&none, 0, Int32(interval * 1000))
        }
    }
}

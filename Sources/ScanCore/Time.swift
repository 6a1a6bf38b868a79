/// A point on the engine's single clock (CLOCK_MONOTONIC in the runtime, virtual time in
/// simulations), in nanoseconds. Integers, so that k × interval is exact after any number
/// of steps.
public struct ScanInstant: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static let zero = ScanInstant(nanoseconds: 0)

    public static func seconds(_ s: Double) -> ScanInstant {
        ScanInstant(nanoseconds: ScanDuration.seconds(s).nanoseconds)
    }

    public static func < (a: ScanInstant, b: ScanInstant) -> Bool { a.nanoseconds < b.nanoseconds }
    public static func + (a: ScanInstant, d: ScanDuration) -> ScanInstant {
        ScanInstant(nanoseconds: a.nanoseconds &+ d.nanoseconds)
    }
    public static func - (a: ScanInstant, d: ScanDuration) -> ScanInstant {
        ScanInstant(nanoseconds: a.nanoseconds &- d.nanoseconds)
    }
    public static func - (a: ScanInstant, b: ScanInstant) -> ScanDuration {
        ScanDuration(nanoseconds: a.nanoseconds &- b.nanoseconds)
    }

    public var seconds: Double { Double(nanoseconds) / 1e9 }

    /// Seconds with exactly three decimals, rounded half away from zero ("1.000").
    public var millisecondsText: String {
        let negative = nanoseconds < 0
        let magnitude = negative ? -nanoseconds : nanoseconds
        let ms = (magnitude + 500_000) / 1_000_000
        let frac = ms % 1000
        let fracText = frac < 10 ? "00\(frac)" : frac < 100 ? "0\(frac)" : "\(frac)"
        return "\(negative ? "-" : "")\(ms / 1000).\(fracText)"
    }

    public var description: String { millisecondsText }
}

public struct ScanDuration: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static let zero = ScanDuration(nanoseconds: 0)

    public static func seconds(_ s: Double) -> ScanDuration {
        ScanDuration(nanoseconds: Int64((s * 1e9).rounded()))
    }
    public static func milliseconds(_ ms: Int64) -> ScanDuration {
        ScanDuration(nanoseconds: ms * 1_000_000)
    }

    public static func < (a: ScanDuration, b: ScanDuration) -> Bool { a.nanoseconds < b.nanoseconds }
    public static func + (a: ScanDuration, b: ScanDuration) -> ScanDuration {
        ScanDuration(nanoseconds: a.nanoseconds + b.nanoseconds)
    }
    public static func * (a: ScanDuration, k: Int64) -> ScanDuration {
        ScanDuration(nanoseconds: a.nanoseconds * k)
    }

    public var seconds: Double { Double(nanoseconds) / 1e9 }
    public var description: String { "\(seconds)s" }
}

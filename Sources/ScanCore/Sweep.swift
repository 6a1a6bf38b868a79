public enum SweepAxis: String, Sendable { case x, y }
public enum SweepPhase: String, Sendable { case band, line }

/// A point-mode sweep: a line (or a band of `width`) gliding from `lo` at `speed` points per
/// second, bouncing between `lo` and `hi`, for `passes` edge-to-edge traversals. Its position
/// is a pure function of time, so renderers sample it at any rate and a press at t lands
/// exactly at position(at: t).
public struct Sweep: Hashable, Sendable {
    public var axis: SweepAxis
    public var phase: SweepPhase
    public var start: ScanInstant
    /// Range of the line, or of the band's leading edge (its far edge stays inside `hi + width`).
    public var lo: Double
    public var hi: Double
    public var width: Double
    public var speed: Double
    public var passes: Int

    public init(axis: SweepAxis, phase: SweepPhase, start: ScanInstant, lo: Double, hi: Double,
                width: Double = 0, speed: Double, passes: Int) {
        self.axis = axis; self.phase = phase; self.start = start
        self.lo = lo; self.hi = max(lo, hi); self.width = width; self.speed = speed; self.passes = passes
    }

    /// Time of one edge-to-edge traversal.
    public var passDuration: ScanDuration {
        speed > 0 ? .seconds((hi - lo) / speed) : .zero
    }

    /// When the sweep has made all its passes and stops.
    public var end: ScanInstant { start + passDuration * Int64(max(passes, 1)) }

    /// The line's coordinate, or the band's leading edge, at `t` (clamped to the sweep's life).
    public func position(at t: ScanInstant) -> Double {
        let span = hi - lo
        guard span > 0, speed > 0 else { return lo }
        let clamped = min(max(t, start), end)
        let travelled = speed * (clamped - start).seconds
        let period = 2 * span
        var u = travelled.truncatingRemainder(dividingBy: period)
        if u < 0 { u += period }
        return u <= span ? lo + u : lo + period - u
    }

    /// The band's extent at `t` (for a line, the line itself).
    public func extent(at t: ScanInstant) -> ClosedRange<Double> {
        let p = position(at: t)
        return p...(p + width)
    }
}

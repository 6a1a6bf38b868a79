import ScanCore

/// What setup's practice measured of the person: how long after a target lit up they
/// pressed, and how often they missed one or pressed before it came.
public struct ReactionMeasure: Hashable, Sendable {
    /// Every answered target's reaction time, seconds, in order.
    public var reactions: [Double]
    /// Targets not answered within the time allowed.
    public var misses: Int
    /// Presses with no target lit (before one, or after one was missed), or sooner after
    /// one lit than anyone reacts.
    public var early: Int
    /// The reaction times kept once outliers are trimmed: those slower than the median by
    /// more than both four scaled median absolute deviations and the median itself (a
    /// sneeze, a look away). Ten presses show too little of a person's spread to trim by
    /// it alone, and a press sooner than anyone reacts was never counted.
    public var kept: [Double]
    public var mean: Double
    /// The standard deviation of those kept (0 for fewer than two).
    public var spread: Double

    /// Fewer answered targets than this measure nothing worth proposing a speed from.
    public static let minimumAnswered = 5
    /// A spread below this is read as this: ten presses cannot show less.
    public static let minimumSpread = 0.02

    public init?(reactions: [Double], misses: Int, early: Int) {
        guard reactions.count >= Self.minimumAnswered else { return nil }
        self.reactions = reactions
        self.misses = misses
        self.early = early
        let median = Self.median(reactions)
        let mad = 1.4826 * Self.median(reactions.map { abs($0 - median) })
        let kept = reactions.filter { $0 - median <= max(4 * mad, median) }
        self.kept = kept
        let n = Double(kept.count)
        mean = kept.reduce(0, +) / n
        let m = mean
        spread = kept.count > 1 ? (kept.reduce(0) { $0 + ($1 - m) * ($1 - m) } / (n - 1)).squareRoot() : 0
    }

    static func median(_ xs: [Double]) -> Double {
        let s = xs.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    /// The interval proposed: the mean plus 2.5 standard deviations (what adaptive timing
    /// aims at: a press later than that is about one in 160), up to the next 0.05 s, within
    /// `range`.
    public func proposedInterval(within range: ClosedRange<Double>) -> Double {
        let aim = mean + TimingAdapter.spreads * max(spread, Self.minimumSpread)
        let rounded = (aim * 20 - 1e-9).rounded(.up) / 20
        return min(max(rounded, range.lowerBound), range.upperBound)
    }
}

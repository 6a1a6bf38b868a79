/// Adaptive timing (`adaptTiming: on`): the auto-scan interval follows the person during
/// `run`, from how long after a highlight they press and from the selections they undo at
/// once. Pure: the engine tells it each selection, in virtual or real time alike.
///
/// - A selection undone by the next one (a group entered and left by its Exit item, a menu
///   opened and closed unanswered, a key typed and taken back by Backspace) was a late
///   press: the interval grows by 10 %.
/// - Selections not undone are the person's own timing: once `samples` of them are known,
///   the interval aims at their mean plus 2.5 standard deviations (a press later than that
///   is one in 160). The clinical rule of thumb is two (one in 44), but an aim taken from
///   a few dozen presses often falls short of the person's own. Longer than the interval:
///   slower at once. Shorter: faster after a run of `run` right selections in a row.
/// - A press less than `tooSoon` after its highlight came was meant for the item before
///   (no one reacts that fast): late, as an undone selection is. At an interval far too
///   short for the person, every press lands just after the highlight moved on, and so
///   does every attempt to take one back: this is what tells.
/// - Never more than 10 % a step; within `adaptMinimum`…`adaptMaximum`; in steps of 10 ms.
public struct TimingAdapter: Hashable, Sendable {
    /// What a selection did, as far as taking it back goes.
    public enum Selection: Hashable, Sendable {
        case enteredGroup, leftGroup, openedMenu, closedMenu, typed, deleted, other
    }

    /// Latencies (seconds from the highlight to the press) of selections not undone, newest
    /// last.
    var latencies: [Double] = []
    /// The last selection, which the next may still undo, with its latency.
    var pending: (kind: Selection, latency: Double?, late: Bool)?
    var rightInARow = 0

    /// How many latencies the aim is taken from, at most.
    public static let window = 30
    /// The aim is the mean latency plus this many standard deviations.
    public static let spreads = 2.5
    /// How many are needed before the aim is trusted.
    public static let samples = 6
    /// Right selections in a row before the interval shortens.
    public static let run = 5
    /// The most the interval changes in one step.
    public static let step = 0.10
    /// Faster than any reaction to a highlight: a press this soon answers the one before.
    public static let tooSoon = 0.15

    public init() {}

    public static func == (a: TimingAdapter, b: TimingAdapter) -> Bool {
        a.latencies == b.latencies && a.rightInARow == b.rightInARow && a.pending?.kind == b.pending?.kind
            && a.pending?.latency == b.pending?.latency && a.pending?.late == b.pending?.late
    }

    public func hash(into h: inout Hasher) { h.combine(latencies); h.combine(rightInARow) }

    /// Whether `next` takes back `previous`, made just before it.
    static func undoes(_ next: Selection, _ previous: Selection) -> Bool {
        switch (previous, next) {
        case (.enteredGroup, .leftGroup), (.openedMenu, .closedMenu), (.typed, .deleted): true
        default: false
        }
    }

    /// The aim from the latencies known: their mean plus `spreads` standard deviations.
    public var aim: Double? {
        guard latencies.count >= Self.samples else { return nil }
        let n = Double(latencies.count)
        let mean = latencies.reduce(0, +) / n
        let variance = latencies.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (n - 1)
        return mean + Self.spreads * variance.squareRoot()
    }

    /// A selection: what it did, and how long after its highlight the press came (nil when
    /// no press made it: a menu its loops closed). The interval to use from now on, when it
    /// changes.
    public mutating func selected(_ kind: Selection, latency: Double?, interval: Double,
                                  within bounds: ClosedRange<Double>) -> Double? {
        var next = interval
        if let latency, latency < Self.tooSoon {
            // Late for the item before; if the next selection undoes it, that is no news.
            if let p = pending, !p.late, !Self.undoes(kind, p.kind), let l = p.latency, l <= interval { remember(l) }
            pending = (kind, nil, true)
            rightInARow = 0
            next = interval * (1 + Self.step)
        } else if let p = pending, Self.undoes(kind, p.kind) {
            // The undone selection was late; the undo itself is a deliberate press.
            pending = nil
            rightInARow = 0
            if let latency, latency <= interval { remember(latency) }
            if !p.late { next = interval * (1 + Self.step) }
        } else {
            if let p = pending, !p.late {
                // A press later than the plain interval answered a longer highlight (a
                // first item's pause, a long label, a menu's first entry): not the
                // person's usual timing.
                if let l = p.latency, l <= interval { remember(l) }
                rightInARow += 1
            }
            pending = (kind, latency, false)
            if let aim {
                if aim > interval {
                    next = min(aim, interval * (1 + Self.step))
                } else if rightInARow >= Self.run && aim < interval * 0.98 {
                    next = max(aim, interval * (1 - Self.step))
                    rightInARow = 0
                }
            }
        }
        // Within the bounds, but never more than 10 % a step: an interval set outside them
        // (by hand, or by the Settings page) is brought inside a step at a time.
        next = min(max(next, bounds.lowerBound), bounds.upperBound)
        next = min(max(next, interval * (1 - Self.step)), interval * (1 + Self.step))
        // To 10 ms, rounded towards the interval so that a step never passes 10 %.
        let hundredths = next * 100
        let rounded = (next > interval ? (hundredths + 1e-9).rounded(.down) : (hundredths - 1e-9).rounded(.up)) / 100
        return abs(rounded - interval) >= 0.005 ? rounded : nil
    }

    mutating func remember(_ latency: Double) {
        latencies.append(latency)
        if latencies.count > Self.window { latencies.removeFirst(latencies.count - Self.window) }
    }
}

@testable import ScanCore
import Testing

/// The adapter alone: what it makes of selections, their latencies and their undoing.
@Suite("Timing adapter")
struct TimingAdapterTests {
    let bounds = 0.4...3.0

    /// Feeds `n` selections of one kind and latency; the intervals it chose, in order.
    func feed(_ a: inout TimingAdapter, _ n: Int, _ kind: TimingAdapter.Selection = .other, latency: Double, from interval: Double) -> [Double] {
        var interval = interval
        var out: [Double] = []
        for _ in 0..<n {
            if let next = a.selected(kind, latency: latency, interval: interval, within: bounds) { interval = next }
            out.append(interval)
        }
        return out
    }

    @Test(arguments: [(TimingAdapter.Selection.enteredGroup, TimingAdapter.Selection.leftGroup),
                      (.openedMenu, .closedMenu), (.typed, .deleted)])
    func aSelectionUndoneAtOnceMakesItTenPercentSlower(_ first: TimingAdapter.Selection, _ undo: TimingAdapter.Selection) {
        var a = TimingAdapter()
        #expect(a.selected(first, latency: 0.5, interval: 1.0, within: bounds) == nil)
        #expect(a.selected(undo, latency: 0.5, interval: 1.0, within: bounds) == 1.1)
    }

    @Test func whatDoesNotUndoChangesNothingByItself() {
        var a = TimingAdapter()
        #expect(a.selected(.enteredGroup, latency: 0.5, interval: 1.0, within: bounds) == nil)
        #expect(a.selected(.enteredGroup, latency: 0.5, interval: 1.0, within: bounds) == nil)
        #expect(a.selected(.typed, latency: 0.5, interval: 1.0, within: bounds) == nil)
        // A Backspace that follows a group, not a key, takes nothing back.
        #expect(a.selected(.leftGroup, latency: 0.5, interval: 1.0, within: bounds) == nil)
    }

    @Test func aPressSoonerThanAnyoneReactsIsLate() {
        var a = TimingAdapter()
        #expect(a.selected(.other, latency: 0.05, interval: 1.0, within: bounds) == 1.1)
        // Its undoing right after is the same mistake: not counted twice.
        var b = TimingAdapter()
        #expect(b.selected(.enteredGroup, latency: 0.1, interval: 1.0, within: bounds) == 1.1)
        #expect(b.selected(.leftGroup, latency: 0.5, interval: 1.1, within: bounds) == nil)
    }

    /// Early, right presses: faster once six are known and five came in a row, by at most
    /// 10 % a step, down to their mean plus 2.5 standard deviations.
    @Test func aRunOfEarlyRightSelectionsMakesItFasterTowardsTheAim() {
        var a = TimingAdapter()
        let intervals = feed(&a, 60, latency: 0.3, from: 1.0)
        #expect(intervals.prefix(6).allSatisfy { $0 == 1.0 })
        var before = 1.0
        for i in intervals {
            #expect(i <= before && i >= before * 0.9 - 1e-9)
            before = i
        }
        // Every latency the same: no spread, so the aim is the latency itself, below the floor.
        #expect(intervals.last == 0.4)
    }

    @Test func lateButRightPressesMakeItSlowerToTheAim() {
        var a = TimingAdapter()
        // Latencies 0.85 and 0.95 at a 1.0 s interval: the aim (about 1.03 s) is above it.
        var interval = 1.0
        var changes: [Double] = []
        for k in 0..<12 {
            if let next = a.selected(.other, latency: k % 2 == 0 ? 0.85 : 0.95, interval: interval, within: bounds) {
                changes.append(next)
                interval = next
            }
        }
        let aim = try! #require(a.aim)
        #expect(aim > 1.0 && aim < 1.1)
        // Slower once six are known, to the aim as it then stood (within 10 %).
        let first = try! #require(changes.first)
        #expect(first > 1.0 && first <= 1.1 && abs(first - aim) < 0.03)
    }

    @Test func theBoundsHold() {
        var a = TimingAdapter()
        var interval = 2.9
        for _ in 0..<5 {
            a.selected(.enteredGroup, latency: 0.5, interval: interval, within: bounds).map { interval = $0 }
            a.selected(.leftGroup, latency: 0.5, interval: interval, within: bounds).map { interval = $0 }
        }
        #expect(interval == 3.0)
        #expect(a.selected(.enteredGroup, latency: 0.05, interval: 3.0, within: bounds) == nil)
    }

    /// An interval set outside the bounds is brought inside, 10 % a step, and in the
    /// direction of the bound whatever the selection said.
    @Test func anIntervalOutsideTheBoundsComesInTenPercentAStep() {
        var a = TimingAdapter()
        #expect(a.selected(.other, latency: 0.05, interval: 5.0, within: bounds) == 4.5)
        var b = TimingAdapter()
        #expect(b.selected(.other, latency: 0.2, interval: 0.3, within: bounds) == 0.33)
    }

    /// A press later than the plain interval answered a longer highlight: not a sample.
    @Test func latenciesBeyondTheIntervalAreNotTheAim() {
        var a = TimingAdapter()
        _ = feed(&a, 20, latency: 1.4, from: 1.0)
        #expect(a.aim == nil)
    }

    @Test func aStepNeverPassesTenPercent() {
        var a = TimingAdapter()
        // 0.45 × 1.1 = 0.495: rounded towards the interval, 0.49, not 0.50.
        #expect(a.selected(.other, latency: 0.05, interval: 0.45, within: bounds) == 0.49)
    }
}

import Foundation
@testable import ScanCore
import Testing

/// The usage counts the engine keeps for `switchscan report`, with simulated people on the
/// bundled keyboard layout in rows (virtual time): what it counts is what the person did.
@Suite("Usage counts")
struct UsageTallyTests {
    /// A person who is never late: every press a selection, none undone, and their reaction
    /// time is the one they were drawn with.
    @Test func aPersonOnTimeHasTheirReactionTimeMeasured() throws {
        let tree = try AdaptiveTimingTests.keyboard()
        var person = SimulatedPerson(seed: 3, mean: 0.25, spread: 0.03)
        let run = person.use(tree, settings: AdaptiveTimingTests.settings(interval: 1.0, adapt: false),
                             targets: AdaptiveTimingTests.targets(tree), selections: 400)
        let u = run.usage
        #expect(run.selections.allSatisfy { !$0.wrong })
        #expect(u.presses == 400)
        #expect(u.selections == 400)
        #expect(u.undone == 0)
        // The last selection may still be undone: it is not counted yet.
        #expect(u.reactions == 399)
        let mean = try #require(u.meanReaction), spread = try #require(u.reactionSpread)
        // Within 4 standard errors of the drawn person (0.03 / √399 = 0.0015 s).
        #expect(abs(mean - 0.25) < 0.006, "mean \(mean)")
        #expect(abs(spread - 0.03) < 0.005, "spread \(spread)")
        #expect(u.intervalSelections == 400)
        #expect(abs(try #require(u.meanInterval) - 1.0) < 1e-9)
    }

    /// A person too slow for the interval: the selections they take back are counted as
    /// undone, and those are among the wrong ones; their reaction time leaves the late
    /// presses out.
    @Test func aLatePersonsUndoneSelectionsAreCounted() throws {
        let tree = try AdaptiveTimingTests.keyboard()
        var person = SimulatedPerson(seed: 5, mean: 0.55, spread: 0.08)
        let run = person.use(tree, settings: AdaptiveTimingTests.settings(interval: 0.5, adapt: false),
                             targets: AdaptiveTimingTests.targets(tree), selections: 300)
        let u = run.usage
        let wrong = run.selections.filter(\.wrong).count
        #expect(u.selections == 300)
        #expect(u.undone > 0 && u.undone <= wrong, "undone \(u.undone), wrong \(wrong)")
        let mean = try #require(u.meanReaction)
        #expect(mean <= 0.5, "only presses within the interval are reaction times: \(mean)")
    }

    /// Adaptation and counting together: the interval a day was scanned at is the mean of
    /// the intervals its selections were made at.
    @Test func theMeanIntervalFollowsAdaptation() throws {
        let tree = try AdaptiveTimingTests.keyboard()
        var person = SimulatedPerson(seed: 2, mean: 0.25, spread: 0.03)
        let run = person.use(tree, settings: AdaptiveTimingTests.settings(interval: 1.0),
                             targets: AdaptiveTimingTests.targets(tree), selections: 300)
        let expected = run.selections.map(\.interval).reduce(0, +) / 300
        let mean = try #require(run.usage.meanInterval)
        // Each selection's interval is the one before its adaptation step: within one step.
        #expect(mean < 1.0 && abs(mean - expected) < 0.02, "mean \(mean), selections' \(expected)")
    }

    /// Taken, the counts start again; the selection the next may undo stays pending.
    @Test func takingTheCountsStartsThemAgain() throws {
        var t = UsageTally()
        t.selected(.enteredGroup, latency: 0.4, interval: 1.0)
        var engine = ScanEngine(tree: try AdaptiveTimingTests.keyboard())
        engine.usage = t
        let first = engine.takeUsage()
        #expect(first.selections == 1 && first.reactions == 0)
        #expect(engine.takeUsage().isEmpty)
        // The Exit that comes next undoes it, in the next take.
        engine.usage.selected(.leftGroup, latency: 0.3, interval: 1.0)
        let second = engine.takeUsage()
        #expect(second.selections == 1 && second.undone == 1 && second.reactions == 0)
    }

    /// Words are begun letters; a word mended (Backspace inside it, or a prediction
    /// replacing what was typed of it) is still one word; Enter ends one; the time writing
    /// leaves long pauses out; a password's letters are not counted, nor kept.
    @Test func wordsAndWritingTime() {
        var t = UsageTally()
        var clock = ScanInstant.zero
        func after(_ seconds: Double) -> ScanInstant {
            clock = clock + .seconds(seconds)
            return clock
        }
        for c in "Helo" { t.typed(String(c), at: after(2)) }
        t.deleted(at: after(2))             // Backspace: "Hel"
        t.typed("lo ", at: after(2))         // mended: still one word
        t.typed("wor", at: after(2))
        t.deleted(at: after(2))             // a prediction replaces "wor"…
        t.typed("world ", at: after(2))      // …with the whole word
        t.typed("it's", at: after(2))
        t.brokeWord(at: after(2))           // Enter
        t.typed("well-known ", at: after(2))
        t.typed("again", at: after(60))      // after a long pause: writing again, not time written
        #expect(t.counts.words == 5, "\(t.counts)")
        // Eleven gaps of 2 s; the 60 s pause is left out.
        #expect(abs(t.counts.writingSeconds - 22) < 1e-9)
        var secret = UsageTally()
        secret.typed("hunter2", secret: true, at: .zero)
        #expect(secret.counts.words == 0)
        secret.deleted(at: .seconds(1))
        #expect(secret.counts.words == 0 && secret.counts.writingSeconds == 1)
    }

    /// The last take counts the last selection too: nothing can undo it any more.
    @Test func theLastTakeCountsThePendingReaction() throws {
        var engine = ScanEngine(tree: try AdaptiveTimingTests.keyboard())
        engine.usage.selected(.other, latency: 0.4, interval: 1.0)
        #expect(engine.takeUsage().reactions == 0)
        let last = engine.takeUsage(last: true)
        #expect(last.reactions == 1 && abs(last.reactionSum - 0.4) < 1e-12)
    }

    /// Off (as in `cost` and `simulate`), nothing is counted.
    @Test func offCountsNothing() throws {
        let tree = try AdaptiveTimingTests.keyboard()
        var engine = ScanEngine(tree: tree, settings: AdaptiveTimingTests.settings(interval: 0.7, adapt: false))
        _ = AdaptiveTimingTests.press(&engine, every: .milliseconds(900))
        #expect(engine.takeUsage().isEmpty)
        var counting = ScanEngine(tree: tree, settings: AdaptiveTimingTests.settings(interval: 0.7, adapt: false))
        counting.tallies = true
        _ = AdaptiveTimingTests.press(&counting, every: .milliseconds(900))
        let u = counting.takeUsage()
        #expect(u.presses == 40 && u.selections > 0)
    }
}

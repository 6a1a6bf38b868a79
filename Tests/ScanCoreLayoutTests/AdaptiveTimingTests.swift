import Foundation
@testable import ScanCore
import ScanFormats
import Testing

/// Adaptive timing (`adaptTiming`), with simulated people on the bundled keyboard layout
/// in rows: the real engine, in virtual time, a press a drawn reaction time after the item
/// on the person's way lights up.
@Suite("Adaptive timing")
struct AdaptiveTimingTests {
    static func keyboard() throws -> ElementTree { try CostTests.tree("keyboard.json") }

    static func settings(interval: Double, adapt: Bool = true) -> ScanSettings {
        var s = ScanSettings()
        s.grouping = .rowColumn
        s.autoScanInterval = .seconds(interval)
        s.adaptTiming = adapt ? .on : .off
        return s
    }

    /// Every key of the keyboard in a shuffled but fixed order.
    static func targets(_ tree: ElementTree) -> [String] {
        var ids = (0..<tree.count).filter { tree[$0].isAccessibilityElement && $0 != tree.root }.map { tree[$0].id }
        var r = SplitMix64(seed: 7)
        for i in stride(from: ids.count - 1, to: 0, by: -1) { ids.swapAt(i, Int(r.next() % UInt64(i + 1))) }
        return ids
    }

    static func errorRate(_ s: ArraySlice<SimulatedPerson.Selection>) -> Double {
        Double(s.filter(\.wrong).count) / Double(s.count)
    }

    @Test func aSlowPersonStartingTooFastEndsWithFewerThanFivePercentWrong() throws {
        let tree = try Self.keyboard()
        var rates: [Double] = []
        for seed in 1...5 as ClosedRange<UInt64> {
            var person = SimulatedPerson(seed: seed, mean: 0.55, spread: 0.08)
            let run = person.use(tree, settings: Self.settings(interval: 0.4), targets: Self.targets(tree), selections: 600)
            let last = run.selections.suffix(200)
            rates.append(Self.errorRate(last))
        }
        let mean = rates.reduce(0, +) / Double(rates.count)
        #expect(mean < 0.05, "wrong selections over the last 200: \(rates)")
    }

    @Test func aFastPersonStartingSlowSpeedsUp() throws {
        let tree = try Self.keyboard()
        for seed in 1...5 as ClosedRange<UInt64> {
            var person = SimulatedPerson(seed: seed, mean: 0.25, spread: 0.03)
            let run = person.use(tree, settings: Self.settings(interval: 1.0), targets: Self.targets(tree), selections: 400)
            #expect(try #require(run.selections.last).interval <= 0.5)
            // It got there without paying in errors.
            #expect(Self.errorRate(run.selections[...]) < 0.05)
        }
    }

    /// With the floor lowered, the fast person's interval settles near their own mean plus
    /// 2.5 standard deviations (0.325 s), and their errors stay rare.
    @Test func aFastPersonIsFollowedDownToTheirOwnPaceAboveTheFloor() throws {
        let tree = try Self.keyboard()
        var s = Self.settings(interval: 1.0)
        s.adaptMinimum = .seconds(0.2)
        for seed in 1...3 as ClosedRange<UInt64> {
            var person = SimulatedPerson(seed: seed, mean: 0.25, spread: 0.03)
            let run = person.use(tree, settings: s, targets: Self.targets(tree), selections: 500)
            let end = try #require(run.selections.last).interval
            #expect(end >= 0.28 && end <= 0.40, "ended at \(end)")
            #expect(Self.errorRate(run.selections.suffix(200)) < 0.05)
            // Never more than 10 % a step, never past the bounds.
            var before = 1.0
            for sel in run.selections {
                #expect(abs(sel.interval - before) <= before * 0.1 + 1e-9)
                #expect(sel.interval >= 0.2)
                before = sel.interval
            }
        }
    }

    /// A person who tires: their mean reaction goes from 0.35 s to 0.7 s over 800
    /// selections. The interval follows, and their errors stay low throughout.
    @Test func aPersonWhoTiresIsFollowed() throws {
        let tree = try Self.keyboard()
        for seed in 1...3 as ClosedRange<UInt64> {
            var person = SimulatedPerson(seed: seed) { n in (0.35 + 0.35 * min(1, Double(n) / 800), 0.06) }
            let run = person.use(tree, settings: Self.settings(interval: 0.6), targets: Self.targets(tree), selections: 1000)
            try #require(run.selections.count == 1000)
            let early = run.selections[100..<200].map(\.interval).reduce(0, +) / 100
            let late = run.selections.suffix(100).map(\.interval).reduce(0, +) / 100
            #expect(early < 0.6 && late > 0.75, "early \(early), late \(late)")
            for k in stride(from: 0, to: 1000, by: 200) {
                #expect(Self.errorRate(run.selections[k..<(k + 200)]) < 0.08, "selections \(k)–\(k + 200)")
            }
        }
    }

    /// Starts the engine and presses `select` (50 ms) every `gap`, 40 times: everything it did.
    static func press(_ engine: inout ScanEngine, every gap: ScanDuration) -> [TimedEffect] {
        var effects = engine.start(at: .zero)
        var t = ScanInstant.zero
        for _ in 0..<40 {
            t = t + gap
            effects += engine.handleDeadline(at: t)
            effects += engine.handle(SwitchEvent(.select, down: true, at: t), at: t)
            effects += engine.handle(SwitchEvent(.select, down: false, at: t + .milliseconds(50)), at: t + .milliseconds(50))
        }
        return effects
    }

    /// Adaptation is for auto scanning in item mode: in the other styles, which wait for the
    /// person, and in point mode, presses far too soon change nothing.
    @Test(arguments: [ScanStyle.step, .manual, .hold])
    func otherStylesAreLeftAlone(_ style: ScanStyle) throws {
        let tree = try Self.keyboard()
        var s = Self.settings(interval: 1.0)
        s.style = style
        var engine = ScanEngine(tree: tree, settings: s)
        let effects = Self.press(&engine, every: .milliseconds(700))
        #expect(!effects.contains { if case .settingChanged = $0.effect { true } else { false } })
        #expect(engine.settings.autoScanInterval == .seconds(1))
    }

    @Test func pointModeIsLeftAlone() throws {
        let tree = try Self.keyboard()
        var s = Self.settings(interval: 1.0)
        s.mode = .point
        var engine = ScanEngine(tree: tree, settings: s)
        let effects = Self.press(&engine, every: .milliseconds(1100))
        // Until a press chooses item mode from the point's menu, nothing changes.
        let toItems = effects.firstIndex { if case .modeChanged(.item) = $0.effect { true } else { false } } ?? effects.endIndex
        #expect(effects.contains { if case .sweep = $0.effect { true } else { false } })
        #expect(!effects[..<toItems].contains { if case .settingChanged = $0.effect { true } else { false } })
    }

    /// Off, the interval never changes, whatever the person does.
    @Test func offLeavesTheIntervalAlone() throws {
        let tree = try Self.keyboard()
        var person = SimulatedPerson(seed: 1, mean: 0.55, spread: 0.08)
        let run = person.use(tree, settings: Self.settings(interval: 0.4, adapt: false), targets: Self.targets(tree), selections: 200)
        #expect(run.settingsChanged.isEmpty)
        #expect(Self.errorRate(run.selections[...]) > 0.5)
    }
}

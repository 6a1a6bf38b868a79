import Testing
@testable import ScanCore

@Suite("Time")
struct TimeTests {
    @Test(arguments: [(0, "0.000"), (1_000_000_000, "1.000"), (1_234_567_891, "1.235"), (999_499_999, "0.999"),
                      (999_500_000, "1.000"), (12_050_000_000, "12.050")])
    func millisecondsText(_ ns: Int64, _ text: String) {
        #expect(ScanInstant(nanoseconds: ns).millisecondsText == text)
    }

    @Test func secondsRoundToNanoseconds() {
        #expect(ScanDuration.seconds(0.1).nanoseconds == 100_000_000)
        #expect(ScanInstant.seconds(16.7 / 1000).nanoseconds == 16_700_000)
        // 1000 steps of 0.1 s land exactly on 100 s: integers, no float drift.
        var t = ScanInstant.zero
        for _ in 0..<1000 { t = t + .seconds(0.1) }
        #expect(t == .seconds(100))
    }
}

@Suite("Sweep positions")
struct SweepTests {
    let sweep = Sweep(axis: .x, phase: .line, start: .seconds(2), lo: 0, hi: 375, speed: 100, passes: 2)

    @Test func movesAtGlideSpeedFromTheLowEdge() {
        #expect(sweep.position(at: .seconds(2)) == 0)
        #expect(abs(sweep.position(at: .seconds(3.88)) - 188) < 1e-9)
    }

    @Test func bouncesAtTheFarEdge() {
        #expect(sweep.position(at: .seconds(2 + 3.75)) == 375)
        #expect(abs(sweep.position(at: .seconds(7)) - 250) < 1e-9)
    }

    @Test func endsAfterItsPassesAndHoldsThere() {
        #expect(sweep.end == .seconds(2 + 7.5))
        #expect(sweep.position(at: .seconds(20)) == 0)
        #expect(sweep.position(at: .seconds(0)) == 0, "before the start: the start position")
    }

    @Test func bandKeepsItsWidthInsideTheScreen() {
        let band = Sweep(axis: .y, phase: .band, start: .zero, lo: 0, hi: 667 - 133.4, width: 133.4, speed: 100, passes: 2)
        let e = band.extent(at: .seconds(5.336))
        #expect(abs(e.upperBound - 667) < 1e-9)
        #expect(abs(e.lowerBound - 533.6) < 1e-9)
    }

    @Test func aDegenerateSweepStaysPut() {
        let flat = Sweep(axis: .x, phase: .line, start: .zero, lo: 10, hi: 10, speed: 100, passes: 2)
        #expect(flat.position(at: .seconds(3)) == 10)
        #expect(flat.end == .zero)
    }
}

@Suite("Adjustable values")
struct AdjustableTests {
    @Test func numericStepsClampAndFormat() throws {
        var a = Adjustable(kind: .numeric(min: 0, max: 1, step: 0.1, decimals: 1, format: "Volume {value}"), current: 0.8)
        a = try #require(a.moved(by: 1))
        #expect(a.displayValue == "Volume 0.9")
        a = try #require(a.moved(by: 1))
        #expect(a.displayValue == "Volume 1.0")
        #expect(a.moved(by: 1) == nil, "at the maximum nothing changes")
    }

    @Test func listMovesByIndexWithoutWrapping() throws {
        let a = Adjustable(kind: .list(["Low", "Medium", "High"]), current: 0)
        #expect(a.moved(by: -1) == nil)
        let b = try #require(a.moved(by: 1))
        #expect(b.displayValue == "Medium")
    }

    @Test(arguments: [(5.0, 1, "5.0"), (-0.04, 1, "0.0"), (-1.25, 1, "-1.3"), (2.5, 0, "3"), (1234.5678, 2, "1234.57")])
    func fixedFormatting(_ v: Double, _ d: Int, _ text: String) {
        #expect(formatFixed(v, decimals: d) == text)
    }
}

@Suite("Switch filter")
struct SwitchFilterTests {
    func run(_ config: SwitchFilter.Configuration, _ script: [(Double, SwitchAction, Bool)], until: Double) -> [String] {
        var f = SwitchFilter(config)
        var out: [SwitchFilter.Command] = []
        for (t, action, down) in script {
            let at = ScanInstant.seconds(t)
            while let d = f.nextDeadline, d < at { out += f.handleDeadline(at: d) }
            out += f.handle(SwitchEvent(action, down: down, at: at))
        }
        while let d = f.nextDeadline, d <= .seconds(until) { out += f.handleDeadline(at: d) }
        return out.map { "\($0.action.rawValue)@\($0.firedAt)/\($0.pressedAt)\($0.isRepeat ? " repeat" : "")" }
    }

    @Test func plainPressFiresAtOnce() {
        #expect(run(.init(), [(1, .select, true), (1.05, .select, false)], until: 5) == ["select@1.000/1.000"])
    }

    @Test func repeatedDownIsNotASecondPress() {
        // Kernel autorepeat (value 2) arrives as another "down" while held.
        #expect(run(.init(), [(1, .select, true), (1.5, .select, true), (2, .select, false)], until: 5) == ["select@1.000/1.000"])
    }

    @Test func debounceSwallowsChatter() {
        let cfg = SwitchFilter.Configuration(debounce: .milliseconds(20))
        let events: [(Double, SwitchAction, Bool)] = [(1, .select, true), (1.005, .select, false), (1.010, .select, true),
                                                      (1.2, .select, false), (1.5, .select, true), (1.6, .select, false)]
        #expect(run(cfg, events, until: 5) == ["select@1.000/1.000", "select@1.500/1.500"])
    }

    @Test func aReleaseInsideTheBounceWindowIsAppliedWhenItEnds() {
        // A quick tap shorter than the bounce window must not leave the switch stuck down.
        var f = SwitchFilter(.init())
        let db = ScanDuration.milliseconds(20)
        #expect(f.handle(SwitchEvent(.select, down: true, at: .seconds(1), debounce: db)).count == 1)
        #expect(f.handle(SwitchEvent(.select, down: false, at: .seconds(1.01), debounce: db)).isEmpty)
        #expect(f.anyDown)
        #expect(f.nextDeadline == .seconds(1.02))
        _ = f.handleDeadline(at: .seconds(1.02))
        #expect(!f.anyDown)
        #expect(f.handle(SwitchEvent(.select, down: true, at: .seconds(1.3), debounce: db)).count == 1, "the next press counts")
    }

    @Test func holdDurationNeedsAHeldPress() {
        let cfg = SwitchFilter.Configuration(holdDuration: .seconds(0.3))
        let events: [(Double, SwitchAction, Bool)] = [(1, .select, true), (1.2, .select, false), (2, .select, true), (2.5, .select, false)]
        #expect(run(cfg, events, until: 5) == ["select@2.300/2.000"])
    }

    @Test func ignoreRepeatDropsTheWholeSecondPress() {
        let cfg = SwitchFilter.Configuration(ignoreRepeat: .seconds(0.5))
        let events: [(Double, SwitchAction, Bool)] = [(1, .next, true), (1.05, .next, false), (1.3, .next, true), (1.9, .next, false),
                                                      (2.0, .next, true), (2.05, .next, false)]
        #expect(run(cfg, events, until: 5) == ["next@1.000/1.000", "next@2.000/2.000"])
    }

    @Test func longPressChoosesTheSecondAction() {
        let cfg = SwitchFilter.Configuration(longPress: .seconds(1), longPressAction: .menu)
        let events: [(Double, SwitchAction, Bool)] = [(1, .select, true), (1.4, .select, false), (2, .select, true), (3.5, .select, false)]
        #expect(run(cfg, events, until: 5) == ["select@1.400/1.000", "menu@3.000/2.000"])
    }

    @Test func moveRepeatRepeatsOnlyMoves() {
        let cfg = SwitchFilter.Configuration(moveRepeat: .seconds(0.25))
        let events: [(Double, SwitchAction, Bool)] = [(1, .next, true), (1.6, .next, false), (2, .select, true), (3, .select, false)]
        #expect(run(cfg, events, until: 5) == ["next@1.000/1.000", "next@1.250/1.250 repeat", "next@1.500/1.500 repeat",
                                               "select@2.000/2.000"])
    }

    @Test func twoSwitchesOnOneActionAreTrackedApart() {
        var f = SwitchFilter(.init())
        let a = f.handle(SwitchEvent(.select, down: true, at: .seconds(1), source: 1))
        let b = f.handle(SwitchEvent(.select, down: true, at: .seconds(1.1), source: 2))
        #expect(a.count == 1 && b.count == 1)
        #expect(f.anyDown)
        _ = f.handle(SwitchEvent(.select, down: false, at: .seconds(1.2), source: 1))
        #expect(f.anyDown)
        _ = f.handle(SwitchEvent(.select, down: false, at: .seconds(1.3), source: 2))
        #expect(!f.anyDown)
    }
}

@Suite("Trait sets")
struct TraitSetTests {
    @Test func everyTraitHasItsOwnBitInDeclarationOrder() {
        for (k, trait) in Trait.allCases.enumerated() {
            #expect(trait.bit == UInt16(1) << UInt16(k), "\(trait)")
        }
        let all = TraitSet(Trait.allCases)
        #expect(all.rawValue.nonzeroBitCount == Trait.allCases.count)
        #expect(Array(all) == Trait.allCases)
    }
}

@Suite("Element nodes")
struct ElementNodeTests {
    @Test func rareFieldsAreCopiedOnWrite() {
        var a = ElementNode(id: "a")
        a.customActions = [CustomAction(name: "x")]
        a.sortPriority = 2
        a.adjustable = Adjustable(kind: .list(["off", "on"]), current: 0)
        var b = a
        b.customActions.append(CustomAction(name: "y"))
        b.sortPriority = nil
        b.adjustable?.current = 1
        #expect(a.customActions.map(\.name) == ["x"])
        #expect(a.sortPriority == 2)
        #expect(a.adjustable?.current == 0)
        #expect(b.customActions.map(\.name) == ["x", "y"])
        #expect(b.sortPriority == nil)
        #expect(b.adjustable?.current == 1)
    }

    @Test func unsetRareFieldsReadAsDefaults() {
        var n = ElementNode(id: "n")
        n.onTap = nil
        n.customActions = []
        #expect(n.onTap == nil && n.onActivate == nil && n.onEscape == nil)
        #expect(n.customActions.isEmpty && n.adjustable == nil && n.elements == nil)
        #expect(n.sortPriority == nil && n.respondsToUserInteraction == nil)
        n.respondsToUserInteraction = false
        #expect(n.respondsToUserInteraction == false)
    }
}

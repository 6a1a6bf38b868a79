import Foundation
@testable import ScanCore
import ScanFormats
import Testing

/// `cost`'s late person (`reactionSpread`, LatePresses.swift): the expected seconds it
/// reports against an exact enumeration of the same person's mistakes played out by the
/// engine, and against many runs of a simulated person whose every press is drawn.
@Suite("Late person's cost")
struct LateCostTests {
    static func settings(interval: Double, reaction: Double, spread: Double) -> ScanSettings {
        var s = ScanSettings()
        s.autoScanInterval = .seconds(interval)
        s.reactionTime = .seconds(reaction)
        s.reactionSpread = .seconds(spread)
        return s
    }

    enum Outcome { case onTime, wrong, missed }

    /// Every way the presses on the way to `element` can go with at most `most` mistakes:
    /// each sequence played out by a scripted person (on time at the mean, a wrong press at
    /// the mean of the late ones, a held-back press waiting the round), weighed by its
    /// chance. Each press of the way is tried until it is made in time; the presses that
    /// take a mistake back and lead back to the same item in the same place are made in
    /// time, as the model has them. The expected seconds, and the chance the sequences cover.
    static func enumerate(_ tree: ElementTree, _ s: ScanSettings, _ element: String, most: Int) -> (seconds: Double, mass: Double) {
        let model = LateModel(s)
        let mean = s.reactionTime.seconds
        var total = 0.0, mass = 0.0
        struct Place: Equatable { var item: String; var scopes: [String]; var menuOf: String? }
        // The places of the way's presses, from a run on time.
        var way: [Place] = []
        var onTime = SimulatedPerson(seed: 0, mean: mean, spread: 0)
        _ = onTime.use(tree, settings: s, targets: [element], selections: 400, reaching: 1) { _, m in
            way.append(Place(item: m.item, scopes: m.scopes, menuOf: m.menuOf))
            return mean
        }
        func run(_ script: [Outcome]) -> (at: Double, attempts: [(window: Double, outcome: Outcome)]) {
            var attempts: [(window: Double, outcome: Outcome)] = []
            // The press of the way due next, and whether the person is on the way back to it.
            var next = 0, goingBack = false
            var person = SimulatedPerson(seed: 0, mean: mean, spread: 0)
            let out = person.use(tree, settings: s, targets: [element], selections: 400, reaching: 1) { _, m in
                let here = Place(item: m.item, scopes: m.scopes, menuOf: m.menuOf)
                if goingBack {
                    guard next < way.count, here == way[next] else { return mean }
                    goingBack = false
                }
                let o = attempts.count < script.count ? script[attempts.count] : .onTime
                attempts.append((m.window, o))
                switch o {
                case .onTime:
                    next += 1
                    return mean
                case .wrong:
                    goingBack = true
                    return model.wrongOffset(offset: mean, window: m.window)
                case .missed:
                    goingBack = true
                    return nil
                }
            }
            return (out.reached.first?.at ?? .infinity, attempts)
        }
        func explore(_ script: [Outcome], _ mistakes: Int) {
            let r = run(script)
            var p = 1.0
            for a in r.attempts {
                let (wrong, missed) = model.chances(offset: mean, window: a.window)
                switch a.outcome {
                case .onTime: p *= 1 - wrong - missed
                case .wrong: p *= wrong
                case .missed: p *= missed
                }
            }
            total += p * r.at
            mass += p
            guard mistakes < most else { return }
            for j in script.count..<r.attempts.count {
                for o in [Outcome.wrong, .missed] {
                    explore(script + Array(repeating: .onTime, count: j - script.count) + [o], mistakes + 1)
                }
            }
        }
        explore([], 0)
        return (total, mass)
    }

    @Test(arguments: [("switch-control.uikit.json", Grouping.layout), ("keypad-order.json", .rowColumn), ("navbar-order.json", .layout)])
    func theExpectedSecondsAreTheEnumerationsOnASmallScreen(_ layout: String, _ grouping: Grouping) throws {
        let tree = try CostTests.tree(layout)
        var s = Self.settings(interval: 0.7, reaction: 0.5, spread: 0.1)
        s.grouping = grouping
        s.tapBehavior = .alwaysTap
        let costs = try ScanCost.compute(tree, settings: s).filter { $0.action == nil }
        #expect(!costs.isEmpty)
        for c in costs {
            let e = Self.enumerate(tree, s, c.element, most: 3)
            // What the enumeration leaves out (four mistakes or more) is below 1e-4 of the
            // chance here; each such sequence ends within a minute.
            #expect(e.mass > 0.9999)
            #expect(abs(c.expectedSeconds - e.seconds) < 0.002 + (1 - e.mass) * 60, "\(c.element): \(c.expectedSeconds) against \(e.seconds)")
            #expect(c.expectedSeconds > c.seconds)
        }
    }

    /// Without a spread the late person is the person on time.
    @Test func noSpreadNoMistakes() throws {
        let tree = try CostTests.tree("keyboard.json")
        let costs = try ScanCost.compute(tree, settings: Self.settings(interval: 0.7, reaction: 0.5, spread: 0))
        for c in costs {
            #expect(c.expectedSeconds == c.seconds)
            #expect(c.wrongSelections == 0)
            #expect(c.expectedSelections == Double(c.presses))
        }
    }

    /// A person whose every press is drawn (0.5 ± 0.15 s, at 0.7 s a step: one press in
    /// eleven is late), 600 runs from the start to one element each: their mean time is
    /// within three standard errors of the expected seconds (a sampling check, seeded so it
    /// repeats; the simulated person also errs while taking mistakes back, which the model
    /// leaves out, and that is inside this margin).
    @Test(arguments: ["key_e", "key_m", "key_return"])
    func aSimulatedLatePersonTakesTheExpectedSecondsOnAverage(_ element: String) throws {
        let tree = try CostTests.tree("keyboard.json")
        var s = Self.settings(interval: 0.7, reaction: 0.5, spread: 0.15)
        s.grouping = .rowColumn
        let cost = try #require(try ScanCost.compute(tree, settings: s).first { $0.element == element && $0.action == nil })
        var times: [Double] = []
        for seed in 1...600 as ClosedRange<UInt64> {
            var person = SimulatedPerson(seed: seed, mean: 0.5, spread: 0.15)
            let out = person.use(tree, settings: s, targets: [element], selections: 400, reaching: 1) { p, m in p.decide(m) }
            times.append(try #require(out.reached.first?.at))
        }
        let n = Double(times.count)
        let mean = times.reduce(0, +) / n
        let sd = (times.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (n - 1)).squareRoot()
        #expect(abs(mean - cost.expectedSeconds) < 3 * sd / n.squareRoot(),
                "\(element): simulated \(mean) ± \(sd / n.squareRoot()), expected \(cost.expectedSeconds), error-free \(cost.seconds)")
        // And the error-free figure is not within that margin: the test can tell them apart.
        #expect(abs(mean - cost.seconds) > 3 * sd / n.squareRoot())
    }
}

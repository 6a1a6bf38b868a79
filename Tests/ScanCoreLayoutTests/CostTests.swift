import Foundation
@testable import ScanCore
import ScanFormats
import ScanRuntime
import Testing

/// ScanCost (what `switchscan cost` reports): its press times, replayed as `select` presses,
/// activate each element (or run each custom action) at exactly the seconds it reports; and
/// the groupings.
@Suite("Scanning cost")
struct CostTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let layouts: [String] = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Layouts").path))?
        .filter { $0.hasSuffix(".json") }.sorted() ?? []

    static func tree(_ name: String) throws -> ElementTree {
        let bytes = try [UInt8](Data(contentsOf: root.appendingPathComponent("Layouts").appendingPathComponent(name)))
        return try LayoutLoader.load(bytes: bytes, file: name).tree
    }

    static func settings(_ grouping: Grouping, _ tap: TapBehavior = .menu) -> ScanSettings {
        var s = ScanSettings()
        s.grouping = grouping
        s.tapBehavior = tap
        return s
    }

    /// The first effect of the element's activation (or action) when its presses are replayed.
    static func replay(_ c: ElementCost, _ tree: ElementTree, _ s: ScanSettings) -> ScanInstant? {
        var driver = ManualDriver(engine: ScanEngine(tree: tree, settings: s))
        func presses(_ action: SwitchAction, _ times: [ScanInstant]) -> [SwitchEvent] {
            let length = ScanCost.pressLength(action, s)
            // Hold scanning: each press let go at its own time.
            let releases = action == .select ? c.releaseTimes : []
            return times.enumerated().flatMap { k, t in
                [SwitchEvent(action, down: true, at: t), SwitchEvent(action, down: false, at: releases.isEmpty ? t + length : releases[k])]
            }
        }
        driver.schedule((presses(.select, c.pressTimes) + presses(.next, c.nextTimes)).sorted { $0.timestamp < $1.timestamp })
        let effects = driver.start() + driver.advance(to: .seconds(c.seconds + 5))
        return effects.first {
            switch $0.effect {
            case .activate(let e, _, _): return c.action == nil && e == c.element
            case .customAction(let e, let a, _): return e == c.element && a == c.action
            default: return false
            }
        }?.time
    }

    @Test(arguments: layouts, Grouping.allCases)
    func pressTimesActivateAtExactlyTheSeconds(_ layout: String, _ grouping: Grouping) throws {
        let tree = try Self.tree(layout)
        for tap in TapBehavior.allCases {
            let s = Self.settings(grouping, tap)
            let costs = try ScanCost.compute(tree, settings: s)
            #expect(!costs.isEmpty, "\(layout) \(grouping) \(tap)")
            for c in costs {
                #expect(Self.replay(c, tree, s) == .seconds(c.seconds), "\(layout) \(grouping) \(tap): \(c.element) \(c.action ?? "")")
            }
            // Every element item mode reaches is costed once.
            let reachable = Set(Regrouping.elementsInOrder(ScanTreeBuilder.build(tree, settings: s)).map { tree[$0].id })
            #expect(Set(costs.filter { $0.action == nil }.map(\.element)) == reachable, "\(layout) \(grouping) \(tap)")
        }
    }

    /// the rule of groups a person can see, docs/BEHAVIOUR.md on the bundled layouts: under every grouping each group's outline holds its
    /// members and no other item's activation point, and outlines at one level do not overlap.
    @Test(arguments: layouts, Grouping.allCases)
    func everyGroupCanBeSeen(_ layout: String, _ grouping: Grouping) throws {
        let tree = try Self.tree(layout)
        for scope in ItemScope.allCases {
            var s = Self.settings(grouping)
            s.itemScope = scope
            let scan = ScanTreeBuilder.build(tree, settings: s)
            #expect(GroupOutlines.problems(scan, tree: tree) == [], "\(layout) \(grouping) \(scope)")
        }
    }

    /// Point mode: the crosshair placed on each element's activation point and tapped.
    @Test(arguments: layouts, [false, true])
    func pointModePressTimesTapAtExactlyTheSeconds(_ layout: String, _ precise: Bool) throws {
        let tree = try Self.tree(layout)
        for tap in TapBehavior.allCases {
            var s = Self.settings(.layout, tap)
            s.mode = .point
            s.precise = precise
            let costs = try ScanCost.computePoint(tree, settings: s)
            #expect(!costs.isEmpty, "\(layout) \(tap) precise \(precise)")
            for c in costs {
                var driver = ManualDriver(engine: ScanEngine(tree: tree, settings: s))
                driver.schedule(c.pressTimes.flatMap { [SwitchEvent(.select, down: true, at: $0), SwitchEvent(.select, down: false, at: $0 + .milliseconds(50))] })
                let effects = driver.start() + driver.advance(to: .seconds(c.seconds + 5))
                let tapped = effects.first { if case .tap = $0.effect { return true } else { return false } }
                #expect(tapped?.time == .seconds(c.seconds), "\(layout) \(tap) precise \(precise): \(c.element)")
                // The tap reaches the element (or a view inside it, or the view it stands for),
                // never a node on top of it such as a modal's scrim.
                if case .tap(_, let hit?)? = tapped?.effect, let h = tree.index(of: hit), let e = tree.index(of: c.element) {
                    #expect(ScanCost.reaches(h, e, in: tree), "\(layout): the tap for \(c.element) reached \(hit)")
                } else {
                    Issue.record("\(layout): the tap for \(c.element) reached nothing")
                }
                #expect(c.presses == (precise ? 4 : 2) + (tap == .menu ? 1 : 0))
            }
        }
    }

    /// What a modal dialog hides behind its scrim cannot be tapped in point mode either.
    @Test func pointModeCostsNothingBehindAModal() throws {
        let tree = try Self.tree("modal-dialog.json")
        var s = Self.settings(.layout, .menu)
        s.mode = .point
        let costed = Set(try ScanCost.computePoint(tree, settings: s).map(\.element))
        for hidden in ["settingsTitle", "wifiRow", "bluetoothRow", "airplaneToggle", "deleteAccount"] {
            #expect(!costed.contains(hidden), "\(hidden) lies behind the scrim")
        }
        #expect(costed.contains("cancelButton") && costed.contains("deleteButton"))
    }

    @Test(arguments: layouts)
    func optimalIsNeverSlowerThanTheOtherGroupings(_ layout: String) throws {
        let tree = try Self.tree(layout)
        let optimal = ScanCost.Summary(try ScanCost.compute(tree, settings: Self.settings(.optimal))).meanSeconds
        for other in [Grouping.layout, .linear, .rowColumn] {
            let mean = ScanCost.Summary(try ScanCost.compute(tree, settings: Self.settings(other))).meanSeconds
            #expect(optimal <= mean + 1e-9, "\(layout): optimal \(optimal) s, \(other) \(mean) s")
        }
    }

    @Test func weightsBringFrequentElementsForward() throws {
        let tree = try Self.tree("mail-inbox.json")
        var s = Self.settings(.optimal)
        let plain = try ScanCost.compute(tree, settings: s)
        let last = try #require(plain.filter { $0.action == nil }.max { $0.seconds < $1.seconds })
        s.weights = [last.element: 50]
        let weighted = try ScanCost.compute(tree, settings: s)
        let now = try #require(weighted.first { $0.element == last.element && $0.action == nil })
        #expect(now.seconds < last.seconds, "\(last.element): \(last.seconds) s, weighted \(now.seconds) s")
        #expect(ScanCost.Summary(weighted, weights: s.weights).weightedMeanSeconds! < ScanCost.Summary(plain, weights: s.weights).weightedMeanSeconds!)
    }

    /// Step scanning (`select` moves, resting selects), manual scanning (`next` moves,
    /// `select` selects) and hold scanning (held, it moves; let go, it selects) agree with
    /// the engine as auto scanning does.
    @Test(arguments: layouts, [ScanStyle.step, .manual, .hold])
    func stepAndManualPressTimesActivateAtExactlyTheSeconds(_ layout: String, _ style: ScanStyle) throws {
        let tree = try Self.tree(layout)
        for tap in TapBehavior.allCases {
            var s = Self.settings(.layout, tap)
            s.style = style
            let costs = try ScanCost.compute(tree, settings: s)
            #expect(!costs.isEmpty, "\(layout) \(style) \(tap)")
            for c in costs {
                #expect(Self.replay(c, tree, s) == .seconds(c.seconds), "\(layout) \(style) \(tap): \(c.element) \(c.action ?? "")")
                #expect(style == .step || style == .hold ? c.nextTimes.isEmpty : true, "one switch in step and hold scanning")
                #expect(style == .hold ? c.releaseTimes.count == c.pressTimes.count : c.releaseTimes.isEmpty)
            }
        }
    }

    /// The switch filters the settings ask for: the modelled user holds each press as long
    /// as `holdDuration` needs, keeps out of the `ignoreRepeat` window of the press before,
    /// and lets a move go before `moveRepeat` repeats it. Every element is still reached,
    /// and replaying the presses (as long as `pressLength` says) activates it on time.
    @Test(arguments: [
        #"{"holdDuration": 0.1}"#, #"{"holdDuration": 0.3, "autoScanInterval": 1.5}"#,
        #"{"ignoreRepeat": 0.5}"#, #"{"ignoreRepeat": 2, "autoScanInterval": 0.8}"#,
        #"{"style": "manual", "moveRepeat": 0.05}"#, #"{"style": "manual", "moveRepeat": 0.05, "holdDuration": 0.2}"#,
        #"{"style": "manual", "ignoreRepeat": 0.6}"#, #"{"style": "step", "ignoreRepeat": 0.8, "holdDuration": 0.1}"#,
        #"{"longPress": 0.4, "holdDuration": 0.2}"#, #"{"style": "hold", "holdDuration": 0.2}"#, #"{"style": "hold", "ignoreRepeat": 0.5}"#,
    ])
    func switchFiltersAreHonoured(_ json: String) throws {
        let base = try SettingsLoader.load(bytes: Array(json.utf8), file: "settings")
        for layout in Self.layouts {
            let tree = try Self.tree(layout)
            for tap in TapBehavior.allCases {
                var s = base
                s.tapBehavior = tap
                let costs = try ScanCost.compute(tree, settings: s)
                let reachable = Set(Regrouping.elementsInOrder(ScanTreeBuilder.build(tree, settings: s)).map { tree[$0].id })
                let costed = Set(costs.filter { $0.action == nil }.map(\.element))
                #expect(costed == reachable, "\(json) \(layout) \(tap)")
                for c in costs {
                    #expect(Self.replay(c, tree, s) == .seconds(c.seconds), "\(json) \(layout) \(tap): \(c.element) \(c.action ?? "")")
                    let all = (c.pressTimes + c.nextTimes).sorted()
                    if let ir = s.ignoreRepeat {
                        #expect(zip(all, all.dropFirst()).allSatisfy { $1 - $0 >= ir }, "\(json) \(layout): presses \(all)")
                    }
                }
            }
        }
    }

    @Test func reactionsTooSlowForTheTimingAreRefused() throws {
        let tree = try Self.tree("mail-inbox.json")
        var s = ScanSettings()
        s.reactionTime = .seconds(1.0)
        #expect(throws: ScanCost.Problem.self) { try ScanCost.compute(tree, settings: s) }
        s = ScanSettings()
        s.style = .step
        s.stepSelectDelay = .seconds(0.3)
        #expect(throws: ScanCost.Problem.self) { try ScanCost.compute(tree, settings: s) }
        // Step scanning whose dwell comes before a second press may: only one move is possible.
        s = ScanSettings()
        s.style = .step
        s.ignoreRepeat = .seconds(2)
        #expect(throws: ScanCost.Problem.ignoreRepeatNotShorterThanStepSelectDelay) { try ScanCost.compute(tree, settings: s) }
        s = ScanSettings()
        s.holdDuration = .seconds(1)
        s.longPress = .seconds(0.5)
        #expect(throws: ScanCost.Problem.holdNotShorterThanLongPress) { try ScanCost.compute(tree, settings: s) }
    }

    @Test func linearAndRowColumnOrders() throws {
        let tree = try Self.tree("keypad-order.json")
        let layout = ScanTreeBuilder.build(tree, settings: Self.settings(.layout))
        let linear = ScanTreeBuilder.build(tree, settings: Self.settings(.linear))
        #expect(linear.groups.count == 1, "no groups")
        #expect(Regrouping.elementsInOrder(linear) == Regrouping.elementsInOrder(layout), "the same reading order")
        let rows = ScanTreeBuilder.build(tree, settings: Self.settings(.rowColumn))
        for g in rows.groups.dropFirst() {
            let ys = g.items.compactMap { if case .element(let n) = $0 { return tree[n].frame.minY } else { return nil } }
            #expect(Set(ys).count == 1, "a row's members share a row")
            #expect(g.id?.hasPrefix("group:") == true)
        }
    }

    /// A 10 × 10 grid of keys, flat: `optimal` comes within 10 % of the entropy bound for
    /// its timing (docs/COST.md): with letter costs c_j = reaction + j × interval, no
    /// scanning tree averages less than log2(100) / log2(ρ), ρ the root of
    /// Σ ρ^-c_j = 1, plus the menu's Tap.
    @Test func aHundredKeyGridComesWithinTenPercentOfTheBound() throws {
        var nodes = [ElementNode(id: "root")]
        nodes[0].frame = Rect(x: 0, y: 0, width: 400, height: 500)
        for r in 0..<10 {
            for c in 0..<10 {
                var n = ElementNode(id: "k\(r)\(c)")
                n.isAccessibilityElement = true
                n.label = "Key \(r * 10 + c)"
                n.traits = TraitSet([.button])
                n.frame = Rect(x: Double(c) * 38, y: 100 + Double(r) * 40, width: 36, height: 38)
                n.activationPoint = n.frame.center
                n.parent = 0
                nodes[0].children.append(nodes.count)
                nodes.append(n)
            }
        }
        let tree = ElementTree(screenID: "grid", size: (400, 500), nodes: nodes)
        let s = Self.settings(.optimal)
        let mean = ScanCost.Summary(try ScanCost.compute(tree, settings: s)).meanSeconds
        let reaction = s.reactionTime.seconds, interval = s.autoScanInterval.seconds
        // x = 1/ρ solves x^reaction / (1 − x^interval) = 1.
        var lo = 1e-6, hi = 1 - 1e-6
        for _ in 0..<200 {
            let x = (lo + hi) / 2
            if pow(x, reaction) - (1 - pow(x, interval)) > 0 { hi = x } else { lo = x }
        }
        let bound = log2(100) / -log2(lo) + reaction
        #expect(mean >= bound, "no tree beats the bound: \(mean) s against \(bound) s")
        #expect(mean <= bound * 1.1, "\(mean) s against the bound \(bound) s")
        let linear = ScanCost.Summary(try ScanCost.compute(tree, settings: Self.settings(.linear))).meanSeconds
        #expect(mean <= linear * 0.6, "at least 40 % below linear: \(mean) s against \(linear) s")
    }
}

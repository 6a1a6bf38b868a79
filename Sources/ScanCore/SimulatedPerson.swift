/// A person with a switch, simulated in virtual time: they want one element after another
/// and press `select` a reaction time after the item on their way lights up, the reaction
/// drawn from a normal distribution (seeded, so a run is repeatable). A press that comes
/// after the highlight moved on selects whatever is highlighted then; the person then
/// takes it back as the screen allows: the Exit item of a group they did not want, the Exit
/// entry of a menu opened on the wrong element. Auto scanning, item mode. Used to test
/// adaptive timing and `cost`'s error model against what the engine does.
public struct SimulatedPerson: Sendable {
    /// Mean and standard deviation of the reaction time, in seconds, for the n-th selection
    /// (0-based): a person who tires is slower later.
    public var reaction: @Sendable (Int) -> (mean: Double, spread: Double)
    var random: SplitMix64

    public init(seed: UInt64, reaction: @escaping @Sendable (Int) -> (mean: Double, spread: Double)) {
        self.reaction = reaction
        random = SplitMix64(seed: seed)
    }

    public init(seed: UInt64, mean: Double, spread: Double) {
        self.init(seed: seed) { _ in (mean, spread) }
    }

    /// One reaction time: normal, never under 0.1 s (no one presses before they see).
    mutating func draw(_ n: Int) -> Double {
        let (mean, spread) = reaction(n)
        return max(0.1, mean + spread * random.normal())
    }

    /// A press about to be made: the n-th selection, whether it takes a mistake back (an
    /// Exit), and how long the item it answers stays lit.
    public struct Moment: Sendable {
        public var selection: Int
        public var undoing: Bool
        public var window: Double
        /// Where: the item wanted, the groups the scan is in, and the element whose menu is
        /// open (by id).
        public var item: String
        public var scopes: [String]
        public var menuOf: String?
    }

    /// When the person presses, seconds after the item lit up; nil: they saw the highlight
    /// move on a whole reaction time before their press would come, and hold it back.
    mutating func decide(_ m: Moment) -> Double? {
        let r = draw(m.selection)
        return r >= m.window + reaction(m.selection).mean ? nil : r
    }

    /// One selection made, as it went.
    public struct Selection: Hashable, Sendable {
        /// When the press came.
        public var at: Double
        /// The press selected something other than what the person wanted.
        public var wrong: Bool
        /// The interval in force after it.
        public var interval: Double
    }

    public struct Outcome: Sendable {
        public var selections: [Selection] = []
        /// The elements activated as wanted, and when.
        public var reached: [(element: String, at: Double)] = []
        /// Where it stopped: the engine's time.
        public var end: Double = 0
        public var settingsChanged: [SettingChange] = []
        /// What the engine counted for the usage report.
        public var usage = Usage()
    }

    /// Works through `targets` (element ids, in order, as many times as needed) on `tree`
    /// until `selections` presses have been made. The engine is the real one; time is its
    /// virtual time.
    public mutating func use(_ tree: ElementTree, settings: ScanSettings, targets: [String], selections: Int) -> Outcome {
        use(tree, settings: settings, targets: targets, selections: selections, reaching: nil) { p, m in p.decide(m) }
    }

    /// As `use`, stopping once `reaching` targets are reached (if given), each press timed
    /// by `press` (seconds after the item lit, or nil to hold it back).
    public mutating func use(_ tree: ElementTree, settings: ScanSettings, targets: [String], selections: Int, reaching: Int?,
                             press timing: (inout SimulatedPerson, Moment) -> Double?) -> Outcome {
        var settings = settings
        settings.style = .auto
        settings.mode = .item
        var engine = ScanEngine(tree: tree, settings: settings)
        engine.tallies = true
        var out = Outcome()
        var effects = engine.start(at: .zero)
        var k = 0
        var now = ScanInstant.zero
        // When the highlight shown now was shown: a reaction counts from there.
        var litAt = ScanInstant.zero
        func note(_ fx: [TimedEffect]) {
            for e in fx {
                if case .highlight = e.effect { litAt = e.time }
                if case .settingChanged(let c) = e.effect { out.settingsChanged.append(c) }
                if case .activate(let id, _, _) = e.effect, k < targets.count * 1_000_000, id == targets[k % targets.count] {
                    out.reached.append((id, e.time.seconds))
                    k += 1
                }
            }
        }
        note(effects)
        var guardSteps = 0
        while out.selections.count < selections && guardSteps < selections * 200 && out.reached.count < (reaching ?? Int.max) {
            guardSteps += 1
            let target = targets[k % targets.count]
            guard let wanted = Self.wanted(&engine, target) else {
                // Nothing to aim at (scanning stopped): a press starts it again.
                now = now + .seconds(draw(out.selections.count))
                effects = press(&engine, at: now)
                note(effects)
                continue
            }
            // Wait until the wanted item lights up.
            var shownAt: ScanInstant? = engine.sameItem(engine.currentHighlight(), wanted.effect) ? litAt : nil
            while shownAt == nil, let d = engine.nextDeadline {
                let fx = engine.handleDeadline(at: d)
                now = d
                note(fx)
                if fx.contains(where: { engine.sameItem($0.effect, wanted.effect) }) { shownAt = d }
                if fx.contains(where: { if case .scanStopped = $0.effect { true } else { false } }) { break }
            }
            guard let h = shownAt else { continue }
            // How long the item stays lit: until the highlight moves.
            var peek = engine
            var window = 600.0
            while let d = peek.nextDeadline, d <= h + .seconds(600) {
                if peek.handleDeadline(at: d).contains(where: { if case .highlight = $0.effect { true } else { false } }) {
                    window = (d - h).seconds
                    break
                }
            }
            let undoing = wanted.id == "exit"
            let moment = Moment(selection: out.selections.count, undoing: undoing, window: window, item: wanted.id,
                                scopes: engine.item.cursor.scopes.map(engine.groupID), menuOf: engine.item.menu.flatMap { engine.targetID($0.target) })
            guard let offset = timing(&self, moment) else {
                // Held back: the highlight moves on, and the item is awaited again.
                if let d = engine.nextDeadline { note(engine.handleDeadline(at: d)); now = d }
                continue
            }
            let t = h + .seconds(offset)
            // Whatever the timers do before the press happens first.
            while let d = engine.nextDeadline, d <= t { note(engine.handleDeadline(at: d)) }
            now = t
            let lit = engine.currentHighlight()
            let wrong = !engine.sameItem(lit, wanted.effect)
            effects = press(&engine, at: t)
            note(effects)
            now = t + ScanCost.pressLength(.select, engine.settings)
            out.selections.append(Selection(at: t.seconds, wrong: wrong, interval: engine.settings.autoScanInterval.seconds))
        }
        out.end = now.seconds
        out.usage = engine.takeUsage()
        return out
    }

    /// A press as `cost`'s modelled user makes it: as long as the switch filters need.
    func press(_ engine: inout ScanEngine, at t: ScanInstant) -> [TimedEffect] {
        ScanCost.Walk(settings: engine.settings).press(&engine, at: t)
    }

    /// The stop the person wants now on the way to `target`: Tap in the target's menu, Exit
    /// in any other menu; in the scan, the target, the group around it, or Exit out of a
    /// group that does not hold it. Its highlight, to compare with what is shown.
    static func wanted(_ engine: inout ScanEngine, _ target: String) -> (id: String, effect: Effect)? {
        guard engine.itemScanRuns, engine.mode == .item else { return nil }
        if let menu = engine.item.menu {
            let entry = engine.targetID(menu.target) == target && menu.items.contains { $0.name == "tap" } ? "tap" : "exit"
            return (entry, .highlight(item: entry, kind: .menuEntry, frame: nil, label: nil, context: engine.targetID(menu.target)))
        }
        guard let n = engine.tree.index(of: target), let (g, _) = engine.scan.locate(node: n) else { return nil }
        let path = engine.scan.ancestors(of: g) + [g]
        let scopes = engine.item.cursor.scopes
        if scopes.count <= path.count && Array(path.prefix(scopes.count)) == scopes {
            if scopes.count == path.count { return (target, .highlight(item: target, kind: .element, frame: nil, label: nil, context: nil)) }
            let id = engine.groupID(path[scopes.count])
            return (id, .highlight(item: id, kind: .group, frame: nil, label: nil, context: nil))
        }
        return ("exit", .highlight(item: "exit", kind: .exit, frame: nil, label: nil, context: engine.groupID(engine.item.cursor.scope)))
    }
}

/// A small seeded generator (SplitMix64): the same seed gives the same person, or the same
/// moments in setup's practice.
public struct SplitMix64: Hashable, Sendable {
    var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in (0, 1).
    public mutating func uniform() -> Double { (Double(next() >> 11) + 0.5) / Double(1 << 53) }

    /// Standard normal (Marsaglia's polar method).
    public mutating func normal() -> Double {
        while true {
            let u = 2 * uniform() - 1, v = 2 * uniform() - 1
            let s = u * u + v * v
            if s > 0 && s < 1 { return u * (-2 * NormalDistribution.log(s) / s).squareRoot() }
        }
    }
}

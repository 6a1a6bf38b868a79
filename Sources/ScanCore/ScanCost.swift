/// What reaching each element costs a switch user: the time from the start of the scan to
/// the element's activation, and the presses. The modelled user presses `reactionTime`
/// after the wanted item is highlighted, each press 50 ms down and up. The costs come from
/// the engine itself, driven in virtual time, so feeding `pressTimes` to `simulate` as
/// `select` presses activates the element at exactly `seconds`.
public struct ElementCost: Hashable, Sendable {
    public var element: String
    public var label: String
    /// The custom action reached through the scanner menu; nil: the element's activation.
    public var action: String?
    public var seconds: Double
    public var pressTimes: [ScanInstant]
    public var presses: Int { pressTimes.count }
}

public enum ScanCost {
    public static let pressLength = ScanDuration.milliseconds(50)

    public enum Problem: Error, CustomStringConvertible, Sendable {
        case notAuto(ScanStyle)
        case reactionTooSlow

        public var description: String {
            switch self {
            case .notAuto(let s):
                return "cost models auto scanning (one switch, \"style\": \"auto\"); the settings say \"\(s.rawValue)\""
            case .reactionTooSlow:
                return "reactionTime must be shorter than autoScanInterval: a press that late lands on the next item"
            }
        }
    }

    /// Every element reachable in item mode, activated, and each of its custom actions
    /// (with the scanner menu, `tapBehavior: menu`), in scan order.
    public static func compute(_ tree: ElementTree, settings: ScanSettings) throws(Problem) -> [ElementCost] {
        guard settings.style == .auto else { throw .notAuto(settings.style) }
        guard settings.reactionTime < settings.autoScanInterval else { throw .reactionTooSlow }
        var settings = settings
        settings.mode = .item
        var engine = ScanEngine(tree: tree, settings: settings)
        let start = engine.start(at: .zero)
        var walk = Walk(settings: settings)
        guard let first = start.first(where: { if case .highlight = $0.effect { return true } else { return false } }) else { return [] }
        walk.group(engine, 0, firstHighlight: first.time, presses: [])
        return walk.results
    }

    struct Walk {
        let settings: ScanSettings
        var results: [ElementCost] = []

        /// Presses select at `t` (down, then up 50 ms later); the effects of both.
        func press(_ e: inout ScanEngine, at t: ScanInstant) -> [TimedEffect] {
            e.handle(SwitchEvent(.select, down: true, at: t), at: t)
                + e.handle(SwitchEvent(.select, down: false, at: t + ScanCost.pressLength), at: t + ScanCost.pressLength)
        }

        /// Runs the engine until it highlights `id` (of `kind`); its time, or nil if the
        /// scan stops or goes a whole cycle without it.
        func advance(_ e: inout ScanEngine, to id: String, _ kind: HighlightKind, within limit: ScanInstant) -> ScanInstant? {
            while let d = e.nextDeadline, d <= limit {
                for fx in e.handleDeadline(at: d) {
                    if case .highlight(let item, let k, _, _, _) = fx.effect, item == id, k == kind { return fx.time }
                }
            }
            return nil
        }

        func highlightTime(_ effects: [TimedEffect], _ id: String, _ kind: HighlightKind) -> ScanInstant? {
            effects.first { if case .highlight(let item, let k, _, _, _) = $0.effect { return item == id && k == kind } else { return false } }?.time
        }

        /// The items of group `g`, its first highlighted at `firstHighlight`: each reached
        /// on a copy of the engine, which is what a press there would lead to.
        mutating func group(_ engine: ScanEngine, _ g: Int, firstHighlight: ScanInstant, presses: [ScanInstant]) {
            var scanner = engine
            let items = engine.scan.groups[g].items
            // A cycle is at most this long; any item is reached within one.
            let cycle = settings.autoScanInterval * Int64(items.count + 3) + settings.pauseOnFirstItem
            var h = firstHighlight
            for (k, item) in items.enumerated() {
                let (id, kind): (String, HighlightKind)
                switch item {
                case .element(let n): (id, kind) = (engine.tree[n].id, .element)
                case .group(let sub): (id, kind) = (engine.groupID(sub), .group)
                }
                if k > 0 {
                    guard let t = advance(&scanner, to: id, kind, within: h + cycle) else { return }
                    h = t
                }
                var fork = scanner
                let t = h + settings.reactionTime
                let effects = press(&fork, at: t)
                switch item {
                case .group(let sub):
                    guard let first = effects.first(where: {
                        if case .enterGroup(let entered) = $0.effect { return entered == id } else { return false }
                    }) else { continue }
                    let firstItem = fork.scan.groups[sub].items.first
                    let firstID: String? = firstItem.map {
                        switch $0 {
                        case .element(let n): return fork.tree[n].id
                        case .group(let s): return fork.groupID(s)
                        }
                    }
                    let firstKind: HighlightKind = { if case .group? = firstItem { return .group } else { return .element } }()
                    let shown = firstID.flatMap { highlightTime(effects, $0, firstKind) } ?? first.time
                    group(fork, sub, firstHighlight: shown, presses: presses + [t])
                case .element(let n):
                    element(fork, n, selected: effects, presses: presses + [t])
                }
            }
        }

        /// After the press that selected element `n`: its activation, and its custom actions.
        mutating func element(_ engine: ScanEngine, _ n: Int, selected effects: [TimedEffect], presses: [ScanInstant]) {
            let node = engine.tree[n]
            let label = node.label ?? node.id
            func activation(in effects: [TimedEffect]) -> ScanInstant? {
                effects.first { if case .activate(let e, _, _) = $0.effect { return e == node.id } else { return false } }?.time
            }
            switch settings.tapBehavior {
            case .alwaysTap:
                if let t = activation(in: effects) { record(node.id, label, nil, t, presses) }
            case .autoTap:
                var waiting = engine
                var seen = effects
                while activation(in: seen) == nil, let d = waiting.nextDeadline, d <= (presses.last ?? .zero) + settings.autoTapTime + .seconds(1) {
                    seen += waiting.handleDeadline(at: d)
                }
                if let t = activation(in: seen) { record(node.id, label, nil, t, presses) }
            case .menu:
                guard let open = effects.first(where: { if case .menuOpen(let e, _) = $0.effect { return e == node.id } else { return false } }) else { return }
                var entries: [(name: String, action: String?)] = []
                if !node.traits.contains(.notEnabled) { entries.append(("tap", nil)) }
                entries += node.customActions.map { ($0.name, $0.name) }
                let cycle = settings.autoScanInterval * Int64(entries.count + 8) + settings.pauseOnFirstItem
                var scanner = engine
                var h = highlightTime(effects, entries.first?.name ?? "", .menuEntry) ?? open.time
                for (k, entry) in entries.enumerated() {
                    if k > 0 {
                        guard let t = advance(&scanner, to: entry.name, .menuEntry, within: h + cycle) else { return }
                        h = t
                    }
                    var fork = scanner
                    let t = h + settings.reactionTime
                    let done = press(&fork, at: t)
                    if let action = entry.action {
                        if let at = done.first(where: {
                            if case .customAction(let e, let a, _) = $0.effect { return e == node.id && a == action } else { return false }
                        })?.time {
                            record(node.id, label, action, at, presses + [t])
                        }
                    } else if let at = activation(in: done) {
                        record(node.id, label, nil, at, presses + [t])
                    }
                }
            }
        }

        mutating func record(_ id: String, _ label: String, _ action: String?, _ at: ScanInstant, _ presses: [ScanInstant]) {
            results.append(ElementCost(element: id, label: label, action: action, seconds: at.seconds, pressTimes: presses))
        }
    }

    /// Point mode: for every accessible element a tap at its activation point reaches, the
    /// presses that place the crosshair there (each when the sweeping line, or the middle of
    /// the band, is on the point: sweeps are predictable) and tap it, as `tapBehavior` says.
    public static func computePoint(_ tree: ElementTree, settings: ScanSettings) throws(Problem) -> [ElementCost] {
        guard settings.reactionTime < settings.autoScanInterval else { throw .reactionTooSlow }
        var settings = settings
        settings.mode = .point
        var engine = ScanEngine(tree: tree, settings: settings)
        let start = engine.start(at: .zero)
        guard let first = sweep(in: start) else { return [] }
        let walk = Walk(settings: settings)
        var results: [ElementCost] = []
        for n in 0..<tree.count where tree[n].isAccessibilityElement && tree[n].isVisible && n != tree.root {
            let target = tree[n].activationPoint
            // A tap at the point reaches something (the element, or what it stands for).
            guard tree.hitTest(target) != nil else { continue }
            var fork = engine
            var presses: [ScanInstant] = []
            var current: Sweep? = first
            var effects: [TimedEffect] = []
            // At most a band and a line on each axis; each press after the last one's release.
            while let s = current, presses.count < 4, !selected(effects) {
                guard let t = time(of: s, reaching: s.axis == .x ? target.x : target.y),
                      presses.last.map({ t > $0 + pressLength }) ?? true else { break }
                effects = walk.press(&fork, at: t)
                presses.append(t)
                current = sweep(in: effects)
            }
            guard selected(effects) else { continue }
            func tapTime(_ fx: [TimedEffect]) -> ScanInstant? {
                fx.first { if case .tap = $0.effect { return true } else { return false } }?.time
            }
            var at = tapTime(effects)
            switch settings.tapBehavior {
            case .alwaysTap: break
            case .autoTap:
                var seen = effects
                while at == nil, let d = fork.nextDeadline, d <= presses.last! + settings.autoTapTime + .seconds(1) {
                    seen += fork.handleDeadline(at: d)
                    at = tapTime(seen)
                }
            case .menu:
                if at == nil, let h = walk.highlightTime(effects, "tap", .menuEntry) {
                    let t = h + settings.reactionTime
                    at = tapTime(walk.press(&fork, at: t))
                    presses.append(t)
                }
            }
            if let at { results.append(ElementCost(element: tree[n].id, label: tree[n].label ?? tree[n].id, action: nil, seconds: at.seconds, pressTimes: presses)) }
        }
        return results
    }

    static func sweep(in effects: [TimedEffect]) -> Sweep? {
        for fx in effects { if case .sweep(let s) = fx.effect { return s } }
        return nil
    }

    static func selected(_ effects: [TimedEffect]) -> Bool {
        effects.contains { if case .pointSelected = $0.effect { return true } else { return false } }
    }

    /// When a sweep's line (or the middle of its band) first reaches `coordinate`; nil if
    /// it never does.
    static func time(of s: Sweep, reaching coordinate: Double) -> ScanInstant? {
        let edge = s.phase == .band ? min(max(coordinate - s.width / 2, s.lo), s.hi) : coordinate
        guard edge >= s.lo, edge <= s.hi, s.speed > 0 else { return nil }
        return s.start + .seconds((edge - s.lo) / s.speed)
    }

    /// Mean, median and worst seconds over the activations (custom actions left out),
    /// and the mean weighted by use.
    public struct Summary: Hashable, Sendable {
        public var elements: Int
        public var meanSeconds: Double
        public var medianSeconds: Double
        public var maxSeconds: Double
        public var weightedMeanSeconds: Double

        public init(_ costs: [ElementCost], weights: [String: Double] = [:]) {
            let times = costs.filter { $0.action == nil }.map(\.seconds)
            elements = times.count
            let sorted = times.sorted()
            meanSeconds = times.isEmpty ? 0 : times.reduce(0, +) / Double(times.count)
            medianSeconds = sorted.isEmpty ? 0 : sorted.count % 2 == 1 ? sorted[sorted.count / 2]
                : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
            maxSeconds = sorted.last ?? 0
            var total = 0.0, weight = 0.0
            for c in costs where c.action == nil {
                let w = weights[c.element] ?? 1
                total += w * c.seconds
                weight += w
            }
            weightedMeanSeconds = weight > 0 ? total / weight : 0
        }
    }
}

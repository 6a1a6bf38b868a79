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
    /// What a late person (`reactionSpread`) takes on average, mistakes and their undoing
    /// included (LatePresses.swift); `seconds` without a spread.
    public var expectedSeconds: Double
    /// The wrong selections the late person makes on the way, on average.
    public var wrongSelections = 0.0
    /// The selections the late person makes on the way, on average: the presses, the wrong
    /// ones and those that take them back.
    public var expectedSelections: Double
    let selectTrail: PressTrail?
    let nextTrail: PressTrail?
    var releaseTrail: PressTrail?
    /// Hold scanning: when the `select` switch is let go (each press's own release, in
    /// order); empty in the other styles, whose presses are `pressLength` long.
    public var releaseTimes: [ScanInstant] { PressTrail.times(releaseTrail) }
    /// When the `select` switch is pressed.
    public var pressTimes: [ScanInstant] { PressTrail.times(selectTrail) }
    /// Manual scanning: when the `next` switch is pressed (the other styles use one switch).
    public var nextTimes: [ScanInstant] { PressTrail.times(nextTrail) }
    public var presses: Int { (selectTrail?.count ?? 0) + (nextTrail?.count ?? 0) }

    public init(element: String, label: String, action: String?, seconds: Double, pressTimes: [ScanInstant], nextTimes: [ScanInstant] = []) {
        self.init(element: element, label: label, action: action, seconds: seconds,
                  selectTrail: PressTrail.of(pressTimes), nextTrail: PressTrail.of(nextTimes))
    }

    init(element: String, label: String, action: String?, seconds: Double, selectTrail: PressTrail?, nextTrail: PressTrail?) {
        self.element = element; self.label = label; self.action = action; self.seconds = seconds
        self.selectTrail = selectTrail; self.nextTrail = nextTrail
        expectedSeconds = seconds
        expectedSelections = Double((selectTrail?.count ?? 0) + (nextTrail?.count ?? 0))
    }

    public static func == (a: ElementCost, b: ElementCost) -> Bool {
        a.element == b.element && a.label == b.label && a.action == b.action && a.seconds == b.seconds
            && a.pressTimes == b.pressTimes && a.nextTimes == b.nextTimes
    }

    public func hash(into h: inout Hasher) {
        h.combine(element); h.combine(action); h.combine(seconds); h.combine(presses)
    }
}

/// Press times as a list that shares its beginning with others': every element reached
/// past the same items was pressed for the same way there. A walk over n elements keeps
/// O(n) of them instead of copying each element's whole list (O(n²) on a long top level).
final class PressTrail: Sendable {
    let time: ScanInstant
    let previous: PressTrail?
    let count: Int

    init(_ time: ScanInstant, after previous: PressTrail?) {
        self.time = time
        self.previous = previous
        count = (previous?.count ?? 0) + 1
    }

    static func of(_ times: [ScanInstant]) -> PressTrail? {
        times.reduce(nil) { PressTrail($1, after: $0) }
    }

    static func times(_ trail: PressTrail?) -> [ScanInstant] {
        var out = [ScanInstant](repeating: .zero, count: trail?.count ?? 0)
        var cur = trail
        while let c = cur { out[c.count - 1] = c.time; cur = c.previous }
        return out
    }
}

public enum ScanCost {
    /// How long the modelled user holds a switch down, when the settings ask nothing more.
    public static let pressLength = ScanDuration.milliseconds(50)

    /// How long the modelled user holds the switch for `action` under `settings`: 50 ms, or
    /// 50 ms past `holdDuration` (a shorter press does nothing); a move (`next`, `previous`)
    /// let go before `moveRepeat` would move again, and any press let go before `longPress`
    /// would make it the other action. Replaying press times needs these lengths.
    public static func pressLength(_ action: SwitchAction, _ settings: ScanSettings) -> ScanDuration {
        let hold = settings.holdDuration?.nanoseconds ?? 0
        var length = max(pressLength.nanoseconds, hold + pressLength.nanoseconds)
        if let r = settings.moveRepeat?.nanoseconds, settings.longPress == nil, action == .next || action == .previous {
            length = min(length, hold + r - 10_000_000)
        }
        if let long = settings.longPress?.nanoseconds, length >= long { length = hold + (long - hold) / 2 }
        return ScanDuration(nanoseconds: length)
    }

    public enum Problem: Error, Equatable, CustomStringConvertible, Sendable {
        /// A press `reactionTime` after a highlight would come after the highlight moved on
        /// (auto scanning) or the dwell selected (step scanning).
        case reactionTooSlow(than: String)
        /// No press can both last `holdDuration` and end before `longPress`.
        case holdNotShorterThanLongPress
        /// In step scanning, a press after a move comes `ignoreRepeat` after the one before at
        /// the earliest: by then the dwell has selected.
        case ignoreRepeatNotShorterThanStepSelectDelay

        public var description: String {
            switch self {
            case .reactionTooSlow(let other):
                return "reactionTime must be shorter than \(other): a press that late would act on something else"
            case .holdNotShorterThanLongPress:
                return "holdDuration must be shorter than longPress: a press held long enough to count would be a long press"
            case .ignoreRepeatNotShorterThanStepSelectDelay:
                return "ignoreRepeat must be shorter than stepSelectDelay: a second press that soon after a move is dropped, and the dwell selects first"
            }
        }
    }

    public static func check(_ s: ScanSettings) throws(Problem) {
        // The scanner menu is scanned automatically in auto scanning, in either mode.
        // Hold scanning: the release must come before the highlight moves on.
        if (s.style == .auto || s.style == .hold) && s.reactionTime >= s.autoScanInterval { throw .reactionTooSlow(than: "autoScanInterval") }
        if s.style == .step && s.reactionTime >= s.stepSelectDelay { throw .reactionTooSlow(than: "stepSelectDelay") }
        if let long = s.longPress, (s.holdDuration ?? .zero) >= long { throw .holdNotShorterThanLongPress }
        if s.style == .step, let ir = s.ignoreRepeat, ir >= s.stepSelectDelay { throw .ignoreRepeatNotShorterThanStepSelectDelay }
    }

    /// Every element reachable in item mode, activated, and each of its custom actions
    /// (through the scanner menu, `tapBehavior: menu`), in scan order. Auto scanning: the
    /// user presses `select` when the wanted item comes. Step scanning: `select` moves on
    /// and resting `stepSelectDelay` selects. Manual scanning: `next` moves, `select`
    /// selects. Each press comes `reactionTime` after the highlight it answers.
    public static func compute(_ tree: ElementTree, settings: ScanSettings) throws(Problem) -> [ElementCost] {
        try check(settings)
        var settings = settings
        settings.mode = .item
        var engine = ScanEngine(tree: tree, settings: settings)
        // Scanning by ear, a group's highlight lasts as long as its name takes to say.
        engine.describesGroups = settings.speechPacing && settings.feedback.speech
        let start = engine.start(at: .zero)
        var walk = Walk(settings: settings)
        guard let first = start.first(where: { if case .highlight = $0.effect { return true } else { return false } }) else { return [] }
        walk.group(engine, 0, firstHighlight: first.time, presses: Presses())
        return walk.results
    }

    struct Presses {
        var selectTrail: PressTrail?
        var nextTrail: PressTrail?
        /// Hold scanning: when each press was let go, and whether the switch is held now.
        var releaseTrail: PressTrail?
        var holding = false
        /// The presses a late person may make late, with the engine before each.
        var late: LatePoint?

        init(select: [ScanInstant] = [], next: [ScanInstant] = []) {
            selectTrail = PressTrail.of(select)
            nextTrail = PressTrail.of(next)
        }

        var select: [ScanInstant] { PressTrail.times(selectTrail) }
        var selectCount: Int { selectTrail?.count ?? 0 }
        var lastSelect: ScanInstant? { selectTrail?.time }
        var last: ScanInstant? { [selectTrail?.time, nextTrail?.time].compactMap { $0 }.max() }
        mutating func release(at t: ScanInstant) { releaseTrail = PressTrail(t, after: releaseTrail) }

        mutating func press(_ action: SwitchAction, at t: ScanInstant) {
            if action == .next { nextTrail = PressTrail(t, after: nextTrail) } else { selectTrail = PressTrail(t, after: selectTrail) }
        }
    }

    struct Walk {
        let settings: ScanSettings
        var results: [ElementCost] = []

        /// Presses `action` at `t` (down, then up `pressLength` later); the effects of both,
        /// and of the timers between (a hold that passes).
        func press(_ e: inout ScanEngine, _ action: SwitchAction = .select, at t: ScanInstant) -> [TimedEffect] {
            let up = t + ScanCost.pressLength(action, settings)
            var effects = e.handle(SwitchEvent(action, down: true, at: t), at: t)
            while let d = e.nextDeadline, d <= up { effects += e.handleDeadline(at: d) }
            return effects + e.handle(SwitchEvent(action, down: false, at: up), at: up)
        }

        /// When the modelled user presses for a highlight shown since `h`: `reactionTime`
        /// after it, and not inside the ignore window of the press before (it would be
        /// dropped).
        func pressTime(after h: ScanInstant, _ presses: Presses) -> ScanInstant {
            let t = h + settings.reactionTime
            guard let ir = settings.ignoreRepeat, let last = presses.last, t < last + ir else { return t }
            return last + ir
        }

        /// Runs the engine's timers until `done` holds for what they did; everything they
        /// did, or nil past `limit`.
        func wait(_ e: inout ScanEngine, within limit: ScanInstant, until done: ([TimedEffect]) -> Bool) -> [TimedEffect]? {
            var seen: [TimedEffect] = []
            while let d = e.nextDeadline, d <= limit {
                seen += e.handleDeadline(at: d)
                if done(seen) { return seen }
            }
            return nil
        }

        func highlightTime(_ effects: [TimedEffect], _ id: String, _ kind: HighlightKind) -> ScanInstant? {
            effects.last { if case .highlight(let item, let k, _, _, _, _) = $0.effect { return item == id && k == kind } else { return false } }?.time
        }

        /// Moves the highlight from what is shown since `h` to `id`: auto scanning waits,
        /// the other styles press (`select` in step scanning, `next` in manual). Its time.
        func advance(_ e: inout ScanEngine, from h: ScanInstant, to id: String, _ kind: HighlightKind,
                     within limit: ScanInstant, _ presses: inout Presses) -> ScanInstant? {
            switch settings.style {
            case .auto:
                return wait(&e, within: limit) { highlightTime($0, id, kind) != nil }.flatMap { highlightTime($0, id, kind) }
            case .hold:
                // Pressed a reaction time after what is lit (unless held already, on the
                // way to an item further on), and held until `id` lights.
                var starts = ScanDuration.zero
                if !presses.holding {
                    let t = pressTime(after: h, presses)
                    presses.press(.select, at: t)
                    presses.holding = true
                    let down = e.handle(SwitchEvent(.select, down: true, at: t), at: t)
                    if let at = highlightTime(down, id, kind) { return at }
                    starts = (t - h) + (settings.holdDuration ?? .zero)
                }
                return wait(&e, within: limit + starts) { highlightTime($0, id, kind) != nil }.flatMap { highlightTime($0, id, kind) }
            case .step, .manual:
                // One press a highlight, past anything between (the exit item, the menu item).
                let action: SwitchAction = settings.style == .step ? .select : .next
                var shown = h
                for _ in 0..<4 {
                    let t = pressTime(after: shown, presses)
                    presses.press(action, at: t)
                    let effects = press(&e, action, at: t)
                    if let at = highlightTime(effects, id, kind) { return at }
                    guard let other = effects.last(where: { if case .highlight = $0.effect { return true } else { return false } }) else { return nil }
                    shown = other.time
                }
                return nil
            }
        }

        /// Selects `item`, highlighted since `h`: a press, or in step scanning the rest. In
        /// auto scanning a press held back by the ignore window past the highlight waits for
        /// the item to come round again; nothing if it does not.
        func choose(_ e: inout ScanEngine, highlightedAt h: ScanInstant, item: (String, HighlightKind),
                    _ presses: inout Presses) -> [TimedEffect] {
            if settings.style == .step {
                // The rest's selection: the first timer that does something (a switch
                // filter's own timers may come before it and do nothing).
                var seen: [TimedEffect] = []
                while seen.isEmpty, let d = e.nextDeadline, d <= h + settings.stepSelectDelay + .milliseconds(1) { seen = e.handleDeadline(at: d) }
                return seen
            }
            if settings.style == .hold {
                // Let go a reaction time after the item lit; a tap where it is lit already.
                if presses.holding {
                    let up = h + settings.reactionTime
                    presses.holding = false
                    presses.release(at: up)
                    return e.handle(SwitchEvent(.select, down: false, at: up), at: up)
                }
                let t = pressTime(after: h, presses)
                presses.press(.select, at: t)
                presses.release(at: t + ScanCost.pressLength(.select, settings))
                return press(&e, at: t)
            }
            var shown = h
            var t = pressTime(after: shown, presses)
            while settings.style == .auto && t > shown + settings.reactionTime {
                // Does the highlight move before the press?
                var peek = e
                let moves = wait(&peek, within: t) { $0.contains { if case .highlight = $0.effect { return true } else { return false } } } != nil
                if !moves { break }
                guard let again = wait(&e, within: t + settings.autoScanInterval * 10_000, until: { highlightTime($0, item.0, item.1) != nil })
                        .flatMap({ highlightTime($0, item.0, item.1) }) else { return [] }
                shown = again
                t = pressTime(after: shown, presses)
            }
            if settings.style == .auto && settings.reactionSpread > .zero {
                presses.late = LatePoint(engine: e, shownAt: shown, pressAt: t, item: item, after: presses.late)
            }
            presses.press(.select, at: t)
            return press(&e, at: t)
        }

        func itemID(_ engine: ScanEngine, _ item: ScanItem) -> (String, HighlightKind) {
            switch item {
            case .element(let n): return (engine.tree[n].id, .element)
            case .group(let sub): return (engine.groupID(sub), .group)
            }
        }

        /// The items of group `g`, its first highlighted at `firstHighlight`: each reached
        /// on a copy of the engine, which is what choosing it there would lead to.
        mutating func group(_ engine: ScanEngine, _ g: Int, firstHighlight: ScanInstant, presses: Presses) {
            var scanner = engine
            var scannerPresses = presses
            let items = engine.scan.groups[g].items
            // A cycle is at most this long; any item is reached within one.
            let cycle = settings.autoScanInterval * Int64(items.count + 3) + settings.pauseOnFirstItem
            var h = firstHighlight
            // Step scanning selects only after a move (or on entering a group): the top
            // level's first item is reached by going round once.
            let goRound = settings.style == .step && g == 0
            let order = goRound ? Array(items.indices.dropFirst()) + [0] : Array(items.indices)
            for k in order {
                let (id, kind) = itemID(engine, items[k])
                if k != 0 || goRound {
                    guard let t = advance(&scanner, from: h, to: id, kind, within: h + cycle, &scannerPresses) else { return }
                    h = t
                }
                var fork = scanner
                var forkPresses = scannerPresses
                let effects = choose(&fork, highlightedAt: h, item: (id, kind), &forkPresses)
                switch items[k] {
                case .group(let sub):
                    guard effects.contains(where: { if case .enterGroup(let entered) = $0.effect { return entered == id } else { return false } }),
                          let firstItem = fork.scan.groups[sub].items.first else { continue }
                    let (firstID, firstKind) = itemID(fork, firstItem)
                    guard let shown = highlightTime(effects, firstID, firstKind) else { continue }
                    group(fork, sub, firstHighlight: shown, presses: forkPresses)
                case .element(let n):
                    element(fork, n, selected: effects, highlightedAt: h, presses: forkPresses)
                }
            }
        }

        /// After element `n`, highlighted since `h`, was chosen: its activation, and its
        /// custom actions.
        mutating func element(_ engine: ScanEngine, _ n: Int, selected effects: [TimedEffect], highlightedAt h: ScanInstant, presses: Presses) {
            let node = engine.tree[n]
            let label = node.label ?? node.id
            func activation(in effects: [TimedEffect]) -> ScanInstant? {
                effects.first { if case .activate(let e, _, _) = $0.effect { return e == node.id } else { return false } }?.time
            }
            // A keyboard key acts as soon as it is selected, whatever the tap behaviour.
            switch node.traits.contains(.keyboardKey) ? .alwaysTap : settings.tapBehavior {
            case .alwaysTap:
                if let t = activation(in: effects) { record(node.id, label, nil, t, presses) }
            case .autoTap:
                var waiting = engine
                // Step scanning chose by resting on it, which may have shown nothing (the
                // first item of a group entered by resting is chosen by a second rest, long
                // after the last press).
                let chosen = settings.style == .step ? h + settings.stepSelectDelay : max(effects.last?.time ?? .zero, presses.last ?? .zero, presses.releaseTrail?.time ?? .zero)
                let seen = activation(in: effects) != nil ? effects
                    : wait(&waiting, within: chosen + settings.autoTapTime + .seconds(1)) { activation(in: $0) != nil } ?? []
                if let t = activation(in: seen) { record(node.id, label, nil, t, presses) }
            case .menu:
                guard let open = effects.first(where: { if case .menuOpen(let e, _, _) = $0.effect { return e == node.id } else { return false } }) else { return }
                var entries: [(name: String, action: String?)] = []
                if !node.traits.contains(.notEnabled) { entries.append(("tap", nil)) }
                entries += node.customActions.map { ($0.name, $0.name) }
                let cycle = settings.autoScanInterval * Int64(entries.count + 8) + settings.pauseOnFirstItem
                var scanner = engine
                var scannerPresses = presses
                var h = highlightTime(effects, entries.first?.name ?? "", .menuEntry) ?? open.time
                for (k, entry) in entries.enumerated() {
                    if k > 0 {
                        guard let t = advance(&scanner, from: h, to: entry.name, .menuEntry, within: h + cycle, &scannerPresses) else { return }
                        h = t
                    }
                    var fork = scanner
                    var forkPresses = scannerPresses
                    let done = choose(&fork, highlightedAt: h, item: (entry.name, .menuEntry), &forkPresses)
                    if let action = entry.action {
                        if let at = done.first(where: {
                            if case .customAction(let e, let a, _) = $0.effect { return e == node.id && a == action } else { return false }
                        })?.time {
                            record(node.id, label, action, at, forkPresses)
                        }
                    } else if let at = activation(in: done) {
                        record(node.id, label, nil, at, forkPresses)
                    }
                }
            }
        }

        mutating func record(_ id: String, _ label: String, _ action: String?, _ at: ScanInstant, _ presses: Presses) {
            var cost = ElementCost(element: id, label: label, action: action, seconds: at.seconds,
                                   selectTrail: presses.selectTrail, nextTrail: presses.nextTrail)
            cost.releaseTrail = presses.releaseTrail
            if presses.late != nil {
                let late = LatePoint.total(presses.late, LateModel(settings))
                cost.expectedSeconds += late.extra
                cost.wrongSelections = late.wrong
                cost.expectedSelections += late.selections
            }
            results.append(cost)
        }
    }

    /// Whether a tap that reached node `hit` reached element `n`.
    static func reaches(_ hit: Int, _ n: Int, in tree: ElementTree) -> Bool {
        hit == n || tree[n].hasExplicitActivationPoint || isAncestor(n, of: hit, in: tree) || isAncestor(hit, of: n, in: tree)
    }

    static func isAncestor(_ a: Int, of b: Int, in tree: ElementTree) -> Bool {
        var p = tree[b].parent
        while let q = p {
            if q == a { return true }
            p = tree[q].parent
        }
        return false
    }

    /// Point mode: for every accessible element a tap at its activation point reaches, the
    /// presses that place the crosshair there (each when the sweeping line, or the middle of
    /// the band, is on the point: sweeps are predictable) and tap it, as `tapBehavior` says.
    public static func computePoint(_ tree: ElementTree, settings: ScanSettings) throws(Problem) -> [ElementCost] {
        try check(settings)
        var settings = settings
        settings.mode = .point
        var engine = ScanEngine(tree: tree, settings: settings)
        let start = engine.start(at: .zero)
        guard let first = sweep(in: start) else { return [] }
        let walk = Walk(settings: settings)
        var results: [ElementCost] = []
        for n in 0..<tree.count where tree[n].isAccessibilityElement && tree[n].isVisible && n != tree.root {
            let target = tree[n].activationPoint
            // A tap at the point reaches the element: itself, a view inside it or around it,
            // or whatever its own activation point names (it stands for that view). Another
            // node on top (a modal's scrim, an overlay) takes the tap instead: the element
            // cannot be reached in point mode.
            guard let hit = tree.hitTest(target), reaches(hit, n, in: tree) else { continue }
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
                    var p = Presses(select: presses)
                    at = tapTime(walk.choose(&fork, highlightedAt: h, item: ("tap", .menuEntry), &p))
                    presses = p.select
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
        /// Nil when every element weighs 0: no mean can be taken.
        public var weightedMeanSeconds: Double?
        /// The late person's mean (`expectedSeconds`), and their wrong selections per
        /// selection made.
        public var expectedMeanSeconds: Double
        public var errorRate: Double

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
            weightedMeanSeconds = weight > 0 ? total / weight : nil
            let activations = costs.filter { $0.action == nil }
            expectedMeanSeconds = activations.isEmpty ? 0 : activations.map(\.expectedSeconds).reduce(0, +) / Double(activations.count)
            let selections = activations.map(\.expectedSelections).reduce(0, +)
            errorRate = selections > 0 ? activations.map(\.wrongSelections).reduce(0, +) / selections : 0
        }
    }
}

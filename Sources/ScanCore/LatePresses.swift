/// `cost`'s late person (`reactionSpread`): each press comes `reactionTime` after the item
/// it answers lights up, give or take a normal spread. A press after the highlight moved
/// on selects the item after, which the person takes back and tries again; a press so late
/// that the person saw the highlight move a whole reaction time before it is held back, and
/// the person waits for the item to come round again (docs/COST.md).
///
/// For each press of the error-free path, the engine itself says what each mistake costs:
/// from the highlight the press answered to the same item lit again in the same place, once
/// the wrong selection is taken back (`wrongSeconds`), or once the round has gone by
/// (`missSeconds`). Retries are independent, so the press costs on average
/// (p·wrong + q·miss) / (1 − p − q) more, where p and q are the chances of each mistake.
/// The presses that take a mistake back are taken as made in time.
public struct LateModel: Hashable, Sendable {
    public var reaction: Double
    public var spread: Double

    public init(reaction: Double, spread: Double) { self.reaction = reaction; self.spread = spread }

    public init(_ s: ScanSettings) { self.init(reaction: s.reactionTime.seconds, spread: s.reactionSpread.seconds) }

    /// The chances that a press planned `offset` seconds after its highlight, which lasts
    /// `window` seconds, comes too late and selects the next item (`wrong`), or so late that
    /// the person holds it back (`missed`).
    public func chances(offset: Double, window: Double) -> (wrong: Double, missed: Double) {
        guard spread > 0 else { return (offset >= window ? 1 : 0, 0) }
        let late = NormalDistribution.tail((window - offset) / spread)
        let missed = NormalDistribution.tail((window + reaction - offset) / spread)
        return (max(0, late - missed), missed)
    }

    /// Where a wrong press comes, on average: seconds after the highlight it was meant for.
    public func wrongOffset(offset: Double, window: Double) -> Double {
        guard spread > 0 else { return max(offset, window) }
        let a = (window - offset) / spread, b = (window + reaction - offset) / spread
        let mass = NormalDistribution.cdf(b) - NormalDistribution.cdf(a)
        guard mass > 1e-12 else { return window }
        return offset + spread * (NormalDistribution.pdf(a) - NormalDistribution.pdf(b)) / mass
    }
}

/// What mistakes cost where they are made: by the place of the press (its groups, menu,
/// item, how long the item is lit and when the press comes), and for a wrong one what it
/// selected and typed. One per `cost` run, used by one thread.
public final class LateMemo {
    struct Key: Hashable {
        var scopes: [String]
        /// Rounds gone by in the group and the menu: a held-back press on the last one
        /// leaves them.
        var loops: [Int]
        var menuOf: String?
        var item: String
        var kind: HighlightKind
        var window: ScanDuration
        var offset: ScanDuration
        var typed: Int
        var wrongItem: String?
    }
    var missed: [Key: (seconds: Double, presses: Int)?] = [:]
    var wrong: [Key: (seconds: Double, presses: Int)?] = [:]

    public init() {}
}

/// One press of an error-free path, kept with the engine as it was just before it, so that
/// its mistakes can be played out when (and only when) a late person is modelled. Shared
/// by every element reached past it, like `PressTrail`; its costs are worked out once per
/// model. A cost walk and what it returns are used by one thread at a time.
final class LatePoint: @unchecked Sendable {
    let engine: ScanEngine
    /// When the item was lit, and when the press comes.
    let shownAt: ScanInstant
    let pressAt: ScanInstant
    let item: (id: String, kind: HighlightKind)
    let previous: LatePoint?
    /// Worked out on first use, for the model it was asked for.
    var costs: (model: LateModel, costs: Costs)?

    struct Costs {
        var extra: Double
        var wrong: Double
        var selections: Double
    }

    init(engine: ScanEngine, shownAt: ScanInstant, pressAt: ScanInstant, item: (String, HighlightKind), after previous: LatePoint?) {
        self.engine = engine; self.shownAt = shownAt; self.pressAt = pressAt; self.item = item; self.previous = previous
    }

    /// The expected extra seconds, wrong selections and selections made taking them back,
    /// of this press alone. `memo` keeps what mistakes cost by where they are made, for a
    /// screen whose places come back (the keyboard, key after key).
    func costs(_ model: LateModel, memo: LateMemo? = nil) -> Costs {
        if let costs, costs.model == model { return costs.costs }
        let c = LatePoint.work(self, model, memo)
        costs = (model, c)
        return c
    }

    /// Sums over this press and those before it on the path.
    static func total(_ last: LatePoint?, _ model: LateModel) -> Costs {
        var sum = Costs(extra: 0, wrong: 0, selections: 0)
        var p = last
        while let point = p {
            let c = point.costs(model)
            sum.extra += c.extra; sum.wrong += c.wrong; sum.selections += c.selections
            p = point.previous
        }
        return sum
    }

    static func work(_ p: LatePoint, _ model: LateModel, _ memo: LateMemo?) -> Costs {
        let none = Costs(extra: 0, wrong: 0, selections: 0)
        guard model.spread > 0 else { return none }
        // How long the item stays lit: until the engine moves the highlight on.
        var peek = p.engine
        var window: Double?
        while let d = peek.nextDeadline, d <= p.shownAt + .seconds(600) {
            let fx = peek.handleDeadline(at: d)
            if fx.contains(where: { if case .highlight = $0.effect { true } else { false } }) || !peek.isRunning {
                window = (d - p.shownAt).seconds
                break
            }
        }
        guard let window else { return none }
        let offset = (p.pressAt - p.shownAt).seconds
        let (wrongChance, missChance) = model.chances(offset: offset, window: window)
        guard wrongChance + missChance > 1e-9 else { return none }
        guard wrongChance + missChance < 1 - 1e-9 else { return Costs(extra: .infinity, wrong: .infinity, selections: .infinity) }
        let context = Context(p.engine, p.item)
        // The mistakes are played out by a person on time: nothing more to keep.
        var start = p.engine
        start.settings.reactionSpread = .zero
        let key = LateMemo.Key(scopes: context.scopes, loops: [p.engine.item.cursor.loops, p.engine.item.menu?.loops ?? -1],
                               menuOf: context.menuOf, item: p.item.id, kind: p.item.kind,
                               window: (p.shownAt + .seconds(window)) - p.shownAt, offset: p.pressAt - p.shownAt, typed: 0)
        // Held back: the round goes by.
        let miss: (seconds: Double, presses: Int)?
        if let known = memo?.missed[key] {
            miss = known
        } else {
            var missed = start
            var presses = 0
            miss = context.restore(&missed, after: p.shownAt + .seconds(window), passing: true, presses: &presses)
                .map { (($0 - p.shownAt).seconds, presses) }
            memo?.missed[key] = miss
        }
        // Pressed late: the item after is selected, then taken back.
        var wrong = start
        let late = p.shownAt + .seconds(model.wrongOffset(offset: offset, window: window))
        let walk = ScanCost.Walk(settings: wrong.settings)
        let fx = walk.press(&wrong, at: late)
        var typedKey = key
        typedKey.typed = fx.reduce(0) { if case .typeText(let s, _) = $1.effect { $0 + s.count } else { $0 } }
        typedKey.wrongItem = fx.last { if case .highlight = $0.effect { true } else { false } }.flatMap {
            if case .highlight(let id, _, _, _, _, _) = $0.effect { id } else { nil }
        }
        let mistake: (seconds: Double, presses: Int)?
        if let known = memo?.wrong[typedKey] {
            mistake = known
        } else {
            var presses = 1
            var at: ScanInstant?
            if context.undoTyping(&wrong, fx, presses: &presses) {
                at = context.restore(&wrong, after: late, passing: false, presses: &presses)
            }
            mistake = at.map { (($0 - p.shownAt).seconds, presses) }
            memo?.wrong[typedKey] = mistake
        }
        // A mistake the screen cannot take back (a key that changed the page) is counted
        // as a round missed.
        let missSeconds = (miss ?? mistake)?.seconds
        let wrongSeconds = (mistake ?? miss)?.seconds
        let missPresses = (miss ?? mistake)?.presses ?? 0
        let wrongPresses = (mistake ?? miss)?.presses ?? 0
        guard let missSeconds, let wrongSeconds else { return Costs(extra: .infinity, wrong: .infinity, selections: .infinity) }
        let retry = 1 - wrongChance - missChance
        return Costs(extra: (wrongChance * wrongSeconds + missChance * missSeconds) / retry,
                     wrong: wrongChance / retry,
                     selections: (wrongChance * Double(wrongPresses) + missChance * Double(missPresses)) / retry)
    }

    /// Where the press was made: the groups the scan was in (by id), the element whose
    /// menu was open, and the item wanted.
    struct Context {
        let scopes: [String]
        let menuOf: String?
        let item: (id: String, kind: HighlightKind)

        init(_ e: ScanEngine, _ item: (String, HighlightKind)) {
            scopes = e.item.cursor.scopes.map(e.groupID)
            menuOf = e.item.menu.flatMap { e.targetID($0.target) }
            self.item = item
        }

        /// A wrong key that typed: a Backspace for each character, or Delete word for a
        /// word (a prediction). False when the key cannot be reached.
        func undoTyping(_ e: inout ScanEngine, _ effects: [TimedEffect], presses: inout Int) -> Bool {
            var typed = 0
            for fx in effects { if case .typeText(let s, _) = fx.effect { typed += s.count } }
            guard typed > 0 else { return true }
            let keys = typed > 2 ? ["deleteWord"] : Array(repeating: "backspace", count: typed)
            var last = effects.last?.time ?? .zero
            for key in keys {
                guard let r = ScanCost.reach(&e, element: key, shownAt: last, lastPress: nil) else { return false }
                presses += r.selectTimes.count
                last = r.effects.last?.time ?? r.activatedAt
            }
            return true
        }

        /// Brings the scan back to the item lit in the same place: out of menus and groups
        /// that are not on the way, into those that are. When it is lit again; nil if it
        /// cannot be (the scan stopped, the item is gone). `passing`: the item is lit and
        /// let go by; it must come again.
        func restore(_ e: inout ScanEngine, after t: ScanInstant, passing: Bool, presses: inout Int) -> ScanInstant? {
            let walk = ScanCost.Walk(settings: e.settings)
            var r = ScanCost.Reach()
            var since = t
            if passing, let d = e.nextDeadline, e.sameHighlight(as: item, in: self) {
                _ = e.handleDeadline(at: d)
                since = d
            }
            for _ in 0..<24 {
                guard e.itemScanRuns, e.mode == .item else { return nil }
                let wanted: (String, HighlightKind)
                if let menu = e.item.menu {
                    if let target = menuOf, e.targetID(menu.target) == target {
                        guard let at = ScanCost.moveHighlight(&e, to: item, since: since, &r, lastPress: nil) else { return nil }
                        return at
                    }
                    wanted = (menu.items.contains { $0.name == "exit" } ? "exit" : "done", .menuEntry)
                } else {
                    let here = e.item.cursor.scopes.map(e.groupID)
                    if here == scopes {
                        if let target = menuOf {
                            wanted = (target, .element)
                        } else {
                            return ScanCost.moveHighlight(&e, to: item, since: since, &r, lastPress: nil)
                        }
                    } else if here.count < scopes.count && Array(scopes.prefix(here.count)) == here {
                        wanted = (scopes[here.count], .group)
                    } else {
                        wanted = ("exit", .exit)
                    }
                }
                guard let shown = ScanCost.moveHighlight(&e, to: wanted, since: since, &r, lastPress: nil) else { return nil }
                var chosen = ScanCost.Presses()
                let fx = walk.choose(&e, highlightedAt: shown, item: wanted, &chosen)
                presses += chosen.selectCount
                guard let last = fx.last else { return nil }
                since = last.time
            }
            return nil
        }
    }
}

extension ScanEngine {
    /// Whether `item` is lit now, in the place `context` names.
    mutating func sameHighlight(as item: (id: String, kind: HighlightKind), in context: LatePoint.Context) -> Bool {
        guard case .highlight(let id, let kind, _, _, _, _)? = currentHighlight() else { return false }
        return id == item.id && kind == item.kind && self.item.cursor.scopes.map(groupID) == context.scopes
    }
}

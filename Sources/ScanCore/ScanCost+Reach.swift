/// Reaching one element from wherever the scan is: what the modelled user of `cost` does
/// on a screen that changes after every selection (the keyboard), one target at a time.
extension ScanCost {
    public struct Reach: Sendable {
        /// Every effect on the way, the activation last.
        public var effects: [TimedEffect] = []
        public var selectTimes: [ScanInstant] = []
        /// Manual scanning's `next` presses.
        public var nextTimes: [ScanInstant] = []
        /// When the element was activated.
        public var activatedAt: ScanInstant = .zero
        /// Hold scanning: when each `select` press was let go, and whether it is held now.
        public var releaseTimes: [ScanInstant] = []
        var holding = false
        /// The presses a late person may make late (LatePresses.swift).
        var late: [LatePoint] = []

        /// What the late person (`reactionSpread`) adds on the way: seconds, wrong
        /// selections, and selections made (the wrong ones and their undoing).
        public func lateCosts(_ settings: ScanSettings, memo: LateMemo? = nil) -> (seconds: Double, wrong: Double, selections: Double) {
            let model = LateModel(settings)
            var sum = (seconds: 0.0, wrong: 0.0, selections: 0.0)
            for p in late {
                let c = p.costs(model, memo: memo)
                sum.seconds += c.extra; sum.wrong += c.wrong; sum.selections += c.selections
            }
            return sum
        }
    }

    /// Drives `engine` (item mode, scanning, no menu open) from what it has highlighted
    /// since `shownAt` to the activation of element `id`: out of groups that do not hold it
    /// through their exit item, into the groups around it, and selecting it, with the
    /// presses of `compute`'s modelled user (`lastPress`: the one before, whose ignore
    /// window a press keeps out of). Nil if it cannot be reached: not scanned, or the scan
    /// stops first.
    public static func reach(_ engine: inout ScanEngine, element id: String, shownAt: ScanInstant,
                             lastPress: ScanInstant? = nil) -> Reach? {
        let settings = engine.settings
        var r = Reach()
        // Only the last press counts for the ignore window.
        let before = Presses(select: lastPress.map { [$0] } ?? [])
        func presses() -> Presses {
            let all = Presses(select: r.selectTimes, next: r.nextTimes)
            return all.last == nil ? before : all
        }
        var h = shownAt
        let walk = Walk(settings: settings)
        for _ in 0..<16 {
            guard engine.itemScanRuns, engine.item.menu == nil, engine.mode == .item,
                  let n = engine.tree.index(of: id), let (g, _) = engine.scan.locate(node: n) else { return nil }
            let path = engine.scan.ancestors(of: g) + [g]
            let scopes = engine.item.cursor.scopes
            // The stop wanted in the current scope: the element, the group around it, or out.
            let wanted: (id: String, kind: HighlightKind)
            if scopes.count <= path.count && Array(path.prefix(scopes.count)) == scopes {
                if scopes.count == path.count { wanted = (id, .element) } else { wanted = (engine.groupID(path[scopes.count]), .group) }
            } else {
                wanted = ("exit", .exit)
            }
            guard let shown = moveHighlight(&engine, to: wanted, since: h, &r, lastPress: presses().last) else { return nil }
            h = shown
            var chosen = presses()
            chosen.holding = r.holding
            let pressed = chosen.selectCount
            let effects = walk.choose(&engine, highlightedAt: h, item: wanted, &chosen)
            if chosen.selectCount > pressed { r.selectTimes.append(chosen.lastSelect!) }
            r.releaseTimes += PressTrail.times(chosen.releaseTrail)
            r.holding = chosen.holding
            if let point = chosen.late { r.late.append(point) }
            r.effects += effects
            if wanted.kind == .element {
                guard let at = effects.first(where: { if case .activate(let e, _, _) = $0.effect { return e == id } else { return false } })?.time else { return nil }
                r.activatedAt = at
                return r
            }
            guard let last = effects.last(where: { if case .highlight = $0.effect { return true } else { return false } }) else { return nil }
            h = last.time
        }
        return nil
    }

    /// Moves the highlight to `wanted` the way the style does: auto scanning waits for it,
    /// step scanning presses `select`, manual scanning `next`. When it is shown.
    static func moveHighlight(_ engine: inout ScanEngine, to wanted: (id: String, kind: HighlightKind), since h: ScanInstant,
                              _ r: inout Reach, lastPress: ScanInstant?) -> ScanInstant? {
        let settings = engine.settings
        func matches(_ e: Effect?) -> Bool {
            if case .highlight(let item, let kind, _, _, _, _)? = e { return item == wanted.id && kind == wanted.kind }
            return false
        }
        // Step scanning selects by resting only after a move, or on entering a group.
        let canRest = settings.style != .step || engine.timers[.stepSelect] != nil
        if matches(engine.currentHighlight()) && canRest { return h }
        let stops = engine.cycleCount(engine.item.cursor.scope) + 1
        switch settings.style {
        case .auto:
            let limit = h + settings.autoScanInterval * Int64(stops + 1) + settings.pauseOnFirstItem
            while let d = engine.nextDeadline, d <= limit {
                let effects = engine.handleDeadline(at: d)
                r.effects += effects
                if let at = effects.last(where: { matches($0.effect) })?.time { return at }
                if effects.contains(where: { if case .scanStopped = $0.effect { return true } else { return false } }) { return nil }
            }
            return nil
        case .hold:
            // Pressed a reaction time after what is lit, and held until the wanted item lights.
            var from = h
            if !r.holding {
                let walk = Walk(settings: settings)
                let t = walk.pressTime(after: h, Presses(select: lastPress.map { [$0] } ?? []))
                r.selectTimes.append(t)
                r.holding = true
                let down = engine.handle(SwitchEvent(.select, down: true, at: t), at: t)
                r.effects += down
                if let at = down.last(where: { matches($0.effect) })?.time { return at }
                from = t + (settings.holdDuration ?? .zero)
            }
            let limit = from + settings.autoScanInterval * Int64(stops + 1) + settings.pauseOnFirstItem
            while let d = engine.nextDeadline, d <= limit {
                let effects = engine.handleDeadline(at: d)
                r.effects += effects
                if let at = effects.last(where: { matches($0.effect) })?.time { return at }
            }
            return nil
        case .step, .manual:
            var shown = h
            var last = lastPress
            let walk = Walk(settings: settings)
            for _ in 0..<(stops + 1) {
                let t = walk.pressTime(after: shown, Presses(select: last.map { [$0] } ?? []))
                last = t
                let action: SwitchAction = settings.style == .step ? .select : .next
                if action == .select { r.selectTimes.append(t) } else { r.nextTimes.append(t) }
                let effects = walk.press(&engine, action, at: t)
                r.effects += effects
                guard let last = effects.last(where: { if case .highlight = $0.effect { return true } else { return false } }) else { return nil }
                shown = last.time
                if matches(last.effect) { return shown }
            }
            return nil
        }
    }
}

/// What activations and layout handlers do: taps reach nodes through the visual hit test,
/// handlers run their declarative effects, and changes to the tree rebuild the scan list
/// with the cursor kept on the same element where it survives.
struct EffectOutcome {
    var failed = false
    var treeChanged = false
    var focusRequest: Int?
    var screenChanged = false
    /// Another screen is already being scanned (a presented screen closed): nothing more
    /// to do after the action.
    var placed = false
    /// Where in the output this handler's effects began (to report the action before them).
    var firstOutputIndex = 0
}

extension ScanEngine {
    /// Default activation: the element's own handler, else a tap at its
    /// activation point handled by whatever node the tap reaches.
    mutating func activate(_ n: Int) -> EffectOutcome {
        let node = tree[n]
        let p = node.activationPoint
        if presented != nil {
            emit(.activate(element: node.id, point: p, target: node.id))
            return answerPresented(node.id)
        }
        if let handler = node.onActivate {
            emit(.activate(element: node.id, point: p, target: node.id))
            return runEffects(handler, of: n)
        }
        let hit = tree.hitTest(p)
        emit(.activate(element: node.id, point: p, target: hit.map { tree[$0].id }))
        watchForChanges(after: node.id)
        guard let hit, let h = tree.tapHandler(from: hit) else { return EffectOutcome(firstOutputIndex: out.count) }
        return runEffects(tree[h].onTap ?? [], of: h)
    }

    /// A tap at a point chosen in point mode: the topmost visible node there, hidden from
    /// accessibility or not.
    mutating func tapAt(_ p: Point) -> EffectOutcome {
        let hit = tree.hitTest(p)
        emit(.tap(p, element: hit.map { tree[$0].id }))
        if presented == nil { watchForChanges(after: hit.map { tree[$0].id }) }
        if presented != nil, let hit, tree[hit].isAccessibilityElement { return answerPresented(tree[hit].id) }
        guard let hit, let h = tree.tapHandler(from: hit) else { return EffectOutcome(firstOutputIndex: out.count) }
        return runEffects(tree[h].onTap ?? [], of: h)
    }

    /// A presented screen's element was activated: its logic answers, and the screen's next
    /// version replaces it in place, the cursor kept by id, nothing shown yet (the caller
    /// highlights where scanning goes on).
    mutating func answerPresented(_ id: String) -> EffectOutcome {
        guard var screen = presented else { return EffectOutcome(firstOutputIndex: out.count) }
        let change = screen.logic.activate(id)
        presented!.logic = screen.logic
        var outcome = EffectOutcome(firstOutputIndex: out.count)
        for e in change.effects { emit(e) }
        if settings.attentionRepeats, change.effects.contains(.attention) {
            timers[.attention] = now + ScanSettings.attentionInterval
        }
        if change.closed {
            closePresented()
            outcome.placed = true
            return outcome
        }
        if let next = change.tree {
            let here = place(of: item.cursor)
            let entered = scopeIDs(item.cursor)
            // Point mode's saved item place, by ids, as every change of the tree keeps it.
            let saved = point.savedItem.map { place(of: $0.cursor) }
            show(next)
            scan = ScanTreeBuilder.build(tree, settings: settings)
            groupLabels = []
            history.removeAll()
            let slots = scanSlots()
            if let saved { relocateSaved(saved, slots) }
            if itemScanRuns, cycleCount(0) > 0 {
                let found = find(here, slots)
                if found.exact && scopeIDs(found.cursor) == entered {
                    item.cursor = found.cursor
                } else {
                    // Its row is gone, or the key is in another (another page): out of the
                    // groups it was in, to the top.
                    for id in entered.reversed() { emit(.exitGroup(id)) }
                    item.cursor = Cursor()
                }
            } else {
                item.cursor = Cursor()
            }
        }
        return outcome
    }

    /// Back to the screen beneath a presented one, at the element it was opened from,
    /// however it closed (its Hide key, or the host's `dismissPresented`).
    mutating func closePresented() {
        guard let screen = presented else { return }
        presented = nil
        keyboardProvider?.closed(screen.logic)
        messageProvider?.closed(screen.logic)
        emit(.keyboardClose)
        enterScreen(screen.beneath, returningTo: screen.returnTo)
    }

    mutating func runEffects(_ effects: [LayoutEffect], of n: Int) -> EffectOutcome {
        var outcome = EffectOutcome(firstOutputIndex: out.count)
        for effect in effects {
            switch effect {
            case let .emit(name, data):
                emit(.emit(name: name, element: tree[n].id, data: data))
            case let .set(id, changes):
                guard let target = tree.index(of: id) else { continue }
                tree.update(target) { node in for c in changes { Self.apply(c, to: &node) } }
                outcome.treeChanged = true
            case let .toggle(id, field, values):
                guard let target = tree.index(of: id), !values.isEmpty else { continue }
                let current: String?
                switch field {
                case .label: current = tree[target].label
                case .value: current = tree[target].value
                case .hint: current = tree[target].hint
                }
                let next = current.flatMap { values.firstIndex(of: $0) }.map { values[($0 + 1) % values.count] } ?? values[0]
                tree.update(target) { node in
                    switch field {
                    case .label: node.label = next
                    case .value: node.value = next
                    case .hint: node.hint = next
                    }
                }
                outcome.treeChanged = true
            case .post(let note):
                switch note {
                case .announcement(let text):
                    emit(.announce(text))
                case .layoutChanged(let arg), .screenChanged(let arg):
                    outcome.treeChanged = true
                    if case .screenChanged = note { outcome.screenChanged = true }
                    switch arg {
                    case .none: break
                    case .text(let text): emit(.announce(text))
                    case .element(let id): outcome.focusRequest = tree.index(of: id)
                    }
                case .pageScrolled(let text):
                    outcome.treeChanged = true
                    emit(.announce(text))
                }
            case .loadScreen(let file):
                // Loading another file is the host's job (the core does no I/O).
                emit(.emit(name: "loadScreen", element: tree[n].id, data: file))
            case .key(let key):
                emit(.key(key))
            case .result(let ok):
                outcome.failed = !ok
            }
        }
        return outcome
    }

    static func apply(_ change: LayoutEffect.FieldChange, to node: inout ElementNode) {
        switch change {
        case .label(let v): node.label = v
        case .value(let v): node.value = v
        case .hint(let v): node.hint = v
        case .traits(let t): node.traits = t
        case .hidden(let b): node.hidden = b
        case .elementsHidden(let b): node.elementsHidden = b
        case .viewIsModal(let b): node.viewIsModal = b
        case .visible(let b): node.isVisible = b
        case .frame(let r):
            // The activation point follows a moved frame unless it was set explicitly.
            node.frame = r
            if !node.hasExplicitActivationPoint { node.activationPoint = r.center }
        case .activationPoint(let p):
            node.activationPoint = p
            node.hasExplicitActivationPoint = true
        }
    }

    mutating func applyStructuralChanges(_ outcome: EffectOutcome) {
        if outcome.placed { return }
        if outcome.treeChanged { rebuild(keepFocus: !outcome.screenChanged) }
        if outcome.screenChanged {
            closeMenu()
            if mode == .item {
                if let f = outcome.focusRequest, focus(on: f) { return }
                restartItemScan(at: now)
            }
        } else if let f = outcome.focusRequest, mode == .item {
            _ = focus(on: f)
        }
    }

    /// Rebuilds the scan tree after a layout effect changed the tree in place. Indices are
    /// the same before and after; the place is kept by id all the same, as `replaceTree`
    /// keeps it (ScanEngine+Place.swift): the same stop, else the item after it, else before.
    /// The caller highlights after the action, so only a cursor that had to move does here.
    mutating func rebuild(keepFocus: Bool) {
        let here = place(of: item.cursor)
        let saved = point.savedItem.map { place(of: $0.cursor) }
        scan = ScanTreeBuilder.build(tree, settings: settings)
        groupLabels = []
        history.removeAll()
        if let menu = item.menu, let t = targetNode(menu.target), case .element = menu.target,
           scan.locate(node: t) == nil {
            closeMenu()
        }
        let slots = scanSlots()
        if let saved { relocateSaved(saved, slots) }
        guard keepFocus, itemScanRuns else { item.cursor = Cursor(); return }
        guard cycleCount(0) > 0 else {
            item.cursor = Cursor()
            timers[.move] = nil
            stopItemScan(.nothingToScan)
            emit(.scanStopped(.nothingToScan))
            return
        }
        let found = find(here, slots)
        if found.exact {
            item.cursor.scopes = found.cursor.scopes
            item.cursor.index = found.cursor.index
            return
        }
        item.cursor = found.cursor
        if item.menu == nil && mode == .item {
            emitHighlight()
            armMove(from: now, firstOfCycle: item.cursor.index == 0)
        }
    }

    /// Moves the cursor onto an element, entering the groups around it.
    mutating func focus(on node: Int) -> Bool {
        guard let (g, i) = scan.locate(node: node) else { return false }
        let target = scan.ancestors(of: g) + [g]
        // Report the groups entered beyond the common prefix with where the cursor was.
        var common = 0
        while common < min(target.count, item.cursor.scopes.count) && target[common] == item.cursor.scopes[common] {
            common += 1
        }
        for g in item.cursor.scopes[common...].reversed() { emit(.exitGroup(groupID(g))) }
        for g in target[common...] { emit(.enterGroup(groupID(g))) }
        if case .item = phase { phase = .item(.scanning) }
        item.cursor = Cursor(scopes: target, index: i, loops: 0)
        emitHighlight()
        armMove(from: now, firstOfCycle: i == 0)
        return true
    }
}

// MARK: - Hearing what changed

extension ScanEngine {
    /// How long after an action a change of the window's texts counts as its result.
    static let changeWindow = ScanDuration.seconds(2)
    /// At most this many changed texts are said, in screen order.
    static let changedTextsSaid = 3

    /// An action on the host's screen: the next snapshot whose texts changed within
    /// `changeWindow` is announced.
    mutating func watchForChanges(after element: String?) {
        guard settings.announceChanges else { return }
        changeWatch = (element, now + Self.changeWindow)
    }

    /// The texts of the window that changed since the action being watched for (not the
    /// element acted on, which the user chose and sees), as one announcement; nil when none
    /// did or no action is watched for. Once said, the watch ends: one per action.
    mutating func changedTexts(in newTree: ElementTree) -> String? {
        guard let watch = changeWatch else { return nil }
        guard started, presented == nil, now <= watch.until else { changeWatch = nil; return nil }
        var said: [String] = []
        for i in newTree.nodes.indices.dropFirst() where said.count < Self.changedTextsSaid {
            let n = newTree[i]
            guard n.isVisible, !n.hidden, n.id != watch.element, n.traits.contains(.staticText) || n.textEntry != nil,
                  let o = tree.index(of: n.id).map({ tree[$0] }) else { continue }
            let text = n.value ?? n.label ?? ""
            guard !text.isEmpty, text != (o.value ?? o.label ?? "") else { continue }
            said.append(text)
        }
        guard !said.isEmpty else { return nil }
        changeWatch = nil
        return said.joined(separator: ", ")
    }
}

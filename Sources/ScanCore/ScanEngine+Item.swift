/// Item mode: the cursor over the scan tree, groups with an exit item, loops, and
/// the three scanning styles.
extension ScanEngine {
    enum Stop: Hashable { case item(ScanItem), exit, screenMenu }

    /// Stops in one cycle of a scope: its items, the exit item inside a group, and with
    /// `alwaysTap` the menu item that ends every cycle.
    func cycleCount(_ scope: Int) -> Int {
        scan.groups[scope].items.count + (scope != 0 ? 1 : 0) + (settings.tapBehavior == .alwaysTap ? 1 : 0)
    }

    func stop(_ cursor: Cursor) -> Stop? {
        let items = scan.groups[cursor.scope].items
        if cursor.index < items.count { return .item(items[cursor.index]) }
        var k = cursor.index - items.count
        if cursor.scope != 0 {
            if k == 0 { return .exit }
            k -= 1
        }
        return k == 0 && settings.tapBehavior == .alwaysTap ? .screenMenu : nil
    }

    mutating func restartItemScan(at t: ScanInstant) {
        item = ItemState()
        history.removeAll()
        timers[.stepSelect] = nil
        guard cycleCount(0) > 0 else {
            stopItemScan(.nothingToScan)
            timers[.move] = nil
            emit(.scanStopped(.nothingToScan))
            return
        }
        // A new screen during the wait after a selection: the wait goes on, on its first item.
        if phase != .item(.waiting) { phase = .item(.scanning) }
        emit(.scanStarted)
        emitHighlight()
        armMove(from: t, firstOfCycle: true)
    }

    mutating func itemCommand(_ c: SwitchFilter.Command) {
        guard phase == .item(.scanning) else {
            // After scanning stopped, a press restarts it; it never selects a stale item.
            restartItemScan(at: now)
            return
        }
        switch c.action {
        case .select:
            if settings.style == .step { stepMove(by: 1) } else { selectCurrent() }
        case .next:
            if settings.style == .step { stepMove(by: 1) } else { move(by: 1) }
        case .previous:
            if settings.style == .step { stepMove(by: -1) } else { move(by: -1) }
        case .menu:
            if case .item(.element(let n))? = stop(item.cursor) { openMenu(.element(n)) } else { openMenu(.screen) }
        case .exit:
            if item.cursor.scopes.count > 1 { leaveGroup() }
        case .toggleMode:
            enterPointMode()
        case .pause:
            break
        }
    }

    /// Single-switch step scanning: a press moves; dwelling `stepSelectDelay` selects.
    mutating func stepMove(by delta: Int) {
        move(by: delta)
        timers[.stepSelect] = now + settings.stepSelectDelay
    }

    /// A move the user asked for: wraps, and does not count towards `loops`.
    mutating func move(by delta: Int) {
        if var menu = item.menu {
            let n = menu.items.count
            menu.index = ((menu.index + delta) % n + n) % n
            item.menu = menu
            emitHighlight()
            armMove(from: now, firstOfCycle: menu.index == 0)
            return
        }
        let n = cycleCount(item.cursor.scope)
        guard n > 0 else { return }
        item.cursor.index = ((item.cursor.index + delta) % n + n) % n
        emitHighlight()
        armMove(from: now, firstOfCycle: item.cursor.index == 0)
    }

    /// The auto-scan timer fired at `d`.
    mutating func autoStep(at d: ScanInstant) {
        presented?.moved = true
        history.append(d, item, phase)
        if var menu = item.menu {
            menu.index += 1
            if menu.index == menu.items.count {
                menu.loops += 1
                // Hold scanning goes round as long as the switch is held.
                if menu.loops >= settings.loops && settings.style != .hold {
                    closeMenu()
                    // A menu left unanswered was opened by a late press.
                    if adapts && mode == .item { adapt(.closedMenu, latency: nil) }
                    // Unanswered: scanning resumes where `resumeAt` says, as after an escape.
                    if settings.resumeAt == .first && mode == .item && !menu.target.isPoint {
                        resumeAfterAction(.first)
                    } else {
                        returnFromMenu(menu.target)
                    }
                    return
                }
                menu.index = 0
            }
            item.menu = menu
            emitHighlight()
            armMove(from: d, firstOfCycle: menu.index == 0)
            return
        }
        guard phase == .item(.scanning) else { return }
        item.cursor.index += 1
        if item.cursor.index >= cycleCount(item.cursor.scope) {
            item.cursor.loops += 1
            if item.cursor.loops >= settings.loops && settings.style != .hold {
                if item.cursor.scopes.count > 1 {
                    if settings.resumeAt == .first { resumeAfterAction(.first) } else { leaveGroup() }
                } else {
                    phase = .item(.stopped(.afterLoops))
                    emit(.scanStopped(.loopsExhausted))
                }
                return
            }
            item.cursor.index = 0
        }
        emitHighlight()
        armMove(from: d, firstOfCycle: item.cursor.index == 0)
    }

    mutating func selectCurrent() {
        timers[.stepSelect] = nil
        if item.menu != nil { selectMenuEntry(); return }
        if mode == .point { return }
        guard let s = stop(item.cursor) else { return }
        switch s {
        case .item(.element(let n)): selectTarget(.element(n))
        case .item(.group(let g)): enterGroup(g)
        case .exit: leaveGroup()
        case .screenMenu: openMenu(.screen)
        }
    }

    /// Selecting an element or a point: the tap behaviour decides.
    mutating func selectTarget(_ target: MenuTarget) {
        // A disabled element (reached with itemScope "all") cannot be tapped: its menu, which
        // has no Tap, offers what it can do instead, whatever the tap behaviour.
        if case .element(let n) = target, tree[n].traits.contains(.notEnabled) {
            openMenu(target)
            return
        }
        // A keyboard key types as soon as it is selected, whatever the tap behaviour: a menu
        // before every letter would double the presses (the `menu` switch still opens it).
        if case .element(let n) = target, tree[n].traits.contains(.keyboardKey) {
            performTap(target)
            return
        }
        // A text field is for typing: it opens the keyboard at once.
        if case .element(let n) = target, keyboardProvider != nil, presented == nil, isTextField(n) {
            openKeyboard(for: n)
            return
        }
        switch settings.tapBehavior {
        case .menu:
            openMenu(target)
        case .autoTap:
            setAutoTap(target)
            timers[.autoTap] = now + settings.autoTapTime
            timers[.move] = nil
        case .alwaysTap:
            performTap(target)
        }
    }

    mutating func enterGroup(_ g: Int) {
        emit(.enterGroup(groupID(g)))
        item.cursor.scopes.append(g)
        item.cursor.index = 0
        item.cursor.loops = 0
        emitHighlight()
        armMove(from: now, firstOfCycle: true)
        if settings.style == .step { timers[.stepSelect] = now + settings.stepSelectDelay }
    }

    /// Back to the parent scope with the group highlighted.
    mutating func leaveGroup() {
        let g = item.cursor.scope
        guard item.cursor.scopes.count > 1 else { return }
        emit(.exitGroup(groupID(g)))
        item.cursor.scopes.removeLast()
        item.cursor.index = scan.groups[g].indexInParent
        item.cursor.loops = 0
        emitHighlight()
        armMove(from: now, firstOfCycle: false)
    }

    /// Where the cursor goes after a tap or an action (`focusAfterTap`); after a selection
    /// (`selected`) the scan may then wait (`pauseAfterSelection`), its place highlighted.
    mutating func resumeAfterAction(_ focus: FocusAfterTap, selected: Bool = false) {
        guard mode == .item else { return }
        if !itemScanRuns || cycleCount(0) == 0 { restartItemScan(at: now); waitAfterSelection(selected); return }
        if focus == .first {
            while item.cursor.scopes.count > 1 {
                emit(.exitGroup(groupID(item.cursor.scope)))
                item.cursor.scopes.removeLast()
            }
            item.cursor.index = 0
        }
        item.cursor.loops = 0
        emitHighlight()
        armMove(from: now, firstOfCycle: item.cursor.index == 0)
        waitAfterSelection(selected)
    }

    /// After a selection, waits as `pauseAfterSelection` says: the highlight stays where
    /// scanning will resume.
    mutating func waitAfterSelection(_ selected: Bool) {
        guard selected, phase == .item(.scanning) else { return }
        switch settings.pauseAfterSelection {
        case .off: return
        case .seconds(let d): timers[.resume] = now + d
        case .untilPress: break
        }
        timers[.move] = nil
        timers[.stepSelect] = nil
        history.removeAll()
        phase = .item(.waiting)
        emit(.scanStopped(.afterSelection))
    }

    /// The wait after a selection is over (its time, or a press): scanning moves on from
    /// the item highlighted.
    mutating func resumeAfterWaiting() {
        timers[.resume] = nil
        phase = .item(.scanning)
        emit(.scanStarted)
        emitHighlight()
        armMove(from: now, firstOfCycle: item.cursor.index == 0)
    }

    mutating func emitHighlight() {
        let before = out.count
        emitHighlightEffect()
        if timesHighlights { adaptation.highlighted(at: now) }
        // Scanning by ear times the highlight by its label.
        if settings.speechPacing, out.count > before, case .highlight(_, _, _, let label, _, _) = out[out.count - 1].effect {
            pacedLabel = label ?? ""
        }
    }

    private mutating func emitHighlightEffect() {
        if let menu = item.menu {
            let entry = menu.items[menu.index]
            emit(.highlight(item: entry.name, kind: .menuEntry,
                            frame: targetFrame(menu.target), label: entry.title(settings),
                            context: targetID(menu.target)))
            return
        }
        guard let s = stop(item.cursor) else { return }
        switch s {
        case .item(.element(let n)):
            emit(.highlight(item: tree[n].id, kind: .element, frame: tree[n].frame,
                            label: spokenText(tree[n]), context: nil))
        case .item(.group(let g)):
            // Fields are read in place: copying a node would retain every one of them.
            if groupLabels.count != scan.groups.count && describesGroups { groupLabels = Array(repeating: nil, count: scan.groups.count) }
            let label: String
            if !describesGroups {
                label = ""
            } else if let known = groupLabels[g] {
                label = known
            } else {
                label = groupLabel(g)
                groupLabels[g] = label
            }
            emit(.highlight(item: groupID(g), kind: .group, frame: groupFrame(g), label: label, context: nil,
                            outline: scan.groups[g].outline))
        case .exit:
            let g = item.cursor.scope
            emit(.highlight(item: "exit", kind: .exit, frame: groupFrame(g), label: "Exit group", context: groupID(g),
                            outline: scan.groups[g].outline))
        case .screenMenu:
            emit(.highlight(item: "menu", kind: .menuEntry, frame: nil, label: "Menu", context: nil))
        }
    }

    /// Label, value and state words, as a screen reader would say them on arrival.
    func spokenText(_ node: ElementNode) -> String {
        // The common case, a plain label, costs no string building.
        if node.currentValue == nil && !node.traits.contains(.selected) && !node.traits.contains(.notEnabled) {
            return node.label ?? ""
        }
        var parts: [String] = []
        if let l = node.label, !l.isEmpty { parts.append(l) }
        if let v = node.currentValue, !v.isEmpty { parts.append(v) }
        if node.traits.contains(.selected) { parts.append("selected") }
        if node.traits.contains(.notEnabled) { parts.append("dimmed") }
        return parts.joined(separator: ", ")
    }

    /// A group's label: its own, else the first three member labels and how many more.
    /// Scanning by ear, a short name instead: its own label, else its heading's, else its
    /// first item's. Built by appending into one string: this runs on the first highlight
    /// of each group.
    func groupLabel(_ g: Int) -> String {
        let node = scan.groups[g].node
        if scan.groups[g].id == nil, let l = tree[node].label, !l.isEmpty { return l }
        let items = scan.groups[g].items
        if settings.speechPacing, let first = items.first {
            // A heading in its container, scanned or not ("Contacts", "Today").
            if scan.groups[g].id == nil {
                for c in tree[node].children where tree[c].traits.contains(.header) {
                    if let l = tree[c].label, !l.isEmpty { return l }
                }
            }
            switch first {
            case .element(let n): return tree[n].label ?? tree[n].id
            case .group(let sub): return groupLabel(sub)
            }
        }
        var text = ""
        for k in 0..<min(3, items.count) {
            if k > 0 { text += ", " }
            switch items[k] {
            case .element(let n): text += tree[n].label ?? tree[n].id
            case .group(let sub): text += groupLabel(sub)
            }
        }
        if items.count > 3 { text += " and \(items.count - 3) more" }
        return text
    }
}

extension ScanEngine {
    /// A group's id and frame: its container's, or its own for a group `grouping` made.
    public func groupID(_ g: Int) -> String { scan.groups[g].id ?? tree[scan.groups[g].node].id }
    func groupFrame(_ g: Int) -> Rect { scan.groups[g].frame ?? tree[scan.groups[g].node].frame }
}

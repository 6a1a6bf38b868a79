/// The scanner menu, scanned like a group: opening, closing and selecting. What each page
/// offers, and what its items do, is in MenuPage.swift.
extension ScanEngine {
    /// The page a menu for this target shows.
    func page(for target: MenuTarget) -> MenuPage {
        switch target {
        case .element, .point: return .element
        case .screen: return .screen
        case .page(let page): return page
        }
    }

    func menuItems(for target: MenuTarget) -> [MenuItem] { page(for: target).items(self, target) }

    func isEnabled(_ n: Int) -> Bool { !tree[n].traits.contains(.notEnabled) }

    /// Whether the target's element can be adjusted from its menu.
    func isAdjustable(_ target: MenuTarget) -> Bool {
        guard let n = targetNode(target) else { return false }
        return tree[n].adjustable != nil && isEnabled(n)
    }

    func targetNode(_ target: MenuTarget) -> Int? {
        switch target {
        case .element(let n): return n
        case .point(_, let n): return n
        case .screen, .page: return nil
        }
    }

    func targetID(_ target: MenuTarget) -> String? { targetNode(target).map { tree[$0].id } }

    func targetFrame(_ target: MenuTarget) -> Rect? {
        switch target {
        case .element(let n): return tree[n].frame
        case .point(let p, _): return Rect(x: p.x, y: p.y, width: 0, height: 0)
        case .screen, .page: return nil
        }
    }

    /// The node whose `onEscape` answers: the element, else its nearest accessibility
    /// ancestor (then visual ancestor) that declares one. On the screen menu: the current
    /// group's chain.
    func escapeHandler(for target: MenuTarget) -> Int? {
        var start: Int?
        switch target {
        case .element(let n), .point(_, let n?): start = n
        case .point(_, nil), .page: start = nil
        case .screen: start = scan.groups[item.cursor.scope].node
        }
        var cur = start
        while let c = cur {
            if tree[c].onEscape != nil { return c }
            let ax = c < scan.accessibilityParent.count ? Int(scan.accessibilityParent[c]) : -1
            cur = ax >= 0 ? ax : tree[c].parent
        }
        return nil
    }

    /// Opens the target's menu, or another `page` about it.
    mutating func openMenu(_ target: MenuTarget, page: MenuPage? = nil) {
        let items = (page ?? self.page(for: target)).items(self, target)
        item.menu = Menu(target: target, items: items, page: page)
        emit(.menuOpen(element: targetID(target), entries: items.map(\.name),
                       titles: items.map { $0.title(settings) }))
        emitHighlight()
        armMove(from: now, firstOfCycle: true)
        if settings.style == .step { timers[.stepSelect] = now + settings.stepSelectDelay }
    }

    mutating func closeMenu() {
        guard let menu = item.menu else { return }
        item.menu = nil
        timers[.stepSelect] = nil
        if mode == .point { timers[.move] = nil }
        emit(.menuClose(element: targetID(menu.target)))
    }

    /// After a menu closed without acting (exit, loops, a cancelled auto-tap): back to
    /// scanning where it was.
    mutating func returnFromMenu(_ target: MenuTarget) {
        switch target {
        case .point:
            restartSweeps()
        case .element, .screen, .page:
            if mode == .point { restartSweeps(); return }
            emitHighlight()
            armMove(from: now, firstOfCycle: item.cursor.index == 0)
        }
    }

    mutating func menuCommand(_ c: SwitchFilter.Command) {
        switch c.action {
        case .select:
            if settings.style == .step { stepMove(by: 1) } else { selectMenuEntry() }
        case .next:
            if settings.style == .step { stepMove(by: 1) } else { move(by: 1) }
        case .previous:
            if settings.style == .step { stepMove(by: -1) } else { move(by: -1) }
        case .menu, .exit:
            let target = item.menu!.target
            closeMenu()
            returnFromMenu(target)
        case .toggleMode:
            closeMenu()
            if mode == .point { leavePointMode() } else { enterPointMode() }
        case .pause:
            break
        }
    }

    mutating func selectMenuEntry() {
        guard let menu = item.menu else { return }
        timers[.stepSelect] = nil
        let perform = menu.items[menu.index].perform
        perform(&self, menu.target)
    }

    /// An item that leaves the menu open on itself: its dwell starts again.
    mutating func rearmMenu() {
        guard let menu = item.menu else { return }
        armMove(from: now, firstOfCycle: menu.index == 0)
    }

    /// A custom action chosen from its element's menu: the action is reported before the
    /// host events it raised.
    mutating func performCustomAction(_ i: Int, of n: Int, _ target: MenuTarget) {
        let action = tree[n].customActions[i]
        let outcome = runEffects(action.effects, of: n)
        out.insert(TimedEffect(now, .customAction(element: tree[n].id, action: action.name,
                                                  succeeded: !outcome.failed)),
                   at: outcome.firstOutputIndex)
        if outcome.failed { emit(.announce("\(action.name) failed")) } else { watchForChanges(after: tree[n].id) }
        finishAction(target, focus: .same, outcome: outcome, selected: true)
    }

    /// Whether typing goes into this element: selecting it opens the keyboard.
    func isTextField(_ n: Int) -> Bool {
        tree[n].textEntry != nil || tree[n].traits.contains(.searchField)
    }

    /// A text field was chosen: it is activated (the desktop gives it the focus), and the
    /// keyboard opens over the screen; Hide comes back to the field. Without a field: the
    /// keyboard types into whatever has the focus.
    mutating func openKeyboard(for n: Int?) {
        guard let provider = keyboardProvider else { return }
        var field: ElementNode?
        var id: String?
        if let n {
            field = tree[n]
            id = tree[n].id
            let outcome = activate(n)
            applyStructuralChanges(outcome)
        }
        let (screen, logic, effects) = provider.keyboard(for: field, screen: tree.screenSize)
        presented = PresentedScreen(logic: logic, beneath: tree, returnTo: id)
        if mode == .point { leavePointModeQuietly() }
        for e in effects { emit(e) }
        enterScreen(screen)
    }

    /// The message screen over the window (the screen menu's Message); Hide comes back to
    /// where scanning was.
    mutating func openMessages() {
        guard var provider = messageProvider else { return }
        let (screen, logic, effects) = provider.messageScreen(on: tree.screenSize)
        messageProvider = provider
        presented = PresentedScreen(logic: logic, beneath: tree, returnTo: nil)
        if mode == .point { leavePointModeQuietly() }
        for e in effects { emit(e) }
        enterScreen(screen)
    }

    /// Increment or decrement an adjustable element by one step or a page, clamped: at a
    /// bound nothing changes and nothing is reported.
    mutating func adjust(_ n: Int, direction: AdjustDirection) {
        guard let adj = tree[n].adjustable,
              let moved = adj.moved(by: direction.sign, page: direction.isPage) else { return }
        tree.update(n) { $0.adjustable = moved }
        emit(.adjust(element: tree[n].id, direction: direction, value: moved.displayValue))
        if !moved.onChange.isEmpty {
            let outcome = runEffects(moved.onChange, of: n)
            applyStructuralChanges(outcome)
        }
    }

    /// A tap: at an element's activation point (its own handler first), or at a point.
    mutating func performTap(_ target: MenuTarget) {
        switch target {
        case .element(let n) where presented != nil:
            // The presented screen's logic answered and replaced the screen: nothing of the
            // old node is compared.
            finishAction(target, focus: settings.focusAfterTap, outcome: activate(n), selected: true)
        case .element(let n):
            let before = (tree[n].label, tree[n].currentValue)
            let outcome = activate(n)
            // Say what the activation changed about the element: its value, else its label.
            if tree[n].currentValue != before.1, let v = tree[n].currentValue {
                emit(.announce(v))
            } else if tree[n].label != before.0, let l = tree[n].label {
                emit(.announce(l))
            }
            finishAction(target, focus: settings.focusAfterTap, outcome: outcome, selected: true)
        case .point(let p, _):
            let outcome = tapAt(p)
            applyStructuralChanges(outcome)
            restartSweeps()
        case .screen, .page:
            returnFromMenu(target)
        }
    }

    /// A gesture from the Gestures page, at the element's activation point or the chosen
    /// point. A scroll leaves the page open on itself, so that repeated presses keep
    /// scrolling; a drag first asks for the drop point in point mode.
    mutating func performGesture(_ g: Gesture, _ target: MenuTarget) {
        var at: Point
        switch target {
        case .element(let n): at = onScreenPoint(of: n)
        case .point(let p, _): at = p
        case .screen, .page: return
        }
        let id = targetID(target)
        if g.isScroll {
            if let before = item.menu?.scrolledAt { at = before }
            item.menu?.scrolledAt = at
            emit(.gesture(g, element: id, at: at, to: nil))
            rearmMenu()
            return
        }
        closeMenu()
        if g == .drag {
            let fromItems = mode == .item
            emit(.announce("Choose where to drop"))
            if fromItems { enterPointMode() } else { restartSweeps() }
            point.drag = PendingDrag(from: at, element: id, backToItems: fromItems)
            return
        }
        emit(.gesture(g, element: id, at: at, to: nil))
        finishAction(target, focus: .same, outcome: EffectOutcome(firstOutputIndex: out.count), selected: true)
    }

    /// Where a gesture on element n is made: its activation point, or where that is out of
    /// sight (a long page, scrolled), the middle of the part of it that shows: inside the
    /// screen and every container around it with a frame (a browser's page, its viewport),
    /// never on the toolbar above the page.
    func onScreenPoint(of n: Int) -> Point {
        let p = tree[n].activationPoint
        var shown = tree.screenSize
        var k: Int? = tree[n].parent
        while let a = k {
            let f = tree[a].frame
            if f.width > 0 && f.height > 0 { shown = Self.intersection(shown, f) }
            k = tree[a].parent
        }
        guard !shown.contains(p) else { return p }
        let visible = Self.intersection(shown, tree[n].frame)
        guard visible.width > 0, visible.height > 0 else { return p }
        return visible.center
    }

    /// The rectangle two share (empty, with no width or height, where they do not meet).
    static func intersection(_ a: Rect, _ b: Rect) -> Rect {
        let x0 = max(a.minX, b.minX), x1 = min(a.maxX, b.maxX)
        let y0 = max(a.minY, b.minY), y1 = min(a.maxY, b.maxY)
        return Rect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }

    mutating func finishAction(_ target: MenuTarget, focus: FocusAfterTap, outcome: EffectOutcome, selected: Bool = false) {
        applyStructuralChanges(outcome)
        if outcome.placed { return }
        if case .point = target { restartSweeps(); return }
        if mode == .point { restartSweeps(); return }
        if outcome.focusRequest != nil || outcome.screenChanged { return }
        resumeAfterAction(focus, selected: selected)
    }

    /// Faster or Slower: the auto-scan interval in steps of 0.1 s within its range, or in
    /// point mode the glide speed in steps of 10 points per second. Said, and reported for
    /// the runtime to keep.
    mutating func changeSpeed(faster: Bool) {
        if mode == .point {
            let range = ScanSettings.glideSpeedRange
            let next = min(max(settings.glideSpeed + (faster ? 10 : -10), range.lowerBound), range.upperBound)
            guard next != settings.glideSpeed else { emit(.announce(faster ? "Fastest" : "Slowest")); return }
            change(.glideSpeed(next))
            emit(.announce("Glide speed \(formatFixed(next, decimals: 0))"))
            return
        }
        let range = ScanSettings.autoScanIntervalRange
        let tenths = (settings.autoScanInterval.seconds * 10).rounded() + (faster ? -1 : 1)
        let next = min(max(tenths / 10, range.lowerBound), range.upperBound)
        guard ScanDuration.seconds(next) != settings.autoScanInterval else { emit(.announce(faster ? "Fastest" : "Slowest")); return }
        change(.autoScanInterval(.seconds(next)))
        emit(.announce("\(formatFixed(next, decimals: 1)) seconds"))
    }

    /// A setting changed from the menu: applied, and reported for the runtime to keep.
    mutating func change(_ c: SettingChange) {
        c.apply(to: &settings)
        emit(.settingChanged(c))
    }
}

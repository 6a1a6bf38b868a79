/// The scanner menu, scanned like a group. An element's (or a point's) menu: Tap, the
/// element's custom actions in declared order, Increment/Decrement, Escape, Point mode,
/// Settings and more, Exit. The screen menu (on a group, an exit item, alwaysTap's Menu
/// item, or "Settings and more"): Escape, Point mode, Settings, Keys, Windows, Exit; each of
/// its pages ends with Done.
extension ScanEngine {
    func menuEntries(for target: MenuTarget) -> [MenuEntry] {
        var entries: [MenuEntry] = []
        let owner = targetNode(target)
        switch target {
        case .element(let n):
            if keyboardProvider != nil && isTextField(n) && !tree[n].traits.contains(.notEnabled) { entries.append(.keyboard) }
            if !tree[n].traits.contains(.notEnabled) { entries.append(.tap) }
        case .point:
            entries.append(.tap)
        case .screen:
            break
        case .page(let page):
            return pageEntries(page) + [.done]
        }
        if let n = owner {
            let node = tree[n]
            entries += node.customActions.indices.map { MenuEntry.customAction($0) }
            if node.adjustable != nil && !node.traits.contains(.notEnabled) {
                entries += [.increment, .decrement]
            }
        }
        if escapeHandler(for: target) != nil { entries.append(.escape) }
        if target == .screen && keyboardProvider != nil && presented == nil { entries.append(.keyboard) }
        entries.append(mode == .point ? .itemMode : .pointMode)
        if target == .screen {
            entries += [.page(.settings), .page(.keys)]
            if !windows.isEmpty { entries.append(.page(.windows)) }
        } else {
            // One switch and the default tap behaviour reach menus of elements only: the
            // settings must be reachable from there too.
            entries.append(.screenMenu)
        }
        entries.append(.exit)
        return entries
    }

    func pageEntries(_ page: MenuPage) -> [MenuEntry] {
        switch page {
        case .settings:
            return [.faster, .slower, .speech, .sound]
        case .keys:
            return SpecialKey.allCases.map(MenuEntry.key)
        case .windows:
            // The other windows in the window manager's order (stable, unlike stacking),
            // then the active window's commands.
            var entries = windows.filter { !$0.active }.map(MenuEntry.switchTo)
            if let active = windows.first(where: \.active) {
                entries += [.windowCommand(.close, active), .windowCommand(.minimize, active),
                            .windowCommand(active.maximized ? .restore : .maximize, active)]
            }
            return entries
        }
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

    func entryName(_ e: MenuEntry, _ target: MenuTarget) -> String {
        switch e {
        case .tap: return "tap"
        case .customAction(let i): return targetNode(target).map { tree[$0].customActions[i].name } ?? ""
        case .increment: return "increment"
        case .decrement: return "decrement"
        case .escape: return "escape"
        case .pointMode: return "pointMode"
        case .itemMode: return "itemMode"
        case .exit: return "exit"
        case .screenMenu: return "screenMenu"
        case .page(.settings): return "settings"
        case .page(.keys): return "keys"
        case .page(.windows): return "windows"
        case .faster: return "faster"
        case .slower: return "slower"
        case .speech: return "speech"
        case .sound: return "sound"
        case .key(let k): return "key:" + k.rawValue
        case .switchTo(let w): return "window:" + w.id
        case .windowCommand(let c, _): return c.rawValue + "Window"
        case .done: return "done"
        case .keyboard: return "keyboard"
        }
    }

    func entryTitle(_ e: MenuEntry, _ target: MenuTarget) -> String {
        switch e {
        case .tap: return "Tap"
        case .customAction: return entryName(e, target)
        case .increment: return "Increment"
        case .decrement: return "Decrement"
        case .escape: return "Escape"
        case .pointMode: return "Point mode"
        case .itemMode: return "Item mode"
        case .exit: return "Exit menu"
        case .screenMenu: return "Settings and more"
        case .page(.settings): return "Settings"
        case .page(.keys): return "Keys"
        case .page(.windows): return "Windows"
        case .faster: return "Faster"
        case .slower: return "Slower"
        // What selecting does.
        case .speech: return settings.feedback.speech ? "Speech off" : "Speech on"
        case .sound: return settings.feedback.sound ? "Sound off" : "Sound on"
        case .key(let k):
            switch k {
            case .escape: return "Escape key"
            case .enter: return "Enter"
            case .tab: return "Tab"
            case .up: return "Up"
            case .down: return "Down"
            case .left: return "Left"
            case .right: return "Right"
            }
        case .switchTo(let w):
            let title = w.title.isEmpty ? "Untitled window" : w.title
            return w.minimized ? title + ", minimised" : title
        case .windowCommand(let c, _):
            switch c {
            case .activate: return "Switch to window"
            case .close: return "Close window"
            case .minimize: return "Minimise window"
            case .maximize: return "Maximise window"
            case .restore: return "Restore window size"
            }
        case .done: return "Done"
        case .keyboard: return "Keyboard"
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

    mutating func openMenu(_ target: MenuTarget) {
        let entries = menuEntries(for: target)
        item.menu = Menu(target: target, entries: entries)
        emit(.menuOpen(element: targetID(target), entries: entries.map { entryName($0, target) },
                       titles: entries.map { entryTitle($0, target) }))
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
        let target = menu.target
        let owner = targetNode(target)
        switch menu.entries[menu.index] {
        case .tap:
            closeMenu()
            performTap(target)
        case .customAction(let i):
            closeMenu()
            guard let n = owner else { return }
            let action = tree[n].customActions[i]
            let outcome = runEffects(action.effects, of: n)
            // The effect list is reported before the host events it raised.
            out.insert(TimedEffect(now, .customAction(element: tree[n].id, action: action.name,
                                                      succeeded: !outcome.failed)),
                       at: outcome.firstOutputIndex)
            if outcome.failed { emit(.announce("\(action.name) failed")) }
            finishAction(target, focus: .same, outcome: outcome, selected: true)
        case .increment, .decrement:
            guard let n = owner else { return }
            let up = menu.entries[menu.index] == .increment
            adjust(n, direction: up ? .increment : .decrement)
            // The menu stays open on the same entry, so repeated presses keep adjusting.
            armMove(from: now, firstOfCycle: menu.index == 0)
        case .escape:
            closeMenu()
            guard let h = escapeHandler(for: target) else { return }
            let outcome = runEffects(tree[h].onEscape ?? [], of: h)
            finishAction(target, focus: settings.resumeAt == .first ? .first : .same, outcome: outcome)
        case .screenMenu:
            closeMenu()
            openMenu(.screen)
        case .page(let page):
            closeMenu()
            openMenu(.page(page))
        case .faster, .slower:
            changeSpeed(faster: menu.entries[menu.index] == .faster)
            // The page stays open on the same entry, so repeated presses keep changing it.
            armMove(from: now, firstOfCycle: menu.index == 0)
        case .speech, .sound:
            let speech = menu.entries[menu.index] == .speech
            let on = speech ? !settings.feedback.speech : !settings.feedback.sound
            if speech { settings.feedback.speech = on } else { settings.feedback.sound = on }
            emit(.settingChanged(name: speech ? "speech" : "sound", value: on ? "true" : "false"))
            emit(.announce("\(speech ? "Speech" : "Sound") \(on ? "on" : "off")"))
            emitHighlight()
            armMove(from: now, firstOfCycle: menu.index == 0)
        case .done:
            closeMenu()
            returnFromMenu(.screen)
        case .key(let k):
            emit(.key(k))
            // The page stays open on the key, so that it can be sent again.
            armMove(from: now, firstOfCycle: menu.index == 0)
        case .switchTo(let w):
            closeMenu()
            emit(.window(.activate, window: w.id, title: w.title))
            // The window manager answers with another active window, whose screen then
            // replaces this one; until then (or if it refuses) scanning goes on here.
            returnFromMenu(.screen)
        case .windowCommand(let c, let w):
            closeMenu()
            emit(.window(c, window: w.id, title: w.title))
            returnFromMenu(.screen)
        case .pointMode:
            closeMenu()
            enterPointMode()
        case .itemMode:
            closeMenu()
            leavePointMode()
        case .exit:
            closeMenu()
            returnFromMenu(target)
        case .keyboard:
            closeMenu()
            if case .element(let n) = target { openKeyboard(for: n) } else { openKeyboard(for: nil) }
        }
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

    /// Increment or decrement an adjustable element by one step, clamped: at a bound
    /// nothing changes and nothing is reported.
    mutating func adjust(_ n: Int, direction: AdjustDirection) {
        guard let adj = tree[n].adjustable,
              let moved = adj.moved(by: direction == .increment ? 1 : -1) else { return }
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
            settings.glideSpeed = next
            emit(.settingChanged(name: "glideSpeed", value: formatFixed(next, decimals: 0)))
            emit(.announce("Glide speed \(formatFixed(next, decimals: 0))"))
            return
        }
        let range = ScanSettings.autoScanIntervalRange
        let tenths = (settings.autoScanInterval.seconds * 10).rounded() + (faster ? -1 : 1)
        let next = min(max(tenths / 10, range.lowerBound), range.upperBound)
        guard ScanDuration.seconds(next) != settings.autoScanInterval else { emit(.announce(faster ? "Fastest" : "Slowest")); return }
        settings.autoScanInterval = .seconds(next)
        emit(.settingChanged(name: "autoScanInterval", value: formatFixed(next, decimals: 1)))
        emit(.announce("\(formatFixed(next, decimals: 1)) seconds"))
    }
}

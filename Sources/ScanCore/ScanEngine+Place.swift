/// Keeping the user's place when the screen changes under the cursor: a new snapshot of a
/// live window (`replaceTree`), or a layout effect that changed the tree in place
/// (`rebuild`). Node indices mean nothing across snapshots; ids name the same widget in
/// every one. So the place is written down as ids before the change and looked up after it.
extension ScanEngine {
    /// A stop of the item cycle, by ids.
    enum Anchor: Hashable {
        /// An element, or a group by its container node.
        case node(String)
        /// The exit item of the group with this container.
        case exit(String)
        /// The `alwaysTap` menu stop that ends a cycle (nil: the top level's).
        case screenMenu(String?)
    }

    /// Where the cursor is, as ids: its stop first, then where it goes if that vanished —
    /// the items after it in its cycle, then after each enclosing group going outward,
    /// then the items before it, nearest first.
    struct Place {
        var anchors: [Anchor] = []
        /// The entered groups' containers, outermost first.
        var scopes: [String] = []
    }

    /// A menu target, by ids.
    enum TargetRef: Hashable {
        case element(String)
        case screen
        case page(MenuPage)
        case point(Point, element: String?)
    }

    /// Where each node sits in the scan tree: the group and index of its item (an element,
    /// or a group by its container); group -1 where it is no item.
    struct Slot { var group: Int32 = -1; var index: Int32 = 0 }

    // MARK: - replaceTree

    /// The same screen in a new snapshot: the cursor, the menu and a pending auto-tap stay
    /// on their elements, found by id. What is shown is emitted again only if it changed,
    /// and the scan timer is re-armed only if the highlighted item did (a dwell in progress
    /// must not restart on every change of the window).
    mutating func keepPlace(in newTree: ElementTree) {
        // Before the change, read from the old tree.
        let shown = started && !paused && (item.menu != nil || (mode == .item && itemScanRuns)) ? currentHighlight() : nil
        let here = place(of: item.cursor)
        let saved = point.savedItem.map { place(of: $0.cursor) }
        let menuRef = item.menu.map { ref($0.target) }
        let menuID = item.menu.flatMap { targetID($0.target) }
        let menuNames = item.menu.map { $0.items.map(\.name) } ?? []
        let autoTapRef = autoTapTarget.map(ref)

        show(newTree)
        scan = ScanTreeBuilder.build(tree, settings: settings)
        groupLabels = []
        history.removeAll()
        guard started else { item = ItemState(); point.savedItem = nil; return }
        let slots = scanSlots()

        var autoTapDropped = false
        if let r = autoTapRef {
            let target = resolve(r, slots)
            setAutoTap(target)
            autoTapDropped = target == nil
        }
        var menuClosed = false
        if let r = menuRef {
            if let target = resolve(r, slots) {
                item.menu!.target = target
            } else {
                item.menu = nil
                timers[.stepSelect] = nil
                if mode == .point { timers[.move] = nil }
                emit(.menuClose(element: menuID))
                menuClosed = true
            }
        }
        if let saved {
            relocateSaved(saved, slots)
        }
        let scannable = cycleCount(0) > 0
        let found = scannable ? find(here, slots) : nil

        if mode == .point {
            // The sweep goes on over the new tree; the item cursor waits, kept in place.
            item.cursor = found?.cursor ?? Cursor()
            refreshMenu(names: menuNames, shown: shown)
            if !paused && (menuClosed || autoTapDropped) { restartSweeps() }
            return
        }
        guard itemScanRuns else {
            item.cursor = Cursor()
            if scannable {
                // Items again: scanning starts at the first (once resumed, if paused).
                switch phase {
                case .item(.stopped(.nothingToScan)): restartItemScan(at: now)
                case .paused(.item(.nothingToScan)): phase = .paused(.item(nil))
                default: break
                }
            }
            return
        }
        guard let found else {
            if let menu = item.menu {
                item.menu = nil
                emit(.menuClose(element: targetID(menu.target)))
            }
            setAutoTap(nil)
            timers[.move] = nil; timers[.stepSelect] = nil
            item.cursor = Cursor()
            stopItemScan(.nothingToScan)
            // While paused, resuming says it.
            if !paused { emit(.scanStopped(.nothingToScan)) }
            return
        }
        var cursor = found.cursor
        let scopes = scopeIDs(cursor)
        if scopes == here.scopes { cursor.loops = item.cursor.loops }
        if !paused {
            // Groups the element left or joined (a group dissolved, or the cursor moved out).
            var common = 0
            while common < min(scopes.count, here.scopes.count) && scopes[common] == here.scopes[common] { common += 1 }
            for id in here.scopes[common...].reversed() { emit(.exitGroup(id)) }
            for id in scopes[common...] { emit(.enterGroup(id)) }
        }
        item.cursor = cursor
        if item.menu != nil { refreshMenu(names: menuNames, shown: shown); return }
        guard !paused else { return }
        let after = currentHighlight()
        if let after, after != shown { emit(after) }
        // Waiting to auto-tap: no scan timer runs.
        if case .item(.autoTap) = phase { return }
        if autoTapDropped || !sameItem(after, shown) {
            timers[.stepSelect] = nil
            armMove(from: now, firstOfCycle: cursor.index == 0)
        }
    }

    /// Another screen (a dialog opened, another window became active): any menu closes,
    /// the new screen's name is announced, and scanning starts over at its first item (in
    /// point mode: a new sweep). The screen an open menu closes back to is not announced:
    /// the user never left it, and a dialog that the menu's item opens is the first name
    /// heard.
    /// `returningTo`: an element of the new screen where item scanning starts instead (the
    /// field a closed keyboard typed into), if it is there.
    mutating func enterScreen(_ newTree: ElementTree, returningTo id: String? = nil) {
        let menuWasOpen = item.menu != nil, tapWasPending = autoTapTarget != nil
        let menuID = item.menu.flatMap { targetID($0.target) }
        let backFromMenu = tree.isMenu && newTree.screenID == screenUnderMenu
        if newTree.isMenu { if !tree.isMenu { screenUnderMenu = tree.screenID } } else { screenUnderMenu = nil }
        show(newTree)
        scan = ScanTreeBuilder.build(tree, settings: settings)
        groupLabels = []
        history.removeAll()
        setAutoTap(nil); timers[.stepSelect] = nil
        point.savedItem = nil  // back in item mode, scanning starts at the first item
        guard started else { item = ItemState(); return }
        if menuWasOpen { item.menu = nil; emit(.menuClose(element: menuID)) }
        if !backFromMenu, tree.count > 0, let title = tree[tree.root].label, !title.isEmpty { emit(.announce(title)) }
        if paused {
            // Resuming starts at the first item (or a new sweep).
            item = ItemState()
            if mode == .item { phase = .paused(.item(cycleCount(0) > 0 ? nil : .nothingToScan)) }
            timers[.move] = nil
            if mode == .point { point = PointState() }
            return
        }
        if mode == .point {
            let ranOut = !point.running && !menuWasOpen && !tapWasPending
            item = ItemState()
            timers[.move] = nil
            if ranOut { emit(.scanStarted) }
            restartSweeps()
            return
        }
        if let id, let n = tree.index(of: id), scan.locate(node: n) != nil {
            item = ItemState()
            phase = .item(.scanning)
            history.removeAll()
            timers[.stepSelect] = nil
            emit(.scanStarted)
            _ = focus(on: n)
            return
        }
        restartItemScan(at: now)
    }

    /// The open menu after a change: the same entries keep their place and timer; changed
    /// entries (actions added or gone, the element disabled) are offered anew.
    /// The Windows page is not about the screen: it keeps the windows it opened with (its
    /// commands name the window they act on), so nothing moves under the user.
    mutating func refreshMenu(names before: [String], shown: Effect?) {
        guard var menu = item.menu else { return }
        let shownPage = menu.page ?? page(for: menu.target)
        let items = shownPage.keepsItems ? menu.items : shownPage.items(self, menu.target)
        let names = items.map(\.name)
        menu.items = items
        if names != before {
            menu.index = names.firstIndex(of: before[menu.index]) ?? 0
            menu.loops = 0
            item.menu = menu
            guard !paused else { return }
            emit(.menuOpen(element: targetID(menu.target), entries: names, titles: items.map { $0.title(settings) }))
            emitHighlight()
            armMove(from: now, firstOfCycle: menu.index == 0)
            return
        }
        item.menu = menu
        guard !paused else { return }
        if let after = currentHighlight(), after != shown { emit(after) }
    }

    // MARK: - places

    /// The cursor written down as ids, from the current scan.
    func place(of c: Cursor) -> Place {
        var p = Place(scopes: scopeIDs(c))
        switch stop(c) {
        case .item(let i)?: p.anchors.append(.node(itemID(i)))
        case .exit?: p.anchors.append(.exit(groupID(c.scope)))
        case .screenMenu?: p.anchors.append(.screenMenu(c.scopes.count > 1 ? groupID(c.scope) : nil))
        case nil: break
        }
        // After it: the rest of its cycle, then the rest of each enclosing cycle.
        var from = c.index + 1
        for level in c.scopes.indices.reversed() {
            let g = c.scopes[level], items = scan.groups[g].items
            if from < items.count { for k in from..<items.count { p.anchors.append(.node(itemID(items[k]))) } }
            from = scan.groups[g].indexInParent + 1
        }
        // Before it, nearest first: earlier members, then the group holding them, and so on out.
        var upTo = c.index
        for level in c.scopes.indices.reversed() {
            let g = c.scopes[level], items = scan.groups[g].items
            for k in stride(from: min(upTo, items.count) - 1, through: 0, by: -1) { p.anchors.append(.node(itemID(items[k]))) }
            if level > 0 { p.anchors.append(.node(groupID(g))) }
            upTo = scan.groups[g].indexInParent
        }
        return p
    }

    func itemID(_ i: ScanItem) -> String {
        switch i {
        case .element(let n): return tree[n].id
        case .group(let g): return groupID(g)
        }
    }

    /// The entered groups' containers, outermost first.
    func scopeIDs(_ c: Cursor) -> [String] {
        c.scopes.dropFirst().map { groupID($0) }
    }

    /// The first stop of a place that the current scan still has (`exact`: its own stop),
    /// else the first item. The caller makes sure the top level has a stop.
    func find(_ p: Place, _ slots: [Slot]) -> (cursor: Cursor, exact: Bool) {
        for (k, a) in p.anchors.enumerated() {
            if let c = cursor(at: a, slots) { return (c, k == 0) }
        }
        return (Cursor(), false)
    }

    func cursor(at a: Anchor, _ slots: [Slot]) -> Cursor? {
        switch a {
        case .node(let id):
            guard let n = tree.index(of: id), slots[n].group >= 0 else {
                // A group `grouping` made: found by its id, which its members give it.
                guard let sub = madeGroup(id) else { return nil }
                let g = scan.groups[sub].parent ?? 0
                return Cursor(scopes: scan.ancestors(of: g) + [g], index: scan.groups[sub].indexInParent)
            }
            let g = Int(slots[n].group)
            return Cursor(scopes: scan.ancestors(of: g) + [g], index: Int(slots[n].index))
        case .exit(let id):
            guard let sub = group(of: id, slots) else { return nil }
            return Cursor(scopes: scan.ancestors(of: sub) + [sub], index: scan.groups[sub].items.count)
        case .screenMenu(let id):
            guard settings.tapBehavior == .alwaysTap else { return nil }
            guard let id else { return Cursor(scopes: [0], index: cycleCount(0) - 1) }
            guard let sub = group(of: id, slots) else { return nil }
            return Cursor(scopes: scan.ancestors(of: sub) + [sub], index: cycleCount(sub) - 1)
        }
    }

    /// The group whose container has this id, or a group `grouping` made with this id, if
    /// it is one in the current scan.
    func group(of id: String, _ slots: [Slot]) -> Int? {
        guard let n = tree.index(of: id), slots[n].group >= 0,
              case .group(let sub) = scan.groups[Int(slots[n].group)].items[Int(slots[n].index)] else { return madeGroup(id) }
        return sub
    }

    /// The group `grouping` made with this id (ids of such groups are not nodes').
    func madeGroup(_ id: String) -> Int? {
        guard id.hasPrefix("group:") else { return nil }
        return scan.groups.indices.dropFirst().first { scan.groups[$0].id == id }
    }

    /// Every item's position, by node, for finding many ids at once.
    func scanSlots() -> [Slot] {
        var slots = [Slot](repeating: Slot(), count: tree.count)
        for (g, group) in scan.groups.enumerated() {
            for (i, item) in group.items.enumerated() {
                let n: Int
                switch item {
                case .element(let e): n = e
                case .group(let sub):
                    // A group `grouping` made stands for no node.
                    if scan.groups[sub].id != nil { continue }
                    n = scan.groups[sub].node
                }
                slots[n] = Slot(group: Int32(g), index: Int32(i))
            }
        }
        return slots
    }

    /// Item mode's place kept while point mode runs (entering item mode goes back there).
    mutating func relocateSaved(_ p: Place, _ slots: [Slot]) {
        guard var saved = point.savedItem else { return }
        saved.menu = nil
        if cycleCount(0) > 0 {
            let found = find(p, slots)
            if scopeIDs(found.cursor) != p.scopes { saved.cursor.loops = 0 }
            saved.cursor.scopes = found.cursor.scopes
            saved.cursor.index = found.cursor.index
            point.savedItem = saved
        } else {
            // Nothing to scan: leaving point mode starts item scanning again.
            point.savedItem = nil
        }
    }

    // MARK: - menu targets

    func ref(_ t: MenuTarget) -> TargetRef {
        switch t {
        case .element(let n): return .element(tree[n].id)
        case .screen: return .screen
        case .page(let p): return .page(p)
        case .point(let p, let n): return .point(p, element: n.map { tree[$0].id })
        }
    }

    /// The target in the current tree; nil if its element is gone (an element target must
    /// also still be scanned: the cursor that opened the menu is on it).
    func resolve(_ r: TargetRef, _ slots: [Slot]) -> MenuTarget? {
        switch r {
        case .screen:
            return .screen
        case .page(let p):
            return .page(p)
        case .element(let id):
            guard let n = tree.index(of: id), slots[n].group >= 0,
                  scan.groups[Int(slots[n].group)].items[Int(slots[n].index)] == .element(n) else { return nil }
            return .element(n)
        case .point(let p, nil):
            return .point(p, element: nil)
        case .point(let p, let id?):
            guard let n = tree.index(of: id) else { return nil }
            return .point(p, element: n)
        }
    }

    // MARK: - what is shown

    /// What `emitHighlight` would show now, without showing it.
    mutating func currentHighlight() -> Effect? {
        let count = out.count
        let shown = adaptation
        emitHighlight()
        adaptation = shown
        guard out.count > count else { return nil }
        return out.removeLast().effect
    }

    /// Whether two highlights show the same item (its frame or label may differ).
    func sameItem(_ a: Effect?, _ b: Effect?) -> Bool {
        switch (a, b) {
        case let (.highlight(i1, k1, _, _, c1, _)?, .highlight(i2, k2, _, _, c2, _)?): return i1 == i2 && k1 == k2 && c1 == c2
        case (nil, nil): return true
        default: return false
        }
    }
}

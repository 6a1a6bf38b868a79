#if canImport(Glibc)
import Glibc
#endif
import CAtspi
import ScanCore

// Visiting one accessible: its node, its children, its label, value and traits.
extension Walker {
    /// Visits one node; returns its index, or nil when it is left out. `basics`: its
    /// states, name and child count where they were read ahead.
    mutating func visit(_ a: AccessibleRef, parent: Int, depth: Int, basics: Basics? = nil) throws(AtspiCallError) -> Int? {
        guard nodes.count < Self.maxNodes, depth < Self.maxDepth else { truncated = true; return nil }
        visited += 1
        let states = basics?.states ?? Atspi.states(a)
        guard NodeBuilder.isShown(states, shownState: shownState, inDocument: inDocument) else { return nil }
        let id = Self.id(of: a)
        if states.has(ATSPI_STATE_TRANSIENT) { known.transient.insert(id) }
        // A widget keeps its role for life; libatspi never caches `transient` objects (GTK 3's
        // tree-view cells), so remembering it saves them a round trip.
        let role: AtspiRole
        if let r = known.roles[id] { role = AtspiRole(rawValue: r) } else {
            if let r = basics?.role { role = r } else { role = try Atspi.role(a) }
            known.roles[id] = role.rawValue
        }
        var kind = RoleMapping.kind(of: role, inDocument: inDocument, selectable: states.has(ATSPI_STATE_SELECTABLE))
        let childCount: Int, rawName: String
        if let basics {
            (childCount, rawName) = (basics.childCount, basics.name)
        } else {
            childCount = try Atspi.childCount(a)
            rawName = try Atspi.name(a)
        }
        // GTK 3 pads a menu item's name before its accelerator ("Open...      ").
        let name = RoleMapping.trimmed(rawName)
        let facts = ReadFacts(id: id, role: role, states: states, name: name, childCount: childCount, parent: parent, inDocument: inDocument)

        // An open menu (a combo box's list, a submenu) is scanned on its own.
        // A menu with nothing showing in it, in a menu bar or a menu, is a closed menu: its
        // title is a control that opens it. One that shows its items is open. A closed menu
        // anywhere else is a popup that is not up (Firefox keeps its popups in the window,
        // `showing`, with nothing drawn): left out.
        if kind == .popupMenu {
            let kids = childCount > 0 ? try Atspi.children(a, count: childCount) : []
            if kids.contains(where: { Atspi.states($0).has(shownState) }) {
                openPopups.append((a, [id]))
            } else {
                kind = RoleMapping.isMenuTitleParent(nodes[parent].role) ? .control : .ignored
            }
        }

        kind = RoleMapping.finalKind(kind, role: role, editable: states.has(ATSPI_STATE_EDITABLE), childCount: childCount,
                                     hasValue: { Atspi.hasInterface(a, .value) })

        guard seen.insert(id).inserted else { return nil }
        switch kind {
        case .ignored:
            return nil
        case .container(let flatten):
            let node = NodeBuilder.container(facts, flatten: flatten)
            let index = nodes.count
            nodes.append(node)
            let mark = pendingExtents.count
            // A page's blocks are outlined around what they hold (their children's union):
            // one request fewer for each, and no outline wider than its content.
            if !node.flatten && !inDocument { pendingExtents.append((index, a)) }
            let outer = inDocument, outerChooser = inFileChooser
            if RoleMapping.isDocument(role) { inDocument = true }
            if role == ATSPI_ROLE_FILE_CHOOSER { inFileChooser = true }
            defer { inDocument = outer; inFileChooser = outerChooser }
            if inDocument && (!node.flatten || RoleMapping.isDocument(role)) { pageContainers.append(index) }
            let kids = RoleMapping.readsChildrenLive(role) ? try Atspi.liveChildren(a) : try Atspi.children(a, count: childCount)
            let ahead = readAhead(kids)
            readActionsAhead(kids, ahead: ahead)
            readValuesAhead(kids, ahead: ahead)
            for (i, c) in kids.enumerated() {
                guard let k = try visit(c, parent: index, depth: depth + 1, basics: ahead[i]) else { continue }
                nodes[index].children.append(k)
                if nodes[k].role == Self.rootPaneRole { rootPanes.append((k, a)) }
            }
            // A container with nothing kept inside says nothing to a switch user.
            if nodes[index].children.isEmpty {
                nodes.removeLast(nodes.count - index)
                pendingExtents.removeLast(pendingExtents.count - mark)
                needsArea = needsArea.filter { $0 < index }
                pageContainers.removeAll { $0 >= index }
                return nil
            }
            return index
        case .textBlock(let heading):
            return try visitTextBlock(a, facts, heading: heading, depth: depth)
        case .staticText, .heading, .image:
            let value = RoleMapping.readsValueAsText(kind, role: role) ? try valueText(a, role: role) : nil
            guard let node = NodeBuilder.text(facts, kind: kind, value: value, description: Atspi.description(a), roleWords: roleWords(a))
            else { return nil }
            return appendElement(node, a)
        case .control, .adjustable, .textEntry:
            let actions = try actionNames(a, id: id)
            let editable = kind == .textEntry
            let built = NodeBuilder.control(
                facts, kind: kind, actions: actions, traits: traits(role: role, kind: kind, states: states, a: a),
                label: try label(a, id: id, name: name, childCount: childCount),
                textEntry: editable ? textEntryKind(a, facts) : nil,
                description: RoleMapping.readsHint(role) ? Atspi.description(a) : nil,
                looksLikeSearch: editable && childLooksLikeSearch(a, childCount: childCount))
            let node = built.node, deferred = built.reading
            handles[id] = LiveHandle(ref: a, label: node.label, primaryAction: built.primaryAction, actions: actions, editable: editable)
            // Menus that hang off this control and are open now (a combo box's list).
            if childCount > 0 && RoleMapping.hostsPopups(role) {
                for c in try Atspi.children(a, count: childCount) where Atspi.states(c).has(shownState) {
                    let r = try Atspi.role(c)
                    if RoleMapping.kind(of: r) == .popupMenu { openPopups.append((c, [node.id, Self.id(of: c)])) }
                }
            }
            if childCount > 0 && RoleMapping.holdsContent(role) {
                let w = nodes.count
                nodes.append(LiveNode(id: node.id + "-content", role: "content", flatten: true, parent: parent))
                var element = node
                element.parent = w
                nodes[w].children.append(appendElement(element, a, reading: deferred))
                for c in try Atspi.children(a, count: childCount) {
                    if let k = try visit(c, parent: w, depth: depth + 1) { nodes[w].children.append(k) }
                }
                return w
            }
            return appendElement(node, a, reading: deferred)
        case .window, .popupMenu:
            return nil   // mapped to containers above
        }
    }

    /// A paragraph, label, heading, or a page's list item or table cell that holds nodes:
    /// see-through, so that the links, fields and buttons in it are items of their own
    /// beside the others around it. One that holds only text is read as one text: a heading
    /// is a heading, a label its name.
    mutating func visitTextBlock(_ a: AccessibleRef, _ facts: ReadFacts, heading: Bool, depth: Int) throws(AtspiCallError) -> Int? {
        let index = nodes.count
        nodes.append(NodeBuilder.textBlock(facts))
        let mark = pendingExtents.count
        for c in try Atspi.children(a, count: facts.childCount) {
            if let k = try visit(c, parent: index, depth: depth + 1) { nodes[index].children.append(k) }
        }
        let acts = nodes[(index + 1)...].contains(where: { n in
            n.isElement && !n.traits.intersects(Self.staticTraits)
        })
        // A heading that holds a link stays a heading (its role): it still starts a group.
        if acts { return index }
        // Only text inside: the block is one text, where it has a name; else its pieces.
        guard let leaf = NodeBuilder.textBlockLeaf(facts, heading: heading) else {
            return nodes[index].children.isEmpty ? drop(from: index, mark: mark) : index
        }
        _ = drop(from: index, mark: mark)
        return appendElement(leaf, a)
    }

    /// A control's action names, read once in its life.
    mutating func actionNames(_ a: AccessibleRef, id: String) throws(AtspiCallError) -> [String] {
        if let names = known.actions[id] { return names }
        let names = Atspi.hasInterface(a, .action) ? try Atspi.actionNames(a) : []
        known.actions[id] = names
        return names
    }

    /// What a text field takes, read once in its life (its attributes are a call of their own).
    mutating func textEntryKind(_ a: AccessibleRef, _ f: ReadFacts) -> TextEntryKind {
        if let k = known.textKinds[f.id] { return k }
        let k = RoleMapping.textEntryKind(role: f.role, multiLine: f.states.has(ATSPI_STATE_MULTI_LINE),
                                          singleLine: f.states.has(ATSPI_STATE_SINGLE_LINE),
                                          attributes: Atspi.attributes(a, RoleMapping.textEntryAttributes),
                                          inFileChooser: inFileChooser)
        known.textKinds[f.id] = k
        return k
    }

    /// Forgets the nodes from `index` on (a subtree just visited); nil.
    mutating func drop(from index: Int, mark: Int) -> Int? {
        for n in nodes[index...] where n.isElement { elements[n.id] = nil; handles[n.id] = nil; seen.remove(n.id) }
        seen.remove(nodes[index].id)
        nodes.removeLast(nodes.count - index)
        pendingExtents.removeLast(pendingExtents.count - mark)
        needsArea = needsArea.filter { $0 < index }
        pageContainers.removeAll { $0 >= index }
        return nil
    }

    /// On a web page, a heading and what follows it, up to the next heading, make a group
    /// called by the heading: a band of the page, one below the other. What comes before
    /// the first heading stays as it was. Only the container's own items count (those of
    /// see-through blocks in it included); landmarks and lists inside are items.
    mutating func sectionByHeadings(_ container: Int) {
        var items: [Int] = []
        func expand(_ k: Int) {
            let n = nodes[k]
            if n.flatten && n.role != "content" && n.role != Self.headingRole { n.children.forEach(expand) } else { items.append(k) }
        }
        nodes[container].children.forEach(expand)
        let isHeading = items.map { nodes[$0].role == Self.headingRole }
        guard isHeading.contains(true) else { return }
        let plan = Self.sections(isHeading: isHeading)
        var children: [Int] = []
        for part in plan {
            let members = part.map { items[$0] }
            guard members.count > 1, isHeading[part[0]] else { children += members; continue }
            let h = nodes[members[0]]
            let s = nodes.count
            nodes.append(LiveNode(id: h.id + "-section", role: "section", label: h.label, parent: container, children: members))
            children.append(s)
        }
        nodes[container].children = children
    }

    /// How items split into groups at headings: runs of item positions, each but the first
    /// starting at a heading (the first too, when the items start with one).
    static func sections(isHeading: [Bool]) -> [[Int]] {
        var out: [[Int]] = []
        for (i, h) in isHeading.enumerated() {
            if h || out.isEmpty { out.append([i]) } else { out[out.count - 1].append(i) }
        }
        return out
    }

    func traits(role: AtspiRole, kind: RoleKind, states: StateBits, a: AccessibleRef) -> TraitSet {
        let link = kind == .control
            && RoleMapping.isLink(role: role, hasHyperlink: role == ATSPI_ROLE_PUSH_BUTTON && !browser && Atspi.hasInterface(a, .hyperlink), browser: browser)
        return RoleMapping.traits(role: role, kind: kind, isLink: link, checked: states.has(ATSPI_STATE_CHECKED),
                                  pressed: states.has(ATSPI_STATE_PRESSED), selected: states.has(ATSPI_STATE_SELECTED))
    }

    /// Name, else what labels it, else the text of its first labelled child (a list row),
    /// else its description, else what its role is called.
    mutating func label(_ a: AccessibleRef, id: String, name: String, childCount: Int) throws(AtspiCallError) -> String {
        if !name.isEmpty && !RoleMapping.isTypeName(name) {
            // "7 7" over a label "7": the label once ("bye bye" over no such label stays).
            if let half = RoleMapping.doubledHalf(name), childCount > 0, childCount < 50,
               try Atspi.children(a, count: childCount).contains(where: { (try? RoleMapping.trimmed(Atspi.name($0))) == half }) {
                return half
            }
            return name
        }
        // The relation is remembered, not the text: the label's name is read each time.
        let targets = known.labelledBy[id] ?? Atspi.labelledBy(a)
        known.labelledBy[id] = targets
        // GTK 4 labels a button by its image ("GtkImage") or twice by the same label ("7 7").
        var names: [String] = []
        for t in targets {
            guard let n = try? Atspi.name(t) else { continue }
            let name = RoleMapping.trimmed(n)
            if !name.isEmpty && !RoleMapping.isTypeName(name) && !names.contains(name) { names.append(name) }
        }
        let by = names.joined(separator: " ")
        if !by.isEmpty { return by }
        if childCount > 0, childCount < 50 {
            for c in try Atspi.children(a, count: childCount) {
                let n = RoleMapping.trimmed(try Atspi.name(c))
                if !n.isEmpty && !RoleMapping.isTypeName(n) { return n }
            }
        }
        let d = RoleMapping.trimmed(Atspi.description(a))
        if !d.isEmpty && !RoleMapping.isTypeName(d) { return d }
        let r = roleWords(a)
        return r.isEmpty ? "unlabelled" : r
    }

    /// What the role is called in the user's language, asked once per role.
    mutating func roleWords(_ a: AccessibleRef) -> String {
        let role = (try? Atspi.role(a)) ?? ATSPI_ROLE_UNKNOWN
        if let w = known.roleWords[role.rawValue] { return w }
        let w = Atspi.localizedRoleName(a)
        known.roleWords[role.rawValue] = w
        return w
    }

    /// A slider's or spin button's range and step are read once; its current value every
    /// time. A scroll bar's range grows with what it scrolls: read whole every time.
    mutating func value(_ a: AccessibleRef, id: String, role: AtspiRole) throws(AtspiCallError) -> Atspi.ValueRange? {
        if let v = valuesAhead[id] {
            if RoleMapping.keepsRange(role) && known.ranges[id] == nil { known.ranges[id] = .some(v) }
            return v
        }
        if role == ATSPI_ROLE_SCROLL_BAR { return try Atspi.value(a) }
        guard let known = known.ranges[id] else {
            let v = try Atspi.value(a)
            self.known.ranges[id] = .some(v)
            return v
        }
        guard var v = known else { return nil }
        guard let current = try Atspi.currentValue(a) else { return nil }
        v.current = current
        return v
    }

    func valueText(_ a: AccessibleRef, role: AtspiRole) throws(AtspiCallError) -> String? {
        if role == ATSPI_ROLE_TEXT { return Atspi.text(a).flatMap { $0.isEmpty ? nil : $0 } }
        let v: Atspi.ValueRange?
        if let ahead = valuesAhead[Self.id(of: a)] { v = ahead } else { v = try Atspi.value(a) }
        guard let v, v.max > v.min else { return nil }
        let percent = ((v.current - v.min) / (v.max - v.min) * 100).rounded()
        return "\(Int(percent))%"
    }

    func childLooksLikeSearch(_ a: AccessibleRef, childCount: Int) -> Bool {
        guard childCount > 0, childCount < 8, let kids = try? Atspi.children(a, count: childCount) else { return false }
        return kids.contains { ((try? Atspi.name($0)) ?? "").contains("find") }
    }

    static func decimals(of step: Double) -> Int {
        var d = 0
        var s = step
        while d < 6 && abs(s - s.rounded()) > 1e-9 { s *= 10; d += 1 }
        return d
    }
}

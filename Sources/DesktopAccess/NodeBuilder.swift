import CAtspi
import ScanCore

/// What was read of one accessible: the facts its node is built from.
struct ReadFacts {
    var id: String
    var role: AtspiRole
    var states: StateBits
    /// Its name, trimmed (GTK 3 pads a menu item's name before its accelerator).
    var name: String
    var childCount = 0
    /// Where the node hangs in the walk's list.
    var parent: Int
    /// Inside a web page (nodes outside its viewport are kept, marked offscreen).
    var inDocument = false
}

/// Builds a window's nodes from what Walker read of each accessible, with no AT-SPI call of
/// its own: every rule of what a widget becomes is tested without a display
/// (`NodeBuilderTests`). Walker decides what to read and when; this decides the node.
enum NodeBuilder {
    /// Whether an accessible is on the screen: nothing more is read of one that is not.
    /// `shownState`: GTK 4 marks widgets `visible`, not `showing`. On a web page a node
    /// outside the viewport is kept (scrolled to when reached).
    static func isShown(_ states: StateBits, shownState: AtspiStateType, inDocument: Bool) -> Bool {
        (states.has(shownState) || (inDocument && states.has(ATSPI_STATE_VISIBLE))) && !states.has(ATSPI_STATE_DEFUNCT)
    }

    static func base(_ f: ReadFacts) -> LiveNode {
        var node = LiveNode(id: f.id, role: Atspi.roleName(of: f.role))
        node.parent = f.parent
        node.offscreen = f.inDocument && !f.states.has(ATSPI_STATE_SHOWING)
        return node
    }

    /// A container: see-through (`flatten`) where its role only arranges and it has no
    /// name of its own; GTK 4 names unnamed containers after their type ("GtkFrame").
    static func container(_ f: ReadFacts, flatten: Bool) -> LiveNode {
        var node = base(f)
        let named = RoleMapping.isTypeName(f.name) ? "" : f.name
        node.flatten = flatten && named.isEmpty
        node.label = named
        node.modal = f.states.has(ATSPI_STATE_MODAL)
        return node
    }

    /// A text, heading or image, read and not acted on; nil when it says nothing.
    /// `description` and `roleWords` are asked for only when the name does not do.
    static func text(_ f: ReadFacts, kind: RoleKind, value: String?, description: @autoclosure () -> String,
                     roleWords: @autoclosure () -> String) -> LiveNode? {
        var node = base(f)
        node.label = f.name.isEmpty || RoleMapping.isTypeName(f.name) ? RoleMapping.trimmed(description()) : f.name
        if RoleMapping.isTypeName(node.label) { node.label = "" }
        node.value = value
        guard !node.label.isEmpty || value != nil else { return nil }
        // A page's list bullets and punctuation between links ("•", ", ") say nothing.
        if f.inDocument && value == nil && !node.label.contains(where: { $0.isLetter || $0.isNumber }) { return nil }
        if node.label.isEmpty { node.label = roleWords() }
        node.isElement = true
        node.traits.insert(kind == .heading ? .header : kind == .image ? .image : .staticText)
        if !f.states.has(ATSPI_STATE_SENSITIVE) { node.traits.insert(.notEnabled) }
        return node
    }

    /// A paragraph, label or heading that holds other nodes: see-through, so that what is
    /// in it joins the items around it.
    static func textBlock(_ f: ReadFacts) -> LiveNode {
        var node = base(f)
        node.flatten = true
        node.label = RoleMapping.isTypeName(f.name) ? "" : f.name
        return node
    }

    /// A text block that holds only text, as one text: a heading is a heading, a label its
    /// name. Nil when it has no name (its pieces are kept instead).
    static func textBlockLeaf(_ f: ReadFacts, heading: Bool) -> LiveNode? {
        guard !f.name.isEmpty, !RoleMapping.isTypeName(f.name) else { return nil }
        var node = base(f)
        node.label = f.name
        node.isElement = true
        node.traits.insert(heading ? .header : .staticText)
        if !f.states.has(ATSPI_STATE_SENSITIVE) { node.traits.insert(.notEnabled) }
        return node
    }

    /// A control's node, the action a tap performs, and what is read with the others at the
    /// end of the walk.
    struct Control {
        var node: LiveNode
        /// Index of the AT-SPI action a tap performs; nil: focus and click instead.
        var primaryAction: Int?
        var reading: Walker.Deferred?
    }

    /// The action a tap performs: the first of RoleMapping's primary names it has, else its
    /// only action; a text field's none (a tap focuses it: "activate" would submit it).
    static func primaryAction(_ actions: [String], editable: Bool) -> Int? {
        guard !editable else { return nil }
        for want in RoleMapping.primaryActions {
            if let i = actions.firstIndex(where: { $0.lowercased() == want.lowercased() }) { return i }
        }
        return actions.count == 1 && !RoleMapping.isInternalAction(actions[0]) ? 0 : nil
    }

    /// A control, an adjustable control or a text field. `traits`: RoleMapping's for its
    /// role and states; `textEntry`: what a field takes (nil for other controls);
    /// `description`: read where the role shows a hint; `looksLikeSearch`: a field with a
    /// "find" child.
    static func control(_ f: ReadFacts, kind: RoleKind, actions: [String], traits: TraitSet, label: String,
                        textEntry: TextEntryKind? = nil, description: String? = nil, looksLikeSearch: Bool = false) -> Control {
        var node = base(f)
        node.isElement = true
        let editable = kind == .textEntry
        let primary = primaryAction(actions, editable: editable)
        // An adjustable control's value, a field's text: read with the extents.
        var reading: Walker.Deferred? = kind == .adjustable ? .value(f.role, acts: !actions.isEmpty) : nil
        var seen = Set<String>()
        for (i, n) in actions.enumerated() where i != primary && !RoleMapping.isInternalAction(n) && !(editable && n == "activate") {
            if seen.insert(n).inserted { node.customActions.append(n) }
        }
        node.traits = traits
        let documentBody = RoleMapping.isDocumentBody(f.role)
        if editable {
            node.textEntry = textEntry
            // A password field's text is bullets at best: it is not read; a document's is
            // its paragraphs', which have the Text interface it lacks.
            if textEntry != .password && !documentBody { reading = .text }
            node.respondsToUserInteraction = true
            if looksLikeSearch { node.traits.insert(.searchField) }
        }
        // (LibreOffice's document body never says it is sensitive.)
        if !f.states.has(ATSPI_STATE_SENSITIVE) && !documentBody { node.traits.insert(.notEnabled) }
        // Controls without actions (GTK 4's check boxes, list rows) are still acted on: by a
        // click. An adjustable one's value decides (`applyValue`).
        if kind != .adjustable && (node.traits.isEmpty || (actions.isEmpty && !editable)) {
            node.respondsToUserInteraction = true
        }
        node.label = label
        if RoleMapping.readsHint(f.role), let d = description, !d.isEmpty, d != label { node.hint = d }
        return Control(node: node, primaryAction: primary, reading: reading)
    }
}

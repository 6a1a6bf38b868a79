/// One stop of the item-mode cursor: an element, or a group that selecting enters.
public enum ScanItem: Hashable, Sendable {
    case element(Int)   // node index
    case group(Int)     // index into ScanTree.groups
}

public struct ScanGroup: Hashable, Sendable {
    /// The container node (the root for group 0, the top level); for a group the
    /// `grouping` setting made, the container of its first member.
    public var node: Int
    public var items: [ScanItem]
    public var parent: Int?
    public var indexInParent: Int
    /// A group the `grouping` setting made has its own id ("group:" and its first
    /// element's id) and frame (its members' union); nil: the node's.
    public var id: String? = nil
    public var frame: Rect? = nil
    /// What is drawn when its frame would hold other items (docs/BEHAVIOUR.md, "Groups a person can see"): rectangles whose
    /// union holds its members and no other item's activation point, clear of the outlines
    /// of the groups before it at its level; nil: the frame.
    public var outline: [Rect]? = nil
}

/// The scan structure of a screen: group 0 is the top level.
/// Built once per tree; a scan step is then an index increment.
public struct ScanTree: Hashable, Sendable {
    public var groups: [ScanGroup]
    /// Accessibility parent of each node (-1 where none: the root, unreachable nodes).
    public var accessibilityParent: [Int32]

    public var top: ScanGroup { groups[0] }

    /// Where an element or a group's node sits now, for keeping the cursor across rebuilds.
    public func locate(node: Int) -> (group: Int, index: Int)? {
        for (g, group) in groups.enumerated() {
            for (i, item) in group.items.enumerated() {
                switch item {
                case .element(let n) where n == node: return (g, i)
                case .group(let sub) where groups[sub].node == node: return (g, i)
                default: continue
                }
            }
        }
        return nil
    }

    /// Group indices from the top level down to `g` (excluded).
    public func ancestors(of g: Int) -> [Int] {
        var chain: [Int] = []
        var cur = groups[g].parent
        while let c = cur { chain.append(c); cur = groups[c].parent }
        return chain.reversed()
    }
}

/// Builds a ScanTree: accessibility membership (custom `elements` lists claim nodes),
/// exclusion (hidden, elementsHidden, invisible, modal), reading order (blocks kept
/// together, geometric rows or document order, sort priority), scope filtering and the
/// combined/separate/automatic item structure.
public struct ScanTreeBuilder {
    let tree: ElementTree
    let settings: ScanSettings
    var excluded: [Bool]
    var claimed: [Bool]
    var docIndex: [Int32]
    var axParent: [Int32]
    var onModalPath: [Bool] = []
    var screenModal: Int?
    var groups: [ScanGroup] = []

    public static func build(_ tree: ElementTree, settings: ScanSettings) -> ScanTree {
        var b = ScanTreeBuilder(tree: tree, settings: settings)
        var scan = Regrouping.apply(b.run(), tree: tree, settings: settings)
        GroupOutlines.assign(&scan, tree: tree)
        return scan
    }

    init(tree: ElementTree, settings: ScanSettings) {
        self.tree = tree
        self.settings = settings
        let n = tree.count
        excluded = Array(repeating: false, count: n)
        claimed = Array(repeating: false, count: n)
        docIndex = Array(repeating: 0, count: n)
        axParent = Array(repeating: -1, count: n)
    }

    mutating func run() -> ScanTree {
        guard tree.count > 0 else {
            return ScanTree(groups: [ScanGroup(node: 0, items: [], parent: nil, indexInParent: 0)],
                            accessibilityParent: [])
        }
        visualPass()
        accessibilityPass()
        groups = [ScanGroup(node: tree.root, items: [], parent: nil, indexInParent: 0)]
        var top: [ScanItem]
        if excluded[tree.root] {
            top = []
        } else {
            top = containerItems(tree.root)
        }
        // A screen that is one group would cost every selection an extra press to enter it:
        // its members are the top level instead.
        if top.count == 1, case .group(let only) = top[0] {
            top = groups[only].items
            groups[only].items = []
        }
        adopt(top, into: 0)
        return ScanTree(groups: groups, accessibilityParent: axParent)
    }

    /// Preorder over the visual tree: document order, and hiding that inherits downward
    /// (`hidden` and `visible: false` take the subtree, `elementsHidden` the descendants).
    private mutating func visualPass() {
        var stack = [tree.root]
        var order: Int32 = 0
        // Nodes are read field by field in place: copying one retains all its fields.
        while let i = stack.popLast() {
            docIndex[i] = order; order += 1
            if tree[i].hidden || !tree[i].isVisible { excluded[i] = true }
            let hideChildren = excluded[i] || tree[i].elementsHidden
            if let list = tree[i].elements { for m in list { claimed[m] = true } }
            for c in tree[i].children.reversed() {
                if hideChildren { excluded[c] = true }
                stack.append(c)
            }
        }
    }

    /// Walks the accessibility tree once: accessibility parents, and the last modal view
    /// with `modalScope: screen`, which excludes everything outside its subtree.
    private mutating func accessibilityPass() {
        onModalPath = Array(repeating: false, count: tree.count)
        var stack = [tree.root]
        while let i = stack.popLast() {
            if excluded[i] { continue }
            if tree[i].viewIsModal && tree[i].modalScope == .screen && i != tree.root {
                // Preorder with reversed pushes visits in document order: the last wins.
                screenModal = i
            }
            if tree[i].isAccessibilityElement { continue }
            for m in rawMembers(i).reversed() {
                axParent[m] = Int32(i)
                stack.append(m)
            }
        }
        if let m = screenModal {
            var cur = m
            while axParent[cur] >= 0 { onModalPath[cur] = true; cur = Int(axParent[cur]) }
            onModalPath[cur] = true
        }
    }

    private func rawMembers(_ i: Int) -> [Int] {
        if let list = tree[i].elements { return list }
        let children = tree[i].children
        // Filtered only when needed: most containers keep all their children, and a new
        // array per container was a measurable part of building a large screen.
        return children.contains { claimed[$0] } ? children.filter { !claimed[$0] } : children
    }

    /// Accessibility members of a container after exclusion and the modal rules.
    private func members(_ i: Int) -> [Int] {
        var list = rawMembers(i)
        if list.contains(where: { excluded[$0] }) { list = list.filter { !excluded[$0] } }
        if let modal = screenModal, onModalPath[i], i != modal {
            list = list.filter { onModalPath[$0] }
        }
        // Seed semantics: a modal view hides its siblings only; the last modal sibling wins.
        if let last = list.last(where: { tree[$0].viewIsModal && tree[$0].modalScope == .siblings }) {
            list = [last]
        }
        return list
    }

    private func isBlock(_ i: Int) -> Bool {
        if tree[i].isAccessibilityElement || tree[i].shouldGroupChildren || tree[i].elements != nil
            || tree[i].sortPriority != nil || tree[i].viewIsModal { return true }
        switch tree[i].navigationStyle {
        case .combined: return true
        case .automatic: return settings.groupItems
        case .separate: return false
        }
    }

    /// Members in reading order: the explicit list, or blocks (transparent
    /// containers lifted) in natural order, then by descending sort priority.
    private func orderedMembers(_ i: Int) -> [Int] {
        if tree[i].elements != nil { return members(i) }
        var blocks: [Int] = []
        collectBlocks(i, into: &blocks)
        switch tree.naturalOrder {
        case .geometric: blocks = geometricOrder(blocks)
        case .application: if settings.order != .application { blocks = geometricOrder(blocks) }
        case .document: break
        }
        if blocks.contains(where: { tree[$0].sortPriority != nil }) {
            blocks = blocks.enumerated().sorted { a, b in
                let pa = tree[a.element].sortPriority ?? 0, pb = tree[b.element].sortPriority ?? 0
                return pa != pb ? pa > pb : a.offset < b.offset
            }.map(\.element)
        }
        return blocks
    }

    private func collectBlocks(_ i: Int, into blocks: inout [Int]) {
        for m in members(i) {
            if isBlock(m) { blocks.append(m) } else { collectBlocks(m, into: &blocks) }
        }
    }

    /// Rows top to bottom, left to right within a row (right to left with `order:
    /// screenRightToLeft`): a block joins the current row when its top is within half the
    /// smaller height of the row's first block.
    private func geometricOrder(_ blocks: [Int]) -> [Int] {
        guard blocks.count > 1 else { return blocks }
        // Sort plain keys: a closure over the builder would copy it for every sort.
        var keyed = blocks.map { (frame: tree[$0].frame, doc: docIndex[$0], node: $0) }
        keyed.sort { a, b in
            if a.frame.minY != b.frame.minY { return a.frame.minY < b.frame.minY }
            if a.frame.minX != b.frame.minX { return a.frame.minX < b.frame.minX }
            return a.doc < b.doc
        }
        var result: [Int] = []
        result.reserveCapacity(keyed.count)
        var row: [(frame: Rect, doc: Int32, node: Int)] = []
        var first = Rect.zero
        let rightToLeft = settings.order == .screenRightToLeft
        func flush() {
            row.sort { a, b in
                if rightToLeft && a.frame.maxX != b.frame.maxX { return a.frame.maxX > b.frame.maxX }
                if a.frame.minX != b.frame.minX { return a.frame.minX < b.frame.minX }
                if a.frame.minY != b.frame.minY { return a.frame.minY < b.frame.minY }
                return a.doc < b.doc
            }
            for r in row { result.append(r.node) }
            row.removeAll(keepingCapacity: true)
        }
        for b in keyed {
            let f = b.frame
            if row.isEmpty {
                row.append(b); first = f
            } else if abs(f.minY - first.minY) < min(f.height, first.height) / 2 {
                row.append(b)
            } else {
                flush(); row.append(b); first = f
            }
        }
        flush()
        return result
    }

    private mutating func containerItems(_ i: Int) -> [ScanItem] {
        var items: [ScanItem] = []
        for m in orderedMembers(i) {
            if tree[m].isAccessibilityElement {
                if passesScope(m) { items.append(.element(m)) }
            } else {
                items.append(contentsOf: groupOrSplice(m))
            }
        }
        return items
    }

    private mutating func groupOrSplice(_ i: Int) -> [ScanItem] {
        let items = containerItems(i)
        let grouped: Bool
        switch tree[i].navigationStyle {
        case .combined: grouped = true
        case .automatic: grouped = settings.groupItems
        case .separate: grouped = false
        }
        // A group of one is that one; a group of none disappears.
        guard grouped && items.count >= 2 else { return items }
        let g = groups.count
        groups.append(ScanGroup(node: i, items: [], parent: nil, indexInParent: 0))
        adopt(items, into: g)
        return [.group(g)]
    }

    private mutating func adopt(_ items: [ScanItem], into g: Int) {
        for (k, item) in items.enumerated() {
            if case .group(let sub) = item { groups[sub].parent = g; groups[sub].indexInParent = k }
        }
        groups[g].items = items
    }

    /// `itemScope: interactive` keeps what a switch user can act on: control traits,
    /// actions, handlers, or a tap at the activation point that
    /// reaches a tap handler.
    private func passesScope(_ i: Int) -> Bool {
        if settings.itemScope == .all { return true }
        if tree[i].traits.contains(.notEnabled) { return false }
        if let responds = tree[i].respondsToUserInteraction { return responds }
        return Self.isInteractive(tree[i], at: i, in: tree)
    }

    /// The node is borrowed: a copy would retain every field, for every element scanned.
    public static func isInteractive(_ n: borrowing ElementNode, at i: Int, in tree: ElementTree) -> Bool {
        if n.traits.intersects(TraitSet.controls) || !n.customActions.isEmpty || n.adjustable != nil
            || n.onActivate != nil || n.onEscape != nil || n.onTap != nil { return true }
        if n.isVirtual || n.hasExplicitActivationPoint || !n.children.isEmpty {
            guard let hit = tree.hitTest(n.activationPoint) else { return false }
            return tree.tapHandler(from: hit) != nil
        }
        return tree.tapHandler(from: i) != nil
    }
}

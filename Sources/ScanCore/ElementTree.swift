public enum NavigationStyle: String, CaseIterable, Sendable { case automatic, separate, combined }
public enum ModalScope: String, CaseIterable, Sendable { case siblings, screen }
/// How a container's children are ordered: by rows of the screen, as listed, or as the
/// application's toolkit lists them (a live window), which the `order` setting turns into
/// screen order unless it says `application`.
public enum NaturalOrder: String, CaseIterable, Sendable { case geometric, document, application }
/// Whose the containers are: groups the layout's author chose, or a toolkit's (a live
/// window), whose long levels are scanned by rows.
public enum Containers: String, CaseIterable, Sendable { case chosen, toolkit }
/// What is typed into a text field, which decides the keyboard's text rules: `text` is
/// prose (sentences: capitals at their starts, a space after a full stop and after a
/// prediction); `line` a one-line field (a search, a name: no automatic capitals, a bare
/// full stop, a space after a prediction only once the next word begins); `fileName`, `url`,
/// `email` and `number` (no automatic capitals, every character bare, nothing learned; a
/// number starts on the digits and predicts no words); a `password` (nothing predicted,
/// shown or learned) or a `terminal` (nothing learned or shown).
public enum TextEntryKind: String, CaseIterable, Sendable {
    case text, line, fileName, url, email, number, password, terminal

    /// Sentences are written here.
    public var isProse: Bool { self == .text }
    /// What is typed is not shown, said or named in any stream.
    public var isSecret: Bool { self == .password || self == .terminal }
    /// Words typed are learned (where the user lets them be).
    public var learnsWords: Bool { self == .text || self == .line }
    /// Words are predicted.
    public var predictsWords: Bool { self != .password && self != .number }
}

/// One node of a screen: visual containment (children, paint order) and the accessibility
/// attributes of the iOS model. Frames and activation points are already resolved.
public struct ElementNode: Sendable {
    public var id: String
    public var isVirtual = false
    public var isVisible = true
    public var isAccessibilityElement = false
    public var label: String?
    public var value: String?
    public var hint: String?
    public var traits = TraitSet()
    public var frame = Rect.zero
    public var activationPoint = Point(x: 0, y: 0)
    public var hasExplicitActivationPoint = false
    public var hidden = false
    public var elementsHidden = false
    public var viewIsModal = false
    public var modalScope = ModalScope.siblings
    public var shouldGroupChildren = false
    public var navigationStyle = NavigationStyle.automatic
    public var children: [Int] = []
    public var parent: Int?
    /// Custom order (`elements`), as node indices.
    public var elements: [Int]?
    public var sortPriority: Double?
    public var respondsToUserInteraction: Bool?
    public var customActions: [CustomAction] = []
    public var adjustable: Adjustable?
    public var onActivate: [LayoutEffect]?
    public var onTap: [LayoutEffect]?
    public var onEscape: [LayoutEffect]?
    /// A field text is typed into (the live desktop's entries; a layout's search fields):
    /// selecting it opens the keyboard.
    public var textEntry: TextEntryKind?

    public init(id: String) { self.id = id }

    /// The text a switch user hears on arrival: label, value (computed for adjustables).
    public var currentValue: String? { adjustable?.displayValue ?? value }
}

/// A screen: nodes in document (pre-)order, index 0 the root. Indices are stable for the
/// life of the tree; the id index maps layout ids to them.
public struct ElementTree: Sendable {
    public var screenID: String
    public var screenSize: Rect
    public var naturalOrder: NaturalOrder
    /// The containers are a toolkit's (the live desktop, or its snapshot: `containers:
    /// toolkit`), not groups someone chose: under `grouping: layout` a level longer than
    /// `Regrouping.longLevel` items is scanned by the rows it shows on the screen.
    public var containersAreToolkits = false
    /// An open menu scanned alone (a combo box's list, a context menu): when it closes, the
    /// screen it opened over is not announced again, since the user never left it.
    public var isMenu = false
    /// What is chosen on this screen is private (the keyboard over a password, a terminal or
    /// a focus it cannot see): the person is shown and told it as usual, but streams that
    /// leave the screen (JSON lines, the socket) name none of its elements.
    public var isSecret = false
    public private(set) var nodes: [ElementNode]
    /// Ids to node indices; the first node wins an id.
    private var ids: [String: Int]
    /// Each node's frame united with its whole subtree's: a hit test skips a subtree whose
    /// bounds miss the point (children may lie outside their parent's frame).
    private var bounds: [Rect] = []
    /// For nodes with many children (a long list, a big grid): which children may hold a
    /// point, so that a hit test looks at a few instead of all (`cost` taps every element).
    private var childBands: [Int: ChildBands] = [:]

    /// `ids` maps ids to node indices when the caller has built it already (the loader
    /// does, to find duplicates); otherwise it is built here.
    public init(screenID: String, size: (width: Double, height: Double),
                naturalOrder: NaturalOrder = .geometric, nodes: [ElementNode], ids: [String: Int]? = nil) {
        self.screenID = screenID
        self.screenSize = Rect(x: 0, y: 0, width: size.width, height: size.height)
        self.naturalOrder = naturalOrder
        self.nodes = nodes
        if let ids {
            self.ids = ids
        } else {
            var built = [String: Int](minimumCapacity: nodes.count)
            for (i, n) in nodes.enumerated() where built[n.id] == nil { built[n.id] = i }
            self.ids = built
        }
        bounds = nodes.map(\.frame)
        // Children before parents, whatever order the nodes come in.
        var order: [Int] = []
        var stack = nodes.isEmpty ? [] : [0]
        var seen = [Bool](repeating: false, count: nodes.count)
        while let i = stack.popLast() {
            guard i < nodes.count, !seen[i] else { continue }
            seen[i] = true
            order.append(i)
            stack.append(contentsOf: nodes[i].children)
        }
        for i in order.reversed() {
            for c in nodes[i].children where c < nodes.count { bounds[i] = bounds[i].union(bounds[c]) }
        }
        for i in nodes.indices where nodes[i].children.count >= ChildBands.minimumChildren { indexChildren(of: i) }
    }

    private mutating func indexChildren(of i: Int) {
        childBands[i] = ChildBands(area: bounds[i], children: nodes[i].children.map { $0 < bounds.count ? bounds[$0] : .zero })
    }

    public var root: Int { 0 }
    public var count: Int { nodes.count }
    /// Borrows the node in place, so reading one field does not copy all of them.
    /// Inlinable: a `_read` accessor called from another module is a coroutine whose frame
    /// is allocated on the heap, once per access.
    @inlinable public subscript(i: Int) -> ElementNode {
        _read { yield nodes[i] }
    }
    public func index(of id: String) -> Int? { ids[id] }

    /// Changes a node in place (layout effects). Ids are not changeable, so the index holds.
    public mutating func update(_ i: Int, _ body: (inout ElementNode) -> Void) {
        let id = nodes[i].id
        body(&nodes[i])
        nodes[i].id = id
        // A frame may have changed: this node's bounds and its ancestors'.
        var cur: Int? = i
        while let c = cur, c < bounds.count {
            bounds[c] = nodes[c].children.reduce(nodes[c].frame) { $0.union(bounds[$1]) }
            if childBands[c] != nil { indexChildren(of: c) }
            cur = nodes[c].parent
        }
    }

    /// Visual hit test: the topmost visible, non-virtual node whose frame contains the point.
    /// Later children paint above earlier ones and children above their parent; accessibility
    /// hiding does not matter.
    public func hitTest(_ p: Point) -> Int? {
        hitTest(p, in: root)
    }

    private func hitTest(_ p: Point, in i: Int) -> Int? {
        // Iterative over siblings, recursive over depth (depth is bounded by the loader).
        // Fields are read in place: copying a node would retain every one of them.
        guard nodes[i].isVisible, i >= bounds.count || bounds[i].contains(p) else { return nil }
        if let index = childBands[i] {
            for position in index.candidates(at: p).reversed() {
                if let hit = hitTest(p, in: nodes[i].children[Int(position)]) { return hit }
            }
        } else {
            for c in nodes[i].children.reversed() {
                if let hit = hitTest(p, in: c) { return hit }
            }
        }
        if !nodes[i].isVirtual && nodes[i].frame.contains(p) { return i }
        return nil
    }

    /// The node whose `onTap` handles a tap that hit `i`: it, or the nearest visual ancestor
    /// with a handler, as a touch travels up the responder chain.
    public func tapHandler(from i: Int) -> Int? {
        var cur: Int? = i
        while let c = cur {
            if nodes[c].onTap != nil { return c }
            cur = nodes[c].parent
        }
        return nil
    }
}

/// A node's children by bands along one axis (the one they are spread along: rows of a
/// list along y, a toolbar along x): each band lists, in child order, the children whose
/// bounds reach into it. A point's band holds every child that may contain it.
struct ChildBands: Sendable {
    static let minimumChildren = 64
    let alongX: Bool
    let start: Double
    let bandWidth: Double
    let bands: [[Int32]]

    init(area: Rect, children: [Rect]) {
        // The axis along which a child covers the smaller share of the area.
        let shareX = children.reduce(0.0) { $0 + $1.width } / max(area.width, 1e-9)
        let shareY = children.reduce(0.0) { $0 + $1.height } / max(area.height, 1e-9)
        alongX = shareX < shareY
        start = alongX ? area.minX : area.minY
        let extent = max(alongX ? area.width : area.height, 1e-9)
        let count = min(4096, children.count)
        bandWidth = extent / Double(count)
        var bands = [[Int32]](repeating: [], count: count)
        for (position, r) in children.enumerated() {
            let lo = alongX ? r.minX : r.minY, hi = alongX ? r.maxX : r.maxY
            // A hair wider than the child, so that rounding never leaves out a point on its edge.
            let first = max(0, min(count - 1, Int(((lo - start) / bandWidth - 1e-6).rounded(.down))))
            let last = max(first, min(count - 1, Int(((hi - start) / bandWidth + 1e-6).rounded(.down))))
            for b in first...last { bands[b].append(Int32(position)) }
        }
        self.bands = bands
    }

    /// The children that may contain `p`, in child order.
    func candidates(at p: Point) -> [Int32] {
        let v = alongX ? p.x : p.y
        let b = max(0, min(bands.count - 1, Int(((v - start) / bandWidth).rounded(.down))))
        return bands[b]
    }
}

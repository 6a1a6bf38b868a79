public enum NavigationStyle: String, CaseIterable, Sendable { case automatic, separate, combined }
public enum ModalScope: String, CaseIterable, Sendable { case siblings, screen }
public enum NaturalOrder: String, CaseIterable, Sendable { case geometric, document }
/// What is typed into a text field: plain text, a password (nothing predicted, nothing
/// learned) or a terminal (nothing learned).
public enum TextEntryKind: String, CaseIterable, Sendable { case text, password, terminal }

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
    public private(set) var nodes: [ElementNode]
    /// Ids to node indices; the first node wins an id.
    private var ids: [String: Int]
    /// Each node's frame united with its whole subtree's: a hit test skips a subtree whose
    /// bounds miss the point (children may lie outside their parent's frame).
    private var bounds: [Rect] = []

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
        for c in nodes[i].children.reversed() {
            if let hit = hitTest(p, in: c) { return hit }
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

#if canImport(Glibc)
import Glibc
#endif
import CAtspi
import ScanCore

/// One node of a live window, as read: what becomes an ElementNode, compared between reads
/// so that an unchanged window is not handed to the engine again.
struct LiveNode: Equatable {
    var id: String
    var role: String
    var label = ""
    var value: String?
    var hint: String?
    var traits = TraitSet()
    var frame: Rect?
    var isElement = false
    var flatten = false
    var modal = false
    var respondsToUserInteraction: Bool?
    var customActions: [String] = []
    /// What a tap does beyond acting on the widget (the Close entry: Escape).
    var onActivate: [LayoutEffect]?
    /// On a web page, outside its viewport: scrolled into view when the scan reaches it.
    var offscreen = false
    var adjustable: Adjustable?
    var textEntry: TextEntryKind?
    var parent: Int?
    var children: [Int] = []
}

/// What reads of a window keep for the next ones (see Walker.known).
struct WalkCache {
    var actions: [String: [String]] = [:]
    var labelledBy: [String: [AccessibleRef]] = [:]
    /// nil where the widget turned out to have no Value.
    var ranges: [String: Atspi.ValueRange?] = [:]
    var roleWords: [UInt32: String] = [:]
    var roles: [String: UInt32] = [:]
    /// Objects that were `transient` (never cached by libatspi), read ahead in batches.
    var transient: Set<String> = []
    /// Whether an object inside a displaced root pane is GTK's (its extents are right).
    var gtk: [String: Bool] = [:]
    /// How far an element inside a displaced root pane is moved onto where it shows.
    var moves: [String: Point] = [:]
    /// What each text field takes (its attributes are a call of their own; they do not change).
    var textKinds: [String: TextEntryKind] = [:]

    /// Only what is still on the screen, so the cache cannot grow without bound.
    func keeping(_ ids: Set<String>) -> WalkCache {
        WalkCache(actions: actions.filter { ids.contains($0.key) }, labelledBy: labelledBy.filter { ids.contains($0.key) },
                  ranges: ranges.filter { ids.contains($0.key) }, roleWords: roleWords,
                  roles: roles.count > 4 * max(ids.count, 256) ? roles.filter { ids.contains($0.key) } : roles,
                  transient: transient.filter { ids.contains($0) }, gtk: gtk.filter { ids.contains($0.key) },
                  moves: moves.filter { ids.contains($0.key) }, textKinds: textKinds.filter { ids.contains($0.key) })
    }
}

/// What acting on a live element needs. Lives on the AT-SPI thread only.
struct LiveHandle {
    let ref: AccessibleRef
    /// What the element is called, for messages.
    var label: String
    /// Index of the AT-SPI action a tap performs; nil: focus and click instead.
    var primaryAction: Int?
    /// Every action name, at its AT-SPI index.
    var actions: [String]
    var editable: Bool
}

/// Reads a window's accessibility subtree into LiveNodes. Nodes that are not showing are
/// pruned with their subtrees; the role decides element, container or nothing (RoleMapping).
/// Extents, actions and values are fetched only for what is kept: they cost a D-Bus round
/// trip each, while name, role, states and children come from libatspi's cache.
struct Walker {
    static let maxNodes = 30_000
    static let maxDepth = 64

    /// Whether frames and the basics of uncached objects are asked for in batches of raw
    /// D-Bus requests (`catspi_*_batch`); else, and wherever a batch cannot be used or fails
    /// with an unexpected error, they are read one object at a time through libatspi.
    /// `SWITCHSCAN_ATSPI_BATCH=0` turns batches off.
    static let batches: Bool = {
        guard let v = getenv("SWITCHSCAN_ATSPI_BATCH") else { return true }
        return String(cString: v) != "0"
    }()
    var useBatches = Walker.batches

    /// The state that says a node is on the screen. GTK 4 sets `showing` on windows only,
    /// and leaves widgets that are not shown out of the tree: there, `visible`.
    var shownState = ATSPI_STATE_SHOWING
    /// Added to every frame: GTK 4 gives extents relative to the window, not the screen.
    var origin = Point(x: 0, y: 0)
    /// What every frame is multiplied by first: the window's scale, where the application
    /// measures in its own pixels (FrameOrigin).
    var scale = 1.0

    /// An application's extents on the screen.
    func placed(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> Rect {
        Rect(x: x * scale + origin.x, y: y * scale + origin.y, width: w * scale, height: h * scale)
    }
    /// The application is a browser: its push buttons are buttons, whatever interfaces
    /// they carry.
    var browser = false
    /// Inside a web page: nodes outside the viewport (`visible`, not `showing`) are kept.
    var inDocument = false
    /// Inside a file chooser: its one-line field takes a file name.
    var inFileChooser = false
    /// Containers inside web pages, whose headings make groups (`sectionByHeadings`).
    var pageContainers: [Int] = []

    var nodes: [LiveNode] = []
    var handles: [String: LiveHandle] = [:]
    /// Every element's object, so that one can be read again alone when only it changed.
    var elements: [String: AccessibleRef] = [:]
    /// Menus open over the window (a combo box's list, a submenu), deepest last, each with
    /// the ids that open it: its own (a menu that is its own title, as in a menu bar) and
    /// the control it hangs off (a combo box, a menu item).
    var openPopups: [(menu: AccessibleRef, openedBy: Set<String>)] = []
    var truncated = false
    /// Accessible objects looked at, kept or not.
    var visited = 0
    /// What earlier reads learnt that does not change during a widget's life, by id: each
    /// item costs a round trip to read.
    var known = WalkCache()
    /// Nodes whose extents are read together at the end of the walk (one round trip).
    var pendingExtents: [(node: Int, ref: AccessibleRef)] = []
    /// What is read of an element together with the others' at the end of the walk.
    enum Deferred {
        /// A text field's text: two round trips for all, where each costs two.
        case text
        /// An adjustable control's value (its role; whether it has actions): one round trip
        /// for all, where a container's cost one, a lone one's four.
        case value(AtspiRole, acts: Bool)
    }
    /// Elements with something to read at the end of the walk: the node, its id (the node
    /// may have been dropped since) and its object.
    var pendingReads: [(node: Int, id: String, ref: AccessibleRef, read: Deferred)] = []
    /// Nodes that are kept only if their extents have an area (leaves).
    var needsArea: Set<Int> = []
    /// Values read ahead for the widgets of a container that show one, by id.
    var valuesAhead: [String: Atspi.ValueRange] = [:]
    /// Ids visited: a toolkit may list one object under two parents (GTK 3 header bars do).
    var seen: Set<String> = []
    /// Root panes, each with the object that holds it: LibreOffice's may be displaced.
    var rootPanes: [(node: Int, holder: AccessibleRef)] = []
    /// The objects whose extents were read, by node, while a root pane needs them.
    var refs: [Int: AccessibleRef] = [:]

    static func id(of a: AccessibleRef) -> String { id(bus: a.busName, path: a.path) }

    static func id(bus busName: String, path: String) -> String {
        var bus = busName
        if bus.hasPrefix(":") { bus.removeFirst() }
        let prefix = "/org/a11y/atspi/accessible/"
        var tail = path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
        tail = String(tail.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "." })
        while tail.hasPrefix(".") { tail.removeFirst() }
        if tail.count > 96 {
            // Layout ids stop at 128 characters: a long path (GTK 4's) keeps its end and a hash.
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for b in tail.utf8 { hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3 }
            tail = String(tail.suffix(64)) + "." + String(hash, radix: 36)
            while tail.hasPrefix(".") { tail.removeFirst() }
        }
        return "a\(bus.isEmpty ? "0" : bus):\(tail.isEmpty ? "root" : tail)"
    }

    /// Reads `root` (a window or an open menu) as the tree's root container.
    mutating func walkRoot(_ root: AccessibleRef) throws(AtspiCallError) {
        let states = Atspi.states(root)
        var node = LiveNode(id: Self.id(of: root), role: Atspi.roleName(root))
        seen.insert(node.id)
        node.label = try Atspi.name(root)
        node.modal = states.has(ATSPI_STATE_MODAL)
        nodes.append(node)
        pendingExtents.append((0, root))
        let kids = try Atspi.liveChildren(root)
        readActionsAhead(kids, ahead: [:])
        for c in kids {
            if let k = try visit(c, parent: 0, depth: 1) { nodes[0].children.append(k) }
        }
        try readExtents()
        moveDisplacedRootPanes()
        for c in pageContainers { sectionByHeadings(c) }
        compact()
    }

    /// Every frame the walk needs: in batches where they can be used, else (or for what a
    /// batch failed to read with an unexpected error) one object at a time. An application
    /// that stops answering partway ends the read with a timeout that says how much came.
    mutating func readExtents() throws(AtspiCallError) {
        try readDeferred()
        let n = pendingExtents.count
        guard n > 0 else { return }
        var out = [Int32](repeating: 0, count: 4 * n)
        var ok = [UInt8](repeating: 0, count: n)
        var retry = Array(0..<n)
        if useBatches {
            var b = CatspiBatch()
            let objects: [UnsafeMutablePointer<AtspiAccessible>?] = pendingExtents.map { $0.ref.pointer }
            objects.withUnsafeBufferPointer { objs in
                catspi_extents_batch(objs.baseAddress, Int32(n), 0 /* ATSPI_COORD_TYPE_SCREEN */, Int32(Atspi.callTimeoutMilliseconds),
                                     &out, &ok, &b)
            }
            if let failure = Self.failure(of: b, n: n, asking: pendingExtents[0].ref) { throw failure }
            let errorName = Self.errorName(of: b)
            let answered = Int(b.answered)
            // Whatever the batch could not send, or lost to an unexpected error, is read
            // one object at a time; an object without extents (an error answer while the
            // application answers the rest) stays without a frame.
            retry = b.unsent > 0 || (!errorName.isEmpty && answered == 0) ? (0..<n).filter { ok[$0] == 0 } : []
        }
        for (done, k) in retry.enumerated() {
            do {
                guard let e = try Atspi.extents(pendingExtents[k].ref) else { continue }
                out[4 * k] = Int32(e.x); out[4 * k + 1] = Int32(e.y); out[4 * k + 2] = Int32(e.width); out[4 * k + 3] = Int32(e.height)
                ok[k] = 1
            } catch {
                if error.kind == .failed { continue }
                var e = error
                e.progress = (n - retry.count + done, n)
                throw e
            }
        }
        for (k, p) in pendingExtents.enumerated() where ok[k] != 0 {
            let x = out[4 * k], y = out[4 * k + 1], w = out[4 * k + 2], h = out[4 * k + 3]
            // INT_MIN marks hidden and unrealised widgets.
            guard x > Int32.min / 2, y > Int32.min / 2, w >= 0, h >= 0 else { continue }
            nodes[p.node].frame = placed(Double(x), Double(y), Double(w), Double(h))
            if !rootPanes.isEmpty { refs[p.node] = p.ref }
        }
        pendingExtents.removeAll()
    }

    /// How far the widgets of a root pane are from where they show: LibreOffice's VCL root
    /// pane, under GTK 3, gives extents as if GTK's menu bar above it were not there; it
    /// has the size of the GTK container that holds it, and that container's place is
    /// right. Nil for a root pane where its holder is.
    static func displacement(pane: Rect, holder: Rect) -> Point? {
        guard pane.width > 0, pane.height > 0, pane.width == holder.width, pane.height == holder.height,
              pane.x != holder.x || pane.y != holder.y else { return nil }
        return Point(x: holder.x - pane.x, y: holder.y - pane.y)
    }

    /// Moves the nodes of each displaced root pane onto where they show, but for GTK's own
    /// widgets inside it (LibreOffice's welded ones, `toolkit` "gtk"), which are right.
    mutating func moveDisplacedRootPanes() {
        defer { rootPanes = []; refs = [:] }
        for (pane, holder) in rootPanes {
            guard let frame = nodes[pane].frame, let h = try? Atspi.extents(holder),
                  let d = Self.displacement(pane: frame, holder: placed(h.x, h.y, h.width, h.height))
            else { continue }
            move(pane, by: d)
        }
    }

    mutating func move(_ i: Int, by d: Point) {
        let id = nodes[i].id
        if let ref = elements[id] ?? refs[i] {
            let gtk = known.gtk[id] ?? (Atspi.toolkitAttribute(ref) == "gtk")
            known.gtk[id] = gtk
            if gtk { return }
        }
        if let f = nodes[i].frame {
            nodes[i].frame = Rect(x: f.x + d.x, y: f.y + d.y, width: f.width, height: f.height)
            if nodes[i].isElement { known.moves[id] = d }
        }
        for c in nodes[i].children { move(c, by: d) }
    }

    /// Drops the leaves that turned out to have no area, and the containers left empty;
    /// containers without extents of their own get their children's union.
    mutating func compact() {
        var out: [LiveNode] = []
        out.reserveCapacity(nodes.count)
        func keep(_ i: Int, parent: Int?) -> Int? {
            var n = nodes[i]
            if needsArea.contains(i) && !Self.hasArea(n) { return nil }
            let kids = n.children
            n.children = []
            n.parent = parent
            let index = out.count
            out.append(n)
            guard !n.isElement else { return index }
            for c in kids { if let k = keep(c, parent: index) { out[index].children.append(k) } }
            if (out[index].children.isEmpty || Self.hiddenMenuBar(out[index])) && index != 0 {
                out.removeLast(out.count - index)
                return nil
            }
            if out[index].frame == nil || n.flatten {
                var r: Rect?
                for c in out[index].children { if let f = out[c].frame { r = r.map { $0.union(f) } ?? f } }
                out[index].frame = r ?? out[index].frame
            }
            return index
        }
        _ = keep(0, parent: nil)
        let kept = Set(out.map(\.id))
        handles = handles.filter { kept.contains($0.key) }
        elements = elements.filter { kept.contains($0.key) }
        nodes = out
    }

    /// A menu bar without height shows nothing, whatever its menus say: LibreOffice's own,
    /// under GTK 3, which the native menu bar replaces on the screen.
    static func hiddenMenuBar(_ n: LiveNode) -> Bool {
        guard n.role == Atspi.roleName(of: ATSPI_ROLE_MENU_BAR), !n.flatten, let f = n.frame else { return false }
        return f.width <= 0 || f.height <= 0
    }

    /// A leaf is kept where it can be seen: a control needs width and height, a text or
    /// image either.
    static func hasArea(_ n: LiveNode) -> Bool {
        guard let f = n.frame else { return false }
        guard n.isElement else { return true }
        return n.traits.intersects(staticTraits) ? f.width > 0 || f.height > 0 : f.width > 0 && f.height > 0
    }

    /// Reads one element again, when only its value, name or states changed. Nil when it
    /// is no longer an element that can be seen: then the window must be read whole.
    mutating func readElement(_ a: AccessibleRef) throws(AtspiCallError) -> LiveNode? {
        nodes = []
        guard let i = try visit(a, parent: 0, depth: 1), i == 0, nodes.count == 1, nodes[0].isElement else { return nil }
        try readExtents()
        if let d = known.moves[nodes[0].id], let f = nodes[0].frame {
            nodes[0].frame = Rect(x: f.x + d.x, y: f.y + d.y, width: f.width, height: f.height)
        }
        return Self.hasArea(nodes[0]) ? nodes[0] : nil
    }

    static let staticTraits = TraitSet([.staticText, .header, .image])
    static let headingRole = Atspi.roleName(of: ATSPI_ROLE_HEADING)
    static let rootPaneRole = Atspi.roleName(of: ATSPI_ROLE_ROOT_PANE)

    /// Keeps an element; its extents are read with the others at the end of the walk, and
    /// it is dropped then if it has no area.
    mutating func appendElement(_ node: LiveNode, _ a: AccessibleRef, reading deferred: Deferred? = nil) -> Int {
        let index = nodes.count
        elements[node.id] = a
        nodes.append(node)
        pendingExtents.append((index, a))
        needsArea.insert(index)
        if let deferred { pendingReads.append((index, node.id, a, deferred)) }
        return index
    }
}

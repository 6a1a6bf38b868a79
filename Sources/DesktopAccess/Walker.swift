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
    /// The application is a browser: its push buttons are buttons, whatever interfaces
    /// they carry.
    var browser = false
    /// Inside a web page: nodes outside the viewport (`visible`, not `showing`) are kept.
    private var inDocument = false
    /// Inside a file chooser: its one-line field takes a file name.
    private var inFileChooser = false
    /// Containers inside web pages, whose headings make groups (`sectionByHeadings`).
    private var pageContainers: [Int] = []

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
    private var pendingExtents: [(node: Int, ref: AccessibleRef)] = []
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
    private var pendingReads: [(node: Int, id: String, ref: AccessibleRef, read: Deferred)] = []
    /// Nodes that are kept only if their extents have an area (leaves).
    private var needsArea: Set<Int> = []
    /// Values read ahead for the widgets of a container that show one, by id.
    private var valuesAhead: [String: Atspi.ValueRange] = [:]
    /// Ids visited: a toolkit may list one object under two parents (GTK 3 header bars do).
    private var seen: Set<String> = []
    /// Root panes, each with the object that holds it: LibreOffice's may be displaced.
    private var rootPanes: [(node: Int, holder: AccessibleRef)] = []
    /// The objects whose extents were read, by node, while a root pane needs them.
    private var refs: [Int: AccessibleRef] = [:]

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
    private mutating func readExtents() throws(AtspiCallError) {
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
            nodes[p.node].frame = Rect(x: Double(x) + origin.x, y: Double(y) + origin.y, width: Double(w), height: Double(h))
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
    private mutating func moveDisplacedRootPanes() {
        defer { rootPanes = []; refs = [:] }
        for (pane, holder) in rootPanes {
            guard let frame = nodes[pane].frame, let h = try? Atspi.extents(holder),
                  let d = Self.displacement(pane: frame, holder: Rect(x: Double(h.x) + origin.x, y: Double(h.y) + origin.y,
                                                                      width: Double(h.width), height: Double(h.height)))
            else { continue }
            move(pane, by: d)
        }
    }

    private mutating func move(_ i: Int, by d: Point) {
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
    private mutating func compact() {
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
    static let holdsContent: Set<UInt32> = [ATSPI_ROLE_PAGE_TAB.rawValue, ATSPI_ROLE_LIST_ITEM.rawValue,
                                            ATSPI_ROLE_TOGGLE_BUTTON.rawValue, ATSPI_ROLE_TREE_ITEM.rawValue]

    /// Keeps an element; its extents are read with the others at the end of the walk, and
    /// it is dropped then if it has no area.
    private mutating func appendElement(_ node: LiveNode, _ a: AccessibleRef, reading deferred: Deferred? = nil) -> Int {
        let index = nodes.count
        elements[node.id] = a
        nodes.append(node)
        pendingExtents.append((index, a))
        needsArea.insert(index)
        if let deferred { pendingReads.append((index, node.id, a, deferred)) }
        return index
    }

    static func errorName(of b: CatspiBatch) -> String {
        withUnsafeBytes(of: b.error_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// What ends a read when a batch of `n` requests to `ref`'s application failed: no
    /// answer (slow, or gone: a process that dies leaves NoReply errors too), or only the
    /// error that says it is gone. Nil when the batch went through.
    static func failure(of b: CatspiBatch, n: Int, asking ref: AccessibleRef) -> AtspiCallError? {
        if b.timed_out != 0 {
            let gone = Atspi.probe(ref) == .gone
            return AtspiCallError(kind: gone ? .gone : .timeout, domain: "dbus", code: 0,
                                  message: gone ? "the application went away" : "org.freedesktop.DBus.Error.NoReply",
                                  progress: (Int(b.answered), n))
        }
        let name = errorName(of: b)
        if !name.isEmpty && AtspiCallError.kind(ofDBusError: name) == .gone && b.answered == 0 {
            return AtspiCallError(kind: .gone, domain: "dbus", code: 0, message: name)
        }
        return nil
    }

    /// The texts and values the walk put off, each kind in one batch where batches are
    /// used; one element at a time through libatspi for what a batch did not read.
    private mutating func readDeferred() throws(AtspiCallError) {
        let pending = pendingReads.filter { $0.node < nodes.count && nodes[$0.node].id == $0.id }
        pendingReads.removeAll()
        var texts: [(node: Int, ref: AccessibleRef)] = []
        var values: [(node: Int, id: String, ref: AccessibleRef, role: AtspiRole, acts: Bool)] = []
        for p in pending {
            switch p.read {
            case .text: texts.append((p.node, p.ref))
            case .value(let role, let acts): values.append((p.node, p.id, p.ref, role, acts))
            }
        }
        var ranges = [Atspi.ValueRange?](repeating: nil, count: values.count)
        if useBatches && !values.isEmpty {
            let b: CatspiBatch
            (ranges, b) = Self.valuesBatch(values.map(\.ref))
            if let failure = Self.failure(of: b, n: values.count, asking: values[0].ref) { throw failure }
        }
        for (k, p) in values.enumerated() {
            if let v = ranges[k] {
                // A slider's range is kept for a read of it alone (`value`).
                if p.role != ATSPI_ROLE_SCROLL_BAR && known.ranges[p.id] == nil { known.ranges[p.id] = .some(v) }
                applyValue(v, to: p.node, acts: p.acts)
            } else {
                applyValue(try value(p.ref, id: p.id, role: p.role), to: p.node, acts: p.acts)
            }
        }
        guard !texts.isEmpty else { return }
        var got = [String?](repeating: nil, count: texts.count)
        if useBatches {
            let n = texts.count
            var raw = [UnsafeMutablePointer<CChar>?](repeating: nil, count: n)
            var b = CatspiBatch()
            let objects: [UnsafeMutablePointer<AtspiAccessible>?] = texts.map { $0.ref.pointer }
            objects.withUnsafeBufferPointer { objs in
                catspi_texts_batch(objs.baseAddress, Int32(n), Self.textLimit, Int32(Atspi.callTimeoutMilliseconds), &raw, &b)
            }
            for k in 0..<n {
                if let t = raw[k] { got[k] = String(cString: t) }
                free(raw[k])
            }
            if let failure = Self.failure(of: b, n: n, asking: texts[0].ref) { throw failure }
        }
        for (k, p) in texts.enumerated() {
            guard let text = got[k] ?? Atspi.text(p.ref, limit: Self.textLimit) else { continue }
            nodes[p.node].value = text.isEmpty ? nil : text
        }
    }

    /// An adjustable control with a range is adjusted by its step (a twentieth of the range
    /// where it has none); one without shows a value only. One without actions or a range
    /// is acted on by a click.
    private mutating func applyValue(_ value: Atspi.ValueRange?, to index: Int, acts: Bool) {
        var node = nodes[index]
        if let v = value, v.max > v.min {
            var step = v.step
            if !(step > 0) { step = (v.max - v.min) / 20 }
            let decimals = Self.decimals(of: step)
            node.adjustable = Adjustable(kind: .numeric(min: v.min, max: v.max, step: step, decimals: decimals, format: "{value}"),
                                         current: min(v.max, max(v.min, v.current)))
            node.traits.insert(.adjustable)
        } else {
            node.traits.insert(.staticText)
        }
        if node.traits.isEmpty || (!acts && node.adjustable == nil) { node.respondsToUserInteraction = true }
        nodes[index] = node
    }

    /// A field's text is read up to this many characters.
    static let textLimit: Int32 = 200

    /// States, name, child count and role read ahead for several objects at once.
    struct Basics { var states: StateBits; var name: String; var childCount: Int; var role: AtspiRole }

    /// The children libatspi has not cached (a window newer than its first look at the
    /// application; GTK 3's `transient` tree-view cells, which it never caches), read
    /// together, by index: else each getter of each is a round trip.
    private func readAhead(_ kids: [AccessibleRef]) -> [Int: Basics] {
        guard useBatches else { return [:] }
        let picks = kids.indices.filter {
            known.transient.contains(Self.id(of: kids[$0])) || _atspi_accessible_test_cache(kids[$0].pointer, ATSPI_CACHE_STATES) == 0
        }
        guard picks.count >= 2 else { return [:] }
        let n = picks.count
        var states = [UInt64](repeating: 0, count: n)
        var names = [UnsafeMutablePointer<CChar>?](repeating: nil, count: n)
        var counts = [Int32](repeating: 0, count: n)
        var roles = [UInt32](repeating: 0, count: n)
        var ok = [UInt8](repeating: 0, count: n)
        var b = CatspiBatch()
        let objects: [UnsafeMutablePointer<AtspiAccessible>?] = picks.map { kids[$0].pointer }
        // What the batch did not read (it could not be sent, an error, no answer) is read by
        // the walk one object at a time.
        objects.withUnsafeBufferPointer { objs in
            catspi_basics_batch(objs.baseAddress, Int32(n), Int32(Atspi.callTimeoutMilliseconds), &states, &names, &counts, &roles, &ok, &b)
        }
        var out: [Int: Basics] = [:]
        for (k, i) in picks.enumerated() {
            defer { free(names[k]) }
            guard ok[k] != 0, let name = names[k] else { continue }
            out[i] = Basics(states: StateBits(raw: states[k]), name: String(cString: name), childCount: Int(max(0, counts[k])),
                            role: AtspiRole(rawValue: roles[k]))
        }
        return out
    }

    /// The action names of the children that are controls seen for the first time (a new
    /// window: a dialog just opened), asked for together: libatspi asks for the count and
    /// then each name, a round trip each, which made most of a new dialog's first read.
    /// What the batch did not read is read by the walk one object at a time.
    private mutating func readActionsAhead(_ kids: [AccessibleRef], ahead: [Int: Basics]) {
        guard useBatches, kids.count >= 2 else { return }
        var picks: [(id: String, ref: AccessibleRef)] = []
        for (i, c) in kids.enumerated() {
            let id = Self.id(of: c)
            guard known.actions[id] == nil else { continue }
            let states = ahead[i]?.states ?? Atspi.states(c)
            guard states.has(shownState) || (inDocument && states.has(ATSPI_STATE_VISIBLE)) else { continue }
            guard let role = known.roles[id].map({ AtspiRole(rawValue: $0) }) ?? ahead[i]?.role ?? (try? Atspi.role(c)) else { continue }
            known.roles[id] = role.rawValue
            switch RoleMapping.kind(of: role, inDocument: inDocument, selectable: states.has(ATSPI_STATE_SELECTABLE)) {
            case .control, .adjustable, .textEntry:
                // Where libatspi does not know the interfaces, the batch finds out.
                if _atspi_accessible_test_cache(c.pointer, ATSPI_CACHE_INTERFACES) == 0 || Atspi.hasInterface(c, .action) {
                    picks.append((id, c))
                } else {
                    known.actions[id] = []
                }
            default:
                continue
            }
        }
        guard picks.count >= 2 else { return }
        let n = picks.count
        var counts = [Int32](repeating: -1, count: n)
        var names = [UnsafeMutablePointer<CChar>?](repeating: nil, count: n)
        var b = CatspiBatch()
        let objects: [UnsafeMutablePointer<AtspiAccessible>?] = picks.map { $0.ref.pointer }
        objects.withUnsafeBufferPointer { objs in
            catspi_actions_batch(objs.baseAddress, Int32(n), Int32(Atspi.callTimeoutMilliseconds), &counts, &names, &b)
        }
        for (k, p) in picks.enumerated() {
            defer { free(names[k]) }
            guard counts[k] >= 0 else { continue }
            known.actions[p.id] = counts[k] == 0 ? [] : String(cString: names[k]!).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
    }

    /// Roles whose widgets show their value as their text: progress and level bars. (An
    /// adjustable control's value is read at the end of the walk.)
    static let valueRoles: Set<UInt32> = [ATSPI_ROLE_PROGRESS_BAR.rawValue, ATSPI_ROLE_LEVEL_BAR.rawValue]

    /// The values of a container's progress and level bars, asked for together: whether
    /// one without a name is kept depends on its value. libatspi asks for a value's
    /// minimum, maximum, current value and step one after the other, each a round trip. What the batch did not read is read by the walk one object at a time.
    private mutating func readValuesAhead(_ kids: [AccessibleRef], ahead: [Int: Basics]) {
        guard useBatches else { return }
        var picks: [(id: String, ref: AccessibleRef)] = []
        for (i, c) in kids.enumerated() {
            let id = Self.id(of: c)
            guard let role = known.roles[id] ?? ahead[i]?.role.rawValue, Self.valueRoles.contains(role) else { continue }
            let states = ahead[i]?.states ?? Atspi.states(c)
            guard states.has(shownState) || (inDocument && states.has(ATSPI_STATE_VISIBLE)) else { continue }
            picks.append((id, c))
        }
        guard !picks.isEmpty else { return }
        for (p, v) in zip(picks, Self.valuesBatch(picks.map(\.ref)).ranges) where v != nil { valuesAhead[p.id] = v }
    }

    /// The values of `refs` in one batch: nil where one did not come.
    static func valuesBatch(_ refs: [AccessibleRef]) -> (ranges: [Atspi.ValueRange?], batch: CatspiBatch) {
        let n = refs.count
        var out = [Double](repeating: 0, count: 4 * n)
        var ok = [UInt8](repeating: 0, count: n)
        var b = CatspiBatch()
        let objects: [UnsafeMutablePointer<AtspiAccessible>?] = refs.map(\.pointer)
        objects.withUnsafeBufferPointer { objs in
            catspi_values_batch(objs.baseAddress, Int32(n), Int32(Atspi.callTimeoutMilliseconds), &out, &ok, &b)
        }
        let ranges = (0..<n).map { k in
            ok[k] == 0 ? nil : Atspi.ValueRange(min: out[4 * k], max: out[4 * k + 1], current: out[4 * k + 2], step: out[4 * k + 3])
        }
        return (ranges, b)
    }

    /// Whether a container's children are asked of the application each time rather than
    /// taken from libatspi's cache: a browser's internal frame holds the page's document, and
    /// a page followed to swaps in a new document with only that document's
    /// `accessible-parent` change (no `children-changed` on the frame, which the cache
    /// follows), so the cache keeps the old, gone document there.
    static func readsChildrenLive(_ role: AtspiRole) -> Bool {
        role == ATSPI_ROLE_INTERNAL_FRAME
    }

    /// The roles (as `LiveNode.role` names them) of what a closed menu is the title in.
    static let menuTitleParents: Set<String> = ["menu bar", "menu", "menu item"]

    /// Visits one node; returns its index, or nil when it is left out. `basics`: its
    /// states, name and child count where they were read ahead.
    mutating func visit(_ a: AccessibleRef, parent: Int, depth: Int, basics: Basics? = nil) throws(AtspiCallError) -> Int? {
        guard nodes.count < Self.maxNodes, depth < Self.maxDepth else { truncated = true; return nil }
        visited += 1
        let states = basics?.states ?? Atspi.states(a)
        let shown = states.has(shownState) || (inDocument && states.has(ATSPI_STATE_VISIBLE))
        guard shown, !states.has(ATSPI_STATE_DEFUNCT) else { return nil }
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
                kind = Self.menuTitleParents.contains(nodes[parent].role) ? .control : .ignored
            }
        }

        if kind == .textEntry && !states.has(ATSPI_STATE_EDITABLE) { kind = .staticText }
        // A word processor's document body (LibreOffice Writer's) is one field to type into,
        // as an editor's is; its paragraphs are its text, not elements of their own.
        if role == ATSPI_ROLE_DOCUMENT_TEXT && states.has(ATSPI_STATE_EDITABLE) { kind = .textEntry }
        if kind == .adjustable && !Atspi.hasInterface(a, .value) { kind = .control }
        if kind == .ignored && childCount > 0 { kind = .container(flatten: true) }
        if case .textBlock(let heading) = kind, childCount == 0 { kind = heading ? .heading : .staticText }
        if kind == .window || kind == .popupMenu { kind = .container(flatten: false) }

        var node = LiveNode(id: id, role: Atspi.roleName(of: role))
        guard seen.insert(node.id).inserted else { return nil }
        node.parent = parent
        node.offscreen = inDocument && !states.has(ATSPI_STATE_SHOWING)
        switch kind {
        case .ignored:
            return nil
        case .container(let flatten):
            // GTK 4 names unnamed containers after their type ("GtkFrame"): no name.
            let named = RoleMapping.isTypeName(name) ? "" : name
            node.flatten = flatten && named.isEmpty
            node.label = named
            node.modal = states.has(ATSPI_STATE_MODAL)
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
            let kids = Self.readsChildrenLive(role) ? try Atspi.liveChildren(a) : try Atspi.children(a, count: childCount)
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
            return try visitTextBlock(a, node: node, name: name, heading: heading, states: states, childCount: childCount, depth: depth)
        case .staticText, .heading, .image:
            node.label = name.isEmpty || RoleMapping.isTypeName(name) ? RoleMapping.trimmed(Atspi.description(a)) : name
            if RoleMapping.isTypeName(node.label) { node.label = "" }
            if kind == .staticText, role == ATSPI_ROLE_TEXT || role == ATSPI_ROLE_PROGRESS_BAR || role == ATSPI_ROLE_LEVEL_BAR {
                node.value = try valueText(a, role: role)
            }
            guard !node.label.isEmpty || node.value != nil else { return nil }
            // A page's list bullets and punctuation between links ("•", ", ") say nothing.
            if inDocument && node.value == nil && !node.label.contains(where: { $0.isLetter || $0.isNumber }) { return nil }
            if node.label.isEmpty { node.label = roleWords(a) }
            node.isElement = true
            node.traits.insert(kind == .heading ? .header : kind == .image ? .image : .staticText)
            if !states.has(ATSPI_STATE_SENSITIVE) { node.traits.insert(.notEnabled) }
            return appendElement(node, a)
        case .control, .adjustable, .textEntry:
            node.isElement = true
            let actions: [String]
            if let names = known.actions[node.id] {
                actions = names
            } else {
                actions = Atspi.hasInterface(a, .action) ? try Atspi.actionNames(a) : []
                known.actions[node.id] = actions
            }
            var primary: Int?
            for want in RoleMapping.primaryActions {
                if let i = actions.firstIndex(where: { $0.lowercased() == want }) { primary = i; break }
            }
            if primary == nil, actions.count == 1, !RoleMapping.isInternalAction(actions[0]) { primary = 0 }
            let editable = kind == .textEntry
            // An adjustable control's value, a field's text: read with the extents.
            var deferred: Deferred? = kind == .adjustable ? .value(role, acts: !actions.isEmpty) : nil
            // A text field is for typing: a tap gives it the focus ("activate" would submit it).
            if editable { primary = nil }
            var seen = Set<String>()
            for (i, n) in actions.enumerated() where i != primary && !RoleMapping.isInternalAction(n) && !(editable && n == "activate") {
                if seen.insert(n).inserted { node.customActions.append(n) }
            }
            node.traits = traits(role: role, kind: kind, states: states, a: a)
            if editable {
                if let k = known.textKinds[node.id] { node.textEntry = k } else {
                    let k = RoleMapping.textEntryKind(role: role, multiLine: states.has(ATSPI_STATE_MULTI_LINE),
                                                      singleLine: states.has(ATSPI_STATE_SINGLE_LINE),
                                                      attributes: Atspi.attributes(a, RoleMapping.textEntryAttributes),
                                                      inFileChooser: inFileChooser)
                    known.textKinds[node.id] = k
                    node.textEntry = k
                }
                // A password field's text is bullets at best: it is not read; a document's
                // is its paragraphs', which have the Text interface it lacks.
                if node.textEntry != .password && role != ATSPI_ROLE_DOCUMENT_TEXT { deferred = .text }
                node.respondsToUserInteraction = true
                if childLooksLikeSearch(a, childCount: childCount) { node.traits.insert(.searchField) }
            }
            // (LibreOffice's document body never says it is sensitive.)
            if !states.has(ATSPI_STATE_SENSITIVE) && role != ATSPI_ROLE_DOCUMENT_TEXT { node.traits.insert(.notEnabled) }
            // Controls without actions (GTK 4's check boxes, list rows) are still acted on: by a
            // click. An adjustable one's value decides (`applyValue`).
            if kind != .adjustable && (node.traits.isEmpty || (actions.isEmpty && !editable)) {
                node.respondsToUserInteraction = true
            }
            node.label = try label(a, id: node.id, name: name, childCount: childCount)
            // Table cells (many, and never cached) go without: they are rows of text.
            if role != ATSPI_ROLE_TABLE_CELL {
                node.hint = { let d = Atspi.description(a); return d.isEmpty || d == node.label ? nil : d }()
            }
            handles[node.id] = LiveHandle(ref: a, label: node.label, primaryAction: primary, actions: actions, editable: editable)
            // Menus that hang off this control and are open now (a combo box's list).
            if childCount > 0 && (role == ATSPI_ROLE_COMBO_BOX || role == ATSPI_ROLE_MENU_ITEM || role == ATSPI_ROLE_PUSH_BUTTON_MENU) {
                for c in try Atspi.children(a, count: childCount) where Atspi.states(c).has(shownState) {
                    let r = try Atspi.role(c)
                    if RoleMapping.kind(of: r) == .popupMenu { openPopups.append((c, [node.id, Self.id(of: c)])) }
                }
            }
            // A page tab holds its page, a list row its own buttons, an expander its
            // content: those are scanned right after the control, in a see-through
            // container with it.
            if childCount > 0 && Self.holdsContent.contains(role.rawValue) {
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
    private mutating func visitTextBlock(_ a: AccessibleRef, node base: LiveNode, name: String, heading: Bool, states: StateBits,
                                         childCount: Int, depth: Int) throws(AtspiCallError) -> Int? {
        var node = base
        node.flatten = true
        node.label = RoleMapping.isTypeName(name) ? "" : name
        let index = nodes.count
        nodes.append(node)
        let mark = pendingExtents.count
        for c in try Atspi.children(a, count: childCount) {
            if let k = try visit(c, parent: index, depth: depth + 1) { nodes[index].children.append(k) }
        }
        let acts = nodes[(index + 1)...].contains(where: { n in
            n.isElement && !n.traits.intersects(Self.staticTraits)
        })
        // A heading that holds a link stays a heading (its role): it still starts a group.
        if acts { return index }
        // Only text inside: the block is one text, where it has a name; else its pieces.
        guard !node.label.isEmpty else { return nodes[index].children.isEmpty ? drop(from: index, mark: mark) : index }
        _ = drop(from: index, mark: mark)
        var leaf = base
        leaf.label = node.label
        leaf.isElement = true
        leaf.traits.insert(heading ? .header : .staticText)
        if !states.has(ATSPI_STATE_SENSITIVE) { leaf.traits.insert(.notEnabled) }
        return appendElement(leaf, a)
    }

    /// Forgets the nodes from `index` on (a subtree just visited); nil.
    private mutating func drop(from index: Int, mark: Int) -> Int? {
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
    private mutating func sectionByHeadings(_ container: Int) {
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

    private func traits(role: AtspiRole, kind: RoleKind, states: StateBits, a: AccessibleRef) -> TraitSet {
        var t = TraitSet()
        switch kind {
        case .control:
            if RoleMapping.isLink(role: role, hasHyperlink: role == ATSPI_ROLE_PUSH_BUTTON && !browser && Atspi.hasInterface(a, .hyperlink), browser: browser) {
                t.insert(.link)
            } else {
                t.insert(.button)
            }
            if role == ATSPI_ROLE_TABLE_COLUMN_HEADER || role == ATSPI_ROLE_COLUMN_HEADER { t.insert(.header) }
        default:
            break
        }
        // A menu item is `selected` while the pointer or the keyboard is on it: no choice.
        let hovered = role == ATSPI_ROLE_MENU_ITEM || role == ATSPI_ROLE_CHECK_MENU_ITEM || role == ATSPI_ROLE_RADIO_MENU_ITEM
        if states.has(ATSPI_STATE_CHECKED) || states.has(ATSPI_STATE_PRESSED) || (states.has(ATSPI_STATE_SELECTED) && !hovered) {
            t.insert(.selected)
        }
        return t
    }

    /// Name, else what labels it, else the text of its first labelled child (a list row),
    /// else its description, else what its role is called.
    private mutating func label(_ a: AccessibleRef, id: String, name: String, childCount: Int) throws(AtspiCallError) -> String {
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
    private mutating func roleWords(_ a: AccessibleRef) -> String {
        let role = (try? Atspi.role(a)) ?? ATSPI_ROLE_UNKNOWN
        if let w = known.roleWords[role.rawValue] { return w }
        let w = Atspi.localizedRoleName(a)
        known.roleWords[role.rawValue] = w
        return w
    }

    /// A slider's or spin button's range and step are read once; its current value every
    /// time. A scroll bar's range grows with what it scrolls: read whole every time.
    private mutating func value(_ a: AccessibleRef, id: String, role: AtspiRole) throws(AtspiCallError) -> Atspi.ValueRange? {
        if let v = valuesAhead[id] {
            if role != ATSPI_ROLE_SCROLL_BAR && known.ranges[id] == nil { known.ranges[id] = .some(v) }
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

    private func valueText(_ a: AccessibleRef, role: AtspiRole) throws(AtspiCallError) -> String? {
        if role == ATSPI_ROLE_TEXT { return Atspi.text(a).flatMap { $0.isEmpty ? nil : $0 } }
        let v: Atspi.ValueRange?
        if let ahead = valuesAhead[Self.id(of: a)] { v = ahead } else { v = try Atspi.value(a) }
        guard let v, v.max > v.min else { return nil }
        let percent = ((v.current - v.min) / (v.max - v.min) * 100).rounded()
        return "\(Int(percent))%"
    }

    private func childLooksLikeSearch(_ a: AccessibleRef, childCount: Int) -> Bool {
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

#if canImport(Glibc)
import Glibc
#endif
import CAtspi
import ScanCore
import ScanHost

// Applications and windows (AT-SPI thread): which window, where it is, its tree.
extension DesktopAccess {
    // MARK: - Applications and windows (AT-SPI thread)

    struct App {
        let ref: AccessibleRef
        var info: DesktopApplication
        var windows: [Window]
        /// GTK 4: `visible` says what is shown, extents are window-relative.
        var gtk4 = false
    }
    struct Window {
        let ref: AccessibleRef
        var info: DesktopWindow
        var popup: Bool
        /// It has no title of its own: `info.title` is its application's name.
        var untitled = false
        /// What to add to its elements' frames (nil: they are on the screen already).
        var origin: FrameOrigin?
        /// The compositor's window it was matched to.
        var placeID: String?

        /// Its frame put on the screen by `origin` (left as it is where the place is unknown),
        /// and what `switchscan desktop` says of it.
        mutating func setOrigin(_ o: FrameOrigin, by source: String = "") {
            origin = o
            switch o {
            case .screen: break
            case .offset(_, let from, let scale):
                info.frame = info.frame.flatMap(o.place)
                info.place = "placed by \(source) (\(from.rawValue)" + (scale == 1 ? ")" : ", scaled \(Int(scale * 100)) %)")
            case .unknown(let why):
                info.place = "frames relative to the window; its place is unknown: \(why)"
            }
        }
    }

    func readApplications() -> [App] {
        thread.preconditionOnThread()
        unreadApplications = [:]
        guard let desktop = Atspi.desktop(), let apps = try? Atspi.children(desktop) else { return [] }
        let now = MonotonicClock.now()
        var listed: [WindowPlace]?
        var refreshed = false
        var out: [App] = []
        for a in apps {
            let bus = a.busName
            // One that does not answer keeps its windows as last seen, unread, so that its
            // window stays the scanned one (with its last tree) until it answers or goes.
            if follower.isPassedOver(bus, at: now) {
                if let known = knownApps[bus] { out.append(known) } else { unreadApplications[bus] = (a, .notAnswering) }
                continue
            }
            do {
                Atspi.setCacheMask(a)
                let name = try Atspi.name(a)
                func showingWindows(_ children: [AccessibleRef]) throws(AtspiCallError) -> [Window] {
                    var windows: [Window] = []
                    for w in children {
                        let states = try Atspi.nonEmptyStates(w)
                        guard states.has(ATSPI_STATE_SHOWING) || states.has(ATSPI_STATE_ACTIVE), !states.has(ATSPI_STATE_DEFUNCT) else { continue }
                        let role = try Atspi.role(w)
                        let e = try Atspi.extents(w)
                        var info = DesktopWindow(id: Walker.id(of: w), title: try Atspi.name(w), role: Atspi.roleName(w),
                                                 active: states.has(ATSPI_STATE_ACTIVE),
                                                 modal: RoleMapping.isModal(role: role, modalState: states.has(ATSPI_STATE_MODAL)),
                                                 frame: e.map { Rect(x: $0.x, y: $0.y, width: $0.width, height: $0.height) })
                        // A context menu is a bare window holding a menu.
                        var popup = false
                        if role == ATSPI_ROLE_WINDOW, let kids = try? Atspi.children(w),
                           kids.contains(where: { (try? Atspi.role($0)).map { RoleMapping.kind(of: $0) == .popupMenu } ?? false }) {
                            popup = true
                            if info.title.isEmpty { info.title = "menu" }
                        }
                        // A window without a title (Qt's, GTK header bars) is called by its application.
                        let untitled = info.title.isEmpty
                        if untitled { info.title = name }
                        windows.append(Window(ref: w, info: info, popup: popup, untitled: untitled))
                    }
                    return windows
                }
                var children = try Atspi.children(a)
                let toolkit = Atspi.toolkit(a)
                let gtk4 = toolkit.lowercased() == "gtk" && Atspi.toolkitVersion(a).hasPrefix("4.")
                // GTK 4 does not say when it adds a window (a dialog): its windows are asked
                // of it, not taken from libatspi's cache.
                if gtk4 { children = try Atspi.liveChildren(a) }
                var windows = try showingWindows(children)
                let pid = Atspi.processID(a)
                for k in windows.indices { try place(&windows[k], pid: pid, gtk4: gtk4, listed: &listed, refreshed: &refreshed) }
                placePopups(&windows)
                out.append(App(ref: a, info: DesktopApplication(name: name, processID: Atspi.processID(a),
                                                                toolkit: gtk4 ? "gtk4" : toolkit, windows: windows.map(\.info)),
                               windows: windows, gtk4: gtk4))
            } catch {
                if knownApps[bus] == nil { unreadApplications[bus] = (a, error) }
                if error.isTimeout {
                    follower.timedOut(bus, at: now)
                    if let known = knownApps[bus] { out.append(known) }
                }
            }
        }
        knownApps = Dictionary(out.map { ($0.ref.busName, $0) }, uniquingKeysWith: { a, _ in a })
        // Only the windows still there keep their shadow.
        let windowIDs = Set(out.flatMap { $0.windows.map(\.info.id) })
        shadowOffsets = shadowOffsets.filter { windowIDs.contains($0.key) }
        return out
    }

    /// The window that would be scanned (DesktopFollower.chooseWindow).
    func chooseWindow(_ apps: [App], app: String?) -> (app: App, window: Window, reason: String)? {
        let candidates = apps.map { a in DesktopFollower.Candidate(name: a.info.name, windows: a.windows.map { ($0.info, $0.popup) }) }
        guard let c = DesktopFollower.chooseWindow(candidates, app: app) else { return nil }
        return (apps[c.app], apps[c.app].windows[c.window], c.reason)
    }

    /// The screen point mode sweeps: the registry's desktop extents (which may lag the real
    /// screen), grown to hold every showing window; `screen`, when the caller knows it.
    func screenSize(_ apps: [App]) -> (width: Double, height: Double) {
        if let screen { return (screen.width, screen.height) }
        var r = Rect(x: 0, y: 0, width: 1, height: 1)
        if let d = Atspi.desktop(), let e = try? Atspi.extents(d), e.width > 0, e.height > 0 {
            r = Rect(x: 0, y: 0, width: e.width, height: e.height)
        }
        for a in apps { for w in a.windows { if let f = w.info.frame { r = r.union(f) } } }
        return (r.maxX, r.maxY)
    }

    /// Reads a window, or the menu open in it, into a snapshot and keeps its handles.
    func read(_ c: (app: App, window: Window, reason: String), screen: (width: Double, height: Double)) throws(AtspiCallError) -> DesktopSnapshot {
        var walker = Walker()
        walker.known = known
        walker.browser = RoleMapping.isBrowser(toolkit: c.app.info.toolkit)
        lastBrowser = walker.browser
        if c.app.gtk4 { walker.shownState = ATSPI_STATE_VISIBLE }
        unplacedWhy = nil
        switch c.window.origin {
        case .offset(let p, _, let scale)?: (walker.origin, walker.scale) = (p, scale)
        case .unknown(let why)?: unplacedWhy = why
        case .screen?, nil: break
        }
        try walker.walkRoot(c.window.ref)
        lastWalkSettings = (walker.shownState, walker.origin, walker.scale)
        // Only what the window still shows is remembered, so the cache cannot grow without bound.
        let learnt = walker.known.keeping(Set(walker.nodes.map(\.id)))
        var info = c.window.info
        var menuAlone = false
        // The menu the person opened last is scanned alone: the deepest of those opened by
        // the element last activated, else the deepest open. (LibreOffice opens a menu's
        // first submenu by itself with the menu: File shows New's list too.)
        let popup = walker.openPopups.last { p in lastActivatedID.map { p.openedBy.contains($0) } ?? false } ?? walker.openPopups.last
        if let menu = popup?.menu {
            var inner = Walker()
            inner.known = walker.known
            inner.shownState = walker.shownState
            inner.origin = walker.origin
            inner.scale = walker.scale
            inner.browser = walker.browser
            try inner.walkRoot(menu)
            if inner.nodes.count > 1 {
                walker = inner
                menuAlone = true
                info = DesktopWindow(id: inner.nodes[0].id, title: inner.nodes[0].label.isEmpty ? "menu" : inner.nodes[0].label,
                                     role: inner.nodes[0].role, active: info.active, modal: true, frame: inner.nodes[0].frame)
            }
        }
        // A menu caught as it opens, before its items show: read again 0.1 s later (its
        // items' own events may not say when they show), ten times at most; one wait at a time.
        if menuAlone && !walker.nodes.contains(where: \.isElement) {
            if emptyMenuRereads < 10 && !emptyMenuRereadPending {
                emptyMenuRereads += 1
                emptyMenuRereadPending = true
                thread.after(milliseconds: 100) { [self] in
                    emptyMenuRereadPending = false
                    feed(.acted)
                }
            }
        } else {
            emptyMenuRereads = 0
        }
        handles = walker.handles
        elements = walker.elements
        offscreen = Set(walker.nodes.lazy.filter { $0.offscreen && $0.isElement }.map(\.id))
        known = learnt
        lastNodes = menuAlone ? Self.withCloseEntry(walker.nodes, screenHeight: screen.height) : walker.nodes
        closeID = menuAlone ? lastNodes.last?.id : nil
        lastWindowID = info.id
        lastWindowRef = c.window.ref
        // A window without a title (GTK header bars) is announced by its application's name.
        var tree = Self.tree(lastNodes, screenID: info.id, title: info.title.isEmpty ? c.app.info.name : info.title, screen: screen)
        tree.isMenu = menuAlone
        let snapshot = DesktopSnapshot(tree: tree, application: c.app.info.name, window: info,
                                       nodeCount: walker.nodes.count, truncated: walker.truncated)
        lastSnapshot = snapshot
        return snapshot
    }

    /// Puts a window whose application measures from it on the screen: its place is asked
    /// of `places` (once a read of the applications, `listed`; afresh once, `refreshed`, when
    /// it lists no window of the application yet). A window whose frames are its own and
    /// whose place cannot be told is marked unknown: nothing is clicked in it.
    func place(_ w: inout Window, pid: Int32, gtk4: Bool, listed: inout [WindowPlace]?, refreshed: inout Bool) throws(AtspiCallError) {
        // Under Wayland a window at 0,0 that no source places is a native one (XWayland
        // windows are on the screen where they are; one at exactly 0,0 is refused too).
        let native = wayland && (w.info.frame.map { $0.x == 0 && $0.y == 0 } ?? true)
        guard let source = places else {
            if gtk4 || native {
                w.setOrigin(.unknown(why: (gtk4 ? "GTK 4 gives frames relative to its window" : "a native Wayland window gives frames relative to itself")
                                     + ", and no window list says where it is"))
            }
            return
        }
        // On X11 only GTK 4 measures from its window.
        guard gtk4 || source.native == .wayland else { return }
        let title = w.untitled ? "" : w.info.title
        if listed == nil { listed = source.places(fresh: false) }
        var match = WindowPlace.matching(pid: pid, title: title, in: listed ?? [])
        if match == nil && !refreshed {
            refreshed = true
            listed = source.places(fresh: true)
            match = WindowPlace.matching(pid: pid, title: title, in: listed ?? [])
        }
        guard let match else {
            if gtk4 || native { w.setOrigin(.unknown(why: "\(source.name) lists no window of process \(pid)\(title.isEmpty ? "" : " called '\(title)'")")) }
            return
        }
        let relative = gtk4 || match.client == .wayland
        guard relative else {
            if match.client != source.native { w.info.place = "an X11 client through XWayland: on the screen as it says" }
            return
        }
        guard let frame = w.info.frame else {
            w.setOrigin(.unknown(why: "its window has no frame on AT-SPI"))
            return
        }
        w.placeID = match.id
        var origin = FrameOrigin.of(frame: frame, place: match, windowRelative: true)
        // Where the compositor gives no buffer, GTK 3's shadow is told by its children
        // (kept: a window's shadow does not change).
        if case .unknown = origin, match.buffer == nil {
            if shadowOffsets[w.info.id] == nil {
                // A child gone meanwhile is no failure of the read; an application too slow is.
                do { shadowOffsets[w.info.id] = try Self.childrenCorner(w.ref).map { Point(x: $0.x - frame.x, y: $0.y - frame.y) } } catch {
                    if error.isTimeout { throw error }
                }
            }
            if let near = shadowOffsets[w.info.id] {
                origin = FrameOrigin.of(frame: frame, place: match, firstChild: near, windowRelative: true)
            }
        }
        w.setOrigin(origin, by: source.name)
    }

    /// A native popup (a menu, a combo box's list) is no window of the compositor's: it is
    /// matched to its application's window, whose size it does not have, and GTK gives its
    /// frame at its place inside that window (not at 0,0). It goes where that window goes,
    /// less its own shadow.
    func placePopups(_ windows: inout [Window]) {
        var offsets: [String: (Point, Double)] = [:]
        for w in windows {
            if let id = w.placeID, case .offset(let p, let from, let scale)? = w.origin, from != .parentWindow { offsets[id] = (p, scale) }
        }
        for k in windows.indices {
            guard case .unknown? = windows[k].origin, let id = windows[k].placeID, let parent = offsets[id],
                  let frame = windows[k].info.frame, frame.x != 0 || frame.y != 0, let near = shadowOffsets[windows[k].info.id] else { continue }
            windows[k].setOrigin(.ofPopup(parent: parent.0, firstChild: near, scale: parent.1), by: places?.name ?? "")
        }
    }

    /// Where a window's showing children begin, in the window's own coordinates: the
    /// nearest left and top edges among its first 16 (GTK 3 lists its header bar after its
    /// content). An application too slow to answer throws, as any read does.
    static func childrenCorner(_ window: AccessibleRef) throws(AtspiCallError) -> Point? {
        var corner: Point?
        for k in try Atspi.children(window).prefix(16) {
            let states = try Atspi.nonEmptyStates(k)
            guard states.has(ATSPI_STATE_SHOWING) || states.has(ATSPI_STATE_VISIBLE), let e = try Atspi.extents(k), e.width > 0, e.height > 0 else { continue }
            corner = Point(x: min(corner?.x ?? e.x, e.x), y: min(corner?.y ?? e.y, e.y))
        }
        return corner
    }

    /// LiveNodes (preorder, 0 the window) as an ElementTree.
    static func tree(_ nodes: [LiveNode], screenID: String, title: String, screen: (width: Double, height: Double)) -> ElementTree {
        var out: [ElementNode] = []
        out.reserveCapacity(nodes.count)
        for (i, n) in nodes.enumerated() {
            var e = ElementNode(id: n.id)
            e.isAccessibilityElement = n.isElement
            e.label = i == 0 ? (title.isEmpty ? nil : title) : (n.label.isEmpty ? nil : n.label)
            e.value = n.adjustable == nil ? n.value : nil
            e.hint = n.hint
            e.traits = n.traits
            if let f = n.frame {
                e.frame = f
                e.activationPoint = f.center
            }
            // A control with what it holds (a page tab and its page): kept together, the
            // control first, where the control is, when the window is scanned in screen order.
            if n.role == "content", let control = n.children.first, control < nodes.count, let f = nodes[control].frame {
                e.shouldGroupChildren = true
                e.frame = f
                e.activationPoint = f.center
            }
            e.viewIsModal = i != 0 && n.modal
            e.navigationStyle = n.flatten ? .separate : .automatic
            e.respondsToUserInteraction = n.respondsToUserInteraction
            e.customActions = n.customActions.map { CustomAction(name: $0) }
            e.onActivate = n.onActivate
            e.adjustable = n.adjustable
            e.textEntry = n.textEntry
            e.parent = n.parent
            e.children = n.children
            out.append(e)
        }
        if out.isEmpty { out.append(ElementNode(id: screenID)) }
        var tree = ElementTree(screenID: screenID, size: screen, naturalOrder: .application, nodes: out)
        tree.containersAreToolkits = true
        return tree
    }
}

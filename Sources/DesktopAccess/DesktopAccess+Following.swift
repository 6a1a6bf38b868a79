#if canImport(Glibc)
import Glibc
#endif
import CAtspi
import ScanCore
import ScanHost

// Following changes (AT-SPI thread): listeners, the follower fed, the field typed into, reads.
extension DesktopAccess {
    // MARK: - Following changes (AT-SPI thread)

    static let eventTypes = [
        "object:children-changed", "object:state-changed", "object:property-change:accessible-name",
        "object:property-change:accessible-value", "object:property-change:accessible-description",
        "object:value-changed", "object:bounds-changed", "object:text-changed", "object:text-caret-moved",
        "window:activate", "window:deactivate", "window:create", "window:destroy",
        "window:minimize", "window:restore",
    ]

    func registerListeners() {
        guard listeners.isEmpty else { return }
        // The listener owns a box with a weak reference to this object (released by the
        // listener's destroy notify): an event that comes after this object is gone finds nil.
        let box = Unmanaged.passRetained(ListenerBox(self)).toOpaque()
        guard let l = atspi_event_listener_new({ ev, ud in
            guard let ev else { return }
            defer { catspi_event_free(ev) }
            guard let ud else { return }
            let type = ev.pointee.type.map { String(cString: $0) } ?? ""
            var bus = "", id = ""
            if let source = ev.pointee.source {
                bus = String(cString: catspi_bus_name(source))
                id = Walker.id(bus: bus, path: String(cString: catspi_path(source)))
            }
            var xywh: [Int32] = [0, 0, 0, 0]
            let rect: Rect? = catspi_event_rect(ev, &xywh) != 0
                ? Rect(x: Double(xywh[0]), y: Double(xywh[1]), width: Double(xywh[2]), height: Double(xywh[3])) : nil
            Unmanaged<ListenerBox>.fromOpaque(ud).takeUnretainedValue().owner?.changed(type: type, bus: bus, id: id, rect: rect)
        }, box, { ud in
            if let ud { Unmanaged<ListenerBox>.fromOpaque(ud).release() }
        }) else {
            Unmanaged<ListenerBox>.fromOpaque(box).release()
            return
        }
        for t in Self.eventTypes {
            var err: UnsafeMutablePointer<GError>?
            _ = atspi_event_listener_register(l, t, &err)
            if err != nil { g_error_free(err) }
        }
        listeners.append(l)
    }

    /// An event from an application: the field followed is looked after here, the rest
    /// is the follower's.
    func changed(type: String, bus: String, id: String, rect: Rect?) {
        thread.preconditionOnThread()
        arrivalsForBench?.note(type)
        let e = DesktopEvent(type: type, bus: bus, id: id, rect: rect)
        if follower.isFromScannedWindow(e) {
            if type.hasPrefix("object:text-") { carryOut(fields.textChanged(id)) }
            if type.hasPrefix("object:state-changed:focused") {
                carryOut(fields.focusChanged(on: id) { elements[id].map { Atspi.states($0).has(ATSPI_STATE_FOCUSED) } ?? false })
            }
        }
        feed(.event(e))
    }

    /// Hands the follower an input and carries out what it asks for, in order; a read's
    /// result is handed back to it.
    func feed(_ input: DesktopFollower.Input) {
        thread.preconditionOnThread()
        var work = follower.handle(input, at: MonotonicClock.now())
        var i = 0
        while i < work.count {
            switch work[i] {
            case .readWindow:
                let result = readWindow()
                work += follower.handle(.read(result), at: MonotonicClock.now())
            case let .readElements(ids):
                let result = readElements(ids)
                work += follower.handle(.read(result), at: MonotonicClock.now())
            case let .notAnswering(bus):
                let name = knownApps[bus]?.info.name ?? bus
                report?("'\(name)' does not answer: scanning goes on with what it showed last, and it is looked at again every \(Int(follower.timing.passOver.seconds)) seconds.")
            case let .deliver(snapshot):
                fieldLeftUnlessShown(in: snapshot)
                if firstSnapshot != nil { firstSnapshot = .some(snapshot) } else { onChange?(snapshot) }
            case let .wakeAt(t):
                // A later request replaces an earlier one (they come in the order made).
                if let w = wakeToken { thread.cancel(w) }
                wakeToken = thread.schedule(at: t) { [self] in
                    wakeToken = nil
                    feed(.wake)
                }
            }
            i += 1
        }
    }

    func elementObject(_ id: String) -> AccessibleRef? { elements[id] }

    /// An application's name as last read, by its bus name.
    func knownAppName(_ bus: String) -> String? { knownApps[bus]?.info.name }

    /// A new snapshot: the field followed is left if it is not in it and no longer has the
    /// focus (`FieldFollower.shown`). Its states are read afresh, libatspi's cache aside.
    func fieldLeftUnlessShown(in snapshot: DesktopSnapshot) {
        carryOut(fields.shown(containing: { id in snapshot.tree.nodes.contains { $0.id == id } }, focused: { [fieldRef] in
            guard let ref = fieldRef else { return false }
            let states = Atspi.freshStates(ref)
            return states.raw == 0 ? nil : states.has(ATSPI_STATE_FOCUSED)
        }))
    }

    /// Follows the text before the caret of the element `id` (the field the keyboard types
    /// into; nil: none): it is read now and after each of its text and caret events, for
    /// `onFieldText`.
    public func followField(_ id: String?) {
        thread.async { [self] in
            thread.preconditionOnThread()
            fieldRef = id.flatMap { fieldObject($0) }
            fieldTyping = FieldTyping(field: fieldRef)
            carryOut(fields.follow(id))
        }
    }

    func fieldObject(_ id: String) -> AccessibleRef? { elements[id] ?? handles[id]?.ref }

    /// What the field's rules ask: a read of its text a moment later, or the keyboard told
    /// the field was left.
    func carryOut(_ actions: [FieldFollower.Action]) {
        for action in actions {
            switch action {
            case .readLater:
                thread.after(milliseconds: UInt32(FieldFollower.readDelay.nanoseconds / 1_000_000)) { [self] in
                    guard let id = fields.readDue(), let ref = fieldObject(id), let text = Atspi.textBeforeCaret(ref) else { return }
                    onFieldText?(text)
                }
            case .left:
                fieldRef = nil
                onFieldLeft?()
            }
        }
    }

    /// Reads the elements alone into the last snapshot; `elementsFailed` when the window
    /// must be read whole (an element went away, or a read failed).
    func readElements(_ ids: Set<String>) -> DesktopFollower.ReadResult {
        guard var snapshot = lastSnapshot, snapshot.window.id == lastWindowID else { return .elementsFailed }
        var nodes = lastNodes
        var walker = Walker()
        walker.known = known
        (walker.shownState, walker.origin, walker.scale) = lastWalkSettings
        walker.browser = lastBrowser
        for id in ids {
            guard let ref = elements[id], let i = nodes.firstIndex(where: { $0.id == id }) else { continue }
            let read: LiveNode?
            do { read = try walker.readElement(ref) } catch { return .elementsFailed }
            guard var fresh = read else { return .elementsFailed }
            fresh.parent = nodes[i].parent
            fresh.children = nodes[i].children
            nodes[i] = fresh
            if let h = walker.handles[id] { handles[id] = h }
        }
        known = walker.known
        guard nodes != lastNodes else { return .elements(snapshot, framed: [], changed: false) }
        lastNodes = nodes
        let t = snapshot.tree
        snapshot.tree = Self.tree(nodes, screenID: t.screenID, title: t[0].label ?? "", screen: (t.screenSize.width, t.screenSize.height))
        snapshot.tree.isMenu = t.isMenu
        lastSnapshot = snapshot
        return .elements(snapshot, framed: Self.framed(nodes), changed: true)
    }

    static func framed(_ nodes: [LiveNode]) -> Set<String> { Set(nodes.lazy.filter { $0.frame != nil }.map(\.id)) }

    /// Reads what would be scanned now: the chosen window whole, or an empty screen when
    /// there is none.
    func readWindow() -> DesktopFollower.ReadResult {
        let apps = readApplications()
        let screen = screenSize(apps)
        guard let c = chooseWindow(apps, app: appName) else {
            // Nothing to scan: an empty screen, handed on once.
            let empty = DesktopSnapshot(tree: Self.tree([], screenID: "none", title: "", screen: screen), application: "",
                                        window: DesktopWindow(id: "none", title: "", role: "", active: false, modal: false, frame: nil),
                                        nodeCount: 0, truncated: false)
            let changed = lastWindowID != "none"
            if changed {
                handles.removeAll()
                lastNodes = []
                lastWindowID = "none"
                lastSnapshot = empty
            }
            return .window(empty, bus: nil, elements: [], framed: [], changed: changed)
        }
        let bus = c.app.ref.busName
        // Its application does not answer: scanning goes on with what it showed last.
        if follower.isPassedOver(bus, at: MonotonicClock.now()) { return .passedOver(bus: bus) }
        let previousNodes = lastNodes, previousWindow = lastWindowID
        do {
            var s = try read(c, screen: screen)
            // A menu with nothing to scan is closing: GTK 3 reports a combo box's list hidden
            // a moment after it is, and libatspi still has its items showing. What is under
            // it is read instead.
            if c.window.popup && DesktopFollower.isEmpty(s) {
                let closing = c.window.info.id
                let rest = apps.map { a in var a = a; a.windows.removeAll { $0.info.id == closing }; return a }
                if let under = chooseWindow(rest, app: appName), under.app.ref.busName == bus { s = try read(under, screen: screen) }
            }
            return .window(s, bus: bus, elements: Set(elements.keys), framed: Self.framed(lastNodes),
                           changed: s.window.id != previousWindow || lastNodes != previousNodes)
        } catch {
            // The application stopped answering mid-read (or its window went as it was read):
            // what was known is kept.
            lastNodes = previousNodes
            lastWindowID = previousWindow
            return .failed(bus: bus, timeout: error.isTimeout)
        }
    }
}

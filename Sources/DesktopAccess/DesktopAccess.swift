#if canImport(Glibc)
import Glibc
#endif
import CAtspi
import ScanCore
import ScanHost

/// The live desktop as an element source: the accessibility tree of the active window read
/// into ElementTrees, re-read when the applications report changes, and the engine's
/// actions performed on the real widgets. Every libatspi call runs on one thread of its
/// own (AtspiThread); callers get finished values, and `perform` never waits. After `stop`,
/// every call returns at once: an error, nothing, or is dropped.
///
/// This is the I/O: walking a window, reading one element, acting, listening. When to read
/// and what to hand on is DesktopFollower's to decide; this class feeds it the events, the
/// reads' results and the time, and carries out what it asks for.
public final class DesktopAccess: @unchecked Sendable {
    let thread: SerialThread

    // Confined to the AT-SPI thread (checked where it is entered).
    private var handles: [String: LiveHandle] = [:]
    private var elements: [String: AccessibleRef] = [:]
    /// Elements of a web page outside its viewport at the last read: scrolled into view
    /// when highlighted.
    private var offscreen: Set<String> = []
    /// The application read last is a browser (Walker.browser).
    private var lastBrowser = false
    /// The last snapshot read: a change to one element is applied to it.
    var lastSnapshot: DesktopSnapshot?
    /// The policy: when to read, what to hand on.
    var follower = DesktopFollower()
    /// The timer that wakes the follower.
    private var wakeToken: Int?
    /// While `follow` reads the first snapshot: it is returned, not handed to `onChange`.
    private var firstSnapshot: DesktopSnapshot??
    private var lastWalkSettings = (ATSPI_STATE_SHOWING, Point(x: 0, y: 0))
    /// The window read last measures its frames from itself, and its place is not known: why.
    private var unplacedWhy: String?
    private var known = WalkCache()
    var knownForBench = WalkCache()
    /// Events whose arrival a benchmark times (`recordArrivals`); on the AT-SPI thread.
    var arrivalsForBench: EventArrivals?
    private var lastNodes: [LiveNode] = []
    private var lastWindowID: String?
    private var appName: String?
    private var onChange: ((DesktopSnapshot) -> Void)?
    private var listeners: [UnsafeMutablePointer<AtspiEventListener>] = []
    /// Applications the last read of the desktop could not read (bus name → the object and
    /// why): slow to answer, busy, or going away (DesktopAccess+Slow).
    var unreadApplications: [String: (ref: AccessibleRef, error: AtspiCallError)] = [:]
    /// Applications waited for in vain once: not waited for again (DesktopAccess+Slow).
    var waitedInVain: Set<String> = []
    /// Applications as last read: one that does not answer (the follower passes it over)
    /// keeps its windows as last seen.
    private var knownApps: [String: App] = [:]
    /// An action sent to an application that did not answer in time, by its bus name: it is
    /// still queued there and happens when the application answers, so no other is sent to
    /// it until then (a user who tried again would get it twice).
    private var pendingActions: [String: String] = [:]
    /// The connections that carried actions, by bus name, kept open until the application is
    /// done with them (DesktopAccess+Actions), and the timer that checks.
    var keptActions: [String: KeptActions] = [:]
    var keptCheckToken: Int?
    /// The window read last: keys typed without a field followed go to its application.
    var lastWindowRef: AccessibleRef?
    /// Whether the application typed into answers (DesktopAccess+Stall): set on the AT-SPI
    /// thread, read on the keys' queue and the presenters' before anything is sent or said.
    let typingStalled = Locked(false)
    var stallCheckToken: Int?
    /// When the application typed into first failed to answer, in the failures running now.
    var stallSince: ScanInstant?

    /// Where the platform's windows are (the X server, the compositor): windows whose
    /// applications measure their frames from themselves (native Wayland clients, GTK 4) are
    /// put on the screen from it. Unset, or a window it does not list, such frames stay
    /// window-relative and nothing is clicked in them. Set before `follow`; closed by `stop`.
    public var places: (any WindowPlaceSource)?
    /// The desktop is a Wayland session: a window at 0,0 that `places` does not place is a
    /// native one, measured from itself, and is not clicked. Set before `follow`.
    public var wayland = false
    /// GTK 3's shadow around each window, by window id, where the compositor does not say
    /// (AT-SPI thread).
    private var shadowOffsets: [String: Point] = [:]

    /// Where a failed action is reported (on the AT-SPI thread).
    public var report: (@Sendable (String) -> Void)?
    /// Clicks at a screen point for activations without an AT-SPI action and point-mode
    /// taps; returns whether it was done. Unset: the accessibility registry's injector (X11).
    public var click: (@Sendable (Point) -> Bool)?
    /// The Gestures page's gestures made with the pointer (a right click at the point, a
    /// drag to the second point, …); returns whether it was done. Unset: only scrolls that
    /// AT-SPI can make are made.
    public var gesture: (@Sendable (Gesture, Point, Point?) -> Bool)?
    /// Sends a key to the focused window (the Close entry of a menu scanned alone sends
    /// Escape); returns whether it could be sent. Unset: Close says it cannot.
    public var sendKey: (@Sendable (SpecialKey) -> Bool)?
    /// The Close entry of the menu scanned alone, if one is.
    private var closeID: String?
    /// The screen's size where the caller knows it (from the display); otherwise it is
    /// taken from the accessibility registry and the windows.
    public var screen: (width: Double, height: Double)?
    /// Changes coalesced before the window is read again (set before `follow`).
    public var coalesceMilliseconds: UInt32 = 30
    /// The text before the caret of the field being typed into (`followField`), each time
    /// it changes or the caret moves (on the AT-SPI thread).
    public var onFieldText: (@Sendable (String) -> Void)?
    /// The focus moved from the field followed to another element (a Tab, a click): the
    /// keyboard typing into the field must not type into that one unseen (on the AT-SPI
    /// thread; the field is no longer followed).
    public var onFieldLeft: (@Sendable () -> Void)?
    /// The field followed, by element id, its object (kept while the window is read again),
    /// and whether a read of it is on its way.
    var fieldID: String?
    var fieldRef: AccessibleRef?
    /// The element last tapped: a menu it opens is the one scanned, rather than a submenu
    /// the application opened by itself inside it.
    var lastActivatedID: String?
    private var fieldReadPending = false
    /// Reads again of a menu read before its items showed.
    private var emptyMenuRereads = 0
    private var emptyMenuRereadPending = false
    /// What is known of the field for inserting text into it (DesktopAccess+Insert).
    var fieldTyping = FieldTyping() { didSet { fieldInsertable.set(fieldTyping.insertable) } }
    /// Whether it is worth asking the AT-SPI thread for an insert (read on the keys' queue).
    let fieldInsertable = Locked(false)

    private let stopped = Locked(false)
    /// Accessibility was off on the bus when this connected, and SwitchScan turned it on.
    public private(set) var turnedAccessibilityOn = false

    /// What to tell the user when accessibility was turned on: applications that read the
    /// flag only when they start show nothing until they are started again.
    public static let turnedOnNote = "Note: accessibility was off on the bus; SwitchScan turned it on (IsEnabled). Firefox shows its windows within seconds; Chromium and Electron applications started before show theirs after a restart."

    private init(thread: SerialThread) { self.thread = thread }

    /// Dropped without `stop`: the listeners are deregistered on the AT-SPI thread, and the
    /// thread ends.
    deinit {
        guard stopped.withLock({ stopped in defer { stopped = true }; return !stopped }) else { return }
        let listeners = self.listeners
        // The connections kept for actions stay open until the process ends (as after stop).
        thread.async { Self.deregister(listeners) }
        thread.stop()
    }

    private static func deregister(_ listeners: [UnsafeMutablePointer<AtspiEventListener>]) {
        for l in listeners {
            for t in eventTypes {
                var err: UnsafeMutablePointer<GError>?
                _ = atspi_event_listener_deregister(l, t, &err)
                if err != nil { g_error_free(err) }
            }
            g_object_unref(l)
        }
    }

    /// Connects to the accessibility bus, or says how to make it reachable.
    public static func connect() throws(DesktopError) -> DesktopAccess {
        // Without a session bus address libdbus may start another session bus through X11,
        // which steals the accessibility bus's socket from the real session: forbid that.
        // libatspi then finds the bus through the display (the AT_SPI_BUS property), or not.
        if getenv("DBUS_SESSION_BUS_ADDRESS") == nil { setenv("DBUS_SESSION_BUS_ADDRESS", "disabled:", 1) }
        // Browsers publish their trees only while the bus says accessibility is on.
        let enabling = enableAccessibility()
        // libatspi aborts the process on its first call after a failed connection.
        guard Atspi.setUp() else { throw .noBus }
        guard let desktop = Atspi.desktop() else { throw .noBus }
        // The registry answers on the bus; if it cannot be started, nothing is there.
        var err: UnsafeMutablePointer<GError>?
        _ = atspi_accessible_get_child_count(desktop.pointer, &err)
        if err != nil { g_error_free(err); throw .noBus }
        do {
            let access = DesktopAccess(thread: try AtspiThread.start())
            access.turnedAccessibilityOn = enabling == .turnedOn
            return access
        } catch {
            throw DesktopError(description: "Error: the accessibility thread could not be started: \(error).")
        }
    }

    /// Ends following and the AT-SPI thread; later calls return at once (an error, nothing,
    /// or are dropped).
    public func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        // The last job: whatever was queued before it has run.
        try? thread.sync { [self] in
            feed(.stop)
            if let w = wakeToken { thread.cancel(w) }
            wakeToken = nil
            if let t = stallCheckToken { thread.cancel(t) }
            stallCheckToken = nil
            lastWindowRef = nil
            fieldID = nil
            fieldRef = nil
            Self.deregister(listeners)
            listeners.removeAll()
            releaseKeptActions(stopping: true)
            handles.removeAll()
            elements.removeAll()
            onChange = nil
        }
        thread.stop()
        // After the thread: a change it reports finds nothing to feed.
        places?.close()
    }

    // MARK: - Reading

    /// Every application on the bus with its showing windows.
    public func applications() -> [DesktopApplication] {
        waitForSlowApplications()
        return (try? thread.sync { [self] in readApplications().map { $0.info } }) ?? []
    }

    /// The window that would be scanned, or why there is none.
    public func choose(app: String?) -> Result<WindowChoice, DesktopError> {
        waitForSlowApplications()
        do { return try thread.sync { [self] in
            let apps = readApplications()
            guard let c = chooseWindow(apps, app: app) else {
                return .failure(.noApplication(app, known: apps.map(\.info.name), unread: unreadApplications.map(\.value.error)))
            }
            return .success(WindowChoice(application: c.app.info.name, window: c.window.info, reason: c.reason))
        } } catch { return .failure(.stopped) }
    }

    /// The chosen window read once.
    public func snapshot(app: String?) -> Result<DesktopSnapshot, DesktopError> {
        waitForSlowApplications()
        do { return try thread.sync { [self] in
            let apps = readApplications()
            guard let c = chooseWindow(apps, app: app) else {
                return .failure(.noApplication(app, known: apps.map(\.info.name), unread: unreadApplications.map(\.value.error)))
            }
            do {
                return .success(try read(c, screen: screenSize(apps)))
            } catch let error as AtspiCallError {
                return .failure(.unreadWindow(c.window.info.title, of: c.app.info.name, error))
            } catch {
                return .failure(DesktopError(description: "Error: reading the window '\(c.window.info.title)' of '\(c.app.info.name)' failed: \(error)."))
            }
        } } catch { return .failure(.stopped) }
    }

    /// Follows the chosen window: `onChange` (on the AT-SPI thread) receives a new snapshot
    /// each time what would be scanned changes: the window's content, or another window.
    /// The first snapshot is returned (nil when no window can be scanned yet, or after
    /// `stop`).
    public func follow(app: String?, onChange: @escaping @Sendable (DesktopSnapshot) -> Void) -> DesktopSnapshot? {
        try? thread.sync { [self] in
            appName = app
            self.onChange = onChange
            follower.timing.coalesce = .milliseconds(Int64(coalesceMilliseconds))
            registerListeners()
            // A native Wayland window moved says nothing on AT-SPI (its frames are its own):
            // the compositor tells.
            places?.follow { [weak self] in
                guard let self else { return }
                thread.async { [self] in feed(.event(DesktopEvent(type: "window:place-changed", bus: "", id: "", rect: nil))) }
            }
            firstSnapshot = .some(nil)
            feed(.start)
            let first = firstSnapshot ?? nil
            firstSnapshot = nil
            return first
        } ?? nil
    }

    // MARK: - Acting

    /// Performs what the engine asked for on the live widgets, in order, on the AT-SPI
    /// thread; returns at once.
    public func perform(_ effects: [TimedEffect]) {
        var work: [Effect] = []
        for e in effects {
            // The element last acted on: a menu it opens is the one scanned.
            switch e.effect {
            case .activate(let element, _, _), .customAction(let element, _, _), .adjust(let element, _, _),
                 .tap(_, let element?), .gesture(_, let element?, _, _):
                thread.async { [self] in lastActivatedID = element }
            default: break
            }
            switch e.effect {
            case .activate(let element, _, _):
                // Acted on (a tap, the keyboard opened for a field) outside the viewport: seen.
                thread.async { [self] in scrollIntoView(element, group: false) }
                work.append(e.effect)
            case .customAction, .adjust, .tap, .gesture: work.append(e.effect)
            // What lies outside a page's viewport is brought into view when the person goes
            // into it or selects it, never as the highlight passes: a long page stays where
            // it is while it is read (and a highlight below it is merely not seen).
            case .enterGroup(let group):
                thread.async { [self] in scrollIntoView(group, group: true) }
            case .menuOpen(let element?, _, _):
                thread.async { [self] in scrollIntoView(element, group: false) }
            default: break
            }
        }
        guard !work.isEmpty else { return }
        thread.async { [self] in
            for e in work { perform(e) }
            // An action usually changes the window beyond its element (a scroll moves
            // content), and some toolkits do not say so: the window is read whole.
            feed(.acted)
        }
    }

    /// An element selected, or a group entered all of whose elements are, outside a web
    /// page's viewport is scrolled into view (a group to the top of the view, so that as
    /// much of it as fits shows), and the window is read again: the outline and the menu
    /// are drawn where it now is.
    private func scrollIntoView(_ item: String, group: Bool) {
        thread.preconditionOnThread()
        guard !offscreen.isEmpty else { return }
        var target: String?
        if !group {
            target = offscreen.contains(item) ? item : nil
        } else if let tree = lastSnapshot?.tree, let g = tree.nodes.firstIndex(where: { $0.id == item }) {
            var members: [String] = []
            var stack = [g]
            while let k = stack.popLast() {
                let n = tree.nodes[k]
                if n.isAccessibilityElement && elements[n.id] != nil { members.append(n.id) }
                stack += n.children.reversed()
            }
            if let first = members.first, members.allSatisfy({ offscreen.contains($0) }) { target = first }
        }
        guard let target, let a = elements[target] else { return }
        do {
            guard try Atspi.scrollTo(a, top: group) else { return }
        } catch {
            return fail("Scrolling to \(handles[target]?.label ?? "the element") failed: \(error)")
        }
        offscreen.remove(target)
        feed(.acted)
    }

    private func perform(_ effect: Effect) {
        thread.preconditionOnThread()
        var what = "the action"
        var bus: String?
        do {
            switch effect {
            case let .activate(element, _, _) where element == closeID:
                // The menu's Close entry: Escape, as the Keys page sends it.
                guard let sendKey else { return fail("Close failed: keys cannot be sent") }
                if !sendKey(.escape) { fail("Close failed: the Escape key could not be sent") }
            case let .activate(element, point, _):
                guard let h = handles[element] else { return fail("Tap failed: the element is no longer on the screen") }
                what = "Tap on \(h.label)"
                bus = h.ref.busName
                guard try answersAgain(h, what) else { return }
                if let i = h.primaryAction, try Atspi.doActionAlone(h.ref, i, keep: { keep($0, answered: $1, of: h.ref) }) { return }
                // No action: focus it (a text field is then ready for typing), and click it.
                let focused = (try? Atspi.grabFocus(h.ref)) ?? false
                if h.editable && focused { return }
                try clickAt(point, what)
            case let .customAction(element, action, _):
                guard let h = handles[element] else { return fail("\(action) failed: the element is no longer on the screen") }
                what = "\(action) on \(h.label)"
                bus = h.ref.busName
                guard try answersAgain(h, what) else { return }
                guard let i = h.actions.firstIndex(of: action) else { return fail("\(what) failed: the element has no such action") }
                if !(try Atspi.doActionAlone(h.ref, i, keep: { keep($0, answered: $1, of: h.ref) })) { fail("\(what) failed: the application refused it") }
            case let .adjust(element, direction, _):
                guard let h = handles[element] else { return fail("\(direction.title) failed: the element is no longer on the screen") }
                what = "\(direction.title) of \(h.label)"
                bus = h.ref.busName
                guard try answersAgain(h, what) else { return }
                guard let v = try Atspi.value(h.ref), v.max > v.min else { return fail("\(what) failed: it has no value to adjust") }
                // AT-SPI has no page increment: a page is a tenth of the range, at least a step.
                let small = v.step > 0 ? v.step : (v.max - v.min) / 20
                let step = direction.isPage ? max(small, (v.max - v.min) / 10) : small
                let next = min(v.max, max(v.min, v.current + Double(direction.sign) * step))
                if next != v.current, !(try Atspi.setValue(h.ref, next)) { fail("\(what) failed: the application refused the value") }
            case let .tap(point, _):
                what = "Tap at \(Int(point.x)), \(Int(point.y))"
                try clickAt(point, what)
            case let .gesture(g, element, point, to):
                let h = element.flatMap { handles[$0] }
                what = g.title + (h.map { " on \($0.label)" } ?? " at \(Int(point.x)), \(Int(point.y))")
                if let h {
                    bus = h.ref.busName
                    guard try answersAgain(h, what) else { return }
                    // A scroll through the scroll bar of the pane around the element, where
                    // there is one; clicks, presses and drags only the pointer can make.
                    if g.isScroll, try scroll(from: h.ref, g) { return }
                }
                try gestureAt(g, point, to, what)
            default:
                break
            }
        } catch {
            // A call that timed out was delivered: the application carries it out when it
            // answers again. So it is said to be waiting, not failed, and nothing more is sent.
            if error.isTimeout, let bus {
                pendingActions[bus] = what
                fail("\(what) is waiting: the application does not answer. It happens when the application answers again; it is not sent twice.")
            } else {
                fail("\(what) failed: \(error.isTimeout ? "the application does not answer" : error.description)")
            }
        }
    }

    /// Whether the element's application has answered since an action of its own timed out;
    /// if not, `what` is not sent (said so). Any answer means the earlier action was taken:
    /// the application handles its calls in order.
    private func answersAgain(_ h: LiveHandle, _ what: String) throws(AtspiCallError) -> Bool {
        let bus = h.ref.busName
        guard let earlier = pendingActions[bus] else { return true }
        do {
            _ = try Atspi.extents(h.ref)
        } catch {
            guard error.isTimeout else { throw error }
            fail("\(what) not sent: the application still does not answer, and \(earlier) is waiting to happen when it does.")
            return false
        }
        pendingActions[bus] = nil
        return true
    }

    private func clickAt(_ p: Point, _ what: String) throws(AtspiCallError) {
        if let unplacedWhy {
            return fail("\(what) failed: where this window is on the screen is not known (\(unplacedWhy)), so it is not clicked")
        }
        if let click {
            if !click(p) { fail("\(what) failed: the click could not be made") }
            return
        }
        try Atspi.click(x: p.x, y: p.y)
    }

    /// Scrolls the nearest scroll pane around `a` (or `a` itself) by most of what it shows,
    /// through its scroll bar's value. False where there is no such pane or bar, or the bar
    /// is at its end already (the pointer's wheel is tried then: the application may scroll
    /// something AT-SPI does not show).
    private func scroll(from a: AccessibleRef, _ g: Gesture) throws(AtspiCallError) -> Bool {
        let vertical = g == .scrollUp || g == .scrollDown
        var cur: AccessibleRef? = a
        var depth = 0
        while let c = cur, depth < 64 {
            if try Atspi.role(c) == ATSPI_ROLE_SCROLL_PANE {
                for bar in try Atspi.children(c) where try Atspi.role(bar) == ATSPI_ROLE_SCROLL_BAR {
                    let states = Atspi.states(bar)
                    guard states.has(vertical ? ATSPI_STATE_VERTICAL : ATSPI_STATE_HORIZONTAL),
                          let v = try Atspi.value(bar), v.max > v.min else { continue }
                    // GTK's scroll bars count in pixels: most of the pane's length, as Page
                    // Down scrolls; at least a step, at most a tenth of the range unknown.
                    let length = try Atspi.extents(c).map { vertical ? $0.height : $0.width } ?? 0
                    let page = max(v.step, length > 0 ? length * 0.8 : (v.max - v.min) / 10)
                    let sign: Double = g == .scrollDown || g == .scrollRight ? 1 : -1
                    let next = min(v.max, max(v.min, v.current + sign * page))
                    guard next != v.current else { return false }
                    return try Atspi.setValue(bar, next)
                }
                return false
            }
            cur = try Atspi.parent(c)
            depth += 1
        }
        return false
    }

    private func gestureAt(_ g: Gesture, _ p: Point, _ to: Point?, _ what: String) throws(AtspiCallError) {
        if let unplacedWhy {
            return fail("\(what) failed: where this window is on the screen is not known (\(unplacedWhy)), so it is not made")
        }
        guard let gesture else { return fail("\(what) failed: no pointer to make it with") }
        if !gesture(g, p, to) { fail("\(what) failed: the pointer could not make it") }
    }

    func fail(_ message: String) { report?(message) }

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
            case .offset(_, let from):
                info.frame = info.frame.flatMap(o.place)
                info.place = "placed by \(source) (\(from.rawValue))"
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
                                                 modal: states.has(ATSPI_STATE_MODAL) || role == ATSPI_ROLE_ALERT,
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
    private func screenSize(_ apps: [App]) -> (width: Double, height: Double) {
        if let screen { return (screen.width, screen.height) }
        var r = Rect(x: 0, y: 0, width: 1, height: 1)
        if let d = Atspi.desktop(), let e = try? Atspi.extents(d), e.width > 0, e.height > 0 {
            r = Rect(x: 0, y: 0, width: e.width, height: e.height)
        }
        for a in apps { for w in a.windows { if let f = w.info.frame { r = r.union(f) } } }
        return (r.maxX, r.maxY)
    }

    /// Reads a window, or the menu open in it, into a snapshot and keeps its handles.
    private func read(_ c: (app: App, window: Window, reason: String), screen: (width: Double, height: Double)) throws(AtspiCallError) -> DesktopSnapshot {
        var walker = Walker()
        walker.known = known
        walker.browser = RoleMapping.isBrowser(toolkit: c.app.info.toolkit)
        lastBrowser = walker.browser
        if c.app.gtk4 { walker.shownState = ATSPI_STATE_VISIBLE }
        unplacedWhy = nil
        switch c.window.origin {
        case .offset(let p, _)?: walker.origin = p
        case .unknown(let why)?: unplacedWhy = why
        case .screen?, nil: break
        }
        try walker.walkRoot(c.window.ref)
        lastWalkSettings = (walker.shownState, walker.origin)
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
    private func place(_ w: inout Window, pid: Int32, gtk4: Bool, listed: inout [WindowPlace]?, refreshed: inout Bool) throws(AtspiCallError) {
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
    private func placePopups(_ windows: inout [Window]) {
        var offsets: [String: Point] = [:]
        for w in windows {
            if let id = w.placeID, case .offset(let p, let from)? = w.origin, from != .parentWindow { offsets[id] = p }
        }
        for k in windows.indices {
            guard case .unknown? = windows[k].origin, let id = windows[k].placeID, let parent = offsets[id],
                  let frame = windows[k].info.frame, frame.x != 0 || frame.y != 0, let near = shadowOffsets[windows[k].info.id] else { continue }
            windows[k].setOrigin(.ofPopup(parent: parent, firstChild: near), by: places?.name ?? "")
        }
    }

    /// Where a window's showing children begin, in the window's own coordinates: the
    /// nearest left and top edges among its first 16 (GTK 3 lists its header bar after its
    /// content). An application too slow to answer throws, as any read does.
    private static func childrenCorner(_ window: AccessibleRef) throws(AtspiCallError) -> Point? {
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

    // MARK: - Following changes (AT-SPI thread)

    private static let eventTypes = [
        "object:children-changed", "object:state-changed", "object:property-change:accessible-name",
        "object:property-change:accessible-value", "object:property-change:accessible-description",
        "object:value-changed", "object:bounds-changed", "object:text-changed", "object:text-caret-moved",
        "window:activate", "window:deactivate", "window:create", "window:destroy",
        "window:minimize", "window:restore",
    ]

    private func registerListeners() {
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
    private func changed(type: String, bus: String, id: String, rect: Rect?) {
        thread.preconditionOnThread()
        arrivalsForBench?.note(type)
        let e = DesktopEvent(type: type, bus: bus, id: id, rect: rect)
        if follower.isFromScannedWindow(e) {
            if type.hasPrefix("object:text-"), id == fieldID { scheduleFieldRead() }
            if type.hasPrefix("object:state-changed:focused"), let field = fieldID, id != field,
               let ref = elements[id], Atspi.states(ref).has(ATSPI_STATE_FOCUSED) {
                fieldID = nil
                fieldRef = nil
                onFieldLeft?()
            }
        }
        feed(.event(e))
    }

    /// Hands the follower an input and carries out what it asks for, in order; a read's
    /// result is handed back to it.
    private func feed(_ input: DesktopFollower.Input) {
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

    /// The field followed is not in the window now scanned (another window or dialog took
    /// the focus, a page was replaced) and no longer has the focus: the keyboard typing into
    /// it must not type into whatever has it now, unseen, nor stay over a dialog's fields.
    /// (A field whose window shows a list of suggestions keeps the focus, and its keyboard.)
    private func fieldLeftUnlessShown(in snapshot: DesktopSnapshot) {
        guard let field = fieldID, !snapshot.tree.nodes.contains(where: { $0.id == field }) else { return }
        // (No states at all is no answer: the field is kept until the application says.)
        if let ref = fieldRef {
            let states = Atspi.freshStates(ref)
            if states.raw == 0 || states.has(ATSPI_STATE_FOCUSED) { return }
        }
        fieldID = nil
        fieldRef = nil
        onFieldLeft?()
    }

    /// Follows the text before the caret of the element `id` (the field the keyboard types
    /// into; nil: none): it is read now and after each of its text and caret events, for
    /// `onFieldText`.
    public func followField(_ id: String?) {
        thread.async { [self] in
            thread.preconditionOnThread()
            fieldID = id
            fieldRef = id.flatMap { fieldObject($0) }
            fieldTyping = FieldTyping(field: fieldRef)
            if id != nil { scheduleFieldRead() }
        }
    }

    func fieldObject(_ id: String) -> AccessibleRef? { elements[id] ?? handles[id]?.ref }

    /// A burst of text events (a word typed) is read once, 5 ms after its first.
    private func scheduleFieldRead() {
        guard !fieldReadPending else { return }
        fieldReadPending = true
        thread.after(milliseconds: 5) { [self] in
            fieldReadPending = false
            guard let id = fieldID, let ref = fieldObject(id),
                  let text = Atspi.textBeforeCaret(ref) else { return }
            onFieldText?(text)
        }
    }

    /// Reads the elements alone into the last snapshot; `elementsFailed` when the window
    /// must be read whole (an element went away, or a read failed).
    private func readElements(_ ids: Set<String>) -> DesktopFollower.ReadResult {
        guard var snapshot = lastSnapshot, snapshot.window.id == lastWindowID else { return .elementsFailed }
        var nodes = lastNodes
        var walker = Walker()
        walker.known = known
        (walker.shownState, walker.origin) = lastWalkSettings
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
    private func readWindow() -> DesktopFollower.ReadResult {
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

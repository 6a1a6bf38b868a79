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
    var handles: [String: LiveHandle] = [:]
    var elements: [String: AccessibleRef] = [:]
    /// Elements of a web page outside its viewport at the last read: scrolled into view
    /// when highlighted.
    var offscreen: Set<String> = []
    /// The application read last is a browser (Walker.browser).
    var lastBrowser = false
    /// The last snapshot read: a change to one element is applied to it.
    var lastSnapshot: DesktopSnapshot?
    /// The policy: when to read, what to hand on.
    var follower = DesktopFollower()
    /// The timer that wakes the follower.
    var wakeToken: Int?
    /// While `follow` reads the first snapshot: it is returned, not handed to `onChange`.
    var firstSnapshot: DesktopSnapshot??
    var lastWalkSettings = (ATSPI_STATE_SHOWING, Point(x: 0, y: 0), 1.0)
    /// The window read last measures its frames from itself, and its place is not known: why.
    var unplacedWhy: String?
    var known = WalkCache()
    var knownForBench = WalkCache()
    /// Events whose arrival a benchmark times (`recordArrivals`); on the AT-SPI thread.
    var arrivalsForBench: EventArrivals?
    var lastNodes: [LiveNode] = []
    var lastWindowID: String?
    var appName: String?
    var onChange: ((DesktopSnapshot) -> Void)?
    var listeners: [UnsafeMutablePointer<AtspiEventListener>] = []
    /// Applications the last read of the desktop could not read (bus name → the object and
    /// why): slow to answer, busy, or going away (DesktopAccess+Slow).
    var unreadApplications: [String: (ref: AccessibleRef, error: AtspiCallError)] = [:]
    /// Applications waited for in vain once: not waited for again (DesktopAccess+Slow).
    var waitedInVain: Set<String> = []
    /// Applications as last read: one that does not answer (the follower passes it over)
    /// keeps its windows as last seen.
    var knownApps: [String: App] = [:]
    /// An action sent to an application that did not answer in time, by its bus name: it is
    /// still queued there and happens when the application answers, so no other is sent to
    /// it until then (a user who tried again would get it twice).
    var pendingActions: [String: String] = [:]
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

    /// Given at the start (`DesktopHooks` says what each is).
    public let places: (any WindowPlaceSource)?
    public let wayland: Bool
    public let screen: (width: Double, height: Double)?
    let coalesceMilliseconds: UInt32
    let report: (@Sendable (String) -> Void)?
    let click: (@Sendable (Point) -> Bool)?
    let gesture: (@Sendable (Gesture, Point, Point?) -> Bool)?
    let onFieldText: (@Sendable (String) -> Void)?
    let onFieldLeft: (@Sendable () -> Void)?
    /// GTK 3's shadow around each window, by window id, where the compositor does not say
    /// (AT-SPI thread).
    var shadowOffsets: [String: Point] = [:]

    /// The Close entry of the menu scanned alone, if one is.
    var closeID: String?
    /// The field followed (its rules: `FieldFollower`), and its object (kept while the window
    /// is read again).
    var fields = FieldFollower()
    var fieldID: String? { fields.field }
    var fieldRef: AccessibleRef?
    /// The element last tapped: a menu it opens is the one scanned, rather than a submenu
    /// the application opened by itself inside it.
    var lastActivatedID: String?
    /// Reads again of a menu read before its items showed.
    var emptyMenuRereads = 0
    var emptyMenuRereadPending = false
    /// What is known of the field for inserting text into it (DesktopAccess+Insert).
    var fieldTyping = FieldTyping() { didSet { fieldInsertable.set(fieldTyping.insertable) } }
    /// Whether it is worth asking the AT-SPI thread for an insert (read on the keys' queue).
    let fieldInsertable = Locked(false)

    let stopped = Locked(false)
    /// Accessibility was off on the bus when this connected, and SwitchScan turned it on.
    public private(set) var turnedAccessibilityOn = false

    /// What to tell the user when accessibility was turned on: applications that read the
    /// flag only when they start show nothing until they are started again.
    public static let turnedOnNote = "Note: accessibility was off on the bus; SwitchScan turned it on (IsEnabled). Firefox shows its windows within seconds; Chromium and Electron applications started before show theirs after a restart."

    private init(thread: SerialThread, hooks: DesktopHooks) {
        self.thread = thread
        places = hooks.places; wayland = hooks.wayland; screen = hooks.screen; coalesceMilliseconds = hooks.coalesceMilliseconds
        report = hooks.report; click = hooks.click; gesture = hooks.gesture; onFieldText = hooks.onFieldText; onFieldLeft = hooks.onFieldLeft
    }

    /// Dropped without `stop`: the listeners are deregistered on the AT-SPI thread, and the
    /// thread ends.
    deinit {
        guard stopped.withLock({ stopped in defer { stopped = true }; return !stopped }) else { return }
        let listeners = self.listeners
        // The connections kept for actions stay open until the process ends (as after stop).
        thread.async { Self.deregister(listeners) }
        thread.stop()
    }

    static func deregister(_ listeners: [UnsafeMutablePointer<AtspiEventListener>]) {
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
    public static func connect(_ hooks: DesktopHooks = DesktopHooks()) throws(DesktopError) -> DesktopAccess {
        // Without a session bus address libdbus may start another session bus through X11,
        // which steals the accessibility bus's socket from the real session: forbid that.
        // libatspi then finds the bus through the display (the AT_SPI_BUS property), or not.
        if getenv("DBUS_SESSION_BUS_ADDRESS") == nil { setenv("DBUS_SESSION_BUS_ADDRESS", "disabled:", 1) }
        // Browsers publish their trees only while the bus says accessibility is on.
        let enabling = enableAccessibility()
        // libatspi aborts the process on its first call after a failed connection.
        guard Atspi.setUp() else { throw .noBus }
        guard let desktop = Atspi.desktop() else { throw .noBus }
        // What libatspi cached for an earlier connection in this process went stale while
        // nobody listened to its change events.
        atspi_accessible_clear_cache(desktop.pointer)
        // The registry answers on the bus; if it cannot be started, nothing is there.
        var err: UnsafeMutablePointer<GError>?
        _ = atspi_accessible_get_child_count(desktop.pointer, &err)
        if err != nil { g_error_free(err); throw .noBus }
        do {
            let access = DesktopAccess(thread: try AtspiThread.start(), hooks: hooks)
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
            fields.forget()
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

    /// The chosen window read once. An application that stops answering while its window is
    /// read (busy building the objects of a big window the first time they are asked for) is
    /// waited for as in `waitForSlowApplications`, and the window read again.
    public func snapshot(app: String?) -> Result<DesktopSnapshot, DesktopError> {
        let deadline = MonotonicClock.now() + .milliseconds(Self.patienceMilliseconds)
        var readAgain = 0
        while true {
            waitForSlowApplications(until: deadline)
            let outcome: (Result<DesktopSnapshot, DesktopError>, again: Bool)
            do { outcome = try thread.sync { [self] in
                let apps = readApplications()
                guard let c = chooseWindow(apps, app: app) else {
                    return (.failure(.noApplication(app, known: apps.map(\.info.name), unread: unreadApplications.map(\.value.error))), false)
                }
                do {
                    var s = try read(c, screen: screenSize(apps))
                    s.readAgain = readAgain
                    return (.success(s), false)
                } catch let error as AtspiCallError {
                    let bus = c.app.ref.busName
                    let again = error.isTimeout && MonotonicClock.now() < deadline && !waitedInVain.contains(bus)
                        && worthWaiting(for: bus, c.app.ref, until: deadline)
                    return (.failure(.unreadWindow(c.window.info.title, of: c.app.info.name, error)), again)
                } catch {
                    return (.failure(DesktopError(description: "Error: reading the window '\(c.window.info.title)' of '\(c.app.info.name)' failed: \(error).")), false)
                }
            } } catch { return .failure(.stopped) }
            if !outcome.again { return outcome.0 }
            readAgain += 1
        }
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

}

import ScanCore

/// An event an application sent over the accessibility bus, as the follower sees it.
struct DesktopEvent: Equatable, Sendable {
    /// The AT-SPI event type ("object:state-changed:checked", "window:activate", …).
    var type: String
    /// The sending application's bus name.
    var bus: String
    /// The source object's element id.
    var id: String
    /// The rectangle a bounds change carries.
    var rect: Rect?
}

/// How the live desktop is followed, apart from the AT-SPI calls: which events count, when
/// the window is read again (whole, or its changed elements alone), which snapshots are
/// handed on, how an application that does not answer is passed over, and how a flood of
/// events is slowed down. Inputs are events, the results of the reads it asked for and the
/// time; outputs are reads to make, snapshots to hand on and when to be woken. Pure: no
/// clock, no I/O (DesktopAccess carries out its outputs on the AT-SPI thread).
struct DesktopFollower {
    struct Timing {
        /// Reads of the window start at least this far apart: a burst is read once.
        var coalesce = ScanDuration.milliseconds(30)
        /// The first change of a burst waits this long (the rest of it is on its way).
        var firstWait = ScanDuration.milliseconds(2)
        /// While nothing can be scanned, the desktop is read again: quickly at first (a
        /// window closing), then slowly.
        var recheckQuick = ScanDuration.milliseconds(250)
        var quickRechecks = 8
        var recheckSlow = ScanDuration.milliseconds(1000)
        /// After an action the window is read at once, and again (the window chosen anew) this
        /// long after it: what an action opens or closes may say nothing, or come after the
        /// first read (a modal dialog run from a menu item, a menu closing without an event).
        var afterAction: [ScanDuration] = [.milliseconds(100), .milliseconds(250)]
        /// A read that failed (the window went as it was read) is tried again after this.
        var retryAfterFailure = ScanDuration.milliseconds(250)
        /// An application that did not answer in time is passed over this long.
        var passOver = ScanDuration.seconds(3)
        /// Its window is read again this long after it is no longer passed over.
        var afterPassOver = ScanDuration.milliseconds(10)
        /// More events than this within one second from one application is a flood
        /// (0: no flood guard).
        var floodEvents = 200
        /// During a flood, reads start at least this far apart.
        var floodSpacing = ScanDuration.milliseconds(200)
    }

    enum Input {
        /// Following begins: the window is read at once, and that first snapshot is handed
        /// on whatever it holds.
        case start
        /// Following ends: nothing more is read.
        case stop
        case event(DesktopEvent)
        /// An action was performed on the window: it is read whole (some toolkits say
        /// nothing of what an action changed), at once and again `timing.afterAction` later.
        case acted
        /// The time asked for with `wakeAt` (or later) has come.
        case wake
        case read(ReadResult)
    }

    /// What a read asked for found.
    enum ReadResult {
        /// `readWindow`: the window that would be scanned, read whole; `bus` is its
        /// application, nil when no window can be scanned (the snapshot is then empty).
        /// `elements`: the ids that can be read again alone; `framed`: the ids of the nodes
        /// with a frame. `changed`: it differs from the last read (another window, or other
        /// nodes).
        case window(DesktopSnapshot, bus: String?, elements: Set<String>, framed: Set<String>, changed: Bool)
        /// `readElements`: the last snapshot with those elements read again.
        case elements(DesktopSnapshot, framed: Set<String>, changed: Bool)
        /// `readElements` could not be done (an element went away, a read failed): the
        /// window is read whole instead.
        case elementsFailed
        /// The window's application is being passed over (it did not answer): not read.
        case passedOver(bus: String)
        /// Reading the window failed; `timeout`: its application did not answer in time.
        case failed(bus: String, timeout: Bool)
    }

    enum Output {
        /// Read the window that would be scanned, whole, and report `.window`.
        case readWindow
        /// Read these elements of the last snapshot alone, and report `.elements`.
        case readElements(Set<String>)
        /// Hand this snapshot on.
        case deliver(DesktopSnapshot)
        /// Send `.wake` at this time (it replaces any earlier request).
        case wakeAt(ScanInstant)
        /// The scanned window's application does not answer: say so (once until it answers
        /// again); scanning goes on with what it showed last.
        case notAnswering(bus: String)
    }

    var timing: Timing

    private(set) var following = false
    /// The first read of `start`, handed on whatever it holds.
    private var firstRead = false

    // What the last read showed.
    /// The scanned window's application: objects' events count from it alone.
    private(set) var scannedBus: String?
    /// Its elements, which can be read again alone.
    private var elementIDs: Set<String> = []
    /// What it shows with a frame; and the rectangles the last bounds events carried.
    private var framed: Set<String> = []
    private var eventRects: [String: Rect] = [:]
    /// The last read found nothing to scan (or a window that holds nothing).
    private var lastWasEmpty = false

    // What is to be read.
    private var changedElements: Set<String> = []
    private var wholeWindowChanged = false

    // The timer table; `nextDeadline` is its minimum.
    private var readAt: ScanInstant?
    private var recheckAt: ScanInstant?
    private var retryAt: ScanInstant?
    /// The reads still to come after the last action, soonest first.
    private var afterActionAt: [ScanInstant] = []
    private var rechecks = 0
    private var lastReadStart: ScanInstant?
    private var announcedWake: ScanInstant?

    /// Applications said not to answer, until a read of theirs succeeds.
    private var toldNotAnswering: Set<String> = []
    /// Applications that did not answer in time, and when they are no longer passed over.
    private var unresponsive: [String: ScanInstant] = [:]
    /// The latest events of each application that sent events lately, for the flood guard.
    private var rates: [String: EventRate] = [:]

    init(timing: Timing = Timing()) { self.timing = timing }

    /// When the follower wants `.wake` next.
    var nextDeadline: ScanInstant? {
        [readAt, recheckAt, retryAt, afterActionAt.first].compactMap { $0 }.min()
    }

    mutating func handle(_ input: Input, at now: ScanInstant) -> [Output] {
        var out: [Output] = []
        switch input {
        case .start:
            following = true
            firstRead = true
            wholeWindowChanged = false
            changedElements = []
            out.append(.readWindow)
        case .stop:
            following = false
            readAt = nil
            recheckAt = nil
            retryAt = nil
            afterActionAt = []
        case let .event(e):
            event(e, at: now)
        case .acted:
            guard following else { break }
            wholeWindowChanged = true
            scheduleRead(at: now, urgent: true)
            afterActionAt = timing.afterAction.map { now + $0 }.sorted()
        case .wake:
            // Asked for again below if something is still to come (a wake a little early).
            announcedWake = nil
            if let t = recheckAt, t <= now {
                recheckAt = nil
                wholeWindowChanged = true
                scheduleRead(at: now)
            }
            if let t = retryAt, t <= now {
                retryAt = nil
                wholeWindowChanged = true
                scheduleRead(at: now)
            }
            if let t = afterActionAt.first, t <= now {
                // Read now (reads still start `coalesce` apart), whatever floods.
                afterActionAt.removeAll { $0 <= now }
                wholeWindowChanged = true
                var at = now
                if let last = lastReadStart, last + timing.coalesce > at { at = last + timing.coalesce }
                if readAt.map({ $0 > at }) ?? true { readAt = at }
            }
            if let t = readAt, t <= now {
                readAt = nil
                lastReadStart = now
                out.append(readNow())
            }
        case let .read(result):
            out += read(result, at: now)
        }
        if let next = nextDeadline, next != announcedWake { out.append(.wakeAt(next)) }
        announcedWake = nextDeadline
        return out
    }

    // MARK: - Applications that do not answer

    /// Whether the application is passed over now (it did not answer in time lately).
    func isPassedOver(_ bus: String, at now: ScanInstant) -> Bool {
        guard let until = unresponsive[bus] else { return false }
        return until > now
    }

    /// An application passed over answers again (a ping while it was waited for).
    mutating func answered(_ bus: String) { unresponsive[bus] = nil }

    /// An application did not answer in time: it is passed over for `timing.passOver`.
    mutating func timedOut(_ bus: String, at now: ScanInstant) {
        unresponsive = unresponsive.filter { $0.value > now }
        unresponsive[bus] = now + timing.passOver
    }

    // MARK: - Events

    /// Events about one element that leave the window's structure as it was.
    static let elementEvents = [
        "object:property-change:accessible-value", "object:property-change:accessible-name",
        "object:property-change:accessible-description", "object:value-changed", "object:text-changed",
        "object:state-changed:checked", "object:state-changed:pressed", "object:state-changed:selected",
        "object:state-changed:sensitive", "object:state-changed:enabled", "object:state-changed:editable",
    ]

    /// Applications and windows coming and going, and windows activated (GTK 4 says so only
    /// with a state change), count from any application.
    static func countsFromAnywhere(_ e: DesktopEvent) -> Bool {
        (e.type.hasPrefix("object:children-changed") && e.id.hasSuffix(":root")) || e.type.hasPrefix("object:state-changed:active")
    }

    /// An object's event from the scanned window's application (the only objects' events
    /// that count).
    func isFromScannedWindow(_ e: DesktopEvent) -> Bool {
        e.type.hasPrefix("object:") && !Self.countsFromAnywhere(e) && (scannedBus == nil || e.bus == scannedBus)
    }

    /// Objects' events count only from the scanned window's application; a bounds change
    /// only when it moves something scanned (animated widgets, a spinner, a pulsing
    /// progress bar, report their unchanged bounds many times a second).
    private mutating func event(_ e: DesktopEvent, at now: ScanInstant) {
        if e.type.hasPrefix("object:") && !Self.countsFromAnywhere(e) {
            guard scannedBus == nil || e.bus == scannedBus else { return }
            if e.type.hasPrefix("object:text-caret-moved") { return }
            // Focus moving inside the window changes nothing that is scanned.
            if e.type.hasPrefix("object:state-changed:focused") { return }
            // A value, a name or a state of one element: that element is read again alone.
            // (Of a node not kept, say a label that was empty, the window is read whole.)
            if Self.elementEvents.contains(where: { e.type.hasPrefix($0) }), elementIDs.contains(e.id) {
                count(e.bus, at: now)
                changedElements.insert(e.id)
                scheduleRead(at: now)
                return
            }
            if e.type.hasPrefix("object:bounds-changed") {
                // The rectangle is relative to the window (GTK 3), so it is compared with the
                // one the last event carried.
                guard framed.contains(e.id), let rect = e.rect, eventRects.updateValue(rect, forKey: e.id) != rect else { return }
            }
        }
        count(e.bus, at: now)
        wholeWindowChanged = true
        scheduleRead(at: now, urgent: Self.isWindowArriving(e))
    }

    /// A window created or activated: what the user is to scan next (a dialog an action
    /// opened). Building it floods (a file chooser sends hundreds of events as it is
    /// built); its read is not held back by the flood.
    static func isWindowArriving(_ e: DesktopEvent) -> Bool {
        e.type.hasPrefix("window:activate") || e.type.hasPrefix("window:create") || e.type.hasPrefix("object:state-changed:active")
    }

    // MARK: - The flood guard

    /// The latest `capacity` event times of one application, oldest first once full.
    struct EventRate {
        var times: [ScanInstant] = []
        var oldest = 0

        mutating func add(_ t: ScanInstant, capacity: Int) {
            if times.count < capacity { times.append(t); return }
            times[oldest] = t
            oldest = (oldest + 1) % capacity
        }

        var newest: ScanInstant? { times.isEmpty ? nil : times[(oldest + times.count - 1) % times.count] }

        /// More than `capacity - 1` events within the second before `now`.
        func floods(at now: ScanInstant, capacity: Int) -> Bool {
            times.count == capacity && now - times[oldest] < .seconds(1)
        }
    }

    private mutating func count(_ bus: String, at now: ScanInstant) {
        guard timing.floodEvents > 0 else { return }
        if rates[bus] == nil, rates.count >= 16 {
            rates = rates.filter { ($0.value.newest.map { now - $0 < .seconds(1) }) ?? false }
        }
        rates[bus, default: EventRate()].add(now, capacity: timing.floodEvents + 1)
    }

    /// Whether some application sent more than `timing.floodEvents` events within the last
    /// second.
    func isFlooded(at now: ScanInstant) -> Bool {
        timing.floodEvents > 0 && rates.values.contains { $0.floods(at: now, capacity: timing.floodEvents + 1) }
    }

    // MARK: - Reading

    /// A change is read `firstWait` after it is reported; later changes wait so that reads
    /// start at least `coalesce` apart (`floodSpacing` during a flood). `urgent` (after an
    /// action, a window arriving): the flood does not hold it back.
    private mutating func scheduleRead(at now: ScanInstant, urgent: Bool = false) {
        guard following, readAt == nil || urgent else { return }
        let spacing = !urgent && isFlooded(at: now) ? timing.floodSpacing : timing.coalesce
        var at = now + timing.firstWait
        if let last = lastReadStart, last + spacing > at { at = last + spacing }
        if let pending = readAt, pending <= at { return }
        readAt = at
    }

    private mutating func readNow() -> Output {
        if !wholeWindowChanged && !changedElements.isEmpty {
            let ids = changedElements
            changedElements = []
            return .readElements(ids)
        }
        wholeWindowChanged = false
        changedElements = []
        return .readWindow
    }

    private mutating func read(_ result: ReadResult, at now: ScanInstant) -> [Output] {
        var out: [Output] = []
        let first = firstRead
        firstRead = false
        switch result {
        case let .window(snapshot, bus, ids, shown, changed):
            // A read that found no window leaves what is known of the last one.
            if let bus {
                toldNotAnswering.remove(bus)
                scannedBus = bus
                elementIDs = ids
                framed = shown
                eventRects = eventRects.filter { shown.contains($0.key) }
            }
            if first || changed { out.append(.deliver(snapshot)) }
            lastWasEmpty = Self.isEmpty(snapshot)
            recheckWhileEmpty(at: now)
        case let .elements(snapshot, shown, changed):
            if changed {
                framed = shown
                out.append(.deliver(snapshot))
            }
        case .elementsFailed:
            wholeWindowChanged = false
            changedElements = []
            out.append(.readWindow)
        case let .passedOver(bus):
            // Scanning goes on with what the application showed last.
            if following, let until = unresponsive[bus] { retry(at: until + timing.afterPassOver) }
            if following, toldNotAnswering.insert(bus).inserted { out.append(.notAnswering(bus: bus)) }
            recheckWhileEmpty(at: now)
        case let .failed(bus, timeout):
            // The application stopped answering mid-read (or its window went as it was
            // read): scanning goes on with what was known, and the window is looked at again.
            if timeout { timedOut(bus, at: now) }
            if following, timeout, toldNotAnswering.insert(bus).inserted { out.append(.notAnswering(bus: bus)) }
            if following { retry(at: now + (timeout ? timing.passOver : timing.retryAfterFailure)) }
            recheckWhileEmpty(at: now)
        }
        return out
    }

    private mutating func retry(at t: ScanInstant) {
        retryAt = min(retryAt ?? t, t)
    }

    /// While nothing can be scanned (no window, or a window caught empty as it closes), the
    /// desktop is read again now and then, in case the change that ends it says nothing.
    private mutating func recheckWhileEmpty(at now: ScanInstant) {
        if !lastWasEmpty { rechecks = 0 }
        guard following, lastWasEmpty, recheckAt == nil else { return }
        rechecks += 1
        recheckAt = now + (rechecks <= timing.quickRechecks ? timing.recheckQuick : timing.recheckSlow)
    }

    /// Nothing to scan in it: the window alone, or no element.
    static func isEmpty(_ s: DesktopSnapshot) -> Bool {
        s.tree.count <= 1 || !s.tree.nodes.contains { $0.isAccessibilityElement }
    }

    // MARK: - Which window

    /// An application as window choice sees it: its name and its showing windows, in the
    /// bus's order.
    struct Candidate {
        var name: String
        var windows: [(info: DesktopWindow, popup: Bool)]
    }

    /// The window scanned: a menu that is open first, then the active window (a modal dialog
    /// in front of its window is the active one); with `app`, that application's windows
    /// only. Without a window manager nothing is active: then a modal dialog, else the newest
    /// application's last window (with `app`, its first showing window). Indices into `apps`
    /// and its windows.
    static func chooseWindow(_ apps: [Candidate], app: String?) -> (app: Int, window: Int, reason: String)? {
        let candidates = apps.indices.filter { app == nil || apps[$0].name == app }
        for a in candidates {
            if let p = apps[a].windows.lastIndex(where: { $0.popup }) { return (a, p, "a menu is open") }
        }
        for a in candidates {
            if let w = apps[a].windows.firstIndex(where: { $0.info.active }) { return (a, w, "it is the active window") }
        }
        for a in candidates.reversed() {
            if let w = apps[a].windows.lastIndex(where: { $0.info.modal }) { return (a, w, "no window is active; it is a modal dialog") }
        }
        if app != nil, let a = candidates.first(where: { !apps[$0].windows.isEmpty }) {
            return (a, 0, "no window is active; it is the application's first showing window")
        }
        if let a = candidates.last(where: { !apps[$0].windows.isEmpty }) {
            return (a, apps[a].windows.count - 1,
                    "no window is active (no window manager?); it is the newest application's last window")
        }
        return nil
    }
}

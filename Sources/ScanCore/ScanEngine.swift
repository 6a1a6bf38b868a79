/// The scanning engine: a pure, deterministic state machine. Time comes in as a value; it
/// never reads a clock or does I/O. Every input returns the effects it causes, each stamped
/// with the instant it belongs to. Deadlines are absolute: the next step is the previous
/// deadline plus the interval, so k steps land on exactly k × interval.
public struct ScanEngine: Sendable {
    public internal(set) var tree: ElementTree
    public internal(set) var scan: ScanTree
    /// The settings; the scanner menu's Settings change some of them while scanning.
    public internal(set) var settings: ScanSettings
    /// The desktop's windows (empty without a window manager, and for layout files): the
    /// screen menu offers the Windows page when there are any.
    public internal(set) var windows: [ManagedWindow] = []
    /// The title of a window to raise once the window manager lists it (`run --app`: the
    /// application's window, which may be behind another when the run starts).
    public var raiseWhenListed: String?

    /// Item-mode position: the stack of entered groups (0 = top level), the index in the
    /// current cycle, and the full cycles done there without a selection.
    struct Cursor: Hashable, Sendable {
        var scopes: [Int] = [0]
        var index = 0
        var loops = 0
        var scope: Int { scopes[scopes.count - 1] }
    }

    enum MenuTarget: Hashable, Sendable {
        case element(Int)
        case screen
        case point(Point, element: Int?)
        /// A page of the screen menu.
        case page(MenuPage)

        var isPoint: Bool { if case .point = self { return true } else { return false } }
    }

    /// An open menu: its page's items as they were offered when it opened (or when a
    /// change of the screen offered them anew).
    struct Menu: Sendable {
        var target: MenuTarget
        var items: [MenuItem]
        /// A page about the target other than its menu (an element's Gestures).
        var page: MenuPage?
        var index = 0
        var loops = 0
        /// Where the last scroll from this menu was made: the next is made there too, since
        /// the element itself may have scrolled away (the page under the point scrolls on).
        var scrolledAt: Point?
    }

    /// What the auto-scan timer can move; snapshotted so a late-processed press can act on
    /// what was highlighted at its own timestamp. The menu is a layer over either mode (the
    /// menu is scanned item by item in point mode too).
    struct ItemState: Sendable {
        var cursor = Cursor()
        var menu: Menu?
    }

    /// Where the engine is: exactly one phase at a time, each with what only it has.
    enum Phase: Hashable, Sendable {
        /// Before `start`: switches do nothing.
        case idle
        /// Scanning items (the cursor in `item`).
        case item(ItemPhase)
        /// Sweeping a line or band across the screen (`point`).
        case point(PointPhase)
        /// The `pause` switch stopped scanning; pressed again, it resumes this.
        case paused(Paused)
    }

    enum ItemPhase: Hashable, Sendable {
        /// The highlight moves (or waits for presses, in manual and step scanning).
        case scanning
        /// A selection taps its target after `autoTapTime` unless a second press opens the
        /// target's menu first; no scan timer runs.
        case autoTap(MenuTarget)
        /// After an activation the highlight waits (`pauseAfterSelection`) until its timer
        /// or a press, which only resumes.
        case waiting
        /// Scanning stopped until the next press, or for want of items.
        case stopped(ItemStop)
    }

    enum ItemStop: Hashable, Sendable {
        /// After its loops at the top level: a press starts it again.
        case afterLoops
        /// The screen has nothing to scan: a snapshot with items starts it again by itself.
        case nothingToScan
    }

    enum PointPhase: Hashable, Sendable {
        /// A sweep runs, or its menu is open, or its passes ran out (`point.running`).
        case scanning
        /// A chosen point is tapped after `autoTapTime` unless a second press opens its menu.
        case autoTap(MenuTarget)
    }

    enum Paused: Hashable, Sendable {
        /// Item mode, resumed where it was, or started again where it had stopped.
        case item(ItemStop?)
        /// Point mode, resumed with a new sweep.
        case point
    }

    var phase = Phase.idle
    var item = ItemState()
    var point = PointState()
    var filter: SwitchFilter
    var timers = TimerTable()

    /// The mode scanned now, or resumed after a pause.
    var mode: ScanMode {
        switch phase {
        case .idle, .item, .paused(.item): return .item
        case .point, .paused(.point): return .point
        }
    }
    var started: Bool { phase != .idle }
    var paused: Bool { if case .paused = phase { return true } else { return false } }

    /// Item mode has a place to go on from: it has not stopped (in point mode: it had not
    /// when point mode began, so leaving point mode goes back there).
    var itemScanRuns: Bool {
        switch phase {
        case .idle, .item(.stopped): return false
        case .item: return true
        case .paused(.item(let stop)): return stop == nil
        case .point, .paused(.point): return point.savedItem != nil
        }
    }

    /// What a pending auto-tap will tap.
    var autoTapTarget: MenuTarget? {
        switch phase {
        case .item(.autoTap(let t)), .point(.autoTap(let t)): return t
        default: return nil
        }
    }

    /// Arms an auto-tap of `target`, or (nil) drops the pending one: scanning goes on.
    mutating func setAutoTap(_ target: MenuTarget?) {
        switch phase {
        case .item: phase = .item(target.map(ItemPhase.autoTap) ?? .scanning)
        case .point: phase = .point(target.map(PointPhase.autoTap) ?? .scanning)
        case .idle, .paused: return
        }
        if target == nil { timers[.autoTap] = nil }
    }

    /// Item scanning stops (`stop`) in whatever phase it is in: while paused, resuming
    /// starts it again; in point mode, leaving point mode does.
    mutating func stopItemScan(_ stop: ItemStop) {
        switch phase {
        case .item: phase = .item(.stopped(stop))
        case .paused(.item): phase = .paused(.item(stop))
        case .point, .paused(.point): point.savedItem = nil
        case .idle: return
        }
        timers[.resume] = nil
    }

    /// States replaced by auto-scan steps, with the instant each step happened.
    var history = StepHistory()
    /// Group labels, computed on first highlight (a scan step must not join strings).
    var groupLabels: [String?] = []
    /// Whether a group's highlight carries its label (what it holds, for speech and the
    /// screen). `cost`, which reads only times and ids, turns it off: it copies the engine
    /// at every item, and each copy would copy the label cache as it filled it.
    var describesGroups = true

    /// A screen shown over the tree beneath it (the keyboard), whose logic answers its
    /// activations.
    var presented: PresentedScreen?
    /// The screen an open menu (`ElementTree.isMenu`) opened over.
    var screenUnderMenu: String?
    /// Effects of a screen presented before `start`, emitted when scanning starts.
    var effectsAtStart: [Effect] = []
    /// How many screens have been shown (`Effect.screen`).
    var screensShown = 0
    /// After an action on the host's screen: the element acted on, and until when a change
    /// of the window's texts is announced (`announceChanges`).
    var changeWatch: (element: String?, until: ScanInstant)?
    /// Makes the keyboard that selecting a text field opens; without one, a text field is
    /// tapped like any element.
    public var keyboardProvider: (any KeyboardProvider)?
    /// Makes the message screen the screen menu's Message entry opens (`run --desktop`);
    /// nil: no such entry.
    public var messageProvider: (any MessageScreenProvider)?
    /// Why point mode cannot be used here (the host can neither show its sweep nor tap where
    /// it points), or nil: choosing it says this instead, and a start in point mode starts in
    /// item mode after saying it.
    public var pointModeRefusal: String?

    /// Scanning by ear: the highlight held for its label, its label, and whether the speech
    /// presenter reports when labels end (ScanEngine+Pacing.swift).
    var paced: PacedHighlight?
    /// Hold scanning: the select switch is held, and the highlight moves.
    var holding = false
    /// Adaptive timing's state (ScanEngine+Adapt.swift).
    var adaptation = Adaptation()
    /// Whether the person's usage is counted for the report (`takeUsage`): `run` asks it.
    public var tallies = false
    var usage = UsageTally()
    var pacedLabel = ""
    var labelsReported = false

    var out: [TimedEffect] = []
    var now = ScanInstant.zero

    /// Ticks that fired after a later one was already due (the caller was late), for the
    /// runtime's overrun count.
    public private(set) var lateTicks = 0

    public init(tree: ElementTree, settings: ScanSettings = ScanSettings(), debounce: ScanDuration? = nil) {
        self.tree = tree
        self.settings = settings
        self.scan = ScanTreeBuilder.build(tree, settings: settings)
        self.filter = SwitchFilter(.init(settings, debounce: debounce))
    }

    /// The earliest armed timer. Called on every tick: no allocation.
    public var nextDeadline: ScanInstant? {
        earliest(filter.nextDeadline, timers.next?.at)
    }

    public var currentMode: ScanMode { mode }
    public var isRunning: Bool {
        switch phase {
        case .idle, .paused, .item(.waiting), .item(.stopped): return false
        case .item(.scanning), .item(.autoTap): return true
        case .point: return point.running
        }
    }
    public var anySwitchDown: Bool { filter.anyDown }

    /// Starts scanning in the settings' mode.
    public mutating func start(at t: ScanInstant) -> [TimedEffect] {
        begin(t)
        screensShown += 1
        emit(.screen(ShownScreen(tree, serial: screensShown)))
        for e in effectsAtStart { emit(e) }
        effectsAtStart = []
        if settings.mode == .point, let why = pointModeRefusal {
            emit(.announce(why))
            phase = .item(.scanning)
            restartItemScan(at: t)
        } else if settings.mode == .point {
            phase = .point(.scanning)
            emit(.scanStarted)
            emit(.modeChanged(.point))
            startSweep(axis: .x, at: t)
        } else {
            phase = .item(.scanning)
            restartItemScan(at: t)
        }
        // A list that came before the start (GNOME Shell's extension answers at once).
        raiseIfListed()
        return finish()
    }

    public mutating func handle(_ event: SwitchEvent, at t: ScanInstant) -> [TimedEffect] {
        guard started else { begin(t); return finish() }
        // Timers due by the event's own time run first, each at its deadline: a press sees
        // what was highlighted at its timestamp whichever the runtime handed over first, a
        // late tick or the press (the manual driver orders them the same way).
        var due: [TimedEffect] = []
        if let d = nextDeadline, d <= event.timestamp { due = handleDeadline(at: event.timestamp) }
        begin(max(t, event.timestamp))
        for command in filter.handle(event) { perform(command) }
        followHold()
        return due.isEmpty ? finish() : due + finish()
    }

    /// Fires every timer due at or before `t`, each at its own deadline, in order.
    public mutating func handleDeadline(at t: ScanInstant) -> [TimedEffect] {
        begin(t)
        var fired = 0
        while let d = nextDeadline, d <= t {
            now = d
            fired += 1
            if let f = filter.nextDeadline, f == d {
                for command in filter.handleDeadline(at: d) { perform(command) }
                followHold()
            } else if let (timer, _) = timers.next {
                timers[timer] = nil
                switch timer {
                case .move:
                    if paced != nil {
                        if holdsForLabel(at: d) { break }
                        if cutsLabel() { emit(.labelCut) }
                    }
                    autoStep(at: d)
                case .stepSelect:
                    history.removeAll()
                    selectCurrent()
                case .autoTap:
                    if let target = autoTapTarget { setAutoTap(nil); performTap(target) }
                case .sweepEnd:
                    sweepRanOut()
                case .resume:
                    resumeAfterWaiting()
                case .attention:
                    emit(.attention)
                    timers[.attention] = d + ScanSettings.attentionInterval
                }
            }
        }
        if fired > 1 { lateTicks += fired - 1 }
        now = t
        return finish()
    }

    /// Replaces the screen with a new snapshot (the host's changes, a new layout). Node
    /// indices may differ between snapshots; ids name the same element in each.
    /// - Same `screenID`: the cursor, an open menu and a pending auto-tap stay on their
    ///   elements, found by id; where the cursor's element is gone it goes to the item after
    ///   it (else before it, else the first). A highlight is emitted only if what it shows
    ///   changed, and the scan timer restarts only if the highlighted item did. Items
    ///   appearing on a screen that had none start scanning again.
    /// - Another `screenID`: any menu closes, the new root's label is announced, and
    ///   scanning starts over (item mode at the first item, point mode with a new sweep).
    /// While a screen is presented over another (the keyboard), a snapshot of another
    /// screen replaces what lies beneath it, shown again when the presented screen closes.
    public mutating func replaceTree(_ newTree: ElementTree, at t: ScanInstant) -> [TimedEffect] {
        begin(t)
        if newTree.screenID == tree.screenID {
            let changed = changedTexts(in: newTree)
            keepPlace(in: newTree)
            if let changed { emit(.announce(changed)) }
        } else if presented != nil {
            presented!.beneath = newTree
        } else {
            enterScreen(newTree)
        }
        return finish()
    }

    /// Shows `screen` over the current one (the keyboard over a window) and scans it; its
    /// `logic` answers its activations. `effects` (the keyboard's keys) are emitted first.
    /// When it closes, the screen beneath is scanned again from `returnTo` (the field the
    /// keyboard wrote into), if it is still there.
    public mutating func present(_ screen: ElementTree, logic: any ScreenLogic, effects: [Effect] = [],
                                 returnTo: String? = nil, at t: ScanInstant) -> [TimedEffect] {
        begin(t)
        let beneath = presented?.beneath ?? tree
        presented = PresentedScreen(logic: logic, beneath: beneath, returnTo: returnTo)
        if started { for e in effects { emit(e) } } else { effectsAtStart += effects }
        enterScreen(screen)
        return finish()
    }

    /// Closes a presented screen from outside (the focus moved to another field): the
    /// screen beneath is scanned again.
    public mutating func dismissPresented(at t: ScanInstant) -> [TimedEffect] {
        begin(t)
        if presented != nil { closePresented() }
        return finish()
    }

    /// The field a presented keyboard types into has this text before its caret (read from
    /// the application): its logic takes it, and a changed screen keeps the user's place.
    public mutating func presentedFieldChanged(textBefore: String, at t: ScanInstant) -> [TimedEffect] {
        begin(t)
        guard var screen = presented else { return finish() }
        let change = screen.logic.fieldChanged(textBefore: textBefore)
        presented!.logic = screen.logic
        for e in change.effects { emit(e) }
        if let next = change.tree, next.screenID == tree.screenID { keepPlace(in: next) }
        return finish()
    }

    /// The phrases file changed while the run goes on: the message screen, shown or hidden,
    /// offers the new phrases (a page of them shown is redrawn).
    public mutating func phrasesChanged(_ phrases: [String], at t: ScanInstant) -> [TimedEffect] {
        begin(t)
        messageProvider?.phrasesChanged(phrases)
        guard var screen = presented else { return finish() }
        let change = screen.logic.phrasesChanged(phrases)
        presented!.logic = screen.logic
        for e in change.effects { emit(e) }
        if let next = change.tree, next.screenID == tree.screenID { keepPlace(in: next) }
        return finish()
    }

    /// Words made for the presented screen arrived (the keyboard's predictions): it is
    /// redrawn where it changed.
    public mutating func wordsMade(_ made: MadeWords, at t: ScanInstant) -> [TimedEffect] {
        begin(t)
        guard var screen = presented else { return finish() }
        let change = screen.logic.wordsMade(made)
        presented!.logic = screen.logic
        for e in change.effects { emit(e) }
        guard let next = change.tree, next.screenID == tree.screenID else { return finish() }
        // Nothing moved since the screen was shown, by a switch or by time: the highlight
        // may go to what now comes before it, without surprising anyone.
        let untouched = !(presented?.moved ?? true)
        keepPlace(in: next)
        if change.startsOver, untouched, mode == .item, phase == .item(.scanning), item.menu == nil,
           item.cursor.scopes.count == 1, item.cursor.index > 0 {
            item.cursor = Cursor()
            history.removeAll()
            timers[.stepSelect] = nil
            emitHighlight()
            armMove(from: t, firstOfCycle: true)
        }
        return finish()
    }

    /// The id of what is highlighted now (an element, a group's container, a menu entry's
    /// name), or nil.
    public var currentHighlightID: String? {
        mutating get {
            if case .highlight(let item, _, _, _, _, _)? = currentHighlight() { return item }
            return nil
        }
    }

    /// Whether a screen is presented over another (the keyboard is open).
    public var isPresenting: Bool { presented != nil }
    /// The presented screen's logic, as it is now (the keyboard's text and predictions).
    public var presentedLogic: (any ScreenLogic)? { presented?.logic }

    /// Something the host could not do for the user (a failed action on the desktop, text
    /// that may not have arrived): it is said, as an announcement, and changes nothing else.
    public mutating func report(_ problem: String, at t: ScanInstant) -> [TimedEffect] {
        begin(t)
        emit(.announce(problem))
        return finish()
    }

    /// A message from the host to show (`Effect.notice`); it changes nothing else.
    public mutating func notice(_ text: String, at t: ScanInstant) -> [TimedEffect] {
        begin(t)
        emit(.notice(text))
        return finish()
    }

    // MARK: - plumbing

    mutating func begin(_ t: ScanInstant) {
        now = max(now, t)
        out.removeAll(keepingCapacity: true)
    }

    /// Scans `newTree` from now on; once scanning has started, presenters are shown it.
    mutating func show(_ newTree: ElementTree) {
        tree = newTree
        guard started else { return }
        screensShown += 1
        emit(.screen(ShownScreen(newTree, serial: screensShown)))
    }

    mutating func finish() -> [TimedEffect] {
        let result = out
        out.removeAll(keepingCapacity: true)
        return result
    }

    /// Consuming: a borrowed effect would be copied into the array, and copying a
    /// multi-field case goes through the runtime's generic tuple witnesses, slow on a path
    /// taken at every step.
    mutating func emit(_ e: consuming Effect) { out.append(TimedEffect(now, e)) }

    var interval: ScanDuration { settings.autoScanInterval }

    /// Hold scanning (`style: hold`): the highlight starts moving an interval after the
    /// select switch is held (so a tap selects what is lit), and stops when it is let go,
    /// whose release the switch filter has already turned into a selection.
    mutating func followHold() {
        guard settings.style == .hold else { return }
        let held = filter.held(.select)
        guard held != holding else { return }
        holding = held
        if held {
            guard phase == .item(.scanning), mode == .item || item.menu != nil else { return }
            timers[.move] = now + interval
        } else {
            timers[.move] = nil
        }
    }

    /// Arms the auto-scan timer for the item just highlighted at `base`.
    mutating func armMove(from base: ScanInstant, firstOfCycle: Bool) {
        // Point mode moves by sweeps; only its menu is scanned item by item. Waiting after a
        // selection, nothing moves.
        guard settings.style == .auto || (settings.style == .hold && holding), phase != .item(.waiting), mode == .item || item.menu != nil else {
            timers[.move] = nil
            return
        }
        let earliest = base + interval + (firstOfCycle ? settings.pauseOnFirstItem : .zero)
        timers[.move] = settings.speechPacing ? pacedDeadline(from: base, earliest: earliest) : earliest
    }

    mutating func perform(_ c: SwitchFilter.Command) {
        performAdapting(c) { $0.performCommand(c) }
    }

    mutating func performCommand(_ c: SwitchFilter.Command) {
        // Someone came: the call for attention stops at the person's next press (one the
        // switch filter takes: not a bounce, nor a tremor it drops).
        timers[.attention] = nil
        presented?.moved = true
        now = max(now, c.firedAt)
        switch phase {
        case .idle:
            return
        case .paused(let resumed):
            if c.action == .pause { resume(resumed) }
            return
        case .item(.waiting):
            // A press after a selection resumes scanning; it never selects.
            if c.action == .pause { pause() } else { resumeAfterWaiting() }
            return
        case .item, .point:
            if c.action == .pause { pause(); return }
        }
        if c.action == .exit, phase == .item(.scanning) {
            // Exit at the top level does nothing; it must not move the highlight back to
            // what was current when it went down either (a held exit would otherwise).
            // (If the scan has stopped since, the usual path below restarts it.)
            let atPress = history.entry(before: c.pressedAt) ?? StepHistory.Entry(at: now, before: item, phase: phase)
            if atPress.phase == .item(.scanning) && atPress.before.menu == nil && atPress.before.cursor.scopes.count <= 1 {
                history.removeAll()
                return
            }
        }
        restoreForPressTime(c.pressedAt)
        if let target = autoTapTarget {
            // A second press inside the auto-tap window opens the menu instead of tapping.
            setAutoTap(nil)
            if c.action == .select { openMenu(target); return }
            returnFromMenu(target)
            if c.action == .exit || c.action == .menu { return }
        }
        if item.menu != nil { menuCommand(c); return }
        if mode == .point { pointCommand(c) } else { itemCommand(c) }
    }

    /// A press acts on what was highlighted at its own timestamp: undo auto-scan steps that
    /// happened after it (the press was processed late, or decided at release).
    mutating func restoreForPressTime(_ t: ScanInstant) {
        defer { history.removeAll() }
        guard let before = history.entry(before: t) else { return }
        item = before.before
        // The step that stopped scanning after its loops came after the press: it goes on.
        if case .item(let current) = phase, case .item(let then) = before.phase, current != then {
            phase = before.phase
            if then == .scanning { emit(.scanStarted) }
        }
        emitHighlight()
        let first = item.menu.map { $0.index == 0 } ?? (item.cursor.index == 0)
        armMove(from: now, firstOfCycle: first)
    }

    mutating func pause() {
        if case .item(.stopped(let stop)) = phase { phase = .paused(.item(stop)) } else { phase = .paused(mode == .point ? .point : .item(nil)) }
        timers = TimerTable()
        history.removeAll()
        emit(.scanStopped(.paused))
    }

    mutating func resume(_ resumed: Paused) {
        phase = resumed == .point ? .point(.scanning) : .item(.scanning)
        emit(.scanStarted)
        if resumed == .point {
            startSweep(axis: point.axis, at: now)
        } else if resumed == .item(nil) {
            emitHighlight()
            armMove(from: now, firstOfCycle: item.menu == nil ? item.cursor.index == 0 : item.menu!.index == 0)
        } else {
            restartItemScan(at: now)
        }
    }
}

/// A ring of the last auto-scan steps: enough to cover a press decided seconds after it
/// went down (hold, long press) at the fastest interval, with O(1) appends.
struct StepHistory: Sendable {
    static let capacity = 128
    /// A struct, not a tuple: an array of tuples copies its elements through the runtime's
    /// generic tuple witnesses, slow on a path taken at every step.
    /// The phase too: a step can stop item scanning after its loops.
    struct Entry { var at: ScanInstant; var before: ScanEngine.ItemState; var phase: ScanEngine.Phase }
    private var entries: [Entry] = []
    private var start = 0

    mutating func append(_ at: ScanInstant, _ before: ScanEngine.ItemState, _ phase: ScanEngine.Phase) {
        if entries.count < Self.capacity {
            entries.append(Entry(at: at, before: before, phase: phase))
        } else {
            entries[start] = Entry(at: at, before: before, phase: phase)
            start = (start + 1) % Self.capacity
        }
    }

    mutating func removeAll() {
        if !entries.isEmpty { entries.removeAll(keepingCapacity: true); start = 0 }
    }

    /// The state the first step after `t` replaced: what was current at `t`.
    func entry(before t: ScanInstant) -> Entry? {
        for k in 0..<entries.count {
            let e = entries[(start + k) % entries.count]
            if e.at > t { return e }
        }
        return nil
    }
}

/// The engine's own timers, each a deadline or nothing; `nextDeadline` is the earliest of
/// them and the switch filter's. Adding a timer is a case here and its case in
/// `handleDeadline`'s switch; a pause clears them all.
enum EngineTimer: Int, CaseIterable, Sendable {
    /// Auto scanning: the highlight moves on.
    case move
    /// Step scanning: resting on an item selects it.
    case stepSelect
    /// Auto-tap: the tap happens unless a second press opens the menu first.
    case autoTap
    /// Point mode: the sweep has made its passes.
    case sweepEnd
    /// After a selection: the wait (`pauseAfterSelection`) is over.
    case resume
    /// The message screen's Attention, called again until a press (`attentionRepeats`).
    case attention
}

struct TimerTable: Hashable, Sendable {
    private var deadlines = [ScanInstant?](repeating: nil, count: EngineTimer.allCases.count)

    subscript(timer: EngineTimer) -> ScanInstant? {
        get { deadlines[timer.rawValue] }
        set { deadlines[timer.rawValue] = newValue }
    }

    /// The earliest armed timer; of two at one instant, the first in `EngineTimer`'s order.
    var next: (timer: EngineTimer, at: ScanInstant)? {
        var best: (timer: EngineTimer, at: ScanInstant)?
        for k in deadlines.indices {
            if let d = deadlines[k], best == nil || d < best!.at { best = (EngineTimer(rawValue: k)!, d) }
        }
        return best
    }
}

@inline(__always)
func earliest(_ a: ScanInstant?, _ b: ScanInstant?) -> ScanInstant? {
    guard let a else { return b }
    guard let b else { return a }
    return min(a, b)
}

/// Adaptive timing (`adaptTiming: on`, TimingAdapter.swift): each `select` press of auto
/// item scanning is timed from the highlight it answered, what it did is read from the
/// effects it made, and the adapter's new interval is applied as the Settings page's would
/// be (`settingChanged`, which the runtime keeps in the settings file).
extension ScanEngine {
    struct Adaptation: Hashable, Sendable {
        var adapter = TimingAdapter()
        /// When the last highlights were shown, newest last: a press is timed from the
        /// latest at or before it (a press handled late must not be timed from a later one).
        var shown: [ScanInstant] = []

        mutating func highlighted(at t: ScanInstant) {
            if shown.count == 8 { shown.removeFirst() }
            shown.append(t)
        }

        func latency(of press: ScanInstant) -> Double? {
            shown.last { $0 <= press }.map { (press - $0).seconds }
        }
    }

    var adapts: Bool { settings.adaptTiming == .on && settings.style == .auto }

    /// Whether highlights are timed: for adaptation, or for the usage report's reaction times.
    var timesHighlights: Bool { settings.style == .auto && (adapts || tallies) }

    /// A press, acted on by `act`: counted for the report; a `select` press in item
    /// scanning is timed, and read for the adapter and the report.
    mutating func performAdapting(_ c: SwitchFilter.Command, _ act: (inout ScanEngine) -> Void) {
        if tallies { usage.counts.presses += 1 }
        guard adapts || tallies, c.action == .select, phase == .item(.scanning), mode == .item else { act(&self); return }
        let latency = timesHighlights ? adaptation.latency(of: c.pressedAt) : nil
        let before = out.count
        act(&self)
        let kind = Self.selection(out[before...])
        if tallies { tally(kind, latency: latency, effects: out[before...]) }
        if adapts { adapt(kind, latency: latency) }
    }

    /// What a selection did, from its effects: what it typed or deleted, or did otherwise
    /// (anything but moving through menus and groups: a tap, a mode, a window, a page), before
    /// the menus and groups it opened or closed on the way. A menu closed and nothing else is
    /// a menu left unanswered.
    static func selection(_ effects: ArraySlice<TimedEffect>) -> TimingAdapter.Selection {
        var typed = false, deleted = false, acted = false, opened = false, closed = false, entered = false, left = false
        for e in effects {
            switch e.effect {
            case .typeText: typed = true
            case .deleteText: deleted = true
            case .menuOpen: opened = true
            case .menuClose: closed = true
            case .enterGroup: entered = true
            case .exitGroup: left = true
            case .highlight, .scanStarted, .scanStopped, .announce, .notice, .settingChanged, .labelCut: break
            default: acted = true
            }
        }
        if typed { return .typed }
        if deleted { return .deleted }
        if acted { return .other }
        if opened { return .openedMenu }
        if closed { return .closedMenu }
        if entered { return .enteredGroup }
        if left { return .leftGroup }
        return .other
    }

    /// Tells the adapter of a selection; a new interval is applied, kept and (if asked) said.
    mutating func adapt(_ selection: TimingAdapter.Selection, latency: Double?) {
        let old = settings.autoScanInterval.seconds
        let bounds = settings.adaptMinimum.seconds...max(settings.adaptMinimum.seconds, settings.adaptMaximum.seconds)
        guard let next = adaptation.adapter.selected(selection, latency: latency, interval: old, within: bounds) else { return }
        change(.autoScanInterval(.seconds(next)))
        // The highlight the selection just showed moves at the new pace already.
        if timers[.move] != nil, phase == .item(.scanning), adaptation.shown.last == now {
            armMove(from: now, firstOfCycle: item.menu.map { $0.index == 0 } ?? (item.cursor.index == 0))
        }
        if settings.adaptAnnounce {
            emit(.announce("\(next > old ? "Slower" : "Faster"), \(formatFixed(next, decimals: 2)) seconds"))
        }
    }
}

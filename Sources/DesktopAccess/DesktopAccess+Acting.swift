#if canImport(Glibc)
import Glibc
#endif
import CAtspi
import ScanCore
import ScanHost

// Acting on the live widgets: the engine's effects carried out on the AT-SPI thread.
extension DesktopAccess {
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
    func scrollIntoView(_ item: String, group: Bool) {
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

    func perform(_ effect: Effect) {
        thread.preconditionOnThread()
        var what = "the action"
        var bus: String?
        do {
            switch effect {
            case let .activate(element, _, _) where element == closeID:
                // The menu's Close entry is no widget: its tap is the engine's `key` effect
                // (Escape), sent where the Keys page's keys go.
                return
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
            if error.notSent {
                fail("\(what) not sent: the application did not answer a moment ago, and is not asked again until it has been heard from. Try again in a moment.")
            } else if error.isTimeout, let bus {
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
    func answersAgain(_ h: LiveHandle, _ what: String) throws(AtspiCallError) -> Bool {
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

    func clickAt(_ p: Point, _ what: String) throws(AtspiCallError) {
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
    func scroll(from a: AccessibleRef, _ g: Gesture) throws(AtspiCallError) -> Bool {
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

    func gestureAt(_ g: Gesture, _ p: Point, _ to: Point?, _ what: String) throws(AtspiCallError) {
        if let unplacedWhy {
            return fail("\(what) failed: where this window is on the screen is not known (\(unplacedWhy)), so it is not made")
        }
        guard let gesture else { return fail("\(what) failed: no pointer to make it with") }
        if !gesture(g, p, to) { fail("\(what) failed: the pointer could not make it") }
    }

    func fail(_ message: String) { report?(message) }
}

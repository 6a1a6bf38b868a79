import ArgumentParser
import CommandSupport
import Compositors
import DesktopAccess
import Foundation
import ScanCore
import ScanHost
import ScanSession
import SwitchInput
import WaylandOutput
import X11Output

/// `switchscan-bench tap`: a click at a check box's centre, made as `run --desktop` makes it
/// (XTest on X11, the compositor's virtual pointer under Wayland, KWin's fake input under KWin, Mutter's remote desktop
/// under GNOME), to the moment SwitchScan
/// has the check box's new state: the application's AT-SPI event, the follower's short wait
/// and its read of the changed element.
struct BenchTap: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tap",
        abstract: "Time a click on a check box to SwitchScan having its new state from the application (AT-SPI).",
        discussion: """
        Needs an application on the accessibility bus with a check box (gtk3-widget-factory, \
        gtk4-widget-factory). Each click toggles it; the next one waits until the state has \
        arrived, and a quiet moment after it.
        """
    )

    @Option(help: "The application (default: the one 'run --desktop' would scan).")
    var app: String?

    @Option(help: "The check box's label.")
    var label = "checkbutton"

    @Option(help: "Clicks to time.")
    var taps = 100

    func validate() throws {
        guard (1...10_000).contains(taps) else { throw ValidationError("--taps takes 1 to 10000") }
    }

    func run() throws {
        let env = ProcessInfo.processInfo.environment
        let desktop = try connectDesktop()
        defer { desktop.stop() }
        let trees = Trees()
        guard let first = desktop.follow(app: app, onChange: { s in trees.add(s.tree) }) else {
            throw fail("Error: no window to read; start an application first (see 'switchscan desktop').")
        }
        let tree = first.tree
        guard let box = (0..<tree.count).first(where: {
            tree[$0].label == label && tree[$0].isAccessibilityElement && !tree[$0].traits.contains(.notEnabled)
                && tree[$0].frame.width > 0 && tree[$0].frame.height > 0
        }) else { throw fail("Error: the window \"\(tree[tree.root].label ?? "")\" has no enabled element labelled '\(label)'.") }
        let id = tree[box].id, frame = tree[box].frame
        // The indicator, a few pixels in from the frame's left (where the label's text is not).
        let point = Point(x: frame.x + min(frame.height, frame.width) / 2, y: frame.y + frame.height / 2)
        let click: (Point) -> Bool
        let how: String
        do {
            if Compositor(env) == .gnome {
                guard let (extent, scale) = try WaylandGlobals.layoutAndCornerScale() else { throw fail("Error: GNOME Shell has no monitor.") }
                let p = try MutterRemoteDesktop(extent: extent, scale: scale)
                click = { p.click(at: $0) }
                how = "Mutter's remote desktop (\(p.motion) motion)"
            } else if Compositor(env) == .kwin {
                guard let layout = UinputKeys.us() else { throw fail("Error: libevdev knows no key codes.") }
                let p = try KWinFakeInput(layout: layout)
                click = { p.click(at: $0) }
                how = "KWin's fake input"
                usleep(300_000)
            } else if Compositor(env).isWayland {
                let p = try WaylandPointer()
                click = { p.click(at: $0) }
                how = "the compositor's virtual pointer"
                // On a seat that had no pointer, applications take up the one just made when
                // they hear of it: a click before that goes nowhere (a session makes its
                // pointer at the start, long before its first tap).
                usleep(300_000)
            } else {
                let p = try XTestPointer()
                click = { p.click(at: $0) }
                how = "XTest"
            }
        } catch { throw fail("Error: no pointer to click with: \(error)") }
        func selected(_ t: ElementTree) -> Bool? { t.nodes.first { $0.id == id }?.traits.contains(.selected) }
        // The application's own answer, as it reaches SwitchScan, apart from the read after it.
        let arrivals = desktop.recordArrivals(of: "object:state-changed:checked")
        var events: [Int64] = []
        var state = selected(tree)
        var samples: [Int64] = []
        var lost: [Int] = []
        for k in 0..<taps {
            let seen = trees.count, heard = arrivals.count
            let t0 = MonotonicClock.now()
            guard click(point) else { throw fail("Error: the click at \(point) could not be sent (\(how)).") }
            // The first snapshot that shows the new state, within 2 s of the click (an
            // application that keeps changing sends snapshots without end).
            var index = seen
            var done = false
            while let (t, next) = trees.wait(after: index, until: t0 + .seconds(2)) {
                index += 1
                let now = selected(next)
                if now != state {
                    samples.append((t - t0).nanoseconds)
                    state = now
                    done = true
                    break
                }
            }
            if !done { lost.append(k + 1) }
            if let t = arrivals.wait(after: heard, until: t0 + .seconds(2)) { events.append((t - t0).nanoseconds) }
            if k % 20 == 19 { progress("tap: \(k + 1)/\(taps) clicks") }
            // The window quiet again (the follower reads a burst once, 30 ms apart).
            usleep(100_000)
        }
        endProgress()
        let s = Summary(samples)
        print("bench tap: '\(label)' in \(first.application), clicked through \(how), \(taps) clicks")
        print(String(format: "click → the new state in SwitchScan (AT-SPI event, then the element read): p50 %.2f ms, p99 %.2f ms, max %.2f ms (%d of %d)",
                     s.p50 / 1000, s.p99 / 1000, s.max / 1000, s.count, taps))
        let e = Summary(events)
        print(String(format: "click → the application's AT-SPI event in SwitchScan: p50 %.2f ms, p99 %.2f ms, max %.2f ms (%d of %d)",
                     e.p50 / 1000, e.p99 / 1000, e.max / 1000, e.count, taps))
        if !lost.isEmpty { print("clicks that changed nothing within 2 s: \(lost.map(String.init).joined(separator: ", "))") }
    }
}

/// The trees the follower handed on, each with when it arrived.
private final class Trees: @unchecked Sendable {
    private let lock = Lock()
    private let cond = Condition()
    private var list: [(ScanInstant, ElementTree)] = []

    var count: Int { lock.withLock { list.count } }

    func add(_ t: ElementTree) {
        let at = MonotonicClock.now()
        lock.withLock { list.append((at, t)); cond.broadcast() }
    }

    /// The arrival after the first `index`, or nil at `deadline`.
    func wait(after index: Int, until deadline: ScanInstant) -> (ScanInstant, ElementTree)? {
        lock.withLock {
            while list.count <= index {
                if !cond.wait(lock, until: deadline) { return nil }
            }
            return list[index]
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import ScanCore
import ScanHost
import CX11
import Testing
@testable import X11Output

/// A clock the test sets.
final class TestClock: @unchecked Sendable {
    private let value = Locked(ScanInstant.zero)
    var now: ScanInstant {
        get { value.get() }
        set { value.set(newValue) }
    }
}

let orange = RGB(r: 0xff, g: 0x8c, b: 0x00)
let groupBlue = RGB(r: 0x00, g: 0x73, b: 0xff)
let black = RGB(r: 0, g: 0, b: 0)
let grey = RGB(r: 0x80, g: 0x80, b: 0x80)

/// An overlay on a private Xvfb, grey root, with its queue.
final class OverlayRig {
    // Declared first, destroyed first: the probe's connection closes before the server goes.
    let probe: XProbe
    let queue = DispatchQueue(label: "overlay-test")
    let clock = TestClock()
    let presenter: OverlayPresenter
    let width = 4
    let server: XServer

    init(openbox: Bool = false, realClock: Bool = false) throws {
        let server = try XServer()
        self.server = server
        probe = try XProbe(server.display)
        if openbox { _ = try server.startOpenbox(probe) }
        probe.setRootBackground(grey)
        let clock = self.clock
        let read: () -> ScanInstant = realClock ? { monotonicNow() } : { clock.now }
        presenter = try OverlayPresenter(display: server.display, feedback: FeedbackSettings(), queue: queue, clock: read)
    }

    func present(_ effects: [Effect], at t: ScanInstant = .zero) throws {
        try queue.sync { try presenter.present(effects.map { TimedEffect(t, $0) }) }
    }

    deinit { queue.sync { presenter.finish() } }
}

typealias Box = (x: Int, y: Int, w: Int, h: Int)

/// The outline around frame `f`: the colour on each side and at the corners (mid-band), a
/// dark pixel just inside and just outside it, the frame itself uncovered.
func expectOutline(_ shot: Screenshot, before: Screenshot, frame f: Box, color: RGB, width w: Int,
                   sourceLocation: SourceLocation = #_sourceLocation) {
    let mid = 1 + (w + 1) / 2
    var samples: [(Int, Int)] = []
    for k in 0...8 {
        let sx = f.x + k * (f.w - 1) / 8, sy = f.y + k * (f.h - 1) / 8
        samples += [(sx, f.y - mid), (sx, f.y + f.h - 1 + mid), (f.x - mid, sy), (f.x + f.w - 1 + mid, sy)]
    }
    samples += [(f.x - mid, f.y - mid), (f.x + f.w - 1 + mid, f.y + f.h - 1 + mid)]
    for (x, y) in samples {
        #expect(shot[x, y] == color, "outline colour at (\(x), \(y))", sourceLocation: sourceLocation)
    }
    let cx = f.x + f.w / 2
    #expect(shot[cx, f.y - 1] == black, "inner dark edge", sourceLocation: sourceLocation)
    #expect(shot[cx, f.y - w - 2] == black, "outer dark edge", sourceLocation: sourceLocation)
    #expect(shot[cx, f.y] == before[cx, f.y], "the frame itself is not covered", sourceLocation: sourceLocation)
}

/// The outline's extent around a frame.
func ringBox(_ f: Box, width w: Int) -> Box { (f.x - w - 2, f.y - w - 2, f.w + 2 * w + 4, f.h + 2 * w + 4) }

/// Every pixel of the screen is as in `before`, but those of the outlines around `rings`
/// (the frames themselves included in the check) and inside `boxes`.
func expectUnchanged(_ shot: Screenshot, before: Screenshot, rings: [Box] = [], boxes: [Box] = [], width w: Int = 4,
                     sourceLocation: SourceLocation = #_sourceLocation) {
    func inside(_ x: Int, _ y: Int, _ b: Box) -> Bool { x >= b.x && x < b.x + b.w && y >= b.y && y < b.y + b.h }
    var changed = 0
    var first: (Int, Int)?
    for y in 0..<shot.height {
        for x in 0..<shot.width where shot[x, y] != before[x, y] {
            if rings.contains(where: { inside(x, y, ringBox($0, width: w)) && !inside(x, y, $0) }) { continue }
            if boxes.contains(where: { inside(x, y, $0) }) { continue }
            changed += 1
            if first == nil { first = (x, y) }
        }
    }
    #expect(changed == 0, "\(changed) pixels changed elsewhere, first at \(String(describing: first))",
            sourceLocation: sourceLocation)
}

@Suite("OverlayPresenter on Xvfb", .serialized)
struct OverlayPresenterTests {
    @Test("a highlight is outlined just outside its frame; the next one moves it in one step")
    func outlineAndMove() throws {
        let rig = try OverlayRig()
        let before = try rig.server.screenshot()
        try rig.present([.highlight(item: "ok", kind: .element, frame: Rect(x: 200, y: 150, width: 300, height: 100),
                                    label: "OK", context: nil)])
        let first = try rig.server.screenshot()
        expectOutline(first, before: before, frame: (200, 150, 300, 100), color: orange, width: rig.width)
        // The ring only: inside the frame and outside the ring, nothing changed.
        expectUnchanged(first, before: before, rings: [(200, 150, 300, 100)])

        try rig.present([.highlight(item: "cancel", kind: .element, frame: Rect(x: 700, y: 400, width: 120, height: 60),
                                    label: "Cancel", context: nil)])
        let second = try rig.server.screenshot()
        expectOutline(second, before: before, frame: (700, 400, 120, 60), color: orange, width: rig.width)
        // The old place is clean again.
        expectUnchanged(second, before: before, rings: [(700, 400, 120, 60)])
        #expect(rig.queue.sync { rig.presenter.isAnimating } == false, "no timer without a sweep")
        #expect(rig.queue.sync { rig.presenter.errors }.isEmpty)

        // Stopping hides it; the next highlight shows it again.
        try rig.present([.scanStopped(.paused)])
        expectUnchanged(try rig.server.screenshot(), before: before)
        try rig.present([.highlight(item: "ok", kind: .element, frame: Rect(x: 200, y: 150, width: 300, height: 100),
                                    label: "OK", context: nil)])
        expectOutline(try rig.server.screenshot(), before: before, frame: (200, 150, 300, 100), color: orange, width: rig.width)

        // finish() takes the windows away.
        let windows = { String(decoding: try XServer.output(XServer.which("xwininfo")!, ["-root", "-tree"], display: rig.server.display), as: UTF8.self) }
        #expect(try windows().contains("\"switchscan outline\""))
        rig.queue.sync { rig.presenter.finish() }
        #expect(try !windows().contains("switchscan"))
        expectUnchanged(try rig.server.screenshot(), before: before)
    }

    @Test("a group is outlined in the second colour; an exit item in the first, on the group's frame")
    func groupColour() throws {
        let rig = try OverlayRig()
        let before = try rig.server.screenshot()
        let frame = Rect(x: 100, y: 100, width: 500, height: 300)
        try rig.present([.highlight(item: "row1", kind: .group, frame: frame, label: "Row 1", context: nil)])
        expectOutline(try rig.server.screenshot(), before: before, frame: (100, 100, 500, 300), color: groupBlue, width: rig.width)
        try rig.present([.highlight(item: "exit", kind: .exit, frame: frame, label: "Exit group", context: "row1")])
        expectOutline(try rig.server.screenshot(), before: before, frame: (100, 100, 500, 300), color: orange, width: rig.width)
        // A whole-screen group: the outline is pulled inside the screen's edges.
        try rig.present([.highlight(item: "root", kind: .group, frame: Rect(x: 0, y: 0, width: 1280, height: 800),
                                    label: nil, context: nil)])
        let full = try rig.server.screenshot()
        for (x, y) in [(640, 3), (640, 796), (3, 400), (1276, 400)] { #expect(full[x, y] == groupBlue, "at (\(x), \(y))") }
        #expect(full[640, 400] == before[640, 400])
    }

    @Test("a group whose members no rectangle encloses is outlined around their union")
    func unionOutline() throws {
        let rig = try OverlayRig()
        let before = try rig.server.screenshot()
        // "1 2 3 −" and a tall "=" beside them: an L.
        let row: Box = (100, 100, 300, 50), tall: Box = (400, 100, 60, 120)
        try rig.present([.highlight(item: "group:1", kind: .group, frame: Rect(x: 100, y: 100, width: 360, height: 120), label: nil,
                                    context: nil, outline: [Rect(x: 100, y: 100, width: 300, height: 50),
                                                            Rect(x: 400, y: 100, width: 60, height: 120)])])
        let shot = try rig.server.screenshot()
        for (x, y) in [(250, 97), (250, 152), (97, 125), (462, 160), (430, 222), (397, 190), (462, 97)] {
            #expect(shot[x, y] == groupBlue, "the band at (\(x), \(y))")
        }
        #expect(shot[250, 99] == black && shot[250, 94] == black, "dark edges inside and out")
        for (x, y) in [(250, 125), (430, 200), (400, 125), (250, 190), (300, 215)] {
            #expect(shot[x, y] == before[x, y], "nothing drawn at (\(x), \(y)): inside the union, or outside it in its bounds")
        }
        expectUnchanged(shot, before: before, rings: [row, tall])
        // A plain frame again: the ring is a rectangle.
        try rig.present([.highlight(item: "row", kind: .group, frame: Rect(x: 100, y: 100, width: 300, height: 50), label: nil, context: nil)])
        let plain = try rig.server.screenshot()
        expectOutline(plain, before: before, frame: row, color: groupBlue, width: rig.width)
        expectUnchanged(plain, before: before, rings: [row])
    }

    @Test("the overlay takes neither the focus nor the pointer; a click on the outline reaches the window below")
    func noFocusClickThrough() throws {
        let rig = try OverlayRig(openbox: true)
        let probe = rig.probe
        let window = probe.window(x: 100, y: 100, width: 600, height: 400, color: RGB(r: 0xee, g: 0xee, b: 0xee),
                                  overrideRedirect: false)
        try #require(probe.waitViewable(window), "openbox maps the window")
        #expect(probe.waitForFocus(window), "openbox gives the new window the focus")
        let o = probe.origin(window)
        let frame = Rect(x: Double(o.x + 100), y: Double(o.y + 100), width: 200, height: 100)
        // The pointer rests where the outline will be drawn (its top side).
        let onOutline = (x: o.x + 200, y: o.y + 100 - 3)
        probe.movePointer(x: onOutline.x, y: onOutline.y)
        let focusBefore = probe.inputFocus()
        let under = probe.pointer().child
        #expect(under != 0)

        try rig.present([.highlight(item: "a", kind: .element, frame: frame, label: nil, context: nil)])
        let shot = try rig.server.screenshot()
        #expect(shot[onOutline.x, onOutline.y] == orange, "the pointer is on the outline")
        #expect(probe.inputFocus() == focusBefore, "the focus did not move")
        #expect(probe.pointer().child == under, "the window under the pointer is still the client's")
        // Moving the outline and showing the menu change nothing either.
        try rig.present([.highlight(item: "b", kind: .group, frame: frame.offset(20), label: nil, context: nil),
                         .menuOpen(element: "b", entries: ["tap", "exit"], titles: ["Tap", "Exit menu"]),
                         .highlight(item: "tap", kind: .menuEntry, frame: frame, label: "Tap", context: "b")])
        #expect(probe.inputFocus() == focusBefore)
        try rig.present([.highlight(item: "a", kind: .element, frame: frame, label: nil, context: nil), .menuClose(element: "b")])

        let pointer = try XTestPointer(display: rig.server.display)
        #expect(pointer.click(at: Point(x: Double(onOutline.x), y: Double(onOutline.y))))
        let press = probe.nextButtonPress(on: window)
        #expect(press?.x == onOutline.x && press?.y == onOutline.y, "the window below got the click: \(String(describing: press))")
    }

    @Test("point mode: the sweep line is drawn at the swept position and follows the clock; x stays while y sweeps")
    func sweepLine() throws {
        let rig = try OverlayRig()
        let before = try rig.server.screenshot()
        let column = { (shot: Screenshot, x: Int) in [5, 200, 400, 600, 795].allSatisfy { shot[x, $0] == orange } }
        let row = { (shot: Screenshot, y: Int) in [5, 300, 640, 1000, 1275].allSatisfy { shot[$0, y] == orange } }

        rig.clock.now = .seconds(3)
        let sweepX = Sweep(axis: .x, phase: .line, start: .zero, lo: 0, hi: 1280, speed: 100, passes: 2)
        try rig.present([.modeChanged(.point), .sweep(sweepX)], at: .zero)
        var shot = try rig.server.screenshot()
        #expect(column(shot, 300))
        #expect(shot[297, 400] == black && shot[302, 400] == black, "dark edges beside the line")
        #expect(shot[296, 400] == before[296, 400] && shot[303, 400] == before[303, 400])
        #expect(rig.queue.sync { rig.presenter.isAnimating }, "a timer runs while the sweep does")

        // Each frame samples the clock (a frame run here, at the clock's time).
        rig.clock.now = .seconds(5)
        rig.queue.sync { rig.presenter.frameTick() }
        shot = try rig.server.screenshot()
        #expect(column(shot, 500))
        #expect(shot[300, 400] == before[300, 400], "the line left its old place")

        // Fixed at x = 500, then y sweeps.
        let sweepY = Sweep(axis: .y, phase: .line, start: .seconds(5), lo: 0, hi: 800, speed: 100, passes: 1)
        rig.clock.now = .seconds(7)
        try rig.present([.sweep(sweepY)], at: .seconds(5))
        shot = try rig.server.screenshot()
        #expect(column(shot, 500), "the fixed x stays drawn")
        #expect(row(shot, 200))

        // The sweep ran out: the timer stops, the line stays where the sweep ended.
        rig.clock.now = .seconds(20)
        rig.queue.sync { rig.presenter.frameTick() }
        #expect(rig.queue.sync { rig.presenter.isAnimating } == false)
        shot = try rig.server.screenshot()
        #expect(row(shot, 798), "the last position: the bottom edge")

        // A precise sweep's band: outlined at its position.
        rig.clock.now = .seconds(23)
        let band = Sweep(axis: .x, phase: .band, start: .seconds(20), lo: 0, hi: 1152, width: 128, speed: 100, passes: 1)
        try rig.present([.sweep(band)], at: .seconds(20))
        shot = try rig.server.screenshot()
        #expect(column(shot, 297) && column(shot, 430), "the band's two sides")
        #expect(shot[360, 400] == before[360, 400], "inside the band is clear")

        // The chosen point: a crosshair; stopping clears everything.
        try rig.present([.pointSelected(Point(x: 640, y: 400))], at: .seconds(23))
        shot = try rig.server.screenshot()
        #expect(column(shot, 640) && row(shot, 400))
        try rig.present([.scanStopped(.loopsExhausted)], at: .seconds(23))
        shot = try rig.server.screenshot()
        expectUnchanged(shot, before: before)
        #expect(rig.queue.sync { rig.presenter.isAnimating } == false)
    }

    @Test("the scanner menu appears beside the element, one row per entry, the current one marked")
    func menuPanel() throws {
        let rig = try OverlayRig()
        let before = try rig.server.screenshot()
        let frame = Rect(x: 200, y: 150, width: 300, height: 100)
        try rig.present([.highlight(item: "ok", kind: .element, frame: frame, label: "OK", context: nil),
                         .menuOpen(element: "ok", entries: ["tap", "pointMode", "exit"], titles: ["Tap", "Point mode", "Exit menu"]),
                         .highlight(item: "tap", kind: .menuEntry, frame: frame, label: "Tap", context: "ok")])
        #expect(rig.queue.sync { rig.presenter.panel.drawn?.lines } == ["Tap", "Point mode", "Exit menu"])
        var shot = try rig.server.screenshot()
        let panelColor = RGB(r: 0x20, g: 0x20, b: 0x20), white = RGB(r: 0xff, g: 0xff, b: 0xff)
        // Its extent, from its background's pixels.
        var box = (x0: Int.max, y0: Int.max, x1: -1, y1: -1)
        for y in 0..<shot.height { for x in 0..<shot.width where shot[x, y] == panelColor {
            box = (min(box.x0, x), min(box.y0, y), max(box.x1, x), max(box.y1, y))
        } }
        #expect(box.x0 > 500 + rig.width + 2 && box.x0 < 500 + 40, "right of the outline: \(box)")
        #expect(box.y0 < 250 && box.y1 > 150, "level with the element: \(box)")
        expectOutline(shot, before: before, frame: (200, 150, 300, 100), color: orange, width: rig.width)
        let border = MenuPanelWindow.border
        expectUnchanged(shot, before: before, rings: [(200, 150, 300, 100)], boxes: [
            (box.x0 - border, box.y0 - border, box.x1 - box.x0 + 1 + 2 * border, box.y1 - box.y0 + 1 + 2 * border),
        ])

        let rowHeight = rig.queue.sync { rig.presenter.panel.rowHeight }
        func rowPixels(_ shot: Screenshot, _ i: Int) -> (bar: Int, text: Int) {
            var bar = 0, text = 0
            let top = box.y0 + MenuPanelWindow.rowTop(i, rowHeight: rowHeight)
            for y in top..<(top + rowHeight + MenuPanelWindow.rowGap) { for x in box.x0...box.x1 {
                if shot[x, y] == orange { bar += 1 } else if shot[x, y] == white { text += 1 }
            } }
            return (bar, text)
        }
        #expect(rowPixels(shot, 0).bar > 100, "the current entry is marked")
        #expect(rowPixels(shot, 1).text > 20 && rowPixels(shot, 1).bar == 0, "a title in row 2")
        #expect(rowPixels(shot, 2).text > 20 && rowPixels(shot, 2).bar == 0, "a title in row 3")

        // The next entry: the mark moves; the highlight's label is its title.
        try rig.present([.highlight(item: "pointMode", kind: .menuEntry, frame: frame, label: "Point mode!", context: "ok")])
        #expect(rig.queue.sync { rig.presenter.panel.drawn?.lines } == ["Tap", "Point mode!", "Exit menu"])
        shot = try rig.server.screenshot()
        #expect(rowPixels(shot, 0).bar == 0 && rowPixels(shot, 0).text > 10)
        #expect(rowPixels(shot, 1).bar > 100)

        try rig.present([.menuClose(element: "ok"), .scanStopped(.paused)])
        expectUnchanged(try rig.server.screenshot(), before: before)
    }

    @Test("X errors are recorded, not fatal; a lost server is one clear error, then nothing")
    func errorsAreNotFatal() throws {
        let rig = try OverlayRig()
        try rig.present([.highlight(item: "a", kind: .element, frame: Rect(x: 10, y: 10, width: 50, height: 50), label: nil, context: nil)])
        rig.queue.sync {
            // A window that does not exist: BadWindow.
            XUnmapWindow(rig.presenter.x.pointer, 0x3f_ffff)
            rig.presenter.x.sync()
        }
        #expect(rig.queue.sync { rig.presenter.errors }.count == 1)
        rig.server.killServer()
        #expect(throws: X11Error.self) {
            try rig.present([.highlight(item: "b", kind: .element, frame: Rect(x: 100, y: 10, width: 50, height: 50), label: nil, context: nil)])
        }
        try rig.present([.scanStopped(.paused)])
    }

    @Test("no X server: a clear error")
    func noDisplay() {
        #expect {
            _ = try OverlayPresenter(display: ":4987", feedback: FeedbackSettings(), queue: DispatchQueue(label: "q"))
        } throws: { error in
            "\(error)".hasPrefix("cannot open X display ':4987'")
        }
    }
}

extension Rect {
    func offset(_ d: Double) -> Rect { Rect(x: x + d, y: y + d, width: width, height: height) }
}

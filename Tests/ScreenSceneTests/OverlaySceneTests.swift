import ScanCore
import ScreenScene
import Testing

/// The effect stream as shapes on the screen, the same for every painter.
@Suite struct OverlaySceneTests {
    let screen = PixelRect(x: 0, y: 0, width: 1280, height: 800)

    func scene(_ effects: [Effect]) -> OverlayScene {
        var s = OverlayScene()
        for (i, e) in effects.enumerated() { s.apply(TimedEffect(.seconds(Double(i)), e)) }
        return s
    }

    func shapes(_ effects: [Effect], at t: Double = 100) -> OverlayShapes {
        scene(effects).shapes(at: .seconds(t), thickness: 6, lineWidth: 4, screen: screen)
    }

    @Test func anElementIsRingedAndAGroupMarkedForItsColour() {
        let element = shapes([.highlight(item: "ok", kind: .element, frame: Rect(x: 100, y: 50, width: 80, height: 30), label: "OK", context: nil)])
        #expect(element.outline == .ring(outer: PixelRect(x: 94, y: 44, width: 92, height: 42), hole: PixelRect(x: 100, y: 50, width: 80, height: 30), group: false))
        let group = shapes([.highlight(item: "row", kind: .group, frame: Rect(x: 0, y: 0, width: 400, height: 30), label: nil, context: nil,
                                       outline: [Rect(x: 0, y: 0, width: 100, height: 30), Rect(x: 300, y: 0, width: 100, height: 30)])])
        guard case let .union(outer, cover, holes, isGroup)? = group.outline else {
            Issue.record("a group of two apart is not outlined by their union: \(String(describing: group.outline))")
            return
        }
        #expect(isGroup)
        #expect(outer == PixelRect(x: 0, y: 0, width: 406, height: 36))
        #expect(cover.count == 2 && holes == [PixelRect(x: 0, y: 0, width: 100, height: 30), PixelRect(x: 300, y: 0, width: 100, height: 30)])
        // A highlight without a frame (an item off the screen) shows nothing.
        #expect(shapes([.highlight(item: "x", kind: .element, frame: nil, label: nil, context: nil)]).outline == nil)
    }

    @Test func theMenuIsPlacedBesideTheOutlineAndFollowsItsEntries() {
        let frame = Rect(x: 100, y: 50, width: 80, height: 30)
        let open = shapes([.highlight(item: "ok", kind: .element, frame: frame, label: "OK", context: nil),
                           .menuOpen(element: "ok", entries: ["tap", "gestures"], titles: ["Tap", "Gestures"]),
                           .highlight(item: "gestures", kind: .menuEntry, frame: frame, label: nil, context: "ok")])
        #expect(open.menu == OverlayShapes.Menu(titles: ["Tap", "Gestures"], current: 1, anchor: PixelRect(x: 94, y: 44, width: 92, height: 42)))
        let closed = shapes([.menuOpen(element: "ok", entries: ["tap"], titles: ["Tap"]), .menuClose(element: "ok")])
        #expect(closed.menu == nil)
    }

    @Test func pointModesLinesFollowTheSweepAndStayAtTheChosenPoint() {
        let x = Sweep(axis: .x, phase: .line, start: .seconds(0), lo: 0, hi: 1000, speed: 100, passes: 2)
        let s = scene([.sweep(x)])
        #expect(s.shapes(at: .seconds(0.5), thickness: 6, lineWidth: 4, screen: screen).lineX == PixelRect(x: 47, y: 0, width: 6, height: 800))
        #expect(s.isMoving(at: .seconds(5)) && !s.isMoving(at: .seconds(20)))
        // y sweeps after a press fixed x at 100 (the effect at t = 1).
        let y = Sweep(axis: .y, phase: .line, start: .seconds(1), lo: 0, hi: 800, speed: 100, passes: 2)
        let both = shapes([.sweep(x), .sweep(y)], at: 2)
        #expect(both.lineX == PixelRect(x: 97, y: 0, width: 6, height: 800))
        #expect(both.lineY == PixelRect(x: 0, y: 97, width: 1280, height: 6))
        let chosen = shapes([.sweep(x), .pointSelected(Point(x: 640, y: 400))])
        #expect(chosen.lineX == PixelRect(x: 637, y: 0, width: 6, height: 800) && chosen.lineY == PixelRect(x: 0, y: 397, width: 1280, height: 6))
        let band = shapes([.sweep(Sweep(axis: .x, phase: .band, start: .seconds(0), lo: 0, hi: 1000, width: 200, speed: 100, passes: 1))], at: 0)
        // At the screen's edge the band's ring is pulled inside it.
        #expect(band.band == OverlayShapes.Ring(outer: PixelRect(x: 0, y: 0, width: 206, height: 800), hole: PixelRect(x: 6, y: 6, width: 194, height: 788)))
    }

    @Test func aStopClearsTheScreenButAWaitAfterASelectionKeepsItsPlace() {
        let frame = Rect(x: 100, y: 50, width: 80, height: 30)
        let h = Effect.highlight(item: "ok", kind: .element, frame: frame, label: nil, context: nil)
        #expect(shapes([h, .scanStopped(.afterSelection)]).outline != nil)
        #expect(shapes([h, .scanStopped(.paused)]).outline == nil)
        #expect(shapes([h, .modeChanged(.point)]).outline == nil)
    }

    @Test func theKeyboardPanelHoldsItsKeys() {
        let keys = [KeyboardKey(id: "a", label: "a", frame: Rect(x: 0, y: 600, width: 60, height: 60)),
                    KeyboardKey(id: "b", label: "b", frame: Rect(x: 1240, y: 740, width: 60, height: 60))]
        let open = shapes([.keyboard(keys)])
        // Kept on the screen.
        #expect(open.keyboard?.frame == PixelRect(x: 0, y: 600, width: 1280, height: 200))
        #expect(open.keyboard?.keys == keys)
        #expect(shapes([.keyboard(keys), .keyboardClose]).keyboard == nil)
    }

    /// Two outputs side by side, the second lower (a laptop beside a taller monitor).
    let left = PixelRect(x: 0, y: 0, width: 1280, height: 800)
    let right = PixelRect(x: 1280, y: 100, width: 1024, height: 768)

    func layoutShapes(_ effects: [Effect]) -> OverlayShapes {
        scene(effects).shapes(at: .seconds(100), thickness: 6, lineWidth: 4, screen: PixelRect(x: 0, y: 0, width: 2304, height: 868))
    }

    @Test func onTwoOutputsEachDrawsWhatReachesIntoItAndTheMenuGoesWithItsOutline() {
        let onRight = Rect(x: 1400, y: 300, width: 80, height: 30)
        let s = layoutShapes([.highlight(item: "ok", kind: .element, frame: onRight, label: "OK", context: nil),
                              .menuOpen(element: "ok", entries: ["tap", "gestures"], titles: ["Tap", "Gestures"])])
        #expect(s.menuScreen(among: [left, right]) == 1)
        #expect(s.on(left, withMenu: false) == OverlayShapes())
        let r = s.on(right, withMenu: true)
        #expect(r.outline == s.outline && r.menu == s.menu && r.menu != nil)
        // An outline across the seam shows on both; the menu goes where its centre is.
        let across = layoutShapes([.highlight(item: "wide", kind: .group, frame: Rect(x: 1000, y: 300, width: 400, height: 30), label: nil, context: nil)])
        #expect(across.on(left, withMenu: false).outline == across.outline)
        #expect(across.on(right, withMenu: false).outline == across.outline)
        #expect(across.menuScreen(among: [left, right]) == 0)
        // A ring just outside the left output's edge still shows its side on it.
        let edge = layoutShapes([.highlight(item: "e", kind: .element, frame: Rect(x: 1282, y: 300, width: 40, height: 30), label: nil, context: nil)])
        #expect(edge.on(left, withMenu: false).outline != nil && edge.menuScreen(among: [left, right]) == 1)
        // Centred in the gap above the lower output: the output it reaches into.
        let gap = layoutShapes([.highlight(item: "g", kind: .element, frame: Rect(x: 1290, y: 60, width: 80, height: 60), label: nil, context: nil)])
        #expect(gap.menuScreen(among: [left, right]) == 1)
        // The screen menu (no anchor, no outline) goes on the first output; none without outputs.
        let screenMenu = layoutShapes([.menuOpen(element: "", entries: ["windows"], titles: ["Windows"])])
        #expect(screenMenu.menuScreen(among: [left, right]) == 0 && screenMenu.menuScreen(among: []) == nil)
        // Point mode's vertical line is on the output its x is on; the horizontal one on both.
        let x = Sweep(axis: .x, phase: .line, start: .seconds(0), lo: 0, hi: 2304, speed: 100, passes: 2)
        let line = scene([.sweep(x)]).shapes(at: .seconds(15), thickness: 6, lineWidth: 4, screen: PixelRect(x: 0, y: 0, width: 2304, height: 868))
        #expect(line.on(left, withMenu: false).lineX == nil && line.on(right, withMenu: false).lineX == line.lineX)
        let chosen = layoutShapes([.sweep(x), .pointSelected(Point(x: 100, y: 400))])
        #expect(chosen.on(right, withMenu: false).lineY == chosen.lineY && chosen.on(right, withMenu: false).lineX == nil)
        // The keyboard on the output it is on.
        let keys = [KeyboardKey(id: "a", label: "a", frame: Rect(x: 1300, y: 700, width: 60, height: 60))]
        let kb = layoutShapes([.keyboard(keys)])
        #expect(kb.on(right, withMenu: false).keyboard == kb.keyboard && kb.on(left, withMenu: false).keyboard == nil)
        #expect(kb.menuScreen(among: [left, right]) == 1)
    }
}

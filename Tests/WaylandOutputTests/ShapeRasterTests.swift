import ScanCore
import ScreenScene
import Testing
@testable import WaylandOutput

/// The layer-shell overlay's pixels, drawn into a plain buffer.
@Suite struct ShapeRasterTests {
    let raster = ShapeRaster(feedback: FeedbackSettings(), text: nil)
    static let orange: UInt32 = 0xffff_8c00

    /// A 200 × 100 buffer showing the screen from `origin`.
    final class Canvas {
        let width: Int, height: Int
        var storage: [UInt32]
        init(width: Int = 200, height: Int = 100) {
            self.width = width
            self.height = height
            storage = [UInt32](repeating: 0, count: width * height)
        }
        /// The rectangles now held (the keyboard's last), and the damage.
        func draw(_ raster: ShapeRaster, _ shapes: OverlayShapes, over previous: ShapeRaster.Held = ShapeRaster.Held(), origin: (Int, Int) = (0, 0))
            -> (drawn: [PixelRect], damage: [PixelRect], held: ShapeRaster.Held) {
            let (w, h) = (width, height)
            let (held, damage) = storage.withUnsafeMutableBufferPointer { p in
                raster.draw(shapes, over: previous, into: ShapeRaster.Target(pixels: p, width: w, height: h, origin: origin))
            }
            return (held.all, damage, held)
        }
        subscript(x: Int, y: Int) -> UInt32 { storage[y * width + x] }
        /// The pixels of `r` that are not one of `colours`.
        func others(in r: PixelRect, than colours: Set<UInt32>) -> Int {
            (r.y..<r.maxY).reduce(0) { n, y in n + (r.x..<r.maxX).filter { !colours.contains(self[$0, y]) }.count }
        }
    }

    @Test func aRingIsTheColourBetweenTwoDarkEdgesJustOutsideTheFrame() {
        let c = Canvas()
        var shapes = OverlayShapes()
        // A 4-pixel outline around the frame 20,20 50×30: thickness 6.
        shapes.outline = .ring(outer: PixelRect(x: 14, y: 14, width: 62, height: 42), hole: PixelRect(x: 20, y: 20, width: 50, height: 30), group: false)
        let (drawn, damage, _) = c.draw(raster, shapes)
        #expect(drawn == [PixelRect(x: 14, y: 14, width: 62, height: 42)] && damage == drawn)
        // Along the left side, from outside in: clear, dark, 4 × orange, dark, the frame (clear).
        #expect((13...21).map { c[$0, 35] } == [0, ShapeRaster.dark, Self.orange, Self.orange, Self.orange, Self.orange, ShapeRaster.dark, 0, 0])
        #expect(c[14, 14] == ShapeRaster.dark && c[15, 15] == Self.orange && c[45, 35] == 0)
    }

    @Test func whatWasDrawnBeforeIsClearedAndSentAsDamage() {
        let c = Canvas()
        var first = OverlayShapes()
        first.outline = .ring(outer: PixelRect(x: 14, y: 14, width: 62, height: 42), hole: PixelRect(x: 20, y: 20, width: 50, height: 30), group: false)
        let one = c.draw(raster, first)
        var second = OverlayShapes()
        second.outline = .ring(outer: PixelRect(x: 100, y: 10, width: 30, height: 30), hole: PixelRect(x: 106, y: 16, width: 18, height: 18), group: true)
        let two = c.draw(raster, second, over: one.held)
        #expect(two.damage == one.drawn + two.drawn)
        #expect(c[14, 35] == 0 && c[15, 35] == 0)
        // A group in the group colour (blue for the default orange).
        #expect(c[101, 25] == 0xff00_73ff)
    }

    @Test func linesHaveDarkEdgesAlongThemAndTheBufferIsAWindowOntoTheScreen() {
        let c = Canvas()
        var shapes = OverlayShapes()
        shapes.lineX = PixelRect(x: 1047, y: 0, width: 6, height: 800)
        // The buffer shows the screen from 1000,500: the line is at buffer x 47.
        _ = c.draw(raster, shapes, origin: (1000, 500))
        #expect((46...53).map { c[$0, 50] } == [0, ShapeRaster.dark, Self.orange, Self.orange, Self.orange, Self.orange, ShapeRaster.dark, 0])
    }

    @Test func aUnionBandIsEdgedWhereverItMeetsTheOutside() {
        let c = Canvas()
        var shapes = OverlayShapes()
        let holes = [PixelRect(x: 20, y: 20, width: 20, height: 20), PixelRect(x: 100, y: 20, width: 20, height: 20)]
        shapes.outline = .union(outer: PixelRect(x: 14, y: 14, width: 112, height: 32), cover: holes.map { $0.insetBy(-6) }, holes: holes, group: true)
        _ = c.draw(raster, shapes)
        #expect(c[14, 30] == ShapeRaster.dark && c[16, 30] == 0xff00_73ff && c[19, 30] == ShapeRaster.dark && c[30, 30] == 0)
        // Between the two members nothing is drawn.
        #expect(c[70, 30] == 0)
    }

    static func painter() throws -> TextPainter {
        let (painter, note) = OverlayFont.load()
        return try #require(painter, "\(note ?? "")")
    }

    /// The menu beside the outline: framed in the highlight colour on the dark panel, one
    /// row a title, the current one on a highlighted row in dark letters, the others in white.
    @Test func theMenuIsAPanelBesideTheOutlineWithItsCurrentRowHighlighted() throws {
        let text = try Self.painter()
        let raster = ShapeRaster(feedback: FeedbackSettings(), text: text)
        let c = Canvas(width: 400, height: 200)
        var shapes = OverlayShapes()
        shapes.menu = OverlayShapes.Menu(titles: ["Tap", "Settings and more"], current: 1, anchor: PixelRect(x: 10, y: 10, width: 50, height: 30))
        let (drawn, _, _) = c.draw(raster, shapes)
        let frame = try #require(drawn.first)
        let row = text.lineHeight + ShapeRaster.rowGap
        #expect(frame == PixelRect(x: 64, y: 10, width: text.width("Settings and more") + 2 * ShapeRaster.padding + 2 * ShapeRaster.border,
                                   height: 2 * row + ShapeRaster.rowGap + 2 * ShapeRaster.border))
        #expect(c[frame.x, frame.y + 5] == Self.orange && c[frame.x + 1, frame.maxY - 1] == Self.orange)
        #expect(c[frame.x + 3, frame.y + 3] == ShapeRaster.panel)
        // Row 0 on the panel, white letters; row 1 highlighted, dark letters.
        let inner = frame.insetBy(ShapeRaster.border)
        let first = PixelRect(x: inner.x + 2, y: inner.y + ShapeRaster.rowTop(0, rowHeight: text.lineHeight), width: inner.width - 4, height: row)
        let second = PixelRect(x: inner.x + 2, y: inner.y + ShapeRaster.rowTop(1, rowHeight: text.lineHeight), width: inner.width - 4, height: row)
        #expect(c[second.x + 1, second.y + 1] == Self.orange && c[first.x + 1, first.y + 1] == ShapeRaster.panel)
        #expect(c.others(in: first, than: [ShapeRaster.panel]) > 40, "no letters in the first row")
        #expect((first.y..<first.maxY).contains { y in (first.x..<first.maxX).contains { c[$0, y] == ShapeRaster.white } })
        #expect(c.others(in: second, than: [Self.orange]) > 100, "no letters in the current row")
        #expect((second.y..<second.maxY).contains { y in (second.x..<second.maxX).contains { c[$0, y] == ShapeRaster.dark } })
        // Nothing outside the panel.
        #expect(c.others(in: PixelRect(x: 0, y: 0, width: 400, height: 200), than: [0]) == frame.width * frame.height)
        #expect(c[frame.maxX, frame.y + 5] == 0 && c[frame.x - 1, frame.y + 5] == 0)
    }

    /// The keyboard: light tiles on the dark panel, each with its label in white, a held
    /// modifier's tile in the group colour.
    @Test func theKeyboardIsTilesWithTheirLabels() throws {
        let raster = ShapeRaster(feedback: FeedbackSettings(), text: try Self.painter())
        let c = Canvas(width: 300, height: 100)
        var shapes = OverlayShapes()
        let keys = [KeyboardKey(id: "key:a", label: "a", frame: Rect(x: 10, y: 10, width: 60, height: 40)),
                    KeyboardKey(id: "key:ctrl", label: "Ctrl", frame: Rect(x: 70, y: 10, width: 60, height: 40), held: true)]
        shapes.keyboard = OverlayShapes.Keyboard(keys: keys, frame: PixelRect(x: 10, y: 10, width: 120, height: 40))
        let (drawn, _, _) = c.draw(raster, shapes)
        #expect(drawn == [PixelRect(x: 10, y: 10, width: 120, height: 40)])
        #expect(c[11, 11] == ShapeRaster.panel && c[69, 30] == ShapeRaster.panel)
        #expect(c[14, 14] == ShapeRaster.key)
        let blue = ShapeRaster.argb(OverlayGeometry.groupColor(for: FeedbackSettings().highlightColor))
        #expect(c[74, 14] == blue)
        let a = PixelRect(x: 13, y: 13, width: 54, height: 34), ctrl = PixelRect(x: 73, y: 13, width: 54, height: 34)
        #expect(c.others(in: a, than: [ShapeRaster.key]) > 20 && c.others(in: ctrl, than: [blue]) > 60)
        #expect((a.y..<a.maxY).contains { y in (a.x..<a.maxX).contains { c[$0, y] == ShapeRaster.white } })
        #expect(c[5, 5] == 0 && c[131, 30] == 0)
    }

    /// The message screen's message: in the larger font, wrapped over the lines its tile
    /// holds, its rows of letters apart by the large font's line height.
    @Test func theMessageIsWrittenLargeOnAsManyLinesAsItsTileHolds() throws {
        let text = try Self.painter()
        let raster = ShapeRaster(feedback: FeedbackSettings(), text: text)
        let large = try #require(raster.messageText)
        #expect(large.lineHeight > text.lineHeight * 3 / 2 - 2)
        let c = Canvas(width: 400, height: 200)
        var shapes = OverlayShapes()
        let message = KeyboardKey(id: KeyboardKey.messageID, label: "Please turn me over, I am uncomfortable",
                                  frame: Rect(x: 0, y: 0, width: 400, height: 200))
        shapes.keyboard = OverlayShapes.Keyboard(keys: [message], frame: PixelRect(x: 0, y: 0, width: 400, height: 200))
        _ = c.draw(raster, shapes)
        // Rows with white letters, grouped into runs: one run a line of text.
        let rows = (0..<200).filter { y in (0..<400).contains { c[$0, y] == ShapeRaster.white } }
        let runs = rows.reduce(into: [[Int]]()) { runs, y in
            if let last = runs.last?.last, y == last + 1 { runs[runs.count - 1].append(y) } else { runs.append([y]) }
        }
        let lines = MessageLines.lines(message.label, width: 400 - 2 * ShapeRaster.keyGap - 2 * ShapeRaster.padding,
                                       fitting: (200 - 2 * ShapeRaster.keyGap) / large.lineHeight, measure: large.width)
        #expect(lines.count >= 2, "\(lines)")
        #expect(runs.count == lines.count, "rows of letters \(runs.map { ($0.first!, $0.last!) }) for \(lines)")
        #expect(runs.map(\.count).max()! > text.lineHeight * 2 / 3, "letters of the large size")
    }

    /// Without a font the panels are still drawn, without labels.
    @Test func withoutAFontThePanelsHaveNoLabels() {
        let c = Canvas(width: 300, height: 100)
        var shapes = OverlayShapes()
        shapes.keyboard = OverlayShapes.Keyboard(keys: [KeyboardKey(id: "key:a", label: "a", frame: Rect(x: 10, y: 10, width: 60, height: 40))],
                                                 frame: PixelRect(x: 10, y: 10, width: 60, height: 40))
        shapes.menu = OverlayShapes.Menu(titles: ["Tap"], current: 0, anchor: nil)
        let (drawn, _, _) = c.draw(raster, shapes)
        #expect(drawn.count == 2)
        #expect(c.others(in: PixelRect(x: 13, y: 13, width: 54, height: 34), than: [ShapeRaster.key]) == 0)
    }

    /// The outline moving over the keyboard: only what it covered is cleared, the keys there
    /// drawn again, and only that is damage; the keyboard changing is drawn whole.
    @Test func theKeyboardStaysUnderAMovingOutline() throws {
        let raster = ShapeRaster(feedback: FeedbackSettings(), text: try Self.painter())
        let c = Canvas(width: 300, height: 100)
        let keys = [KeyboardKey(id: "key:a", label: "a", frame: Rect(x: 10, y: 10, width: 60, height: 40)),
                    KeyboardKey(id: "key:b", label: "b", frame: Rect(x: 70, y: 10, width: 60, height: 40))]
        let board = OverlayShapes.Keyboard(keys: keys, frame: PixelRect(x: 10, y: 10, width: 120, height: 40))
        var first = OverlayShapes()
        first.keyboard = board
        first.outline = .ring(outer: PixelRect(x: 4, y: 4, width: 72, height: 52), hole: PixelRect(x: 10, y: 10, width: 60, height: 40), group: false)
        let one = c.draw(raster, first)
        var second = first
        second.outline = .ring(outer: PixelRect(x: 64, y: 4, width: 72, height: 52), hole: PixelRect(x: 70, y: 10, width: 60, height: 40), group: false)
        let two = c.draw(raster, second, over: one.held)
        #expect(two.damage == [PixelRect(x: 4, y: 4, width: 72, height: 52), PixelRect(x: 64, y: 4, width: 72, height: 52)])
        // The same pixels as the keyboard and the second outline drawn afresh.
        let fresh = Canvas(width: 300, height: 100)
        _ = fresh.draw(raster, second)
        #expect(c.storage == fresh.storage)
        // A new keyboard (Shift held): drawn whole.
        var third = second
        third.keyboard = OverlayShapes.Keyboard(keys: [keys[0], KeyboardKey(id: "key:b", label: "B", frame: keys[1].frame, held: true)], frame: board.frame)
        let three = c.draw(raster, third, over: two.held)
        #expect(three.damage.contains(board.frame))
        let again = Canvas(width: 300, height: 100)
        _ = again.draw(raster, third)
        #expect(c.storage == again.storage)
    }
}

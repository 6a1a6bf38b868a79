import ScanCore
import ScreenScene
import Testing
@testable import WaylandOutput

/// The layer-shell overlay's pixels, drawn into a plain buffer.
@Suite struct ShapeRasterTests {
    let raster = ShapeRaster(feedback: FeedbackSettings())
    static let orange: UInt32 = 0xffff_8c00

    /// A 200 × 100 buffer showing the screen from `origin`.
    final class Canvas {
        var storage = [UInt32](repeating: 0, count: 200 * 100)
        func draw(_ raster: ShapeRaster, _ shapes: OverlayShapes, over previous: [PixelRect] = [], origin: (Int, Int) = (0, 0))
            -> (drawn: [PixelRect], damage: [PixelRect]) {
            storage.withUnsafeMutableBufferPointer { p in
                raster.draw(shapes, over: previous, into: ShapeRaster.Target(pixels: p, width: 200, height: 100, origin: origin))
            }
        }
        subscript(x: Int, y: Int) -> UInt32 { storage[y * 200 + x] }
    }

    @Test func aRingIsTheColourBetweenTwoDarkEdgesJustOutsideTheFrame() {
        let c = Canvas()
        var shapes = OverlayShapes()
        // A 4-pixel outline around the frame 20,20 50×30: thickness 6.
        shapes.outline = .ring(outer: PixelRect(x: 14, y: 14, width: 62, height: 42), hole: PixelRect(x: 20, y: 20, width: 50, height: 30), group: false)
        let (drawn, damage) = c.draw(raster, shapes)
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
        let two = c.draw(raster, second, over: one.drawn)
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
}

import ScanCore
import ScreenScene

/// The overlay's shapes as pixels in a buffer (ARGB, premultiplied, 0 = clear): the outline
/// and the sweep drawn in the highlight colour (a group's outline in the group colour), edged
/// by a dark pixel inside and out, as the X11 overlay draws them. Pure: it writes a buffer
/// and says which rectangles it touched, so that only those are cleared next time and sent
/// to the compositor as damage.
struct ShapeRaster {
    var highlight: UInt32
    var group: UInt32
    static let dark: UInt32 = 0xff00_0000

    init(feedback: FeedbackSettings) {
        highlight = Self.argb(feedback.highlightColor)
        group = Self.argb(OverlayGeometry.groupColor(for: feedback.highlightColor))
    }

    static func argb(_ c: RGBColor) -> UInt32 {
        0xff00_0000 | UInt32(c.red) << 16 | UInt32(c.green) << 8 | UInt32(c.blue)
    }

    /// A buffer `width` × `height` whose pixel 0,0 is the screen's point `origin`.
    struct Target {
        var pixels: UnsafeMutableBufferPointer<UInt32>
        var width: Int
        var height: Int
        var origin: (x: Int, y: Int)

        /// `r` (screen pixels) in the buffer's coordinates, cut to it.
        func local(_ r: PixelRect) -> PixelRect {
            r.offsetBy(-origin.x, -origin.y).intersection(PixelRect(x: 0, y: 0, width: width, height: height))
        }

        func fill(_ r: PixelRect, _ color: UInt32) {
            let l = local(r)
            guard !l.isEmpty else { return }
            for y in l.y..<l.maxY {
                let row = y * width
                for x in l.x..<l.maxX { pixels[row + x] = color }
            }
        }
    }

    /// Clears `previous` (what this buffer held), draws `shapes`; returns the screen
    /// rectangles drawn (for the next clear) and the damage (cleared and drawn together).
    func draw(_ shapes: OverlayShapes, over previous: [PixelRect], into t: Target) -> (drawn: [PixelRect], damage: [PixelRect]) {
        for r in previous { t.fill(r, 0) }
        var drawn: [PixelRect] = []
        if let o = shapes.outline {
            let color = o.isGroup ? group : highlight
            switch o {
            case let .ring(outer, hole, _): ring(outer, hole, color, t)
            case let .union(outer, cover, holes, _): band(cover, holes: holes, within: outer, color, t)
            }
            drawn.append(o.outer)
        }
        if let b = shapes.band {
            ring(b.outer, b.hole, highlight, t)
            drawn.append(b.outer)
        }
        for line in [shapes.lineX, shapes.lineY].compactMap({ $0 }) {
            t.fill(line, Self.dark)
            // The dark edges run along the line.
            t.fill(line.width < line.height ? PixelRect(x: line.x + 1, y: line.y, width: line.width - 2, height: line.height)
                                            : PixelRect(x: line.x, y: line.y + 1, width: line.width, height: line.height - 2), highlight)
            drawn.append(line)
        }
        return (drawn, previous + drawn)
    }

    /// A ring: dark, then the colour one pixel in from each edge. A ring without a hole
    /// (a point) is a solid square.
    private func ring(_ outer: PixelRect, _ hole: PixelRect, _ color: UInt32, _ t: Target) {
        for side in OverlayGeometry.ringRectangles(outer: outer, hole: hole) { t.fill(side.offsetBy(outer.x, outer.y), Self.dark) }
        let inner = outer.insetBy(1)
        let innerHole = hole.isEmpty ? PixelRect(x: inner.x, y: inner.y, width: 0, height: 0) : hole.insetBy(-1)
        guard !inner.isEmpty else { return }
        for side in OverlayGeometry.ringRectangles(outer: inner, hole: innerHole) { t.fill(side.offsetBy(inner.x, inner.y), color) }
    }

    /// The band around a union: the covers less the holes, pixel by pixel; a pixel next to
    /// one outside the band is an edge, drawn dark.
    private func band(_ cover: [PixelRect], holes: [PixelRect], within outer: PixelRect, _ color: UInt32, _ t: Target) {
        func inBand(_ x: Int, _ y: Int) -> Bool {
            cover.contains { x >= $0.x && x < $0.maxX && y >= $0.y && y < $0.maxY }
                && !holes.contains { x >= $0.x && x < $0.maxX && y >= $0.y && y < $0.maxY }
        }
        let l = t.local(outer)
        guard !l.isEmpty else { return }
        for by in l.y..<l.maxY {
            for bx in l.x..<l.maxX {
                let x = bx + t.origin.x, y = by + t.origin.y
                guard inBand(x, y) else { continue }
                let edge = !inBand(x - 1, y) || !inBand(x + 1, y) || !inBand(x, y - 1) || !inBand(x, y + 1)
                t.pixels[by * t.width + bx] = edge ? Self.dark : color
            }
        }
    }
}

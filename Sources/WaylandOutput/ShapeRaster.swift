import ScanCore
import ScreenScene

/// The overlay's shapes as pixels in a buffer (ARGB, premultiplied, 0 = clear), as the X11
/// overlay draws them: the keyboard's keys as light tiles with their labels on a dark panel;
/// the outline and the sweep in the highlight colour (a group's outline in the group colour),
/// edged by a dark pixel inside and out; the menu in a panel framed in the highlight colour,
/// its current entry on a highlighted row. Labels are drawn with `text` (without one, the
/// panels are drawn without them). Pure: it writes a buffer and says which rectangles it
/// touched, so that only those are cleared next time and sent to the compositor as damage.
struct ShapeRaster {
    var highlight: UInt32
    var group: UInt32
    let text: TextPainter?
    /// The message screen's message, larger (`OverlayFont.messagePixelSize`).
    let messageText: TextPainter?
    static let dark: UInt32 = 0xff00_0000
    static let panel: UInt32 = 0xff20_2020
    static let key: UInt32 = 0xff48_4848
    static let white: UInt32 = 0xffff_ffff
    /// The menu panel's frame, inner margin and gap between rows (the X11 overlay's).
    static let border = 2, padding = 10, rowGap = 8
    /// The gap around each key's tile.
    static let keyGap = 3

    init(feedback: FeedbackSettings, text: TextPainter?) {
        highlight = Self.argb(feedback.highlightColor)
        group = Self.argb(OverlayGeometry.groupColor(for: feedback.highlightColor))
        self.text = text
        messageText = text?.sized(OverlayFont.messagePixelSize)
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
        /// Where drawing may go (screen pixels; nil: the whole buffer).
        var clip: PixelRect? = nil

        /// `r` (screen pixels) in the buffer's coordinates, cut to it (and to `clip`).
        func local(_ r: PixelRect) -> PixelRect {
            (clip.map { r.intersection($0) } ?? r).offsetBy(-origin.x, -origin.y).intersection(PixelRect(x: 0, y: 0, width: width, height: height))
        }

        func clipped(to r: PixelRect) -> Target {
            var t = self
            t.clip = clip.map { $0.intersection(r) } ?? r
            return t
        }

        func fill(_ r: PixelRect, _ color: UInt32) {
            let l = local(r)
            guard !l.isEmpty else { return }
            for y in l.y..<l.maxY {
                let row = y * width
                for x in l.x..<l.maxX { pixels[row + x] = color }
            }
        }

        /// A glyph's coverage blended in `color` over what is there (an opaque panel), its
        /// pen at the screen's `x`, `baseline`, inside `clip`.
        func blend(_ g: GlyphImage, x: Int, baseline: Int, _ color: UInt32, clip: PixelRect) {
            let box = PixelRect(x: x + g.left, y: baseline + g.top, width: g.width, height: g.height)
            let l = local(box.intersection(clip))
            guard !l.isEmpty else { return }
            let gx = x + g.left - origin.x, gy = baseline + g.top - origin.y
            for y in l.y..<l.maxY {
                for x in l.x..<l.maxX {
                    let a = UInt32(g.alpha[(y - gy) * g.width + (x - gx)])
                    guard a > 0 else { continue }
                    let i = y * width + x
                    pixels[i] = a == 255 ? color : Self.mix(color, pixels[i], a)
                }
            }
        }

        /// `a`/255 of `top` over `bottom`, channel by channel (both opaque).
        static func mix(_ top: UInt32, _ bottom: UInt32, _ a: UInt32) -> UInt32 {
            var out: UInt32 = 0xff00_0000
            for shift in [16, 8, 0] as [UInt32] {
                let t = (top >> shift) & 0xff, b = (bottom >> shift) & 0xff
                out |= ((t * a + b * (255 - a) + 127) / 255) << shift
            }
            return out
        }
    }

    /// What a buffer holds: the keyboard panel, and the rectangles of everything above it.
    struct Held: Equatable {
        var rects: [PixelRect] = []
        var keyboard: OverlayShapes.Keyboard?
        /// Every rectangle drawn on.
        var all: [PixelRect] { rects + (keyboard.map { [$0.frame] } ?? []) }
    }

    /// Clears what the buffer holds (`previous`), draws `shapes`; returns what it holds now
    /// and the damage (what was cleared and drawn). The keyboard stays under the outline as it
    /// moves: where it is the same, only what lay above it is cleared, and the keyboard drawn
    /// again there alone (a whole keyboard is most of a frame's drawing).
    func draw(_ shapes: OverlayShapes, over previous: Held, into t: Target) -> (held: Held, damage: [PixelRect]) {
        let keep = previous.keyboard != nil && previous.keyboard == shapes.keyboard
        var damage = previous.rects
        if keep, let k = shapes.keyboard {
            for r in previous.rects {
                t.fill(r, 0)
                if !r.intersection(k.frame).isEmpty { keyboard(k, t.clipped(to: r)) }
            }
        } else {
            for r in previous.all { t.fill(r, 0) }
            if let k = previous.keyboard { damage.append(k.frame) }
            if let k = shapes.keyboard {
                keyboard(k, t)
                damage.append(k.frame)
            }
        }
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
        if let m = shapes.menu, let frame = menuFrame(m, screen: PixelRect(x: t.origin.x, y: t.origin.y, width: t.width, height: t.height)) {
            menu(m, in: frame, t)
            drawn.append(frame)
        }
        return (Held(rects: drawn, keyboard: shapes.keyboard), damage + drawn)
    }

    var rowHeight: Int { text?.lineHeight ?? 13 }

    /// Where the menu panel goes (border included): beside the outline, or centred.
    func menuFrame(_ m: OverlayShapes.Menu, screen: PixelRect) -> PixelRect? {
        guard !m.titles.isEmpty else { return nil }
        let widest = m.titles.map { text?.width($0) ?? 8 * $0.count }.max() ?? 0
        let size = (width: widest + 2 * Self.padding + 2 * Self.border,
                    height: m.titles.count * (rowHeight + Self.rowGap) + Self.rowGap + 2 * Self.border)
        let at = OverlayGeometry.panelOrigin(size: size, beside: m.anchor, screen: screen, gap: 4)
        return PixelRect(x: at.x, y: at.y, width: size.width, height: size.height)
    }

    /// The top of row `i` inside the panel's border.
    static func rowTop(_ i: Int, rowHeight: Int) -> Int { rowGap / 2 + i * (rowHeight + rowGap) }

    private func menu(_ m: OverlayShapes.Menu, in frame: PixelRect, _ t: Target) {
        t.fill(frame, highlight)
        let inner = frame.insetBy(Self.border)
        t.fill(inner, Self.panel)
        for (i, title) in m.titles.enumerated() {
            let top = inner.y + Self.rowTop(i, rowHeight: rowHeight)
            if i == m.current {
                t.fill(PixelRect(x: inner.x + 2, y: top, width: max(1, inner.width - 4), height: rowHeight + Self.rowGap).intersection(inner), highlight)
            }
            write(title, x: inner.x + Self.padding, baseline: top + Self.rowGap / 2 + (text?.ascent ?? 11),
                  i == m.current ? Self.dark : Self.white, clip: inner, t)
        }
    }

    private func keyboard(_ k: OverlayShapes.Keyboard, _ t: Target) {
        t.fill(k.frame, Self.panel)
        for key in k.keys {
            let r = PixelRect(covering: key.frame)
            // A held modifier or lock in the group outline's colour: what the next key will do.
            let tile = r.insetBy(Self.keyGap).intersection(k.frame)
            t.fill(tile, key.held ? group : Self.key)
            guard let text else { continue }
            if key.id == KeyboardKey.messageID, let large = messageText {
                // The message screen's message, large: as many lines as its tile holds, the
                // newest when it does not all fit.
                let lines = MessageLines.lines(key.label, width: tile.width - 2 * Self.padding, fitting: max(1, tile.height / large.lineHeight),
                                               measure: large.width)
                let top = r.y + (r.height - lines.count * large.lineHeight) / 2
                for (i, line) in lines.enumerated() {
                    write(line, x: r.x + max(Self.padding, (r.width - large.width(line)) / 2), baseline: top + i * large.lineHeight + large.ascent,
                          Self.white, clip: tile, t, with: large)
                }
                continue
            }
            let width = text.width(key.label)
            write(key.label, x: r.x + max(Self.keyGap, (r.width - width) / 2), baseline: r.y + (r.height + text.ascent - text.descent) / 2,
                  Self.white, clip: tile, t)
        }
    }

    private func write(_ s: String, x: Int, baseline: Int, _ color: UInt32, clip: PixelRect, _ t: Target, with painter: TextPainter? = nil) {
        guard let text = painter ?? text else { return }
        for (glyph, dx) in text.layout(s) { t.blend(glyph, x: x + dx, baseline: baseline, color, clip: clip) }
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

import ScanCore

/// A rectangle of whole pixels on the screen (the X root window, the compositor's layout).
public struct PixelRect: Hashable, Sendable {
    public var x: Int, y: Int, width: Int, height: Int
    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    /// The pixels a frame touches (edges rounded outward).
    public init(covering r: Rect) {
        x = Int(r.minX.rounded(.down)); y = Int(r.minY.rounded(.down))
        width = Int(r.maxX.rounded(.up)) - x; height = Int(r.maxY.rounded(.up)) - y
    }

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    public func insetBy(_ d: Int) -> PixelRect { PixelRect(x: x + d, y: y + d, width: width - 2 * d, height: height - 2 * d) }

    public func intersection(_ o: PixelRect) -> PixelRect {
        let x0 = max(x, o.x), y0 = max(y, o.y)
        return PixelRect(x: x0, y: y0, width: max(0, min(maxX, o.maxX) - x0), height: max(0, min(maxY, o.maxY) - y0))
    }

    public func offsetBy(_ dx: Int, _ dy: Int) -> PixelRect { PixelRect(x: x + dx, y: y + dy, width: width, height: height) }

    /// The smallest rectangle holding all of `rects`; nil for none.
    public static func enclosing(_ rects: [PixelRect]) -> PixelRect? {
        guard let first = rects.first else { return nil }
        return rects.dropFirst().reduce(first) { a, b in
            let x0 = min(a.x, b.x), y0 = min(a.y, b.y)
            return PixelRect(x: x0, y: y0, width: max(a.maxX, b.maxX) - x0, height: max(a.maxY, b.maxY) - y0)
        }
    }
}

/// The pure arithmetic of the overlays: where each shape goes, in pixels.
public enum OverlayGeometry {
    /// The outline around `frame`: a ring `thickness` pixels wide (the colour plus its two
    /// dark edges) just outside the frame, so the item itself stays uncovered. Where the ring
    /// would leave the screen (a maximised window, a whole-screen group) it is pulled inside
    /// the frame on that side. `outer` is the ring's extent, `hole` the clear part inside
    /// (empty for a zero-size frame: then a solid square marks the point). Nil when nothing
    /// of it is on the screen.
    public static func ring(around frame: Rect, thickness: Int, screen: PixelRect) -> (outer: PixelRect, hole: PixelRect)? {
        let outer = PixelRect(covering: frame).insetBy(-thickness).intersection(screen)
        guard !outer.isEmpty else { return nil }
        let hole = outer.insetBy(thickness)
        return (outer, hole.isEmpty ? PixelRect(x: outer.x, y: outer.y, width: 0, height: 0) : hole)
    }

    /// A ring as the rectangles of its four sides, relative to `outer`'s origin (what
    /// XShapeCombineRectangles takes); the whole of `outer` when the hole is empty.
    public static func ringRectangles(outer: PixelRect, hole: PixelRect) -> [PixelRect] {
        let w = outer.width, h = outer.height
        let hx = hole.x - outer.x, hy = hole.y - outer.y
        guard !hole.isEmpty else { return [PixelRect(x: 0, y: 0, width: w, height: h)] }
        return [
            PixelRect(x: 0, y: 0, width: w, height: hy),
            PixelRect(x: 0, y: hy + hole.height, width: w, height: h - hy - hole.height),
            PixelRect(x: 0, y: hy, width: hx, height: hole.height),
            PixelRect(x: hx + hole.width, y: hy, width: w - hx - hole.width, height: hole.height),
        ].filter { !$0.isEmpty }
    }

    /// The outline around a union of rectangles (a group whose members no one rectangle
    /// encloses, the rule of groups a person can see, docs/BEHAVIOUR.md): a band `thickness` pixels wide just outside the union. `cover`
    /// is the rectangles grown by the thickness (on the screen), `holes` the rectangles
    /// themselves: the band is the cover's union less the holes'. `outer` bounds the cover.
    /// Nil when nothing of it is on the screen.
    public static func unionRing(around rects: [Rect], thickness: Int, screen: PixelRect) -> (outer: PixelRect, cover: [PixelRect], holes: [PixelRect])? {
        let cover = rects.map { PixelRect(covering: $0).insetBy(-thickness).intersection(screen) }.filter { !$0.isEmpty }
        guard let outer = PixelRect.enclosing(cover) else { return nil }
        return (outer, cover, rects.map { PixelRect(covering: $0) }.filter { !$0.isEmpty })
    }

    /// A line `width` pixels wide (plus a 1-pixel dark edge each side) across the screen, on
    /// coordinate `at` of `axis`: vertical for x, horizontal for y. The result is the
    /// window's outer rectangle, edges included.
    public static func line(_ axis: SweepAxis, at p: Double, width: Int, screen: PixelRect) -> PixelRect {
        let start = Int(p.rounded()) - width / 2 - 1
        switch axis {
        case .x: return PixelRect(x: start, y: screen.y, width: width + 2, height: screen.height)
        case .y: return PixelRect(x: screen.x, y: start, width: screen.width, height: width + 2)
        }
    }

    /// Where the menu panel goes: beside the outline (right, else left, else below, else
    /// above), kept on the screen; centred on it without an anchor (the screen menu).
    public static func panelOrigin(size: (width: Int, height: Int), beside anchor: PixelRect?, screen: PixelRect,
                            gap: Int) -> (x: Int, y: Int) {
        func clamp(_ x: Int, _ y: Int) -> (x: Int, y: Int) {
            (max(screen.x, min(x, screen.maxX - size.width)), max(screen.y, min(y, screen.maxY - size.height)))
        }
        guard let a = anchor else {
            return clamp(screen.x + (screen.width - size.width) / 2, screen.y + (screen.height - size.height) / 2)
        }
        if a.maxX + gap + size.width <= screen.maxX { return clamp(a.maxX + gap, a.y) }
        if a.x - gap - size.width >= screen.x { return clamp(a.x - gap - size.width, a.y) }
        if a.maxY + gap + size.height <= screen.maxY { return clamp(a.x, a.maxY + gap) }
        if a.y - gap - size.height >= screen.y { return clamp(a.x, a.y - gap - size.height) }
        return clamp(a.x, a.y)
    }

    /// A menu entry's name as a title: "pointMode" → "Point mode", "expand or contract" →
    /// "Expand or contract", "zoom_in" → "Zoom in".
    public static func title(ofEntry name: String) -> String {
        var words: [String] = []
        var current = ""
        var previous: Character?
        for ch in name {
            if ch == "_" || ch == "-" || ch == " " {
                if !current.isEmpty { words.append(current); current = "" }
            } else if ch.isUppercase, let p = previous, p.isLowercase {
                words.append(current)
                current = String(ch).lowercased()
            } else {
                current.append(ch)
            }
            previous = ch
        }
        if !current.isEmpty { words.append(current) }
        let text = words.joined(separator: " ")
        guard let first = text.first else { return name }
        return first.uppercased() + text.dropFirst()
    }

    /// Groups are outlined in a second colour: the highlight colour's complement in hue
    /// (same lightness range), which for the default orange #ff8c00 is the blue #0073ff:
    /// orange and blue stay apart for the common colour-vision deficiencies. A colour too
    /// grey to have a complement gets that blue.
    public static func groupColor(for c: RGBColor) -> RGBColor {
        let hi = max(c.red, c.green, c.blue), lo = min(c.red, c.green, c.blue)
        guard hi - lo >= 64 else { return RGBColor(red: 0x00, green: 0x73, blue: 0xff) }
        let sum = Int(hi) + Int(lo)
        return RGBColor(red: UInt8(sum - Int(c.red)), green: UInt8(sum - Int(c.green)), blue: UInt8(sum - Int(c.blue)))
    }
}

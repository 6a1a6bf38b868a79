import ScanCore

/// The scene's shapes as what a painter that draws rectangles and labels needs (GNOME
/// Shell's, through SwitchScan's extension): filled rectangles and labels in screen pixels,
/// in four layers from the bottom (keyboard, outline, sweep, menu), drawn as the layer-shell
/// overlay draws them. Pure.
public enum SceneDrawing {
    public enum Item: Equatable, Sendable {
        /// A rectangle filled with a colour.
        case fill(PixelRect, RGBColor)
        /// A label: its text, colour, the box it is cut to, and its top left inside the box;
        /// `large`: in the message's size (`OverlayFont.messagePixelSize`).
        case label(String, RGBColor, box: PixelRect, at: (x: Int, y: Int), large: Bool = false)

        public static func == (a: Item, b: Item) -> Bool {
            switch (a, b) {
            case let (.fill(r1, c1), .fill(r2, c2)): return r1 == r2 && c1 == c2
            case let (.label(t1, c1, b1, p1, l1), .label(t2, c2, b2, p2, l2)): return t1 == t2 && c1 == c2 && b1 == b2 && p1 == p2 && l1 == l2
            default: return false
            }
        }
    }

    public struct Layers: Equatable, Sendable {
        public var keyboard: [Item] = []
        public var outline: [Item] = []
        public var sweep: [Item] = []
        public var menu: [Item] = []
        public init() {}
    }

    /// What a label's text measures, in the painter's font (used on its painter's queue).
    public struct Metrics {
        public var ascent: Int, descent: Int
        public var width: (String) -> Int
        public init(ascent: Int, descent: Int, width: @escaping (String) -> Int) {
            self.ascent = ascent; self.descent = descent; self.width = width
        }
        public var lineHeight: Int { ascent + descent }
        /// A painter's TrueType font.
        public init(_ t: TextPainter) { self.init(ascent: t.ascent, descent: t.descent, width: { t.width($0) }) }
    }

    public static let dark = RGBColor(red: 0, green: 0, blue: 0)
    public static let panel = RGBColor(red: 0x20, green: 0x20, blue: 0x20)
    public static let key = RGBColor(red: 0x48, green: 0x48, blue: 0x48)
    public static let white = RGBColor(red: 0xff, green: 0xff, blue: 0xff)
    /// The menu panel's frame, inner margin and gap between rows; the gap around each key.
    public static let border = 2, padding = 10, rowGap = 8, keyGap = 3

    /// `shapes` as layers; the menu panel placed on `screen`. `message`: the message screen's
    /// message font (larger), else `metrics`.
    public static func layers(_ shapes: OverlayShapes, highlight: RGBColor, metrics: Metrics, message: Metrics? = nil,
                              screen: PixelRect) -> Layers {
        var out = Layers()
        let group = OverlayGeometry.groupColor(for: highlight)
        if let k = shapes.keyboard { out.keyboard = keyboard(k, group: group, metrics, message: message) }
        if let o = shapes.outline {
            let color = o.isGroup ? group : highlight
            switch o {
            case let .ring(outer, hole, _): out.outline = ring(outer, hole, color)
            case let .union(outer, cover, holes, _): out.outline = band(cover, holes: holes, within: outer, color)
            }
        }
        if let b = shapes.band { out.sweep += ring(b.outer, b.hole, highlight) }
        for line in [shapes.lineX, shapes.lineY].compactMap({ $0 }) {
            out.sweep.append(.fill(line, dark))
            out.sweep.append(.fill(line.width < line.height ? PixelRect(x: line.x + 1, y: line.y, width: line.width - 2, height: line.height)
                                                            : PixelRect(x: line.x, y: line.y + 1, width: line.width, height: line.height - 2), highlight))
        }
        if let m = shapes.menu, let frame = menuFrame(m, metrics: metrics, screen: screen) {
            out.menu = menu(m, in: frame, highlight: highlight, metrics)
        }
        return out
    }

    /// Where the menu panel goes (border included): beside the outline, or centred.
    public static func menuFrame(_ m: OverlayShapes.Menu, metrics: Metrics, screen: PixelRect) -> PixelRect? {
        guard !m.titles.isEmpty else { return nil }
        let widest = m.titles.map(metrics.width).max() ?? 0
        let size = (width: widest + 2 * padding + 2 * border, height: m.titles.count * (metrics.lineHeight + rowGap) + rowGap + 2 * border)
        let at = OverlayGeometry.panelOrigin(size: size, beside: m.anchor, screen: screen, gap: 4)
        return PixelRect(x: at.x, y: at.y, width: size.width, height: size.height)
    }

    /// The top of row `i` inside the panel's border.
    public static func rowTop(_ i: Int, rowHeight: Int) -> Int { rowGap / 2 + i * (rowHeight + rowGap) }

    static func menu(_ m: OverlayShapes.Menu, in frame: PixelRect, highlight: RGBColor, _ metrics: Metrics) -> [Item] {
        let inner = frame.insetBy(border)
        var out: [Item] = [.fill(frame, highlight), .fill(inner, panel)]
        for (i, title) in m.titles.enumerated() {
            let top = inner.y + rowTop(i, rowHeight: metrics.lineHeight)
            if i == m.current {
                out.append(.fill(PixelRect(x: inner.x + 2, y: top, width: max(1, inner.width - 4), height: metrics.lineHeight + rowGap).intersection(inner), highlight))
            }
            let at = (x: padding, y: top + rowGap / 2 - inner.y)
            out.append(.label(title, i == m.current ? dark : white, box: inner, at: at))
        }
        return out
    }

    static func keyboard(_ k: OverlayShapes.Keyboard, group: RGBColor, _ metrics: Metrics, message: Metrics?) -> [Item] {
        var out: [Item] = [.fill(k.frame, panel)]
        for key in k.keys {
            let r = PixelRect(covering: key.frame)
            // A held modifier or lock in the group outline's colour: what the next key will do.
            let tile = r.insetBy(keyGap).intersection(k.frame)
            guard !tile.isEmpty else { continue }
            out.append(.fill(tile, key.held ? group : Self.key))
            if key.id == KeyboardKey.messageID {
                // The message screen's message, large: as many lines as its tile holds.
                let m = message ?? metrics
                let lines = MessageLines.lines(key.label, width: tile.width - 2 * padding, fitting: max(1, tile.height / m.lineHeight),
                                               measure: m.width)
                let top = r.y + (r.height - lines.count * m.lineHeight) / 2
                for (i, line) in lines.enumerated() {
                    let x = r.x + max(padding, (r.width - m.width(line)) / 2)
                    out.append(.label(line, white, box: tile, at: (x - tile.x, top + i * m.lineHeight - tile.y), large: message != nil))
                }
                continue
            }
            let width = metrics.width(key.label)
            let x = r.x + max(keyGap, (r.width - width) / 2), top = r.y + (r.height - metrics.lineHeight) / 2
            out.append(.label(key.label, white, box: tile, at: (x - tile.x, top - tile.y)))
        }
        return out
    }

    /// A ring: dark, then the colour one pixel in from each edge. A ring without a hole
    /// (a point) is a solid square.
    static func ring(_ outer: PixelRect, _ hole: PixelRect, _ color: RGBColor) -> [Item] {
        var out = OverlayGeometry.ringRectangles(outer: outer, hole: hole).map { Item.fill($0.offsetBy(outer.x, outer.y), dark) }
        let inner = outer.insetBy(1)
        let innerHole = hole.isEmpty ? PixelRect(x: inner.x, y: inner.y, width: 0, height: 0) : hole.insetBy(-1)
        guard !inner.isEmpty else { return out }
        out += OverlayGeometry.ringRectangles(outer: inner, hole: innerHole).map { .fill($0.offsetBy(inner.x, inner.y), color) }
        return out
    }

    /// The band around a union (the covers less the holes; a pixel next to one outside the
    /// band is an edge, drawn dark) as rectangles: each row's runs, rows alike merged.
    static func band(_ cover: [PixelRect], holes: [PixelRect], within outer: PixelRect, _ color: RGBColor) -> [Item] {
        guard !outer.isEmpty else { return [] }
        func inBand(_ x: Int, _ y: Int) -> Bool {
            cover.contains { x >= $0.x && x < $0.maxX && y >= $0.y && y < $0.maxY }
                && !holes.contains { x >= $0.x && x < $0.maxX && y >= $0.y && y < $0.maxY }
        }
        // 0: clear, 1: edge, 2: colour; a row as its runs (start, end, kind).
        typealias Run = (start: Int, end: Int, kind: Int)
        func runs(_ y: Int) -> [Run] {
            var out: [Run] = []
            for x in outer.x..<outer.maxX {
                let kind = !inBand(x, y) ? 0 : (!inBand(x - 1, y) || !inBand(x + 1, y) || !inBand(x, y - 1) || !inBand(x, y + 1)) ? 1 : 2
                if let last = out.last, last.kind == kind, last.end == x { out[out.count - 1].end = x + 1 } else { out.append((x, x + 1, kind)) }
            }
            return out.filter { $0.kind != 0 }
        }
        var out: [Item] = []
        var open: (runs: [Run], top: Int)?
        func close(at y: Int) {
            guard let o = open else { return }
            for r in o.runs { out.append(.fill(PixelRect(x: r.start, y: o.top, width: r.end - r.start, height: y - o.top), r.kind == 1 ? dark : color)) }
        }
        for y in outer.y..<outer.maxY {
            let row = runs(y)
            if let o = open, o.runs.elementsEqual(row, by: { $0 == $1 }) { continue }
            close(at: y)
            open = (row, y)
        }
        close(at: outer.maxY)
        return out
    }
}

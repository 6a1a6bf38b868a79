import ScanCore

/// What the scan shows on the screen, whoever paints it (the X11 overlay, the layer-shell
/// overlay under Wayland): built from the effect stream, and laid out as shapes in screen
/// pixels for a moment in time. Pure: a painter keeps one, applies every effect it is given,
/// and draws `shapes(at:)` (a sweep moves, so the shapes depend on the time).
public struct OverlayScene: Sendable {
    /// The outline: the frame highlighted, its kind, and the rectangles of a group no one
    /// rectangle encloses.
    public var outline: (frame: Rect, kind: HighlightKind, union: [Rect]?)?
    public var menu: Menu?
    public var sweep: Sweep?
    /// The x a press fixed, drawn while y sweeps (kept while stopped: a press restarts y).
    public var fixedX: Double?
    public var chosen: Point?
    /// The scanning keyboard, while it is open.
    public var keyboard: [KeyboardKey]?

    public struct Menu: Sendable, Equatable {
        public var names: [String]
        public var titles: [String]
        public var current: Int?
        public var anchor: Rect?
        /// The screen menu's stop in the item cycle (a highlight, no menu open yet).
        public var isStop = false
    }

    public init() {}

    /// Whether a sweep is moving at `now`: a painter redraws it every frame until then.
    public func isMoving(at now: ScanInstant) -> Bool { sweep.map { now < $0.end } ?? false }

    public mutating func apply(_ e: TimedEffect) {
        switch e.effect {
        case let .highlight(item, kind, frame, label, _, outline):
            if kind == .menuEntry {
                if var m = menu, !m.isStop {
                    if let i = m.names.firstIndex(of: item) {
                        m.current = i
                        if let label { m.titles[i] = label }
                    }
                    m.anchor = frame
                    menu = m
                } else {
                    let title = label ?? OverlayGeometry.title(ofEntry: item)
                    menu = Menu(names: [item], titles: [title], current: 0, anchor: frame, isStop: true)
                }
            } else if menu?.isStop == true {
                menu = nil
            }
            self.outline = frame.map { ($0, kind, outline) }
        case let .menuOpen(_, entries, titles):
            let anchor = menu?.anchor ?? outline?.frame
            menu = Menu(names: entries, titles: titles, current: entries.isEmpty ? nil : 0, anchor: anchor)
            sweep = nil
            chosen = nil
        case .menuClose:
            menu = nil
        case .modeChanged(let mode):
            outline = nil
            menu = nil
            if mode == .item { sweep = nil; fixedX = nil; chosen = nil }
        case .sweep(let s):
            if s.axis == .x {
                fixedX = nil
            } else if let previous = sweep, previous.axis == .x {
                fixedX = previous.position(at: e.time)
            }
            sweep = s
            chosen = nil
            outline = nil
            if menu?.isStop == true { menu = nil }
        case .pointSelected(let p):
            sweep = nil
            chosen = p
        case .scanStopped(let reason):
            // Waiting after a selection keeps the place it will resume on in view.
            guard reason != .afterSelection else { break }
            outline = nil
            menu = nil
            sweep = nil
            chosen = nil
        case .keyboard(let keys):
            keyboard = keys
        case .keyboardClose:
            keyboard = nil
        default:
            // The rest draws nothing (EffectSpec.table says which kinds the painters act on).
            break
        }
    }

    /// The scene laid out at `now`: `thickness` is the outline's width with its two dark
    /// edges, `lineWidth` point mode's line without them; nothing leaves `screen`.
    public func shapes(at now: ScanInstant, thickness: Int, lineWidth: Int, screen: PixelRect) -> OverlayShapes {
        var out = OverlayShapes()
        if let keys = keyboard, let first = keys.first {
            let area = keys.dropFirst().reduce(first.frame) { $0.union($1.frame) }
            let frame = PixelRect(covering: area).intersection(screen)
            if !frame.isEmpty { out.keyboard = OverlayShapes.Keyboard(keys: keys, frame: frame) }
        }
        if let o = outline {
            let group = o.kind == .group
            if let rects = o.union {
                // A group no one rectangle encloses: the band follows its members' union.
                if let r = OverlayGeometry.unionRing(around: rects, thickness: thickness, screen: screen) {
                    out.outline = .union(outer: r.outer, cover: r.cover, holes: r.holes, group: group)
                }
            } else if let r = OverlayGeometry.ring(around: o.frame, thickness: thickness, screen: screen) {
                out.outline = .ring(outer: r.outer, hole: r.hole, group: group)
            }
        }
        // Point mode: the sweep (band or line) on its axis, the fixed x, or the chosen point.
        var xAt: Double?, yAt: Double?
        if let s = sweep {
            if s.axis == .y { xAt = fixedX }
            let p = s.position(at: now)
            switch (s.phase, s.axis) {
            case (.line, .x): xAt = p
            case (.line, .y): yAt = p
            case (.band, .x):
                out.band = OverlayGeometry.ring(around: Rect(x: p, y: Double(screen.y), width: s.width, height: Double(screen.height)),
                                                thickness: thickness, screen: screen).map { OverlayShapes.Ring(outer: $0.outer, hole: $0.hole) }
            case (.band, .y):
                out.band = OverlayGeometry.ring(around: Rect(x: Double(screen.x), y: p, width: Double(screen.width), height: s.width),
                                                thickness: thickness, screen: screen).map { OverlayShapes.Ring(outer: $0.outer, hole: $0.hole) }
            }
        } else if let c = chosen {
            xAt = c.x; yAt = c.y
        }
        out.lineX = xAt.map { OverlayGeometry.line(.x, at: $0, width: lineWidth, screen: screen) }
        out.lineY = yAt.map { OverlayGeometry.line(.y, at: $0, width: lineWidth, screen: screen) }
        if let m = menu {
            let anchor = m.anchor.flatMap { OverlayGeometry.ring(around: $0, thickness: thickness, screen: screen)?.outer }
            out.menu = OverlayShapes.Menu(titles: m.titles, current: m.current, anchor: anchor)
        }
        return out
    }
}

/// The scene as shapes in screen pixels, drawn in this order from the bottom: the keyboard
/// panel, the outline, the sweep's band and lines, the menu panel.
public struct OverlayShapes: Equatable, Sendable {
    public struct Ring: Equatable, Sendable {
        public var outer: PixelRect
        /// The clear part inside (empty: a solid square marks a point).
        public var hole: PixelRect
        public init(outer: PixelRect, hole: PixelRect) { self.outer = outer; self.hole = hole }
    }

    public enum Outline: Equatable, Sendable {
        /// A ring just outside one frame.
        case ring(outer: PixelRect, hole: PixelRect, group: Bool)
        /// A band around a union of rectangles: `cover` less `holes`, bounded by `outer`.
        case union(outer: PixelRect, cover: [PixelRect], holes: [PixelRect], group: Bool)

        public var outer: PixelRect {
            switch self {
            case .ring(let o, _, _), .union(let o, _, _, _): return o
            }
        }

        /// A group's outline is drawn in the group colour.
        public var isGroup: Bool {
            switch self {
            case .ring(_, _, let g), .union(_, _, _, let g): return g
            }
        }
    }

    public struct Keyboard: Equatable, Sendable {
        public var keys: [KeyboardKey]
        /// The keys' union, on the screen.
        public var frame: PixelRect
        public init(keys: [KeyboardKey], frame: PixelRect) { self.keys = keys; self.frame = frame }
    }

    /// The panel's lines; where it goes depends on the size its painter's font gives it
    /// (`OverlayGeometry.panelOrigin`, beside `anchor`).
    public struct Menu: Equatable, Sendable {
        public var titles: [String]
        public var current: Int?
        /// The outline's outer rectangle it is placed beside (nil: centred, the screen menu).
        public var anchor: PixelRect?
        public init(titles: [String], current: Int?, anchor: PixelRect?) { self.titles = titles; self.current = current; self.anchor = anchor }
    }

    public var keyboard: Keyboard?
    public var outline: Outline?
    public var band: Ring?
    public var lineX: PixelRect?
    public var lineY: PixelRect?
    public var menu: Menu?

    public init() {}
}

/// A compositor with several outputs has a painter surface on each: the shapes are laid out
/// once over the whole layout and each surface draws what reaches into it (its buffer clips
/// the rest). The menu panel is drawn on one output alone.
extension OverlayShapes {
    /// Of `screens` (the outputs, in the compositor's order), the index of the one the menu
    /// goes on: the one holding the centre of what it is beside (its anchor, else the
    /// outline), else the one the keyboard is on, else the first. Nil without screens.
    public func menuScreen(among screens: [PixelRect]) -> Int? {
        guard !screens.isEmpty else { return nil }
        for r in [menu?.anchor, outline?.outer, keyboard?.frame].compactMap({ $0 }) {
            let cx = r.x + r.width / 2, cy = r.y + r.height / 2
            if let i = screens.firstIndex(where: { cx >= $0.x && cx < $0.maxX && cy >= $0.y && cy < $0.maxY }) { return i }
        }
        for r in [menu?.anchor, outline?.outer, keyboard?.frame].compactMap({ $0 }) {
            if let i = screens.firstIndex(where: { !$0.intersection(r).isEmpty }) { return i }
        }
        return 0
    }

    /// The shapes that show on `screen`: each one that reaches into it, and the menu only
    /// when it goes there (`withMenu`). Two outputs' surfaces compare these, so a move on one
    /// output redraws nothing on the other.
    public func on(_ screen: PixelRect, withMenu: Bool) -> OverlayShapes {
        func reaches(_ r: PixelRect?) -> Bool { r.map { !$0.intersection(screen).isEmpty } ?? false }
        var s = OverlayShapes()
        if reaches(keyboard?.frame) { s.keyboard = keyboard }
        if reaches(outline?.outer) { s.outline = outline }
        if reaches(band?.outer) { s.band = band }
        if reaches(lineX) { s.lineX = lineX }
        if reaches(lineY) { s.lineY = lineY }
        if withMenu { s.menu = menu }
        return s
    }
}

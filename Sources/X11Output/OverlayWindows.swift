import CX11
import ScanCore
import ScreenScene

// The overlay's windows. Each is override-redirect (no window manager frames, stacks or
// focuses it), selects no events, says it takes no input, and has an EMPTY input shape, so
// every click and the pointer's "window under" go to what is below. Their pixels come from
// background pixels (or a background pixmap) that the server paints itself: no Expose
// handling, no ARGB visual, no compositor. Each method only sends requests; the presenter
// flushes once with XSync.

/// The pixels of the colours in use (the default colormap's; any visual).
struct OverlayPalette {
    var highlight: UInt
    var group: UInt
    var dark: UInt
    var panel: UInt
    var text: UInt
    var key: UInt

    init(_ x: X11Display, feedback: FeedbackSettings) throws {
        func pixel(_ c: RGBColor) throws -> UInt {
            var color = XColor()
            color.red = UInt16(c.red) * 257; color.green = UInt16(c.green) * 257; color.blue = UInt16(c.blue) * 257
            color.flags = Int8(DoRed | DoGreen | DoBlue)
            guard XAllocColor(x.pointer, cx11_default_colormap(x.pointer, x.screen), &color) != 0 else {
                throw X11Error("cannot allocate the colour \(c.hex) on X display '\(x.name)'. Hint: use a TrueColor (24-bit) screen.")
            }
            return color.pixel
        }
        highlight = try pixel(feedback.highlightColor)
        group = try pixel(OverlayGeometry.groupColor(for: feedback.highlightColor))
        dark = try pixel(RGBColor(red: 0, green: 0, blue: 0))
        panel = try pixel(RGBColor(red: 0x20, green: 0x20, blue: 0x20))
        text = try pixel(RGBColor(red: 0xff, green: 0xff, blue: 0xff))
        key = try pixel(RGBColor(red: 0x48, green: 0x48, blue: 0x48))
    }
}

/// Text as glyphs: UCS-2 for two-byte (ISO 10646) fonts; Latin-1 for one-row fonts, with
/// ASCII stand-ins (`latin1StandIns`) or "?" beyond it.
func overlayGlyphs(_ s: String, font: UnsafeMutablePointer<XFontStruct>?) -> [XChar2b] {
    let twoByte = (font?.pointee.max_byte1 ?? 0) > 0
    return overlayCodes(s, twoByte: twoByte).map { XChar2b(byte1: UInt8($0 >> 8), byte2: UInt8($0 & 0xff)) }
}

/// The font's character codes for `s`: UCS-2 for a two-byte font, Latin-1 for a one-byte one.
func overlayCodes(_ s: String, twoByte: Bool) -> [UInt16] {
    s.unicodeScalars.flatMap { u -> [UInt16] in
        let v = u.value
        if (twoByte && v <= 0xffff) || v <= 0xff { return [UInt16(v)] }
        return (latin1StandIns[v] ?? "?").utf8.map { UInt16($0) }
    }
}

/// What a Latin-1 font draws for the keyboard's characters beyond it (the Edit page's arrows,
/// typographic quotes among the symbols), rather than "?".
let latin1StandIns: [UInt32: String] = [
    0x2190: "<-", 0x2192: "->", 0x2191: "^", 0x2193: "v",
    0x2018: "'", 0x2019: "'", 0x201C: "\"", 0x201D: "\"", 0x2013: "-", 0x2014: "--", 0x2026: "...", 0x2022: "*",
    0x20AC: "EUR",
]

/// A click-through, override-redirect window (unmapped), named for xwininfo.
func makeOverlayWindow(_ x: X11Display, parent: Window, name: String?, background: UInt,
                       border: (width: Int, pixel: UInt) = (0, 0)) -> Window {
    let d = x.pointer
    var attributes = XSetWindowAttributes()
    attributes.override_redirect = 1
    attributes.background_pixel = background
    attributes.border_pixel = border.pixel
    attributes.event_mask = 0
    let mask = UInt(CWOverrideRedirect | CWBackPixel | CWBorderPixel | CWEventMask)
    let w = XCreateWindow(d, parent, 0, 0, 1, 1, UInt32(border.width), Int32(CopyFromParent),
                          UInt32(InputOutput), nil, mask, &attributes)
    // Click-through: the input shape has no rectangle at all.
    XShapeCombineRectangles(d, w, ShapeInput, 0, 0, nil, 0, ShapeSet, Unsorted)
    if let name {
        XStoreName(d, w, name)
        // Should anything manage it after all, it must not be given the keyboard.
        var hints = XWMHints()
        hints.flags = InputHint
        hints.input = 0
        XSetWMHints(d, w, &hints)
    }
    return w
}

/// Moves, resizes and raises a window in one request.
func configure(_ x: X11Display, _ w: Window, _ r: PixelRect, raise: Bool) {
    var changes = XWindowChanges()
    changes.x = Int32(r.x); changes.y = Int32(r.y)
    changes.width = Int32(max(1, r.width)); changes.height = Int32(max(1, r.height))
    changes.stack_mode = Above
    let mask = CWX | CWY | CWWidth | CWHeight | (raise ? CWStackMode : 0)
    XConfigureWindow(x.pointer, w, UInt32(mask), &changes)
}

func setShape(_ x: X11Display, _ w: Window, _ rects: [PixelRect], operation: Int32 = ShapeSet) {
    var xr = rects.map { XRectangle(x: Int16(clamping: $0.x), y: Int16(clamping: $0.y),
                                    width: UInt16(clamping: $0.width), height: UInt16(clamping: $0.height)) }
    XShapeCombineRectangles(x.pointer, w, ShapeBounding, 0, 0, &xr, Int32(xr.count), operation, Unsorted)
}

/// The outline: a dark ring (the window) holding a coloured ring one pixel narrower on each
/// side (its child), so the colour has a dark edge inside and out. A move is: reshape and
/// resize the child, reshape the window, then move+resize+raise it in one ConfigureWindow;
/// it stays mapped between moves, so no frame without an outline is ever shown.
final class RingWindow {
    let x: X11Display
    let window: Window
    let inner: Window
    private(set) var drawn: (outer: PixelRect, hole: PixelRect, color: UInt)?
    /// The union drawn (`show(outer:cover:holes:color:)`), nil for a plain ring.
    private(set) var drawnUnion: [PixelRect]?
    private var innerColor: UInt

    init(_ x: X11Display, name: String, palette: OverlayPalette) {
        self.x = x
        window = makeOverlayWindow(x, parent: x.root, name: name, background: palette.dark)
        inner = makeOverlayWindow(x, parent: window, name: nil, background: palette.highlight)
        innerColor = palette.highlight
        XMapWindow(x.pointer, inner)
    }

    var isShown: Bool { drawn != nil }

    /// Returns whether anything was sent.
    @discardableResult
    func show(outer: PixelRect, hole: PixelRect, color: UInt) -> Bool {
        if let d = drawn, d.outer == outer, d.hole == hole, d.color == color, drawnUnion == nil { return false }
        drawnUnion = nil
        let innerRect = PixelRect(x: 1, y: 1, width: outer.width - 2, height: outer.height - 2)
        let innerHole = hole.isEmpty ? hole : hole.insetBy(-1)
        // The child's ring, in its own coordinates.
        setShape(x, inner, OverlayGeometry.ringRectangles(
            outer: innerRect.offsetBy(outer.x, outer.y), hole: innerHole))
        configure(x, inner, innerRect, raise: false)
        if color != innerColor {
            XSetWindowBackground(x.pointer, inner, color)
            XClearWindow(x.pointer, inner)
            innerColor = color
        }
        setShape(x, window, OverlayGeometry.ringRectangles(outer: outer, hole: hole))
        configure(x, window, outer, raise: true)
        if drawn == nil { XMapRaised(x.pointer, window) }
        drawn = (outer, hole, color)
        return true
    }

    /// A band around a union of rectangles (`OverlayGeometry.unionRing`, absolute
    /// coordinates): the window is the cover less the holes, its coloured child the cover
    /// one pixel narrower less the holes one pixel wider.
    @discardableResult
    func show(outer: PixelRect, cover: [PixelRect], holes: [PixelRect], color: UInt) -> Bool {
        let key = cover + [PixelRect(x: 0, y: 0, width: 0, height: 0)] + holes
        if let d = drawn, d.outer == outer, d.color == color, drawnUnion == key { return false }
        let innerRect = PixelRect(x: 1, y: 1, width: outer.width - 2, height: outer.height - 2)
        let innerOrigin = (outer.x + 1, outer.y + 1)
        setShape(x, inner, cover.map { $0.insetBy(1).offsetBy(-innerOrigin.0, -innerOrigin.1) })
        setShape(x, inner, holes.map { $0.insetBy(-1).offsetBy(-innerOrigin.0, -innerOrigin.1) }, operation: ShapeSubtract)
        configure(x, inner, innerRect, raise: false)
        if color != innerColor {
            XSetWindowBackground(x.pointer, inner, color)
            XClearWindow(x.pointer, inner)
            innerColor = color
        }
        setShape(x, window, cover.map { $0.offsetBy(-outer.x, -outer.y) })
        setShape(x, window, holes.map { $0.offsetBy(-outer.x, -outer.y) }, operation: ShapeSubtract)
        configure(x, window, outer, raise: true)
        if drawn == nil { XMapRaised(x.pointer, window) }
        drawn = (outer, PixelRect(x: 0, y: 0, width: 0, height: 0), color)
        drawnUnion = key
        return true
    }

    @discardableResult
    func hide() -> Bool {
        guard drawn != nil else { return false }
        XUnmapWindow(x.pointer, window)
        drawn = nil
        drawnUnion = nil
        return true
    }

    func raise() { if drawn != nil { XRaiseWindow(x.pointer, window) } }
}

/// A sweep line: a plain window whose 1-pixel dark border edges its coloured inside.
final class LineWindow {
    let x: X11Display
    let window: Window
    private(set) var drawn: PixelRect?

    init(_ x: X11Display, name: String, palette: OverlayPalette) {
        self.x = x
        window = makeOverlayWindow(x, parent: x.root, name: name, background: palette.highlight,
                                   border: (1, palette.dark))
    }

    /// `outer` includes the border.
    @discardableResult
    func show(_ outer: PixelRect) -> Bool {
        if drawn == outer { return false }
        configure(x, window, PixelRect(x: outer.x, y: outer.y, width: outer.width - 2, height: outer.height - 2), raise: true)
        if drawn == nil { XMapRaised(x.pointer, window) }
        drawn = outer
        return true
    }

    @discardableResult
    func hide() -> Bool {
        guard drawn != nil else { return false }
        XUnmapWindow(x.pointer, window)
        drawn = nil
        return true
    }

    func raise() { if drawn != nil { XRaiseWindow(x.pointer, window) } }
}

/// The scanner menu: a panel of entry titles, the current one on a bar of the highlight
/// colour, in a 2-pixel border of that colour. Its picture is rendered into a pixmap that
/// becomes the window's background, so the server repaints it on exposure by itself.
final class MenuPanelWindow {
    static let border = 2
    static let padding = 10
    static let rowGap = 8

    let x: X11Display
    let window: Window
    let gc: GC
    let font: UnsafeMutablePointer<XFontStruct>?
    let palette: OverlayPalette
    private(set) var drawn: (lines: [String], current: Int?, frame: PixelRect)?

    /// Bitmap fonts every X server has or most desktops have, largest first; "fixed" is
    /// built into the server.
    static let fontPatterns = [
        "-*-dejavu sans-bold-r-normal--18-*-*-*-*-*-iso10646-1",
        "-misc-fixed-bold-r-normal--18-*-*-*-*-*-iso10646-1",
        "-*-helvetica-bold-r-normal--18-*-*-*-p-*-iso8859-1",
        "-*-nimbus sans l-bold-r-normal--18-*-*-*-p-*-iso8859-1",
        "9x15bold",
        "fixed",
    ]

    init(_ x: X11Display, name: String, palette: OverlayPalette) {
        self.x = x
        self.palette = palette
        window = makeOverlayWindow(x, parent: x.root, name: name, background: palette.panel,
                                   border: (Self.border, palette.highlight))
        gc = XCreateGC(x.pointer, window, 0, nil)
        font = Self.fontPatterns.lazy.compactMap { XLoadQueryFont(x.pointer, $0) }.first
        if let font { XSetFont(x.pointer, gc, font.pointee.fid) }
    }

    func glyphs(_ s: String) -> [XChar2b] { overlayGlyphs(s, font: font) }

    var rowHeight: Int { font.map { Int($0.pointee.ascent + $0.pointee.descent) } ?? 13 }

    /// The panel's outer size (border included) for these lines.
    func size(of lines: [String]) -> (width: Int, height: Int) {
        var widest = 0
        for line in lines {
            var g = glyphs(line)
            let w = font.map { Int(XTextWidth16($0, &g, Int32(g.count))) } ?? 8 * g.count
            widest = max(widest, w)
        }
        let inner = (widest + 2 * Self.padding, lines.count * (rowHeight + Self.rowGap) + Self.rowGap)
        return (inner.0 + 2 * Self.border, inner.1 + 2 * Self.border)
    }

    /// The top of row `i` inside the panel (border excluded): what tests look at.
    static func rowTop(_ i: Int, rowHeight: Int) -> Int { rowGap / 2 + i * (rowHeight + rowGap) }

    @discardableResult
    func show(lines: [String], current: Int?, frame: PixelRect) -> Bool {
        if let d = drawn, d.lines == lines, d.current == current, d.frame == frame { return false }
        let d = x.pointer
        let inner = PixelRect(x: 0, y: 0, width: frame.width - 2 * Self.border, height: frame.height - 2 * Self.border)
        if drawn?.lines != lines || drawn?.current != current || drawn?.frame.width != frame.width
            || drawn?.frame.height != frame.height {
            let pixmap = XCreatePixmap(d, window, UInt32(inner.width), UInt32(inner.height),
                                       UInt32(cx11_default_depth(d, x.screen)))
            XSetForeground(d, gc, palette.panel)
            XFillRectangle(d, pixmap, gc, 0, 0, UInt32(inner.width), UInt32(inner.height))
            let ascent = font.map { Int($0.pointee.ascent) } ?? 11
            for (i, line) in lines.enumerated() {
                let top = Self.rowTop(i, rowHeight: rowHeight)
                if i == current {
                    XSetForeground(d, gc, palette.highlight)
                    XFillRectangle(d, pixmap, gc, 2, Int32(top), UInt32(max(1, inner.width - 4)),
                                   UInt32(rowHeight + Self.rowGap))
                }
                XSetForeground(d, gc, i == current ? palette.dark : palette.text)
                var g = glyphs(line)
                if font != nil {
                    XDrawString16(d, pixmap, gc, Int32(Self.padding), Int32(top + Self.rowGap / 2 + ascent), &g, Int32(g.count))
                }
            }
            XSetWindowBackgroundPixmap(d, window, pixmap)
            XFreePixmap(d, pixmap)  // the window keeps its own reference
        }
        configure(x, window, PixelRect(x: frame.x, y: frame.y, width: inner.width, height: inner.height), raise: true)
        XClearWindow(d, window)
        if drawn == nil { XMapRaised(d, window) }
        drawn = (lines, current, frame)
        return true
    }

    @discardableResult
    func hide() -> Bool {
        guard drawn != nil else { return false }
        XUnmapWindow(x.pointer, window)
        drawn = nil
        return true
    }

    func raise() { if drawn != nil { XRaiseWindow(x.pointer, window) } }

    func free() {
        if let font { XFreeFont(x.pointer, font) }
        XFreeGC(x.pointer, gc)
    }
}

/// The scanning keyboard: its keys as light tiles with their labels on a dark panel, drawn
/// into a pixmap that becomes the window's background (as the menu panel is). Click-through
/// and never focused, like every overlay window: the keys are chosen by switch, and what
/// the pointer or a touch does goes to the application below.
final class KeyboardPanelWindow {
    static let gap = 3

    let x: X11Display
    let window: Window
    let gc: GC
    let font: UnsafeMutablePointer<XFontStruct>?
    /// The message screen's message, larger where the server has a larger font (scalable
    /// Type 1 fonts most do); else `font`.
    let messageFont: UnsafeMutablePointer<XFontStruct>?
    let palette: OverlayPalette
    private(set) var drawn: (keys: [KeyboardKey], frame: PixelRect)?

    /// The key font's patterns at the message's size.
    static let messageFontPatterns = MenuPanelWindow.fontPatterns.filter { $0.contains("--18-") }.map {
        $0.replacingOccurrences(of: "--18-", with: "--\(Int(OverlayFont.messagePixelSize))-")
    }

    init(_ x: X11Display, name: String, palette: OverlayPalette) {
        self.x = x
        self.palette = palette
        window = makeOverlayWindow(x, parent: x.root, name: name, background: palette.panel)
        gc = XCreateGC(x.pointer, window, 0, nil)
        font = MenuPanelWindow.fontPatterns.lazy.compactMap { XLoadQueryFont(x.pointer, $0) }.first
        messageFont = Self.messageFontPatterns.lazy.compactMap { XLoadQueryFont(x.pointer, $0) }.first
        if let font { XSetFont(x.pointer, gc, font.pointee.fid) }
    }

    /// Shows the keys in `frame` (their union, clipped to the screen); whether anything was sent.
    @discardableResult
    func show(_ keys: [KeyboardKey], frame: PixelRect) -> Bool {
        if let d = drawn, d.keys == keys, d.frame == frame { return false }
        let d = x.pointer
        let pixmap = XCreatePixmap(d, window, UInt32(max(1, frame.width)), UInt32(max(1, frame.height)),
                                   UInt32(cx11_default_depth(d, x.screen)))
        XSetForeground(d, gc, palette.panel)
        XFillRectangle(d, pixmap, gc, 0, 0, UInt32(max(1, frame.width)), UInt32(max(1, frame.height)))
        let ascent = font.map { Int($0.pointee.ascent) } ?? 11
        let descent = font.map { Int($0.pointee.descent) } ?? 2
        for key in keys {
            let r = PixelRect(covering: key.frame).offsetBy(-frame.x, -frame.y)
            // A held modifier or lock in the group outline's colour: what the next key will do.
            XSetForeground(d, gc, key.held ? palette.group : palette.key)
            XFillRectangle(d, pixmap, gc, Int32(r.x + Self.gap), Int32(r.y + Self.gap),
                           UInt32(max(1, r.width - 2 * Self.gap)), UInt32(max(1, r.height - 2 * Self.gap)))
            guard font != nil else { continue }
            XSetForeground(d, gc, palette.text)
            if key.id == KeyboardKey.messageID {
                // The message screen's message, large: as many lines as its tile holds.
                let large = messageFont ?? font
                let ascent = Int(large!.pointee.ascent), lineHeight = ascent + Int(large!.pointee.descent)
                func glyphs(_ s: String) -> [XChar2b] { overlayGlyphs(s, font: large) }
                let lines = MessageLines.lines(key.label, width: r.width - 4 * Self.gap - 16, fitting: max(1, r.height / lineHeight)) { s in
                    var g = glyphs(s)
                    return Int(XTextWidth16(large, &g, Int32(g.count)))
                }
                let top = r.y + (r.height - lines.count * lineHeight) / 2
                XSetFont(d, gc, large!.pointee.fid)
                defer { XSetFont(d, gc, font!.pointee.fid) }
                for (i, line) in lines.enumerated() {
                    var g = glyphs(line)
                    let width = Int(XTextWidth16(large, &g, Int32(g.count)))
                    XDrawString16(d, pixmap, gc, Int32(r.x + max(Self.gap, (r.width - width) / 2)), Int32(top + i * lineHeight + ascent), &g, Int32(g.count))
                }
                continue
            }
            var g = glyphs(key.label)
            let width = Int(XTextWidth16(font, &g, Int32(g.count)))
            XSetForeground(d, gc, palette.text)
            XDrawString16(d, pixmap, gc, Int32(r.x + max(Self.gap, (r.width - width) / 2)),
                          Int32(r.y + (r.height + ascent - descent) / 2), &g, Int32(g.count))
        }
        XSetWindowBackgroundPixmap(d, window, pixmap)
        XFreePixmap(d, pixmap)
        configure(x, window, frame, raise: true)
        XClearWindow(d, window)
        if drawn == nil { XMapRaised(d, window) }
        drawn = (keys, frame)
        return true
    }

    func glyphs(_ s: String) -> [XChar2b] { overlayGlyphs(s, font: font) }

    @discardableResult
    func hide() -> Bool {
        guard drawn != nil else { return false }
        XUnmapWindow(x.pointer, window)
        drawn = nil
        return true
    }

    func free() {
        if let font { XFreeFont(x.pointer, font) }
        if let messageFont { XFreeFont(x.pointer, messageFont) }
        XFreeGC(x.pointer, gc)
    }
}

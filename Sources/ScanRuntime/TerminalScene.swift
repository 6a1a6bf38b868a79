import ScanCore

/// What the terminal shows, as a value: the engine's effects go in, a canvas of the given
/// size comes out. The screen's boxes (or the keyboard's keys) laid out by `TerminalLayout`,
/// the highlight over them, the point-mode crosshair, and three status lines: the mode and
/// what is highlighted, the menu or the keys, the last message. Names are the labels the
/// user sees; an id only where an element has no label.
public struct TerminalScene: Sendable {
    public static let statusRows = 3

    var tree = ElementTree(screenID: "", size: (1, 1), nodes: [ElementNode(id: "")])
    var boxes: [TerminalLayout.Box] = []
    /// `outline`: a group's rectangles where its frame would hold other items.
    var highlight: (frame: Rect?, label: String, kind: HighlightKind, item: String, outline: [Rect]?)?
    var menu: (element: String?, entries: [String], titles: [String], current: String?)?
    var mode = ScanMode.item
    var sweep: Sweep?
    var fixedX: Double?
    var point: Point?
    public internal(set) var message = ""
    var stopped = false
    /// The scanning keyboard, while it is open: drawn instead of the screen.
    var keyboard: (keys: [KeyboardKey], area: Rect)?
    /// What the keyboard has written since it opened (bullets for a secret one), shown on
    /// the status lines: the person sees the words grow, not only the last key.
    var written = ""
    /// Laid out once for each screen and size, not for each frame.
    var version = 0
    var cached: (version: Int, columns: Int, rows: Int, layout: TerminalLayout)?

    /// Characters of `written` kept: more than a terminal line shows.
    static let writtenKept = 1_000

    public init() {}

    /// Every visible, real node but the root: what a sighted helper would see.
    static func boxes(of tree: ElementTree) -> [TerminalLayout.Box] {
        tree.nodes.indices.dropFirst().compactMap { i in
            let n = tree[i]
            guard n.isVisible, !n.isVirtual, n.frame.width > 0, n.frame.height > 0 else { return nil }
            return TerminalLayout.Box(frame: n.frame, label: n.label ?? "")
        }
    }

    /// What the user calls an element: its label (a key's, on the keyboard), else its id.
    func name(of id: String) -> String {
        if let key = keyboard?.keys.first(where: { $0.id == id }), !key.label.isEmpty { return key.label }
        if let i = tree.index(of: id), let label = tree[i].label, !label.isEmpty { return label }
        return id
    }

    public var isSweeping: Bool { sweep != nil }

    public mutating func apply(_ e: TimedEffect) {
        switch e.effect {
        case .screen(let shown):
            tree = shown.tree
            boxes = Self.boxes(of: shown.tree)
            version += 1
        case let .highlight(item, kind, frame, label, _, outline):
            let shown: String
            switch kind {
            case .element: shown = label.flatMap { $0.isEmpty ? nil : $0 } ?? name(of: item)
            case .group: shown = label ?? ""
            case .exit: shown = label ?? "Exit group"
            case .menuEntry: shown = label ?? item
            }
            highlight = (frame, shown, kind, item, outline)
            if kind == .menuEntry, menu != nil { menu!.current = item }
            stopped = false
        case let .menuOpen(element, entries, titles):
            menu = (element, entries, titles, entries.first)
        case .menuClose:
            menu = nil
        case .sweep(let s):
            if s.axis == .y, let previous = sweep, previous.axis == .x { fixedX = previous.position(at: e.time) }
            if s.axis == .x && s.phase == .band || s.axis == .x && s.lo == 0 { fixedX = nil; point = nil }
            sweep = s
            stopped = false
        case .pointSelected(let p):
            point = p
            sweep = nil
            message = "Point (\(Int(p.x)), \(Int(p.y)))"
        case let .tap(p, element):
            message = "Tapped (\(Int(p.x)), \(Int(p.y)))" + (element.map { " on \(name(of: $0))" } ?? "")
        case let .gesture(g, element, at, to):
            message = g.title + (element.map { " on \(name(of: $0))" } ?? " at (\(Int(at.x)), \(Int(at.y)))")
                + (to.map { " to (\(Int($0.x)), \(Int($0.y)))" } ?? "")
        case let .activate(element, _, target):
            message = "Activated \(name(of: element))"
                + (target.map { $0 == element ? "" : " (tap reached \(name(of: $0)))" } ?? " (the tap reached nothing)")
        case let .customAction(element, action, ok):
            message = "\(action) on \(name(of: element))" + (ok ? "" : " failed")
        case let .adjust(element, _, value):
            message = "\(name(of: element)): \(value)"
        case .announce(let text), .notice(let text):
            message = text
        case .speak(let text, _, _):
            message = "Said: " + text
        case .attention:
            message = "Attention! (calling for someone)"
        case .key(let k):
            message = "Key \(k.rawValue)"
            if k == .enter, keyboard != nil { written += "\n" }
        case let .window(command, _, title, chosen):
            // A raise at the start is not the person's doing: the start's messages stay.
            if chosen { message = "Window \"\(title)\": \(command.rawValue)" }
        case let .emit(name, _, _):
            message = "Event: \(name)"
        case let .typeText(t, secret):
            message = secret ? "Typed \(t.count) character\(t.count == 1 ? "" : "s")" : "Typed \"\(t)\""
            written += secret ? String(repeating: "•", count: t.count) : t
            if written.count > Self.writtenKept { written.removeFirst(written.count - Self.writtenKept) }
        case .deleteText(let n):
            message = "Deleted \(n) character\(n == 1 ? "" : "s")"
            written.removeLast(min(n, written.count))
        case .shortcut(let chord):
            message = "Key " + (chord.modifiers.map(\.rawValue) + [chord.key]).joined(separator: "+")
        case .keyboard(let keys):
            if let first = keys.first {
                if keyboard == nil { written = "" }
                // The message screen shows its message as a key of its own: that is what is written.
                if let message = keys.first(where: { $0.id == KeyboardKey.messageID }) { written = message.label }
                keyboard = (keys, keys.dropFirst().reduce(first.frame) { $0.union($1.frame) })
                version += 1
            }
        case .keyboardClose:
            keyboard = nil
            version += 1
            message = "Keyboard closed"
        case .modeChanged(let m):
            mode = m
            if m == .item { sweep = nil; fixedX = nil; point = nil }
        case .scanStopped(let reason):
            stopped = true
            sweep = nil
            switch reason {
            case .paused: message = "Paused: press pause (p) to resume."
            case .nothingToScan: message = "Nothing on this screen can be scanned."
            case .afterSelection: message = "Done. Scanning goes on shortly, or at the next press."
            case .loopsExhausted: message = "Scanning stopped: press any switch to start again."
            }
        case .scanStarted:
            stopped = false
        default:
            // Nothing to show (groups show by the highlights that follow; settings and words are
            // kept, not shown). EffectSpec.table says which kinds the terminal acts on.
            break
        }
    }

    /// The layout of what is drawn (the keyboard while open, else the screen) on `rows` rows.
    public mutating func layout(columns: Int, rows: Int) -> TerminalLayout {
        if let c = cached, c.version == version, c.columns == columns, c.rows == rows { return c.layout }
        let layout: TerminalLayout
        if let k = keyboard {
            // A held modifier or lock in brackets: what the next key will do.
            layout = TerminalLayout(k.keys.map { .init(frame: $0.frame, label: $0.held ? "[\($0.label)]" : $0.label) },
                                    area: k.area, columns: columns, rows: rows)
        } else {
            layout = TerminalLayout(boxes, area: tree.screenSize, columns: columns, rows: rows)
        }
        cached = (version, columns, rows, layout)
        return layout
    }

    /// The whole terminal at `now` (the crosshair's position is a function of time).
    public mutating func draw(rows: Int, columns cols: Int, at now: ScanInstant) -> TerminalCanvas {
        let areaRows = max(1, rows - Self.statusRows)
        var canvas = TerminalCanvas(rows: max(rows, areaRows + Self.statusRows), columns: cols)
        let layout = layout(columns: cols, rows: areaRows)
        let drawn = keyboard.map { $0.keys.map(\.frame) } ?? boxes.map(\.frame)

        // The highlight is drawn on the boxes it covers, in their own cells; a frame that
        // covers none (a point, an element too small to be drawn) gets an outline of its own.
        var lit = [Bool](repeating: false, count: layout.placed.count)
        var litAny = false
        if let h = highlight, let f = h.frame {
            let area = h.outline ?? [f]
            for (i, p) in layout.placed.enumerated() where p.form != .hidden && area.contains(where: { $0.contains(drawn[i]) }) {
                lit[i] = true
                litAny = true
            }
        }
        for (i, p) in layout.placed.enumerated() where p.form != .hidden {
            Self.drawBox(p, lit: lit[i], into: &canvas)
        }
        if let h = highlight, let f = h.frame, !litAny, h.kind != .menuEntry || menu != nil {
            let label = menu.map { m in m.element.map(name(of:)) ?? "" } ?? h.label
            Self.drawOutline(layout.cells(for: f), label: label, layout: layout, into: &canvas)
        }
        drawPointMode(layout, areaRows: areaRows, at: now, into: &canvas)
        drawStatus(areaRows: areaRows, columns: cols, into: &canvas)
        return canvas
    }

    static func drawBox(_ p: TerminalLayout.Placed, lit: Bool, into canvas: inout TerminalCanvas) {
        let style: TerminalCanvas.Style = lit ? .highlight : .box
        let r = p.cells
        if p.form == .bordered {
            let (h, v, tl, tr, bl, br): (Character, Character, Character, Character, Character, Character) =
                lit ? ("━", "┃", "┏", "┓", "┗", "┛") : ("─", "│", "┌", "┐", "└", "┘")
            let c1 = r.column + r.width - 1, r1 = r.row + r.height - 1
            for c in r.column...c1 { canvas.put(r.row, c, h, style); canvas.put(r1, c, h, style) }
            for row in r.row...r1 { canvas.put(row, r.column, v, style); canvas.put(row, c1, v, style) }
            canvas.put(r.row, r.column, tl, style); canvas.put(r.row, c1, tr, style)
            canvas.put(r1, r.column, bl, style); canvas.put(r1, c1, br, style)
            canvas.write(p.text, row: p.textRow, column: p.textColumn, style)
        } else {
            canvas.write(p.text, row: p.textRow, column: p.textColumn, lit ? .highlightText : style)
        }
    }

    static func drawOutline(_ r: CellRect, label: String, layout: TerminalLayout, into canvas: inout TerminalCanvas) {
        let style = TerminalCanvas.Style.highlight
        let text = TerminalLayout.clean(label)
        if r.width >= 3 && r.height >= 2 {
            let c1 = r.column + r.width - 1, r1 = r.row + r.height - 1
            for c in r.column...c1 { canvas.put(r.row, c, "━", style); canvas.put(r1, c, "━", style) }
            for row in r.row...r1 { canvas.put(row, r.column, "┃", style); canvas.put(row, c1, "┃", style) }
            canvas.put(r.row, r.column, "┏", style); canvas.put(r.row, c1, "┓", style)
            canvas.put(r1, r.column, "┗", style); canvas.put(r1, c1, "┛", style)
            let shown = TerminalLayout.fit(text, r.width - 2)
            canvas.write(shown, row: r.row + (r.height - 1) / 2, column: r.column + 1 + (r.width - 2 - shown.count) / 2, style)
        } else {
            // Too small for a border: the name, from the frame's place, kept on the grid.
            let shown = TerminalLayout.fit(text.isEmpty ? "✚" : text, layout.columns)
            let row = min(max(0, r.row), max(0, layout.rows - 1))
            let column = max(0, min(r.column, layout.columns - shown.count))
            canvas.write(shown, row: row, column: column, .highlightText)
        }
    }

    func drawPointMode(_ layout: TerminalLayout, areaRows: Int, at now: ScanInstant, into canvas: inout TerminalCanvas) {
        let cols = layout.columns
        if let s = sweep {
            let pos = s.position(at: now)
            if s.axis == .x {
                let ca = layout.cell(at: Point(x: pos, y: 0)).column, cb = layout.cell(at: Point(x: pos + s.width, y: 0)).column
                if s.phase == .band {
                    for c in ca...max(ca, cb) { for r in 0..<areaRows where canvas[r, c].ch == " " { canvas.put(r, c, "░", .band) } }
                } else {
                    for r in 0..<areaRows { canvas.put(r, ca, "┃", .crosshair) }
                }
            } else {
                let ra = layout.cell(at: Point(x: 0, y: pos)).row, rb = layout.cell(at: Point(x: 0, y: pos + s.width)).row
                if s.phase == .band {
                    for r in ra...max(ra, rb) { for c in 0..<cols where canvas[r, c].ch == " " { canvas.put(r, c, "░", .band) } }
                } else {
                    for c in 0..<cols { canvas.put(ra, c, "━", .crosshair) }
                }
            }
        }
        if let x = fixedX, sweep?.axis == .y {
            let c = layout.cell(at: Point(x: x, y: 0)).column
            for r in 0..<areaRows { canvas.put(r, c, "┊", .crosshair) }
        }
        if let p = point {
            let (c, r) = layout.cell(at: p)
            canvas.put(r, c, "✚", .crosshair)
        }
    }

    func drawStatus(areaRows: Int, columns cols: Int, into canvas: inout TerminalCanvas) {
        let modeText = stopped ? "stopped" : (mode == .point ? "point mode" : "item mode")
        var line1 = " SwitchScan — \(modeText)"
        if let m = menu {
            line1 += m.element.map { " — menu for \(TerminalLayout.clean(name(of: $0)))" } ?? " — menu"
        } else if let h = highlight, mode == .item {
            let label = TerminalLayout.clean(h.label)
            line1 += h.kind == .group ? (label.isEmpty ? " — group" : " — group: \(label)") : " — \(label)"
        }
        canvas.write(TerminalLayout.fit(line1, cols).padding(cols), row: areaRows, column: 0, .status)
        if let m = menu {
            let title = m.element.map { "Menu for \(TerminalLayout.fit(TerminalLayout.clean(name(of: $0)), max(1, cols / 3))): " } ?? "Menu: "
            let head = " " + title
            canvas.write(head, row: areaRows + 1, column: 0, .menu)
            var c = head.count
            for (text, current) in Self.menuLine(m.titles, current: m.entries.firstIndex { $0 == m.current }, width: cols - c) {
                canvas.write(text, row: areaRows + 1, column: c, current ? .menuCurrent : .menu)
                c += text.count
            }
        } else if keyboard != nil {
            // The end of the text, where the writing goes on; a line break shown as ⏎.
            let head = " Written: "
            let text = String(written.map { $0 == "\n" ? "⏎" : $0 == "\t" ? " " : TerminalText.visible($0) }) + "▏"
            let room = max(1, cols - head.count)
            canvas.write(String((head + (text.count > room ? "…" + text.suffix(room - 1) : text)).prefix(cols)), row: areaRows + 1, column: 0, .plain)
        } else {
            let keys = " space select · tab next · shift-tab previous · m menu · esc exit · t point mode · q quit"
            canvas.write(String(keys.prefix(cols)), row: areaRows + 1, column: 0, .plain)
        }
        canvas.write(String((" " + TerminalLayout.clean(message)).prefix(cols)), row: areaRows + 2, column: 0, .plain)
    }

    /// The menu's entries on one line of `width` cells, scrolled so that the current one
    /// shows; `…` where entries are left out. Pieces in order, the current one marked.
    static func menuLine(_ titles: [String], current: Int?, width: Int) -> [(text: String, current: Bool)] {
        guard width > 0 else { return [] }
        var cells: [(Character, Bool)] = []
        var span = 0..<0
        for (k, t) in titles.enumerated() {
            let piece = " \(TerminalLayout.clean(t)) "
            if k == current { span = cells.count..<(cells.count + piece.count) }
            cells += piece.map { ($0, k == current) }
            cells.append((" ", false))
        }
        var start = 0
        if cells.count > width, span.upperBound > width - 1 {
            start = min(span.upperBound - (width - 1), cells.count - width)
            start = min(start, max(0, span.lowerBound - 1))
        }
        var shown = Array(cells[start..<min(cells.count, start + width)])
        if start > 0 { shown[0] = ("…", false) }
        if start + width < cells.count { shown[shown.count - 1] = ("…", false) }
        var pieces: [(text: String, current: Bool)] = []
        for (ch, cur) in shown {
            if let last = pieces.last, last.current == cur { pieces[pieces.count - 1].text.append(ch) } else { pieces.append((String(ch), cur)) }
        }
        return pieces
    }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}

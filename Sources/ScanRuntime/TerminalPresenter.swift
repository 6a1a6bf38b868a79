#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import ScanCore
import ScanHost

/// Draws the screen in the terminal: the layout's frames as boxes scaled to the window, the
/// highlight, the scanner menu and the point-mode crosshair (sampled at 30 frames a second
/// while a sweep moves, since its position is a function of time), and a status line.
public final class TerminalPresenter: EffectPresenter, @unchecked Sendable {
    struct Box { var frame: Rect; var label: String }

    var tree: ElementTree
    var boxes: [Box]
    let queue: DispatchQueue
    let clock: () -> ScanInstant
    var highlight: (frame: Rect?, label: String, kind: HighlightKind, item: String)?
    /// A group's outline where its frame would hold other items: each rectangle is boxed.
    var highlightOutline: [Rect]?
    var menu: (element: String?, entries: [String], titles: [String], current: String?)?
    var mode = ScanMode.item
    var sweep: Sweep?
    var fixedX: Double?
    var point: Point?
    var message = ""
    var stopped = false
    /// The scanning keyboard, while it is open: drawn instead of the screen.
    var keyboard: (boxes: [Box], area: Rect)?
    /// Once the terminal is restored nothing more is drawn (a late message or resize would
    /// draw a frame into the user's normal screen).
    var finished = false
    var frameTimer: DispatchSourceTimer?
    /// The terminal's size changes (SIGWINCH): the screen is drawn again at the new size.
    var resize: DispatchSourceSignal?
    var failed: PresenterError?
    public var onFailure: ((PresenterError) -> Void)?

    /// Draws nothing until the engine shows its first screen (`Effect.screen`).
    public init(queue: DispatchQueue, clock: @escaping () -> ScanInstant = MonotonicClock.now) {
        tree = ElementTree(screenID: "", size: (1, 1), nodes: [ElementNode(id: "")])
        self.queue = queue
        self.clock = clock
        boxes = []
        TerminalState.takeScreen()
        signal(SIGWINCH, SIG_IGN)
        let resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: queue)
        resize.setEventHandler { [weak self] in
            guard let self, !self.finished else { return }
            try? self.render()
        }
        resize.activate()
        self.resize = resize
    }

    /// Every visible, real node but the root: what a sighted helper would see.
    static func boxes(of tree: ElementTree) -> [Box] {
        tree.nodes.indices.dropFirst().compactMap { i in
            let n = tree[i]
            guard n.isVisible, !n.isVirtual, n.frame.width > 0, n.frame.height > 0 else { return nil }
            return Box(frame: n.frame, label: n.label ?? "")
        }
    }

    public func present(_ effects: [TimedEffect]) throws {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !finished else { return }
        for e in effects { apply(e) }
        try render()
        updateFrameTimer()
    }

    public func finish() {
        finished = true
        frameTimer?.cancel()
        frameTimer = nil
        resize?.cancel()
        resize = nil
        TerminalState.restore()
    }

    func apply(_ e: TimedEffect) {
        switch e.effect {
        case .screen(let shown):
            tree = shown.tree
            boxes = Self.boxes(of: shown.tree)
        case let .highlight(item, kind, frame, label, _, outline):
            highlight = (frame, label ?? item, kind, item)
            highlightOutline = outline
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
            message = "Tapped (\(Int(p.x)), \(Int(p.y)))" + (element.map { " on \($0)" } ?? "")
        case let .activate(element, _, target):
            message = "Activated \(element)" + (target.map { $0 == element ? "" : " (tap reached \($0))" } ?? " (the tap reached nothing)")
        case let .customAction(element, action, ok):
            message = "\(action) on \(element)" + (ok ? "" : " failed")
        case let .adjust(element, _, value):
            message = "\(element): \(value)"
        case .announce(let text), .notice(let text):
            message = text
        case .settingChanged:
            break
        case .key(let k):
            message = "Key \(k.rawValue)"
        case let .window(command, _, title):
            message = "Window \"\(title)\": \(command.rawValue)"
        case let .emit(name, _, _):
            message = "Event: \(name)"
        case let .typeText(t, secret):
            message = secret ? "Typed \(t.count) character\(t.count == 1 ? "" : "s")" : "Typed \"\(t)\""
        case .deleteText(let n):
            message = "Deleted \(n) character\(n == 1 ? "" : "s")"
        case .shortcut(let chord):
            message = "Key " + (chord.modifiers.map(\.rawValue) + [chord.key]).joined(separator: "+")
        case .keyboard(let keys):
            if let first = keys.first {
                keyboard = (keys.map { Box(frame: $0.frame, label: $0.label) }, keys.dropFirst().reduce(first.frame) { $0.union($1.frame) })
            }
        case .learnWord:
            break
        case .keyboardClose:
            keyboard = nil
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
        case .enterGroup, .exitGroup:
            break
        }
    }

    func updateFrameTimer() {
        if sweep != nil && frameTimer == nil {
            let t = DispatchSource.makeTimerSource(queue: queue)
            t.schedule(deadline: .now(), repeating: .milliseconds(33))
            t.setEventHandler { [weak self] in
                guard let self else { return }
                do { try self.render() } catch let e as PresenterError { self.fail(e) } catch {}
            }
            t.activate()
            frameTimer = t
        } else if sweep == nil, let t = frameTimer {
            t.cancel()
            frameTimer = nil
        }
    }

    func fail(_ e: PresenterError) {
        guard failed == nil else { return }
        failed = e
        frameTimer?.cancel()
        onFailure?(e)
    }

    // MARK: drawing

    struct Cell { var ch: Character = " "; var style: UInt8 = 0 }
    // Styles: 0 plain, 1 box, 2 highlight, 3 crosshair, 4 band, 5 status, 6 menu, 7 menu current

    func render() throws {
        guard !finished else { return }
        let (rows, cols) = TerminalState.size()
        let statusRows = 3
        let areaRows = max(4, rows - statusRows)
        var grid = Array(repeating: Array(repeating: Cell(), count: cols), count: rows)
        // The keyboard, while open, fills the drawing area; else the screen does.
        let area = keyboard?.area ?? tree.screenSize
        let sx = Double(cols) / area.width
        let sy = Double(areaRows) / area.height

        func cellRect(_ r: Rect) -> (c0: Int, r0: Int, c1: Int, r1: Int) {
            let c0 = max(0, min(cols - 1, Int(((r.minX - area.x) * sx).rounded(.down))))
            let r0 = max(0, min(areaRows - 1, Int(((r.minY - area.y) * sy).rounded(.down))))
            let c1 = max(c0, min(cols - 1, Int(((r.maxX - area.x) * sx).rounded(.up)) - 1))
            let r1 = max(r0, min(areaRows - 1, Int(((r.maxY - area.y) * sy).rounded(.up)) - 1))
            return (c0, r0, c1, r1)
        }
        func put(_ r: Int, _ c: Int, _ ch: Character, _ style: UInt8) {
            guard r >= 0, r < rows, c >= 0, c < cols else { return }
            // Labels and names come from layouts and applications: never raw control codes.
            grid[r][c] = Cell(ch: TerminalText.visible(ch), style: style)
        }
        func drawBox(_ frame: Rect, _ label: String, style: UInt8, heavy: Bool) {
            let (c0, r0, c1, r1) = cellRect(frame)
            let (h, v, tl, tr, bl, br): (Character, Character, Character, Character, Character, Character) =
                heavy ? ("━", "┃", "┏", "┓", "┗", "┛") : ("─", "│", "┌", "┐", "└", "┘")
            if c1 > c0 && r1 > r0 {
                for c in c0...c1 { put(r0, c, h, style); put(r1, c, h, style) }
                for r in r0...r1 { put(r, c0, v, style); put(r, c1, v, style) }
                put(r0, c0, tl, style); put(r0, c1, tr, style); put(r1, c0, bl, style); put(r1, c1, br, style)
            }
            let inner = max(0, c1 - c0 - 1)
            guard inner > 0, !label.isEmpty else { return }
            let text = Array(label.prefix(inner))
            let row = r1 > r0 + 1 ? (r0 + r1) / 2 : r0
            let start = c0 + 1 + (inner - text.count) / 2
            for (k, ch) in text.enumerated() { put(row, start + k, ch, style) }
        }

        for b in keyboard?.boxes ?? boxes { drawBox(b.frame, b.label, style: 1, heavy: false) }
        if let h = highlight, let f = h.frame, h.kind != .menuEntry || menu == nil {
            for (k, r) in (highlightOutline ?? [f]).enumerated() {
                drawBox(r, k > 0 ? "" : h.kind == .exit ? "Exit group" : h.label, style: 2, heavy: true)
            }
        } else if let m = menu, let h = highlight, let f = h.frame {
            drawBox(f, m.element ?? "", style: 2, heavy: true)
        }
        // Crosshair
        let now = clock()
        if let s = sweep {
            let pos = s.position(at: now)
            if s.axis == .x {
                let ca = Int((pos * sx).rounded(.down)), cb = Int(((pos + s.width) * sx).rounded(.down))
                if s.phase == .band { for c in ca...max(ca, cb) { for r in 0..<areaRows where grid[r][c].ch == " " { put(r, c, "░", 4) } } }
                else { for r in 0..<areaRows { put(r, ca, "┃", 3) } }
            } else {
                let ra = Int((pos * sy).rounded(.down)), rb = Int(((pos + s.width) * sy).rounded(.down))
                if s.phase == .band { for r in ra...max(ra, rb) where r < areaRows { for c in 0..<cols where grid[r][c].ch == " " { put(r, c, "░", 4) } } }
                else { for c in 0..<cols { put(ra, c, "━", 3) } }
            }
        }
        if let x = fixedX, sweep?.axis == .y {
            let c = Int((x * sx).rounded(.down))
            for r in 0..<areaRows { put(r, c, "┊", 3) }
        }
        if let p = point {
            put(Int((p.y * sy).rounded(.down)), Int((p.x * sx).rounded(.down)), "✚", 3)
        }
        // Status: mode and highlight, the menu, the last message.
        let modeText = stopped ? "stopped" : (mode == .point ? "point mode" : "item mode")
        var line1 = " SwitchScan — \(modeText)"
        if let h = highlight, menu == nil, mode == .item { line1 += " — \(h.kind == .group ? "group: " : "")\(h.label)" }
        for (k, ch) in line1.prefix(cols).enumerated() { put(areaRows, k, ch, 5) }
        if let m = menu {
            var c = 1
            for (k, ch) in "Menu:".enumerated() { put(areaRows + 1, c + k, ch, 6) }
            c += 6
            for (entry, name) in zip(m.entries, m.titles) {
                let title = " \(name) "
                let style: UInt8 = entry == m.current ? 7 : 6
                for (k, ch) in title.enumerated() where c + k < cols { put(areaRows + 1, c + k, ch, style) }
                c += title.count + 1
            }
        } else {
            let keys = " space select · tab next · shift-tab previous · m menu · esc exit · t point mode · q quit"
            for (k, ch) in keys.prefix(cols).enumerated() { put(areaRows + 1, k, ch, 0) }
        }
        for (k, ch) in (" " + message).prefix(cols).enumerated() { put(areaRows + 2, k, ch, 0) }

        var out = "\u{1B}[H"
        var current: UInt8 = 255
        let codes: [UInt8: String] = [0: "\u{1B}[0m", 1: "\u{1B}[0;37m", 2: "\u{1B}[0;1;33m", 3: "\u{1B}[0;1;31m",
                                      4: "\u{1B}[0;31m", 5: "\u{1B}[0;7m", 6: "\u{1B}[0;36m", 7: "\u{1B}[0;7;1;36m"]
        for (r, row) in grid.enumerated() {
            if r > 0 { out += "\r\n" }
            for cell in row {
                if cell.style != current { out += codes[cell.style]!; current = cell.style }
                out.append(cell.ch)
            }
        }
        out += "\u{1B}[0m"
        try writeAll(1, out)
    }
}

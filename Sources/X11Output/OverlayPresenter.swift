#if canImport(Glibc)
import Glibc
#endif
import CX11
import Dispatch
import ScanCore
import ScanHost

/// Shows the scan on the real screen (X11): an outline just outside the highlighted item,
/// the scanner menu in a panel beside it, and point mode's sweep lines across the screen.
///
/// - The outline is `highlightWidth` pixels of `highlightColor`, edged by a dark pixel
///   inside and out (it shows on light and dark backgrounds); groups are outlined in a second
///   colour (`OverlayGeometry.groupColor`: blue for the default orange); exit items and menu
///   entries outline the frame they carry, like elements.
/// - It never takes the focus and never catches a click: override-redirect windows whose
///   bounding shape is only what is drawn and whose input shape is empty (XShape).
/// - A move is one reshape+move+raise, then one XSync; nothing is unmapped between moves.
/// - While a sweep runs, a timer on `queue` samples `Sweep.position(at: clock())` 60 times a
///   second; there is no timer otherwise.
///
/// Every X call after `init` runs on `queue` (Xlib is also put in thread mode). Coordinates
/// are root-window pixels, as AT-SPI's screen extents are.
public final class OverlayPresenter: EffectPresenter, @unchecked Sendable {
    let x: X11Display
    let queue: DispatchQueue
    let clock: () -> ScanInstant
    let feedback: FeedbackSettings
    let palette: OverlayPalette
    /// The area the sweep lines span and the panel stays in.
    let screen: PixelRect

    let outline: RingWindow
    let band: RingWindow
    let lineX: LineWindow
    let lineY: LineWindow
    let panel: MenuPanelWindow
    let keyboard: KeyboardPanelWindow

    /// What is to be shown, from the effects so far.
    struct Scene {
        var outline: (frame: Rect, kind: HighlightKind, union: [Rect]?)?
        var menu: Menu?
        var sweep: Sweep?
        /// The x a press fixed, drawn while y sweeps (kept while stopped: a press restarts y).
        var fixedX: Double?
        var chosen: Point?
        /// The scanning keyboard, while it is open.
        var keyboard: [KeyboardKey]?
    }

    struct Menu {
        var names: [String]
        var titles: [String]
        var current: Int?
        var anchor: Rect?
        /// The screen menu's stop in the item cycle (a highlight, no menu open yet).
        var isStop = false
    }

    var scene = Scene()
    var frameTimer: DispatchSourceTimer?
    var finished = false
    var reportedLoss = false

    /// CPU time spent presenting (this thread's, summed over calls and frames): measured, as
    /// the figures in the docs are.
    var cpuSeconds = 0.0

    /// Frames a second while a sweep runs.
    public var framesPerSecond = 60

    /// Called on `queue` once the server has processed a batch that held a highlight (after
    /// XSync): the highlight effect's time and `clock()` then. For benchmarks: press →
    /// outline moved.
    public var onSynced: ((_ effectTime: ScanInstant, _ syncedAt: ScanInstant) -> Void)?

    /// The protocol errors the server reported for this connection (recorded, never fatal;
    /// the latest few).
    public var errors: [X11ProtocolError] { x.errors }

    /// The X display's name (":99").
    public var displayName: String { x.name }

    public init(display: String? = nil, feedback: FeedbackSettings, screen: Rect? = nil, queue: DispatchQueue,
                clock: @escaping () -> ScanInstant = MonotonicClock.now) throws {
        let x = try X11Display(display)
        var event = Int32(0), error = Int32(0), major = Int32(0), minor = Int32(0)
        guard XShapeQueryExtension(x.pointer, &event, &error) != 0,
              XShapeQueryVersion(x.pointer, &major, &minor) != 0, major > 1 || (major == 1 && minor >= 1) else {
            throw X11Error("X display '\(x.name)' has no SHAPE extension 1.1 (input shapes): the overlay would catch clicks, so it is not shown.")
        }
        self.x = x
        self.queue = queue
        self.clock = clock
        var settings = feedback
        settings.highlightWidth = min(max(feedback.highlightWidth, FeedbackSettings.highlightWidthRange.lowerBound),
                                      FeedbackSettings.highlightWidthRange.upperBound)
        self.feedback = settings
        palette = try OverlayPalette(x, feedback: settings)
        let root = PixelRect(x: 0, y: 0, width: x.width, height: x.height)
        self.screen = screen.map { PixelRect(covering: $0).intersection(root) } ?? root
        outline = RingWindow(x, name: "switchscan outline", palette: palette)
        band = RingWindow(x, name: "switchscan band", palette: palette)
        lineX = LineWindow(x, name: "switchscan line x", palette: palette)
        lineY = LineWindow(x, name: "switchscan line y", palette: palette)
        panel = MenuPanelWindow(x, name: "switchscan menu", palette: palette)
        keyboard = KeyboardPanelWindow(x, name: "switchscan keyboard", palette: palette)
        x.sync()
    }

    deinit {
        frameTimer?.cancel()
        // finish() not called: the connection still closes (destroying its windows).
    }

    public func present(_ effects: [TimedEffect]) throws {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !finished else { return }
        let cpu0 = threadCPUTime().seconds
        defer { cpuSeconds += threadCPUTime().seconds - cpu0 }
        var highlightAt: ScanInstant?
        for e in effects {
            apply(e)
            if case .highlight = e.effect { highlightAt = e.time }
        }
        draw(now: clock())
        if let t = highlightAt { onSynced?(t, clock()) }
        updateFrameTimer()
        try checkConnection()
    }

    public func finish() {
        guard !finished else { return }
        finished = true
        frameTimer?.cancel()
        frameTimer = nil
        if !x.isLost {
            panel.free()
            keyboard.free()
            for w in [outline.window, band.window, lineX.window, lineY.window, panel.window, keyboard.window] {
                XDestroyWindow(x.pointer, w)
            }
            x.sync()
        }
        x.close()
    }

    func checkConnection() throws {
        guard x.isLost, !reportedLoss else { return }
        reportedLoss = true
        frameTimer?.cancel()
        frameTimer = nil
        throw X11Error("the X server on '\(x.name)' closed the connection: the on-screen outline is gone.")
    }

    // MARK: effects → scene

    func apply(_ e: TimedEffect) {
        switch e.effect {
        case let .highlight(item, kind, frame, label, _, outline):
            if kind == .menuEntry {
                if var m = scene.menu, !m.isStop {
                    if let i = m.names.firstIndex(of: item) {
                        m.current = i
                        if let label { m.titles[i] = label }
                    }
                    m.anchor = frame
                    scene.menu = m
                } else {
                    let title = label ?? OverlayGeometry.title(ofEntry: item)
                    scene.menu = Menu(names: [item], titles: [title], current: 0, anchor: frame, isStop: true)
                }
            } else if scene.menu?.isStop == true {
                scene.menu = nil
            }
            scene.outline = frame.map { ($0, kind, outline) }
        case let .menuOpen(_, entries, titles):
            let anchor = scene.menu?.anchor ?? scene.outline?.frame
            scene.menu = Menu(names: entries, titles: titles,
                              current: entries.isEmpty ? nil : 0, anchor: anchor)
            scene.sweep = nil
            scene.chosen = nil
        case .menuClose:
            scene.menu = nil
        case .modeChanged(let mode):
            scene.outline = nil
            scene.menu = nil
            if mode == .item { scene.sweep = nil; scene.fixedX = nil; scene.chosen = nil }
        case .sweep(let s):
            if s.axis == .x {
                scene.fixedX = nil
            } else if let previous = scene.sweep, previous.axis == .x {
                scene.fixedX = previous.position(at: e.time)
            }
            scene.sweep = s
            scene.chosen = nil
            scene.outline = nil
            if scene.menu?.isStop == true { scene.menu = nil }
        case .pointSelected(let p):
            scene.sweep = nil
            scene.chosen = p
        case .scanStopped(let reason):
            // Waiting after a selection keeps the place it will resume on in view.
            guard reason != .afterSelection else { break }
            scene.outline = nil
            scene.menu = nil
            scene.sweep = nil
            scene.chosen = nil
        case .screen, .notice, .scanStarted, .tap, .gesture, .activate, .customAction, .adjust, .announce, .emit, .enterGroup, .exitGroup, .settingChanged, .key, .window,
             .typeText, .deleteText, .learnWord, .shortcut:
            break
        case .keyboard(let keys):
            scene.keyboard = keys
        case .keyboardClose:
            scene.keyboard = nil
        }
    }

    // MARK: scene → windows

    /// Sends what changed, then one XSync; returns whether anything was sent.
    @discardableResult
    func draw(now: ScanInstant) -> Bool {
        guard !finished, !x.isLost else { return false }
        var sent = false
        let thickness = feedback.highlightWidth + 2

        // The keyboard first: the outline is raised above it.
        var keyboardShown = false
        if let keys = scene.keyboard, let first = keys.first {
            let area = keys.dropFirst().reduce(first.frame) { $0.union($1.frame) }
            let frame = PixelRect(covering: area).intersection(screen)
            keyboardShown = keyboard.show(keys, frame: frame)
            sent = keyboardShown || sent
        } else {
            sent = keyboard.hide() || sent
        }

        if let o = scene.outline, let rects = o.union,
           let ring = OverlayGeometry.unionRing(around: rects, thickness: thickness, screen: screen) {
            // A group no one rectangle encloses: the band follows its members' union.
            let moved = outline.show(outer: ring.outer, cover: ring.cover, holes: ring.holes,
                                     color: o.kind == .group ? palette.group : palette.highlight)
            if !moved && keyboardShown { outline.raise() }
            sent = moved || sent
        } else if let o = scene.outline, o.union == nil, let ring = OverlayGeometry.ring(around: o.frame, thickness: thickness, screen: screen) {
            let moved = outline.show(outer: ring.outer, hole: ring.hole,
                                     color: o.kind == .group ? palette.group : palette.highlight)
            if !moved && keyboardShown { outline.raise() }
            sent = moved || sent
        } else {
            sent = outline.hide() || sent
        }

        // Point mode: the sweep (band or line) on its axis, the fixed x, or the chosen point.
        var bandRing: (outer: PixelRect, hole: PixelRect)?
        var xAt: Double?
        var yAt: Double?
        if let s = scene.sweep {
            if s.axis == .y { xAt = scene.fixedX }
            let p = s.position(at: now)
            switch (s.phase, s.axis) {
            case (.line, .x): xAt = p
            case (.line, .y): yAt = p
            case (.band, .x):
                bandRing = OverlayGeometry.ring(around: Rect(x: p, y: Double(screen.y), width: s.width, height: Double(screen.height)),
                                                thickness: thickness, screen: screen)
            case (.band, .y):
                bandRing = OverlayGeometry.ring(around: Rect(x: Double(screen.x), y: p, width: Double(screen.width), height: s.width),
                                                thickness: thickness, screen: screen)
            }
        } else if let c = scene.chosen {
            xAt = c.x; yAt = c.y
        }
        if let r = bandRing {
            sent = band.show(outer: r.outer, hole: r.hole, color: palette.highlight) || sent
        } else {
            sent = band.hide() || sent
        }
        let w = feedback.highlightWidth
        sent = (xAt.map { lineX.show(OverlayGeometry.line(.x, at: $0, width: w, screen: screen)) } ?? lineX.hide()) || sent
        sent = (yAt.map { lineY.show(OverlayGeometry.line(.y, at: $0, width: w, screen: screen)) } ?? lineY.hide()) || sent

        if let m = scene.menu {
            let size = panel.size(of: m.titles)
            let anchor = m.anchor.flatMap { OverlayGeometry.ring(around: $0, thickness: thickness, screen: screen)?.outer }
            let origin = OverlayGeometry.panelOrigin(size: size, beside: anchor, screen: screen, gap: 4)
            let frame = PixelRect(x: origin.x, y: origin.y, width: size.width, height: size.height)
            let moved = panel.show(lines: m.titles, current: m.current, frame: frame)
            if !moved && sent { panel.raise() }  // stays above a moved outline
            sent = moved || sent
        } else {
            sent = panel.hide() || sent
        }

        if sent { x.sync() }
        return sent
    }

    /// On while a sweep moves (until its end), off otherwise: nothing runs when idle.
    func updateFrameTimer() {
        let moving = !x.isLost && (scene.sweep.map { clock() < $0.end } ?? false)
        if moving && frameTimer == nil && !finished {
            let t = DispatchSource.makeTimerSource(queue: queue)
            let period = 1_000_000_000 / max(1, framesPerSecond)
            t.schedule(deadline: .now() + .nanoseconds(period), repeating: .nanoseconds(period), leeway: .milliseconds(1))
            t.setEventHandler { [weak self] in
                guard let self, !self.finished else { return }
                let cpu0 = threadCPUTime().seconds
                defer { self.cpuSeconds += threadCPUTime().seconds - cpu0 }
                self.draw(now: self.clock())
                self.updateFrameTimer()
            }
            t.activate()
            frameTimer = t
        } else if !moving, let t = frameTimer {
            t.cancel()
            frameTimer = nil
        }
    }

    /// Whether the sweep timer runs (tests: no timer when idle).
    var isAnimating: Bool { frameTimer != nil }
}

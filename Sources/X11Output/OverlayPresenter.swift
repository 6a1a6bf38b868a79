#if canImport(Glibc)
import Glibc
#endif
import CX11
import Dispatch
import ScanCore
import ScanHost
import ScreenScene

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
    var scene = OverlayScene()
    let frames = FrameTicker()
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
        frames.stop()
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
        frames.stop()
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
        frames.stop()
        throw X11Error("the X server on '\(x.name)' closed the connection: the on-screen outline is gone.")
    }

    func apply(_ e: TimedEffect) { scene.apply(e) }

    // MARK: scene → windows

    /// Sends what changed, then one XSync; returns whether anything was sent.
    @discardableResult
    func draw(now: ScanInstant) -> Bool {
        guard !finished, !x.isLost else { return false }
        let shapes = scene.shapes(at: now, thickness: feedback.highlightWidth + 2, lineWidth: feedback.highlightWidth, screen: screen)
        var sent = false

        // The keyboard first: the outline is raised above it.
        var keyboardShown = false
        if let k = shapes.keyboard {
            keyboardShown = keyboard.show(k.keys, frame: k.frame)
            sent = keyboardShown || sent
        } else {
            sent = keyboard.hide() || sent
        }

        if let o = shapes.outline {
            let color = o.isGroup ? palette.group : palette.highlight
            let moved: Bool
            switch o {
            case let .union(outer, cover, holes, _): moved = outline.show(outer: outer, cover: cover, holes: holes, color: color)
            case let .ring(outer, hole, _): moved = outline.show(outer: outer, hole: hole, color: color)
            }
            if !moved && keyboardShown { outline.raise() }
            sent = moved || sent
        } else {
            sent = outline.hide() || sent
        }

        if let r = shapes.band {
            sent = band.show(outer: r.outer, hole: r.hole, color: palette.highlight) || sent
        } else {
            sent = band.hide() || sent
        }
        sent = (shapes.lineX.map { lineX.show($0) } ?? lineX.hide()) || sent
        sent = (shapes.lineY.map { lineY.show($0) } ?? lineY.hide()) || sent

        if let m = shapes.menu {
            let size = panel.size(of: m.titles)
            let origin = OverlayGeometry.panelOrigin(size: size, beside: m.anchor, screen: screen, gap: 4)
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
        frames.update(moving: !x.isLost && !finished && scene.isMoving(at: clock()), queue: queue, perSecond: framesPerSecond) { [weak self] in
            self?.frameTick()
        }
    }

    /// One frame of the sweep, at the clock's time (the timer's, or a test's own tick).
    func frameTick() {
        guard !finished else { return }
        let cpu0 = threadCPUTime().seconds
        defer { cpuSeconds += threadCPUTime().seconds - cpu0 }
        draw(now: clock())
        updateFrameTimer()
    }

    /// Whether the sweep timer runs (tests: no timer when idle).
    var isAnimating: Bool { frames.isRunning }
}

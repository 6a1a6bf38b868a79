import Dispatch
import JSONTape
import ScanCore
import ScanHost
import ScreenScene

/// Where GNOME Shell's windows are, from SwitchScan's extension: its report at the start,
/// then each one it pushes when a window comes, goes, moves or is resized, so `places`
/// answers from memory. Any thread.
public final class GnomePlaces: WindowPlaceSource, @unchecked Sendable {
    public let name = "SwitchScan's GNOME Shell extension"
    public let native = WindowPlace.Client.wayland
    private let shell: GnomeShell
    private let reported = ReportedWindows()

    public init() throws(GnomeShellError) {
        shell = try GnomeShell()
        reported.set(try shell.windows())
        try shell.listen(Self.events(shell, reported), thread: "switchscan.gnome-places")
    }

    deinit { shell.close() }

    /// The extension's lists into `reported`: each it pushes, and when it leaves (no window
    /// is known until it is back) or comes back, none or its list then.
    static func events(_ shell: GnomeShell, _ reported: ReportedWindows) -> GnomeShell.Events {
        var events = GnomeShell.Events()
        events.windows = { [weak reported] bytes in
            if let windows = try? WindowReport.parse(bytes) { reported?.set(windows) }
        }
        events.present = { [weak shell, weak reported] here in
            reported?.set(here ? (try? shell?.windows()) ?? [] : [])
        }
        return events
    }

    public func places(fresh: Bool) -> [WindowPlace] {
        if fresh, let now = try? shell.windows() { reported.set(now) }
        return reported.places
    }

    public func follow(_ onChange: @escaping @Sendable () -> Void) { reported.followPlaces(onChange) }

    public func close() {
        reported.followPlaces(nil)
        shell.close()
    }
}

/// The Windows page on GNOME: the windows a task bar would list, from the extension, and its
/// commands carried out by it, on a queue of their own so a slow Shell never holds the caller.
public final class GnomeWindows: WindowList, @unchecked Sendable {
    private let shell: GnomeShell
    private let report: @Sendable (String) -> Void
    private let queue = DispatchQueue(label: "switchscan.gnome-windows")
    private let reported = ReportedWindows()

    public init(report: @escaping @Sendable (String) -> Void) throws(GnomeShellError) {
        shell = try GnomeShell()
        self.report = report
    }

    deinit { shell.close() }

    public func start(onChange: @escaping @Sendable ([ManagedWindow]) -> Void) {
        reported.followList(onChange)
        do {
            try shell.listen(GnomePlaces.events(shell, reported), thread: "switchscan.gnome-windows-signals")
            reported.set(try shell.windows())
        } catch {
            report("The Windows page cannot follow GNOME Shell's windows: \(error)")
        }
    }

    public func perform(_ command: WindowCommand, window id: String) {
        queue.async { [weak self] in
            guard let self, let title = reported.title(of: id) else { return }
            do {
                if try !shell.perform(Self.name(command), window: id) { report("'\(title)' is gone: GNOME Shell has no such window any more") }
            } catch {
                report("GNOME Shell could not be asked to \(command.verb) '\(title)': \(error)")
            }
        }
    }

    /// The extension's name for a command.
    static func name(_ c: WindowCommand) -> String {
        switch c {
        case .activate: "activate"
        case .close: "close"
        case .minimize: "minimize"
        case .maximize: "maximize"
        case .restore: "restore"
        }
    }

    public func stop() {
        reported.stop()
        queue.sync {}
        shell.close()
    }
}

/// The scene drawn by GNOME Shell, through the extension: the scan's effects applied to an
/// `OverlayScene`, laid out over the screen and sent as `SceneDrawing`'s layers (JSON) when
/// they change; while a sweep moves, again at each frame. The extension draws them above
/// every window, taking no click. On the presenters' queue.
public final class ShellOverlay: EffectPresenter, @unchecked Sendable {
    private let shell: GnomeShell
    private let feedback: FeedbackSettings
    private let screen: PixelRect
    private let queue: DispatchQueue
    private let metrics: SceneDrawing.Metrics
    /// The message screen's message, in its larger size.
    private let messageMetrics: SceneDrawing.Metrics
    private let family: String
    let clock: () -> ScanInstant
    private var scene = OverlayScene()
    private var sent: SceneDrawing.Layers?
    private var serial: UInt32 = 0
    private var finished = false
    private let frames = FrameTicker()
    /// Sweep frames a second.
    public var framesPerSecond = 30
    /// What is missing for the labels, where a font could not be read.
    public let fontNote: String?
    /// Each scene the extension says it painted: the serial sent with it. For benchmarks.
    public var onPainted: (@Sendable (UInt32) -> Void)?

    /// `screen`: the whole screen (every monitor together), in the Shell's pixels.
    public init(feedback: FeedbackSettings, screen: PixelRect, queue: DispatchQueue, clock: @escaping () -> ScanInstant = MonotonicClock.now,
                onLost: (@Sendable (String) -> Void)? = nil) throws(GnomeShellError) {
        shell = try GnomeShell()
        self.feedback = feedback
        self.screen = screen
        self.queue = queue
        self.clock = clock
        let (text, note) = OverlayFont.load()
        fontNote = note
        metrics = text.map { SceneDrawing.Metrics($0) } ?? SceneDrawing.Metrics(ascent: 14, descent: 4, width: { 11 * $0.count })
        messageMetrics = text.map { SceneDrawing.Metrics($0.sized(OverlayFont.messagePixelSize)) }
            ?? SceneDrawing.Metrics(ascent: 22, descent: 6, width: { 17 * $0.count })
        family = "DejaVu Sans"
        var events = GnomeShell.Events()
        events.painted = { [weak self] serial in self?.onPainted?(serial) }
        events.present = { [weak self] here in
            guard let self else { return }
            if here {
                // GNOME Shell came back (restarted): the scene is drawn again there.
                queue.async { self.sent = nil; self.draw() }
            } else {
                onLost?("GNOME Shell left the session bus (it ended or restarts); the highlight is drawn again when it is back")
            }
        }
        try shell.listen(events, thread: "switchscan.gnome-scene")
    }

    public func present(_ effects: [TimedEffect]) throws {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !finished else { return }
        for e in effects { scene.apply(e) }
        draw()
        updateFrameTimer()
    }

    private func draw() {
        guard !finished else { return }
        let shapes = scene.shapes(at: clock(), thickness: feedback.highlightWidth + 2, lineWidth: feedback.highlightWidth, screen: screen)
        let layers = SceneDrawing.layers(shapes, highlight: feedback.highlightColor, metrics: metrics, message: messageMetrics, screen: screen)
        guard layers != sent else { return }
        sent = layers
        serial &+= 1
        _ = shell.show(Self.json(layers, family: family, size: Int(OverlayFont.pixelSize), messageSize: Int(OverlayFont.messagePixelSize)),
                       serial: serial)
    }

    private func updateFrameTimer() {
        frames.update(moving: !finished && scene.isMoving(at: clock()), queue: queue, perSecond: framesPerSecond) { [weak self] in
            guard let self, !self.finished else { return }
            self.draw()
            self.updateFrameTimer()
        }
    }

    public func finish() {
        guard !finished else { return }
        finished = true
        frames.stop()
        shell.hide()
        shell.close()
    }

    /// The layers as the extension reads them: {"font": {...}, "layers": {name: [item]}},
    /// an item ["r", x, y, w, h, "#rrggbb"] or ["t", x, y, w, h, text, "#rrggbb", dx, dy],
    /// and for the message's larger text the size after them.
    public static func json(_ l: SceneDrawing.Layers, family: String, size: Int, messageSize: Int) -> String {
        func color(_ c: RGBColor) -> String {
            let hex = Array("0123456789abcdef")
            return "\"#" + String([c.red, c.green, c.blue].flatMap { [hex[Int($0) >> 4], hex[Int($0) & 15]] }) + "\""
        }
        func item(_ i: SceneDrawing.Item) -> String {
            switch i {
            case let .fill(r, c): return "[\"r\",\(r.x),\(r.y),\(r.width),\(r.height),\(color(c))]"
            case let .label(t, c, b, at, large):
                return "[\"t\",\(b.x),\(b.y),\(b.width),\(b.height),\(jsonString(t)),\(color(c)),\(at.x),\(at.y)\(large ? ",\(messageSize)" : "")]"
            }
        }
        func layer(_ items: [SceneDrawing.Item]) -> String { "[" + items.map(item).joined(separator: ",") + "]" }
        return "{\"font\":{\"family\":\(jsonString(family)),\"size\":\(size),\"weight\":\"bold\"},\"layers\":{"
            + "\"keyboard\":\(layer(l.keyboard)),\"outline\":\(layer(l.outline)),\"sweep\":\(layer(l.sweep)),\"menu\":\(layer(l.menu))}}"
    }
}

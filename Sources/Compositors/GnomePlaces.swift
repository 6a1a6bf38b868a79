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
    private let lock = Lock()
    private var known: [WindowReport.Window] = []   // under `lock`
    private var onChange: (@Sendable () -> Void)?   // under `lock`

    public init() throws(GnomeShellError) {
        shell = try GnomeShell()
        known = try shell.windows()
        var events = GnomeShell.Events()
        events.windows = { [weak self] bytes in self?.take(bytes) }
        events.present = { [weak self] here in self?.presence(here) }
        try shell.listen(events)
    }

    deinit { shell.close() }

    /// The extension's version, as it said at hello.
    public var version: String { shell.version }

    private func take(_ bytes: [UInt8]) {
        guard let windows = try? WindowReport.parse(bytes) else { return }
        set(windows)
    }

    /// The extension left (no window is known until it is back) or came back.
    private func presence(_ here: Bool) {
        set(here ? (try? shell.windows()) ?? [] : [])
    }

    private func set(_ windows: [WindowReport.Window]) {
        let (changed, call) = lock.withLock { () -> (Bool, (@Sendable () -> Void)?) in
            let before = known.map(\.place)
            known = windows
            return (before != windows.map(\.place), onChange)
        }
        if changed { call?() }
    }

    public func places(fresh: Bool) -> [WindowPlace] {
        if fresh, let now = try? shell.windows() { lock.withLock { known = now } }
        return lock.withLock { known.filter { !$0.minimized }.map(\.place) }
    }

    public func follow(_ onChange: @escaping @Sendable () -> Void) {
        lock.withLock { self.onChange = onChange }
    }

    public func close() {
        lock.withLock { onChange = nil }
        shell.close()
    }
}

/// The Windows page on GNOME: the windows a task bar would list, from the extension, and its
/// commands carried out by it, on a queue of their own so a slow Shell never holds the caller.
public final class GnomeWindows: WindowList, @unchecked Sendable {
    private let shell: GnomeShell
    private let report: @Sendable (String) -> Void
    private let queue = DispatchQueue(label: "switchscan.gnome-windows")
    private let lock = Lock()
    private var last: [ManagedWindow]?                            // under `lock`
    private var onChange: (@Sendable ([ManagedWindow]) -> Void)?  // under `lock`
    private var stopped = false                                   // under `lock`

    public init(report: @escaping @Sendable (String) -> Void) throws(GnomeShellError) {
        shell = try GnomeShell()
        self.report = report
    }

    deinit { shell.close() }

    public func start(onChange: @escaping @Sendable ([ManagedWindow]) -> Void) {
        lock.withLock { self.onChange = onChange }
        var events = GnomeShell.Events()
        events.windows = { [weak self] bytes in (try? WindowReport.parse(bytes)).map { self?.take($0) } }
        events.present = { [weak self] here in
            guard let self else { return }
            take(here ? (try? shell.windows()) ?? [] : [])
        }
        do {
            try shell.listen(events)
            take(try shell.windows())
        } catch {
            report("The Windows page cannot follow GNOME Shell's windows: \(error)")
        }
    }

    private func take(_ all: [WindowReport.Window]) {
        let list = all.filter(\.listed).map {
            ManagedWindow(id: $0.place.id, title: $0.place.title, active: $0.place.active, maximized: $0.maximized, minimized: $0.minimized)
        }
        let call: (@Sendable ([ManagedWindow]) -> Void)? = lock.withLock {
            guard list != last else { return nil }
            last = list
            return onChange
        }
        call?(list)
    }

    public func perform(_ command: WindowCommand, window id: String) {
        queue.async { [weak self] in
            guard let self, let title = lock.withLock({ stopped ? nil : last?.first { $0.id == id }?.title ?? id }) else { return }
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
        lock.withLock { onChange = nil; stopped = true }
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
        try shell.listen(events)
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
        let layers = SceneDrawing.layers(shapes, highlight: feedback.highlightColor, metrics: metrics, screen: screen)
        guard layers != sent else { return }
        sent = layers
        serial &+= 1
        _ = shell.show(Self.json(layers, family: family, size: Int(OverlayFont.pixelSize)), serial: serial)
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
    /// an item ["r", x, y, w, h, "#rrggbb"] or ["t", x, y, w, h, text, "#rrggbb", dx, dy].
    public static func json(_ l: SceneDrawing.Layers, family: String, size: Int) -> String {
        func color(_ c: RGBColor) -> String {
            let hex = Array("0123456789abcdef")
            return "\"#" + String([c.red, c.green, c.blue].flatMap { [hex[Int($0) >> 4], hex[Int($0) & 15]] }) + "\""
        }
        func item(_ i: SceneDrawing.Item) -> String {
            switch i {
            case let .fill(r, c): return "[\"r\",\(r.x),\(r.y),\(r.width),\(r.height),\(color(c))]"
            case let .label(t, c, b, at): return "[\"t\",\(b.x),\(b.y),\(b.width),\(b.height),\(jsonString(t)),\(color(c)),\(at.x),\(at.y)]"
            }
        }
        func layer(_ items: [SceneDrawing.Item]) -> String { "[" + items.map(item).joined(separator: ",") + "]" }
        return "{\"font\":{\"family\":\(jsonString(family)),\"size\":\(size),\"weight\":\"bold\"},\"layers\":{"
            + "\"keyboard\":\(layer(l.keyboard)),\"outline\":\(layer(l.outline)),\"sweep\":\(layer(l.sweep)),\"menu\":\(layer(l.menu))}}"
    }
}

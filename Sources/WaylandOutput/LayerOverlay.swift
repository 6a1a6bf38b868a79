#if canImport(Glibc)
import Glibc
#endif
import CSys
import CWayland
import Dispatch
import ScanCore
import ScanHost
import ScreenScene
import WaylandProtocols

/// Shows the scan on a Wayland compositor that offers wlroots' layer shell (sway and other
/// wlroots compositors, KWin): one surface over the whole output on the overlay layer, above
/// every window, with an empty input region (clicks go through) and no keyboard. It draws
/// the outline and point mode's band and lines from the scene (`OverlayScene`), into two
/// shared-memory buffers used in turn: a buffer the compositor still reads (not released) is
/// never written, and only what changed is cleared, drawn and sent as damage (what this
/// buffer held, what the buffer shown last held, what is drawn now). The menu and
/// keyboard panels are not drawn here (they need text).
///
/// Every libwayland call runs on `queue`, which also reads the compositor's events.
public final class LayerOverlay: EffectPresenter, @unchecked Sendable {
    let queue: DispatchQueue
    let clock: () -> ScanInstant
    let feedback: FeedbackSettings
    private let wayland: WaylandDisplay
    private let raster: ShapeRaster
    private let compositor, shm, layerShell: OpaquePointer
    private var surface: OpaquePointer?
    private var layerSurface: OpaquePointer?
    /// The output covered, in the layout.
    public private(set) var screen: PixelRect
    private var buffers: [Buffer] = []
    private var scene = OverlayScene()
    private var shown = OverlayShapes()
    /// What the buffer committed last holds.
    private var shownRects: [PixelRect] = []
    /// A draw waits for a buffer the compositor has released.
    private var waitingForBuffer = false
    private var reader: DispatchSourceRead?
    private let frames = FrameTicker()
    private var finished = false
    private var lost: String?
    private var reportedLoss = false

    /// Frames a second while a sweep runs.
    public var framesPerSecond = 60
    /// Called on `queue` when the compositor has shown a batch that held a highlight (its
    /// frame callback): the highlight effect's time and `clock()` then. For benchmarks.
    public var onPresented: ((_ effectTime: ScanInstant, _ presentedAt: ScanInstant) -> Void)?

    final class Buffer {
        let proxy: OpaquePointer
        let pixels: UnsafeMutableBufferPointer<UInt32>
        var busy = false
        /// The screen rectangles drawn on it, cleared before it is drawn again.
        var drawn: [PixelRect] = []
        init(proxy: OpaquePointer, pixels: UnsafeMutableBufferPointer<UInt32>) { self.proxy = proxy; self.pixels = pixels }
    }

    /// Connects and maps the surface (transparent) on the first output; fails, saying why,
    /// where the compositor has no layer shell or no output.
    public init(display name: String? = nil, feedback: FeedbackSettings, queue: DispatchQueue,
                clock: @escaping () -> ScanInstant = MonotonicClock.now) throws(WaylandError) {
        let w = try WaylandDisplay(name: name)
        guard let compositor = w.bind(withUnsafePointer(to: wl_compositor_interface) { $0 }, version: 4),
              let shm = w.bind(withUnsafePointer(to: wl_shm_interface) { $0 }, version: 1) else {
            throw WaylandError("the compositor '\(w.name)' lacks wl_compositor or wl_shm")
        }
        guard let layerShell = w.bind(withUnsafePointer(to: zwlr_layer_shell_v1_interface) { $0 }, version: 2) else {
            throw WaylandError("the compositor '\(w.name)' offers no layer shell (zwlr_layer_shell_v1), so SwitchScan cannot draw above its windows")
        }
        guard let output = w.outputs.first, !output.rect.isEmpty else {
            throw WaylandError("the compositor '\(w.name)' has no output to draw on")
        }
        var settings = feedback
        settings.highlightWidth = min(max(feedback.highlightWidth, FeedbackSettings.highlightWidthRange.lowerBound),
                                      FeedbackSettings.highlightWidthRange.upperBound)
        self.feedback = settings
        wayland = w
        self.compositor = compositor
        self.shm = shm
        self.layerShell = layerShell
        self.queue = queue
        self.clock = clock
        raster = ShapeRaster(feedback: settings)
        screen = output.rect
        try makeSurface(on: output)
    }

    deinit { tearDown() }

    private func makeSurface(on output: WaylandDisplay.Output) throws(WaylandError) {
        guard let surface = wl_compositor_create_surface(compositor),
              let layerSurface = zwlr_layer_shell_v1_get_layer_surface(layerShell, surface, output.proxy, 3 /* overlay */, "switchscan") else {
            throw WaylandError("the compositor '\(wayland.name)' made no surface")
        }
        self.surface = surface
        self.layerSurface = layerSurface
        zwlr_layer_surface_v1_set_anchor(layerSurface, 15)  // top, bottom, left, right: the whole output
        zwlr_layer_surface_v1_set_exclusive_zone(layerSurface, -1)
        zwlr_layer_surface_v1_set_keyboard_interactivity(layerSurface, 0)
        zwlr_layer_surface_v1_set_size(layerSurface, 0, 0)
        zwlr_layer_surface_v1_add_listener(layerSurface, Self.layerListener, Unmanaged.passUnretained(self).toOpaque())
        // Clicks pass through: the input region is empty.
        let region = wl_compositor_create_region(compositor)
        wl_surface_set_input_region(surface, region)
        wl_region_destroy(region)
        wl_surface_commit(surface)
        guard wayland.roundtrip(), !buffers.isEmpty else {
            throw WaylandError("the compositor '\(wayland.name)' did not place SwitchScan's overlay: \(lost ?? wayland.lostReason ?? "no size was given")")
        }
        // Mapped, clear.
        draw(force: true)
        guard wayland.roundtrip() else { throw WaylandError("the compositor '\(wayland.name)' closed the connection") }
        let source = DispatchSource.makeReadSource(fileDescriptor: wl_display_get_fd(wayland.display), queue: queue)
        source.setEventHandler { [weak self] in self?.readEvents() }
        source.activate()
        reader = source
    }

    /// The size the compositor gave: two buffers of it.
    private func configure(serial: UInt32, width: Int, height: Int) {
        guard let layerSurface else { return }
        zwlr_layer_surface_v1_ack_configure(layerSurface, serial)
        let w = width > 0 ? width : screen.width, h = height > 0 ? height : screen.height
        if buffers.isEmpty || w * h != buffers[0].pixels.count {
            do throws(WaylandError) { buffers = try (0..<2).map { _ throws(WaylandError) in try makeBuffer(width: w, height: h) } } catch {
                lost = error.description
            }
            screen = PixelRect(x: screen.x, y: screen.y, width: w, height: h)
            shown = OverlayShapes()
            shownRects = []
        }
    }

    private func makeBuffer(width: Int, height: Int) throws(WaylandError) -> Buffer {
        let size = width * height * 4
        let fd = csys_memfd("switchscan-overlay")
        guard fd >= 0, ftruncate(fd, off_t(size)) == 0 else {
            if fd >= 0 { close(fd) }
            throw WaylandError("no shared memory for the overlay (\(errnoName(errno)))")
        }
        defer { close(fd) }
        let mapped: UnsafeMutableRawPointer? = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let memory = mapped, memory != UnsafeMutableRawPointer(bitPattern: -1) else {
            throw WaylandError("the overlay's shared memory cannot be mapped (\(errnoName(errno)))")
        }
        let pool = wl_shm_create_pool(shm, fd, Int32(size))
        defer { wl_shm_pool_destroy(pool) }
        guard let proxy = wl_shm_pool_create_buffer(pool, 0, Int32(width), Int32(height), Int32(width * 4), WL_SHM_FORMAT_ARGB8888.rawValue) else {
            munmap(memory, size)
            throw WaylandError("the compositor made no buffer for the overlay")
        }
        let pixels = UnsafeMutableBufferPointer(start: memory.assumingMemoryBound(to: UInt32.self), count: width * height)
        // A new mapping of a new memfd is zero: clear already.
        let b = Buffer(proxy: proxy, pixels: pixels)
        wl_buffer_add_listener(proxy, Self.bufferListener, Unmanaged.passUnretained(b).toOpaque())
        return b
    }

    public func present(_ effects: [TimedEffect]) throws {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !finished else { return }
        var highlightAt: ScanInstant?
        for e in effects {
            scene.apply(e)
            if case .highlight = e.effect { highlightAt = e.time }
        }
        draw(presenting: highlightAt)
        updateFrameTimer()
        try checkConnection()
    }

    public func finish() {
        guard !finished else { return }
        finished = true
        tearDown()
    }

    private func tearDown() {
        frames.stop()
        reader?.cancel()
        reader = nil
        for b in buffers {
            wl_buffer_destroy(b.proxy)
            munmap(b.pixels.baseAddress, b.pixels.count * 4)
        }
        buffers = []
        if let layerSurface { zwlr_layer_surface_v1_destroy(layerSurface) }
        if let surface { wl_surface_destroy(surface) }
        layerSurface = nil
        surface = nil
        if lost == nil { wayland.roundtrip() }
    }

    private func checkConnection() throws {
        if lost == nil, let reason = wayland.lostReason { lost = reason }
        guard let lost, !reportedLoss else { return }
        reportedLoss = true
        frames.stop()
        throw WaylandError("the Wayland compositor '\(wayland.name)' ended SwitchScan's overlay (\(lost)): the on-screen outline is gone.")
    }

    /// Draws the scene now into a free buffer, when it changed; with no free buffer, when
    /// one is released.
    private func draw(force: Bool = false, presenting effectTime: ScanInstant? = nil) {
        guard lost == nil, let surface, !finished || force else { return }
        let shapes = scene.shapes(at: clock(), thickness: feedback.highlightWidth + 2, lineWidth: feedback.highlightWidth, screen: screen)
        guard force || shapes != shown else { return }
        guard let b = buffers.first(where: { !$0.busy }) else {
            waitingForBuffer = true
            return
        }
        waitingForBuffer = false
        let target = ShapeRaster.Target(pixels: b.pixels, width: screen.width, height: screen.height, origin: (screen.x, screen.y))
        let (drawn, damage) = raster.draw(shapes, over: b.drawn, into: target)
        b.drawn = drawn
        // The screen changes from the buffer shown last, not from this one's old content:
        // what that one showed is damaged too.
        let shownBefore = shownRects
        shownRects = drawn
        b.busy = true
        wl_surface_attach(surface, b.proxy, 0, 0)
        for r in damage + shownBefore {
            let l = target.local(r)
            if !l.isEmpty { wl_surface_damage_buffer(surface, Int32(l.x), Int32(l.y), Int32(l.width), Int32(l.height)) }
        }
        if force { wl_surface_damage_buffer(surface, 0, 0, Int32(screen.width), Int32(screen.height)) }
        if let effectTime, onPresented != nil, let callback = wl_surface_frame(surface) {
            let box = Unmanaged.passRetained(FrameBox(self, effectTime)).toOpaque()
            wl_callback_add_listener(callback, Self.frameListener, box)
        }
        wl_surface_commit(surface)
        wayland.flush()
        shown = shapes
    }

    /// What the compositor sent: releases, configures, frame callbacks.
    private func readEvents() {
        let d = wayland.display
        while wl_display_prepare_read(d) != 0 { wl_display_dispatch_pending(d) }
        if wl_display_read_events(d) < 0 {
            lost = wayland.lostReason ?? "the connection closed"
            reader?.cancel()
            reader = nil
            return
        }
        wl_display_dispatch_pending(d)
        if waitingForBuffer { draw() }
    }

    /// On while a sweep moves (until its end), off otherwise: nothing runs when idle.
    private func updateFrameTimer() {
        frames.update(moving: lost == nil && !finished && scene.isMoving(at: clock()), queue: queue, perSecond: framesPerSecond) { [weak self] in
            guard let self, !self.finished else { return }
            self.draw()
            self.updateFrameTimer()
        }
    }

    // MARK: listeners

    private final class FrameBox {
        weak var overlay: LayerOverlay?
        let effectTime: ScanInstant
        init(_ o: LayerOverlay, _ t: ScanInstant) { overlay = o; effectTime = t }
    }

    nonisolated(unsafe) private static let frameListener: UnsafeMutablePointer<wl_callback_listener> = {
        let l = UnsafeMutablePointer<wl_callback_listener>.allocate(capacity: 1)
        l.initialize(to: wl_callback_listener(done: { data, callback, _ in
            if let callback { wl_callback_destroy(callback) }
            guard let data else { return }
            let box = Unmanaged<FrameBox>.fromOpaque(data).takeRetainedValue()
            if let o = box.overlay { o.onPresented?(box.effectTime, o.clock()) }
        }))
        return l
    }()

    nonisolated(unsafe) private static let bufferListener: UnsafeMutablePointer<wl_buffer_listener> = {
        let l = UnsafeMutablePointer<wl_buffer_listener>.allocate(capacity: 1)
        l.initialize(to: wl_buffer_listener(release: { data, _ in
            guard let data else { return }
            Unmanaged<Buffer>.fromOpaque(data).takeUnretainedValue().busy = false
        }))
        return l
    }()

    nonisolated(unsafe) private static let layerListener: UnsafeMutablePointer<zwlr_layer_surface_v1_listener> = {
        let l = UnsafeMutablePointer<zwlr_layer_surface_v1_listener>.allocate(capacity: 1)
        l.initialize(to: zwlr_layer_surface_v1_listener(
            configure: { data, _, serial, width, height in
                guard let data else { return }
                Unmanaged<LayerOverlay>.fromOpaque(data).takeUnretainedValue().configure(serial: serial, width: Int(width), height: Int(height))
            },
            closed: { data, _ in
                guard let data else { return }
                Unmanaged<LayerOverlay>.fromOpaque(data).takeUnretainedValue().lost = "the compositor closed the overlay's surface"
            }))
        return l
    }()
}

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
/// buffer held, what the buffer shown last held, what is drawn now). The menu and keyboard
/// panels are drawn too, their labels in a TrueType font of the system's (`OverlayFont`).
/// An output that goes away takes the surface with it: the next effect makes it again on the
/// first output left.
///
/// Every libwayland call runs on `queue`, which also reads the compositor's events. A lost
/// compositor is reported once: thrown from the next `present`, or given to `onLost` as soon
/// as the connection is read closed (a scan that waits for windows presents nothing more).
public final class LayerOverlay: EffectPresenter, @unchecked Sendable {
    let queue: DispatchQueue
    let clock: () -> ScanInstant
    let feedback: FeedbackSettings
    private let wayland: WaylandDisplay
    private let raster: ShapeRaster
    private let compositor, shm, layerShell: OpaquePointer
    private var surface: OpaquePointer?
    private var layerSurface: OpaquePointer?
    /// The output the surface is on (its registry name).
    private var outputGlobal: UInt32 = 0
    /// The output covered, in the layout.
    public private(set) var screen: PixelRect
    private var buffers: [Buffer] = []
    private var scene = OverlayScene()
    private var shown = OverlayShapes()
    /// What the buffer committed last holds.
    private var shownHeld = ShapeRaster.Held()
    /// A draw waits for a buffer the compositor has released.
    private var waitingForBuffer = false
    /// The compositor gave a new size: everything is drawn again.
    private var redrawAll = false
    /// The compositor closed the surface (its output went away).
    private var surfaceClosed = false
    private var reader: DispatchSourceRead?
    private let frames = FrameTicker()
    /// Frame callbacks asked for and not yet done.
    private var pendingFrames: [FrameBox] = []
    private var finished = false
    private var tornDown = false
    private var lost: String?
    private var reportedLoss = false
    private let onLost: (@Sendable (WaylandError) -> Void)?

    /// Why the menu and keyboard are drawn without labels (no font), to be said once.
    public let fontNote: String?
    /// Frames a second while a sweep runs.
    public var framesPerSecond = 60
    /// Called on `queue` when the compositor has shown a batch that held a highlight (its
    /// frame callback): the highlight effect's time and `clock()` then. For benchmarks.
    public var onPresented: ((_ effectTime: ScanInstant, _ presentedAt: ScanInstant) -> Void)?

    final class Buffer {
        let proxy: OpaquePointer
        let pixels: UnsafeMutableBufferPointer<UInt32>
        let width: Int, height: Int
        var busy = false
        /// What is drawn on it, cleared before it is drawn again.
        var held = ShapeRaster.Held()
        init(proxy: OpaquePointer, pixels: UnsafeMutableBufferPointer<UInt32>, width: Int, height: Int) {
            self.proxy = proxy; self.pixels = pixels; self.width = width; self.height = height
        }
    }

    /// Connects and maps the surface (transparent) on the first output; fails, saying why,
    /// where the compositor has no layer shell or no output.
    public init(display name: String? = nil, feedback: FeedbackSettings, queue: DispatchQueue,
                clock: @escaping () -> ScanInstant = MonotonicClock.now,
                onLost: (@Sendable (WaylandError) -> Void)? = nil) throws(WaylandError) {
        let w = try WaylandDisplay(name: name)
        guard let compositor = w.bind(cwl_compositor_interface(), version: 4),
              let shm = w.bind(cwl_shm_interface(), version: 1) else {
            throw WaylandError("the compositor '\(w.name)' lacks wl_compositor or wl_shm")
        }
        guard let layerShell = w.bind(cwl_layer_shell_interface(), version: 2) else {
            wl_proxy_destroy(compositor)
            wl_proxy_destroy(shm)
            throw WaylandError("the compositor '\(w.name)' offers no layer shell (zwlr_layer_shell_v1), so SwitchScan cannot draw above its windows")
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
        self.onLost = onLost
        let (text, note) = OverlayFont.load()
        raster = ShapeRaster(feedback: settings, text: text)
        fontNote = note
        screen = PixelRect(x: 0, y: 0, width: 0, height: 0)
        do { try makeSurface() } catch {
            tearDown()
            throw error
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: wl_display_get_fd(w.display), queue: queue)
        reader = source
        source.setEventHandler { [weak self] in self?.readEvents() }
        // The connection (and its descriptor) lasts until the source is done with it.
        source.setCancelHandler { withExtendedLifetime(w) {} }
        source.activate()
        // What came with the last round trip is waiting in the queue, not on the descriptor.
        queue.async { [weak self] in self?.dispatchQueued() }
    }

    deinit { tearDown() }

    /// A surface over the first output, sized by the compositor and drawn clear.
    private func makeSurface() throws(WaylandError) {
        guard let output = wayland.outputs.first(where: { !$0.rect.isEmpty }) else {
            throw WaylandError("the compositor '\(wayland.name)' has no output to draw on")
        }
        outputGlobal = output.global
        screen = output.rect
        guard let surface = wl_compositor_create_surface(compositor),
              let layerSurface = zwlr_layer_shell_v1_get_layer_surface(layerShell, surface, output.proxy, 3 /* overlay */, "switchscan") else {
            throw WaylandError("the compositor '\(wayland.name)' made no surface")
        }
        self.surface = surface
        self.layerSurface = layerSurface
        surfaceClosed = false
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
        redrawAll = false
        draw(force: true)
        guard wayland.roundtrip() else { throw WaylandError("the compositor '\(wayland.name)' closed the connection") }
    }

    /// The surface and its buffers away (the connection stays).
    private func dropSurface() {
        releaseBuffers()
        if let layerSurface { zwlr_layer_surface_v1_destroy(layerSurface) }
        if let surface { wl_surface_destroy(surface) }
        layerSurface = nil
        surface = nil
        shown = OverlayShapes()
        shownHeld = ShapeRaster.Held()
    }

    private func releaseBuffers() {
        for b in buffers {
            // Destroyed first: no release can reach the object after it is gone.
            wl_buffer_destroy(b.proxy)
            munmap(b.pixels.baseAddress, b.pixels.count * 4)
        }
        buffers = []
    }

    /// The size the compositor gave: two buffers of it.
    private func configure(serial: UInt32, width: Int, height: Int) {
        guard let layerSurface else { return }
        zwlr_layer_surface_v1_ack_configure(layerSurface, serial)
        let origin = wayland.outputs.first { $0.global == outputGlobal }?.rect ?? screen
        let w = width > 0 ? width : origin.width, h = height > 0 ? height : origin.height
        screen = PixelRect(x: origin.x, y: origin.y, width: w, height: h)
        guard buffers.first.map({ $0.width != w || $0.height != h }) ?? true else { return }
        releaseBuffers()
        do throws(WaylandError) { buffers = try (0..<2).map { _ throws(WaylandError) in try makeBuffer(width: w, height: h) } } catch {
            markLost(error.description)
        }
        shown = OverlayShapes()
        shownHeld = ShapeRaster.Held()
        redrawAll = true
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
        let b = Buffer(proxy: proxy, pixels: pixels, width: width, height: height)
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
        if surfaceClosed && lost == nil {
            // Its output went away: again on the first output left.
            dropSurface()
            do throws(WaylandError) { try makeSurface() } catch { markLost("its output went away, and \(error)") }
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

    /// Idempotent: `finish` and then deinit both come here.
    private func tearDown() {
        guard !tornDown else { return }
        tornDown = true
        frames.stop()
        reader?.cancel()
        reader = nil
        for box in pendingFrames {
            wl_callback_destroy(box.callback)
            Unmanaged.passUnretained(box).release()
        }
        pendingFrames = []
        dropSurface()
        wl_proxy_destroy(layerShell)
        wl_proxy_destroy(shm)
        wl_proxy_destroy(compositor)
        if lost == nil { wayland.roundtrip(timeout: 0.5) }
    }

    private func checkConnection() throws {
        if lost == nil, let reason = wayland.lostReason { lost = reason }
        if let loss = takeLoss() { throw loss }
    }

    /// Every loss but the one `present` finds comes here: reading stops, and it is said once.
    private func markLost(_ reason: String) {
        guard lost == nil else { return }
        lost = reason
        reader?.cancel()
        reader = nil
        if !finished, let onLost, let loss = takeLoss() { onLost(loss) }
    }

    /// The loss, the first time it is asked for.
    private func takeLoss() -> WaylandError? {
        guard let lost, !reportedLoss else { return nil }
        reportedLoss = true
        frames.stop()
        return WaylandError("SwitchScan's overlay on the Wayland compositor '\(wayland.name)' is gone (\(lost)): the outline is no longer drawn on the screen.")
    }

    /// Draws the scene now into a free buffer, when it changed; with no free buffer, when
    /// one is released.
    private func draw(force: Bool = false, presenting effectTime: ScanInstant? = nil) {
        guard lost == nil, !surfaceClosed, let surface, !finished || force else { return }
        let all = force || redrawAll
        let shapes = scene.shapes(at: clock(), thickness: feedback.highlightWidth + 2, lineWidth: feedback.highlightWidth, screen: screen)
        guard all || shapes != shown else { return }
        guard let b = buffers.first(where: { !$0.busy }) else {
            waitingForBuffer = true
            return
        }
        waitingForBuffer = false
        redrawAll = false
        let target = ShapeRaster.Target(pixels: b.pixels, width: b.width, height: b.height, origin: (screen.x, screen.y))
        let (held, damage) = raster.draw(shapes, over: b.held, into: target)
        b.held = held
        b.busy = true
        // The screen changes from the buffer shown last, not from this one's old content:
        // what that one showed above the keyboard is damaged too (and its keyboard, where
        // that changed).
        let before = shownHeld
        let shownBefore = before.rects + (before.keyboard != held.keyboard ? before.keyboard.map { [$0.frame] } ?? [] : [])
        shownHeld = held
        wl_surface_attach(surface, b.proxy, 0, 0)
        if all {
            wl_surface_damage_buffer(surface, 0, 0, Int32(b.width), Int32(b.height))
        } else {
            for r in damage + shownBefore {
                let l = target.local(r)
                if !l.isEmpty { wl_surface_damage_buffer(surface, Int32(l.x), Int32(l.y), Int32(l.width), Int32(l.height)) }
            }
        }
        if let effectTime, onPresented != nil, let callback = wl_surface_frame(surface) {
            let box = FrameBox(self, effectTime, callback)
            pendingFrames.append(box)
            wl_callback_add_listener(callback, Self.frameListener, Unmanaged.passRetained(box).toOpaque())
        }
        wl_surface_commit(surface)
        wayland.flush()
        shown = shapes
    }

    /// What the compositor sent: releases, configures, frame callbacks. libdispatch reports a
    /// hang-up once and then stops watching the descriptor, and the last messages may come
    /// with it: a closed connection is read to its end here, or its loss would go unseen.
    private func readEvents() {
        let d = wayland.display
        repeat {
            while wl_display_prepare_read(d) != 0 {
                guard wl_display_dispatch_pending(d) >= 0 else { return lose() }
            }
            guard wl_display_read_events(d) >= 0 else { return lose() }
            dispatchQueued()
        } while lost == nil && !finished && hungUp(wl_display_get_fd(d))
    }

    /// The compositor closed its end (a Unix socket says so as POLLHUP once its peer is gone).
    private func hungUp(_ fd: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) > 0 && p.revents & (Int16(POLLHUP) | Int16(POLLERR)) != 0
    }

    private func dispatchQueued() {
        guard lost == nil, !finished else { return }
        guard wl_display_dispatch_pending(wayland.display) >= 0 else { return lose() }
        if waitingForBuffer || redrawAll { draw(force: redrawAll) }
    }

    private func lose() { markLost(wayland.lostReason ?? "the connection closed") }

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
        let callback: OpaquePointer
        init(_ o: LayerOverlay, _ t: ScanInstant, _ c: OpaquePointer) { overlay = o; effectTime = t; callback = c }
    }

    nonisolated(unsafe) private static let frameListener: UnsafeMutablePointer<wl_callback_listener> = {
        let l = UnsafeMutablePointer<wl_callback_listener>.allocate(capacity: 1)
        l.initialize(to: wl_callback_listener(done: { data, callback, _ in
            if let callback { wl_callback_destroy(callback) }
            guard let data else { return }
            let box = Unmanaged<FrameBox>.fromOpaque(data).takeRetainedValue()
            guard let o = box.overlay else { return }
            o.pendingFrames.removeAll { $0 === box }
            o.onPresented?(box.effectTime, o.clock())
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
                Unmanaged<LayerOverlay>.fromOpaque(data).takeUnretainedValue().surfaceClosed = true
            }))
        return l
    }()
}

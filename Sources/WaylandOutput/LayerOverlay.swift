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
/// wlroots compositors, KWin): on every output a surface over the whole of it on the overlay
/// layer, above every window, with an empty input region (clicks go through) and no
/// keyboard. It draws the outline and point mode's band and lines from the scene
/// (`OverlayScene`), laid out once over the whole layout, each output's surface drawing what
/// reaches into it (the menu panel on one output alone, `OverlayShapes.menuScreen`). Each
/// surface has two shared-memory buffers used in turn: a buffer the compositor still reads
/// (not released) is never written, and only what changed is cleared, drawn and sent as
/// damage (what this buffer held, what the buffer shown last held, what is drawn now). The
/// menu and keyboard panels are drawn too, their labels in a TrueType font of the system's
/// (`OverlayFont`). Outputs follow the compositor: one plugged in gets a surface, one taken
/// away takes its surface with it, one moved in the layout is drawn at its new place; with
/// no output left nothing is drawn until one comes.
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
    /// One surface per output, in the compositor's order of outputs.
    private var panels: [Panel] = []
    /// Outputs whose surface the compositor closed while they stayed (sway closes them on an
    /// output it disables), with how often each had changed then: a surface is made there
    /// again only once the output changes (enabled again), not at once over and over.
    private var closedOutputs: [UInt32: Int] = [:]
    private var scene = OverlayScene()
    private var reader: DispatchSourceRead?
    private let frames = FrameTicker()
    /// Frame callbacks asked for and not yet done.
    private var pendingFrames: [FrameBox] = []
    private var finished = false
    private var tornDown = false
    private var lost: String?
    private var reportedLoss = false
    private let onLost: (@Sendable (WaylandError) -> Void)?

    /// The outputs covered, in the layout.
    public var screens: [PixelRect] { panels.map(\.screen) }
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
        /// Where its output was in the layout when it was drawn (`held` is in layout pixels).
        var drawnAt = (x: 0, y: 0)
        init(proxy: OpaquePointer, pixels: UnsafeMutableBufferPointer<UInt32>, width: Int, height: Int) {
            self.proxy = proxy; self.pixels = pixels; self.width = width; self.height = height
        }
    }

    /// One output's surface, its buffers and what it shows.
    final class Panel {
        weak var overlay: LayerOverlay?
        /// The output's registry name.
        let output: UInt32
        let surface: OpaquePointer
        let layerSurface: OpaquePointer
        /// Where the output is in the layout.
        var screen: PixelRect
        var buffers: [Buffer] = []
        var shown = OverlayShapes()
        /// What the buffer committed last holds.
        var shownHeld = ShapeRaster.Held()
        /// A draw waits for a buffer the compositor has released.
        var waitingForBuffer = false
        /// No size yet, or a new one: everything is drawn again.
        var redrawAll = false
        /// The compositor closed the surface (its output went away).
        var closed = false
        init(overlay: LayerOverlay, output: UInt32, surface: OpaquePointer, layerSurface: OpaquePointer, screen: PixelRect) {
            self.overlay = overlay; self.output = output; self.surface = surface; self.layerSurface = layerSurface; self.screen = screen
        }
    }

    /// Connects and maps a surface (transparent) on every output; fails, saying why, where
    /// the compositor has no layer shell or no output.
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
        do { try mapFirstPanels() } catch {
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

    /// A surface on every output, each sized by the compositor and drawn clear, before the
    /// first effect: a compositor that places none is said at once.
    private func mapFirstPanels() throws(WaylandError) {
        guard wayland.outputs.contains(where: { !$0.rect.isEmpty }) else {
            throw WaylandError("the compositor '\(wayland.name)' has no output to draw on")
        }
        try followOutputs()
        guard wayland.roundtrip(), panels.contains(where: { !$0.buffers.isEmpty }) else {
            throw WaylandError("the compositor '\(wayland.name)' did not place SwitchScan's overlay: \(lost ?? wayland.lostReason ?? "no size was given")")
        }
        draw(force: true)
        guard wayland.roundtrip() else { throw WaylandError("the compositor '\(wayland.name)' closed the connection") }
    }

    /// The panels as the outputs are now: a closed one or one whose output went away is
    /// dropped, a new output gets one (drawn once the compositor sizes it), a moved one is
    /// drawn again at its place.
    private func followOutputs() throws(WaylandError) {
        for p in panels where p.closed {
            if let o = wayland.outputs.first(where: { $0.global == p.output }) { closedOutputs[p.output] = o.changes }
        }
        closedOutputs = closedOutputs.filter { name, changes in wayland.outputs.contains { $0.global == name && $0.changes == changes } }
        let outputs = wayland.outputs.filter { !$0.rect.isEmpty && closedOutputs[$0.global] == nil }
        let gone = panels.filter { p in p.closed || !outputs.contains { $0.global == p.output } }
        for p in gone { drop(p) }
        panels.removeAll { p in gone.contains { $0 === p } }
        var changed = !gone.isEmpty
        for o in outputs {
            if let p = panels.first(where: { $0.output == o.global }) {
                if p.screen.x != o.rect.x || p.screen.y != o.rect.y {
                    p.screen = PixelRect(x: o.rect.x, y: o.rect.y, width: p.screen.width, height: p.screen.height)
                    changed = true
                }
                continue
            }
            guard let surface = wl_compositor_create_surface(compositor) else {
                throw WaylandError("the compositor '\(wayland.name)' made no surface")
            }
            guard let layerSurface = zwlr_layer_shell_v1_get_layer_surface(layerShell, surface, o.proxy, 3 /* overlay */, "switchscan") else {
                wl_surface_destroy(surface)
                throw WaylandError("the compositor '\(wayland.name)' made no surface")
            }
            let p = Panel(overlay: self, output: o.global, surface: surface, layerSurface: layerSurface, screen: o.rect)
            zwlr_layer_surface_v1_set_anchor(layerSurface, 15)  // top, bottom, left, right: the whole output
            zwlr_layer_surface_v1_set_exclusive_zone(layerSurface, -1)
            zwlr_layer_surface_v1_set_keyboard_interactivity(layerSurface, 0)
            zwlr_layer_surface_v1_set_size(layerSurface, 0, 0)
            zwlr_layer_surface_v1_add_listener(layerSurface, Self.layerListener, Unmanaged.passUnretained(p).toOpaque())
            // Clicks pass through: the input region is empty.
            let region = wl_compositor_create_region(compositor)
            wl_surface_set_input_region(surface, region)
            wl_region_destroy(region)
            wl_surface_commit(surface)
            panels.append(p)
            changed = true
        }
        // The layout changed: what each output shows may too (the menu's output, the lines
        // across the layout), drawn again whole.
        if changed { for p in panels { p.redrawAll = true } }
        // In the compositor's order, so that the menu's output is chosen the same way each time.
        let order = outputs.map(\.global)
        panels.sort { (order.firstIndex(of: $0.output) ?? 0) < (order.firstIndex(of: $1.output) ?? 0) }
        wayland.flush()
    }

    /// A panel's surface and buffers away (the connection stays).
    private func drop(_ p: Panel) {
        // Its frame callbacks would never come.
        for box in pendingFrames where box.surface == p.surface {
            wl_callback_destroy(box.callback)
            Unmanaged.passUnretained(box).release()
        }
        pendingFrames.removeAll { $0.surface == p.surface }
        releaseBuffers(of: p)
        zwlr_layer_surface_v1_destroy(p.layerSurface)
        wl_surface_destroy(p.surface)
        p.overlay = nil
    }

    private func releaseBuffers(of p: Panel) {
        for b in p.buffers {
            // Destroyed first: no release can reach the object after it is gone.
            wl_buffer_destroy(b.proxy)
            munmap(b.pixels.baseAddress, b.pixels.count * 4)
        }
        p.buffers = []
    }

    /// The size the compositor gave: two buffers of it.
    fileprivate func configure(_ p: Panel, serial: UInt32, width: Int, height: Int) {
        guard !p.closed else { return }
        zwlr_layer_surface_v1_ack_configure(p.layerSurface, serial)
        // The size alone: a move in the layout is followed (and drawn again) by followOutputs.
        let output = wayland.outputs.first { $0.global == p.output }?.rect ?? p.screen
        let w = width > 0 ? width : output.width, h = height > 0 ? height : output.height
        p.screen = PixelRect(x: p.screen.x, y: p.screen.y, width: w, height: h)
        guard p.buffers.first.map({ $0.width != w || $0.height != h }) ?? true else { return }
        p.redrawAll = true
        releaseBuffers(of: p)
        do throws(WaylandError) {
            p.buffers = try (0..<2).map { _ throws(WaylandError) in try makeBuffer(width: w, height: h) }
            for b in p.buffers { b.drawnAt = (p.screen.x, p.screen.y) }
        } catch {
            markLost(error.description)
        }
        p.shown = OverlayShapes()
        p.shownHeld = ShapeRaster.Held()
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
        if lost == nil {
            // Every surface closed while its output stayed: tried again as the scan goes
            // on (not at each of the compositor's events, which could close it at once again).
            if panels.isEmpty { closedOutputs = [:] }
            do throws(WaylandError) { try followOutputs() } catch { markLost(error.description) }
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
        for p in panels { drop(p) }
        panels = []
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

    /// Draws the scene now on every output where what shows there changed, each into a free
    /// buffer; on an output with no free buffer, when one is released.
    private func draw(force: Bool = false, presenting effectTime: ScanInstant? = nil) {
        let screens = panels.map(\.screen)
        guard lost == nil, !finished || force, let layout = PixelRect.enclosing(screens) else { return }
        let all = scene.shapes(at: clock(), thickness: feedback.highlightWidth + 2, lineWidth: feedback.highlightWidth, screen: layout)
        let menuOn = all.menuScreen(among: screens)
        var asked = false
        for (i, p) in panels.enumerated() where !p.closed && !p.buffers.isEmpty {
            let shapes = all.on(p.screen, withMenu: i == menuOn)
            let whole = force || p.redrawAll
            guard whole || shapes != p.shown else { continue }
            guard let b = p.buffers.first(where: { !$0.busy }) else {
                p.waitingForBuffer = true
                continue
            }
            p.waitingForBuffer = false
            p.redrawAll = false
            if b.drawnAt != (p.screen.x, p.screen.y) {
                // Its output moved: what it holds is in the old place's pixels.
                b.pixels.update(repeating: 0)
                b.held = ShapeRaster.Held()
                b.drawnAt = (p.screen.x, p.screen.y)
            }
            let target = ShapeRaster.Target(pixels: b.pixels, width: b.width, height: b.height, origin: (p.screen.x, p.screen.y))
            let (held, damage) = raster.draw(shapes, over: b.held, into: target)
            b.held = held
            b.busy = true
            // The screen changes from the buffer shown last, not from this one's old content:
            // what that one showed above the keyboard is damaged too (and its keyboard, where
            // that changed).
            let before = p.shownHeld
            let shownBefore = before.rects + (before.keyboard != held.keyboard ? before.keyboard.map { [$0.frame] } ?? [] : [])
            p.shownHeld = held
            wl_surface_attach(p.surface, b.proxy, 0, 0)
            if whole {
                wl_surface_damage_buffer(p.surface, 0, 0, Int32(b.width), Int32(b.height))
            } else {
                for r in damage + shownBefore {
                    let l = target.local(r)
                    if !l.isEmpty { wl_surface_damage_buffer(p.surface, Int32(l.x), Int32(l.y), Int32(l.width), Int32(l.height)) }
                }
            }
            // One frame callback a batch, on the output that shows the highlight.
            if let effectTime, !asked, onPresented != nil, shapes.outline != nil || i == menuOn, let callback = wl_surface_frame(p.surface) {
                asked = true
                let box = FrameBox(self, effectTime, callback, p.surface)
                pendingFrames.append(box)
                wl_callback_add_listener(callback, Self.frameListener, Unmanaged.passRetained(box).toOpaque())
            }
            wl_surface_commit(p.surface)
            p.shown = shapes
        }
        wayland.flush()
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

    /// After the compositor's events: outputs plugged in, moved or taken away are followed,
    /// and a surface given a size or a buffer back is drawn.
    private func dispatchQueued() {
        guard lost == nil, !finished else { return }
        guard wl_display_dispatch_pending(wayland.display) >= 0 else { return lose() }
        do throws(WaylandError) { try followOutputs() } catch { return markLost(error.description) }
        if panels.contains(where: { $0.waitingForBuffer || $0.redrawAll }) { draw() }
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
        /// The surface it was asked on.
        let surface: OpaquePointer
        init(_ o: LayerOverlay, _ t: ScanInstant, _ c: OpaquePointer, _ s: OpaquePointer) { overlay = o; effectTime = t; callback = c; surface = s }
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
                let p = Unmanaged<Panel>.fromOpaque(data).takeUnretainedValue()
                p.overlay?.configure(p, serial: serial, width: Int(width), height: Int(height))
            },
            closed: { data, _ in
                guard let data else { return }
                Unmanaged<Panel>.fromOpaque(data).takeUnretainedValue().closed = true
            }))
        return l
    }()
}

#if canImport(Glibc)
import Glibc
#endif
import CSys
import CWayland
import ScanCore
import ScanHost
import ScreenScene
import WaylandProtocols

/// Why the compositor could not be used, as a sentence.
public struct WaylandError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// One connection to the Wayland compositor (`WAYLAND_DISPLAY`) and the globals it offers,
/// with its outputs' places in the layout. Not thread-safe: its owner runs every call on one
/// queue, or under one lock.
final class WaylandDisplay {
    struct Global {
        var name: UInt32
        var interface: String
        var version: UInt32
    }

    /// An output and its place in the compositor's layout, in logical pixels: from
    /// xdg-output where the compositor offers it (wl_output alone gives wlroots' outputs no
    /// place, and sizes in physical pixels), else the current mode over the scale.
    final class Output {
        let proxy: OpaquePointer
        let global: UInt32
        var xdg: OpaquePointer?
        var x = 0, y = 0, width = 0, height = 0, scale = 1
        var logical: PixelRect?
        /// How many times the compositor has said the output changed (its `done` events).
        var changes = 0
        init(proxy: OpaquePointer, global: UInt32) { self.proxy = proxy; self.global = global }
        var rect: PixelRect { logical ?? PixelRect(x: x, y: y, width: width / max(1, scale), height: height / max(1, scale)) }
    }

    let display: OpaquePointer
    private var registry: OpaquePointer?
    private var xdgOutputs: OpaquePointer?
    private(set) var globals: [Global] = []
    private(set) var outputs: [Output] = []
    /// What the compositor's socket is called, for messages.
    let name: String

    init(name: String? = nil) throws(WaylandError) {
        let shown = name ?? getenv("WAYLAND_DISPLAY").map { String(cString: $0) } ?? "wayland-0"
        self.name = shown
        guard let d = wl_display_connect(name) else {
            throw WaylandError("the Wayland compositor '\(shown)' cannot be reached (\(errnoName(errno))): is WAYLAND_DISPLAY right?")
        }
        display = d
        registry = wl_display_get_registry(d)
        wl_registry_add_listener(registry, Self.registryListener, Unmanaged.passUnretained(self).toOpaque())
        // The globals; then the outputs' places. (A failure here ends in deinit, which
        // disconnects.)
        guard roundtrip() else { throw WaylandError("the Wayland compositor '\(shown)' closed the connection at once") }
        if let manager = bind(cwl_xdg_output_manager_interface(), version: 2) {
            xdgOutputs = manager
            for o in outputs { describe(o) }
        }
        guard roundtrip() else { throw WaylandError("the Wayland compositor '\(shown)' closed the connection at once") }
    }

    deinit {
        for o in outputs { forget(o) }
        if let xdgOutputs { zxdg_output_manager_v1_destroy(xdgOutputs) }
        if let registry { wl_proxy_destroy(registry) }
        wl_display_disconnect(display)
    }

    /// Asks where `o` is in the layout (xdg-output).
    private func describe(_ o: Output) {
        guard let xdgOutputs, o.xdg == nil, let x = zxdg_output_manager_v1_get_xdg_output(xdgOutputs, o.proxy) else { return }
        o.xdg = x
        zxdg_output_v1_add_listener(x, Self.xdgOutputListener, Unmanaged.passUnretained(o).toOpaque())
    }

    private func forget(_ o: Output) {
        if let x = o.xdg { zxdg_output_v1_destroy(x) }
        wl_proxy_destroy(o.proxy)
    }

    /// The compositor's layout: every output's rectangle together.
    var layout: PixelRect? {
        PixelRect.enclosing(outputs.map(\.rect).filter { !$0.isEmpty })
    }

    /// Binds the global offering `interface`, at most at `version`; nil where there is none.
    func bind(_ interface: UnsafePointer<wl_interface>, version: UInt32) -> OpaquePointer? {
        let wanted = String(cString: interface.pointee.name)
        guard let g = globals.first(where: { $0.interface == wanted }), let registry else { return nil }
        return OpaquePointer(wl_registry_bind(registry, g.name, interface, min(version, g.version)))
    }

    func offers(_ interface: String) -> Bool { globals.contains { $0.interface == interface } }

    /// Sends what is queued; false when the connection is lost.
    @discardableResult
    func flush() -> Bool { wl_display_flush(display) >= 0 || errno == EAGAIN }

    /// A round trip: what was sent is done, and what came is handled. False when lost, or
    /// when the compositor has not answered within `timeout` seconds (frozen): a caller
    /// never waits on it without end.
    @discardableResult
    func roundtrip(timeout: Double = 2) -> Bool {
        guard let callback = wl_display_sync(display) else { return false }
        let done = UnsafeMutablePointer<Bool>.allocate(capacity: 1)
        done.initialize(to: false)
        defer { done.deallocate() }
        wl_callback_add_listener(callback, Self.syncListener, done)
        let deadline = MonotonicClock.now() + .seconds(timeout)
        while !done.pointee {
            if wl_display_dispatch_pending(display) < 0 { break }
            if done.pointee { return true }
            guard wl_display_prepare_read(display) == 0 else { continue }
            if wl_display_flush(display) < 0 && errno != EAGAIN {
                wl_display_cancel_read(display)
                break
            }
            let left = Int32(max(0, (deadline.nanoseconds - MonotonicClock.now().nanoseconds) / 1_000_000))
            var p = pollfd(fd: wl_display_get_fd(display), events: Int16(POLLIN), revents: 0)
            let r = left > 0 ? poll(&p, 1, left) : 0
            if r > 0 {
                if wl_display_read_events(display) < 0 { break }
            } else {
                wl_display_cancel_read(display)
                if r < 0 && errno == EINTR { continue }
                break
            }
        }
        if done.pointee { return true }
        // Not answered: the callback goes, so that it never writes to `done` later.
        wl_callback_destroy(callback)
        return false
    }

    /// The connection's error, when the compositor ended it ("a protocol error", the errno).
    var lostReason: String? {
        let e = wl_display_get_error(display)
        guard e != 0 else { return nil }
        return e == EPROTO ? "the compositor refused a request (a protocol error)" : errnoName(e)
    }

    // MARK: listeners (C callbacks; `data` is the WaylandDisplay or the Output)

    nonisolated(unsafe) private static let registryListener: UnsafeMutablePointer<wl_registry_listener> = {
        let l = UnsafeMutablePointer<wl_registry_listener>.allocate(capacity: 1)
        l.initialize(to: wl_registry_listener(
            global: { data, _, name, interface, version in
                guard let data, let interface else { return }
                let me = Unmanaged<WaylandDisplay>.fromOpaque(data).takeUnretainedValue()
                let iface = String(cString: interface)
                me.globals.append(Global(name: name, interface: iface, version: version))
                if iface == "wl_output", let registry = me.registry,
                   let proxy = wl_registry_bind(registry, name, cwl_output_interface(), min(version, 2)) {
                    let o = Output(proxy: OpaquePointer(proxy), global: name)
                    me.outputs.append(o)
                    wl_output_add_listener(OpaquePointer(proxy), outputListener, Unmanaged.passUnretained(o).toOpaque())
                    me.describe(o)
                }
            },
            global_remove: { data, _, name in
                guard let data else { return }
                let me = Unmanaged<WaylandDisplay>.fromOpaque(data).takeUnretainedValue()
                me.globals.removeAll { $0.name == name }
                if let i = me.outputs.firstIndex(where: { $0.global == name }) {
                    me.forget(me.outputs[i])
                    me.outputs.remove(at: i)
                }
            }))
        return l
    }()

    nonisolated(unsafe) private static let outputListener: UnsafeMutablePointer<wl_output_listener> = {
        let l = UnsafeMutablePointer<wl_output_listener>.allocate(capacity: 1)
        l.initialize(to: wl_output_listener(
            geometry: { data, _, x, y, _, _, _, _, _, _ in
                guard let data else { return }
                let o = Unmanaged<Output>.fromOpaque(data).takeUnretainedValue()
                o.x = Int(x); o.y = Int(y)
            },
            mode: { data, _, flags, width, height, _ in
                guard let data, flags & UInt32(WL_OUTPUT_MODE_CURRENT.rawValue) != 0 else { return }
                let o = Unmanaged<Output>.fromOpaque(data).takeUnretainedValue()
                o.width = Int(width); o.height = Int(height)
            },
            done: { data, _ in
                guard let data else { return }
                Unmanaged<Output>.fromOpaque(data).takeUnretainedValue().changes += 1
            },
            scale: { data, _, factor in
                guard let data else { return }
                Unmanaged<Output>.fromOpaque(data).takeUnretainedValue().scale = Int(max(1, factor))
            },
            name: { _, _, _ in },
            description: { _, _, _ in }))
        return l
    }()
}

extension WaylandDisplay {
    nonisolated(unsafe) fileprivate static let syncListener: UnsafeMutablePointer<wl_callback_listener> = {
        let l = UnsafeMutablePointer<wl_callback_listener>.allocate(capacity: 1)
        l.initialize(to: wl_callback_listener(done: { data, callback, _ in
            if let callback { wl_callback_destroy(callback) }
            data?.assumingMemoryBound(to: Bool.self).pointee = true
        }))
        return l
    }()

    nonisolated(unsafe) fileprivate static let xdgOutputListener: UnsafeMutablePointer<zxdg_output_v1_listener> = {
        let l = UnsafeMutablePointer<zxdg_output_v1_listener>.allocate(capacity: 1)
        l.initialize(to: zxdg_output_v1_listener(
            logical_position: { data, _, x, y in
                guard let data else { return }
                let o = Unmanaged<Output>.fromOpaque(data).takeUnretainedValue()
                o.logical = PixelRect(x: Int(x), y: Int(y), width: o.logical?.width ?? 0, height: o.logical?.height ?? 0)
            },
            logical_size: { data, _, w, h in
                guard let data else { return }
                let o = Unmanaged<Output>.fromOpaque(data).takeUnretainedValue()
                o.logical = PixelRect(x: o.logical?.x ?? 0, y: o.logical?.y ?? 0, width: Int(w), height: Int(h))
            },
            done: { data, _ in
                guard let data else { return }
                Unmanaged<Output>.fromOpaque(data).takeUnretainedValue().changes += 1
            },
            name: { _, _, _ in },
            description: { _, _, _ in }))
        return l
    }()
}

/// Milliseconds of the monotonic clock, as input events carry them.
func eventTime() -> UInt32 { UInt32(truncatingIfNeeded: MonotonicClock.now().nanoseconds / 1_000_000) }

/// A bare round trip to the compositor on a connection of its own, for benchmarks beside
/// the overlay's figures.
public final class WaylandRoundTrip {
    private let wayland: WaylandDisplay
    public init(display name: String? = nil) throws(WaylandError) { wayland = try WaylandDisplay(name: name) }
    @discardableResult
    public func roundtrip() -> Bool { wayland.roundtrip() }
}

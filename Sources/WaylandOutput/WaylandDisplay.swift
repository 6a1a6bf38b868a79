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
    init(_ description: String) { self.description = description }
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

    /// An output and its place in the compositor's layout (logical pixels at scale 1).
    final class Output {
        let proxy: OpaquePointer
        let global: UInt32
        var x = 0, y = 0, width = 0, height = 0, scale = 1
        init(proxy: OpaquePointer, global: UInt32) { self.proxy = proxy; self.global = global }
        var rect: PixelRect { PixelRect(x: x, y: y, width: width / max(1, scale), height: height / max(1, scale)) }
    }

    let display: OpaquePointer
    private var registry: OpaquePointer?
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
        // The globals, then the outputs' first geometry and mode.
        guard wl_display_roundtrip(d) >= 0, wl_display_roundtrip(d) >= 0 else {
            wl_display_disconnect(d)
            throw WaylandError("the Wayland compositor '\(shown)' closed the connection at once")
        }
    }

    deinit {
        for o in outputs { wl_proxy_destroy(o.proxy) }
        if let registry { wl_proxy_destroy(registry) }
        wl_display_disconnect(display)
    }

    /// The compositor's layout: every output's rectangle together.
    var layout: PixelRect? {
        let rects = outputs.map(\.rect).filter { !$0.isEmpty }
        guard let first = rects.first else { return nil }
        return rects.dropFirst().reduce(first) { a, b in
            let x0 = min(a.x, b.x), y0 = min(a.y, b.y)
            return PixelRect(x: x0, y: y0, width: max(a.maxX, b.maxX) - x0, height: max(a.maxY, b.maxY) - y0)
        }
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

    /// A round trip: what was sent is done, and what came is handled. False when lost.
    @discardableResult
    func roundtrip() -> Bool { wl_display_roundtrip(display) >= 0 }

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
                   let proxy = wl_registry_bind(registry, name, withUnsafePointer(to: wl_output_interface) { $0 }, min(version, 2)) {
                    let o = Output(proxy: OpaquePointer(proxy), global: name)
                    me.outputs.append(o)
                    wl_output_add_listener(OpaquePointer(proxy), outputListener, Unmanaged.passUnretained(o).toOpaque())
                }
            },
            global_remove: { data, _, name in
                guard let data else { return }
                let me = Unmanaged<WaylandDisplay>.fromOpaque(data).takeUnretainedValue()
                me.globals.removeAll { $0.name == name }
                if let i = me.outputs.firstIndex(where: { $0.global == name }) {
                    wl_proxy_destroy(me.outputs[i].proxy)
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
            done: { _, _ in },
            scale: { data, _, factor in
                guard let data else { return }
                Unmanaged<Output>.fromOpaque(data).takeUnretainedValue().scale = Int(max(1, factor))
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

#if canImport(Glibc)
import Glibc
#endif
import CWayland
import ScanCore
import ScanHost
import ScreenScene
import WaylandProtocols

/// The compositor's own virtual pointer (wlroots' `zwlr_virtual_pointer_v1`): clicks and the
/// Gestures page's gestures at points of the compositor's layout, for native Wayland windows
/// and XWayland ones alike, without uinput. A connection of its own; any thread (behind a
/// lock). Each action ends with a round trip, so it has reached the compositor on return.
public final class WaylandPointer: @unchecked Sendable {
    private let lock = Lock()
    private let wayland: WaylandDisplay
    private let manager: OpaquePointer
    private let seat: OpaquePointer?
    private let pointer: OpaquePointer
    /// The layout the absolute motions are given in: every output together, as the
    /// compositor said last (outputs come and go).
    public var extent: PixelRect { lock.withLock { layout } }
    private var layout: PixelRect { wayland.layout ?? first }
    /// The layout at the start, kept for a moment without outputs.
    private let first: PixelRect

    public init(display name: String? = nil) throws(WaylandError) {
        let w = try WaylandDisplay(name: name)
        guard let manager = w.bind(cwl_virtual_pointer_manager_interface(), version: 1) else {
            throw WaylandError("the compositor '\(w.name)' offers no virtual pointer (zwlr_virtual_pointer_manager_v1, a wlroots protocol)")
        }
        guard let extent = w.layout else {
            throw WaylandError("the compositor '\(w.name)' has no output to point at")
        }
        let seat = w.bind(cwl_seat_interface(), version: 1)
        guard let pointer = zwlr_virtual_pointer_manager_v1_create_virtual_pointer(manager, seat) else {
            throw WaylandError("the compositor '\(w.name)' made no virtual pointer")
        }
        guard w.roundtrip() else {
            throw WaylandError("the compositor '\(w.name)' refused the virtual pointer: \(w.lostReason ?? "the connection closed")")
        }
        wayland = w
        self.manager = manager
        self.seat = seat
        self.pointer = pointer
        first = extent
    }

    deinit {
        zwlr_virtual_pointer_v1_destroy(pointer)
        zwlr_virtual_pointer_manager_v1_destroy(manager)
        if let seat { wl_proxy_destroy(seat) }
        wayland.roundtrip()
    }

    /// Linux's button codes (linux/input-event-codes.h), as Wayland carries them.
    static let leftButton: UInt32 = 0x110, rightButton: UInt32 = 0x111
    /// How long a long press holds the button, and how many wheel notches a scroll turns
    /// (as the other pointers make them).
    public static let longPressMilliseconds = 800
    public static let wheelNotches = 5

    /// Moves to `p` and clicks the left button; false when the compositor is gone.
    @discardableResult
    public func click(at p: Point) -> Bool {
        lock.withLock {
            move(p)
            button(Self.leftButton, true)
            button(Self.leftButton, false)
            return wayland.roundtrip()
        }
    }

    /// A gesture at `p`: the right button, the left twice, the left held 0.8 s, a drag to
    /// `to` in ten steps, or five notches of a wheel. A long press and a drag take their time
    /// (the calling thread waits).
    @discardableResult
    public func perform(_ gesture: Gesture, at p: Point, to: Point? = nil) -> Bool {
        func pause(_ ms: Int) { usleep(useconds_t(ms * 1000)) }
        switch gesture {
        case .rightClick:
            return lock.withLock { move(p); button(Self.rightButton, true); button(Self.rightButton, false); return wayland.roundtrip() }
        case .doubleClick:
            return lock.withLock {
                move(p)
                for _ in 0..<2 { button(Self.leftButton, true); button(Self.leftButton, false) }
                return wayland.roundtrip()
            }
        case .longPress:
            guard lock.withLock({ move(p); button(Self.leftButton, true); return wayland.roundtrip() }) else { return false }
            pause(Self.longPressMilliseconds)
            return lock.withLock { button(Self.leftButton, false); return wayland.roundtrip() }
        case .drag:
            guard let to, lock.withLock({ move(p); button(Self.leftButton, true); return wayland.roundtrip() }) else { return false }
            var ok = true
            for k in 1...10 where ok {
                pause(k == 1 ? 100 : 20)
                let f = Double(k) / 10
                ok = lock.withLock { move(Point(x: p.x + (to.x - p.x) * f, y: p.y + (to.y - p.y) * f)); return wayland.roundtrip() }
            }
            pause(100)
            return lock.withLock { button(Self.leftButton, false); return wayland.roundtrip() } && ok
        case .scrollUp, .scrollDown, .scrollLeft, .scrollRight:
            // Wayland's axes: 0 vertical (positive down), 1 horizontal (positive right); a
            // wheel notch is 15 units, and a discrete step of 1.
            let vertical = gesture == .scrollUp || gesture == .scrollDown
            let sign: Int32 = gesture == .scrollDown || gesture == .scrollRight ? 1 : -1
            return lock.withLock {
                move(p)
                let axis = UInt32(vertical ? WL_POINTER_AXIS_VERTICAL_SCROLL.rawValue : WL_POINTER_AXIS_HORIZONTAL_SCROLL.rawValue)
                for _ in 0..<Self.wheelNotches {
                    zwlr_virtual_pointer_v1_axis_source(pointer, UInt32(WL_POINTER_AXIS_SOURCE_WHEEL.rawValue))
                    zwlr_virtual_pointer_v1_axis_discrete(pointer, eventTime(), axis, wl_fixed_from_int(15 * sign), sign)
                    zwlr_virtual_pointer_v1_frame(pointer)
                }
                return wayland.roundtrip()
            }
        }
    }

    /// Under the lock.
    private func move(_ p: Point) {
        let extent = layout
        let x = UInt32(max(0, min(Double(extent.width - 1), (p.x - Double(extent.x)).rounded())))
        let y = UInt32(max(0, min(Double(extent.height - 1), (p.y - Double(extent.y)).rounded())))
        zwlr_virtual_pointer_v1_motion_absolute(pointer, eventTime(), x, y, UInt32(extent.width), UInt32(extent.height))
        zwlr_virtual_pointer_v1_frame(pointer)
    }

    private func button(_ code: UInt32, _ down: Bool) {
        zwlr_virtual_pointer_v1_button(pointer, eventTime(), code,
                                       UInt32(down ? WL_POINTER_BUTTON_STATE_PRESSED.rawValue : WL_POINTER_BUTTON_STATE_RELEASED.rawValue))
        zwlr_virtual_pointer_v1_frame(pointer)
    }
}

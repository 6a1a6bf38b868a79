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
public final class WaylandPointer: CompositorPointer, @unchecked Sendable {
    let lock = Lock()
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

    /// How long a long press holds the button, and how many wheel notches a scroll turns
    /// (as the other pointers make them).
    public static let longPressMilliseconds = 800
    public static let wheelNotches = 5

    /// Moves to `p` and clicks the left button; false when the compositor is gone.
    @discardableResult
    public func click(at p: Point) -> Bool { pointerClick(at: p) }

    /// A gesture at `p` (`CompositorPointer`).
    @discardableResult
    public func perform(_ gesture: Gesture, at p: Point, to: Point? = nil) -> Bool { pointerGesture(gesture, at: p, to: to) }

    func flush() -> Bool { wayland.roundtrip() }

    /// Under the lock.
    func move(_ p: Point) {
        let extent = layout
        let x = UInt32(max(0, min(Double(extent.width - 1), (p.x - Double(extent.x)).rounded())))
        let y = UInt32(max(0, min(Double(extent.height - 1), (p.y - Double(extent.y)).rounded())))
        zwlr_virtual_pointer_v1_motion_absolute(pointer, eventTime(), x, y, UInt32(extent.width), UInt32(extent.height))
        zwlr_virtual_pointer_v1_frame(pointer)
    }

    func button(_ code: UInt32, _ down: Bool) {
        zwlr_virtual_pointer_v1_button(pointer, eventTime(), code,
                                       UInt32(down ? WL_POINTER_BUTTON_STATE_PRESSED.rawValue : WL_POINTER_BUTTON_STATE_RELEASED.rawValue))
        zwlr_virtual_pointer_v1_frame(pointer)
    }

    /// Wayland's axes: 0 vertical (positive down), 1 horizontal (positive right); a wheel
    /// notch is 15 units, and a discrete step of 1.
    func scroll(vertical: Bool, sign: Int32) {
        let axis = UInt32(vertical ? WL_POINTER_AXIS_VERTICAL_SCROLL.rawValue : WL_POINTER_AXIS_HORIZONTAL_SCROLL.rawValue)
        zwlr_virtual_pointer_v1_axis_source(pointer, UInt32(WL_POINTER_AXIS_SOURCE_WHEEL.rawValue))
        zwlr_virtual_pointer_v1_axis_discrete(pointer, eventTime(), axis, wl_fixed_from_int(15 * sign), sign)
        zwlr_virtual_pointer_v1_frame(pointer)
    }
}

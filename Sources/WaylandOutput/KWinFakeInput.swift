#if canImport(Glibc)
import Glibc
#endif
import CWayland
import ScanCore
import ScanHost
import ScreenScene
import WaylandProtocols

/// KWin's fake input (`org_kde_kwin_fake_input`): clicks, the Gestures page's gestures and
/// keys, for native Wayland windows and XWayland ones alike. KWin offers it only to a
/// program a .desktop file allows (`X-KDE-Wayland-Interfaces=org_kde_kwin_fake_input`, as
/// the package's switchscan.desktop says). Keys are Linux key codes read through the seat's
/// keymap (`EvdevLayout`): characters that layout lacks cannot be typed this way (the
/// keyboard inserts text through AT-SPI first). A connection of its own; any thread (behind
/// a lock); each action ends with a round trip, so it has reached KWin on return.
public final class KWinFakeInput: CompositorPointer, @unchecked Sendable {
    public static let interface = "org_kde_kwin_fake_input"
    let lock = Lock()
    private let wayland: WaylandDisplay
    private let input: OpaquePointer
    private let layout: EvdevLayout
    /// The version KWin gave: 3 moves to absolute points, 4 presses keys.
    public let version: UInt32
    /// The layout at the start (outputs, for the pointer's limits).
    public var extent: PixelRect { lock.withLock { wayland.layout ?? first } }
    private let first: PixelRect

    public init(display name: String? = nil, layout: EvdevLayout) throws(WaylandError) {
        let w = try WaylandDisplay(name: name)
        guard let g = w.globals.first(where: { $0.interface == Self.interface }) else {
            throw WaylandError(Self.refusal(w.name))
        }
        guard g.version >= 3, let input = w.bind(cwl_fake_input_interface(), version: 4) else {
            throw WaylandError("KWin's fake input is version \(g.version) on '\(w.name)'; SwitchScan needs 3 or later (absolute pointer motion)")
        }
        guard let extent = w.layout else { throw WaylandError("the compositor '\(w.name)' has no output to point at") }
        org_kde_kwin_fake_input_authenticate(input, "SwitchScan", "switch access: clicks and keys for a person who scans with switches")
        guard w.roundtrip() else {
            throw WaylandError("KWin refused its fake input: \(w.lostReason ?? "the connection closed")")
        }
        wayland = w
        self.input = input
        self.layout = layout
        version = min(4, g.version)
        first = extent
    }

    /// What the user is told when KWin does not offer its fake input to this program.
    public static func refusal(_ display: String) -> String {
        "KWin on '\(display)' does not offer its fake input (org_kde_kwin_fake_input) to SwitchScan: KWin gives it only to a program "
            + "whose .desktop file says X-KDE-Wayland-Interfaces=org_kde_kwin_fake_input with Exec= its path (the package installs "
            + "/usr/share/applications/switchscan.desktop for /usr/bin/switchscan; log out and in after installing it)"
    }

    deinit {
        wl_proxy_destroy(input)
        wayland.roundtrip()
    }

    /// Moves to `p` and clicks the left button; false when KWin is gone.
    @discardableResult
    public func click(at p: Point) -> Bool { pointerClick(at: p) }

    /// A gesture at `p`, as `WaylandPointer.perform` makes it.
    @discardableResult
    public func perform(_ gesture: Gesture, at p: Point, to: Point? = nil) -> Bool { pointerGesture(gesture, at: p, to: to) }

    func flush() -> Bool { wayland.roundtrip() }

    /// Under the lock: a point of KWin's layout, kept on it.
    func move(_ p: Point) {
        let e = wayland.layout ?? first
        let x = max(Double(e.x), min(Double(e.x + e.width - 1), p.x.rounded()))
        let y = max(Double(e.y), min(Double(e.y + e.height - 1), p.y.rounded()))
        org_kde_kwin_fake_input_pointer_motion_absolute(input, wl_fixed_from_double(x), wl_fixed_from_double(y))
    }

    func button(_ code: UInt32, _ down: Bool) {
        org_kde_kwin_fake_input_button(input, code, down ? 1 : 0)
    }

    /// As wl_pointer's axes: 0 vertical (positive down), 1 horizontal (positive right); 15
    /// units a wheel notch.
    func scroll(vertical: Bool, sign: Int32) {
        org_kde_kwin_fake_input_axis(input, vertical ? 0 : 1, wl_fixed_from_int(15 * sign))
    }

    // MARK: Keys (version 4)

    /// Whether KWin takes keys from it (version 4).
    public var typesKeys: Bool { version >= 4 }

    /// Types `text` as the layout does; what no key types is left out and returned.
    public func type(_ text: String) -> (ok: Bool, missing: String) {
        guard typesKeys else { return (false, text) }
        let (strokes, missing) = layout.strokes(for: text)
        return (send(strokes) && missing.isEmpty, missing)
    }

    public func deleteBackward(_ count: Int) -> Bool {
        guard let code = layout.named["BackSpace"] else { return false }
        return send(Array(repeating: (code, []), count: max(0, count)))
    }

    public func press(_ chord: KeyChord) -> Bool {
        guard let s = layout.stroke(for: chord) else { return false }
        return send([s])
    }

    @discardableResult
    public func press(_ key: SpecialKey) -> Bool { press(KeyChord(EvdevLayout.keysym(key))) }

    /// Each key down and up with its modifiers held around it, then one round trip.
    private func send(_ strokes: [(code: UInt32, held: [UInt32])]) -> Bool {
        guard typesKeys else { return false }
        return lock.withLock {
            for s in strokes {
                for m in s.held { org_kde_kwin_fake_input_keyboard_key(input, m, 1) }
                org_kde_kwin_fake_input_keyboard_key(input, s.code, 1)
                org_kde_kwin_fake_input_keyboard_key(input, s.code, 0)
                for m in s.held.reversed() { org_kde_kwin_fake_input_keyboard_key(input, m, 0) }
            }
            return wayland.roundtrip()
        }
    }
}

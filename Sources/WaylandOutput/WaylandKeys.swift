#if canImport(Glibc)
import Glibc
#endif
import CSys
import CWayland
import ScanCore
import ScanHost
import WaylandProtocols

/// The compositor's virtual keyboard (`zwp_virtual_keyboard_v1`, offered by wlroots
/// compositors) with a keymap of SwitchScan's own (`VirtualKeymap`): any character can be
/// typed, whatever the user's layout. Made once at the start, so that no first key is lost
/// and windows can be active on a seat that has no other keyboard. A connection of its own;
/// any thread (behind a lock); each batch ends with a round trip.
public final class WaylandKeys: @unchecked Sendable {
    private let lock = Lock()
    private let wayland: WaylandDisplay
    private let manager: OpaquePointer
    private let seat: OpaquePointer
    private let keyboard: OpaquePointer
    private var keymap = VirtualKeymap()   // under `lock`

    public init(display name: String? = nil) throws(WaylandError) {
        let w = try WaylandDisplay(name: name)
        guard let manager = w.bind(cwl_virtual_keyboard_manager_interface(), version: 1) else {
            throw WaylandError("the compositor '\(w.name)' offers no virtual keyboard (zwp_virtual_keyboard_manager_v1)")
        }
        guard let seat = w.bind(cwl_seat_interface(), version: 1) else {
            throw WaylandError("the compositor '\(w.name)' has no seat for a keyboard")
        }
        guard let keyboard = zwp_virtual_keyboard_manager_v1_create_virtual_keyboard(manager, seat) else {
            throw WaylandError("the compositor '\(w.name)' made no virtual keyboard")
        }
        wayland = w
        self.manager = manager
        self.seat = seat
        self.keyboard = keyboard
        guard sendKeymap() else {
            throw WaylandError("the compositor '\(w.name)' refused SwitchScan's keymap: \(w.lostReason ?? "the connection closed")")
        }
    }

    deinit {
        zwp_virtual_keyboard_v1_destroy(keyboard)
        wl_proxy_destroy(manager)
        wl_proxy_destroy(seat)
        wayland.roundtrip()
    }

    /// The keymap through a memory file; under the lock (or in `init`).
    private func sendKeymap() -> Bool {
        let bytes = Array(keymap.text.utf8) + [0]
        let fd = csys_memfd("switchscan-keymap")
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
            guard n > 0 else { return false }
            written += n
        }
        zwp_virtual_keyboard_v1_keymap(keyboard, UInt32(WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1.rawValue), fd, UInt32(bytes.count))
        return wayland.roundtrip()
    }

    /// Types `text`; what no key can type (a character of several code points) is left out
    /// and returned.
    public func type(_ text: String) -> (ok: Bool, missing: String) {
        lock.withLock {
            var missing = ""
            var ok = true
            for c in text {
                guard let (code, changed) = keymap.code(for: c) else { missing.append(c); continue }
                if changed { ok = sendKeymap() && ok }
                tap(code, held: 0)
            }
            return (wayland.roundtrip() && ok && missing.isEmpty, missing)
        }
    }

    /// Presses Backspace `count` times.
    public func deleteBackward(_ count: Int) -> Bool {
        lock.withLock {
            guard let code = keymap.named["BackSpace"] else { return false }
            for _ in 0..<max(0, count) { tap(code, held: 0) }
            return wayland.roundtrip()
        }
    }

    /// A key (a keysym name or one character) with modifiers held: Ctrl+Left, Ctrl+V.
    public func press(_ chord: KeyChord) -> Bool {
        lock.withLock {
            var mask: UInt32 = 0
            for m in chord.modifiers {
                switch m {
                case .control: mask |= VirtualKeymap.modifierMask["Control_L"]!
                case .alt: mask |= VirtualKeymap.modifierMask["Alt_L"]!
                case .shift: mask |= VirtualKeymap.modifierMask["Shift_L"]!
                }
            }
            var code = keymap.named[chord.key]
            if code == nil, chord.key.count == 1, let c = chord.key.first {
                // A letter is pressed as its small letter's key, as a shortcut names it.
                let lower = Character(c.lowercased())
                guard let (k, changed) = keymap.code(for: lower) else { return false }
                if changed && !sendKeymap() { return false }
                code = k
                if c != lower { mask |= VirtualKeymap.modifierMask["Shift_L"]! }
            }
            guard let code else { return false }
            tap(code, held: mask)
            return wayland.roundtrip()
        }
    }

    /// Presses and releases `key`.
    @discardableResult
    public func press(_ key: SpecialKey) -> Bool { press(KeyChord(EvdevLayout.keysym(key))) }

    /// A key down and up, the modifiers in `held` on around it (virtual keyboards carry
    /// their modifiers apart from their keys); under the lock.
    private func tap(_ code: UInt32, held: UInt32) {
        if held != 0 { zwp_virtual_keyboard_v1_modifiers(keyboard, held, 0, 0, 0) }
        zwp_virtual_keyboard_v1_key(keyboard, eventTime(), code, UInt32(WL_KEYBOARD_KEY_STATE_PRESSED.rawValue))
        zwp_virtual_keyboard_v1_key(keyboard, eventTime(), code, UInt32(WL_KEYBOARD_KEY_STATE_RELEASED.rawValue))
        if held != 0 { zwp_virtual_keyboard_v1_modifiers(keyboard, 0, 0, 0, 0) }
    }
}

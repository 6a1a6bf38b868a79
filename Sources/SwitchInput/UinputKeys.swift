#if canImport(Glibc)
import Glibc
#endif
import CEvdev
import ScanCore

/// A virtual keyboard made through uinput, for where no display server injects keys
/// (Wayland, the console): the scanner menu's keys (Escape, Enter, Tab, the arrows) and the
/// typing keyboard's text, editing keys and shortcuts. The compositor or the console reads
/// it like any keyboard and hands the keys to whatever has the focus. A device of its own,
/// so the uinput pointer stays a plain mouse to udev and libinput; `switchscan run` never
/// reads it as a switch.
///
/// It sends key codes, which the compositor turns into characters with the user's keyboard
/// layout: text is typed as on a US layout, so on another layout some characters come out
/// differently, and characters a US keyboard lacks (é, €) cannot be typed this way.
public final class UinputKeys: @unchecked Sendable {
    public static let deviceName = "SwitchScan keys"
    private let device: UinputDevice
    private let codes: [SpecialKey: UInt32]
    private let layout: EvdevLayout

    /// The US layout: unshifted and shifted characters of each key.
    static let usLayout: [(key: String, plain: Character, shifted: Character)] = {
        var rows: [(String, Character, Character)] = []
        for c in "abcdefghijklmnopqrstuvwxyz" { rows.append(("KEY_" + c.uppercased(), c, Character(c.uppercased()))) }
        for (d, s) in zip("1234567890", "!@#$%^&*()") { rows.append(("KEY_\(d)", d, s)) }
        rows += [("KEY_MINUS", "-", "_"), ("KEY_EQUAL", "=", "+"), ("KEY_LEFTBRACE", "[", "{"), ("KEY_RIGHTBRACE", "]", "}"),
                 ("KEY_BACKSLASH", "\\", "|"), ("KEY_SEMICOLON", ";", ":"), ("KEY_APOSTROPHE", "'", "\""), ("KEY_GRAVE", "`", "~"),
                 ("KEY_COMMA", ",", "<"), ("KEY_DOT", ".", ">"), ("KEY_SLASH", "/", "?")]
        return rows
    }()

    static let keyNames: [String: String] = [
        "Left": "KEY_LEFT", "Right": "KEY_RIGHT", "Up": "KEY_UP", "Down": "KEY_DOWN", "Home": "KEY_HOME", "End": "KEY_END",
        "Tab": "KEY_TAB", "Escape": "KEY_ESC", "Return": "KEY_ENTER", "BackSpace": "KEY_BACKSPACE", "Delete": "KEY_DELETE",
        "space": "KEY_SPACE", "Page_Up": "KEY_PAGEUP", "Page_Down": "KEY_PAGEDOWN", "F4": "KEY_F4",
    ]

    /// The US layout's key codes, as libevdev names them.
    public static func us() -> EvdevLayout? {
        func code(_ name: String) -> UInt32? {
            let c = libevdev_event_code_from_name(cevdev_ev_key_type(), name)
            return c >= 0 ? UInt32(c) : nil
        }
        var characters: [Character: EvdevLayout.Stroke] = [:]
        for row in usLayout {
            guard let c = code(row.key) else { continue }
            characters[row.plain] = .init(code: c, shift: false)
            characters[row.shifted] = .init(code: c, shift: true)
        }
        for (ch, name) in [(Character(" "), "KEY_SPACE"), ("\n", "KEY_ENTER"), ("\t", "KEY_TAB")] {
            if let c = code(name) { characters[ch] = .init(code: c, shift: false) }
        }
        var named: [String: UInt32] = [:]
        for (keysym, name) in keyNames { if let c = code(name) { named[keysym] = c } }
        guard let shift = code("KEY_LEFTSHIFT"), let control = code("KEY_LEFTCTRL"), let alt = code("KEY_LEFTALT") else { return nil }
        return EvdevLayout(characters: characters, named: named, shift: shift, control: control, alt: alt)
    }

    public init() throws(InputError) {
        guard let layout = Self.us() else { throw InputError(attempted: "making a uinput keyboard", errno: EINVAL) }
        var codes: [SpecialKey: UInt32] = [:]
        for key in SpecialKey.allCases { codes[key] = layout.named[EvdevLayout.keysym(key)] }
        let all = Set(codes.values).union(layout.characters.values.map(\.code)).union(layout.named.values)
            .union([layout.shift, layout.control, layout.alt])
        device = try UinputDevice(name: Self.deviceName, product: 0x0002, what: "a uinput keyboard",
                                  alternative: "run on X11, where keys go through XTest") { dev in
            for code in all { libevdev_enable_event_code(dev, cevdev_ev_key_type(), code, nil) }
        }
        self.codes = codes
        self.layout = layout
    }

    /// Types `text` as a US keyboard would; what no key types is left out and returned.
    public func type(_ text: String) -> (ok: Bool, missing: String) {
        let (strokes, missing) = layout.strokes(for: text)
        return (send(strokes) && missing.isEmpty, missing)
    }

    /// Presses Backspace `count` times.
    public func deleteBackward(_ count: Int) -> Bool {
        guard let code = layout.named["BackSpace"] else { return false }
        return send(Array(repeating: (code, []), count: max(0, count)))
    }

    /// A key (a keysym name or one character) with modifiers held: Ctrl+Left, Ctrl+V.
    public func press(_ chord: KeyChord) -> Bool {
        guard let s = layout.stroke(for: chord) else { return false }
        return send([s])
    }

    /// Each key down and up with its modifiers around it, one report each, as one batch.
    private func send(_ strokes: [(code: UInt32, held: [UInt32])]) -> Bool {
        guard !strokes.isEmpty else { return true }
        let key = cevdev_ev_key_type(), syn = cevdev_ev_syn(), report = cevdev_syn_report()
        return device.write {
            var events: [UinputDevice.Event] = []
            for s in strokes {
                for m in s.held { events += [(key, m, 1), (syn, report, 0)] }
                events += [(key, s.code, 1), (syn, report, 0), (key, s.code, 0), (syn, report, 0)]
                for m in s.held.reversed() { events += [(key, m, 0), (syn, report, 0)] }
            }
            return events
        }
    }

    /// The device node the kernel gave it (/dev/input/eventN), where known.
    public var node: String? { device.node }

    /// Presses and releases `key`; false if the kernel refused an event.
    @discardableResult
    public func press(_ key: SpecialKey) -> Bool {
        guard let code = codes[key] else { return false }
        let key = cevdev_ev_key_type(), syn = cevdev_ev_syn(), report = cevdev_syn_report()
        let events: [UinputDevice.Event] = [(key, code, 1), (syn, report, 0), (key, code, 0), (syn, report, 0)]
        return device.write { events }
    }
}

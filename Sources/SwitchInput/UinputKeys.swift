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
    /// Each character a US layout types: its key, and whether Shift is held.
    private let characters: [Character: (code: UInt32, shift: Bool)]
    /// Keys named as X keysyms ("Left", "Home", "BackSpace"), for shortcuts.
    private let named: [String: UInt32]
    private let shift, control, alt: UInt32

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

    public init() throws(InputError) {
        var codes: [SpecialKey: UInt32] = [:]
        for key in SpecialKey.allCases {
            let name = switch key {
            case .escape: "KEY_ESC"
            case .enter: "KEY_ENTER"
            case .tab: "KEY_TAB"
            case .up: "KEY_UP"
            case .down: "KEY_DOWN"
            case .left: "KEY_LEFT"
            case .right: "KEY_RIGHT"
            }
            let code = libevdev_event_code_from_name(cevdev_ev_key_type(), name)
            if code >= 0 { codes[key] = UInt32(code) }
        }
        func code(_ name: String) -> UInt32? {
            let c = libevdev_event_code_from_name(cevdev_ev_key_type(), name)
            return c >= 0 ? UInt32(c) : nil
        }
        var characters: [Character: (UInt32, Bool)] = [:]
        for row in Self.usLayout {
            guard let c = code(row.key) else { continue }
            characters[row.plain] = (c, false)
            characters[row.shifted] = (c, true)
        }
        for (ch, name) in [(Character(" "), "KEY_SPACE"), ("\n", "KEY_ENTER"), ("\t", "KEY_TAB")] {
            if let c = code(name) { characters[ch] = (c, false) }
        }
        var named: [String: UInt32] = [:]
        for (keysym, name) in Self.keyNames { if let c = code(name) { named[keysym] = c } }
        guard let shift = code("KEY_LEFTSHIFT"), let control = code("KEY_LEFTCTRL"), let alt = code("KEY_LEFTALT") else {
            throw InputError(attempted: "making a uinput keyboard", errno: EINVAL)
        }
        let all = Set(codes.values).union(characters.values.map(\.0)).union(named.values).union([shift, control, alt])
        device = try UinputDevice(name: Self.deviceName, product: 0x0002, what: "a uinput keyboard",
                                  alternative: "run on X11, where keys go through XTest") { dev in
            for code in all { libevdev_enable_event_code(dev, cevdev_ev_key_type(), code, nil) }
        }
        self.codes = codes
        self.characters = characters
        self.named = named
        (self.shift, self.control, self.alt) = (shift, control, alt)
    }

    /// Types `text` as a US keyboard would; what no key types is left out and returned.
    public func type(_ text: String) -> (ok: Bool, missing: String) {
        var missing = ""
        var strokes: [(UInt32, [UInt32])] = []
        for c in text {
            if let k = characters[c] { strokes.append((k.code, k.shift ? [shift] : [])) } else { missing.append(c) }
        }
        return (send(strokes) && missing.isEmpty, missing)
    }

    /// Presses Backspace `count` times.
    public func deleteBackward(_ count: Int) -> Bool {
        guard let code = named["BackSpace"] else { return false }
        return send(Array(repeating: (code, []), count: max(0, count)))
    }

    /// A key (a keysym name or one character) with modifiers held: Ctrl+Left, Ctrl+V.
    public func press(_ chord: KeyChord) -> Bool {
        var held: [UInt32] = chord.modifiers.map { m in
            switch m { case .control: control; case .alt: alt; case .shift: shift }
        }
        let code: UInt32
        if let c = named[chord.key] {
            code = c
        } else if chord.key.count == 1, let k = characters[Character(chord.key)] {
            code = k.code
            if k.shift && !held.contains(shift) { held.append(shift) }
        } else {
            return false
        }
        return send([(code, held)])
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

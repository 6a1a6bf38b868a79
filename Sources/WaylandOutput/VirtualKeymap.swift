/// The keymap SwitchScan gives the compositor's virtual keyboard: a key of its own for each
/// modifier, each named key (Return, BackSpace, the arrows…), each printable ASCII character,
/// and, as text needs them, any other character (a key whose one keysym is `U` + its code
/// point), so that any character can be typed whatever the user's layout. Pure: characters
/// in, keycodes and the keymap's text out.
struct VirtualKeymap: Equatable {
    /// Keysym names (X11's) and their evdev codes (xkb keycode − 8), fixed.
    private(set) var named: [String: UInt32] = [:]
    /// Characters and their codes.
    private(set) var characters: [Character: UInt32] = [:]
    /// The keysym each code types, in code order (the keymap's symbols).
    private(set) var symbols: [(code: UInt32, keysym: String)] = []
    /// Codes given to characters beyond ASCII, used longest ago first: that one is given again
    /// when none is left.
    private var spareOrder: [UInt32] = []
    private var nextCode: UInt32 = 1
    /// xkb keycodes run to 255: evdev codes to 247.
    static let lastCode: UInt32 = 247

    static let modifiers = ["Shift_L", "Control_L", "Alt_L"]
    /// The real modifiers' bits (Shift, Control, Mod1), as `modifiers` requests carry them.
    static let modifierMask: [String: UInt32] = ["Shift_L": 1, "Control_L": 4, "Alt_L": 8]
    static let keyNames = ["Return", "BackSpace", "Tab", "Escape", "Left", "Right", "Up", "Down", "Home", "End", "Delete",
                           "Page_Up", "Page_Down", "Insert", "space"] + (1...12).map { "F\($0)" }

    init() {
        for name in Self.modifiers + Self.keyNames { named[name] = add(name) }
        for v in 0x21...0x7e {
            let c = Character(Unicode.Scalar(UInt8(v)))
            characters[c] = add(Self.keysym(for: c))
        }
        characters[" "] = named["space"]
        characters["\n"] = named["Return"]
        characters["\t"] = named["Tab"]
    }

    private mutating func add(_ keysym: String) -> UInt32 {
        let code = nextCode
        nextCode += 1
        symbols.append((code, keysym))
        return code
    }

    /// xkb's name for the keysym that types `c`: Unicode's (U + 4 to 6 hex digits), which
    /// xkbcommon takes for any character.
    static func keysym(for c: Character) -> String {
        guard c.unicodeScalars.count == 1, let v = c.unicodeScalars.first?.value else { return "NoSymbol" }
        let hex = String(v, radix: 16, uppercase: true)
        return "U" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// The code that types `c`, giving it one (and so changing the keymap) when it has none.
    /// `changed` says whether the keymap must be sent again. Nil for a character of more than
    /// one code point (an emoji with a modifier), which no one keysym types, and for a control
    /// character.
    mutating func code(for c: Character) -> (code: UInt32, changed: Bool)? {
        if c == "\r\n" { return characters["\n"].map { ($0, false) } }
        if let code = characters[c] {
            // Used now: the last to be given again.
            if let i = spareOrder.firstIndex(of: code) { spareOrder.append(spareOrder.remove(at: i)) }
            return (code, false)
        }
        // One code point, and one that types something (no control character but the
        // newline and the tab, which have keys).
        guard c.unicodeScalars.count == 1, let v = c.unicodeScalars.first?.value, v >= 0x20, !(0x7f...0x9f).contains(v) else { return nil }
        let keysym = Self.keysym(for: c)
        if nextCode <= Self.lastCode {
            let code = add(keysym)
            characters[c] = code
            spareOrder.append(code)
            return (code, true)
        }
        // Every code is taken: the one used longest ago types this now.
        let code = spareOrder.removeFirst()
        spareOrder.append(code)
        characters = characters.filter { $0.value != code }
        characters[c] = code
        if let i = symbols.firstIndex(where: { $0.code == code }) { symbols[i].keysym = keysym }
        return (code, true)
    }

    /// The keymap in xkb's text format (XKB_KEYMAP_FORMAT_TEXT_V1), with the types and the
    /// compatibility map of the compositor's own xkb data ("complete").
    var text: String {
        var out = "xkb_keymap {\nxkb_keycodes \"switchscan\" {\n    minimum = 8;\n    maximum = \(Self.lastCode + 8);\n"
        for s in symbols { out += "    <K\(s.code)> = \(s.code + 8);\n" }
        out += "};\nxkb_types \"switchscan\" { include \"complete\" };\nxkb_compatibility \"switchscan\" { include \"complete\" };\n"
        out += "xkb_symbols \"switchscan\" {\n"
        for s in symbols { out += "    key <K\(s.code)> { [ \(s.keysym) ] };\n" }
        for (name, mod) in [("Shift_L", "Shift"), ("Control_L", "Control"), ("Alt_L", "Mod1")] {
            if let code = named[name] { out += "    modifier_map \(mod) { <K\(code)> };\n" }
        }
        out += "};\n};\n"
        return out
    }

    static func == (a: VirtualKeymap, b: VirtualKeymap) -> Bool { a.text == b.text }
}

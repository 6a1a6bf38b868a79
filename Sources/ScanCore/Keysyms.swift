/// X keysyms, the numbers keyboards speak in X11 and in Mutter's remote desktop: the named
/// keys of shortcuts and the keyboard, and the keysym that types a character.
public enum Keysyms {
    /// A key named as an X keysym ("Return", "Page_Up", "F4", "Control_L"); nil for a name
    /// it does not know.
    public static func value(named name: String) -> UInt32? {
        if let v = named[name] { return v }
        if name.hasPrefix("F"), let n = UInt32(name.dropFirst()), (1...24).contains(n) { return 0xffbd + n }
        if name.unicodeScalars.count == 1, let s = name.unicodeScalars.first { return value(of: s) }
        return nil
    }

    /// The keysym that types a character: Latin-1 as itself, the rest as Unicode keysyms.
    public static func value(of scalar: Unicode.Scalar) -> UInt32 {
        switch scalar.value {
        case 0x0a, 0x0d: return 0xff0d   // Return
        case 0x09: return 0xff09         // Tab
        case 0x08: return 0xff08         // BackSpace
        case 0x20...0x7e, 0xa0...0xff: return scalar.value
        default: return 0x0100_0000 | scalar.value
        }
    }

    /// The modifiers' left keys.
    public static func value(of m: KeyChord.Modifier) -> UInt32 {
        switch m {
        case .control: 0xffe3
        case .alt: 0xffe9
        case .shift: 0xffe1
        }
    }

    static let named: [String: UInt32] = [
        "Return": 0xff0d, "BackSpace": 0xff08, "Tab": 0xff09, "Escape": 0xff1b, "Delete": 0xffff, "Insert": 0xff63,
        "Home": 0xff50, "Left": 0xff51, "Up": 0xff52, "Right": 0xff53, "Down": 0xff54, "Page_Up": 0xff55, "Page_Down": 0xff56,
        "End": 0xff57, "space": 0x20, "Shift_L": 0xffe1, "Control_L": 0xffe3, "Alt_L": 0xffe9, "Super_L": 0xffeb,
    ]
}

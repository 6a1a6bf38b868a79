/// Linux key codes (linux/input-event-codes.h) for typing as a US keyboard does: what a
/// device that sends key codes (uinput, KWin's fake input) presses. The compositor or the
/// console turns them into characters with the user's layout, so on another layout some
/// characters come out differently, and characters a US keyboard lacks cannot be typed.
public struct EvdevLayout: Sendable {
    /// Each character a US layout types: its key, and whether Shift is held.
    public var characters: [Character: Stroke]
    /// Keys named as X keysyms ("Left", "Home", "BackSpace"), for shortcuts.
    public var named: [String: UInt32]
    public var shift: UInt32, control: UInt32, alt: UInt32

    public struct Stroke: Hashable, Sendable {
        public var code: UInt32
        public var shift: Bool
        public init(code: UInt32, shift: Bool) { self.code = code; self.shift = shift }
    }

    /// The keys typed for `text` (each its code and the modifiers held around it), and what
    /// no key types.
    public func strokes(for text: String) -> (strokes: [(code: UInt32, held: [UInt32])], missing: String) {
        var out: [(UInt32, [UInt32])] = []
        var missing = ""
        for c in text {
            if let k = characters[c] { out.append((k.code, k.shift ? [shift] : [])) } else { missing.append(c) }
        }
        return (out, missing)
    }

    /// The key and modifiers of a chord (a keysym name or one character): Ctrl+Left, Ctrl+V.
    public func stroke(for chord: KeyChord) -> (code: UInt32, held: [UInt32])? {
        var held: [UInt32] = chord.modifiers.map { m in
            switch m { case .control: control; case .alt: alt; case .shift: shift }
        }
        if let c = named[chord.key] { return (c, held) }
        guard chord.key.count == 1, let k = characters[Character(chord.key)] else { return nil }
        if k.shift && !held.contains(shift) { held.append(shift) }
        return (k.code, held)
    }

    /// The keysym name each special key is pressed as.
    public static func keysym(_ key: SpecialKey) -> String {
        switch key {
        case .escape: "Escape"
        case .enter: "Return"
        case .tab: "Tab"
        case .up: "Up"
        case .down: "Down"
        case .left: "Left"
        case .right: "Right"
        }
    }

    public init(characters: [Character: Stroke], named: [String: UInt32], shift: UInt32, control: UInt32, alt: UInt32) {
        self.characters = characters; self.named = named; self.shift = shift; self.control = control; self.alt = alt
    }
}

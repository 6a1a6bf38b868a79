/// Text from outside (an application's names, a layout's labels, a device's name, a word
/// list) made safe to print on a terminal: control characters cannot move the cursor, clear
/// the screen, set the title or ring the bell, and bidi overrides cannot reorder what is
/// printed after them. Control characters are shown as their Unicode pictures (ESC as ␛,
/// a line feed as ␊); C1 controls and bidi formatting characters as �.
public enum TerminalText {
    public static func visible(_ text: String, keepingNewlines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsReplacing($0) && !(keepingNewlines && $0 == "\n") }) else { return text }
        var out = String.UnicodeScalarView()
        for u in text.unicodeScalars {
            if keepingNewlines && u == "\n" { out.append(u); continue }
            out.append(needsReplacing(u) ? picture(u) : u)
        }
        return String(out)
    }

    /// One cell of a drawing: the character itself, or its picture.
    public static func visible(_ ch: Character) -> Character {
        guard ch.unicodeScalars.contains(where: needsReplacing) else { return ch }
        return Character(picture(ch.unicodeScalars.first(where: needsReplacing)!))
    }

    /// Whether `u` is one of the characters shown by their pictures.
    public static func needsReplacing(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        // Line and paragraph separators; bidi marks, embeddings, overrides and isolates.
        case 0x2028, 0x2029, 0x200E, 0x200F, 0x061C, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    static func picture(_ u: Unicode.Scalar) -> Unicode.Scalar {
        switch u.value {
        case 0x00...0x1F: return Unicode.Scalar(0x2400 + u.value)!
        case 0x7F: return "\u{2421}"
        case 0x2028, 0x2029: return "\u{2424}"
        default: return "\u{FFFD}"
        }
    }
}

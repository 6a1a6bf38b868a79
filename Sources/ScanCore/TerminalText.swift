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

    /// At most `limit` characters of a text from outside, for a message, with "…" where it
    /// is cut. A character counts by its scalars too (at most `2 × limit` of them are kept):
    /// one letter with thousands of combining marks is cut like a long word, so no message
    /// grows with what it quotes.
    public static func excerpt<S: StringProtocol>(_ text: S, limit: Int = 80) -> String {
        var out = String.UnicodeScalarView()
        var characters = 0, scalars = 0
        for ch in text {
            guard characters < limit else { return String(out) + "…" }
            for u in ch.unicodeScalars {
                guard scalars < 2 * limit else { return String(out) + "…" }
                out.append(u)
                scalars += 1
            }
            characters += 1
        }
        return String(out)
    }

    /// An excerpt of `text` around its character at `offset` (0-based), "…" where cut on
    /// either side: the place a message points at is in view however long the text.
    public static func excerpt(_ text: String, around offset: Int, limit: Int = 40) -> String {
        let skip = max(0, offset - limit / 2)
        guard skip > 0 else { return excerpt(text, limit: limit) }
        return "…" + excerpt(text.dropFirst(skip), limit: limit)
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

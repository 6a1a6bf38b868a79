import ScanCore

/// What a key of the scanning keyboard does.
public enum KeyAction: Hashable, Sendable {
    /// Types a letter (in the current case) or a symbol.
    case character(Character)
    case space
    case backspace
    /// Deletes the word before the caret (and the spaces after it).
    case deleteWord
    case enter
    /// One capital; selected again, no capital.
    case shift
    case capsLock
    case page(KeyboardPage)
    case hide
    /// The n-th word of the prediction row (0-based).
    case prediction(Int)
    /// Keys with modifiers, in turn (the editing page: caret moves, selection, clipboard).
    case chords([KeyChord])
    /// Held for the next key only (Ctrl, Alt): Ctrl then S sends Ctrl+S.
    case modifier(KeyChord.Modifier)
}

public enum KeyboardPage: String, Hashable, Sendable {
    case letters, symbols, edit
}

/// A key as the layout defines it: its id, its action, and the label it has when no state
/// changes it (letters are shown in the case they would type).
struct KeySpec: Hashable, Sendable {
    var id: String
    var action: KeyAction
    var label: String
}

/// The keyboard's rows, page by page: which keys, in which rows. A row is one group of
/// the scan, the block a person sees. Letters are static (predictable: a user learns where
/// each one is); only the prediction row changes.
public struct KeyboardLayout: Sendable {
    public let name: KeyboardLayoutName
    /// The letter page's rows (letters, space and common punctuation), then its controls.
    let letterRows: [[KeySpec]]
    let symbolRows: [[KeySpec]]
    let editRows: [[KeySpec]]

    public init(_ name: KeyboardLayoutName) {
        self.name = name
        let letters = name.letterRows
        letterRows = letters.map { $0.map { Self.key($0) } } + [Self.controls(space: !letters.joined().contains(" "), page: .letters)]
        symbolRows = ["1234567890", ".,?!'\"-:;", "()/@&+=#%*", "_$€£éèàçñü"].map { $0.map { Self.key($0) } }
            + [Self.controls(space: true, page: .symbols)]
        func chord(_ id: String, _ label: String, _ chords: KeyChord...) -> KeySpec { KeySpec(id: id, action: .chords(chords), label: label) }
        // The caret moves, selections and shortcuts GTK, Qt and browsers share.
        editRows = [
            [chord("left", "←", .init("Left")), chord("right", "→", .init("Right")),
             chord("wordLeft", "Word ←", .init("Left", [.control])), chord("wordRight", "Word →", .init("Right", [.control])),
             chord("lineStart", "Line start", .init("Home")), chord("lineEnd", "Line end", .init("End"))],
            [chord("selectWord", "Select word", .init("Left", [.control]), .init("Right", [.control, .shift])),
             chord("selectAll", "Select all", .init("a", [.control])), chord("cut", "Cut", .init("x", [.control])),
             chord("copy", "Copy", .init("c", [.control])), chord("paste", "Paste", .init("v", [.control])),
             chord("undo", "Undo", .init("z", [.control]))],
            [KeySpec(id: "control", action: .modifier(.control), label: "Ctrl"), KeySpec(id: "alt", action: .modifier(.alt), label: "Alt"),
             chord("tab", "Tab", .init("Tab")), chord("escape", "Escape", .init("Escape")),
             chord("up", "↑", .init("Up")), chord("down", "↓", .init("Down"))],
            Self.controls(space: true, page: .edit),
        ]
    }

    /// The last row: editing keys, the other page, and Hide.
    static func controls(space: Bool, page: KeyboardPage) -> [KeySpec] {
        var row: [KeySpec] = []
        if space { row.append(key(" ")) }
        row.append(KeySpec(id: "backspace", action: .backspace, label: "Backspace"))
        row.append(KeySpec(id: "deleteWord", action: .deleteWord, label: "Delete word"))
        row.append(KeySpec(id: "enter", action: .enter, label: "Enter"))
        if page == .letters {
            row.append(KeySpec(id: "shift", action: .shift, label: "Shift"))
            row.append(KeySpec(id: "capsLock", action: .capsLock, label: "Caps lock"))
            row.append(KeySpec(id: "symbols", action: .page(.symbols), label: "123"))
            row.append(KeySpec(id: "edit", action: .page(.edit), label: "Edit"))
        } else {
            row.append(KeySpec(id: "letters", action: .page(.letters), label: "ABC"))
        }
        row.append(KeySpec(id: "hide", action: .hide, label: "Hide"))
        return row
    }

    static func key(_ c: Character) -> KeySpec {
        c == " " ? KeySpec(id: "space", action: .space, label: "space")
            : KeySpec(id: "key_" + keyName(c), action: .character(c), label: String(c))
    }

    /// A key id's readable part: the letter or digit itself, else the character's name.
    static func keyName(_ c: Character) -> String {
        if c.isASCII && (c.isLetter || c.isNumber) { return String(c) }
        let names: [Character: String] = [
            ".": "period", ",": "comma", "?": "question", "!": "exclamation", "'": "apostrophe", "\"": "quote",
            "-": "hyphen", ":": "colon", ";": "semicolon", "(": "openParenthesis", ")": "closeParenthesis",
            "/": "slash", "@": "at", "&": "ampersand", "+": "plus", "=": "equals", "#": "hash", "%": "percent",
            "*": "asterisk", "_": "underscore", "$": "dollar", "€": "euro", "£": "pound", "é": "eAcute",
            "è": "eGrave", "à": "aGrave", "ç": "cCedilla", "ñ": "nTilde", "ü": "uDiaeresis",
        ]
        if let name = names[c] { return name }
        return c.unicodeScalars.map { "u" + String($0.value, radix: 16) }.joined()
    }

    func rows(_ page: KeyboardPage) -> [[KeySpec]] {
        switch page {
        case .letters: return letterRows
        case .symbols: return symbolRows
        case .edit: return editRows
        }
    }

    /// The page and key that type `c` (letters in either case), on `page` if it has one;
    /// nil if no key does.
    public func key(typing c: Character, preferring page: KeyboardPage = .letters) -> (page: KeyboardPage, id: String)? {
        let wanted: KeyAction = c == " " ? .space : c == "\n" ? .enter : .character(Character(c.lowercased()))
        for page in page == .letters ? [KeyboardPage.letters, .symbols] : [.symbols, .letters] {
            for row in rows(page) { for k in row where k.action == wanted { return (page, k.id) } }
        }
        return nil
    }
}

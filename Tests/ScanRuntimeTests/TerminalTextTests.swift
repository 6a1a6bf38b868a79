import ScanCore
import JSONTape
import ScanRuntime
import Testing

/// Names from outside are shown on a terminal, never obeyed by it.
@Suite("Text from outside on a terminal")
struct TerminalTextTests {
    @Test func controlCodesAreShownAsTheirPictures() {
        // A title-setting OSC, a bell, a screen clear, a newline forging a row.
        #expect(TerminalText.visible("A\u{1B}]0;pwned\u{07}B") == "A␛]0;pwned␇B")
        #expect(TerminalText.visible("\u{1B}[2Jgone") == "␛[2Jgone")
        #expect(TerminalText.visible("one\ntwo\r") == "one␊two␍")
        #expect(TerminalText.visible("one\ntwo", keepingNewlines: true) == "one\ntwo")
        #expect(TerminalText.visible("x\u{7F}y\u{9B}2J") == "x␡y\u{FFFD}2J", "DEL, and CSI as one C1 code")
        #expect(TerminalText.visible("a\u{2028}b") == "a␤b")
        #expect(TerminalText.visible("plain text, é, 日本, 🙂") == "plain text, é, 日本, 🙂")
    }

    /// An excerpt is bounded in characters and in scalars, whatever it quotes.
    @Test func excerptsAreShortInCharactersAndScalars() {
        #expect(TerminalText.excerpt("short") == "short")
        #expect(TerminalText.excerpt(String(repeating: "x", count: 80)) == String(repeating: "x", count: 80))
        #expect(TerminalText.excerpt(String(repeating: "x", count: 81)) == String(repeating: "x", count: 80) + "…")
        let zalgo = "a" + String(repeating: "\u{301}", count: 20_000) + "b"
        let cut = TerminalText.excerpt(zalgo, limit: 40)
        #expect(cut.unicodeScalars.count == 81 && cut.hasSuffix("…"), "\(cut.unicodeScalars.count) scalars")
        #expect(TerminalText.excerpt("0123456789abcdefghij", around: 15, limit: 6) == "…cdefgh…")
        #expect(TerminalText.excerpt("0123456789", around: 2, limit: 6) == "012345…")
        #expect(TerminalText.excerpt("0123456789", around: 9, limit: 6) == "…6789")
    }

    @Test func bidiOverridesCannotReorderWhatFollows() {
        #expect(TerminalText.visible("invoice\u{202E}fdp.exe") == "invoice\u{FFFD}fdp.exe")
        for u: UInt32 in [0x200E, 0x200F, 0x061C, 0x202A, 0x202B, 0x202C, 0x202D, 0x2066, 0x2067, 0x2068, 0x2069] {
            let s = "a" + String(Unicode.Scalar(u)!) + "b"
            #expect(TerminalText.visible(s) == "a\u{FFFD}b", "U+\(String(u, radix: 16))")
        }
    }

    @Test func oneCellOfADrawing() {
        #expect(TerminalText.visible(Character("\u{1B}")) == "␛")
        #expect(TerminalText.visible(Character("é")) == "é")
        #expect(TerminalText.visible(Character("\u{202E}")) == "\u{FFFD}")
    }

    @Test func jsonEscapesWhatATerminalOrAScriptWouldTakeAsCode() {
        #expect(jsonString("a\u{2028}b\u{2029}c") == #""a\u2028b\u2029c""#)
        #expect(jsonString("x\u{7F}\u{9B}y") == #""x\u007f\u009by""#)
        #expect(jsonString("\u{202E}\u{2066}") == #""\u202e\u2066""#)
        #expect(jsonString("\u{1B}]0;t\u{07}") == #""\u001b]0;t\u0007""#)
        #expect(jsonString("é 日本 🙂") == "\"é 日本 🙂\"")
    }
}

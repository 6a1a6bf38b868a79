import Foundation
import Testing

/// Typing into a real GTK 3 application: selecting a text field opens the scanning
/// keyboard, and what its keys type arrives in the field, as the application itself logs
/// and as AT-SPI reads it back.
@Suite("Live typing", .serialized, .timeLimit(.minutes(2)))
struct LiveTypingTests {
    /// Drives the keyboard: each key reached through its row, as a switch user does.
    struct Keys {
        let scan: ScanDriver
        /// The rows of the keys these tests use (the frequency layout, Sources/Typing).
        static let rows: [String: String] = [
            "key_e": "row1", "key_t": "row1", "key_o": "row1", "key_n": "row1", "key_i": "row2", "key_s": "row2",
            "key_h": "row3", "space": "row3", "key_period": "row3",
            "backspace": "row6", "enter": "row6", "symbols": "row6", "edit": "row6", "hide": "row6",
            // The editing page (its letters key is on row 4).
            "lineStart": "row1", "tab": "row3", "selectWord": "row2", "control": "row3",
            "prediction1": "predictions",
            // The symbols page.
            "key_eAcute": "row4", "letters": "row5",
        ]

        /// Selects the key (entering its row first); the effect line it expects after it.
        @discardableResult
        func press(_ id: String, row: String? = nil, expecting what: String, where predicate: @escaping (EffectLine) -> Bool) throws -> EffectLine {
            let row = row ?? Self.rows[id]!
            for attempt in 1...2 {
                try scan.go(toItem: row)
                let entered = try scan.select(expecting: "the row entered") { $0.effect == "enterGroup" }
                if entered.fields["group"] as? String == row { break }
                if attempt == 2 { throw DesktopError("pressed on \(row), entered \(entered)") }
                // The predictions for the text came just as the row was pressed, and the scan
                // had started over at them (as a person would see it): out again, and on.
                try scan.leaveGroup()
            }
            try scan.go(toItem: id)
            let line = try scan.select(expecting: what, where: predicate)
            scan.settle(0.1)
            return line
        }

        /// Ctrl and a letter from the Edit page, as a switch user sends Ctrl+S: Ctrl is drawn
        /// held until the letter. The count of lines seen before the letter's.
        @discardableResult
        func control(_ letter: String) throws -> Int {
            try press("edit", expecting: "the edit page") { $0.effect == "keyboard" }
            try press("control", row: "row3", expecting: "Ctrl drawn held") { line in
                line.effect == "keyboard" && ((line.fields["keys"] as? [[String: Any]]) ?? []).contains { $0["id"] as? String == "control" && $0["held"] as? Bool == true }
            }
            try press("letters", row: "row4", expecting: "the letters again") { $0.effect == "keyboard" }
            let mark = scan.seen.count
            try press("key_\(letter)", expecting: "Ctrl+\(letter.uppercased())") { $0.effect == "shortcut" }
            return mark
        }

        /// In a secret keyboard, whose highlights name no key: selects the key by its place,
        /// counted from the keys the keyboard listed when it opened or last changed (its row,
        /// then its place in the row), scanning from the first row as after every key.
        @discardableResult
        func pressByPlace(_ id: String, expecting what: String, where predicate: @escaping (EffectLine) -> Bool) throws -> EffectLine {
            let keys = (scan.seen.last { $0.effect == "keyboard" }?.fields["keys"] as? [[String: Any]]) ?? []
            let placed = keys.compactMap { k -> (id: String, top: Double)? in
                guard let id = k["id"] as? String, let frame = k["frame"] as? [NSNumber], frame.count == 4 else { return nil }
                return (id, frame[1].doubleValue)
            }
            let rows = Array(Set(placed.map(\.top))).sorted()
            guard let key = placed.first(where: { $0.id == id }), let row = rows.firstIndex(of: key.top) else {
                throw DesktopError("no key \(id) in the keyboard listed: \(placed.map(\.id))")
            }
            let column = placed.filter { $0.top == key.top }.firstIndex { $0.id == id }!
            try scan.step(row)
            try scan.select(expecting: "the row entered") { $0.effect == "enterGroup" }
            try scan.step(column)
            let line = try scan.select(expecting: what, where: predicate)
            scan.settle(0.1)
            return line
        }

        /// Waits until the open keyboard predicts from the language's words (read on another
        /// thread: in a debug build under load they can come after the keyboard opens, and
        /// the prediction row then grows under the cursor).
        func waitForTheLanguagesWords(since mark: Int) throws {
            try scan.find(since: mark, "predictions from the language's words", timeout: 30) { e in
                e.effect == "keyboard"
                    && ((e.fields["keys"] as? [[String: Any]]) ?? []).filter { ($0["id"] as? String)?.hasPrefix("prediction") == true }.count >= 3
            }
            scan.settle(0.1)
        }
    }

    @Test func aTextFieldOpensTheKeyboardAndWhatItTypesArrives() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture(args: ["--typing"])
        let scan = try ScanDriver(session, ["--app", fixture.applicationName])
        defer { scan.stop() }
        try scan.go(to: "Message")
        let field = scan.current
        let opening = scan.seen.count
        let opened = try scan.select(expecting: "the keyboard") { $0.effect == "keyboard" }
        let keys = Keys(scan: scan)
        try keys.waitForTheLanguagesWords(since: opening)
        // The panel does not cover the field.
        let fieldFrame = field?.frame ?? []
        let keyTops = (opened.fields["keys"] as? [[String: Any]] ?? []).compactMap { ($0["frame"] as? [NSNumber])?[1].doubleValue }
        #expect(fieldFrame.count == 4 && keyTops.allSatisfy { $0 >= fieldFrame[1] + fieldFrame[3] }, "\(fieldFrame) \(keyTops.min() ?? -1)")

        // Letter by letter, inserted through AT-SPI (GTK 3 confirms it): the application
        // sees no key for them. A one-line field: no capital at its start.
        try keys.press("key_h", expecting: "h typed") { $0.effect == "typeText" && $0.text == "h" }
        try fixture.waitForLine(matching: "text Message: h")
        try keys.press("key_i", expecting: "i typed") { $0.effect == "typeText" && $0.text == "i" }
        try fixture.waitForLine(matching: "text Message: hi")
        try keys.press("space", expecting: "a space") { $0.effect == "typeText" && $0.text == " " }
        try fixture.waitForLine(matching: "text Message: hi ")
        #expect(!fixture.lines.contains { $0.hasPrefix("key ") }, "letters are inserted, not keys: \(fixture.lines)")
        // Backspace is a key; the letter chosen after it is inserted once it has arrived
        // (never "hi s").
        try keys.press("backspace", expecting: "a character deleted") { $0.effect == "deleteText" }
        try keys.press("key_s", expecting: "s typed") { $0.effect == "typeText" && $0.text == "s" }
        try fixture.waitForLine(matching: "key BackSpace")
        try fixture.waitForLine(matching: "text Message: hi")
        try fixture.waitForLine(matching: "text Message: his")
        try keys.press("backspace", expecting: "a character deleted") { $0.effect == "deleteText" }
        try fixture.waitForLine(matching: "text Message: hi")
        // A character the US keymap lacks, inserted as it is.
        try keys.press("symbols", expecting: "the symbols page") { $0.effect == "keyboard" }
        try keys.press("key_eAcute", expecting: "é typed") { $0.effect == "typeText" && $0.text == "é" }
        try fixture.waitForLine(matching: "text Message: hié")
        // Read back through AT-SPI.
        let read = try session.atspiQuery(["text", fixture.applicationName, "text", "Message"])
        #expect(read.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "\"hi\\u00e9\"", "\(read)")
        try keys.press("letters", expecting: "the letters again") { $0.effect == "keyboard" }
        // The Edit page: the caret to the start of the line, and a letter typed there.
        try keys.press("edit", expecting: "the edit page") { $0.effect == "keyboard" }
        try keys.press("lineStart", expecting: "Home") { $0.effect == "shortcut" && $0.fields["key"] as? String == "Home" }
        try keys.press("letters", row: "row4", expecting: "the letters again") { $0.effect == "keyboard" }
        try keys.press("key_t", expecting: "t typed") { $0.effect == "typeText" }
        try fixture.waitForLine(matching: "text Message: thié")
        try keys.press("backspace", expecting: "it deleted") { $0.effect == "deleteText" }
        try fixture.waitForLine(matching: "text Message: hié")
        // Enter is a key.
        try keys.press("enter", expecting: "Enter") { $0.effect == "key" && $0.fields["key"] as? String == "enter" }
        try fixture.waitForLine(matching: "key Return")
        // The word ended by the space is learned, in the user's words file.
        let wordsFile = URL(fileURLWithPath: session.environment["XDG_DATA_HOME"]!).appendingPathComponent("switchscan/words.txt")
        var learned = ""
        for _ in 0..<50 where !learned.contains("\n1 hi\n") {
            learned = (try? String(contentsOf: wordsFile, encoding: .utf8)) ?? ""
            scan.settle(0.05)
        }
        #expect(learned.contains("\n1 hi\n"), "the words file holds \(learned)")
        // Text typed by other means: the keyboard reads the field and predicts from it.
        let typedElsewhere = scan.seen.count
        _ = try session.runX(.xdotool, ["type", "--delay", "20", " wh"])
        let predicted = try scan.find(since: typedElsewhere, "predictions for what the field holds") { line in
            let words = (line.fields["keys"] as? [[String: Any]] ?? []).filter { ($0["id"] as? String)?.hasPrefix("prediction") == true }
            return line.effect == "keyboard" && !words.isEmpty && words.allSatisfy { ($0["label"] as? String)?.lowercased().hasPrefix("wh") == true }
        }
        #expect(predicted.effect == "keyboard")
        // Hide: back to the window, at the field.
        let mark = scan.seen.count
        try keys.press("hide", expecting: "the keyboard closed") { $0.effect == "keyboardClose" }
        let closed = scan.seen[mark...].lastIndex { $0.effect == "keyboardClose" } ?? mark
        let back = try scan.find(since: closed, "the field highlighted again") { $0.effect == "highlight" && $0.kind == "element" }
        #expect(back.label?.hasPrefix("Message, ") == true && back.label?.contains("hié") == true, "\(back)")
    }

    /// Tab on the Edit page moves the focus to the password field: the keyboard, which was
    /// typing into the message and learning from it, closes rather than type there unseen.
    @Test func theKeyboardClosesWhenTheFocusLeavesItsField() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture(args: ["--typing"])
        let scan = try ScanDriver(session, ["--app", fixture.applicationName])
        defer { scan.stop() }
        try scan.go(to: "Message")
        try scan.select(expecting: "the keyboard") { $0.effect == "keyboard" }
        let keys = Keys(scan: scan)
        try keys.press("edit", expecting: "the edit page") { $0.effect == "keyboard" }
        let mark = scan.seen.count
        try keys.press("tab", expecting: "Tab sent") { $0.effect == "shortcut" && $0.fields["key"] as? String == "Tab" }
        try scan.find(since: mark, "the keyboard closed", timeout: 5) { $0.effect == "keyboardClose" }
        try scan.find(since: mark, "the window scanned again") { $0.effect == "highlight" && $0.kind == "element" && $0.label?.hasPrefix("Message") == true }
    }

    @Test func aPasswordFieldIsTypedIntoButNothingIsShownPredictedOrLearned() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture(args: ["--typing"])
        let scan = try ScanDriver(session, ["--app", fixture.applicationName])
        defer { scan.stop() }
        try scan.go(to: "Password")
        let opened = try scan.select(expecting: "the keyboard") { $0.effect == "keyboard" }
        let ids = (opened.fields["keys"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(!ids.contains { $0.hasPrefix("prediction") }, "no predictions in a password field")
        let keys = Keys(scan: scan)
        // Shift: the capitals on the screen are not in the stream, which prints the keys again
        // only when they print differently.
        let mark = scan.seen.count
        try keys.pressByPlace("shift", expecting: "Shift") { $0.effect == "activate" }
        #expect(!scan.seen[mark...].contains { $0.effect == "keyboard" }, "the keys did not change in the stream")
        let typed = try keys.pressByPlace("key_e", expecting: "a secret character") { $0.effect == "typeText" }
        #expect(typed.fields["secret"] as? Bool == true && typed.text == "•", "\(typed)")
        try keys.pressByPlace("key_t", expecting: "another") { $0.effect == "typeText" }
        try keys.pressByPlace("space", expecting: "a space") { $0.effect == "typeText" }
        try fixture.waitForLine(matching: "key E")
        try fixture.waitForLine(matching: "text Password: Et ")
        try keys.pressByPlace("symbols", expecting: "the symbols page") { $0.effect == "keyboard" }
        try keys.pressByPlace("key_eAcute", expecting: "é typed") { $0.effect == "typeText" }
        try fixture.waitForLine(matching: "text Password: Et é")
        #expect(!scan.seen.contains { $0.effect == "learnWord" || ($0.effect == "announce" && $0.text == "Et") }, "nothing learned or said")
        // The stream names no key of it, nor its letters: only that keys were chosen.
        let whileOpen = scan.seen.drop { $0.effect != "keyboard" }
        #expect(!whileOpen.contains { ($0.effect == "highlight" || $0.effect == "activate") && ($0.raw.contains("key_") || $0.raw.contains("\"E\"")) },
                "\(whileOpen.filter { $0.effect != "keyboard" }.map(\.raw).prefix(12))")
        #expect(whileOpen.contains { $0.effect == "activate" && $0.fields["element"] as? String == "key" && $0.fields["secret"] as? Bool == true })
        let wordsFile = URL(fileURLWithPath: session.environment["XDG_DATA_HOME"]!).appendingPathComponent("switchscan/words.txt")
        #expect(!FileManager.default.fileExists(atPath: wordsFile.path), "no words file from a password field")
    }
}

extension LiveTypingTests {
    /// Mousepad, a GTK 3 editor from Debian: a sentence with a full stop and a new line,
    /// then a file name in its Save As dialog.
    @Test func mousepadGetsASentenceAndTheSaveDialogAFileName() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        _ = try session.launchApplication("/usr/bin/mousepad", ["--disable-server"], applicationName: "mousepad",
                                          title: "Untitled 1 - Mousepad",
                                          extraEnvironment: ["XDG_CONFIG_HOME": session.directory.path, "XDG_DATA_HOME": session.directory.path])
        _ = try session.waitForApplication(named: "mousepad", timeout: 15)
        // Its editor takes text through AT-SPI insert, each after the keys sent before it (the
        // benchmark leaves the editor empty).
        let bench = try session.runSwitchscan(["switchscan-bench", "typing", "--desktop", "--app", "mousepad", "--repeats", "20"], timeout: 60)
        #expect(bench.stdout.contains("Text inserted → in the application") && bench.stdout.contains("in order 20 of 20"), "\(bench)")
        let scan = try ScanDriver(session, ["--app", "mousepad"])
        defer { scan.stop() }
        try scan.go(to: "text", limit: 80)
        let editor = scan.current?.frame ?? []
        let opening = scan.seen.count
        let opened = try scan.select(expecting: "the keyboard") { $0.effect == "keyboard" }
        let tops = (opened.fields["keys"] as? [[String: Any]] ?? []).compactMap { ($0["frame"] as? [NSNumber])?.map(\.doubleValue) }
        #expect(editor.count == 4 && tops.allSatisfy { $0[1] + $0[3] <= editor[1] + 0.5 || $0[1] >= editor[1] + editor[3] - 0.5 },
                "the keyboard is clear of the editor \(editor)")
        let keys = Keys(scan: scan)
        try keys.waitForTheLanguagesWords(since: opening)
        try keys.press("key_h", expecting: "H") { $0.effect == "typeText" && $0.text == "H" }
        try keys.press("key_i", expecting: "i") { $0.effect == "typeText" && $0.text == "i" }
        let mark = scan.seen.count
        try keys.press("key_period", expecting: "a full stop and a space") { $0.effect == "typeText" && $0.text == ". " }
        let after = scan.seen[mark...].last { $0.effect == "keyboard" }
        let e = (after?.fields["keys"] as? [[String: Any]])?.first { $0["id"] as? String == "key_e" }
        #expect(e?["label"] as? String == "E", "a capital after a full stop")
        try keys.press("enter", expecting: "Enter") { $0.effect == "key" }
        let typedT = scan.seen.count
        try keys.press("key_t", expecting: "T") { $0.effect == "typeText" && $0.text == "T" }
        // The first prediction completes the word, with a space. The language's words are
        // read on another thread (seconds, in a debug build under load): the open keyboard
        // shows their predictions once they are in.
        func firstPrediction(_ e: EffectLine) -> String {
            (e.fields["keys"] as? [[String: Any]])?.first { $0["id"] as? String == "prediction1" }?["label"] as? String ?? ""
        }
        let shown = try scan.find(since: typedT, "a prediction for T", timeout: 30) {
            $0.effect == "keyboard" && firstPrediction($0).count > 1 && firstPrediction($0).hasPrefix("T")
        }
        let word = firstPrediction(shown)
        try keys.press("prediction1", expecting: "the rest of the word") { $0.effect == "typeText" && $0.text == String(word.dropFirst()) + " " }
        let expected = "\"Hi. \\n\(word) \""
        var text = ""
        for _ in 0..<50 {
            text = try session.atspiQuery(["text", "mousepad", "text", ""]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            if text == expected { break }
            scan.settle(0.1)
        }
        #expect(text == expected, "mousepad holds \(text)")
        try keys.press("hide", expecting: "the keyboard closed") { $0.effect == "keyboardClose" }

        // Save As: the dialog's file name field.
        try session.key("ctrl+s")
        try scan.next("the Save As dialog", timeout: 10) { $0.effect == "announce" && ($0.text ?? "").contains("Save") }
        try scan.go(to: "File Chooser Widget", limit: 80)
        try scan.select(expecting: "into the file chooser") { $0.effect == "enterGroup" }
        try scan.go(to: "Name:", limit: 80)
        try scan.select(expecting: "the keyboard") { $0.effect == "keyboard" }
        try keys.press("key_n", expecting: "n") { $0.effect == "typeText" }
        try keys.press("key_o", expecting: "o") { $0.effect == "typeText" }
        try keys.press("key_t", expecting: "t") { $0.effect == "typeText" }
        try keys.press("key_e", expecting: "e") { $0.effect == "typeText" }
        var name = ""
        for _ in 0..<50 {
            name = try session.atspiQuery(["focused-text", "mousepad"]).stdout
            if name.lowercased().contains("note") { break }
            scan.settle(0.1)
        }
        #expect(name.lowercased().contains("note"), "the file name field holds \(name)")
    }
}

extension LiveTypingTests {
    /// `switchscan-bench typing --desktop` against the fixture: the latencies of typing into a real
    /// application (printed for docs/TYPING.md; speed is not asserted here).
    @Test func theTypingBenchmarkMeasuresARealField() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture(args: ["--typing"])
        let bench = try session.runSwitchscan(["switchscan-bench", "typing", "--desktop", "--app", fixture.applicationName, "--repeats", "100"], timeout: 60)
        #expect(bench.status == 0, "\(bench)")
        #expect(bench.stdout.contains("Key selected → its text") && bench.stdout.contains("(100 of 100)"), "\(bench)")
        // GTK 3 inserts, and each insert waited for the Backspaces sent before it.
        #expect(bench.stdout.contains("in order 100 of 100"), "\(bench)")
        print(bench.stdout)
    }
}

/// A word processor's document body is a field: LibreOffice Writer (GTK 3), whose body
/// selected opens the keyboard at once, whose text is what the keys typed, and where a word
/// is made bold from the keyboard alone (the Edit page's Select word, then Ctrl and b).
@Suite("Live typing: a word processor", .serialized, .timeLimit(.minutes(5)))
struct WordProcessorTypingTests {
    /// Writer started and scanned, its Tip of the Day closed, and the keyboard opened on its
    /// document's body (one element, a text field, in the document's pane: selected, the
    /// keyboard opens at once). The body's highlight is returned.
    static func writersBodyWithTheKeyboard(_ session: DesktopSession) throws -> (app: String, scan: ScanDriver, body: EffectLine) {
        let app = try TaskTests.startWriter(session)
        let scan = try ScanDriver(session, ["--app", app])
        try scan.go(to: "OK", limit: 80)
        let mark = scan.seen.count
        try scan.choose("Tap")
        try scan.find(since: mark, "the document's window", timeout: 20) { $0.effect == "announce" && ($0.text ?? "").contains("Writer") }
        try scan.go(to: "Untitled 1 - LibreOffice Writer", limit: 80)
        try scan.select(expecting: "into the document's pane") { $0.effect == "enterGroup" }
        try scan.go(to: "Untitled 1 - LibreOffice Document", limit: 80)
        let body = try #require(scan.current)
        try scan.select(expecting: "the keyboard") { $0.effect == "keyboard" }
        return (app, scan, body)
    }

    @Test func writersDocumentIsAFieldTheKeyboardTypesInto() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let (app, scan, document) = try Self.writersBodyWithTheKeyboard(session)
        defer { scan.stop() }
        #expect(document.kind == "element" && (document.frame?[2] ?? 0) > 600, "\(document)")
        let keys = LiveTypingTests.Keys(scan: scan)
        try keys.press("key_h", expecting: "H") { $0.effect == "typeText" && $0.text == "H" }
        try keys.press("key_i", expecting: "i") { $0.effect == "typeText" && $0.text == "i" }
        var text = ""
        for _ in 0..<50 {
            text = try session.atspiQuery(["focused-text", app]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            if text == "\"Hi\"" { break }
            scan.settle(0.1)
        }
        #expect(text == "\"Hi\"", "the paragraph holds \(text)")

        // The word made bold from the keyboard: Edit > Select word, then Ctrl, the letters
        // page and b (the trial's Ctrl+B), read back as the text's weight.
        try keys.press("space", expecting: "a space") { $0.effect == "typeText" && $0.text == " " }
        try keys.press("key_i", expecting: "i") { $0.effect == "typeText" && $0.text == "i" }
        try keys.press("key_t", expecting: "t") { $0.effect == "typeText" && $0.text == "t" }
        try keys.press("edit", expecting: "the edit page") { $0.effect == "keyboard" }
        try keys.press("selectWord", expecting: "the word selected") {
            $0.effect == "shortcut" && $0.fields["key"] as? String == "Right" && ($0.fields["modifiers"] as? [String] ?? []).contains("shift")
        }
        try keys.press("control", expecting: "Ctrl held for the next key") { $0.effect == "highlight" }
        try keys.press("letters", row: "row4", expecting: "the letters again") { $0.effect == "keyboard" }
        try keys.pressByPlace("key_b", expecting: "Ctrl+B") { $0.effect == "shortcut" && $0.fields["key"] as? String == "b" && $0.fields["modifiers"] as? [String] == ["control"] }
        var runs: [[String]] = []
        for _ in 0..<50 {
            let out = try session.atspiQuery(["focused-weights", app]).stdout
            runs = (try? JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String]]) ?? []
            if runs.count == 2 { break }
            scan.settle(0.1)
        }
        let weights = Dictionary(runs.map { ($0[0], Int($0[1]) ?? 0) }, uniquingKeysWith: { a, _ in a })
        #expect(runs.count == 2 && (weights["it"] ?? 0) > 400 && (weights["Hi "] ?? 1000) <= 400, "the runs of weight: \(runs)")
    }
}

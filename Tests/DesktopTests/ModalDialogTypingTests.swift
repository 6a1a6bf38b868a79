import Foundation
import Testing
import TestSupport

/// Typing into a dialog that runs a modal loop (GTK 3's gtk_dialog_run: mousepad's file
/// choosers; LibreOffice Writer's Save dialog), opened by a menu item's action as a switch
/// user opens it, by a button's, and by a shortcut.
/// The application must go on answering, and the file must be saved under the name typed.
@Suite("Typing into modal dialogs", .serialized, .timeLimit(.minutes(5)))
struct ModalDialogTypingTests {
    /// Mousepad on a document holding "Hi", with a scanner on it.
    static func mousepad(_ session: DesktopSession) throws -> ScanDriver {
        _ = try session.launchApplication("/usr/bin/mousepad", ["--disable-server"], applicationName: "mousepad",
                                          title: "Untitled 1 - Mousepad",
                                          extraEnvironment: ["XDG_CONFIG_HOME": session.directory.path, "XDG_DATA_HOME": session.directory.path],
                                          in: session.directory.appendingPathComponent("home"))
        _ = try session.waitForApplication(named: "mousepad", timeout: 15)
        // Read back: keys typed before the text view has the focus are lost (typed again then).
        var text = ""
        for attempt in 0..<40 {
            if attempt == 0 || (attempt == 20 && text != "\"H\"") { try session.key("H", "i") }
            let read = try session.atspiQuery(["text", "mousepad", "text", ""])
            text = read.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            if text == "\"Hi\"" { break }
            // Each read is a round trip to mousepad through the bus: no pause of its own.
            if text.isEmpty { text = "nothing read: \(read.stderr)" }
        }
        #expect(text == "\"Hi\"", "mousepad holds \(text)")
        return try ScanDriver(session, ["--app", "mousepad"])
    }

    /// Opens a File menu entry by its action, through the menu bar, as a switch user does.
    static func fileMenu(_ scan: ScanDriver, _ entry: String, title: String) throws {
        let mark = try scan.tapMenuEntry(entry, of: "File", first: "New", bar: "File, Edit, Search and 3 more")
        try scan.find(since: mark, "the \(title) dialog", timeout: 10) { $0.effect == "announce" && ($0.text ?? "").contains(title) }
    }

    /// In the Save As dialog: its Name field (a file name's: no capital), "noten" typed, a
    /// Backspace, Enter. Mousepad saves the document as "note".
    static func typeTheName(_ scan: ScanDriver) throws {
        try scan.go(to: "File Chooser Widget", limit: 80)
        try scan.select(expecting: "into the file chooser") { $0.effect == "enterGroup" }
        try scan.go(to: "Name:", limit: 80)
        let name = scan.current?.frame ?? []
        let opened = try scan.select(expecting: "the keyboard") { $0.effect == "keyboard" }
        // Clear of the field typed into.
        let tops = (opened.fields["keys"] as? [[String: Any]] ?? []).compactMap { ($0["frame"] as? [NSNumber])?.map(\.doubleValue) }
        #expect(name.count == 4 && tops.allSatisfy { $0[1] + $0[3] <= name[1] + 0.5 || $0[1] >= name[1] + name[3] - 0.5 },
                "the keyboard is clear of the Name field \(name)")
        let keys = LiveTypingTests.Keys(scan: scan)
        for letter in ["n", "o", "t", "e"] {
            try keys.press("key_\(letter)", expecting: letter) { $0.effect == "typeText" && $0.text == letter }
        }
        try keys.press("key_n", expecting: "a letter too many") { $0.effect == "typeText" && $0.text == "n" }
        try keys.press("backspace", expecting: "Backspace") { $0.effect == "deleteText" || $0.effect == "key" }
        try keys.press("enter", expecting: "Enter") { $0.effect == "key" }
    }

    /// The document saved in the session's home (where mousepad runs) under the name typed,
    /// holding what was in the editor; mousepad still answers.
    static func expectSaved(_ session: DesktopSession, _ scan: ScanDriver) throws {
        let home = session.directory.appendingPathComponent("home")
        var found: URL?
        for _ in 0..<100 {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: home.path)) ?? []
            if names.contains("note") { found = home.appendingPathComponent("note"); break }
            scan.settle(0.1)
        }
        let file = try #require(found, "no file named note in \(home.path): \((try? FileManager.default.contentsOfDirectory(atPath: home.path)) ?? [])")
        #expect((try? String(contentsOf: file, encoding: .utf8))?.hasPrefix("Hi") == true)
        let apps = try session.atspiQuery(["apps"], timeout: 10)
        #expect(apps.stdout.contains("mousepad"), "mousepad answers: \(apps)")
    }

    /// File > Save As… by its menu item's action: the name typed with the keyboard's letters,
    /// a Backspace and Enter reach the dialog, and the file is saved.
    @Test func saveAsByItsMenuItemTakesANameAndSaves() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let scan = try Self.mousepad(session)
        defer { scan.stop() }
        try Self.fileMenu(scan, "Save As...", title: "Save As")
        try Self.typeTheName(scan)
        try Self.expectSaved(session, scan)
    }

    /// The same dialog opened by Ctrl+S while the keyboard types into the editor: the
    /// keyboard closes (it would cover the dialog and type into it unseen); the Name field
    /// opens one clear of it; the same name, the same file.
    @Test func saveAsByItsShortcutTakesANameAndSaves() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let scan = try Self.mousepad(session)
        defer { scan.stop() }
        try scan.go(to: "text", limit: 80)
        try scan.select(expecting: "the keyboard") { $0.effect == "keyboard" }
        // Ctrl+S from the keyboard's Edit page, as a switch user sends it.
        let mark = try LiveTypingTests.Keys(scan: scan).control("s")
        try scan.find(since: mark, "the keyboard closed", timeout: 10) { $0.effect == "keyboardClose" }
        try scan.find(since: mark, "the Save As dialog", timeout: 10) { $0.effect == "announce" && ($0.text ?? "").contains("Save") }
        try Self.typeTheName(scan)
        try Self.expectSaved(session, scan)
    }
}
extension ModalDialogTypingTests {
    /// File > Open… by its menu item's action: in the home folder, a name typed with the
    /// keyboard (opened from an element's menu: the dialog has no field until a key starts
    /// one) and Enter; the file opens in mousepad.
    @Test func openByItsMenuItemTakesANameAndOpens() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let home = session.directory.appendingPathComponent("home")
        try "from disk\n".write(to: home.appendingPathComponent("note"), atomically: true, encoding: .utf8)
        let scan = try Self.mousepad(session)
        defer { scan.stop() }
        try Self.fileMenu(scan, "Open...", title: "Open")
        // The home folder, from the places: a key typed in a folder starts a location.
        try scan.go(to: "File Chooser Widget", limit: 80)
        try scan.select(expecting: "into the file chooser") { $0.effect == "enterGroup" }
        try scan.go(to: "Recent files, Open your personal folder, Open the contents of your desktop in a folder and 1 more", limit: 80)
        try scan.select(expecting: "into the places") { $0.effect == "enterGroup" }
        try scan.go(to: "Open your personal folder")
        try scan.choose("Tap")
        // The keyboard, from the Cancel button's menu.
        try scan.go(to: "Cancel", limit: 80)
        try scan.select(expecting: "the element's menu") { $0.effect == "menuOpen" }
        try scan.next("its first entry") { $0.effect == "highlight" && $0.kind == "menuEntry" }
        try scan.go(to: "Settings and more")
        try scan.select(expecting: "the screen menu") { $0.effect == "menuOpen" }
        try scan.next("its first entry") { $0.effect == "highlight" && $0.kind == "menuEntry" }
        try scan.go(to: "Keyboard")
        let opening = scan.seen.count
        try scan.select(expecting: "the keyboard") { $0.effect == "keyboard" }
        // Keys go to whatever has the focus in the dialog: the keyboard shows none of them.
        let keys = LiveTypingTests.Keys(scan: scan)
        try keys.waitForTheLanguagesWords(since: opening)
        // By place, from the keys as last listed: the predictions row comes and goes as they
        // are made, on another thread, so each key waits for the listing to settle.
        func press(_ id: String, _ what: String, where predicate: @escaping (EffectLine) -> Bool) throws {
            scan.settle(0.5)
            try keys.pressByPlace(id, expecting: what, where: predicate)
        }
        // (No Backspace here: after one the scan stays on its row, for the next, and places
        // counted from the first row would be off.)
        for letter in ["n", "o", "t", "e"] {
            try press("key_\(letter)", letter) { $0.effect == "typeText" && $0.text == "•" }
        }
        try press("enter", "Enter") { $0.effect == "key" }
        var title = ""
        for _ in 0..<100 {
            title = try session.activeWindowTitle()
            if title.hasSuffix("note - Mousepad") { break }
            scan.settle(0.1)
        }
        // Mousepad titles a file's window with its path.
        #expect(title.hasSuffix("/home/note - Mousepad"), "the window is \(title)")
        let apps = try session.atspiQuery(["apps"], timeout: 10)
        #expect(apps.stdout.contains("mousepad"), "mousepad answers: \(apps)")
    }
}

extension ModalDialogTypingTests {
    /// A button whose action runs gtk_dialog_run (the fixture's Run Dialog): the dialog's
    /// field takes letters, a Backspace and more letters; the dialog's Yes still acts.
    @Test func aDialogRunByAButtonsActionTakesTyping() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture(args: ["--menus", "--dialog-entry"])
        let scan = try ScanDriver(session, ["--app", fixture.applicationName])
        defer { scan.stop() }
        try scan.go(to: "Run Dialog")
        let mark = scan.seen.count
        let before = Self.sockets(of: scan.process.pid)
        try scan.choose("Tap")
        try fixture.waitForLine(matching: "run open")
        try scan.find(since: mark, "the Question dialog", timeout: 10) { $0.effect == "announce" && ($0.text ?? "").contains("Question") }
        // The action's connection is kept open while the dialog runs.
        scan.settle(1.5)
        #expect(Self.sockets(of: scan.process.pid) == before + 1, "sockets: \(before) before")
        try scan.go(to: "Answer", limit: 80)
        try scan.select(expecting: "the keyboard") { $0.effect == "keyboard" }
        let keys = LiveTypingTests.Keys(scan: scan)
        try keys.press("key_n", expecting: "n") { $0.effect == "typeText" }
        try keys.press("key_o", expecting: "o") { $0.effect == "typeText" }
        try fixture.waitForLine(matching: "text Answer: no")
        try keys.press("backspace", expecting: "Backspace") { $0.effect == "deleteText" || $0.effect == "key" }
        try fixture.waitForLine(matching: "text Answer: n", timeout: 10)
        try keys.press("key_e", expecting: "e") { $0.effect == "typeText" }
        try fixture.waitForLine(matching: "text Answer: ne", timeout: 10)
        try keys.press("hide", expecting: "the keyboard closed") { $0.effect == "keyboardClose" }
        try scan.go(to: "Yes", limit: 80)
        try scan.choose("Tap")
        try fixture.waitForLine(matching: "run closed Yes", timeout: 10)
        // Once the dialog is gone, the connections of both actions are closed.
        var now = 0
        for _ in 0..<50 {
            now = Self.sockets(of: scan.process.pid)
            if now == before { break }
            scan.settle(0.1)
        }
        #expect(now == before, "sockets: \(before) before, \(now) after")
    }

    /// How many sockets process `pid` has open.
    static func sockets(of pid: Int32) -> Int {
        let dir = "/proc/\(pid)/fd"
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter {
            ((try? FileManager.default.destinationOfSymbolicLink(atPath: dir + "/" + $0)) ?? "").hasPrefix("socket:")
        }.count
    }
}

extension ModalDialogTypingTests {
    /// The scanner ends while a dialog its action opened still runs: the application must
    /// not hang at the next key.
    @Test func endingTheScannerWhileTheDialogRunsLeavesTheApplicationAnswering() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture(args: ["--menus", "--dialog-entry"])
        let scan = try ScanDriver(session, ["--app", fixture.applicationName])
        try scan.go(to: "Run Dialog")
        try scan.choose("Tap")
        try fixture.waitForLine(matching: "run open")
        _ = scan.process.terminate()
        #expect(!scan.process.isRunning)
        // The keys go to the dialog once the window manager has given it the focus ("run
        // open" comes as it is shown; under load it is focused later).
        #expect(try TestTime.poll(timeout: 10, every: 0.1) { try session.activeWindowTitle() == "Question" },
                "the dialog never had the focus: \((try? session.activeWindowTitle()) ?? "?")")
        try session.key("Tab")
        try session.key("x")
        let apps = try session.atspiQuery(["apps"], timeout: 10)
        #expect(apps.stdout.contains(fixture.applicationName), "the application answers: \(apps)")
        try session.key("Escape")
        try fixture.waitForLine(matching: "run closed delete", timeout: 10)
    }
}

extension ModalDialogTypingTests {
    /// An application that stops answering while it is typed into (the fixture, stopped
    /// with SIGSTOP): said once; what is chosen meanwhile is neither sent nor said as typed;
    /// once it answers again that is said, and typing goes on.
    @Test func anApplicationThatStopsAnsweringIsSaidOnceAndNotTypedInto() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture(args: ["--typing"])
        let scan = try ScanDriver(session, ["--app", fixture.applicationName])
        defer { scan.stop() }
        try scan.go(to: "Message")
        try scan.select(expecting: "the keyboard") { $0.effect == "keyboard" }
        let keys = LiveTypingTests.Keys(scan: scan)
        try keys.press("key_h", expecting: "h") { $0.effect == "typeText" && $0.text == "h" }
        try fixture.waitForLine(matching: "text Message: h")

        kill(fixture.pid, SIGSTOP)
        var stopped = true
        defer { if stopped { kill(fixture.pid, SIGCONT) } }
        // The key chosen as it stops is sent (the display keeps it for the application).
        try keys.press("key_i", expecting: "i") { $0.effect == "typeText" && $0.text == "i" }
        try scan.find(since: 0, "the application said not to answer", timeout: 10) {
            $0.effect == "announce" && $0.text == "'\(fixture.applicationName)' does not answer: typing stopped. Nothing more is sent to it until it answers again."
        }
        // Chosen while it does not answer: not sent, not said, not learned.
        let mark = scan.seen.count
        try keys.press("key_e", expecting: "e") { $0.effect == "typeText" }
        try keys.press("space", expecting: "a space") { $0.effect == "typeText" }
        scan.settle(0.5)
        #expect(!scan.seen[mark...].contains { $0.effect == "announce" || $0.effect == "learnWord" }, "\(scan.seen[mark...].map(\.raw))")
        #expect(scan.seen.filter { ($0.text ?? "").contains("typing stopped") }.count == 1, "said once")

        kill(fixture.pid, SIGCONT)
        stopped = false
        let resumed = scan.seen.count
        try scan.find(since: resumed, "the application said to answer again", timeout: 10) {
            $0.effect == "announce" && $0.text == "'\(fixture.applicationName)' answers again: select the field to go on typing."
        }
        // The keyboard closes: what it took for typed meanwhile never arrived.
        try scan.find(since: resumed, "the keyboard closed") { $0.effect == "keyboardClose" }
        try fixture.waitForLine(matching: "text Message: hi", timeout: 10)
        try fixture.expectNoLine(matching: "text Message: hie", within: 1)
        // A new keyboard types again.
        scan.settle(0.5)
        try scan.go(to: "Message")
        try scan.select(expecting: "the keyboard") { $0.effect == "keyboard" }
        try keys.press("key_o", expecting: "o") { $0.effect == "typeText" && $0.text == "o" }
        // (GTK selects an entry's text when it takes the focus: the letter may replace it.)
        try fixture.waitForLine(timeout: 10) { $0.hasPrefix("text Message: ") && $0.hasSuffix("o") }
    }
}

extension ModalDialogTypingTests {
    /// LibreOffice Writer (its GTK 3 plugin, over atk-bridge as GTK 3 is): File > Save As…
    /// by its menu item's action; the name typed with the keyboard and Enter; the document
    /// saved under it, and Writer still answers.
    @Test func writersSaveAsByItsMenuItemTakesANameAndSaves() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        // A letter in the document, so that there is something to save.
        let (app, scan, _) = try WordProcessorTypingTests.writersBodyWithTheKeyboard(session)
        defer { scan.stop() }
        let keys = LiveTypingTests.Keys(scan: scan)
        try keys.press("key_h", expecting: "H") { $0.effect == "typeText" && $0.text == "H" }
        try keys.press("hide", expecting: "the keyboard closed") { $0.effect == "keyboardClose" }
        scan.settle(0.3)
        try scan.process.send("\u{1b}")   // Esc: out of the document's pane
        try scan.next("out of the pane") { $0.effect == "exitGroup" }
        // Writer opens the File menu with its New submenu's list open too: the File menu is
        // the one scanned, the one the person opened.
        let opened = try scan.tapMenuEntry("Save As...", of: "File", first: "New", bar: "File, Edit, View and 8 more")
        try scan.find(since: opened, "the Save dialog", timeout: 20) { $0.effect == "announce" && ($0.text ?? "").hasPrefix("Save") }
        try Self.typeTheName(scan)
        try Self.expectWriterSaved(session, scan, app)
    }

    /// The same dialog opened by Ctrl+S from the keyboard while it types into the document:
    /// the keyboard closes as the dialog takes the focus; the same name, the same file.
    @Test func writersSaveByItsShortcutTakesANameAndSaves() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let (app, scan, _) = try WordProcessorTypingTests.writersBodyWithTheKeyboard(session)
        defer { scan.stop() }
        let keys = LiveTypingTests.Keys(scan: scan)
        try keys.press("key_h", expecting: "H") { $0.effect == "typeText" && $0.text == "H" }
        let mark = try keys.control("s")
        try scan.find(since: mark, "the keyboard closed", timeout: 20) { $0.effect == "keyboardClose" }
        try scan.find(since: mark, "the Save dialog", timeout: 20) { $0.effect == "announce" && ($0.text ?? "").hasPrefix("Save") }
        try Self.typeTheName(scan)
        try Self.expectWriterSaved(session, scan, app)
    }

    /// Saved with the format's extension, in the folder the dialog opened on; Writer still
    /// answers (its document's text is read).
    static func expectWriterSaved(_ session: DesktopSession, _ scan: ScanDriver, _ app: String) throws {
        var found: String?
        for _ in 0..<150 where found == nil {
            found = FileManager.default.enumerator(atPath: session.directory.path)?.compactMap { $0 as? String }.first { $0.hasSuffix("/note.odt") || $0 == "note.odt" }
            scan.settle(0.1)
        }
        #expect(found != nil, "no note.odt under \(session.directory.path)")
        let text = try session.atspiQuery(["focused-text", app], timeout: 10)
        #expect(text.status == 0, "Writer answers: \(text)")
    }
}

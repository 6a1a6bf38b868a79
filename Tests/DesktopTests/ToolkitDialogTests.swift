import Foundation
import Testing
import TestSupport

/// Typing into a modal dialog of GTK 4 and of Qt 5 (`Fixtures/dialogs.py`), opened as a switch
/// user opens it: by a menu item's action, by a button's and by Ctrl+S from the keyboard. Qt's dialog runs a modal loop
/// nested in the action's call, as its file dialogs do; GTK 4's is a modal window. The name
/// typed with the keyboard (letters, a Backspace, Enter) reaches the dialog, which saves, and
/// the application still answers.
@Suite("Typing into modal dialogs: GTK 4 and Qt", .serialized, .timeLimit(.minutes(3)))
struct ToolkitDialogTests {
    enum Toolkit: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case gtk4, qt
        var testDescription: String { self == .gtk4 ? "GTK 4" : "Qt 5" }
        /// Qt 5 publishes nothing on the accessibility bus without a screen reader running
        /// unless told to.
        var environment: [String: String] { self == .qt ? ["QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1"] : [:] }
    }

    enum Way: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case menuItem, button, shortcut
        var testDescription: String {
            switch self {
            case .menuItem: "File > Save As... by its menu item"
            case .button: "the Save As... button"
            case .shortcut: "Ctrl+S from the keyboard"
            }
        }
    }

    static let script = DesktopSession.fixturesDirectory.appendingPathComponent("dialogs.py")

    @Test(arguments: Toolkit.allCases, Way.allCases)
    func aNameTypedIntoTheDialogIsSaved(_ toolkit: Toolkit, _ way: Way) throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let name = "dialogs-\(toolkit.rawValue)"
        let app = try session.launchApplication(DesktopTool.python3.path, [Self.script.path, "--toolkit", toolkit.rawValue, "--app-name", name],
                                                applicationName: name, title: toolkit == .gtk4 ? "Dialogs (GTK 4)" : "Dialogs (Qt)",
                                                extraEnvironment: toolkit.environment)
        try app.waitForLine(matching: "ready", timeout: 15)
        _ = try session.waitForApplication(named: name, timeout: 15)
        let scan = try ScanDriver(session, ["--app", name])
        defer { scan.stop() }

        let opening = scan.seen.count
        switch way {
        case .menuItem:
            try scan.go(to: "File", limit: 80)
            let mark = scan.seen.count
            try scan.choose("Tap")
            try scan.find(since: mark, "the File menu scanned", timeout: 10) { $0.effect == "highlight" && $0.label == "Save As..." }
            try scan.choose("Tap")
        case .button:
            try scan.go(to: "Save As...", limit: 80)
            try scan.choose("Tap")
        case .shortcut:
            // Typing into the document, Ctrl+S from the keyboard's Edit page: the keyboard
            // closes as the dialog takes the focus.
            try scan.go(to: "Document", limit: 80)
            try scan.select(expecting: "the keyboard") { $0.effect == "keyboard" }
            let mark = try LiveTypingTests.Keys(scan: scan).control("s")
            try scan.find(since: mark, "the keyboard closed", timeout: 10) { $0.effect == "keyboardClose" }
        }
        try app.waitForLine(matching: "dialog open", timeout: 10)
        try scan.find(since: opening, "the dialog announced", timeout: 10) { $0.effect == "announce" && ($0.text ?? "").contains("Save As") }
        // As a person would, once the dialog has settled: its field has the focus (GTK 4's
        // menu hands it back to its window as it closes, a moment before the dialog takes it).
        #expect(try TestTime.poll(timeout: 10, every: 0.1) { try session.atspiQuery(["focused-text", name], timeout: 5).status == 0 },
                "the dialog's field never had the focus")

        // GTK 4's field is named by its label, Qt's by its accessible name.
        try scan.go(to: toolkit == .gtk4 ? "Name:" : "Name", limit: 80)
        try scan.select(expecting: "the keyboard") { $0.effect == "keyboard" }
        let keys = LiveTypingTests.Keys(scan: scan)
        for letter in ["n", "o", "t", "e", "n"] {
            try keys.press("key_\(letter)", expecting: letter) { $0.effect == "typeText" && $0.text?.lowercased() == letter }
        }
        try app.waitForLine(timeout: 10) { $0.lowercased() == "text noten" }
        try keys.press("backspace", expecting: "Backspace") { $0.effect == "deleteText" || $0.effect == "key" }
        try app.waitForLine(timeout: 10) { $0.lowercased() == "text note" }
        try keys.press("enter", expecting: "Enter") { $0.effect == "key" }
        try app.waitForLine(timeout: 10) { $0.lowercased() == "saved note" }
        // The application answers after its dialog closed.
        let apps = try session.atspiQuery(["apps"], timeout: 10)
        #expect(apps.stdout.contains(name), "\(name) answers: \(apps)")
    }
}

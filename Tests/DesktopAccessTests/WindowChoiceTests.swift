@testable import DesktopAccess
import ScanCore
import Testing

/// Which window is scanned (docs/DESKTOP.md, "Which window is scanned").
@Suite struct WindowChoiceTests {
    typealias Candidate = DesktopFollower.Candidate

    static func window(_ title: String, active: Bool = false, modal: Bool = false) -> DesktopWindow {
        DesktopWindow(id: title, title: title, role: modal ? "dialog" : "frame", active: active, modal: modal, frame: nil)
    }

    static func app(_ name: String, _ windows: [DesktopWindow], popup: String? = nil) -> Candidate {
        Candidate(name: name, windows: windows.map { ($0, $0.title == popup) })
    }

    static func chosen(_ apps: [Candidate], app: String? = nil) -> String? {
        DesktopFollower.chooseWindow(apps, app: app).map { apps[$0.app].windows[$0.window].info.title }
    }

    @Test func anOpenMenuComesFirstThenTheActiveWindow() {
        let editor = Self.app("editor", [Self.window("Doc", active: true)])
        let menu = Self.app("files", [Self.window("Files"), Self.window("menu")], popup: "menu")
        #expect(Self.chosen([editor, menu]) == "menu")
        #expect(DesktopFollower.chooseWindow([editor, menu], app: nil)?.reason == "a menu is open")
        #expect(Self.chosen([editor, Self.app("files", [Self.window("Files")])]) == "Doc")
        // A modal dialog in front of its window is the active one.
        let withDialog = Self.app("editor", [Self.window("Doc"), Self.window("Save?", active: true, modal: true)])
        #expect(Self.chosen([withDialog]) == "Save?")
    }

    @Test func withoutAWindowManagerAModalDialogThenTheNewestApplicationsLastWindow() {
        let a = Self.app("a", [Self.window("A1"), Self.window("A2")])
        let b = Self.app("b", [Self.window("B1"), Self.window("B2")])
        #expect(Self.chosen([a, b]) == "B2")
        #expect(DesktopFollower.chooseWindow([a, b], app: nil)?.reason.contains("no window manager") == true)
        let dialog = Self.app("a", [Self.window("A1"), Self.window("Confirm", modal: true)])
        #expect(Self.chosen([dialog, b]) == "Confirm")
        #expect(Self.chosen([b, Self.app("c", [])]) == "B2")
    }

    @Test func withAnApplicationNamedOnlyItsWindowsCount() {
        let a = Self.app("a", [Self.window("A1"), Self.window("A2")])
        let b = Self.app("b", [Self.window("B1", active: true)])
        #expect(Self.chosen([a, b], app: "a") == "A1")
        #expect(Self.chosen([a, b], app: "b") == "B1")
        #expect(Self.chosen([a, b], app: "c") == nil)
        #expect(Self.chosen([Self.app("a", [])], app: "a") == nil)
        #expect(Self.chosen([]) == nil)
    }
}

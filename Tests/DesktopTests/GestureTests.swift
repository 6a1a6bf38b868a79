import Foundation
import Testing

/// The element menu's Gestures page on a real desktop: the fixture's `--gestures` window, a
/// button that logs right and double clicks and a list in a scrolled window. The
/// application's own log is the evidence.
@Suite("Gestures on the live desktop", .serialized, .timeLimit(.minutes(2)))
struct GestureTests {
    /// Opens the Gestures page of the highlighted element and highlights `entry` on it.
    static func gestures(_ scan: ScanDriver, _ entry: String) throws {
        try scan.choose("Gestures")
        try scan.go(to: entry)
    }

    @Test func rightClickOpensTheContextMenuAndScrollDownScrollsTheList() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture(args: ["--gestures"])
        let scan = try ScanDriver(session, ["--app", fixture.applicationName])
        defer { scan.stop() }

        // A right click through the pointer, at the button: its context-menu handler runs.
        try scan.go(to: "Context Target")
        try Self.gestures(scan, "Right click")
        try scan.select(expecting: "the right click") { $0.effect == "gesture" && $0.fields["gesture"] as? String == "rightClick" }
        try fixture.waitForLine(matching: "context menu Context Target")
        // A double click, both clicks within the toolkit's double-click time.
        try Self.gestures(scan, "Double click")
        try scan.select(expecting: "the double click") { $0.effect == "gesture" && $0.fields["gesture"] as? String == "doubleClick" }
        try fixture.waitForLine(matching: "double click Context Target")

        // Scroll down on a row: the list's scroll bar moves (AT-SPI), and the page stays
        // open for more.
        try scan.go(to: "Rows")
        try scan.select(expecting: "entering the list") { $0.effect == "enterGroup" }
        try scan.go(to: "Row 1")
        try Self.gestures(scan, "Scroll down")
        try scan.select(expecting: "the scroll") { $0.effect == "gesture" && $0.fields["gesture"] as? String == "scrollDown" }
        let scrolled = try fixture.waitForLine { $0.hasPrefix("scrolled ") }
        let position = Double(scrolled.dropFirst("scrolled ".count)) ?? 0
        #expect(position > 100, "scrolled by most of the 200-pixel pane: \(scrolled)")
    }

    /// A scroll goes through AT-SPI (the pane's scroll bar), so it needs no pointer; a right
    /// click does, and without one it is said to have failed.
    @Test func aScrollNeedsNoPointerARightClickDoes() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture(args: ["--gestures"])
        let scan = try ScanDriver(session, ["--app", fixture.applicationName, "--pointer", "none"])
        defer { scan.stop() }

        try scan.go(to: "Rows")
        try scan.select(expecting: "entering the list") { $0.effect == "enterGroup" }
        try scan.go(to: "Row 1")
        try Self.gestures(scan, "Scroll down")
        try scan.select(expecting: "the scroll") { $0.effect == "gesture" && $0.fields["gesture"] as? String == "scrollDown" }
        _ = try fixture.waitForLine { $0.hasPrefix("scrolled ") }
        try scan.process.send("\u{1b}")   // Esc leaves the page
        try scan.next("the page closing") { $0.effect == "menuClose" }
        try scan.process.send("\u{1b}")   // and the list
        try scan.next("leaving the list") { $0.effect == "exitGroup" }

        try scan.go(to: "Context Target")
        try Self.gestures(scan, "Right click")
        try scan.select(expecting: "the right click") { $0.effect == "gesture" && $0.fields["gesture"] as? String == "rightClick" }
        let said = try scan.next("the failure said") { $0.effect == "announce" }
        #expect(said.text == "Right click on Context Target failed: no pointer to make it with", "\(said)")
        try fixture.expectNoLine(matching: "context menu Context Target", within: 0.5)
    }
}

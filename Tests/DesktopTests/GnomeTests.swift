import Foundation
import ScanCore
import ScreenScene
import Testing

/// SwitchScan under headless GNOME Shell 43, with its extension installed as the package
/// installs it: window places from the extension, the scene drawn by the extension above
/// the windows, clicks and keys through Mutter's remote desktop; checked against GNOME
/// Shell's own screenshots and what the applications say through AT-SPI.
@Suite(.serialized) struct GnomeTests {
    /// Moves a manual scan (Tab, space) to the element `id`, whose centre is `centre`: into
    /// each group that holds it.
    static func reach(_ scan: ScanDriver, id: String, centre: (Double, Double), limit: Int = 80) throws {
        scan.settle(0.05)
        for _ in 0..<limit {
            guard let current = scan.current else { break }
            if current.item == id { return }
            // A group no one rectangle encloses gives its members' rectangles.
            let rects = (current.fields["outline"] as? [[NSNumber]])?.map { $0.map(\.doubleValue) } ?? current.frame.map { [$0] } ?? []
            let holds = rects.contains { f in f.count == 4 && centre.0 >= f[0] && centre.0 < f[0] + f[2] && centre.1 >= f[1] && centre.1 < f[1] + f[3] }
            if current.kind == "group" && holds {
                try scan.select(expecting: "into the group") { $0.effect == "enterGroup" }
                try scan.next("its first item") { $0.effect == "highlight" }
            } else {
                let before = current.item
                try scan.process.send("\t")
                try scan.next("a highlight after Tab") { $0.effect == "highlight" && $0.item != before }
            }
        }
        throw DesktopError("item '\(id)' was not reached within \(limit) moves; last: \(scan.current?.description ?? "none")")
    }

    /// `desktop` places gtk3-widget-factory by the extension's buffer rectangle; a manual
    /// scan's outline around a check box is drawn by GNOME Shell just outside its frame, to
    /// the pixel (dark, four orange, dark); the menu's Tap ticks it (an AT-SPI action), and
    /// clicks of Mutter's remote desktop at its centre untick and tick it (as point mode
    /// clicks, timed by `switchscan-bench tap`).
    @Test func theShellDrawsTheOutlineAndASwitchUserTicksACheckBox() throws {
        let (session, boxes) = try WaylandTests.widgetFactory(.gnome)
        defer { session.stop() }
        let desktop = try session.runSwitchscan(["desktop", "--app", "gtk3-widget-factory"])
        #expect(desktop.status == 0, "\(desktop)")
        #expect(desktop.stdout.contains("Session: GNOME (Wayland); window places from SwitchScan's GNOME Shell extension."), "\(desktop)")
        #expect(desktop.stdout.contains(": placed by SwitchScan's GNOME Shell extension (buffer)"), "\(desktop)")
        try WaylandTests.expectDrawnInPlace(boxes, on: try session.captureScreen())

        let app = "gtk3-widget-factory"
        let targets = try TaskTests.targets(session, app: app)
        let box = try #require(targets.first { $0.label == "checkbutton" && !$0.traits.contains("selected") && !$0.traits.contains("notEnabled") },
                               "no unticked check box in \(targets.map { "\($0.label) \($0.traits)" })")
        let scan = try ScanDriver(session, ["--app", app])
        defer { scan.stop() }
        try Self.reach(scan, id: box.id, centre: box.centre)
        let f = try #require(scan.current?.frame, "\(String(describing: scan.current))")
        let frame = ScreenRect(x: Int(f[0]), y: Int(f[1]), width: Int(f[2]), height: Int(f[3]))
        let orange = RGB(r: 0xff, g: 0x8c, b: 0x00), black = RGB(r: 0, g: 0, b: 0)
        var row: [RGB] = []
        _ = try TestTime.poll(timeout: 5, every: 0.05) {
            let screen = try session.captureScreen()
            row = (frame.x - 7...frame.x).map { screen.pixel(x: $0, y: frame.y + frame.height / 2) }
            return row[2] == orange
        }
        #expect(row.count == 8 && row[1...6] == [black, orange, orange, orange, orange, black], "\(row)")
        #expect(row.count == 8 && row[0] != orange && row[7] != orange && row[7] != black, "\(row)")
        let screen = try session.captureScreen()
        #expect(screen.count(of: orange, in: ScreenRect(x: frame.x - 6, y: frame.y - 6, width: frame.width + 12, height: frame.height + 12))
                == 2 * 4 * (frame.width + 10) + 2 * 4 * (frame.height + 2), "the ring is not whole around \(frame)")

        try scan.choose("Tap")
        func ticked() throws -> Bool { try TaskTests.targets(session, app: app).contains { $0.id == box.id && $0.traits.contains("selected") } }
        #expect(try TestTime.poll(timeout: 10, every: 0.2) { try ticked() }, "the menu's Tap did not tick the check box at \(box.centre)")
        #expect(scan.process.stderr.contains("Pointer: Mutter's remote desktop") && scan.process.stderr.contains("Keys: Mutter's remote desktop"),
                "\(scan.process.stderr)")
        #expect(!scan.process.stderr.contains("not drawn on the screen"), "\(scan.process.stderr)")
        scan.stop()

        let tap = try session.runSwitchscan(["switchscan-bench", "tap", "--app", app, "--taps", "4"], timeout: 60)
        #expect(tap.status == 0 && tap.stdout.contains("clicked through Mutter's remote desktop"), "\(tap)")
        #expect(tap.stdout.split(separator: "\n").contains { $0.hasPrefix("click → the new state") && $0.hasSuffix("(4 of 4)") }, "\(tap)")
        print(tap.stdout)
    }
}

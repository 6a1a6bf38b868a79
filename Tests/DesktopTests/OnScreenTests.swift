import Foundation
import Testing

/// What a switch user sees and what point mode reaches on the real screen: the outline
/// drawn over the GTK 3 fixture by `switchscan run`, and point-mode taps through XTest.
@Suite("On the screen", .serialized, .timeLimit(.minutes(2)))
struct OnScreenTests {
    static let orange = RGB(r: 0xff, g: 0x8c, b: 0x00)

    /// Pixels of the outline's colour on each side, just outside `frame`, along the middle
    /// third of the side (where no neighbour's outline reaches).
    static func outlineSides(_ image: ScreenImage, _ frame: [Double]) -> [Int] {
        let x = Int(frame[0]), y = Int(frame[1]), w = Int(frame[2]), h = Int(frame[3])
        let sides = [ScreenRect(x: x + w / 3, y: y - 6, width: w / 3, height: 6), ScreenRect(x: x + w / 3, y: y + h, width: w / 3, height: 6),
                     ScreenRect(x: x - 6, y: y + h / 3, width: 6, height: h / 3), ScreenRect(x: x + w, y: y + h / 3, width: 6, height: h / 3)]
        return sides.map { image.count(of: orange, in: $0, tolerance: 40) }
    }

    @Test func theOutlineFollowsTheHighlightOverTheRealWindow() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture()
        let before = try session.captureScreen()
        let focus = try session.runX(.xdotool, ["getwindowfocus"]).stdout
        let scan = try ScanDriver(session, ["--app", fixture.applicationName])
        defer { scan.stop() }
        #expect(scan.process.stderr.contains("Warning: the highlight is not drawn") == false, "\(scan.process.stderr)")
        let first = try #require(scan.current?.frame)
        scan.settle(0.3)
        let shot = try session.captureScreen()
        let sides = Self.outlineSides(shot, first)
        #expect(sides.allSatisfy { $0 > 10 }, "outline pixels on the four sides of \(first): \(sides)")
        // Nothing changed away from the outline: the far corner of the window, the root.
        for (x, y) in [(5, 5), (1200, 700), (Int(first[0]) + 200, Int(first[1]) + 200)] {
            #expect(shot.pixel(x: x, y: y) == before.pixel(x: x, y: y), "pixel (\(x),\(y))")
        }
        // One step to the next item: the old place is clean, the new one outlined.
        try scan.process.send("\t")
        let next = try #require(try scan.next("the next highlight") { $0.effect == "highlight" }.frame)
        scan.settle(0.3)
        let moved = try session.captureScreen()
        #expect(Self.outlineSides(moved, next).allSatisfy { $0 > 10 }, "\(next)")
        // Btn 2 is right of Btn 1: only Btn 1's right side is near the new outline.
        #expect(Self.outlineSides(moved, first).prefix(3).allSatisfy { $0 == 0 }, "the old outline is gone: \(Self.outlineSides(moved, first))")
        // The overlay took neither the focus nor the clicks: a click on the outline's
        // pixels reaches the button below it.
        #expect(try session.runX(.xdotool, ["getwindowfocus"]).stdout == focus)
        try session.click(x: Int(next[0]) + 2, y: Int(next[1]) + Int(next[3]) / 2)
        try fixture.waitForLine(matching: "clicked Btn 2")
    }

    @Test func pointModeTapsTheRealScreenThroughXTest() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture()
        let volume = try session.findAccessible(app: fixture.applicationName, role: "slider", name: "Volume")
        let frame = try #require(volume.frame)
        let settings = session.directory.appendingPathComponent("point.json")
        try #"{"mode": "point", "glideSpeed": 80}"#.write(to: settings, atomically: true, encoding: .utf8)
        let scan = try ScanDriver(session, ["--app", fixture.applicationName, "--settings", settings.path], first: "sweep")
        defer { scan.stop() }
        // Fix x near the slider's left quarter, then y in its trough (below the value it
        // shows), by pressing when the sweep gets there: it moves at 80 px/s from 0.
        let targetX = Double(frame.x) + Double(frame.width) / 4
        try scan.process.press(after: targetX / 80)
        try scan.next("the y sweep") { $0.effect == "sweep" && $0.fields["axis"] as? String == "y" }
        let ySweepSeen = Date()
        let shot = try session.captureScreen()
        let targetY = Double(frame.y) + Double(frame.height) * 0.72
        try scan.process.press(after: targetY / 80 - Date().timeIntervalSince(ySweepSeen))
        let chosen = try scan.next("the point") { $0.effect == "pointSelected" }
        let px = chosen.fields["x"] as? Double ?? -1, py = chosen.fields["y"] as? Double ?? -1
        #expect(frame.contains(x: Int(px), y: Int(py)), "the point (\(px),\(py)) is on the slider \(frame)")
        // The crosshair's fixed x line was on the screen while y swept.
        #expect(shot.count(of: Self.orange, in: ScreenRect(x: Int(px) - 8, y: 0, width: 16, height: 800), tolerance: 60) > 100)
        try scan.next("the menu") { $0.effect == "menuOpen" }
        try scan.process.send(" ")
        let tap = try scan.next("the tap") { $0.effect == "tap" }
        #expect(tap.fields["x"] as? Double == px && tap.fields["y"] as? Double == py)
        // The slider moved to where it was clicked: the application says so.
        scan.settle(0.3)
        let line = try fixture.waitForLine { $0.hasPrefix("scale ") }
        let value = Double(line.dropFirst(6)) ?? -1
        #expect(abs(value - (px - Double(frame.x)) / Double(frame.width) * 100) < 15, "\(line) for a click at x \(px) on \(frame)")
    }
}

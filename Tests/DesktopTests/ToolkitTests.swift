import Foundation
import Testing

/// What toolkits leave out or add, made good: a window without a title is called by its
/// application (as Qt's are).
@Suite("Toolkit fixes", .serialized, .timeLimit(.minutes(2)))
struct ToolkitTests {
    @Test func aWindowWithoutATitleIsCalledByItsApplication() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture(args: ["--title", "", "--app-name", "untitled-fixture"])
        let r = try session.runSwitchscan(["desktop"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("frame \"untitled-fixture\""), "\(r.stdout)")
        #expect(r.stdout.contains("Scanned: \"untitled-fixture\" of untitled-fixture"), "\(r.stdout)")
        let scan = try ScanDriver(session, ["--app", fixture.applicationName])
        defer { scan.stop() }
        try scan.go(to: "Btn 1")
    }
}

extension ToolkitTests {
    /// `--app` picks a window that another covers: it is raised and activated, so that what
    /// is highlighted can be seen.
    @Test func theWindowAppPicksIsRaisedWhenCovered() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture()
        let fixtureWindow = try session.waitForWindow(titled: "SwitchScan Fixture")
        let place = try session.windowFrame(id: fixtureWindow)
        _ = try session.startFixture(args: ["--title", "Other Window", "--app-name", "other-fixture", "--move", "\(place.x)", "\(place.y)"])
        try session.activateWindow(titled: "Other Window")
        #expect(try session.activeWindowTitle() == "Other Window")
        let scan = try ScanDriver(session, ["--app", fixture.applicationName])
        defer { scan.stop() }
        var active = ""
        for _ in 0..<50 {
            active = try session.activeWindowTitle()
            if active == "SwitchScan Fixture" { break }
            scan.settle(0.05)
        }
        #expect(active == "SwitchScan Fixture")
        try scan.go(to: "Btn 1")
    }
}

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

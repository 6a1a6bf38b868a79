@testable import DesktopAccess
import Foundation
import ScanCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// DesktopAccess in this process: once stopped, every call returns at once (an error,
/// nothing, or is dropped) instead of waiting for a thread that has ended.
@Suite("Desktop access after stop", .serialized, .timeLimit(.minutes(2)))
struct StoppedDesktopTests {
    @Test func callsAfterStopReturnAtOnce() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        _ = try session.startFixture()
        // libatspi finds the accessibility bus through the session bus. Only this test talks
        // to AT-SPI in this process; the others run switchscan as a child.
        let bus = try #require(session.environment["DBUS_SESSION_BUS_ADDRESS"])
        setenv("DBUS_SESSION_BUS_ADDRESS", bus, 1)
        let desktop = try DesktopAccess.connect()
        #expect(!desktop.applications().isEmpty, "the fixture is on the bus")
        desktop.stop()

        #expect(desktop.applications().isEmpty)
        guard case .failure(let chosen) = desktop.choose(app: nil) else { Issue.record("a choice after stop"); return }
        #expect(chosen.description.contains("stopped"))
        guard case .failure(let read) = desktop.snapshot(app: nil) else { Issue.record("a snapshot after stop"); return }
        #expect(read.description.contains("stopped"))
        #expect(desktop.follow(app: nil) { _ in } == nil)
        #expect(desktop.fieldText() == nil)
        #expect(desktop.insertIntoField("a") == .useKeys)
        #expect(desktop.benchWalks(app: nil, repeats: 1) == nil)
        desktop.perform([TimedEffect(.zero, .tap(Point(x: 1, y: 1), element: nil))])
        desktop.followField(nil)
        desktop.keysSent(.typed("a"))
        desktop.stop()  // twice: harmless
    }
}

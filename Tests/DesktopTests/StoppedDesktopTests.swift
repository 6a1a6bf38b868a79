@testable import DesktopAccess
import CAtspi
import Foundation
import ScanCore
import Testing

#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// DesktopAccess in this process: once stopped, every call returns at once (an error,
/// nothing, or is dropped) instead of waiting for a thread that has ended.
@Suite("Desktop access after stop or dropped", .serialized, .timeLimit(.minutes(2)))
struct StoppedDesktopTests {
    @Test func callsAfterStopReturnAtOnce() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture()
        // libatspi finds the accessibility bus through the session bus. Only this test talks
        // to AT-SPI in this process; the others run switchscan as a child.
        let bus = try #require(session.environment["DBUS_SESSION_BUS_ADDRESS"])
        setenv("DBUS_SESSION_BUS_ADDRESS", bus, 1)
        // Dropped without `stop` while it follows the window: its listeners are deregistered
        // and its thread ends (another DesktopAccess could not run GLib's loop while it
        // ran), and an event after that calls nothing that is gone.
        weak var dropped: DesktopAccess?
        do {
            let first = try DesktopAccess.connect()
            dropped = first
            #expect(first.follow(app: nil) { _ in } != nil)
        }
        guard TestTime.poll(timeout: 5, until: { dropped == nil }) else {
            Issue.record("something keeps a dropped DesktopAccess (its listener?)")
            return
        }
        // GLib's loop is free for another thread: the dropped one's thread has ended (it may
        // be finishing still when the last reference went on that thread).
        guard TestTime.poll(timeout: 5, until: { g_main_context_acquire(nil) != 0 }) else {
            Issue.record("the dropped DesktopAccess's AT-SPI thread still runs GLib's loop")
            return
        }
        g_main_context_release(nil)
        try session.doAction(app: fixture.applicationName, role: "push button", name: "Btn 1", action: "click")
        try fixture.waitForLine(matching: "clicked Btn 1")
        // The label's new text is on the bus (its name-change event sent) before it is read.
        _ = try session.findAccessible(app: fixture.applicationName, role: "label", name: "status: clicked Btn 1", timeout: 10)

        let desktop = try DesktopAccess.connect()
        #expect(!desktop.applications().isEmpty, "the fixture is on the bus")
        // Following works after the dropped one, and sees the click made since.
        let first = desktop.follow(app: nil) { _ in }
        #expect(first != nil)
        // (libatspi may hand the first read the label's name cached before the click, its
        // change event still on its way to this connection: a read a moment later has it.)
        var labels = first?.tree.nodes.compactMap(\.label) ?? []
        let seen = TestTime.poll(timeout: 10, every: 0.2) {
            if labels.contains("status: clicked Btn 1") { return true }
            if case .success(let s) = desktop.snapshot(app: nil) { labels = s.tree.nodes.compactMap(\.label) }
            return false
        }
        #expect(seen, "the click made since is read: \(labels)")
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

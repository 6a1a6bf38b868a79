#if canImport(Glibc)
import Glibc
#endif
import CX11
import Dispatch
import Foundation
import ScanCore
import Testing
import X11Output

/// The window watcher against a real window manager (openbox on a private Xvfb): what it
/// lists, how it follows changes, and what its commands make the window manager do. The time
/// limit guards against a hang; it allows for waiting behind the long desktop tests on a
/// machine of two processors.
@Suite("Desktop windows", .serialized, .timeLimit(.minutes(5)))
struct DesktopWindowsTests {
    /// What the watcher handed over, from its thread; `wait` wakes on each new value.
    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var lists: [[ManagedWindow]] = []
        private var reports: [String] = []
        private let signal = DispatchSemaphore(value: 0)

        func list(_ l: [ManagedWindow]) { lock.withLock { lists.append(l) }; signal.signal() }
        func report(_ r: String) { lock.withLock { reports.append(r) }; signal.signal() }
        var last: [ManagedWindow] { lock.withLock { lists.last ?? [] } }
        var said: [String] { lock.withLock { reports } }

        /// Waits for a value that makes `ok` true (false after `timeout` seconds).
        func wait(_ timeout: Double = 5, until ok: () -> Bool) -> Bool {
            let deadline = DispatchTime.now() + timeout
            while !ok() {
                if signal.wait(timeout: deadline) == .timedOut { return ok() }
            }
            return true
        }
    }

    @Test func withoutAWindowManagerItSaysWhatIsNeeded() throws {
        let server = try XServer()
        do {
            _ = try DesktopWindows(display: server.display, report: { _ in })
            Issue.record("a display without a window manager was accepted")
        } catch {
            #expect("\(error)".contains("no window manager") && "\(error)".contains("openbox"), "\(error)")
        }
    }

    @Test func theListFollowsTheWindowsAndCommandsReachTheWindowManager() throws {
        let server = try XServer()
        let probe = try XProbe(server.display)
        guard try server.startOpenbox(probe) else {
            Issue.record("openbox is not installed (apt-get install openbox)")
            return
        }
        let alpha = probe.window(x: 10, y: 10, width: 300, height: 200, color: RGB(r: 200, g: 0, b: 0), overrideRedirect: false)
        XStoreName(probe.d, alpha, "Alpha")
        let beta = probe.window(x: 400, y: 10, width: 300, height: 200, color: RGB(r: 0, g: 200, b: 0), overrideRedirect: false)
        XStoreName(probe.d, beta, "Beta")
        XSync(probe.d, 0)
        #expect(probe.waitViewable(alpha) && probe.waitViewable(beta))
        let id = { (w: Window) in "0x" + String(w, radix: 16) }

        let seen = Seen()
        let windows = try DesktopWindows(display: server.display, report: seen.report)
        defer { windows.stop() }
        windows.start(onChange: seen.list)
        #expect(seen.wait { Set(seen.last.map(\.title)) == ["Alpha", "Beta"] }, "listed: \(seen.last)")
        #expect(Set(seen.last.map(\.id)) == [id(alpha), id(beta)])

        // Switched to: the window manager makes it the active window.
        windows.perform(.activate, window: id(alpha))
        #expect(seen.wait { seen.last.first { $0.active }?.id == id(alpha) }, "\(seen.last)")
        windows.perform(.activate, window: id(beta))
        #expect(seen.wait { seen.last.first { $0.active }?.id == id(beta) }, "\(seen.last)")

        // A new title is followed.
        XStoreName(probe.d, beta, "Gamma")
        XSync(probe.d, 0)
        #expect(seen.wait { seen.last.contains { $0.id == id(beta) && $0.title == "Gamma" } }, "\(seen.last)")

        // Maximised, restored, minimised: as the window manager reports them.
        windows.perform(.maximize, window: id(alpha))
        #expect(seen.wait { seen.last.first { $0.id == id(alpha) }?.maximized == true }, "\(seen.last)")
        windows.perform(.restore, window: id(alpha))
        #expect(seen.wait { seen.last.first { $0.id == id(alpha) }?.maximized == false }, "\(seen.last)")
        windows.perform(.minimize, window: id(beta))
        #expect(seen.wait { seen.last.first { $0.id == id(beta) }?.minimized == true }, "\(seen.last)")

        // A window that is gone is said, never fatal; one destroyed leaves the list.
        windows.perform(.close, window: "0x7fffffff")
        #expect(seen.wait { seen.said.contains("That window is gone.") }, "\(seen.said)")
        XDestroyWindow(probe.d, beta)
        XSync(probe.d, 0)
        #expect(seen.wait { seen.last.map(\.id) == [id(alpha)] }, "\(seen.last)")
    }
}

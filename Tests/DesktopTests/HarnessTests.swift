import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The desktop harness itself, against real services: Xvfb, a private session bus with the
/// accessibility bus activated from it, openbox, the GTK3 fixture, xdotool and ImageMagick.
// The limit guards against a hang: tests run two at a time on these machines, and a test
// waits its turn behind the long desktop tests (three minutes and more), the limit running.
@Suite("Desktop harness", .serialized, .timeLimit(.minutes(5)))
struct HarnessTests {
    @Test func theFixtureRegistersOnTheAccessibilityBusAndShowsItsWindow() throws {
        let clock = ContinuousClock()
        let began = clock.now
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.launchFixture()
        try fixture.waitForLine(matching: "ready")
        let ready = clock.now
        let polled = try session.waitForApplication(named: "switchscan-fixture")
        let registered = clock.now
        let steps = session.startupSteps.map { "\($0.step) \(Int($0.milliseconds.rounded())) ms" }.joined(separator: ", ")
        print("desktop \(session.display) up in \(Int(session.startupMilliseconds.rounded())) ms (\(steps)); fixture ready after",
              "\(Int(DesktopSession.milliseconds(ready - began).rounded())) ms, registered after \(Int(DesktopSession.milliseconds(registered - began).rounded())) ms",
              "(the poll waited \(Int(polled)) ms)")

        #expect(try session.applicationNames().contains("switchscan-fixture"))
        let id = try session.waitForWindow(titled: "SwitchScan Fixture")
        let client = try session.windowFrame(id: id)
        #expect(client.width == 600 && client.height == 500, "the fixture's default size: \(client)")

        // AT-SPI gives screen coordinates, and a window's frame includes openbox's decorations.
        let window = try session.findAccessible(app: "switchscan-fixture", role: "frame", name: "SwitchScan Fixture")
        let frame = try #require(window.frame)
        #expect(frame.contains(x: client.x, y: client.y) && frame.contains(x: client.x + 599, y: client.y + 499),
                "AT-SPI frame \(frame) holds the client area \(client)")
        let heading = try session.findAccessible(app: "switchscan-fixture", role: "heading", name: "Fixture Heading")
        #expect(heading.frame?.x == client.x && heading.frame?.y == client.y, "\(heading) starts the client area \(client)")
        // openbox activates a new window.
        #expect(window.has("active"), "\(window)")
        #expect(try session.activeWindowTitle() == "SwitchScan Fixture")
    }

    @Test func aRealClickAtTheAccessibleCentreClicksTheButton() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture()
        // Alternate the targets: the same button twice gives one name-change event (P9).
        for name in ["Btn 1", "Btn 2", "Btn 1"] {
            let button = try session.findAccessible(app: fixture.applicationName, role: "push button", name: name)
            try session.click(button)
            try fixture.waitForLine(matching: "clicked \(name)")
        }
        let disabled = try session.findAccessible(app: fixture.applicationName, role: "push button", name: "Disabled Btn")
        #expect(disabled.has("showing") && !disabled.has("sensitive") && !disabled.has("enabled"), "\(disabled)")
        let frame = try #require(disabled.frame)
        try session.click(x: frame.center.x, y: frame.center.y)
        try fixture.expectNoLine(matching: "clicked Disabled Btn", within: 0.3)
    }

    @Test func theFixtureReportsEveryStateChange() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture()
        let app = fixture.applicationName

        let hidden = try session.findAccessible(app: app, role: "push button", name: "Hidden Btn")
        #expect(!hidden.has("showing") && hidden.frame?.x == Int(Int32.min), "hidden widgets sit at INT_MIN (P8): \(hidden)")
        let volume = try session.findAccessible(app: app, role: "slider", name: "Volume")
        #expect(volume.value == 50 && volume.minimum == 0 && volume.maximum == 100 && volume.step == 5, "\(volume)")

        try session.doAction(app: app, role: "check box", name: "Check me", action: "click")
        try fixture.waitForLine(matching: "check True")
        try session.doAction(app: app, role: "toggle button", name: "Toggle", action: "click")
        try fixture.waitForLine(matching: "toggled True")
        try session.setValue(app: app, role: "slider", name: "Volume", to: 55)
        try fixture.waitForLine(matching: "scale 55.0")
        try session.doAction(app: app, role: "toggle button", name: "Details", action: "activate")
        try fixture.waitForLine(matching: "expander True")

        // The tree's cells: "activate" is a named action, not the first one.
        let fruits = try session.findAccessible(app: app, role: "table cell", name: "Fruits")
        #expect(fruits.actions == ["expand or contract", "edit", "activate"], "\(fruits)")
        try session.doAction(app: app, role: "table cell", name: "Fruits", action: "expand or contract")
        try fixture.waitForLine(matching: "expanded Fruits")
        _ = try session.findAccessible(app: app, role: "table cell", name: "Apple", timeout: 2)
        try session.doAction(app: app, role: "table cell", name: "Apple", action: "activate")
        try fixture.waitForLine(matching: "activated Apple")

        try session.doAction(app: app, role: "push button", name: "Remove Btn 3", action: "click")
        try fixture.waitForLine(matching: "removed Btn 3")
        #expect(throws: DesktopError.self) { try session.findAccessible(app: app, role: "push button", name: "Btn 3") }

        // The modal dialog, closed with a real click on its OK button.
        try session.doAction(app: app, role: "push button", name: "Open Dialog", action: "click")
        try fixture.waitForLine(matching: "dialog open")
        let dialog = try session.findAccessible(app: app, role: "dialog", name: "Confirm", timeout: 2)
        #expect(dialog.has("modal"), "\(dialog)")
        try session.waitForWindow(titled: "Confirm")
        try session.click(try session.findAccessible(app: app, role: "push button", name: "OK", timeout: 2))
        try fixture.waitForLine(matching: "dialog closed OK")

        #expect(fixture.terminate() == 0)
        try fixture.waitForLine(matching: "terminated", timeout: 1)
    }

    @Test func theWindowManagerActivatesTheWindowAskedFor() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let one = try session.startFixture()
        let two = try session.startFixture(args: ["--app-name", "fixture-two", "--title", "Fixture Two", "--move", "20", "40"])
        let frameTwo = try session.findAccessible(app: two.applicationName, role: "frame", name: "Fixture Two")
        #expect(frameTwo.frame?.x == 20 && frameTwo.frame?.y == 40, "openbox puts the frame (with decorations) where asked: \(frameTwo)")
        for (fixture, title) in [(one, "SwitchScan Fixture"), (two, "Fixture Two"), (one, "SwitchScan Fixture")] {
            try session.activateWindow(titled: title)
            #expect(try session.activeWindowTitle() == title)
            let frame = try session.findAccessible(app: fixture.applicationName, role: "frame", name: title)
            #expect(frame.has("active"), "\(frame)")
        }
        #expect(try !session.findAccessible(app: two.applicationName, role: "frame", name: "Fixture Two").has("active"))
    }

    @Test func screenPixelsTellTheWindowFromTheRoot() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture()
        let window = try #require(try session.findAccessible(app: fixture.applicationName, role: "frame", name: "SwitchScan Fixture").frame)
        let status = try #require(try session.findAccessible(app: fixture.applicationName, role: "label", name: "status: idle").frame)
        // The status label's text is centred; its left end is the window's background.
        let inside = (x: status.x + 3, y: status.y + status.height / 2)
        let outside = (x: 2, y: 2)
        #expect(!window.contains(x: outside.x, y: outside.y), "openbox centres the window: \(window)")

        // The first draw follows the map: the fixture says when the server has it.
        try fixture.waitForLine(matching: "drawn")
        let image = try session.captureScreen()
        #expect(image.width == session.screenWidth && image.height == session.screenHeight)
        let background = image.pixel(x: inside.x, y: inside.y)
        let root = image.pixel(x: outside.x, y: outside.y)
        #expect(background.r > 200 && background.g > 200 && background.b > 200, "Adwaita's light window background: \(background)")
        #expect(background.distance(to: root) > 100, "window \(background) vs root \(root)")

        // The same pixels through a PNG file.
        let png = session.directory.appendingPathComponent("screen.png")
        try session.screenshot(to: png)
        let loaded = try session.loadImage(png)
        #expect(loaded.pixel(x: inside.x, y: inside.y) == background)
        #expect(loaded.pixel(x: outside.x, y: outside.y) == root)
    }

    @Test func twoSessionsInARowTearDownCompletely() throws {
        let first = try DesktopSession()
        let fixture = try first.startFixture()
        let running = DesktopSession.markedProcesses(first.marker)
        let commands = running.map(\.command).joined(separator: "\n")
        for program in ["Xvfb", "dbus-daemon --session", "at-spi-bus-launcher", "accessibility.conf", "at-spi2-registryd", "openbox", "fixture.py"] {
            #expect(commands.contains(program), "\(program) runs in the session:\n\(commands)")
        }
        let socket = "/tmp/.X11-unix/X" + first.display.dropFirst()
        let socketBefore = Self.identity(of: socket)
        #expect(socketBefore != nil, "\(socket) exists")
        first.stop()
        #expect(DesktopSession.markedProcesses(first.marker).isEmpty, "left behind: \(DesktopSession.markedProcesses(first.marker))")
        #expect(!fixture.isRunning)
        #expect(!FileManager.default.fileExists(atPath: first.directory.path))
        // A server of a suite running beside this one may take the free number at once: a
        // socket there now must be another one.
        let socketAfter = Self.identity(of: socket)
        #expect(socketAfter == nil || socketAfter != socketBefore, "Xvfb removed its socket")

        // The second one without a window manager: the window sits at 0,0 and is not activated (P7).
        let second = try DesktopSession(windowManager: false)
        defer { second.stop() }
        let again = try second.startFixture()
        let window = try second.findAccessible(app: again.applicationName, role: "frame", name: "SwitchScan Fixture")
        #expect(window.frame == ScreenRect(x: 0, y: 0, width: 600, height: 500), "\(window)")
        #expect(!window.has("active"), "\(window)")
        try second.click(try second.findAccessible(app: again.applicationName, role: "push button", name: "Btn 2"))
        try again.waitForLine(matching: "clicked Btn 2")
    }

    /// Which file is at `path` (inode and change time), nil when none is.
    static func identity(of path: String) -> [Int]? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return [Int(st.st_ino), Int(st.st_ctim.tv_sec), Int(st.st_ctim.tv_nsec)]
    }

    @Test func switchscanRunsInTheSessionOneShotAndLive() throws {
        let session = try DesktopSession(windowManager: false)
        defer { session.stop() }
        let args = ["run", "--no-devices", "--output", "json", "--rt-priority", "0", "--no-mlock", "--allow-deep-idle"]
        let once = try session.runSwitchscan(args, stdin: " q")
        #expect(once.status == 0, "\(once)")
        #expect(once.stdout.contains(#""effect":"enterGroup""#), "\(once)")

        let live = try session.startSwitchscan(args)
        defer { live.terminate() }
        try live.waitForLine(containing: #""effect":"scanStarted""#)
        try live.send(" ")
        let entered = try live.waitForLine(containing: #""effect":"enterGroup""#)
        #expect(entered.hasPrefix(#"{"t":"#))
        try live.send("q")
        #expect(try live.waitForExit() == 0, "\(live.stderr)")
        #expect(live.lines.count >= 3)
    }

    @Test func aMissingProgramFailsNamingItsDebianPackage() {
        let error = #expect(throws: DesktopError.self) {
            try DesktopTool(path: "/nonexistent/Xvfb", package: "xvfb").require()
        }
        #expect(error?.description.contains("install the Debian package 'xvfb'") == true, "\(String(describing: error))")
    }
}

import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// Start at login, for real: `switchscan autostart enable` writes the XDG autostart entry,
/// openbox-session (as a display manager would start it) runs it, and the scanner it starts
/// waits for a window and then highlights it on the screen; `disable` removes the entry.
@Suite("Autostart in a desktop session", .serialized, .timeLimit(.minutes(2)))
struct AutostartDesktopTests {
    static let openboxSession = DesktopTool(path: "/usr/bin/openbox-session", package: "openbox")
    /// openbox's XDG autostart needs PyXDG.
    static let pyxdg = "/usr/lib/python3/dist-packages/xdg/DesktopEntry.py"

    @Test func openboxSessionStartsTheEntryAndDisableRemovesIt() throws {
        try Self.openboxSession.require()
        guard FileManager.default.fileExists(atPath: Self.pyxdg) else { throw DesktopError.missing(Self.pyxdg, package: "python3-xdg") }
        let session = try DesktopSession(windowManager: false)
        defer { session.stop() }
        let config = try #require(session.environment["XDG_CONFIG_HOME"])
        let entry = config + "/autostart/switchscan.desktop"

        // No user manager is reachable in the session (its XDG_RUNTIME_DIR is its own): the entry.
        let enabled = try session.runSwitchscan(["autostart", "enable"])
        #expect(enabled.status == 0, "\(enabled)")
        #expect(enabled.stdout.hasPrefix("Enabled: SwitchScan starts when you log in to the desktop, from the autostart entry \(entry)"), "\(enabled)")

        // The session: openbox-session runs the XDG autostart entries, the user's only (the
        // system's folder would start services of this machine's own).
        let systemConfig = session.directory.appendingPathComponent("xdg")
        try FileManager.default.createDirectory(at: systemConfig, withIntermediateDirectories: true)
        let login = try session.launchApplication(Self.openboxSession.path, [], applicationName: "openbox", title: "",
                                                  extraEnvironment: ["XDG_CONFIG_DIRS": systemConfig.path])
        // The scanner the entry starts: in the test's desktop, running the entry's command line.
        var started: DesktopSession.MarkedProcess?
        _ = TestTime.poll(timeout: 20, every: 0.1) {
            started = DesktopSession.markedProcesses(session.marker).first { $0.command.contains(" run --desktop --wait-for-desktop 60 --output quiet --no-terminal-keys") }
            return started != nil
        }
        let scanner = try #require(started, "openbox-session did not start the entry's command within 20 s.\n--- its stderr ---\n\(login.stderr)")

        // Started before any window, it waits; a window comes, and it is highlighted on the screen.
        _ = try session.startFixture()
        let outline = try session.runX(.xdotool, ["search", "--sync", "--onlyvisible", "--name", "^switchscan outline$"], timeout: 20)
        #expect(outline.status == 0 && !outline.stdoutLines.isEmpty, "no highlight on the screen.\n\(outline)\n--- the session's stderr ---\n\(login.stderr)")
        #expect(kill(scanner.pid, 0) == 0, "the scanner still runs")

        let disabled = try session.runSwitchscan(["autostart", "disable"])
        #expect(disabled.status == 0 && disabled.stdout == "Disabled: removed the autostart entry \(entry).\n", "\(disabled)")
        #expect(!FileManager.default.fileExists(atPath: entry))
        let status = try session.runSwitchscan(["autostart", "status"])
        #expect(status.stdout == "SwitchScan does not start at login. 'switchscan autostart enable' turns that on.\n", "\(status)")
    }

    /// Login to the first highlight, from the entry: with the accessibility bus up and a
    /// window open, openbox-session starts; the scanner it starts from the entry highlights
    /// the window within 2 s (openbox's own start-up included). The figure is printed.
    @Test func entryLoginToFirstHighlightWithinTwoSeconds() throws {
        try Self.openboxSession.require()
        guard FileManager.default.fileExists(atPath: Self.pyxdg) else { throw DesktopError.missing(Self.pyxdg, package: "python3-xdg") }
        let session = try DesktopSession(windowManager: false)
        defer { session.stop() }
        let enabled = try session.runSwitchscan(["autostart", "enable", "--method", "entry"])
        try #require(enabled.status == 0, "\(enabled)")
        _ = try session.startFixture()
        let systemConfig = session.directory.appendingPathComponent("xdg")
        try FileManager.default.createDirectory(at: systemConfig, withIntermediateDirectories: true)

        let clock = ContinuousClock()
        let login = clock.now
        let started = try session.launchApplication(Self.openboxSession.path, [], applicationName: "openbox", title: "",
                                                    extraEnvironment: ["XDG_CONFIG_DIRS": systemConfig.path])
        guard try TestTime.poll(timeout: 10, until: { try !session.windowIDs(named: "^switchscan outline$").isEmpty }) else {
            Issue.record("no highlight within 10 s of the login.\n--- the session's stderr ---\n\(started.stderr)")
            return
        }
        let milliseconds = DesktopSession.milliseconds(clock.now - login)
        #expect(milliseconds <= 2000, "login to the first highlight: \(Int(milliseconds)) ms")
        print("autostart-figures: entry login to first highlight ms \(Int(milliseconds.rounded()))")
    }

    /// A run the session started on an empty desktop keeps going after its wait, with
    /// nothing to scan, and scans the first window that shows.
    @Test func afterTheWaitTheFirstWindowIsScanned() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let run = try session.startSwitchscan(["run", "--desktop", "--wait-for-desktop", "0.5", "--output", "json", "--no-devices"])
        // Past its 0.5 s wait it goes on: an exit within 1.5 s fails.
        #expect(!run.process.wait(timeout: 1.5 * TestTime.scale), "it ended with nothing to scan.\n\(run.stderr)")
        let fixture = try session.startFixture()
        let line = try run.waitForLine("a highlight in the fixture's window", timeout: 15) { line in
            line.contains(#""effect":"highlight""#) && !line.contains(#""item":"none""#)
        }
        #expect(fixture.isRunning, "\(line)")
    }
}

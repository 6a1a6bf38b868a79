import Foundation
import ScanCore
import ScreenScene
import Testing

/// SwitchScan under headless KWin (`kwin_wayland --virtual`): native windows placed by
/// SwitchScan's KWin script, clicks and keys through KWin's fake input (given by a .desktop
/// file, as the package's), checked against KWin's own screenshots and what the application
/// says through AT-SPI. The outline, a switch user ticking a check box, typing (into a field
/// and into mousepad), the Windows page, XWayland beside a native window and the compositor
/// going away are WaylandTests' cases, run on KWin too.
@Suite(.serialized) struct KWinTests {
    /// gtk3-widget-factory measures its frames from its buffer, shadow included; KWin's
    /// script gives the buffer's place. Each check box is drawn inside the frame SwitchScan
    /// gives it.
    @Test func aNativeGtk3WindowIsPlacedByAKWinScript() throws {
        let (session, boxes) = try WaylandTests.widgetFactory(.kwin)
        defer { session.stop() }
        let desktop = try session.runSwitchscan(["desktop", "--app", "gtk3-widget-factory"])
        #expect(desktop.status == 0, "\(desktop)")
        #expect(desktop.stdout.contains("Session: KDE Plasma's KWin (Wayland); window places from a KWin script."), "\(desktop)")
        #expect(desktop.stdout.contains("The compositor offers the layer shell (the outline, the menu and the keyboard drawn) and its fake input (taps and keys)."), "\(desktop)")
        // The window rule put the window's frame at 200,150; GTK 3's shadow lies around it.
        #expect(desktop.stdout.contains(": placed by a KWin script (buffer)"), "\(desktop)")
        let line = desktop.stdout.split(separator: "\n").first { $0.contains("placed by a KWin script") }.map(String.init) ?? ""
        let at = line.components(separatedBy: " at ").last?.split(separator: " ").first?.split(separator: ",").compactMap { Int($0) } ?? []
        #expect(at.count == 2 && at[0] < session.windowCorner.x && at[0] > session.windowCorner.x - 64
                && at[1] < session.windowCorner.y && at[1] > session.windowCorner.y - 64, "\(line)")
        #expect(boxes.allSatisfy { $0.x >= session.windowCorner.x && $0.y >= session.windowCorner.y }, "\(boxes)")
        try WaylandTests.expectDrawnInPlace(boxes, on: try session.captureScreen())
        // The run's scripts are unloaded, and their files removed, when it ends.
        let left = try FileManager.default.contentsOfDirectory(atPath: session.runtime.path).filter { $0.hasPrefix("switchscan-kwin-") }
        #expect(left.isEmpty, "script files left behind: \(left)")
        // Without a runtime folder the script goes in a private folder made for the run,
        // removed with it.
        func privateFolders() throws -> Set<String> {
            Set(try FileManager.default.contentsOfDirectory(atPath: "/tmp").filter { $0.hasPrefix("switchscan-kwin-") })
        }
        let before = try privateFolders()
        let bare = try session.run(session.directory.appendingPathComponent("switchscan").path, ["desktop", "--app", "gtk3-widget-factory"],
                                   extra: ["XDG_RUNTIME_DIR": "", "WAYLAND_DISPLAY": session.waylandSocket])
        #expect(bare.status == 0 && bare.stdout.contains(": placed by a KWin script (buffer)"), "\(bare)")
        #expect(try privateFolders().subtracting(before).isEmpty, "the private folder was left behind")
    }

    /// KWin's fake input clicks each time at the check box's centre as SwitchScan places it,
    /// and SwitchScan hears the new state (`switchscan-bench tap`, as point mode clicks);
    /// `switchscan-bench places` times the script's start and a window's move to its report.
    @Test func kwinsFakeInputClicksWhereTheFrameSays() throws {
        let (session, _) = try WaylandTests.widgetFactory(.kwin)
        defer { session.stop() }
        let tap = try session.runSwitchscan(["switchscan-bench", "tap", "--app", "gtk3-widget-factory", "--taps", "6"], timeout: 60)
        let lines = tap.stdout.split(separator: "\n")
        #expect(tap.status == 0 && tap.stdout.contains("clicked through KWin's fake input"), "\(tap)")
        #expect(lines.contains { $0.hasPrefix("click → the new state") && $0.hasSuffix("(6 of 6)") }, "\(tap)")
        #expect(lines.contains { $0.hasPrefix("click → the application's AT-SPI event") && $0.hasSuffix("(6 of 6)") }, "\(tap)")
        let places = try session.runSwitchscan(["switchscan-bench", "places", "--reads", "4"], timeout: 60)
        #expect(places.status == 0 && places.stdout.contains("KWin's script, 1 windows") && places.stdout.contains("(4 of 4)"), "\(places)")
        print(tap.stdout + places.stdout)
    }

    /// A program KWin does not allow (no .desktop file names it) is not offered the fake
    /// input: `desktop` says the compositor lacks it, a run says why and how to allow it,
    /// then goes on by AT-SPI actions, and `autostart status` gives the entry's lines.
    @Test func kwinsRefusalOfItsFakeInputIsExplained() throws {
        let (session, _) = try WaylandTests.widgetFactory(.kwin)
        defer { session.stop() }
        guard let built = SwitchscanBinary.url else { throw DesktopError("the switchscan executable was not found") }
        let stranger = session.directory.appendingPathComponent("not-allowed")
        try FileManager.default.copyItem(at: built, to: stranger)
        let desktop = try session.run(stranger.path, ["desktop", "--app", "gtk3-widget-factory"])
        #expect(desktop.stdout.contains("The compositor offers the layer shell (the outline, the menu and the keyboard drawn); not its fake input (taps and keys)."), "\(desktop)")
        let run = try session.run(stranger.path, ["run", "--desktop", "--app", "gtk3-widget-factory", "--output", "json", "--no-devices", "--duration", "2"])
        #expect(run.stderr.contains("does not offer its fake input (org_kde_kwin_fake_input) to SwitchScan")
                && run.stderr.contains("X-KDE-Wayland-Interfaces=org_kde_kwin_fake_input"), "\(run)")
        #expect(run.stdout.contains(#""highlight""#), "the scan did not go on: \(run)")
        // `autostart status` says which lines would name it; the allowed copy is told nothing.
        let status = try session.run(stranger.path, ["autostart", "status"])
        #expect(status.stdout.contains("none names \(stranger.path)") && status.stdout.contains("Exec=\(stranger.path)\n"), "\(status)")
        let allowed = try session.runSwitchscan(["autostart", "status"])
        #expect(!allowed.stdout.contains("KWin gives its fake input"), "\(allowed)")
    }
}

extension KWinTests {
    /// A run killed outright leaves its script loaded in KWin (nothing could unload it) and
    /// its file in the runtime folder; the next start unloads it and removes the file.
    @Test func whatAKilledRunLeftInKWinIsUnloadedByTheNext() throws {
        let (session, _) = try WaylandTests.widgetFactory(.kwin)
        defer { session.stop() }
        let scan = try session.startScan(["run", "--desktop", "--app", "gtk3-widget-factory", "--output", "json", "--no-devices"])
        defer { _ = scan.terminate() }
        _ = try scan.waitForLine("a highlight", timeout: 20) { $0.contains(#""highlight""#) }
        func files() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: session.runtime.path).filter { $0.hasPrefix("switchscan-kwin-") }
        }
        let left = try files()
        let pid = try #require(left.first.flatMap { Int32($0.dropFirst("switchscan-kwin-".count).split(separator: "-")[0]) }, "\(left)")
        kill(pid, SIGKILL)
        #expect(scan.process.wait(timeout: 10))
        func loaded() throws -> Bool {
            let r = try session.run("/usr/bin/dbus-send", ["--session", "--print-reply", "--dest=org.kde.KWin", "/Scripting",
                                                           "org.kde.kwin.Scripting.isScriptLoaded", "string:switchscan-places-\(pid)"])
            return r.stdout.contains("boolean true")
        }
        #expect(try loaded(), "the killed run's script was not loaded")
        #expect(try !files().isEmpty)
        let desktop = try session.runSwitchscan(["desktop"])
        #expect(desktop.status == 0, "\(desktop)")
        #expect(try !loaded(), "the killed run's script is still loaded")
        let remaining = try files()
        #expect(remaining.isEmpty, "\(remaining)")
    }
}

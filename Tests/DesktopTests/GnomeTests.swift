import Foundation
import ScanCore
import ScreenScene
import Testing
import TestSupport

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
    /// clicks, timed by `switchscan-bench tap`); the other benchmarks run.
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
        // This session runs without PipeWire, so the pointer moves by relative motion from a corner.
        #expect(tap.status == 0 && tap.stdout.contains("clicked through Mutter's remote desktop (relative motion)"), "\(tap)")
        #expect(tap.stdout.split(separator: "\n").contains { $0.hasPrefix("click → the new state") && $0.hasSuffix("(4 of 4)") }, "\(tap)")
        // The other benchmarks, in the same session: figures, not bounds (docs/SCREEN.md has the
        // release build's): a press to the frame GNOME Shell painted with the outline moved
        // (the keyboard under it), and the extension's window list read in the process.
        let painted = try session.runSwitchscan(["switchscan-bench", "screen", "--wayland", "--keyboard", "--presses", "30", "--idle-seconds", "0"], timeout: 60)
        #expect(painted.status == 0 && painted.stdout.contains("GNOME Shell's extension") && !painted.stdout.contains("(0)"), "\(painted)")
        let places = try session.runSwitchscan(["switchscan-bench", "places", "--reads", "100"], timeout: 60)
        #expect(places.status == 0 && places.stdout.contains("through the extension, 1 windows"), "\(places)")
        print(tap.stdout + painted.stdout + places.stdout)
    }
}

extension GnomeTests {
    // WaylandTests' cases, on GNOME Shell (kept here, so that the sanitizers' runs choose
    // them apart from the sway and KWin ones).

    @Test func aSwitchUserTypesIntoANativeField() throws { try WaylandTests().aSwitchUserTypesIntoANativeField(on: .gnome) }

    @Test func aSwitchUserTypesIntoMousepad() throws { try WaylandTests().aSwitchUserTypesIntoMousepad(on: .gnome, throughXWayland: false) }

    @Test func theWindowsPageSwitchesMaximisesAndClosesWindows() throws { try WaylandTests().theWindowsPageSwitchesMaximisesAndClosesWindows(on: .gnome) }

    @Test func theMenuAndTheKeyboardAreDrawnWithTheirLabels() throws { try WaylandTests().theMenuAndTheKeyboardAreDrawnWithTheirLabels(on: .gnome) }
}

extension GnomeTests {
    /// Where PipeWire runs (a desktop's user manager starts it), Mutter's remote desktop
    /// moves the pointer to absolute points through a screen-cast stream: its clicks at the
    /// fixture's check box tick and untick it (`switchscan-bench tap`, as point mode clicks),
    /// and a run says which motion it uses.
    @Test func withPipeWireThePointerMovesToAbsolutePoints() throws {
        let session = try WaylandSession(compositor: .gnome, pipeWire: true)
        defer { session.stop() }
        let fixture = try session.startFixture(args: [])
        let app = fixture.applicationName
        let tap = try session.runSwitchscan(["switchscan-bench", "tap", "--app", app, "--label", "Check me", "--taps", "4"], timeout: 60)
        #expect(tap.status == 0 && tap.stdout.contains("clicked through Mutter's remote desktop (absolute motion)"), "\(tap)")
        #expect(tap.stdout.split(separator: "\n").contains { $0.hasPrefix("click → the new state") && $0.hasSuffix("(4 of 4)") }, "\(tap)")
        for state in ["True", "False", "True", "False"] { try fixture.waitForLine(matching: "check \(state)") }

        let scan = try ScanDriver(session, ["--app", app])
        defer { scan.stop() }
        #expect(scan.process.stderr.contains("Pointer: Mutter's remote desktop (absolute motion)"), "\(scan.process.stderr)")
    }

    /// The monitors laid out anew (the second one moved left of the first, as in the
    /// Displays settings): the window goes with its monitor, and the outline GNOME Shell draws
    /// goes with it, whole, nothing of it left at the old place.
    @Test func theOutlineFollowsTheMonitorsLaidOutAnew() throws {
        let session = try WaylandSession(compositor: .gnome, secondMonitor: (800, 600))
        defer { session.stop() }
        let fixture = try session.startFixture(args: [])
        let scan = try ScanDriver(session, ["--app", fixture.applicationName])
        defer { scan.stop() }
        try scan.go(to: "Btn 1")
        let f = try #require(scan.current?.frame, "\(String(describing: scan.current))")
        let frame = ScreenRect(x: Int(f[0]), y: Int(f[1]), width: Int(f[2]), height: Int(f[3]))
        let ring = ScreenRect(x: frame.x - 5, y: frame.y - 5, width: frame.width + 10, height: frame.height + 10)
        let orange = RGB(r: 0xff, g: 0x8c, b: 0x00)
        let whole = 2 * 4 * (frame.width + 10) + 2 * 4 * (frame.height + 2)
        func outline(_ screen: ScreenImage) -> (box: ScreenRect, count: Int)? {
            WaylandTests.region(of: orange, in: screen, within: ScreenRect(x: 0, y: 0, width: screen.width, height: screen.height))
        }
        var seen: (box: ScreenRect, count: Int)?
        _ = try TestTime.poll(timeout: 5, every: 0.1) { seen = outline(try session.captureScreen()); return seen?.box == ring }
        #expect(seen?.box == ring && seen?.count == whole, "the outline \(String(describing: seen)) is not around \(frame)")

        // Where `desktop` says the window is.
        func windowAt() throws -> String? {
            let out = try session.runSwitchscan(["desktop", "--app", fixture.applicationName]).stdout
            return out.split(separator: "\n").first { $0.contains("frame \"SwitchScan Fixture\" at ") }
                .flatMap { $0.split(separator: " ").first { $0.contains(",") }.map(String.init) }
        }
        let before = try #require(try windowAt()?.split(separator: ",").compactMap { Int($0) }, "no window in `desktop`")

        // The second monitor (800 wide) left of the first: the first, and the window, 800 right.
        try session.layOutMonitors([("Meta-0", 800, 0, 1), ("Meta-1", 0, 0, 1)])
        let moved = ScreenRect(x: ring.x + 800, y: ring.y, width: ring.width, height: ring.height)
        _ = try TestTime.poll(timeout: 5, every: 0.1) { seen = outline(try session.captureScreen()); return seen?.box == moved }
        #expect(seen?.box == moved && seen?.count == whole, "the outline \(String(describing: seen)) did not follow the window to \(moved)")
        #expect(try windowAt() == "\(before[0] + 800),\(before[1])", "the window did not move with its monitor from \(before)")
    }

    /// The monitor scaled 200 % mid-run (as in the Displays settings, on a HiDPI laptop's
    /// screen): GTK then measures its frames in its own pixels and Mutter places the window
    /// in the screen's; the frames are doubled and put at the buffer's place, so the outline
    /// goes around the highlighted button at its new size, and the remote desktop's clicks
    /// tick the check box at its centre.
    @Test func onAMonitorScaled200TheOutlineAndClicksAreInPlace() throws {
        let session = try WaylandSession(width: 2560, height: 1600, compositor: .gnome)
        defer { session.stop() }
        let fixture = try session.startFixture(args: [])
        let app = fixture.applicationName
        let scan = try ScanDriver(session, ["--app", app])
        defer { scan.stop() }
        try scan.go(to: "Btn 1")
        let f = try #require(scan.current?.frame, "\(String(describing: scan.current))")
        let frame = ScreenRect(x: Int(f[0]), y: Int(f[1]), width: Int(f[2]), height: Int(f[3]))
        let orange = RGB(r: 0xff, g: 0x8c, b: 0x00)
        func outline() throws -> (box: ScreenRect, count: Int)? {
            let screen = try session.captureScreen()
            return WaylandTests.region(of: orange, in: screen, within: ScreenRect(x: 0, y: 0, width: screen.width, height: screen.height))
        }
        func whole(_ r: ScreenRect) -> Int { 2 * 4 * r.width + 2 * 4 * (r.height - 8) }
        var seen: (box: ScreenRect, count: Int)?
        let ring = ScreenRect(x: frame.x - 5, y: frame.y - 5, width: frame.width + 10, height: frame.height + 10)
        _ = try TestTime.poll(timeout: 5, every: 0.1) { seen = try outline(); return seen?.box == ring }
        #expect(seen?.box == ring && seen?.count == whole(ring), "the outline \(String(describing: seen)) is not around \(frame)")

        try session.layOutMonitors([("Meta-0", 0, 0, 2)])
        // Btn 1 twice as big, the outline around it where `snapshot` puts it.
        var centre = (0.0, 0.0)
        func doubled(_ b: ScreenRect) -> Bool { abs(b.width - 10 - 2 * frame.width) <= 2 && abs(b.height - 10 - 2 * frame.height) <= 2 }
        _ = try TestTime.poll(timeout: 10, every: 0.2) {
            seen = try outline()
            guard let box = seen?.box, doubled(box), let button = try TaskTests.targets(session, app: app).first(where: { $0.label == "Btn 1" }) else { return false }
            centre = button.centre
            return abs(Double(box.x) + Double(box.width) / 2 - centre.0) <= 1 && abs(Double(box.y) + Double(box.height) / 2 - centre.1) <= 1
        }
        let box = try #require(seen?.box, "no outline after the monitor was scaled")
        #expect(doubled(box) && seen?.count == whole(box), "the outline \(String(describing: seen)) is not around Btn 1 at twice \(frame)")
        #expect(abs(Double(box.x) + Double(box.width) / 2 - centre.0) <= 1 && abs(Double(box.y) + Double(box.height) / 2 - centre.1) <= 1,
                "the outline \(box) is not centred on Btn 1 at \(centre)")
        let desktop = try session.runSwitchscan(["desktop", "--app", app])
        #expect(desktop.stdout.contains(": placed by SwitchScan's GNOME Shell extension (buffer, scaled 200 %)"), "\(desktop)")
        scan.stop()

        let tap = try session.runSwitchscan(["switchscan-bench", "tap", "--app", app, "--label", "Check me", "--taps", "2"], timeout: 60)
        #expect(tap.stdout.split(separator: "\n").contains { $0.hasPrefix("click → the new state") && $0.hasSuffix("(2 of 2)") }, "\(tap)")
        for state in ["True", "False"] { try fixture.waitForLine(matching: "check \(state)") }
    }

    /// Without the extension (not installed; installed but not enabled): `desktop` says so
    /// and what to do; a run says it once on its log and once through the scan (an
    /// announcement, spoken where speech is on), scans by AT-SPI alone (the menu's Tap ticks
    /// the fixture's check box), and point mode says why it cannot be used. Not enabled:
    /// `autostart enable` enables it, and after GNOME Shell starts again (as at a login)
    /// it answers.
    @Test(arguments: [WaylandSession.Extension.absent, .disabled])
    func withoutTheExtensionItemModeWorksAndTheUserIsToldWhy(_ state: WaylandSession.Extension) throws {
        let session = try WaylandSession(compositor: .gnome, shellExtension: state)
        defer { session.stop() }
        // (The fixture, which draws nothing by itself: GNOME Shell paints on the CPU here.)
        let fixture = try session.startFixture(args: [])
        let app = fixture.applicationName
        let desktop = try session.runSwitchscan(["desktop", "--app", app])
        // (Absent from the session; a machine with the package has it in /usr/share, not enabled.)
        let packaged = FileManager.default.fileExists(atPath: "/usr/share/gnome-shell/extensions/\(WaylandSession.extensionUUID)/metadata.json")
        let told = state == .absent && !packaged ? "GNOME Shell extension: not installed" : "; not enabled ('switchscan autostart enable' enables it"
        #expect(desktop.stdout.contains(told) && desktop.stdout.contains("window places unknown"), "\(desktop)")

        let box = try #require(try TaskTests.targets(session, app: app).first { $0.label == "Check me" })
        let scan = try ScanDriver(session, ["--app", app])
        defer { scan.stop() }
        let notice = "SwitchScan's GNOME Shell extension is not answering"
        try scan.find(since: 0, "the notice, through the scan") { $0.effect == "announce" && $0.text?.contains(notice) == true }
        try Self.reach(scan, id: box.id, centre: box.centre)
        try scan.choose("Tap")
        try fixture.waitForLine(matching: "check True", timeout: 10)
        try Self.reach(scan, id: box.id, centre: box.centre)
        try scan.select(expecting: "the element's menu") { $0.effect == "menuOpen" }
        try scan.next("its first entry") { $0.effect == "highlight" && $0.kind == "menuEntry" }
        try scan.go(to: "Point mode")
        try scan.select(expecting: "why not") { $0.effect == "announce" && $0.text?.hasPrefix("Point mode cannot be used") == true }
        scan.settle()
        #expect(!scan.seen.contains { $0.effect == "modeChanged" }, "point mode began")
        #expect(scan.process.stderr.components(separatedBy: notice).count - 1 == 1, "the notice said once: \(scan.process.stderr)")
        scan.stop()

        guard state == .disabled else { return }
        let enable = try session.runSwitchscan(["autostart", "enable"])
        #expect(enable.status == 0 && enable.stdout.contains("Enabled SwitchScan's GNOME Shell extension (switchscan@switchscan.org): GNOME Shell loads it at your next login"),
                "\(enable)")
        try session.restartShell()
        let status = try session.runSwitchscan(["autostart", "status"])
        #expect(status.stdout.contains("; enabled; answering (version "), "\(status)")
    }

    /// GNOME Shell too busy to answer (its main loop held for 5 s): `desktop` says the
    /// extension did not answer in time rather than hang.
    @Test func aShellTooBusyToAnswerIsSaid() throws {
        let session = try WaylandSession(compositor: .gnome)
        defer { session.stop() }
        let busy = try session.startBackground(DesktopTool.dbusSend.path, ["--session", "--print-reply", "--reply-timeout=10000", "--dest=org.gnome.Shell", "/org/gnome/Shell",
                                                                          "org.gnome.Shell.Eval", "string:const t = Date.now(); while (Date.now() - t < 5000) {}"])
        defer { ChildProcess.stop([busy], grace: 1) }
        // Held once a call to it goes unanswered.
        let held = try TestTime.poll(timeout: 5, every: 0.1) {
            // (A property, which its main loop answers: GDBus answers a ping by itself.)
            try session.run(DesktopTool.dbusSend.path, ["--session", "--print-reply", "--reply-timeout=300", "--dest=org.gnome.Shell", "/org/gnome/Shell",
                                                        "org.freedesktop.DBus.Properties.Get", "string:org.gnome.Shell", "string:ShellVersion"], timeout: 5).status != 0
        }
        try #require(held, "GNOME Shell went on answering")
        let started = Date()
        let desktop = try session.runSwitchscan(["desktop"])
        #expect((desktop.stdout + desktop.stderr).contains("SwitchScan's GNOME Shell extension did not answer Hello in time"), "\(desktop)")
        #expect(desktop.stdout.contains("window places unknown"), "\(desktop)")
        #expect(Date().timeIntervalSince(started) < 10, "desktop waited \(Date().timeIntervalSince(started)) s")
    }

    /// GNOME Shell restarted mid-run (as at a login; its windows go with it): the run goes
    /// on, and once the application is back, its window is placed by the new Shell's
    /// extension, the outline is drawn again there, the menu's Tap ticks a check box, and a
    /// new remote-desktop session's clicks reach it.
    @Test func aRunFollowsGnomeShellRestarting() throws {
        let session = try WaylandSession(compositor: .gnome)
        defer { session.stop() }
        let before = try session.startFixture(args: [])
        let app = before.applicationName
        let scan = try ScanDriver(session, ["--app", app])
        defer { scan.stop() }
        try session.restartShell()
        let fixture = try session.startFixture(args: [])
        let box = try #require(try TaskTests.targets(session, app: app).first { $0.label == "Check me" })
        scan.settle(1)
        try Self.reach(scan, id: box.id, centre: box.centre)
        let f = try #require(scan.current?.frame)
        let orange = RGB(r: 0xff, g: 0x8c, b: 0x00)
        #expect(try TestTime.poll(timeout: 5, every: 0.1) {
            try session.captureScreen().pixel(x: Int(f[0]) - 3, y: Int(f[1] + f[3] / 2)) == orange
        }, "no outline from the new GNOME Shell")
        try scan.choose("Tap")
        try fixture.waitForLine(matching: "check True", timeout: 10)
        // Clicks of a remote-desktop session made in the new Shell, beside the run.
        let tap = try session.runSwitchscan(["switchscan-bench", "tap", "--app", app, "--label", "Check me", "--taps", "2"], timeout: 60)
        #expect(tap.stdout.contains("click → the application's AT-SPI event") && tap.stdout.contains("(2 of 2)"), "\(tap)")
        try fixture.waitForLine(matching: "check False", timeout: 5)
        #expect(scan.process.isRunning, "the run ended: \(scan.process.stderr)")
        #expect(scan.process.stderr.contains("GNOME Shell left the session bus"), "\(scan.process.stderr)")
    }
}

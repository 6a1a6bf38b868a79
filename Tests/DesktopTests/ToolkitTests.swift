import Foundation
import Testing
import TestSupport

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
        // The raise is the engine's, in the stream for front ends to see.
        try scan.find(since: 0, "the window effect that raised it") {
            $0.effect == "window" && $0.fields["action"] as? String == "activate" && $0.fields["title"] as? String == "SwitchScan Fixture"
        }
        try scan.go(to: "Btn 1")
    }
}

extension ToolkitTests {
    /// GTK 4 (gtk4-widget-factory, Debian's gtk-4-examples) gives extents relative to its
    /// window: a snapshot places them on the screen through the X window's corner, wherever
    /// the window was moved. Its type names ("GtkImage") are no labels.
    @Test func gtk4FramesAreOnTheScreenWhereverTheWindowIs() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gtk4-widget-factory") else {
            throw DesktopError.missing("/usr/bin/gtk4-widget-factory", package: "gtk-4-examples")
        }
        let session = try DesktopSession()
        defer { session.stop() }
        _ = try session.launchApplication("/usr/bin/gtk4-widget-factory", [], applicationName: "gtk4-widget-factory", title: "GTK Widget Factory")
        _ = try session.waitForApplication(named: "gtk4-widget-factory", timeout: 20)
        let id = try session.waitForWindow(titled: "GTK Widget Factory", timeout: 20)
        _ = try session.runX(.xdotool, ["windowsize", "--sync", id, "700", "500"])
        _ = try session.runX(.xdotool, ["windowmove", "--sync", id, "300", "200"])
        let x = try session.windowFrame(id: id)
        #expect(x.x == 300 && x.y == 200, "\(x)")
        let file = session.directory.appendingPathComponent("gtk4.json")
        var root: [String: Any] = [:]
        _ = try TestTime.poll(timeout: 10, every: 0.2) {
            let r = try session.runSwitchscan(["snapshot", "--app", "gtk4-widget-factory", "-o", file.path], timeout: 60)
            #expect(r.status == 0, "\(r)")
            let layout = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            root = layout["root"] as? [String: Any] ?? [:]
            return (LiveDesktopTests.frame(root)?.first ?? 0) >= 300
        }
        // No type name ("GtkImage", "GtkFrame") and no doubled label is anyone's name.
        var labels: [String] = []
        func walk(_ n: [String: Any]) {
            if let l = n["label"] as? String { labels.append(l) }
            for c in n["children"] as? [[String: Any]] ?? [] { walk(c) }
        }
        walk(root)
        #expect(labels.count > 20, "\(labels)")
        #expect(!labels.contains { $0.hasPrefix("Gtk") && !$0.contains(" ") }, "\(labels)")
        #expect(!labels.contains { l in
            let w = l.split(separator: " ")
            return w.count >= 2 && w.count % 2 == 0 && Array(w.prefix(w.count / 2)) == Array(w.suffix(w.count / 2))
        }, "\(labels)")
        #expect(!labels.contains { $0 != $0.trimmingCharacters(in: .whitespaces) || $0.isEmpty }, "\(labels)")
        let frame = try #require(LiveDesktopTests.frame(root), "\(root)")
        // `switchscan desktop` lists it where it is too.
        let listing = try session.runSwitchscan(["desktop"], timeout: 60)
        #expect(listing.stdout.contains("\"GTK Widget Factory\" at \(Int(frame[0])),\(Int(frame[1])) "), "\(listing.stdout)")
        // The window inside the X window, which is larger by its decorations' margin.
        #expect(frame[0] >= Double(x.x) && frame[0] < Double(x.x) + 30 && frame[1] >= Double(x.y) && frame[1] < Double(x.y) + 30,
                "\(frame) in \(x)")
    }
}

import Foundation
import Testing

/// Whatever an application does after an action (a modal dialog run from a menu item or a
/// button, a menu closing, a context menu), the scanner follows the window that has the
/// focus, and a menu scanned alone can always be closed. Each test prints how long the new
/// window took from its arrival on the bus (its `window:activate`, as a watcher got it) to
/// its first item highlighted.
@Suite("Never stranded", .serialized, .timeLimit(.minutes(3)))
struct StrandedTests {
    /// From the window's `window:activate` reaching the watcher to the first highlight in it
    /// reaching the test, in milliseconds (both on CLOCK_MONOTONIC).
    static func delay(_ scan: ScanDriver, _ watcher: FixtureProcess, title: String, first: EffectLine) throws -> Double {
        let line = try watcher.waitForLine(timeout: 5) { $0.hasPrefix("window:activate \(title) ") }
        let appeared = Double(line.split(separator: " ").last ?? "") ?? 0
        let highlighted = try #require(scan.process.output.arrival(of: first.raw))
        return (highlighted - appeared) * 1000
    }

    /// The new window: announced, then its first item highlighted.
    @discardableResult
    static func arrives(_ scan: ScanDriver, since mark: Int, title: String, timeout: Double = 5) throws -> EffectLine {
        let announce = try scan.find(since: mark, "'\(title)' announced", timeout: timeout) { $0.effect == "announce" && $0.text == title }
        return try scan.find(since: mark, "the first item of '\(title)'", timeout: timeout) { $0.effect == "highlight" && $0.time >= announce.time }
    }

    /// The window comes straight back after a menu closed: its scan starts again (at
    /// `first`, its first item) without its name said again (the user never left it), and
    /// the closed menu is never read as a window with nothing in it (no `scanStopped`, no
    /// "menu" announced).
    static func returnsStraight(_ scan: ScanDriver, since mark: Int, first: String) throws {
        let back = try scan.find(since: mark, "the window's first item '\(first)'") { $0.effect == "highlight" && $0.label == first }
        let between = scan.seen[mark...].filter { $0.time <= back.time }
        #expect(!between.contains { $0.effect == "scanStopped" || $0.effect == "announce" },
                "after the menu closed: \(between.map { "\($0.effect) \($0.text ?? $0.label ?? "")" })")
    }

    static func report(_ what: String, _ delays: [Double]) {
        let sorted = delays.sorted()
        let text = sorted.map { String(Int($0.rounded())) }.joined(separator: ", ")
        let median = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        print("Never stranded, \(what): window activated → its first item highlighted, \(sorted.count) times: \(text) ms"
              + " (median \(Int(median.rounded())), max \(Int((sorted.last ?? 0).rounded())) ms)")
    }

    /// A modal dialog run with gtk_dialog_run, from a button and from a menu item: the
    /// connection that carried the action is held by the dialog's loop; reading goes on.
    @Test func aModalDialogRunFromAButtonOrAMenuItemIsFollowed() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture(args: ["--menus"])
        let watcher = try session.watchWindows()
        let scan = try ScanDriver(session, ["--app", fixture.applicationName])
        defer { scan.stop() }
        var delays: [Double] = []

        // From a button, five times.
        var mark = 0
        var first: EffectLine
        for round in 0..<5 {
            try scan.go(to: "Run Dialog")
            mark = scan.seen.count
            try scan.choose("Tap")
            try fixture.waitForLine(matching: "run open")
            first = try Self.arrives(scan, since: mark, title: "Question")
            delays.append(try Self.delay(scan, watcher, title: "Question", first: first))
            #expect(first.label == "No" || first.label == "Yes", "\(first)")
            if round == 0 {
                scan.settle()
                #expect(Set(try scan.cycle()) == ["No", "Yes"], "only the dialog")
            }
            try scan.go(to: "No")
            mark = scan.seen.count
            try scan.choose("Tap")
            try fixture.waitForLine(matching: "run closed No")
            try Self.arrives(scan, since: mark, title: "SwitchScan Fixture")
        }

        // From the File menu's item.
        try scan.go(to: "File")
        mark = scan.seen.count
        try scan.choose("Tap")
        try scan.find(since: mark, "the File menu scanned") { $0.effect == "highlight" && $0.label == "Run Dialog..." }
        try scan.go(to: "Run Dialog...")
        mark = scan.seen.count
        try scan.choose("Tap")
        try fixture.waitForLine(matching: "run open")
        first = try Self.arrives(scan, since: mark, title: "Question")
        delays.append(try Self.delay(scan, watcher, title: "Question", first: first))
        try scan.go(to: "Yes")
        mark = scan.seen.count
        try scan.choose("Tap")
        try fixture.waitForLine(matching: "run closed Yes")
        try Self.arrives(scan, since: mark, title: "SwitchScan Fixture")
        Self.report("the fixture's gtk_dialog_run", delays)
        #expect(delays.allSatisfy { $0 <= 250 }, "\(delays)")
    }

    /// Mousepad's File > Open… and File > Save As… (file choosers run with gtk_dialog_run),
    /// each cancelled, back to the editor each time.
    @Test func mousepadsOpenAndSaveAsDialogsAreFollowedAndCancelled() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        _ = try session.launchApplication("/usr/bin/mousepad", ["--disable-server"], applicationName: "mousepad",
                                          title: "Untitled 1 - Mousepad",
                                          extraEnvironment: ["XDG_CONFIG_HOME": session.directory.path, "XDG_DATA_HOME": session.directory.path])
        _ = try session.waitForApplication(named: "mousepad", timeout: 15)
        let watcher = try session.watchWindows()
        let scan = try ScanDriver(session, ["--app", "mousepad"])
        defer { scan.stop() }
        var delays: [Double] = []
        for (entry, title) in Array(repeating: [("Open...", "Open File"), ("Save As...", "Save As")], count: 3).joined() {
            // The menu bar is a group.
            var mark = try scan.tapMenuEntry(entry, of: "File", first: "New", bar: "File, Edit, Search and 3 more")
            let first = try Self.arrives(scan, since: mark, title: title, timeout: 10)
            delays.append(try Self.delay(scan, watcher, title: title, first: first))
            try scan.go(to: "Cancel", limit: 80)
            mark = scan.seen.count
            try scan.choose("Tap")
            try Self.arrives(scan, since: mark, title: "Untitled 1 - Mousepad")
        }
        Self.report("mousepad's file choosers", delays)
        // A file chooser is read whole (a few hundred nodes): on a loaded machine and a debug
        // build that alone can take 250 ms. The bound says "never stranded"; the figure is printed.
        #expect(delays.allSatisfy { $0 <= 1000 }, "\(delays)")
    }

    /// A combo box's list, and a context menu, closed with their Close entry (Escape): the
    /// window is scanned again, its choice unchanged; a context menu's item still acts.
    @Test func aComboListAndAContextMenuCloseWithTheirCloseEntry() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture(args: ["--menus"])
        let scan = try ScanDriver(session, ["--app", fixture.applicationName])
        defer { scan.stop() }
        try scan.go(to: "Red")
        var mark = scan.seen.count
        try scan.choose("Tap")
        try scan.find(since: mark, "the list scanned") { $0.effect == "highlight" && $0.label?.hasPrefix("Red") == true && $0.time > 0 }
        scan.settle()
        #expect(try scan.cycle().last == "Close")
        try scan.go(to: "Close")
        mark = scan.seen.count
        try scan.choose("Tap")
        try scan.find(since: mark, "Escape, in the stream") { $0.effect == "key" && $0.fields["key"] as? String == "escape" }
        try Self.returnsStraight(scan, since: mark, first: "File")
        try fixture.expectNoLine(matching: "combo Green", within: 0.2)
        scan.settle()
        try scan.go(to: "Red")   // the choice as it was

        // A context menu: its item acts; opened again, Close closes it.
        for entry in ["Copy", "Close"] {
            try scan.go(to: "Popup Menu")
            mark = scan.seen.count
            try scan.choose("Tap")
            try scan.find(since: mark, "the context menu scanned") { $0.effect == "highlight" && $0.label?.hasPrefix("Copy") == true }
            scan.settle()
            try scan.go(to: entry)
            mark = scan.seen.count
            try scan.choose("Tap")
            if entry == "Copy" { try fixture.waitForLine(matching: "popup Copy") }
            try Self.returnsStraight(scan, since: mark, first: "File")
        }
    }
}

import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `switchscan` on a real desktop: the GTK 3 fixture on a private X server with openbox and
/// the accessibility bus, read and operated through AT-SPI. What the application itself
/// prints (or AT-SPI reports of it) is the evidence that an action took effect.
@Suite("Live desktop", .serialized, .timeLimit(.minutes(2)))
struct LiveDesktopTests {
    /// Every node of a layout file, by label (the first of a label wins).
    static func nodesByLabel(_ layout: [String: Any]) -> [String: [String: Any]] {
        var out: [String: [String: Any]] = [:]
        func walk(_ n: [String: Any]) {
            if let l = n["label"] as? String, out[l] == nil { out[l] = n }
            for c in n["children"] as? [[String: Any]] ?? [] { walk(c) }
        }
        if let root = layout["root"] as? [String: Any] { walk(root) }
        return out
    }

    static func frame(_ node: [String: Any]?) -> [Double]? {
        guard let f = node?["frame"] as? [String: Any] else { return nil }
        return ["x", "y", "width", "height"].compactMap { (f[$0] as? NSNumber)?.doubleValue }
    }

    /// The screen menu's Keys page sends a key to the focused application through XTest.
    @Test func theKeysPageSendsAKeyToTheFocusedWindow() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture()
        // With alwaysTap, each cycle ends with the Menu item, which opens the screen menu.
        let settings = session.directory.appendingPathComponent("always-tap.json")
        try #"{"tapBehavior": "alwaysTap"}"#.write(to: settings, atomically: true, encoding: .utf8)
        let scan = try ScanDriver(session, ["--app", fixture.applicationName, "--settings", settings.path])
        defer { scan.stop() }
        try scan.go(to: "Menu", limit: 80)
        try scan.select(expecting: "the screen menu") { $0.effect == "menuOpen" && ($0.fields["entries"] as? [String])?.contains("keys") == true }
        try scan.next("its first entry") { $0.effect == "highlight" && $0.kind == "menuEntry" }
        try scan.go(to: "Keys")
        try scan.select(expecting: "the Keys page") { $0.effect == "menuOpen" && ($0.fields["entries"] as? [String])?.first == "key:escape" }
        try scan.next("the Escape key highlighted") { $0.effect == "highlight" && $0.item == "key:escape" }
        try scan.select(expecting: "the key sent") { $0.effect == "key" && $0.fields["key"] as? String == "escape" }
        try fixture.waitForLine(matching: "key Escape")
        try scan.go(to: "Tab")
        try scan.select(expecting: "the key sent") { $0.effect == "key" && $0.fields["key"] as? String == "tab" }
        try fixture.waitForLine(matching: "key Tab")
    }

    /// From an element's menu (one switch, the default tap behaviour) to the screen menu's
    /// Windows page: switching to another window, maximising it and closing it, through
    /// the window manager, each seen in the window manager's own answer.
    @Test func theWindowsPageSwitchesMaximisesAndClosesWindows() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let other = try session.startFixture(args: ["--title", "Other Window", "--app-name", "other-fixture", "--move", "700", "0"])
        _ = try session.startFixture()
        try session.activateWindow(titled: "SwitchScan Fixture")
        let scan = try ScanDriver(session, [])
        defer { scan.stop() }
        try scan.go(to: "Btn 1")

        // The other window is listed by its title; the active one is not.
        let page = try scan.openWindowsPage()
        let titles = page.fields["titles"] as? [String] ?? []
        #expect(titles.contains("Other Window") && !titles.contains("SwitchScan Fixture"), "\(page)")
        #expect(Array(titles.suffix(4)) == ["Close window", "Minimise window", "Maximise window", "Done"], "\(page)")
        try scan.go(to: "Other Window")
        let asked = try scan.select(expecting: "the switch asked for") { $0.effect == "window" }
        #expect(asked.fields["action"] as? String == "activate" && asked.fields["title"] as? String == "Other Window", "\(asked)")
        let arrived = try scan.next("the other window scanned", timeout: 5) { $0.effect == "announce" && $0.text == "Other Window" }
        // A figure, not a bound: from the request to the new window's screen in the scanner.
        print("Windows page: switch to the new window's screen in \(Int(((arrived.time - asked.time) * 1000).rounded())) ms")
        #expect(try session.activeWindowTitle() == "Other Window")

        // Maximised: the window manager makes it as large as the screen.
        let id = try session.waitForWindow(titled: "Other Window")
        let before = try session.windowFrame(id: id)
        try scan.go(to: "Btn 1")
        _ = try scan.openWindowsPage()
        try scan.go(to: "Maximise window")
        try scan.select(expecting: "maximise asked for") { $0.effect == "window" && $0.fields["action"] as? String == "maximize" }
        var after = before
        for _ in 0..<100 where after.width <= before.width {
            scan.settle(0.05)
            after = try session.windowFrame(id: id)
        }
        #expect(after.width > before.width && after.height > before.height, "\(before) → \(after)")

        // Closed, as its close button would: the application hears it and quits, and the
        // scan moves to the window that is active next.
        try scan.go(to: "Btn 1")
        let again = try scan.openWindowsPage()
        #expect((again.fields["titles"] as? [String])?.contains("Restore window size") == true, "\(again)")
        try scan.go(to: "Close window")
        try scan.select(expecting: "close asked for") { $0.effect == "window" && $0.fields["action"] as? String == "close" }
        try other.waitForLine(matching: "quit")
        try scan.next("the remaining window scanned", timeout: 5) { $0.effect == "announce" && $0.text == "SwitchScan Fixture" }
    }

    /// `cost --desktop` costs the live window as `cost` costs its snapshot.
    @Test func theLiveWindowIsCostedAsItsSnapshot() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture()
        let live = try session.runSwitchscan(["cost", "--desktop", "--app", fixture.applicationName, "--json"])
        #expect(live.status == 0, "\(live)")
        let file = session.directory.appendingPathComponent("costed.json")
        let snap = try session.runSwitchscan(["snapshot", "--app", fixture.applicationName, "-o", file.path])
        #expect(snap.status == 0, "\(snap)")
        let offline = try session.runSwitchscan(["cost", file.path, "--json"])
        #expect(offline.status == 0, "\(offline)")
        let lines = live.stdout.split(separator: "\n")
        #expect(lines.count > 3, "\(live.stdout)")
        #expect(lines.last?.hasPrefix("{\"summary\": {\"elements\": ") == true)
        #expect(live.stdout == offline.stdout, "the same tree, the same costs")
        #expect(live.stdout.contains("\"label\": \"Btn 1\""))
    }

    @Test func theSnapshotIsTheWindowAsAtspiReportsIt() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture()
        let file = session.directory.appendingPathComponent("fixture.json")
        let r = try session.runSwitchscan(["snapshot", "--app", fixture.applicationName, "-o", file.path])
        #expect(r.status == 0, "\(r)")
        let layout = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let nodes = Self.nodesByLabel(layout)

        // Roles become traits; frames are AT-SPI's screen extents.
        let expected: [(role: String, name: String, traits: [String])] = [
            ("push button", "Btn 1", ["button"]), ("push button", "Btn 2", ["button"]),
            ("push button", "Disabled Btn", ["button", "notEnabled"]), ("check box", "Check me", ["button"]),
            ("toggle button", "Toggle", ["button"]), ("slider", "Volume", ["adjustable"]),
            ("heading", "Fixture Heading", ["header"]), ("label", "status: idle", ["staticText"]),
            ("table cell", "Fruits", ["button"]),
        ]
        for w in expected {
            let node = try #require(nodes[w.name], "\(w.name) is in the snapshot")
            #expect(node["traits"] as? [String] == w.traits, "\(w.name): \(node)")
            let live = try session.findAccessible(app: fixture.applicationName, role: w.role, name: w.name)
            let f = try #require(live.frame)
            #expect(Self.frame(node) == [Double(f.x), Double(f.y), Double(f.width), Double(f.height)], "\(w.name): \(node) against \(live)")
        }
        // The window is the root; openbox placed it, so frames are not window-relative.
        let root = try #require(layout["root"] as? [String: Any])
        #expect(root["label"] as? String == "SwitchScan Fixture")
        #expect((Self.frame(root)?[1] ?? 0) > 0, "the window is placed below the screen's top edge by openbox: \(root)")
        // What is not showing is not there.
        #expect(nodes["Hidden Btn"] == nil)
        #expect(nodes["Apple"] == nil, "a collapsed row is not showing")
        // The slider's range and step, the table cell's other actions.
        let adjustable = try #require(nodes["Volume"]?["adjustable"] as? [String: Any])
        #expect((adjustable["min"] as? NSNumber)?.doubleValue == 0 && (adjustable["max"] as? NSNumber)?.doubleValue == 100)
        #expect((adjustable["step"] as? NSNumber)?.doubleValue == 5 && (adjustable["value"] as? NSNumber)?.doubleValue == 50)
        let actions = (nodes["Fruits"]?["customActions"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(actions == ["expand or contract", "edit"], "activate is the tap; the others are menu entries")

        // It validates, and simulate scans it to the same items as the live run.
        let v = try session.runSwitchscan(["validate", file.path])
        #expect(v.status == 0, "\(v)")
        let scan = try ScanDriver(session, ["--app", fixture.applicationName])
        defer { scan.stop() }
        let live = try scan.cycle().map { $0 == "Volume, 50" ? "Volume" : $0 }
        let events = session.directory.appendingPathComponent("next.events")
        try (1...(live.count + 1)).map { "\($0).0 next" }.joined(separator: "\n").write(to: events, atomically: true, encoding: .utf8)
        let sim = try session.runSwitchscan(["simulate", file.path, "--style", "manual", "--events", events.path, "--until", "\(live.count + 1).5"])
        #expect(sim.status == 0, "\(sim)")
        let simulated = sim.stdoutLines.compactMap(EffectLine.init).filter { $0.effect == "highlight" }
            .map { $0.label == "Volume, 50" ? "Volume" : $0.label ?? "" }
        #expect(Array(simulated.prefix(live.count)) == live, "simulate: \(simulated)\nlive: \(live)")
        #expect(live.contains("Btn 1") && live.contains("Volume") && !live.contains("Disabled Btn") && !live.contains("status: idle"))
    }

    /// Fields' texts and controls' values, which the read asks for together at its end,
    /// come right: each text whole up to 200 characters, none of a password field or an
    /// empty one, a spin button's and a lone slider's range, step and value; and the same
    /// with batches as object by object (SWITCHSCAN_ATSPI_BATCH=0).
    @Test func fieldsTextsAndValuesAreReadAsTheWindowHasThem() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture(args: ["--fields"])
        var layouts: [String] = []
        for batches in ["1", "0"] {
            let file = session.directory.appendingPathComponent("fields-\(batches).json")
            let read = try session.runSwitchscan(shell: "SWITCHSCAN_ATSPI_BATCH=\(batches) exec \"$0\" \"$@\"",
                                                 ["snapshot", "--app", fixture.applicationName, "-o", file.path])
            #expect(read.status == 0, "batches \(batches): \(read)")
            layouts.append((try? String(contentsOf: file, encoding: .utf8)) ?? "")
        }
        #expect(layouts[0] == layouts[1], "the same tree both ways")
        let layout = try #require(try JSONSerialization.jsonObject(with: Data(layouts[0].utf8)) as? [String: Any])
        let nodes = Self.nodesByLabel(layout)
        for (name, text) in [("Short", "Hello there"), ("Long", String(repeating: "0123456789", count: 20))] {
            let node = try #require(nodes[name], "\(name) is in the snapshot")
            #expect(node["value"] as? String == text, "\(name): \(node)")
            // GTK 3 entries are one line.
            #expect(node["textEntry"] as? String == "line", "\(name): \(node)")
        }
        for name in ["Empty", "Secret"] {
            let node = try #require(nodes[name], "\(name) is in the snapshot")
            #expect(node["value"] == nil, "\(name) shows no text: \(node)")
        }
        #expect(nodes["Secret"]?["textEntry"] as? String == "password")
        for (name, range) in [("Count", [0.0, 20, 1, 7]), ("Level", [0.0, 100, 10, 30])] {
            let adjustable = try #require(nodes[name]?["adjustable"] as? [String: Any], "\(name): \(nodes[name] ?? [:])")
            let read = ["min", "max", "step", "value"].map { (adjustable[$0] as? NSNumber)?.doubleValue }
            #expect(read == range, "\(name): \(adjustable)")
            #expect((nodes[name]?["traits"] as? [String])?.contains("adjustable") == true, "\(name): \(nodes[name] ?? [:])")
        }
    }

    @Test func switchPressesOperateTheRealWidgets() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture()
        let scan = try ScanDriver(session, ["--app", fixture.applicationName])
        defer { scan.stop() }

        // A button: select opens the scanner menu, its Tap clicks the real button; the status
        // line it changed is announced (announceChanges), once.
        try scan.go(to: "Btn 2")
        let tapped = scan.seen.count
        try scan.choose("Tap")
        try fixture.waitForLine(matching: "clicked Btn 2")
        try scan.find(since: tapped, "the changed status announced") { $0.effect == "announce" && $0.text == "status: clicked Btn 2" }

        // A check box is toggled, and the application's own state says so.
        try scan.go(to: "Check me")
        try scan.choose("Tap")
        try fixture.waitForLine(matching: "check True")
        #expect(try session.findAccessible(app: fixture.applicationName, role: "check box", name: "Check me").has("checked"))

        // The slider moves by its step, twice, through the menu's Increment.
        try scan.go(to: "Volume")
        try scan.select(expecting: "the scanner menu") { $0.effect == "menuOpen" }
        try scan.next("the menu's first entry") { $0.kind == "menuEntry" }
        try scan.go(to: "Increment")
        try scan.select(expecting: "the adjustment") { $0.effect == "adjust" }
        try fixture.waitForLine(matching: "scale 55.0")
        try scan.select(expecting: "the second adjustment") { $0.effect == "adjust" }
        try fixture.waitForLine(matching: "scale 60.0")
        let volume = try session.findAccessible(app: fixture.applicationName, role: "slider", name: "Volume")
        #expect(volume.value == 60, "\(volume)")
        try scan.process.send("\u{1b}")   // Esc leaves the menu
        try scan.next("the menu closing") { $0.effect == "menuClose" }

        // A named action that is not the tap: the table cell's "expand or contract", inside
        // the table's group.
        try scan.go(to: "Food")
        try scan.select(expecting: "entering the table's group") { $0.effect == "enterGroup" }
        try scan.go(to: "Fruits")
        try scan.choose("expand or contract")
        try fixture.waitForLine(matching: "expanded Fruits")
        // The rows it shows become items of the table's group.
        _ = try session.findAccessible(app: fixture.applicationName, role: "table cell", name: "Apple", timeout: 2)
    }

    @Test func aDialogIsScannedAloneAndItsClosingReturnsToTheWindow() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture()
        let scan = try ScanDriver(session, [])
        defer { scan.stop() }
        try scan.go(to: "Open Dialog")
        let mark = scan.seen.count
        try scan.choose("Tap")
        try fixture.waitForLine(matching: "dialog open")
        let announce = try scan.find(since: mark, "the dialog's announcement") { $0.effect == "announce" }
        #expect(announce.text == "Confirm")
        let first = try scan.find(since: mark, "the dialog's first item") { $0.effect == "highlight" && $0.time >= announce.time }
        #expect(first.label == "Cancel" || first.label == "OK", "\(first)")
        scan.settle()
        let items = try scan.cycle()
        #expect(Set(items) == ["OK", "Cancel"], "only the dialog's buttons: \(items)")
        try scan.go(to: "Cancel")
        let closing = scan.seen.count
        try scan.choose("Tap")
        try fixture.waitForLine(matching: "dialog closed Cancel")
        let back = try scan.find(since: closing, "the window's announcement") { $0.effect == "announce" }
        #expect(back.text == "SwitchScan Fixture")
        let again = try scan.find(since: closing, "the window's first item") { $0.effect == "highlight" && $0.time >= back.time }
        #expect(again.label == "Btn 1")
    }

    @Test func aMenuThatOpensIsScannedAloneAndItsChoiceTakesEffect() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture()
        let scan = try ScanDriver(session, ["--app", fixture.applicationName])
        defer { scan.stop() }
        // The combo box's label is its choice.
        try scan.go(to: "Red")
        let mark = scan.seen.count
        try scan.choose("Tap")
        let opened = try scan.find(since: mark, "the menu announced") { $0.effect == "announce" }
        let first = try scan.find(since: mark, "the menu's first item") { $0.effect == "highlight" && $0.time >= opened.time }
        // GTK marks the item under the pointer or the keyboard selected: that is no choice.
        #expect(first.label == "Red", "\(first)")
        scan.settle()
        let items = try scan.cycle()
        #expect(items == ["Red", "Green", "Blue", "Close"], "only the open menu, and its Close: \(items)")
        try scan.go(to: "Green")
        let closing = scan.seen.count
        try scan.choose("Tap")
        try fixture.waitForLine(matching: "combo Green")
        // The window comes back at its first item, its name not said again: the user never left it.
        let back = try scan.find(since: closing, "the window's first item") { $0.effect == "highlight" && $0.label == "Btn 1" }
        #expect(!scan.seen[closing...].contains { $0.effect == "announce" && $0.time <= back.time }, "\(scan.seen[closing...])")
        scan.settle()
        try scan.go(to: "Green")   // the combo box now says Green
    }

    @Test func whatAPageTabHoldsIsScannedAfterIt() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture()
        let scan = try ScanDriver(session, ["--app", fixture.applicationName])
        defer { scan.stop() }
        // The tabs are a group; its items are the first tab, the page it shows, the second tab.
        for _ in 0..<40 where !(scan.current?.kind == "group" && scan.current?.label?.contains("Inside Tab") == true) {
            try scan.process.send("\t")
            try scan.next("a highlight after Tab") { $0.effect == "highlight" }
        }
        try scan.select(expecting: "entering the tabs") { $0.effect == "enterGroup" }
        try scan.next("the group's first item") { $0.effect == "highlight" }
        let items = try scan.cycle().filter { !$0.hasPrefix("Exit") }
        #expect(items.prefix(3) == ["First, selected", "Inside Tab", "Second"], "\(items)")
        try scan.go(to: "Inside Tab")
        try scan.choose("Tap")
        try fixture.waitForLine(matching: "clicked Inside Tab")
    }

    @Test func aWidgetRemovedMidScanKeepsThePlace() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture()
        let scan = try ScanDriver(session, ["--app", fixture.applicationName])
        defer { scan.stop() }

        // A change elsewhere in the window: the highlight stays where it is, unannounced.
        try scan.go(to: "Volume")
        try session.doAction(app: fixture.applicationName, role: "check box", name: "Check me", action: "click")
        try fixture.waitForLine(matching: "check True")
        try scan.process.expectNoLine("no new highlight", within: 0.4) { ($0.contains("\"highlight\"")) }
        try scan.process.send("\t")
        #expect(try scan.next("the item after Volume") { $0.effect == "highlight" }.label == "Open Dialog")

        // The highlighted element itself goes: the item after it is highlighted.
        try scan.go(to: "Btn 3")
        try session.doAction(app: fixture.applicationName, role: "push button", name: "Remove Btn 3", action: "click")
        try fixture.waitForLine(matching: "removed Btn 3")
        let moved = try scan.next("the highlight moving off the removed button") { $0.effect == "highlight" }
        #expect(moved.label == "Check me, selected", "the check box, checked above: \(moved)")
        let items = try scan.cycle()
        #expect(!items.contains("Btn 3") && items.contains("Btn 2"), "\(items)")
    }

    @Test func anApplicationThatStopsOrDiesNeverStallsTheScan() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let other = try session.startFixture(args: ["--title", "Other Window", "--app-name", "other-fixture", "--move", "700", "0"])
        let fixture = try session.startFixture()
        try session.activateWindow(titled: "SwitchScan Fixture")
        let scan = try ScanDriver(session, ["--settings", try Self.settings(session, interval: 0.25)], style: "auto")
        defer { scan.stop() }
        try scan.next("a highlight in the fixture") { $0.effect == "highlight" && $0.label == "Btn 1" }

        // Stopped (SIGSTOP): the scan goes on with what it knows, at its own timing.
        kill(fixture.pid, SIGSTOP)
        let steps = try (0..<6).map { _ in try scan.next("a highlight while the application is stopped") { $0.effect == "highlight" } }
        Self.expectSteps(steps, 0.25)
        // A tap on the stopped application waits there, which the user is told, and scanning
        // goes on.
        try scan.process.send(" ")
        try scan.next("the scanner menu") { $0.effect == "menuOpen" }
        try scan.process.send(" ")
        let waiting = try scan.next("the waiting tap reported", timeout: 5) { $0.effect == "announce" }
        #expect(waiting.text?.contains("is waiting: the application does not answer") == true, "\(waiting)")
        let after = try (0..<3).map { _ in try scan.next("a highlight after the waiting tap") { $0.effect == "highlight" } }
        Self.expectSteps(after, 0.25)
        // Tried again: not sent, so the application does not get it twice.
        try scan.process.send(" ")
        try scan.next("the scanner menu") { $0.effect == "menuOpen" }
        try scan.process.send(" ")
        let refused = try scan.next("the second tap refused", timeout: 5) { $0.effect == "announce" }
        #expect(refused.text?.contains("not sent: the application still does not answer") == true, "\(refused)")
        kill(fixture.pid, SIGCONT)
        // The first tap happens once the application answers; the second never does.
        let tapped = try fixture.waitForLine(timeout: 5) { $0 != "drawn" }
        try fixture.expectNoLine(matching: tapped, within: 1)

        // Killed: the scan moves to the window that is active next, and keeps its timing.
        kill(fixture.pid, SIGKILL)
        let moved = try scan.next("the other window announced", timeout: 5) { $0.effect == "announce" && $0.text == "Other Window" }
        let onward = try (0..<4).map { _ in try scan.next("a highlight in the other window") { $0.effect == "highlight" } }
        #expect(onward.allSatisfy { $0.time >= moved.time })
        Self.expectSteps(Array(onward.dropFirst()), 0.25)
        _ = other
    }

    @Test func withNothingToScanItStopsAndStartsAgainWhenAWindowComes() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture()
        let scan = try ScanDriver(session, ["--app", fixture.applicationName])
        defer { scan.stop() }
        _ = fixture.terminate()
        let stopped = try scan.next("the scan stopping") { $0.effect == "scanStopped" }
        #expect(stopped.fields["reason"] as? String == "nothingToScan", "\(stopped)")
        let again = try session.startFixture()
        #expect(again.applicationName == fixture.applicationName)
        let announced = try scan.next("the new window announced") { $0.effect == "announce" }
        #expect(announced.text == "SwitchScan Fixture")
        try scan.next("scanning again") { $0.effect == "scanStarted" }
        let first = try scan.next("its first item") { $0.effect == "highlight" }
        #expect(first.label == "Btn 1")
        try scan.choose("Tap")
        try again.waitForLine(matching: "clicked Btn 1")
    }

    /// A label that changes every millisecond is a flood: its window is read at most five
    /// times a second, so the highlight on it is redrawn at most that often (not 33 times a
    /// second, once every 30 ms).
    @Test func aLabelChangingEveryMillisecondIsRedrawnAtMostFiveTimesASecond() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let fixture = try session.startFixture(args: ["--ticker"])
        let settings = session.directory.appendingPathComponent("all-items.json")
        try #"{"itemScope": "all"}"#.write(to: settings, atomically: true, encoding: .utf8)
        let scan = try ScanDriver(session, ["--app", fixture.applicationName, "--settings", settings.path])
        defer { scan.stop() }
        let ticker = try scan.next("the ticking label highlighted") { $0.effect == "highlight" && $0.label?.hasPrefix("tick ") == true }
        // Past the flood's first second, when it is recognised whatever the machine's load.
        scan.settle(1)
        let mark = scan.seen.count
        scan.settle(2)
        let redrawn = scan.seen[mark...].filter { $0.effect == "highlight" && $0.item == ticker.item }
        let ticks = redrawn.compactMap { $0.label.flatMap { Int($0.dropFirst(5)) } }
        let span = (redrawn.last?.time ?? 0) - (redrawn.first?.time ?? 0)
        let rate = span > 0 ? Double((ticks.last ?? 0) - (ticks.first ?? 0)) / span : 0
        print("Ticker: \(redrawn.count) redraws in \(span) s; the label changed \(Int(rate)) times a second")
        // The label did change fast enough to flood (each change is two events or more).
        #expect(rate > 150, "\(ticks)")
        // Redraws a second over the span seen (the wait is longer where tests run slower).
        let redraws = span > 0 ? Double(redrawn.count - 1) / span : 0
        #expect(redrawn.count >= 4 && redraws <= 6, "\(redraws) a second: \(redrawn.map(\.time))")
        #expect(zip(redrawn, redrawn.dropFirst()).allSatisfy { $1.time - $0.time >= 0.15 }, "\(redrawn.map(\.time))")
    }

    /// Auto-scan steps land on the interval (the engine's own deadlines, however late the
    /// desktop answered).
    static func expectSteps(_ steps: [EffectLine], _ interval: Double) {
        for (a, b) in zip(steps, steps.dropFirst()) where a.kind != "menuEntry" && b.kind != "menuEntry" {
            let gap = b.time - a.time
            #expect(abs(gap - interval) < 0.0015 || abs(gap - 2 * interval) < 0.0015, "steps \(a) → \(b)")
        }
    }

    static func settings(_ session: DesktopSession, interval: Double) throws -> String {
        let url = session.directory.appendingPathComponent("settings-\(interval).json")
        try "{\"autoScanInterval\": \(interval), \"loops\": 100}".write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test func theDesktopCommandSaysWhatWouldBeScanned() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        // Nothing on the bus yet: exit status 1 and the fix.
        let empty = try session.runSwitchscan(["snapshot"])
        #expect(empty.status == 1 && empty.stderr.contains("toolkit-accessibility") && empty.stdout.isEmpty, "\(empty)")
        let fixture = try session.startFixture()
        let r = try session.runSwitchscan(["desktop"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("\(fixture.applicationName) (pid \(fixture.pid), gtk): 1 showing window"), "\(r.stdout)")
        #expect(r.stdout.contains("Scanned: \"SwitchScan Fixture\" of \(fixture.applicationName): it is the active window."), "\(r.stdout)")
        let missing = try session.runSwitchscan(["run", "--desktop", "--app", "no-such-app", "--no-devices", "--output", "json"])
        #expect(missing.status == 1 && missing.stderr.contains("no application named 'no-such-app'"), "\(missing)")
        // Standard output closed: the listing fails as a write to it, and never goes into
        // the bus connection opened after start (which would otherwise take its number).
        let closed = try session.runSwitchscan(shell: #"exec "$0" "$@" >&-"#, ["desktop"])
        #expect(closed.status == 1 && closed.stderr.contains("cannot write to standard output: Bad file descriptor"), "\(closed)")
        #expect(!closed.stderr.contains("Error:"), "the bus was left as it was: \(closed)")
    }

    @Test func withoutAnAccessibilityBusItSaysHowToGetOne() throws {
        // No session: no display, no session bus.
        let binary = try #require(SwitchscanBinary.url, "the switchscan executable is built")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("switchscan-nobus-\(getpid())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var env = ProcessInfo.processInfo.environment
        env["DISPLAY"] = nil
        env["DBUS_SESSION_BUS_ADDRESS"] = nil
        env["AT_SPI_BUS_ADDRESS"] = nil
        env["XDG_RUNTIME_DIR"] = FileManager.default.temporaryDirectory.path
        for args in [["desktop"], ["snapshot"], ["run", "--desktop", "--no-devices", "--output", "json"]] {
            let r = try ChildProcess.run(binary.path, args, environment: env, scratch: scratch, timeout: 20)
            #expect(r.status == 1, "\(args): \(r)")
            #expect(r.stderr.contains("at-spi2-core") && r.stdout.isEmpty, "\(args): \(r)")
        }
    }
}

import Dispatch
import Foundation
import ScanCore
import ScreenScene
import Testing
import WaylandOutput
import TestSupport

/// SwitchScan under headless sway (and, where a test says so, headless KWin): native
/// Wayland windows placed from sway's IPC (a KWin script), the outline drawn above them,
/// clicks of the compositor's virtual pointer (KWin's fake input); checked against what the
/// compositor draws and what the application says through AT-SPI.
@Suite(.serialized) struct WaylandTests {
    /// The check box frames of a snapshot (a layout file's tree).
    static func checkBoxes(_ layout: [String: Any]) -> [ScreenRect] {
        var out: [ScreenRect] = []
        func walk(_ n: [String: Any]) {
            if n["label"] as? String == "checkbutton", let f = n["frame"] as? [String: Any],
               let x = f["x"] as? Double, let y = f["y"] as? Double, let w = f["width"] as? Double, let h = f["height"] as? Double {
                out.append(ScreenRect(x: Int(x), y: Int(y), width: Int(w), height: Int(h)))
            }
            for c in n["children"] as? [[String: Any]] ?? [] { walk(c) }
        }
        walk(layout["root"] as? [String: Any] ?? [:])
        return out
    }

    /// gtk3-widget-factory measures its frames from its buffer, shadow included; sway says
    /// where its window is. Each check box is drawn inside the frame SwitchScan gives it.
    @Test func aNativeGtk3WindowIsPlacedFromSwaysIPC() throws {
        let session = try WaylandSession()
        defer { session.stop() }
        try session.launch("/usr/bin/gtk3-widget-factory")
        try session.waitForApplication(named: "gtk3-widget-factory")
        var desktop = ToolResult(command: [], status: -1, stdout: "", stderr: "", timedOut: false)
        // The window shows on AT-SPI a moment before sway has placed it.
        _ = try TestTime.poll(timeout: 10, every: 0.2) {
            desktop = try session.runSwitchscan(["desktop", "--app", "gtk3-widget-factory"])
            return desktop.stdout.contains("placed by")
        }
        #expect(desktop.status == 0, "\(desktop)")
        #expect(desktop.stdout.contains("Session: sway (Wayland); window places from sway's IPC."), "\(desktop)")
        #expect(desktop.stdout.contains("The compositor offers the layer shell (the outline, the menu and the keyboard drawn), a virtual pointer (taps) and a virtual keyboard (keys)."), "\(desktop)")
        // 26 × 23 px of shadow around the window sway floated to 200,150 (its size follows
        // the fonts installed).
        #expect(desktop.stdout.split(separator: "\n").contains { $0.contains(" at 174,127 ") && $0.hasSuffix(": placed by sway's IPC (geometry less the shadow)") },
                "\(desktop)")

        let snapshot = try session.runSwitchscan(["snapshot", "--app", "gtk3-widget-factory"])
        #expect(snapshot.status == 0, "\(snapshot)")
        let layout = try #require(try JSONSerialization.jsonObject(with: Data(snapshot.stdout.utf8)) as? [String: Any])
        let boxes = Self.checkBoxes(layout)
        try #require(!boxes.isEmpty, "no check box in \(snapshot.stdout.prefix(2000))")
        #expect(boxes.allSatisfy { $0.x >= session.windowCorner.x && $0.y >= session.windowCorner.y }, "\(boxes)")

        try Self.expectDrawnInPlace(boxes, on: try session.captureScreen())
    }

    /// Each check box is drawn where its frame says: its indicator (a 14 px square a few
    /// pixels in) differs from the window's background, which the 8 px left of the frame and
    /// the row 3 px above it are.
    static func expectDrawnInPlace(_ boxes: [ScreenRect], on screen: ScreenImage) throws {
        for box in boxes {
            let background = screen.pixel(x: box.x - 4, y: box.y + box.height / 2)
            let indicator = ScreenRect(x: box.x, y: box.y, width: box.height, height: box.height)
            let drawn = (indicator.y..<indicator.y + indicator.height).reduce(0) { n, y in
                n + (indicator.x..<indicator.x + indicator.width).filter { screen.pixel(x: $0, y: y).distance(to: background) > 40 }.count
            }
            #expect(drawn >= 40, "no check box indicator inside \(box): \(drawn) pixels differ from \(background)")
            let left = (box.y..<box.y + box.height).allSatisfy { y in (box.x - 8..<box.x).allSatisfy { screen.pixel(x: $0, y: y).distance(to: background) <= 8 } }
            let above = (box.x..<box.x + box.height).allSatisfy { screen.pixel(x: $0, y: box.y - 3).distance(to: background) <= 8 }
            #expect(left && above, "something is drawn just outside \(box)")
        }
    }

    /// A GTK 4 window (the dialogs fixture, natively) measures its frames from its window's
    /// geometry (GTK 4 draws its shadow outside it): its Save As… button, clicked by the
    /// compositor's virtual pointer at the centre of the frame SwitchScan gives it, opens
    /// the dialog.
    @Test func aNativeGtk4WindowIsPlacedFromSwaysIPC() throws {
        let session = try WaylandSession()
        defer { session.stop() }
        let fixture = try session.startFixture(args: ["--toolkit", "gtk4"], script: ToolkitDialogTests.script, defaultName: "dialogs-gtk4")
        var desktop = ToolResult(command: [], status: -1, stdout: "", stderr: "", timedOut: false)
        _ = try TestTime.poll(timeout: 10, every: 0.2) {
            desktop = try session.runSwitchscan(["desktop", "--app", fixture.applicationName])
            return desktop.stdout.contains("placed by")
        }
        #expect(desktop.stdout.contains("(pid") && desktop.stdout.contains("gtk4)"), "\(desktop)")
        // Inside sway's 2 px border and its title bar (as high as its font makes it), from its
        // window's geometry.
        let line = desktop.stdout.split(separator: "\n").first { $0.contains("placed by sway's IPC (geometry)") } ?? ""
        let at = line.components(separatedBy: " at ").last?.split(separator: " ").first?.split(separator: ",").compactMap { Int($0) } ?? []
        #expect(at.count == 2 && at[0] == 202 && (170...190).contains(at[1]), "\(desktop)")
        let targets = try TaskTests.targets(session, app: fixture.applicationName)
        let button = try #require(targets.first { $0.label == "Save As..." && $0.traits.contains("button") }, "\(targets.map(\.label))")
        let (x, y) = button.centre
        #expect(x > Double(session.windowCorner.x) && y > Double(session.windowCorner.y), "\(button.centre)")
        let pointer = try WaylandPointer(display: session.waylandSocket)
        // Applications take up a pointer made just now a moment later (docs/DESKTOP.md).
        var opened = false
        _ = try TestTime.poll(timeout: 5, every: 0.5) {
            #expect(pointer.click(at: Point(x: x, y: y)))
            opened = (try? fixture.waitForLine(matching: "dialog open", timeout: 0.4)) != nil
            return opened
        }
        #expect(opened, "the click at \(button.centre) did not open the dialog: \(fixture.lines)")
    }

    /// The session with gtk3-widget-factory, and its check boxes on the screen as `snapshot`
    /// gives them.
    static func widgetFactory(_ kind: WaylandSession.Compositor = .sway) throws -> (WaylandSession, [ScreenRect]) {
        let session = try WaylandSession(compositor: kind)
        // GNOME Shell places the window itself, at the screen's left edge for one this wide.
        return (session, try launchWidgetFactory(session, rightOf: kind == .gnome ? 0 : session.windowCorner.x))
    }

    /// gtk3-widget-factory started in `session`, and its six check boxes once `snapshot`
    /// places them all right of `x` (where the window is put).
    static func launchWidgetFactory(_ session: WaylandSession, rightOf x: Int) throws -> [ScreenRect] {
        try session.launch("/usr/bin/gtk3-widget-factory")
        try session.waitForApplication(named: "gtk3-widget-factory")
        var boxes: [ScreenRect] = []
        _ = try TestTime.poll(timeout: 10, every: 0.2) {
            let r = try session.runSwitchscan(["snapshot", "--app", "gtk3-widget-factory"])
            guard r.status == 0, let layout = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] else { return false }
            boxes = checkBoxes(layout)
            return boxes.count == 6 && boxes.allSatisfy { $0.x > x }
        }
        try #require(boxes.count == 6, "the check boxes were not read in place (right of \(x)): \(boxes)")
        return boxes
    }

    /// The layer-shell overlay draws the outline just outside a check box, to the pixel: a
    /// dark pixel, four of the highlight colour, a dark pixel; the check box itself untouched.
    @Test(arguments: [WaylandSession.Compositor.sway, .kwin])
    func theOutlineIsDrawnAboveTheWindowJustOutsideTheFrame(on kind: WaylandSession.Compositor) throws {
        let (session, boxes) = try Self.widgetFactory(kind)
        defer { session.stop() }
        let queue = DispatchQueue(label: "overlay")
        let overlay = try LayerOverlay(display: session.waylandSocket, feedback: FeedbackSettings(), queue: queue)
        defer { queue.sync { overlay.finish() } }
        let box = boxes[4]
        let frame = Rect(x: Double(box.x), y: Double(box.y), width: Double(box.width), height: Double(box.height))
        try queue.sync { try overlay.present([TimedEffect(.zero, .highlight(item: "check", kind: .element, frame: frame, label: "checkbutton", context: nil))]) }
        let orange = RGB(r: 0xff, g: 0x8c, b: 0x00), black = RGB(r: 0, g: 0, b: 0)
        var row: [RGB] = []
        _ = try TestTime.poll(timeout: 5, every: 0.05) {
            let screen = try session.captureScreen()
            row = (box.x - 7...box.x).map { screen.pixel(x: $0, y: box.y + box.height / 2) }
            return row[2] == orange
        }
        #expect(row[1...6] == [black, orange, orange, orange, orange, black], "\(row)")
        #expect(row[0] != orange && row[7] != orange && row[7] != black, "\(row)")
        let screen = try session.captureScreen()
        // Above and below too; the whole ring is there.
        #expect(screen.pixel(x: box.x + 10, y: box.y - 3) == orange && screen.pixel(x: box.x + 10, y: box.y + box.height + 2) == orange)
        #expect(screen.count(of: orange, in: ScreenRect(x: box.x - 6, y: box.y - 6, width: box.width + 12, height: box.height + 12))
                == 2 * 4 * (box.width + 10) + 2 * 4 * (box.height + 2))
        // Moved to another: nothing is left behind.
        let other = boxes[0]
        try queue.sync {
            try overlay.present([TimedEffect(.seconds(1), .highlight(item: "other", kind: .element,
                                                                      frame: Rect(x: Double(other.x), y: Double(other.y), width: Double(other.width), height: Double(other.height)),
                                                                      label: "checkbutton", context: nil))])
        }
        var moved = false
        _ = try TestTime.poll(timeout: 5, every: 0.05) {
            let s = try session.captureScreen()
            moved = s.pixel(x: other.x - 3, y: other.y + other.height / 2) == orange && s.pixel(x: box.x - 3, y: box.y + box.height / 2) != orange
            return moved
        }
        #expect(moved, "the outline did not move, or left its old ring behind")
    }

    /// Two outputs side by side, the window on the second: the outline is drawn there, on
    /// that output's surface, and the menu beside it, nothing on the first. An output plugged
    /// in while scanning gets a surface of its own (an outline there is drawn), and one turned
    /// off changes nothing on the others.
    @Test func theOutlineIsDrawnOnEveryOutputAsTheyComeAndGo() throws {
        let session = try WaylandSession()
        defer { session.stop() }
        let width = session.screenWidth, height = session.screenHeight
        try session.addOutput(at: width, 0, width: 1024, height: 768)
        let focus = try session.run("/usr/bin/swaymsg", ["focus", "output", "HEADLESS-2"])
        try #require(focus.status == 0, "\(focus)")
        let boxes = try Self.launchWidgetFactory(session, rightOf: width + session.windowCorner.x)

        let queue = DispatchQueue(label: "overlay")
        let overlay = try LayerOverlay(display: session.waylandSocket, feedback: FeedbackSettings(), queue: queue)
        defer { queue.sync { overlay.finish() } }
        #expect(queue.sync { overlay.screens } == [PixelRect(x: 0, y: 0, width: width, height: height), PixelRect(x: width, y: 0, width: 1024, height: 768)])
        let orange = RGB(r: 0xff, g: 0x8c, b: 0x00), panel = RGB(r: 0x20, g: 0x20, b: 0x20)
        var screen = try session.captureScreen()
        /// Presents `effects` and waits until the screen shows `shown` (false: it never did).
        func present(_ effects: [Effect], at t: Double, until shown: (ScreenImage) -> Bool) throws -> Bool {
            try queue.sync { try overlay.present(effects.map { TimedEffect(.seconds(t), $0) }) }
            return try TestTime.poll(timeout: 5, every: 0.05) {
                screen = try session.captureScreen()
                return shown(screen)
            }
        }
        func highlight(_ id: String, _ r: ScreenRect) -> Effect {
            .highlight(item: id, kind: .element, frame: Rect(x: Double(r.x), y: Double(r.y), width: Double(r.width), height: Double(r.height)), label: nil, context: nil)
        }
        func ringed(_ r: ScreenRect) -> (ScreenImage) -> Bool { { $0.pixel(x: r.x - 3, y: r.y + r.height / 2) == orange } }
        func around(_ r: ScreenRect) -> ScreenRect { ScreenRect(x: r.x - 6, y: r.y - 6, width: r.width + 12, height: r.height + 12) }

        let box = boxes[4]
        #expect(try present([highlight("check", box), .menuOpen(element: "check", entries: ["tap", "gestures"], titles: ["Tap", "Gestures"])],
                            at: 0, until: ringed(box)), "no outline on the second output")
        #expect(screen.width == width + 1024, "the screenshot is \(screen.width) wide")
        #expect(screen.count(of: orange, in: around(box)) == 2 * 4 * (box.width + 10) + 2 * 4 * (box.height + 2), "the ring on the second output is not whole")
        let menu = Self.region(of: panel, in: screen, within: ScreenRect(x: box.x + box.width, y: 0, width: 1024, height: 768))
        #expect((menu?.count ?? 0) > 2000, "no menu panel beside the outline on the second output")
        let first = ScreenRect(x: 0, y: 0, width: width, height: height)
        #expect(screen.count(of: orange, in: first) == 0 && screen.count(of: panel, in: first) < 50, "something is drawn on the first output")

        // Point mode sweeps both outputs, not only the first (no X server says how wide).
        let settings = session.directory.appendingPathComponent("point.json")
        try #"{"mode": "point"}"#.write(to: settings, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: settings.path)
        let point = try ScanDriver(session, ["--app", "gtk3-widget-factory", "--settings", settings.path], first: "sweep")
        let sweep = try #require(point.seen.last { $0.effect == "sweep" }, "no sweep")
        #expect(sweep.fields["bounds"] as? [Double] == [0, Double(width + 1024)], "\(sweep.fields)")
        point.stop()

        // The second output moved down the layout (its window with it): the outline there
        // follows, and nothing of it is left where the output's old pixels put it.
        let moved = try session.run("/usr/bin/swaymsg", ["output", "HEADLESS-2", "position", "\(width)", "100"])
        try #require(moved.status == 0, "\(moved)")
        _ = try TestTime.poll(timeout: 5, every: 0.05) { queue.sync { overlay.screens }.last?.y == 100 }
        #expect(queue.sync { overlay.screens }.last == PixelRect(x: width, y: 100, width: 1024, height: 768))
        func down(_ r: ScreenRect) -> ScreenRect { ScreenRect(x: r.x, y: r.y + 100, width: r.width, height: r.height) }
        let other = down(boxes[0]), was = down(box)
        #expect(try present([.menuClose(element: "check"), highlight("other", other)], at: 1, until: ringed(other)), "the outline was not drawn on the moved output")
        #expect(screen.count(of: orange, in: around(was)) == 0, "the old outline was left on the moved output")

        // A third output plugged in: a surface there too.
        try session.addOutput("HEADLESS-3", at: width + 1024, 0, width: 800, height: 600)
        var screens: [PixelRect] = []
        _ = try TestTime.poll(timeout: 5, every: 0.05) {
            screens = queue.sync { overlay.screens }
            return screens.count == 3
        }
        #expect(screens.last == PixelRect(x: width + 1024, y: 0, width: 800, height: 600), "\(screens)")
        let third = ScreenRect(x: width + 1024 + 100, y: 100, width: 120, height: 40)
        #expect(try present([highlight("there", third)], at: 2) { $0.width > width + 1024 && ringed(third)($0) && !ringed(other)($0) },
                "the outline was not drawn on the output plugged in, or stayed on the second")

        // Turned off (sway 1.7 keeps a disabled output's global and tells its clients
        // nothing; its headless outputs cannot be unplugged): the others draw on.
        let off = try session.run("/usr/bin/swaymsg", ["output", "HEADLESS-3", "disable"])
        try #require(off.status == 0, "\(off)")
        #expect(try present([highlight("check", was)], at: 3, until: ringed(was)), "the outline was not drawn after an output was turned off")
    }

    /// The compositor's virtual pointer clicks at the check box's centre as `snapshot` gives
    /// it, and the check box changes (read back through AT-SPI by `snapshot`). A second output
    /// right of the first makes the layout wider than the window's output: the pointer's
    /// absolute motion is given in the whole layout (xdg-output), or the click would land
    /// elsewhere.
    @Test func theVirtualPointerClicksWhereTheFrameSays() throws {
        let (session, boxes) = try Self.widgetFactory()
        defer { session.stop() }
        try session.addOutput(at: session.screenWidth, 0, width: 800, height: 600)
        let pointer = try WaylandPointer(display: session.waylandSocket)
        #expect(pointer.extent == PixelRect(x: 0, y: 0, width: session.screenWidth + 800, height: session.screenHeight))
        func checked() throws -> [Bool] {
            let r = try session.runSwitchscan(["snapshot", "--app", "gtk3-widget-factory"])
            let layout = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            var states: [Bool] = []
            func walk(_ n: [String: Any]) {
                if n["label"] as? String == "checkbutton" { states.append((n["traits"] as? [String] ?? []).contains("selected")) }
                for c in n["children"] as? [[String: Any]] ?? [] { walk(c) }
            }
            walk(layout["root"] as? [String: Any] ?? [:])
            return states
        }
        let before = try checked()
        let box = boxes.first { b in boxes.firstIndex(of: b).map { !before[$0] } ?? false && b.y < boxes[3].y }
        let target = try #require(box, "no unchecked check box that can be used: \(before)")
        let index = try #require(boxes.firstIndex(of: target))
        #expect(pointer.click(at: Point(x: Double(target.x + 8), y: Double(target.y + target.height / 2))))
        var after = before
        _ = try TestTime.poll(timeout: 5, every: 0.1) {
            after = try checked()
            return after != before
        }
        var expected = before
        expected[index] = true
        #expect(after == expected, "clicked \(target): before \(before), after \(after)")
    }

    /// The compositor's virtual keyboard, with SwitchScan's own keymap, types a sentence with
    /// characters no US layout has into mousepad, natively; its being there makes the window
    /// active on a seat that had no keyboard.
    @Test func theVirtualKeyboardTypesAnyCharacter() throws {
        let session = try WaylandSession()
        defer { session.stop() }
        let keys = try WaylandKeys(display: session.waylandSocket)
        try session.launch("/usr/bin/mousepad")
        try session.waitForApplication(named: "mousepad")
        var focused = ToolResult(command: [], status: -1, stdout: "", stderr: "", timedOut: false)
        let ready = try TestTime.poll(timeout: 15, every: 0.2) {
            focused = try session.atspiQuery(["focused-text", "mousepad"])
            return focused.status == 0
        }
        try #require(ready, "mousepad's text never had the focus.\n\(focused)")
        let sentence = "Héllo wörld, 5 € — ½ ça va? Ĉu vi?\nLine 2\t!"
        let typed = keys.type(sentence)
        #expect(typed.ok && typed.missing.isEmpty, "\(typed)")
        #expect(keys.press(KeyChord("Home")))
        #expect(keys.type(">").ok)
        var text = ""
        _ = try TestTime.poll(timeout: 5, every: 0.1) {
            let r = try session.atspiQuery(["focused-text", "mousepad"])
            text = (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8), options: .fragmentsAllowed) as? String) ?? r.stdout
            return text == "Héllo wörld, 5 € — ½ ça va? Ĉu vi?\n>Line 2\t!"
        }
        #expect(text == "Héllo wörld, 5 € — ½ ça va? Ĉu vi?\n>Line 2\t!")
        // Shortcuts hold their modifiers: Ctrl+A takes the whole text, which what is typed
        // next replaces; Shift+Home then takes the line back to its start.
        #expect(keys.press(KeyChord("a", [.control])))
        #expect(keys.type("Ünïcode ok").ok)
        #expect(keys.press(KeyChord("Home", [.shift])))
        #expect(keys.type("§").ok)
        _ = try TestTime.poll(timeout: 5, every: 0.1) {
            let r = try session.atspiQuery(["focused-text", "mousepad"])
            text = (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8), options: .fragmentsAllowed) as? String) ?? r.stdout
            return text == "§"
        }
        #expect(text == "§")
    }

    /// A switch user on sway and on KWin, going by the outline: auto scanning at 0.5 s a step, a press
    /// 0.3 s after the highlight is on a group around an unticked check box, or on it, then
    /// the menu's Tap; the check box is ticked (read back through AT-SPI). The run draws
    /// with the layer shell and clicks and types with the compositor's own devices.
    @Test(arguments: [WaylandSession.Compositor.sway, .kwin])
    func aSwitchUserTicksACheckBoxByTheOutline(on kind: WaylandSession.Compositor) throws {
        let (session, _) = try Self.widgetFactory(kind)
        defer { session.stop() }
        let app = "gtk3-widget-factory"
        let elements = try TaskTests.targets(session, app: app)
        let box = try #require(elements.first { $0.label == "checkbutton" && !$0.traits.contains("selected") && !$0.traits.contains("notEnabled") },
                               "no unticked check box in \(elements.map { "\($0.label) \($0.traits)" })")
        let (scan, _) = try TaskTests.startAutoScan(session, app: app, settings: #"{"autoScanInterval": 0.5}"#)
        defer { _ = scan.terminate() }
        _ = try TaskTests.tap(box, scan)
        var ticked = false
        _ = try TestTime.poll(timeout: 10, every: 0.2) {
            ticked = try TaskTests.targets(session, app: app).contains { $0.id == box.id && $0.traits.contains("selected") }
            return ticked
        }
        #expect(ticked, "the check box at \(box.centre) was not ticked")
        let devices = kind == .sway ? ["Pointer: the compositor's virtual pointer", "Keys: the compositor's virtual keyboard"]
            : ["Pointer: KWin's fake input", "Keys: KWin's fake input"]
        #expect(devices.allSatisfy { scan.stderr.contains($0) }, "\(scan.stderr)")
        #expect(!scan.stderr.contains("not drawn on the screen"), "\(scan.stderr)")
    }

    /// An X11 application through XWayland beside a native one, as on many sway and KDE
    /// desktops: `desktop` says where each one's place comes from; each one's button (on
    /// KWin its check box, by `switchscan-bench tap`: KWin lets only the programs it allows
    /// click), clicked by the compositor's own pointer where `snapshot` puts it, is clicked
    /// (the fixture says so); a switch user ticks the X11 one's check box by the outline, and
    /// SwitchScan draws nothing through XWayland (no window of its own on that X server).
    @Test(arguments: [WaylandSession.Compositor.sway, .kwin])
    func anXWaylandWindowBesideANativeOneIsPlacedAndClicked(on kind: WaylandSession.Compositor) throws {
        let session = try WaylandSession(width: 1600, height: 900, xwayland: true, compositor: kind)
        defer { session.stop() }
        let source = kind == .sway ? "placed by sway's IPC" : "placed by a KWin script"
        let native = try session.startFixture(args: ["--app-name", "fixture-native", "--title", "Native Fixture"])
        let x11 = try session.startFixture(args: ["--app-name", "fixture-x11", "--title", "X11 Fixture"], x11: true)
        var desktop = ToolResult(command: [], status: -1, stdout: "", stderr: "", timedOut: false)
        // A window shows on AT-SPI a moment before the compositor has placed it.
        _ = try TestTime.poll(timeout: 10, every: 0.2) {
            desktop = try session.runSwitchscan(["desktop"])
            return desktop.stdout.contains(source) && desktop.stdout.contains("through XWayland")
        }
        let lines = desktop.stdout.split(separator: "\n")
        #expect(lines.contains { $0.contains("Native Fixture") && $0.contains(source) }, "\(desktop)")
        #expect(lines.contains { $0.contains("X11 Fixture") && $0.contains("an X11 client through XWayland") }, "\(desktop)")

        let pointer = kind == .sway ? try WaylandPointer(display: session.waylandSocket) : nil
        for (fixture, corner) in [(native, session.windowCorner), (x11, session.x11Corner)] {
            let targets = try TaskTests.targets(session, app: fixture.applicationName)
            let button = try #require(targets.first { $0.label == "Btn 1" }, "no Btn 1 in \(targets.map(\.label))")
            let (x, y) = button.centre
            #expect(x > Double(corner.x) && x < Double(corner.x + 600) && y > Double(corner.y) && y < Double(corner.y + 500),
                    "\(fixture.applicationName)'s Btn 1 at \(x),\(y), its window at \(corner)")
            if let pointer {
                #expect(pointer.click(at: Point(x: x, y: y)))
                try fixture.waitForLine(matching: "clicked Btn 1", timeout: 5)
            } else {
                let tap = try session.runSwitchscan(["switchscan-bench", "tap", "--app", fixture.applicationName, "--label", "Check me", "--taps", "2"], timeout: 60)
                #expect(tap.stdout.contains("clicked through KWin's fake input")
                        && tap.stdout.split(separator: "\n").contains { $0.hasPrefix("click → the new state") && $0.hasSuffix("(2 of 2)") }, "\(tap)")
                try fixture.waitForLine(matching: "check True", timeout: 5)
                try fixture.waitForLine(matching: "check False", timeout: 5)
            }
        }

        let check = try #require(try TaskTests.targets(session, app: x11.applicationName).first { $0.label == "Check me" })
        let (scan, _) = try TaskTests.startAutoScan(session, app: x11.applicationName, settings: #"{"autoScanInterval": 0.5}"#)
        defer { _ = scan.terminate() }
        _ = try TaskTests.tap(check, scan)
        try x11.waitForLine(matching: "check True", timeout: 5)
        let windows = try session.run("/usr/bin/xwininfo", ["-root", "-tree"], extra: ["DISPLAY": try session.xwaylandDisplay()])
        #expect(windows.status == 0 && windows.stdout.contains("X11 Fixture"), "\(windows)")
        #expect(!windows.stdout.contains("switchscan"), "SwitchScan drew through XWayland:\n\(windows.stdout)")
        #expect(scan.stderr.contains(kind == .sway ? "Pointer: the compositor's virtual pointer" : "Pointer: KWin's fake input"), "\(scan.stderr)")
        #expect(!scan.stderr.contains("not drawn on the screen"), "\(scan.stderr)")
    }

    /// The compositor's windows: title, whether active, whether maximised — under sway from
    /// its IPC (focused; full screen), under KWin from `switchscan desktop` (the active one;
    /// as wide as the screen).
    static func windowStates(_ session: WaylandSession) throws -> [(title: String, active: Bool, maximised: Bool)] {
        var out: [(String, Bool, Bool)] = []
        switch session.compositorKind {
        case .sway:
            let r = try session.run("/usr/bin/swaymsg", ["-t", "get_tree", "-r"])
            let tree = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r)")
            func walk(_ n: [String: Any]) {
                if n["pid"] != nil { out.append((n["name"] as? String ?? "", n["focused"] as? Bool ?? false, (n["fullscreen_mode"] as? Int ?? 0) > 0)) }
                for key in ["nodes", "floating_nodes"] { for c in n[key] as? [[String: Any]] ?? [] { walk(c) } }
            }
            walk(tree)
        case .gnome:
            // GNOME Shell itself (--unsafe-mode lets the tests ask it).
            let script = "JSON.stringify(global.get_window_actors().map(a => a.meta_window).map(w => [w.get_title(), w.has_focus(), w.get_maximized() === 3]))"
            let r = try session.run(DesktopTool.dbusSend.path, ["--session", "--print-reply", "--dest=org.gnome.Shell", "/org/gnome/Shell", "org.gnome.Shell.Eval", "string:\(script)"])
            // dbus-send quotes the answer (`string ""[…]""`), itself the JSON of a JSON string.
            let quoted = r.stdout.split(separator: "\n").last { $0.contains("string \"") }
                .map { String($0.drop { $0 != "\"" }.dropFirst().dropLast()) } ?? "\"[]\""
            let json = (try? JSONSerialization.jsonObject(with: Data(quoted.utf8), options: .fragmentsAllowed) as? String) ?? "[]"
            for w in (try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[Any]]) ?? [] where w.count == 3 {
                out.append((w[0] as? String ?? "", w[1] as? Bool ?? false, w[2] as? Bool ?? false))
            }
        case .kwin:
            // `  frame "TITLE" at X,Y WxH [active]: …`; a maximised window's frame is as wide as
            // the screen (its height less KWin's title bar).
            let r = try session.runSwitchscan(["desktop"])
            for line in r.stdout.split(separator: "\n") where line.hasPrefix("  frame \"") {
                let rest = line.dropFirst(9)
                guard let end = rest.firstIndex(of: "\"") else { continue }
                let words = rest[end...].split(separator: " ")
                // `"`, `at`, `X,Y`, `WxH`, …
                out.append((String(rest[..<end]), line.contains("[active]"), words.count > 3 && words[3].hasPrefix("\(session.screenWidth)x")))
            }
        }
        return out
    }

    /// The screen menu's Windows page under sway and KWin, from an element's menu as on
    /// X11: it lists the other native window by its title, switches to it (the compositor
    /// makes it active, and the scan follows), maximises it (sway: full screen) and closes
    /// it (the application quits).
    @Test(arguments: [WaylandSession.Compositor.sway, .kwin])
    func theWindowsPageSwitchesMaximisesAndClosesWindows(on kind: WaylandSession.Compositor) throws {
        let session = try WaylandSession(compositor: kind)
        defer { session.stop() }
        let other = try session.startFixture(args: ["--title", "Other Window", "--app-name", "other-fixture"])
        _ = try session.startFixture(args: [])
        var states: [(title: String, active: Bool, maximised: Bool)] = []
        let ready = try TestTime.poll(timeout: 10, every: 0.2) {
            states = try Self.windowStates(session)
            return states.contains { $0.title == "SwitchScan Fixture" && $0.active }
        }
        try #require(ready, "\(states)")
        let scan = try ScanDriver(session, [])
        defer { scan.stop() }
        try scan.go(to: "Btn 1")

        let page = try scan.openWindowsPage()
        let titles = page.fields["titles"] as? [String] ?? []
        #expect(titles.contains("Other Window") && !titles.contains("SwitchScan Fixture"), "\(page)")
        try scan.go(to: "Other Window")
        let asked = try scan.select(expecting: "the switch asked for") { $0.effect == "window" }
        #expect(asked.fields["action"] as? String == "activate" && asked.fields["title"] as? String == "Other Window", "\(asked)")
        let arrived = try scan.next("the other window scanned", timeout: 5) { $0.effect == "announce" && $0.text == "Other Window" }
        print("Windows page on \(kind): switch to the new window's screen in \(Int(((arrived.time - asked.time) * 1000).rounded())) ms")
        #expect(try Self.windowStates(session).contains { $0.title == "Other Window" && $0.active })

        try scan.go(to: "Btn 1")
        _ = try scan.openWindowsPage()
        try scan.go(to: "Maximise window")
        try scan.select(expecting: "maximise asked for") { $0.effect == "window" && $0.fields["action"] as? String == "maximize" }
        var full = false
        _ = try TestTime.poll(timeout: 5, every: 0.1) {
            full = try Self.windowStates(session).contains { $0.title == "Other Window" && $0.maximised }
            return full
        }
        let now = try Self.windowStates(session)
        #expect(full, "\(kind) did not maximise Other Window: \(now)")

        try scan.go(to: "Btn 1")
        let again = try scan.openWindowsPage()
        #expect((again.fields["titles"] as? [String])?.contains("Restore window size") == true, "\(again)")
        try scan.go(to: "Close window")
        try scan.select(expecting: "close asked for") { $0.effect == "window" && $0.fields["action"] as? String == "close" }
        try other.waitForLine(matching: "quit")
        try scan.next("the remaining window scanned", timeout: 5) { $0.effect == "announce" && $0.text == "SwitchScan Fixture" }
    }

    /// A combo box's list on sway is a popup no compositor lists: it is outlined where it is
    /// (its window's place, less the menu's shadow: the outline around the first item, GTK's
    /// selected row inside it), scanned alone, and its choice takes effect.
    @Test func aComboBoxsListIsOutlinedWhereItIsAndItsChoiceTakesEffect() throws {
        let session = try WaylandSession()
        defer { session.stop() }
        let fixture = try session.startFixture(args: [])
        let scan = try ScanDriver(session, ["--app", fixture.applicationName])
        defer { scan.stop() }
        try scan.go(to: "Red")
        let mark = scan.seen.count
        try scan.choose("Tap")
        let opened = try scan.find(since: mark, "the menu announced") { $0.effect == "announce" }
        let first = try scan.find(since: mark, "the list's first item") { $0.effect == "highlight" && $0.time >= opened.time }
        let f = try #require(first.frame, "\(first)")
        #expect(first.label == "Red" && f[0] >= Double(session.windowCorner.x) && f[1] > Double(session.windowCorner.y), "\(first)")
        let orange = RGB(r: 0xff, g: 0x8c, b: 0x00)
        var row: [RGB] = []
        _ = try TestTime.poll(timeout: 5, every: 0.1) {
            let screen = try session.captureScreen()
            let y = Int(f[1] + f[3] / 2)
            row = [screen.pixel(x: Int(f[0]) - 3, y: y), screen.pixel(x: Int(f[0] + f[2]) - 20, y: y)]
            return row[0] == orange
        }
        #expect(row[0] == orange, "no outline just left of Red at \(f): \(row)")
        // GTK's selected row (blue) right inside the outline: the frame is the row's.
        #expect(row.count == 2 && Int(row[1].b) > Int(row[1].r) + 60, "not the selected row inside the outline: \(row)")
        scan.settle()
        #expect(try scan.cycle() == ["Red", "Green", "Blue", "Close"])
        try scan.go(to: "Green")
        try scan.choose("Tap")
        try fixture.waitForLine(matching: "combo Green")
    }

    /// A switch user types into a native field on sway and on KWin with the scanning
    /// keyboard: letters inserted through AT-SPI, Backspace and Home as keys of the
    /// compositor's virtual keyboard (KWin's fake input), in the order chosen (never "hi s"), é from the symbols page, Enter a key.
    @Test(arguments: [WaylandSession.Compositor.sway, .kwin])
    func aSwitchUserTypesIntoANativeField(on kind: WaylandSession.Compositor) throws {
        let session = try WaylandSession(compositor: kind)
        defer { session.stop() }
        let fixture = try session.startFixture(args: ["--typing"])
        let scan = try ScanDriver(session, ["--app", fixture.applicationName])
        defer { scan.stop() }
        try scan.go(to: "Message")
        try scan.select(expecting: "the keyboard") { $0.effect == "keyboard" }
        let keys = LiveTypingTests.Keys(scan: scan)
        try keys.press("key_h", expecting: "h typed") { $0.effect == "typeText" && $0.text == "h" }
        try keys.press("key_i", expecting: "i typed") { $0.effect == "typeText" && $0.text == "i" }
        try keys.press("space", expecting: "a space") { $0.effect == "typeText" && $0.text == " " }
        try fixture.waitForLine(matching: "text Message: hi ")
        try keys.press("backspace", expecting: "a character deleted") { $0.effect == "deleteText" }
        try keys.press("key_s", expecting: "s typed") { $0.effect == "typeText" && $0.text == "s" }
        try fixture.waitForLine(matching: "key BackSpace")
        try fixture.waitForLine(matching: "text Message: his")
        try keys.press("symbols", expecting: "the symbols page") { $0.effect == "keyboard" }
        try keys.press("key_eAcute", expecting: "é typed") { $0.effect == "typeText" && $0.text == "é" }
        try fixture.waitForLine(matching: "text Message: hisé")
        try keys.press("letters", expecting: "the letters again") { $0.effect == "keyboard" }
        try keys.press("edit", expecting: "the edit page") { $0.effect == "keyboard" }
        try keys.press("lineStart", expecting: "Home") { $0.effect == "shortcut" && $0.fields["key"] as? String == "Home" }
        try keys.press("letters", row: "row4", expecting: "the letters again") { $0.effect == "keyboard" }
        try keys.press("key_t", expecting: "t typed") { $0.effect == "typeText" }
        try fixture.waitForLine(matching: "text Message: thisé")
        try keys.press("enter", expecting: "Enter") { $0.effect == "key" && $0.fields["key"] as? String == "enter" }
        try fixture.waitForLine(matching: "key Return")
        #expect(scan.process.stderr.contains(Self.keys(kind)), "\(scan.process.stderr)")
    }

    /// What a run says sends its keys on `kind`.
    static func keys(_ kind: WaylandSession.Compositor) -> String {
        switch kind {
        case .sway: "Keys: the compositor's virtual keyboard"
        case .kwin: "Keys: KWin's fake input"
        case .gnome: "Keys: Mutter's remote desktop"
        }
    }

    /// The bounding box of the pixels of `color` in `r` of `image`, and how many there are.
    static func region(of color: RGB, in image: ScreenImage, within r: ScreenRect) -> (box: ScreenRect, count: Int)? {
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1, count = 0
        for y in max(0, r.y)..<min(image.height, r.y + r.height) {
            for x in max(0, r.x)..<min(image.width, r.x + r.width) where image.pixel(x: x, y: y) == color {
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y); count += 1
            }
        }
        return count == 0 ? nil : (ScreenRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1), count)
    }

    /// The bounding box of the runs of at least `run` pixels of `color` along a row of `r`,
    /// and how many pixels they hold: a panel's, without stray pixels of the same colour
    /// elsewhere (a letter's, a title bar's, the pointer's arrow).
    static func solidRegion(of color: RGB, in image: ScreenImage, within r: ScreenRect, run: Int = 24) -> (box: ScreenRect, count: Int)? {
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1, count = 0
        let x0 = max(0, r.x), x1 = min(image.width, r.x + r.width)
        for y in max(0, r.y)..<min(image.height, r.y + r.height) {
            var x = x0
            while x < x1 {
                guard image.pixel(x: x, y: y) == color else { x += 1; continue }
                var end = x
                while end < x1 && image.pixel(x: end, y: y) == color { end += 1 }
                if end - x >= run {
                    minX = min(minX, x); maxX = max(maxX, end - 1); minY = min(minY, y); maxY = max(maxY, y); count += end - x
                }
                x = end
            }
        }
        return count == 0 ? nil : (ScreenRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1), count)
    }

    /// What a switch user sees on sway (drawn by the layer shell) and on GNOME (by
    /// SwitchScan's GNOME Shell extension) when a menu opens and when the keyboard does: the
    /// menu in a dark panel framed in orange beside the outline, its entries written in white,
    /// the current one on an orange row; the keyboard's keys as grey tiles with white labels
    /// across the bottom of the screen, below the field typed into.
    @Test(arguments: [WaylandSession.Compositor.sway])
    func theMenuAndTheKeyboardAreDrawnWithTheirLabels(on kind: WaylandSession.Compositor) throws {
        let session = try WaylandSession(compositor: kind)
        defer { session.stop() }
        let fixture = try session.startFixture(args: ["--typing"])
        let scan = try ScanDriver(session, ["--app", fixture.applicationName])
        defer { scan.stop() }
        try scan.go(to: "Send")
        let send = try #require(scan.current?.frame, "\(String(describing: scan.current))")
        try scan.select(expecting: "the element's menu") { $0.effect == "menuOpen" }
        try scan.next("its first entry") { $0.effect == "highlight" && $0.kind == "menuEntry" }
        let panel = RGB(r: 0x20, g: 0x20, b: 0x20), white = RGB(r: 0xff, g: 0xff, b: 0xff)
        let orange = RGB(r: 0xff, g: 0x8c, b: 0x00), tile = RGB(r: 0x48, g: 0x48, b: 0x48)
        var menu: (box: ScreenRect, count: Int)?
        var screen = try session.captureScreen()
        _ = try TestTime.poll(timeout: 5, every: 0.1) {
            screen = try session.captureScreen()
            // Right of the outline (the pointer's arrow has dark pixels of its own elsewhere).
            menu = Self.solidRegion(of: panel, in: screen, within: ScreenRect(x: Int(send[0] + send[2]), y: 0, width: session.screenWidth, height: session.screenHeight))
            // The whole panel, frame and rows: a compositor may show a frame with the panel
            // laid out but not yet all painted.
            guard let box = menu?.box, menu!.count > 3000 else { return false }
            return screen.pixel(x: box.x - 1, y: box.y + box.height / 2) == orange && screen.count(of: orange, in: box) > 500
        }
        let box = try #require(menu?.box, "no menu panel on the screen")
        // Beside the outline around Send (4 px apart, the outline 6 px out from the frame).
        #expect(box.x <= Int(send[0] + send[2]) + 16 && box.y <= Int(send[1]), "the panel \(box) is not beside Send at \(send)")
        // (GNOME Shell writes white text as #fefefe.)
        #expect(screen.count(of: white, in: box, tolerance: 3) > 100, "no entries written in the panel \(box)")
        #expect(screen.count(of: orange, in: box) > 500, "no current entry's row in the panel \(box)")
        #expect(screen.pixel(x: box.x - 1, y: box.y + box.height / 2) == orange, "no orange frame around the panel \(box)")

        // Back to the window, and into the message field: the keyboard.
        try scan.process.send("\u{1b}")   // Esc leaves the menu
        try scan.next("the menu closing") { $0.effect == "menuClose" }
        try scan.go(to: "Message")
        let field = try #require(scan.current?.frame, "\(String(describing: scan.current))")
        try scan.select(expecting: "the keyboard") { $0.effect == "keyboard" }
        var keys: (box: ScreenRect, count: Int)?
        _ = try TestTime.poll(timeout: 5, every: 0.1) {
            screen = try session.captureScreen()
            keys = Self.region(of: tile, in: screen, within: ScreenRect(x: 0, y: session.screenHeight / 3, width: session.screenWidth, height: session.screenHeight))
            return (keys?.count ?? 0) > 20_000
        }
        let board = try #require(keys?.box, "no keyboard on the screen")
        #expect(board.width > session.screenWidth / 2 && board.y + board.height > session.screenHeight * 2 / 3, "the keyboard at \(board)")
        #expect(Double(board.y) >= field[1] + field[3], "the keyboard at \(board) covers the field at \(field)")
        #expect(screen.count(of: white, in: board, tolerance: 3) > 1000, "no labels on the keys at \(board)")
        #expect(!scan.process.stderr.contains("without their labels"), "\(scan.process.stderr)")
    }

    /// The message screen on sway, drawn by the layer shell: the screen menu's Message opens
    /// it over the window, and what is written is shown at the top in the message's larger
    /// letters, above the keys.
    @Test func theMessageScreenIsDrawnWithItsMessageLarge() throws {
        let session = try WaylandSession(compositor: .sway)
        defer { session.stop() }
        let fixture = try session.startFixture(args: ["--typing"])
        let scan = try ScanDriver(session, ["--app", fixture.applicationName])
        defer { scan.stop() }
        try scan.go(to: "Send")
        let opened = try scan.openMessageScreen()
        let keys = LiveTypingTests.Keys(scan: scan)
        try keys.press("key_h", expecting: "H written") { e in
            e.effect == "keyboard" && ((e.fields["keys"] as? [[String: Any]]) ?? []).contains { $0["id"] as? String == "message" && $0["label"] as? String == "H" }
        }
        // Where the message and a key are (in the screen's pixels: the frames are).
        func frame(_ id: String) throws -> ScreenRect {
            let key = try #require(((opened.fields["keys"] as? [[String: Any]]) ?? []).first { $0["id"] as? String == id })
            let f = try #require(key["frame"] as? [Double])
            return ScreenRect(x: Int(f[0]), y: Int(f[1]), width: Int(f[2]), height: Int(f[3]))
        }
        let message = try frame("message"), no = try frame("no")
        let white = RGB(r: 0xff, g: 0xff, b: 0xff)
        var letter: (box: ScreenRect, count: Int)?, label: (box: ScreenRect, count: Int)?
        _ = try TestTime.poll(timeout: 5, every: 0.1) {
            let screen = try session.captureScreen()
            // The middle of the message's tile, where its one letter is (the pointer's
            // white arrow may be elsewhere in it).
            letter = Self.region(of: white, in: screen, within: ScreenRect(x: message.x + message.width / 4, y: message.y,
                                                                           width: message.width / 2, height: message.height))
            label = Self.region(of: white, in: screen, within: no)
            return letter != nil && label != nil
        }
        let h = try #require(letter?.box, "nothing written where the message is, \(message)")
        let n = try #require(label?.box, "no label on No at \(no)")
        // The capital H of the message stands taller than the capital N of "No" (its "o"
        // is lower), by about the fonts' ratio (28 to 18 pixels).
        #expect(Double(h.height) >= Double(n.height) * 1.35, "the message's letter \(h) beside the key's \(n)")
        #expect(!scan.process.stderr.contains("without their labels"), "\(scan.process.stderr)")
    }

    /// The benchmarks run on sway: a click of the virtual pointer on a check box to
    /// SwitchScan having its new state, and a press to the outline shown with the keyboard
    /// drawn under it. Figures, not bounds (docs/SCREEN.md has the release build's).
    @Test func theBenchmarksMeasureOnSway() throws {
        let (session, _) = try Self.widgetFactory()
        defer { session.stop() }
        let tap = try session.runSwitchscan(["switchscan-bench", "tap", "--app", "gtk3-widget-factory", "--taps", "20"], timeout: 60)
        // A click lost on a loaded machine is said, not failed on: figures, not bounds.
        #expect(tap.status == 0 && tap.stdout.contains("clicked through the compositor's virtual pointer") && tap.stdout.contains("of 20)")
                && !tap.stdout.contains("(0 of 20)"), "\(tap)")
        let screen = try session.runSwitchscan(["switchscan-bench", "screen", "--wayland", "--keyboard", "--presses", "50", "--idle-seconds", "0"], timeout: 60)
        #expect(screen.status == 0 && screen.stdout.contains("keyboard shown") && !screen.stdout.contains("(0)"), "\(screen)")
        print(tap.stdout + screen.stdout)
    }

    /// The compositor going away mid-run (a crash, a logout): the run ends by itself within
    /// seconds, saying why once, without a crash (the session's unit starts it again) —
    /// scanning by itself, and waiting for a press (nothing drawn: the overlay's connection
    /// alone tells).
    @Test(arguments: [(WaylandSession.Compositor.sway, "auto"), (.sway, "manual"), (.kwin, "auto")])
    func aRunEndsCleanlyWhenTheCompositorGoes(on kind: WaylandSession.Compositor, style: String) throws {
        let (session, _) = try Self.widgetFactory(kind)
        defer { session.stop() }
        let settings = session.directory.appendingPathComponent("gone-\(style).json")
        try Data(#"{"autoScanInterval": 0.3}"#.utf8).write(to: settings)
        let scan = try session.startScan(["run", "--desktop", "--app", "gtk3-widget-factory", "--output", "json", "--no-devices",
                                          "--style", style, "--settings", settings.path])
        defer { _ = scan.terminate() }
        _ = try scan.waitForLine("a highlight", timeout: 20) { $0.contains(#""highlight""#) }
        session.stopCompositor()
        let ended = scan.process.wait(timeout: 15 * TestTime.scale)
        #expect(ended, "switchscan still runs 15 s after the compositor ended.\n\(scan.stderr)")
        let status = scan.process.exitStatus
        #expect(status != nil && status != 0, "exit status \(String(describing: status))")
        #expect(!scan.stderr.contains("crashed") && !scan.stderr.contains("Fatal error"), "\(scan.stderr)")
        #expect(scan.stderr.components(separatedBy: "is gone").count - 1 == 1, "the loss said once: \(scan.stderr)")
    }
}

extension WaylandTests {
    /// A switch user types into mousepad through XWayland on sway, and natively and through
    /// XWayland on KWin, with the scanning keyboard: letters and é (no US key has it)
    /// inserted through AT-SPI, Backspace and Enter as keys of the compositor's own keyboard,
    /// each where it was chosen.
    @Test(arguments: [(WaylandSession.Compositor.sway, true), (.kwin, false), (.kwin, true)])
    func aSwitchUserTypesIntoMousepad(on kind: WaylandSession.Compositor, throughXWayland x11: Bool) throws {
        let session = try WaylandSession(xwayland: x11, compositor: kind)
        defer { session.stop() }
        try session.launch("/usr/bin/mousepad", ["--disable-server"], extra: x11 ? ["GDK_BACKEND": "x11", "DISPLAY": try session.xwaylandDisplay()] : [:])
        try session.waitForApplication(named: "mousepad")
        let scan = try ScanDriver(session, ["--app", "mousepad"])
        defer { scan.stop() }
        try scan.go(to: "text", limit: 80)
        try scan.select(expecting: "the keyboard") { $0.effect == "keyboard" }
        let keys = LiveTypingTests.Keys(scan: scan)
        try keys.press("key_h", expecting: "H") { $0.effect == "typeText" && $0.text == "H" }
        try keys.press("key_i", expecting: "i") { $0.effect == "typeText" && $0.text == "i" }
        try keys.press("backspace", expecting: "a character deleted") { $0.effect == "deleteText" }
        try keys.press("symbols", expecting: "the symbols page") { $0.effect == "keyboard" }
        try keys.press("key_eAcute", expecting: "é typed") { $0.effect == "typeText" && $0.text == "é" }
        try keys.press("letters", expecting: "the letters again") { $0.effect == "keyboard" }
        try keys.press("enter", expecting: "Enter") { $0.effect == "key" }
        try keys.press("key_o", expecting: "o") { $0.effect == "typeText" && ($0.text == "o" || $0.text == "O") }
        var text = ""
        _ = try TestTime.poll(timeout: 5, every: 0.1) {
            let r = try session.atspiQuery(["text", "mousepad", "text", ""])
            text = (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8), options: .fragmentsAllowed) as? String) ?? r.stdout
            return text.lowercased() == "hé\no"
        }
        #expect(text.lowercased() == "hé\no" && text.hasPrefix("Hé"), "mousepad holds \(text)")
        #expect(scan.process.stderr.contains(Self.keys(kind)), "\(scan.process.stderr)")
    }
}

import Foundation
import Testing
import TestSupport

/// Everyday tasks done with one switch, as a switch user does them: auto scanning at 0.5 s a
/// step, a press 0.3 s after the highlight is on what they want — the key itself, or a group
/// whose outline holds it, and the menu's Tap — and nothing else. Each test prints the
/// task's time.
@Suite("Tasks by the outline", .serialized, .timeLimit(.minutes(2)))
struct TaskTests {
    /// The user's reaction: pressing this long after the highlight appears.
    static let reaction = 0.3

    /// An element of the window: its id, label, traits and the centre of its frame.
    struct Target {
        var id: String
        var label: String
        var centre: (Double, Double)
        var traits: [String] = []
    }

    /// The elements of the application's window, as `snapshot` writes them.
    static func targets(_ session: some SwitchscanHost, app: String) throws -> [Target] {
        let result = try session.switchscan(["snapshot", "--app", app])
        guard result.status == 0, let document = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            throw DesktopError("No snapshot of \(app): \(result)")
        }
        var found: [Target] = []
        func walk(_ node: [String: Any]) {
            if let id = node["id"] as? String, let f = (node["frame"] as? [String: NSNumber])?.mapValues(\.doubleValue),
               let x = f["x"], let y = f["y"], let w = f["width"], let h = f["height"] {
                found.append(Target(id: id, label: node["label"] as? String ?? "", centre: (x + w / 2, y + h / 2),
                                   traits: node["traits"] as? [String] ?? []))
            }
            for child in node["children"] as? [[String: Any]] ?? [] { walk(child) }
        }
        guard let root = document["root"] as? [String: Any] else { throw DesktopError("A snapshot of \(app) without a root: \(result)") }
        walk(root)
        return found
    }

    /// Whether this highlight shows the target: the element itself, or a group drawn around it.
    static func shows(_ e: EffectLine, _ target: Target) -> Bool {
        if e.kind == "element" { return e.item == target.id }
        guard e.kind == "group" else { return false }
        let (x, y) = target.centre
        let rects = (e.fields["outline"] as? [[NSNumber]])?.map { $0.map(\.doubleValue) } ?? e.frame.map { [$0] } ?? []
        return rects.contains { r in r.count == 4 && x >= r[0] && x < r[0] + r[2] && y >= r[1] && y < r[1] + r[3] }
    }

    /// Now on CLOCK_MONOTONIC, in seconds, as the lines' arrivals are stamped.
    static func monotonicNow() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// Presses `reaction` after the next highlight that `wanted` accepts came. One read later
    /// than that (the machine busy, the test busy reading the window) was missed, as by a
    /// user who looked away: the next one is waited for, and a scan that stopped after its
    /// loops meanwhile is started again with a press. The highlight pressed on.
    static func pressOn(_ what: String, _ scan: LiveProcess, timeout: Double, where wanted: (EffectLine) -> Bool) throws -> EffectLine {
        let deadline = monotonicNow() + timeout * TestTime.scale
        while true {
            var seen: EffectLine?
            let line = try scan.waitForLine(what, timeout: max(0.1, (deadline - monotonicNow()) / TestTime.scale)) { line in
                // Only a stop after the loops waits for a press: one with nothing to scan (a
                // menu closing, its window not yet read) goes on by itself.
                guard let e = EffectLine(line),
                      (e.effect == "scanStopped" && e.fields["reason"] as? String == "loopsExhausted") || (e.effect == "highlight" && wanted(e))
                else { return false }
                seen = e
                return true
            }
            if seen?.effect == "scanStopped" {
                try scan.press(after: reaction)
                continue
            }
            let age = monotonicNow() - (scan.output.arrival(of: line) ?? monotonicNow())
            guard age < reaction, let e = seen else { continue }
            try scan.press(after: reaction - age)
            return e
        }
    }

    /// Prints each task's time, from the end of the task before (the scan's start first).
    struct Log {
        var app: String
        var last: EffectLine
        var since = "the scan's start"
        mutating func report(_ what: String, _ end: EffectLine, until: String) {
            print(String(format: "Task: %@ %@, 0.5 s a step: %.1f s from %@ to %@", app, what, end.time - last.time, since, until))
            last = end
            since = until
        }
    }

    /// Starts `switchscan run` on `app`'s window with these settings (JSON), auto scanning
    /// with JSON output and no devices; the run and its `scanStarted` line. The caller
    /// terminates it.
    static func startAutoScan(_ session: some SwitchscanHost, app: String, settings json: String) throws -> (LiveProcess, EffectLine) {
        let settings = session.directory.appendingPathComponent("task-\(app)-\(UUID().uuidString.prefix(8)).json")
        try Data(json.utf8).write(to: settings)
        let scan = try session.startScan(["run", "--desktop", "--app", app, "--output", "json", "--no-devices",
                                          "--style", "auto", "--settings", settings.path])
        do {
            let start = try #require(EffectLine(try scan.waitForLine("the scan started", timeout: 20) { $0.contains(#""scanStarted""#) }))
            return (scan, start)
        } catch {
            _ = scan.terminate()
            throw error
        }
    }

    /// Selects `target` by the outline in a running auto scan: each press enters a group
    /// around it, until one selects it. Whether its scanner menu opened (else it acted at once).
    @discardableResult
    static func select(_ target: Target, _ scan: LiveProcess) throws -> Bool {
        var selected = false
        var presses = 0
        while !selected {
            let e = try pressOn("the highlight on '\(target.label)' or a group around it", scan, timeout: 40) { shows($0, target) }
            selected = e.kind == "element"
            presses += 1
            if presses > 8 { throw DesktopError("'\(target.label)': not selected after \(presses) presses") }
        }
        var menu = false
        _ = try scan.waitForLine("the key tapped, or its menu", timeout: 5) { line in
            guard let e = EffectLine(line) else { return false }
            menu = e.effect == "menuOpen"
            return menu || e.effect == "highlight"
        }
        return menu
    }

    /// Selects each target by the outline in a running auto scan, then its menu's Tap.
    static func press(_ targets: [Target], _ scan: LiveProcess) throws {
        for target in targets {
            // Without auto tap, the press opens the scanner menu: Tap is its first entry.
            if try select(target, scan) {
                _ = try pressOn("Tap in the menu", scan, timeout: 10) { $0.kind == "menuEntry" && $0.label == "Tap" }
            }
        }
    }

    /// Presses the open menu's entry `title` by the outline `times` times, each press's
    /// `effect` line awaited; those lines. An entry that keeps the menu open on it
    /// (Increment) holds the highlight for a step (0.5 s) after each press: the next press
    /// comes `reaction` after the effect. Where the highlight moved on meanwhile, or the
    /// press would come less than 0.1 s before it moves (a busy machine), the entry's next
    /// highlight is waited for instead.
    static func pressEntry(_ title: String, times: Int = 1, _ scan: LiveProcess, effect: String) throws -> [EffectLine] {
        var done: [EffectLine] = []
        var last: String?
        /// Whether no line after `line` moved the highlight.
        func stillOn(_ line: String) -> Bool {
            let lines = scan.lines
            guard let i = lines.lastIndex(of: line) else { return false }
            return !lines[(i + 1)...].contains { EffectLine($0)?.effect == "highlight" }
        }
        while done.count < times {
            var again = false
            if let line = last, let arrival = scan.output.arrival(of: line) {
                let age = monotonicNow() - arrival
                if age < reaction { try scan.watch(for: reaction - age) }
                again = monotonicNow() - arrival < reaction + 0.1 && stillOn(line)
            }
            if again {
                try scan.send(" ")
            } else {
                _ = try pressOn("'\(title)' in the menu", scan, timeout: 20) { $0.kind == "menuEntry" && $0.label == title }
            }
            var pressed: EffectLine?
            let line = try scan.waitForLine("the effect of '\(title)'", timeout: 5) { line in
                guard let e = EffectLine(line), e.effect == effect || e.effect == "highlight" else { return false }
                pressed = e
                return true
            }
            guard let e = pressed, e.effect == effect else {
                throw DesktopError("The press on '\(title)' came after the highlight moved on: \(line)")
            }
            done.append(e)
            last = line
        }
        return done
    }

    /// Selects `target` by the outline in a running auto scan and waits for its tap; the
    /// tap's line.
    static func tap(_ target: Target, _ scan: LiveProcess) throws -> EffectLine {
        try press([target], scan)
        return try #require(EffectLine(try scan.waitForLine("'\(target.label)' activated", timeout: 10) { line in
            guard let e = EffectLine(line), e.effect == "activate" else { return false }
            return e.fields["element"] as? String == target.id
        }))
    }

    /// Waits until the session's processes whose command holds `command` use less than 5 % of
    /// a core over a second (a big application done starting), for up to `timeout` s: a
    /// virtual user who reads the highlights late on a busy machine presses on the wrong
    /// item. Whether they did.
    @discardableResult
    /// LibreOffice Writer (GTK 3) on a new profile, up with its Tip of the Day and quiet;
    /// its application's name on the desktop.
    static func startWriter(_ session: DesktopSession) throws -> String {
        let app = "soffice"
        let profile = session.directory.appendingPathComponent("libreoffice", isDirectory: true)
        _ = try session.launchApplication("/usr/bin/lowriter", ["--norestore", "-env:UserInstallation=\(profile.absoluteString)"],
                                          applicationName: app, title: "Untitled 1 - LibreOffice Writer",
                                          extraEnvironment: ["SAL_USE_VCLPLUGIN": "gtk3"])
        // A first start on a busy machine takes long: the tip's OK on the bus says it is up.
        _ = try session.waitForApplication(named: app, timeout: 60)
        _ = try session.findAccessible(app: app, role: "push button", name: "OK", timeout: 60)
        TaskTests.waitUntilQuiet(session, command: "soffice.bin", timeout: 30)
        return app
    }

    /// Whether the application's processes went quiet (under 50 ms of CPU in a second)
    /// within `timeout`: a best effort before pressing; the steps after it check the result.
    @discardableResult
    static func waitUntilQuiet(_ session: DesktopSession, command: String, timeout: Double) -> Bool {
        func ticks() -> Int {
            DesktopSession.markedProcesses(session.marker).filter { $0.command.contains(command) }.reduce(0) { sum, p in
                guard let stat = try? String(contentsOfFile: "/proc/\(p.pid)/stat", encoding: .utf8),
                      let name = stat.lastIndex(of: ")") else { return sum }
                // utime and stime, fields 14 and 15: the 12th and 13th after the name.
                let fields = stat[stat.index(after: name)...].split(separator: " ")
                guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return sum }
                return sum + user + system
            }
        }
        var samples: [(at: ContinuousClock.Instant, ticks: Int)] = []
        return TestTime.poll(timeout: timeout, every: 0.1) {
            let now = ContinuousClock.now, used = ticks()
            samples.append((now, used))
            guard let before = samples.last(where: { now - $0.at >= .seconds(1) }) else { return false }
            samples.removeAll { now - $0.at > .seconds(2) }
            return used - before.ticks < 5  // clock ticks of 10 ms
        }
    }

    /// A calculator: its program, its application name (its windows' class too), its keys for
    /// 12 × 7 =, and whether its result is copied rather than heard.
    struct Calculator: Sendable, CustomStringConvertible {
        var program: String
        var name: String
        var keys: [String]
        var environment: [String: String] = [:]
        var copied = false
        var description: String { name }
        static let galculator = Calculator(program: "/usr/bin/galculator", name: "galculator", keys: ["1", "2", "*", "7", "="])
        static let gnome = Calculator(program: "/usr/bin/gnome-calculator", name: "gnome-calculator", keys: ["1", "2", "×", "7", "="])
        /// Qt 5 publishes nothing without a screen reader running unless told to; kcalc's
        /// display has no text over AT-SPI, so its result is read from its Ctrl+C.
        static let kcalc = Calculator(program: "/usr/bin/kcalc", name: "kcalc", keys: ["1", "2", "×", "7", "="],
                                      environment: ["QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1"], copied: true)
    }

    /// 12 × 7 = in galculator (GTK 3) with the default grouping (the window's long level of
    /// keys in rows) and with `grouping: optimal`: the result is heard. The other toolkits'
    /// calculators are a suite of their own (`OtherCalculatorTaskTests`), which runs beside.
    @Test(arguments: [(Calculator.galculator, "layout"), (.galculator, "optimal")])
    func twelveTimesSeven(on calculator: Calculator, grouping: String) throws {
        try Self.twelveTimesSeven(on: calculator, grouping: grouping)
    }

    /// 12 × 7 = in `calculator` by the outline: the result heard (announced), or where the
    /// display has no text over AT-SPI (`copied`), read from the display copied with Ctrl+C
    /// after the tap of =.
    static func twelveTimesSeven(on calculator: Calculator, grouping: String) throws {
        let session = try DesktopSession()
        defer { session.stop() }
        _ = try session.launchApplication(calculator.program, [], applicationName: calculator.name, title: calculator.name,
                                          extraEnvironment: calculator.environment.merging(["XDG_CONFIG_HOME": session.directory.path]) { $1 })
        _ = try session.waitForApplication(named: calculator.name, timeout: 15)
        // On the bus is not yet drawn: under load its keys come a moment later.
        var elements: [Target] = []
        _ = TestTime.poll(timeout: 20, every: 0.3) {
            elements = (try? Self.targets(session, app: calculator.name)) ?? []
            return calculator.keys.allSatisfy { key in elements.contains { $0.label == key } }
        }
        let keys = try calculator.keys.map { key in
            try #require(elements.first { $0.label == key }, "no key '\(key)' in \(elements.map(\.label))")
        }
        let (scan, start) = try TaskTests.startAutoScan(session, app: calculator.name, settings: #"{"autoScanInterval": 0.5, "grouping": "\#(grouping)", "announceChanges": true}"#)
        defer { _ = scan.terminate() }
        if calculator.copied {
            try Self.press(Array(keys.dropLast()), scan)
            let equals = try Self.tap(keys[keys.count - 1], scan)
            // Its window has no WM_NAME for xdotool's --name: found by its class.
            let activated = try session.runX(.xdotool, ["search", "--sync", "--onlyvisible", "--class", "^\(calculator.name)$",
                                                        "windowactivate", "--sync"])
            guard activated.status == 0 else { throw DesktopError("Activating \(calculator.name)'s window failed.\n\(activated)") }
            // The tap's line comes as the action is sent: the display is copied until it shows
            // the result, or for 5 s.
            var copied = ""
            _ = try TestTime.poll(timeout: 5, every: 0.2) {
                try session.key("ctrl+c")
                copied = try session.clipboardText()
                return copied == "84"
            }
            #expect(copied == "84", "the display copied after 12 × 7 =")
            print(String(format: "Task: %@ 12 × 7 = with grouping %@, 0.5 s a step: %.1f s from the scan's start to the tap of =",
                         calculator.name, grouping, equals.time - start.time))
            return
        }
        try Self.press(keys, scan)
        let result = try #require(EffectLine(try scan.waitForLine("the result announced", timeout: 10) { line in
            guard let e = EffectLine(line), e.effect == "announce" else { return false }
            return e.text?.contains("84") == true
        }))
        print(String(format: "Task: %@ 12 × 7 = with grouping %@, 0.5 s a step: %.1f s from the scan's start to the result heard",
                     calculator.name, grouping, result.time - start.time))
    }
}

/// 12 × 7 = in gnome-calculator (GTK 4), its result heard, and in kcalc (Qt 5), its
/// display copied, with the default grouping: beside galculator's, since each task takes the
/// time its scan takes.
@Suite("Tasks by the outline: GTK 4 and Qt calculators", .serialized, .timeLimit(.minutes(2)))
struct OtherCalculatorTaskTests {
    @Test(arguments: [TaskTests.Calculator.gnome, .kcalc])
    func twelveTimesSeven(on calculator: TaskTests.Calculator) throws {
        try TaskTests.twelveTimesSeven(on: calculator, grouping: "layout")
    }
}

/// The tasks in windows of many controls, a suite of their own so that they run beside the
/// calculators' (each task takes the time its scan takes).
@Suite("Tasks by the outline: widgets and a word processor", .serialized, .timeLimit(.minutes(2)))
struct WindowTaskTests {
    /// gtk3-widget-factory's element that `cost` finds furthest away with `grouping: optimal`,
    /// reached and tapped by the outline.
    @Test func theWidgetFactorysFurthestElementWithOptimalGrouping() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        _ = try session.launchApplication("/usr/bin/gtk3-widget-factory", [], applicationName: "gtk3-widget-factory",
                                          title: "GTK+ Widget Factory")
        _ = try session.waitForApplication(named: "gtk3-widget-factory", timeout: 15)
        let settings = session.directory.appendingPathComponent("task-optimal.json")
        try Data(#"{"autoScanInterval": 0.5, "grouping": "optimal"}"#.utf8).write(to: settings)
        let costs = try session.runSwitchscan(["cost", "--desktop", "--app", "gtk3-widget-factory", "--settings", settings.path, "--json"])
        let worst = try #require(costs.stdoutLines.compactMap { line -> (String, Double)? in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], o["action"] == nil,
                  let id = o["element"] as? String, let seconds = (o["seconds"] as? NSNumber)?.doubleValue else { return nil }
            return (id, seconds)
        }.max { $0.1 < $1.1 }, "\(costs)")
        let target = try #require(try TaskTests.targets(session, app: "gtk3-widget-factory").first { $0.id == worst.0 })
        let (scan, start) = try TaskTests.startAutoScan(session, app: "gtk3-widget-factory", settings: String(decoding: try Data(contentsOf: settings), as: UTF8.self))
        defer { _ = scan.terminate() }
        let tapped = try TaskTests.tap(target, scan)
        print(String(format: "Task: gtk3-widget-factory's furthest element with grouping optimal ('%@', %.1f s by cost), 0.5 s a step: %.1f s from the scan's start to its tap",
                     target.label, worst.1, tapped.time - start.time))
    }

    /// gtk3-widget-factory's everyday controls, one after another in one scan with the default
    /// grouping, each by the outline: a check box ticked, a slider moved up 3 steps with its
    /// menu's Increment (then the menu and the slider's group left), an item other than the
    /// current one picked in a combo box's list (scanned alone once open), and a notebook
    /// switched to its page 2. Each result is read over AT-SPI, and none held before. Each
    /// task's time runs from the end of the one before (the scan's start first).
    @Test func theWidgetFactorysCheckBoxSliderComboAndNotebook() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let app = "gtk3-widget-factory"
        _ = try session.launchApplication("/usr/bin/gtk3-widget-factory", [], applicationName: app, title: "GTK+ Widget Factory")
        _ = try session.waitForApplication(named: app, timeout: 15)
        // On the bus is not yet drawn: the controls are waited for.
        var elements: [TaskTests.Target] = []
        func enabled(_ label: String) -> [TaskTests.Target] {
            elements.filter { $0.label == label && !$0.traits.contains("notEnabled") }
        }
        _ = TestTime.poll(timeout: 20, every: 0.3) {
            elements = (try? TaskTests.targets(session, app: app)) ?? []
            return ["checkbutton", "slider", "Left", "page 2"].allSatisfy { !enabled($0).isEmpty }
        }
        // The window has many of each: an enabled check box neither ticked nor mixed, the
        // first enabled slider, the combo box that shows "Left", the first notebook's page 2.
        var box: TaskTests.Target?
        for candidate in enabled("checkbutton") where box == nil {
            let info = try session.findAccessible(app: app, role: "check box", at: candidate.centre)
            if !info.has("checked") && !info.has("indeterminate") { box = candidate }
        }
        let checkBox = try #require(box, "no unticked check box in \(elements.map(\.label))")
        let slider = try #require(enabled("slider").first, "no slider in \(elements.map(\.label))")
        let combo = try #require(enabled("Left").first, "no combo box in \(elements.map(\.label))")
        let tab = try #require(enabled("page 2").first, "no page 2 in \(elements.map(\.label))")
        let before = try session.findAccessible(app: app, role: "slider", at: slider.centre)
        let start = try #require(before.value), step = try #require(before.step), maximum = try #require(before.maximum)
        let wanted = start + 3 * step
        #expect(step > 0 && maximum >= wanted, "\(before)")
        #expect(try session.findAccessible(app: app, role: "combo box", at: combo.centre).name == combo.label)
        #expect(try !session.findAccessible(app: app, role: "page tab", at: tab.centre).has("selected"), "page 2 already selected")

        let (scan, began) = try TaskTests.startAutoScan(session, app: app, settings: #"{"autoScanInterval": 0.5}"#)
        defer { _ = scan.terminate() }
        var log = TaskTests.Log(app: app, last: began)
        func report(_ what: String, _ end: EffectLine, _ until: String) { log.report(what, end, until: until) }

        // (a) The check box ticked.
        let ticked = try TaskTests.tap(checkBox, scan)
        #expect(try TestTime.poll(timeout: 10, every: 0.2) {
            try session.findAccessible(app: app, role: "check box", at: checkBox.centre).has("checked")
        }, "the check box ticked")
        report("check box ticked", ticked, "the tap of the check box")

        // (b) The slider up 3 steps: its menu's Increment pressed three times, then the menu
        // and the slider's group left, back to the window's top level.
        #expect(try TaskTests.select(slider, scan), "the slider's menu")
        let steps = try TaskTests.pressEntry("Increment", times: 3, scan, effect: "adjust")
        #expect(steps.map { $0.fields["direction"] as? String } == ["increment", "increment", "increment"], "\(steps)")
        _ = try TaskTests.pressEntry("Exit menu", scan, effect: "menuClose")
        _ = try TaskTests.pressOn("the group's exit", scan, timeout: 20) { $0.kind == "exit" }
        let left = try #require(EffectLine(try scan.waitForLine("the group left", timeout: 5) { $0.contains(#""exitGroup""#) }))
        var moved: Double?
        #expect(TestTime.poll(timeout: 10, every: 0.2) {
            moved = try? session.findAccessible(app: app, role: "slider", at: slider.centre).value
            return moved == wanted
        }, "the slider at \(wanted), from \(start): \(String(describing: moved))")
        report("slider up 3 steps", left, "the scan back at the top after its third Increment")

        // (c) The combo box's list opened with its Tap, an item other than the current one
        // picked in the list, which is the window scanned while it is open.
        _ = try TaskTests.tap(combo, scan)
        var list: [TaskTests.Target] = []
        #expect(TestTime.poll(timeout: 10, every: 0.2) {
            list = (try? TaskTests.targets(session, app: app)) ?? []
            return list.contains { $0.label == "Close" } && !list.contains { $0.id == combo.id }
        }, "the combo box's list open: \(list.map(\.label))")
        let item = try #require(list.last { $0.label != combo.label && $0.label != "Close" }, "no other item in \(list.map(\.label))")
        let picked = try TaskTests.tap(item, scan)
        var shown = ""
        #expect(TestTime.poll(timeout: 10, every: 0.2) {
            shown = (try? session.findAccessible(app: app, role: "combo box", at: combo.centre).name) ?? ""
            return shown == item.label
        }, "the combo box shows '\(item.label)': '\(shown)'")
        report("combo box item picked ('\(item.label)' for '\(combo.label)')", picked, "the tap of '\(item.label)'")

        // (d) The notebook on its page 2.
        let switched = try TaskTests.tap(tab, scan)
        #expect(try TestTime.poll(timeout: 10, every: 0.2) {
            try session.findAccessible(app: app, role: "page tab", at: tab.centre).has("selected")
        }, "the notebook on page 2")
        report("notebook on page 2", switched, "the tap of page 2")
    }

    /// LibreOffice Writer (GTK 3) on a new profile, which opens with the Tip of the Day: the
    /// tip closed with its OK, then the Formatting toolbar's Bold pressed and the Help menu
    /// opened, each by the outline with the default grouping. Each task's time runs from
    /// the scan's start, or the tap before, to its tap.
    @Test func writersTipOfTheDayBoldAndHelpMenu() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let app = try TaskTests.startWriter(session)
        // What each tap is for, with its label and what shows it done; none holds yet. The
        // dialog's X window is looked for (quick), the rest over AT-SPI.
        let tasks: [(what: String, label: String, done: () throws -> Bool)] = [
            ("Tip of the Day closed with OK", "OK", { try session.windowIDs(named: "^Tip of the Day").isEmpty }),
            ("Bold pressed", "Bold", { try session.findAccessible(app: app, role: "toggle button", name: "Bold").has("checked") }),
            ("Help menu opened", "Help", { try session.findAccessible(app: app, role: "menu item", name: "LibreOffice Help").has("showing") }),
        ]
        for task in tasks { #expect(try !task.done(), "\(task.what): already so before the tap") }
        let (scan, start) = try TaskTests.startAutoScan(session, app: app, settings: #"{"autoScanInterval": 0.5}"#)
        defer { _ = scan.terminate() }
        var last = start
        var since = "the scan's start"
        for task in tasks {
            // The window the scan is on now: the dialog, then the document's.
            let elements = try TaskTests.targets(session, app: app)
            let target = try #require(elements.first { $0.label == task.label }, "no '\(task.label)' in \(elements.map(\.label))")
            let tapped = try TaskTests.tap(target, scan)
            #expect(try TestTime.poll(timeout: 10, every: 0.2, until: task.done), "\(task.what)")
            print(String(format: "Task: LibreOffice Writer %@, 0.5 s a step: %.1f s from %@ to the tap of %@",
                         task.what, tapped.time - last.time, since, task.label))
            last = tapped
            since = "the tap of \(task.label)"
        }
    }
}

/// A web page in Firefox ESR by the outline, a suite of its own so that it runs beside the
/// others: a button pressed on the first page (Fixtures/web/task.html, offline), whose
/// script writes "Button pressed!" into the page, then a link followed to a second page, and
/// a check box ticked there, in one scan with the default grouping. Each task's time runs
/// from the scan's start, or the tap before, to its tap.
@Suite("Tasks by the outline: a web page", .serialized, .timeLimit(.minutes(2)))
struct WebTaskTests {
    @Test func firefoxPressesAButtonFollowsALinkAndTicksACheckBox() throws {
        let browser = WebTests.Browser.firefox
        try browser.tool.require()
        let session = try DesktopSession()
        defer { session.stop() }
        let app = browser.applicationName
        // Firefox publishes its windows' contents only with the bus's IsEnabled on, which any
        // switchscan command turns on: before it starts, so that it shows them at once.
        _ = try session.runSwitchscan(["desktop"])
        let page = DesktopSession.fixturesDirectory.appendingPathComponent("web/task.html")
        _ = try WebTests.launch(browser, in: session, page: page, title: "Task start")
        _ = try session.waitForApplication(named: app, timeout: 40)
        _ = try WebTests.pageSnapshot(session, browser, labels: ["Task start", "Press me", "Sign up"])
        // A first start keeps Firefox busy for a while: a virtual user who reads the
        // highlights late on a busy machine presses on the wrong item.
        TaskTests.waitUntilQuiet(session, command: "firefox", timeout: 20)
        #expect(try session.windowIDs(named: "^Task form").isEmpty, "the second page already open")
        /// Whether the button's script wrote its text into the page (a heading, named by it).
        func pressed() -> Bool { (try? session.findAccessible(app: app, role: "heading", name: "Button pressed!")) != nil }
        #expect(!pressed(), "the button pressed before")

        let (scan, start) = try TaskTests.startAutoScan(session, app: app, settings: #"{"autoScanInterval": 0.5}"#)
        defer { _ = scan.terminate() }

        // (a) The button pressed: its script's text on the page.
        let first = try TaskTests.targets(session, app: app)
        let button = try #require(first.first { $0.label == "Press me" && $0.traits.contains("button") }, "no button in \(first.map(\.label))")
        let clicked = try TaskTests.tap(button, scan)
        #expect(TestTime.poll(timeout: 10, every: 0.2) { pressed() }, "'Button pressed!' on the page")
        print(String(format: "Task: Firefox ESR button pressed, 0.5 s a step: %.1f s from the scan's start to the tap of %@",
                     clicked.time - start.time, button.label))

        // (b) The link followed: the second page's title on the window. The page as it is
        // after the press, with the script's heading.
        let elements = try TaskTests.targets(session, app: app)
        let link = try #require(elements.first { $0.label == "Sign up" && $0.traits.contains("link") }, "no link in \(elements.map(\.label))")
        let followed = try TaskTests.tap(link, scan)
        #expect(try TestTime.poll(timeout: 10, every: 0.2) { try !session.windowIDs(named: "^Task form").isEmpty }, "the second page open")
        print(String(format: "Task: Firefox ESR link followed, 0.5 s a step: %.1f s from the tap of %@ to the tap of %@",
                     followed.time - clicked.time, button.label, link.label))

        // (c) The check box on the second page ticked.
        let form = try WebTests.pageSnapshot(session, browser, labels: ["Task form", "Send me news"])
        let box = try #require(form.first("Send me news", where: { $0.traits.contains("button") }), "no check box on the second page")
        let target = try #require(try TaskTests.targets(session, app: app).first { $0.id == box.id })
        #expect(try !session.findAccessible(app: app, role: "check box", name: "Send me news").has("checked"), "ticked before")
        let ticked = try TaskTests.tap(target, scan)
        #expect(try TestTime.poll(timeout: 10, every: 0.2) {
            try session.findAccessible(app: app, role: "check box", name: "Send me news").has("checked")
        }, "the check box ticked")
        print(String(format: "Task: Firefox ESR check box ticked, 0.5 s a step: %.1f s from the tap of %@ to the tap of %@",
                     ticked.time - followed.time, link.label, target.label))
    }
}

/// Mousepad's (GTK 3) dialogs by the outline, a suite of its own so that it runs beside the
/// others.
@Suite("Tasks by the outline: an editor's dialogs", .serialized, .timeLimit(.minutes(2)))
struct EditorTaskTests {
    /// Mousepad (GTK 3): File > Open… and the file chooser's Cancel, then Help > About and
    /// the About dialog's Close, in one scan with the default grouping. Each menu opens and is
    /// scanned alone, each dialog shows and is scanned, and once it is gone the editor's
    /// window is scanned again. Each step's time runs from the scan's start, or the tap
    /// before, to its tap.
    @Test func mousepadsOpenDialogCancelledAndAboutDialogClosed() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let app = "mousepad", editor = "Untitled 1 - Mousepad"
        _ = try session.launchApplication("/usr/bin/mousepad", ["--disable-server"], applicationName: app, title: editor,
                                          extraEnvironment: ["XDG_CONFIG_HOME": session.directory.path, "XDG_DATA_HOME": session.directory.path])
        _ = try session.waitForApplication(named: app, timeout: 15)
        // On the bus is not yet drawn: the menu bar's items are waited for.
        _ = TestTime.poll(timeout: 20, every: 0.3) {
            let elements = (try? TaskTests.targets(session, app: app)) ?? []
            return ["File", "Help"].allSatisfy { label in elements.contains { $0.label == label } }
        }
        // Each task: the menu bar's item, its menu's entry, the dialog it opens (its window's
        // title) and the dialog's button that closes it. No dialog is open yet.
        let tasks: [(menu: String, entry: String, dialog: String, button: String)] = [
            ("File", "Open...", "Open File", "Cancel"),
            ("Help", "About", "About Mousepad", "Close"),
        ]
        for task in tasks {
            #expect(try session.windowIDs(named: "^\(task.dialog)$").isEmpty, "'\(task.dialog)' open before")
        }

        let (scan, start) = try TaskTests.startAutoScan(session, app: app, settings: #"{"autoScanInterval": 0.5}"#)
        defer { _ = scan.terminate() }
        var log = TaskTests.Log(app: app, last: start)
        func report(_ what: String, _ end: EffectLine, _ label: String) { log.report(what, end, until: "the tap of \(label)") }
        /// The window the scan is on, once `ready` holds for its snapshot (for up to 10 s).
        func window(_ what: String, _ ready: ([TaskTests.Target]) -> Bool) throws -> [TaskTests.Target] {
            var found: [TaskTests.Target] = []
            let seen = TestTime.poll(timeout: 10, every: 0.2) {
                found = (try? TaskTests.targets(session, app: app)) ?? []
                return ready(found)
            }
            #expect(seen, "\(what): \(found.map(\.label))")
            return found
        }

        for task in tasks {
            // The menu bar's item: its menu opens and is scanned alone.
            let main = try window("the editor's window") { $0.contains { $0.label == task.menu } }
            let menuItem = try #require(main.first { $0.label == task.menu }, "no '\(task.menu)' in \(main.map(\.label))")
            let opened = try TaskTests.tap(menuItem, scan)
            // Not the menu bar's other items: the menu alone.
            let others = ["Edit"] + tasks.map(\.menu).filter { $0 != task.menu }
            let menu = try window("the \(task.menu) menu alone") { items in
                items.contains { $0.label == task.entry } && !items.contains { others.contains($0.label) }
            }
            report("\(task.menu) menu opened", opened, task.menu)

            // Its entry: the dialog shows and is scanned.
            let entry = try #require(menu.first { $0.label == task.entry }, "no '\(task.entry)' in \(menu.map(\.label))")
            let chosen = try TaskTests.tap(entry, scan)
            // The first name heard is the dialog's: not the editor's, which the menu closed back to.
            let heard = try #require(EffectLine(try scan.waitForLine("the first name heard after \(task.entry)", timeout: 10) {
                EffectLine($0)?.effect == "announce"
            }))
            #expect(heard.text == task.dialog, "the first name heard after \(task.entry): \(heard.text ?? "")")
            #expect(try TestTime.poll(timeout: 10, every: 0.2) { try !session.windowIDs(named: "^\(task.dialog)$").isEmpty },
                    "'\(task.dialog)' open")
            let dialog = try window("the dialog '\(task.dialog)'") { items in
                items.contains { $0.label == task.button } && !items.contains { $0.label == task.menu }
            }
            report("\(task.menu) > \(task.entry) ('\(task.dialog)' open)", chosen, task.entry)

            // The dialog's button: the dialog is gone, the editor's window scanned again.
            let button = try #require(dialog.first { $0.label == task.button }, "no '\(task.button)' in \(dialog.map(\.label))")
            let closed = try TaskTests.tap(button, scan)
            #expect(try TestTime.poll(timeout: 10, every: 0.2) { try session.windowIDs(named: "^\(task.dialog)$").isEmpty },
                    "'\(task.dialog)' closed")
            _ = try scan.waitForLine("the editor's window scanned again", timeout: 10) { line in
                guard let e = EffectLine(line) else { return false }
                return e.effect == "announce" && e.text == editor
            }
            report("'\(task.dialog)' closed with \(task.button)", closed, task.button)
        }
        _ = try window("the editor's window at the end") { items in
            items.contains { $0.label == "File" } && !items.contains { $0.label == "Cancel" || $0.label == "Close" }
        }
    }
}

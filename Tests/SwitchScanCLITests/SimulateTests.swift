import Foundation
import Testing

/// `switchscan simulate` (docs/USING.md, "switchscan simulate"): the headless contract.
@Suite("switchscan simulate")
struct SimulateTests {
    static let uikit = "Layouts/switch-control.uikit.json"

    static let testWrap = #"{"t":T,"effect":"highlight","item":"testWrap","kind":"group","frame":[40.0,100.0,295.0,44.0],"label":"Test_1, Test_2"}"#
    static let btn1 = #"{"t":T,"effect":"highlight","item":"btn1","kind":"element","frame":[88.0,200.0,200.0,44.0],"label":"Btn 1"}"#
    static let btn2 = #"{"t":T,"effect":"highlight","item":"btn2","kind":"element","frame":[88.0,254.0,200.0,44.0],"label":"Btn 2"}"#
    static let thirdGroup = #"{"t":T,"effect":"highlight","item":"thirdGroup","kind":"group","frame":[88.0,416.0,200.0,98.0],"label":"Btn 5, Btn 6"}"#

    static func at(_ t: String, _ line: String) -> String { line.replacingOccurrences(of: "\"t\":T", with: "\"t\":\(t)") }

    @Test("the UIKit example scans its four items twice, one a second, then stops")
    func defaultRun() throws {
        let r = try CLI.run(["simulate", Self.uikit])
        let expected = [
            #"{"t":0.000,"effect":"scanStarted"}"#,
            Self.at("0.000", Self.testWrap),
            Self.at("1.000", Self.btn1),
            Self.at("2.000", Self.btn2),
            Self.at("3.000", Self.thirdGroup),
            Self.at("4.000", Self.testWrap),
            Self.at("5.000", Self.btn1),
            Self.at("6.000", Self.btn2),
            Self.at("7.000", Self.thirdGroup),
            #"{"t":8.000,"effect":"scanStopped","reason":"loopsExhausted"}"#,
        ].map { $0 + "\n" }.joined()
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr == "")
        #expect(r.stdout == expected)
        let lines = parseEffects(r)
        #expect(lines.count == 10)
        #expect(lines.filter { $0.effect == "highlight" }.map(\.item) == ["testWrap", "btn1", "btn2", "thirdGroup", "testWrap", "btn1", "btn2", "thirdGroup"])
    }

    static let demoUntil7 = [
        #"{"t":0.000,"effect":"scanStarted"}"#,
        at("0.000", testWrap),
        at("1.000", btn1),
        at("2.000", btn2),
        at("3.000", thirdGroup),
        #"{"t":3.200,"effect":"enterGroup","group":"thirdGroup"}"#,
        #"{"t":3.200,"effect":"highlight","item":"btn5","kind":"element","frame":[88.0,416.0,200.0,44.0],"label":"Btn 5"}"#,
        #"{"t":3.500,"effect":"menuOpen","element":"btn5","entries":["tap","pointMode","gestures","screenMenu","exit"],"titles":["Tap","Point mode","Gestures","Settings and more","Exit menu"]}"#,
        #"{"t":3.500,"effect":"highlight","item":"tap","kind":"menuEntry","element":"btn5","frame":[88.0,416.0,200.0,44.0],"label":"Tap"}"#,
        #"{"t":4.000,"effect":"menuClose","element":"btn5"}"#,
        #"{"t":4.000,"effect":"activate","element":"btn5","point":[188.0,438.0],"target":"btn5"}"#,
        #"{"t":4.000,"effect":"emit","name":"btn5.tapped","element":"btn5"}"#,
        #"{"t":4.000,"effect":"exitGroup","group":"thirdGroup"}"#,
        at("4.000", testWrap),
        at("5.000", btn1),
        at("6.000", btn2),
        at("7.000", thirdGroup),
    ].map { $0 + "\n" }.joined()

    /// The key effects of the single-switch example of the README's first command, in order.
    func checkDemo(_ r: RunResult) {
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr == "")
        let lines = parseEffects(r)
        let enter = lines.firstIndex { $0.effect == "enterGroup" }
        let menu = lines.firstIndex { $0.effect == "menuOpen" }
        let activate = lines.firstIndex { $0.effect == "activate" }
        let emit = lines.firstIndex { $0.effect == "emit" }
        guard let enter, let menu, let activate, let emit else {
            Issue.record("missing enterGroup/menuOpen/activate/emit:\n\(r.stdout)")
            return
        }
        #expect(lines[enter].raw == #"{"t":3.200,"effect":"enterGroup","group":"thirdGroup"}"#)
        #expect(lines[menu].millis == 3500)
        #expect(lines[menu].object["element"] as? String == "btn5")
        #expect(lines[menu].object["entries"] as? [String] == ["tap", "pointMode", "gestures", "screenMenu", "exit"])
        #expect(lines[activate].millis == 4000)
        #expect(lines[activate].object["element"] as? String == "btn5")
        #expect(lines[activate].object["point"] as? [Double] == [188.0, 438.0])
        #expect(lines[activate].raw.contains(#""point":[188.0,438.0]"#))
        #expect(lines[emit].raw == #"{"t":4.000,"effect":"emit","name":"btn5.tapped","element":"btn5"}"#)
        #expect(enter < menu && menu < activate && activate < emit)
    }

    @Test("--events: enter the group {Btn 5, Btn 6}, open Btn 5's menu, tap it")
    func eventsFile() throws {
        let r = try CLI.run(["simulate", Self.uikit, "--events", "Examples/uikit-demo.events", "--until", "7"])
        checkDemo(r)
        #expect(r.stdout == Self.demoUntil7)
    }

    @Test("--events - reads the events from standard input")
    func eventsFromStdin() throws {
        let events = try String(contentsOf: CLI.packageRoot.appendingPathComponent("Examples/uikit-demo.events"), encoding: .utf8)
        let r = try CLI.run(["simulate", Self.uikit, "--events", "-", "--until", "7"], stdin: events)
        checkDemo(r)
        #expect(r.stdout == Self.demoUntil7)
    }

    @Test("--until cuts the output at that time (inclusive)")
    func untilCuts() throws {
        let r = try CLI.run(["simulate", Self.uikit, "--until", "2.5"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr == "")
        #expect(r.stdout == [#"{"t":0.000,"effect":"scanStarted"}"#, Self.at("0.000", Self.testWrap),
                             Self.at("1.000", Self.btn1), Self.at("2.000", Self.btn2)].map { $0 + "\n" }.joined())
        let zero = try CLI.run(["simulate", Self.uikit, "--until", "0"])
        #expect(zero.status == 0, "\(zero)")
        #expect(zero.stdout == [#"{"t":0.000,"effect":"scanStarted"}"#, Self.at("0.000", Self.testWrap)].map { $0 + "\n" }.joined())
        let two = try CLI.run(["simulate", Self.uikit, "--until", "2"])
        #expect(parseEffects(two).last?.raw == Self.at("2.000", Self.btn2))
    }

    @Test("without --until the simulation ends 10 s after the last event")
    func endsTenSecondsAfterLastEvent() throws {
        try withTempDir { dir in
            // 0.1 s per item and 100 loops: the highlight keeps moving past the end.
            let settings = try dir.write("fast.json", #"{"autoScanInterval": 0.1, "loops": 100}"#)
            // `exit` at the top level changes nothing; its release at 5.070 is the last event.
            let events = try dir.write("late.events", "5.05 exit down\n5.07 exit up\n")
            let r = try CLI.run(["simulate", "Layouts/keypad-order.json", "--settings", settings, "--events", events])
            #expect(r.status == 0, "\(r)")
            #expect(r.stderr == "")
            let lines = parseEffects(r)
            #expect((lines.last?.millis ?? 0) <= 15_070, "the last effect is after last event + 10 s: \(lines.last?.raw ?? "")")
            #expect(lines.last?.millis == 15_000, "the highlight at 15.000 s is within the 10 s")
            #expect(lines.filter { $0.effect == "highlight" }.count == 151)

            // The README example: the last event is the press at 4.0 s (released at 4.05 s).
            let demo = try CLI.run(["simulate", Self.uikit, "--events", "Examples/uikit-demo.events"])
            #expect(demo.status == 0, "\(demo)")
            checkDemo(demo)
            let demoLines = parseEffects(demo)
            #expect((demoLines.last?.millis ?? .max) <= 14_050)
            #expect(demoLines.last?.raw == #"{"t":12.000,"effect":"scanStopped","reason":"loopsExhausted"}"#)
        }
    }

    @Test("--style manual: the highlight moves only on next/previous")
    func manualStyle() throws {
        let still = try CLI.run(["simulate", Self.uikit, "--style", "manual"])
        #expect(still.status == 0, "\(still)")
        #expect(still.stderr == "")
        #expect(still.stdout == [#"{"t":0.000,"effect":"scanStarted"}"#, Self.at("0.000", Self.testWrap)].map { $0 + "\n" }.joined())

        let moved = try CLI.run(["simulate", Self.uikit, "--style", "manual", "--events", "-"],
                                stdin: "1 next\n2 next\n3 previous\n4 select\n")
        #expect(moved.status == 0, "\(moved)")
        #expect(moved.stderr == "")
        let lines = parseEffects(moved)
        let highlights = lines.filter { $0.effect == "highlight" && $0.kind != "menuEntry" }
        #expect(highlights.map(\.item) == ["testWrap", "btn1", "btn2", "btn1"])
        #expect(highlights.map(\.millis) == [0, 1000, 2000, 3000])
        let menu = lines.first { $0.effect == "menuOpen" }
        #expect(menu?.millis == 4000)
        #expect(menu?.object["element"] as? String == "btn1")
        // Manual style: the menu does not scan by itself either.
        #expect(lines.last?.raw == #"{"t":4.000,"effect":"highlight","item":"tap","kind":"menuEntry","element":"btn1","frame":[88.0,200.0,200.0,44.0],"label":"Tap"}"#)
    }

    @Test("--settings: interval and loops come from the file")
    func settingsFile() throws {
        try withTempDir { dir in
            let settings = try dir.write("half-second.json", #"{"autoScanInterval": 0.5, "loops": 1}"#)
            let r = try CLI.run(["simulate", Self.uikit, "--settings", settings])
            #expect(r.status == 0, "\(r)")
            #expect(r.stderr == "")
            #expect(r.stdout == [
                #"{"t":0.000,"effect":"scanStarted"}"#,
                Self.at("0.000", Self.testWrap),
                Self.at("0.500", Self.btn1),
                Self.at("1.000", Self.btn2),
                Self.at("1.500", Self.thirdGroup),
                #"{"t":2.000,"effect":"scanStopped","reason":"loopsExhausted"}"#,
            ].map { $0 + "\n" }.joined())
        }
    }

    @Test("--style on the command line overrides the settings file")
    func styleOverridesSettings() throws {
        try withTempDir { dir in
            let settings = try dir.write("manual.json", #"{"style": "manual"}"#)
            let manual = try CLI.run(["simulate", Self.uikit, "--settings", settings, "--until", "1.5"])
            #expect(manual.status == 0, "\(manual)")
            #expect(parseEffects(manual).filter { $0.effect == "highlight" }.map(\.item) == ["testWrap"])
            let auto = try CLI.run(["simulate", Self.uikit, "--settings", settings, "--style", "auto", "--until", "1.5"])
            #expect(auto.status == 0, "\(auto)")
            #expect(auto.stdout == [#"{"t":0.000,"effect":"scanStarted"}"#, Self.at("0.000", Self.testWrap),
                                    Self.at("1.000", Self.btn1)].map { $0 + "\n" }.joined())
        }
    }

    /// Checks the start of point mode: modeChanged point, then a vertical line sweeping x.
    func checkPointStart(_ lines: [EffectLine], speed: Double = 100) {
        guard lines.count >= 3 else {
            Issue.record("too few lines: \(lines.map(\.raw))")
            return
        }
        #expect(lines[0].raw == #"{"t":0.000,"effect":"scanStarted"}"#)
        #expect(lines[1].raw == #"{"t":0.000,"effect":"modeChanged","mode":"point"}"#)
        #expect(lines[2].effect == "sweep")
        #expect(lines[2].millis == 0)
        #expect(lines[2].object["axis"] as? String == "x")
        #expect(lines[2].object["phase"] as? String == "line")
        #expect(lines[2].object["from"] as? Double == 0)
        #expect(lines[2].object["speed"] as? Double == speed)
    }

    @Test("--mode point: modeChanged, then crosshair sweeps")
    func pointMode() throws {
        let r = try CLI.run(["simulate", Self.uikit, "--mode", "point"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr == "")
        let lines = parseEffects(r)
        checkPointStart(lines)
        #expect(!lines.contains { $0.effect == "highlight" }, "no item is highlighted in point mode")
        // 375 pt wide at 100 pt/s, 2 passes: 7.5 s.
        #expect(lines.last?.raw == #"{"t":7.500,"effect":"scanStopped","reason":"loopsExhausted"}"#)

        // A press fixes x (188 pt after 1.88 s), then y sweeps; a second press fixes y.
        let pressed = try CLI.run(["simulate", Self.uikit, "--mode", "point", "--events", "-", "--until", "3"],
                                  stdin: "1.88 select\n3.0 select\n")
        #expect(pressed.status == 0, "\(pressed)")
        let p = parseEffects(pressed)
        checkPointStart(p)
        let ySweep = p.first { $0.effect == "sweep" && $0.object["axis"] as? String == "y" }
        #expect(ySweep?.millis == 1880)
        let point = p.first { $0.effect == "pointSelected" }
        #expect(point?.raw == #"{"t":3.000,"effect":"pointSelected","x":188.0,"y":112.0}"#)
    }

    @Test("a settings file can start in point mode")
    func pointModeFromSettings() throws {
        try withTempDir { dir in
            let settings = try dir.write("point.json", #"{"mode": "point", "glideSpeed": 50}"#)
            let r = try CLI.run(["simulate", Self.uikit, "--settings", settings, "--until", "1"])
            #expect(r.status == 0, "\(r)")
            #expect(r.stderr == "")
            let lines = parseEffects(r)
            checkPointStart(lines, speed: 50)
            #expect(lines.count == 3)
        }
    }

    @Test("deadlines are absolute: the k-th highlight lands on exactly k × 0.1 s")
    func absoluteDeadlines() throws {
        try withTempDir { dir in
            let settings = try dir.write("tenth.json", #"{"autoScanInterval": 0.1, "loops": 100}"#)
            let r = try CLI.run(["simulate", "Layouts/keypad-order.json", "--settings", settings, "--until", "20"])
            #expect(r.status == 0, "\(r)")
            #expect(r.stderr == "")
            let highlights = parseEffects(r).filter { $0.effect == "highlight" }
            #expect(highlights.count == 201)
            for (k, h) in highlights.enumerated() where h.millis != k * 100 {
                Issue.record("highlight \(k) at \(h.seconds) s, expected \(k * 100) ms: \(h.raw)")
                break
            }
            // The keypad's top level: {1,2,3}, 4, 7, {6,8,9,5}, round and round.
            let order = ["greyColumn", "key4", "key7", "blueBlock"]
            #expect(highlights.map(\.item) == (0...200).map { order[$0 % 4] })
        }
    }
}

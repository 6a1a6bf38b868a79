import Foundation
import ScanCore
import ScanFormats
import ScanRuntime
import Testing

func loadLayout(_ name: String) throws -> ElementTree {
    let url = Scenario.root.appendingPathComponent("Layouts").appendingPathComponent(name)
    return try LayoutLoader.load(bytes: [UInt8](Data(contentsOf: url)), file: name).tree
}

func highlights(_ effects: [TimedEffect]) -> [(ScanInstant, String)] {
    effects.compactMap { e in
        if case let .highlight(item, _, _, _, _, _) = e.effect { return (e.time, item) }
        return nil
    }
}

@Suite("Engine timing")
struct EngineTimingTests {
    @Test func deadlinesAreAbsoluteOverAThousandSteps() throws {
        var settings = ScanSettings()
        settings.autoScanInterval = .seconds(0.1)
        settings.loops = 1000
        var driver = ManualDriver(engine: ScanEngine(tree: try loadLayout("keypad-order.json"), settings: settings))
        let effects = driver.start() + driver.advance(to: .seconds(100))
        let times = highlights(effects).map(\.0)
        #expect(times.count == 1001)
        for (k, t) in times.enumerated() {
            #expect(t == ScanInstant(nanoseconds: Int64(k) * 100_000_000), "step \(k) at \(t)")
        }
    }

    /// Events handed over as they are reached (`advance(to:delivering:)`, as `simulate`
    /// does) give what scheduling them all first gives, to the byte: presses at the
    /// instants of highlights, of each other, and past the end.
    @Test(arguments: ["auto", "manual", "step"])
    func eventsDeliveredAsReachedGiveWhatScheduledEventsGive(_ style: String) throws {
        var settings = ScanSettings()
        settings.style = ScanStyle(rawValue: style)!
        let text = (0..<200).map { k in "\(k / 4).\(k % 4 * 25) \(["select", "next", "menu", "exit"][k % 4])" }.joined(separator: "\n")
            + "\n50 select down\n50 next\n51 select up\n70 pause"
        let events = try EventsLoader.load(text: text, file: "test.events")
        for end in [ScanInstant.seconds(30), .seconds(60), .seconds(80)] {
            var scheduled = ManualDriver(engine: ScanEngine(tree: try loadLayout("switch-control.uikit.json"), settings: settings))
            var delivered = scheduled
            scheduled.schedule(Array(events))
            let a = jsonLines(scheduled.start() + scheduled.advance(to: end))
            var out: [TimedEffect] = delivered.start()
            delivered.advance(to: end, delivering: events) { out += $0 }
            #expect(jsonLines(out) == a, "\(style) to \(end)")
            #expect(a.count > 1000)
        }
    }

    @Test func aLateProcessedPressSelectsWhatWasHighlightedAtItsTimestamp() throws {
        var driver = ManualDriver(engine: ScanEngine(tree: try loadLayout("switch-control.uikit.json")))
        _ = driver.start()
        // The engine has moved on to btn1 at 1.0 s; the press happened at 0.98 s on the group.
        let moved = driver.advance(to: .seconds(1.02))
        #expect(highlights(moved).map(\.1) == ["btn1"])
        let late = driver.deliver(SwitchEvent(.select, down: true, at: .seconds(0.98)))
        let kinds = late.map { e -> String in
            switch e.effect {
            case .highlight(let item, _, _, _, _, _): return "highlight \(item)"
            case .enterGroup(let g): return "enter \(g)"
            default: return "other"
            }
        }
        #expect(kinds == ["highlight testWrap", "enter testWrap", "highlight test1"])
        #expect(late.allSatisfy { $0.time == .seconds(1.02) }, "effects carry the processing time, in order")
    }

    /// The real-time queue may hand the engine a press before a tick that was due earlier
    /// (both waited while the thread was late). The press must still select what was
    /// highlighted at its timestamp, exactly as when the tick ran first.
    @Test(arguments: [0.98, 1.0, 1.2, 1.99, 2.0, 2.5])
    func aPressHandedOverBeforeALateTickSelectsAsIfTheTickRanFirst(pressedAt: Double) throws {
        let tree = try loadLayout("switch-control.uikit.json")
        let press = SwitchEvent(.select, down: true, at: .seconds(pressedAt))
        let processedAt = ScanInstant.seconds(2.7)
        func selected(_ effects: [TimedEffect]) -> [String] {
            effects.compactMap { e -> String? in
                switch e.effect {
                case .enterGroup(let g): return g
                case .menuOpen(let element, _, _): return element
                default: return nil
                }
            }
        }
        // Tick first: the late tick runs when the thread wakes, then the press.
        var tickFirst = ScanEngine(tree: tree)
        var a = tickFirst.start(at: .zero)
        a += tickFirst.handleDeadline(at: processedAt)
        a += tickFirst.handle(press, at: processedAt)
        // Press first: no timer has run since the start.
        var pressFirst = ScanEngine(tree: tree)
        var b = pressFirst.start(at: .zero)
        b += pressFirst.handle(press, at: processedAt)
        b += pressFirst.handleDeadline(at: processedAt)
        // Top level: testWrap 0-1 s, btn1 1-2 s, btn2 from 2 s.
        let expected = pressedAt < 1 ? "testWrap" : pressedAt < 2 ? "btn1" : "btn2"
        #expect(selected(a) == [expected])
        #expect(selected(b) == [expected])
    }

    @Test func aPressAfterTheNextStepStillCountsForTheNewItem() throws {
        var driver = ManualDriver(engine: ScanEngine(tree: try loadLayout("switch-control.uikit.json")))
        _ = driver.start()
        _ = driver.advance(to: .seconds(1.5))
        let effects = driver.deliver(SwitchEvent(.select, down: true, at: .seconds(1.2)))
        guard case .menuOpen(let element, _, _)? = effects.first?.effect else {
            Issue.record("expected the menu of btn1, got \(effects)"); return
        }
        #expect(element == "btn1")
    }

    @Test func replacingTheTreeKeepsTheCursorOnTheSameElement() throws {
        let tree = try loadLayout("switch-control.uikit.json")
        var engine = ScanEngine(tree: tree)
        _ = engine.start(at: .zero)
        _ = engine.handleDeadline(at: .seconds(2))  // btn2
        var changed = tree
        changed.update(tree.index(of: "btn1")!) { $0.hidden = true }
        _ = engine.replaceTree(changed, at: .seconds(2.5))
        let next = engine.handleDeadline(at: .seconds(3))
        #expect(highlights(next).map(\.1) == ["thirdGroup"], "btn2 kept its place; btn1's removal did not shift the cursor")
    }

    @Test func nextDeadlineIsTheEarliestTimer() throws {
        var engine = ScanEngine(tree: try loadLayout("switch-control.uikit.json"))
        #expect(engine.nextDeadline == nil, "nothing armed before start")
        _ = engine.start(at: .seconds(5))
        #expect(engine.nextDeadline == .seconds(6))
    }
}

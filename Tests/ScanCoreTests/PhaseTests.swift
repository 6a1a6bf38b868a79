import Testing
@testable import ScanCore

/// The engine's phases and its timer table.
@Suite("Engine phases and timers")
struct PhaseTests {
    @Test func theTimerTableGivesTheEarliestAndBreaksTiesInItsOrder() {
        var timers = TimerTable()
        #expect(timers.next == nil)
        timers[.sweepEnd] = at(2)
        timers[.autoTap] = at(1)
        #expect(timers.next?.timer == .autoTap && timers.next?.at == at(1))
        timers[.move] = at(1)
        #expect(timers.next?.timer == .move, "a tie goes to the first timer in EngineTimer's order")
        timers[.move] = nil
        timers[.autoTap] = nil
        #expect(timers.next?.timer == .sweepEnd)
    }

    func release(_ action: SwitchAction, at s: Double) -> SwitchEvent { SwitchEvent(action, down: false, at: at(s)) }

    @Test(arguments: [ScanMode.item, .point])
    func pauseStopsEveryTimerAndResumesTheSameMode(_ mode: ScanMode) {
        var s = ScanSettings()
        s.mode = mode
        var engine = ScanEngine(tree: screen(buttons("a", "b", "c")), settings: s)
        #expect(engine.phase == .idle)
        #expect(engine.handle(press(.select, at: 0), at: at(0)).isEmpty, "nothing happens before start")
        _ = engine.start(at: at(0))
        #expect(engine.phase == (mode == .point ? .point(.scanning) : .item(.scanning)))
        #expect(engine.nextDeadline != nil)
        _ = engine.handle(press(.pause, at: 0.2), at: at(0.2))
        _ = engine.handle(release(.pause, at: 0.25), at: at(0.25))
        #expect(engine.phase == (mode == .point ? .paused(.point) : .paused(.item(nil))))
        #expect(engine.nextDeadline == nil, "a pause clears every timer")
        #expect(!engine.isRunning)
        // Other switches do nothing while paused.
        #expect(engine.handle(press(.select, at: 1), at: at(1)).isEmpty)
        _ = engine.handle(release(.select, at: 1.05), at: at(1.05))
        _ = engine.handle(press(.pause, at: 2), at: at(2))
        #expect(engine.phase == (mode == .point ? .point(.scanning) : .item(.scanning)))
        #expect(engine.isRunning)
        #expect(engine.currentMode == mode)
        #expect(engine.nextDeadline != nil)
    }
}

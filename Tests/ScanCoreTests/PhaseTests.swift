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

    /// Presses `action` at `s` and lets it go 50 ms later.
    func click(_ engine: inout ScanEngine, _ action: SwitchAction, at s: Double) -> [Effect] {
        let out = engine.handle(press(action, at: s), at: at(s)) + engine.handle(release(action, at: s + 0.05), at: at(s + 0.05))
        return out.map(\.effect)
    }

    @Test func itemScanningStopsAfterItsLoopsAndAPauseKeepsWhy() {
        var engine = ScanEngine(tree: screen(buttons("a", "b")))
        _ = engine.start(at: at(0))
        _ = engine.handleDeadline(at: at(3.9))
        #expect(engine.phase == .item(.scanning))
        let stopped = engine.handleDeadline(at: at(4)).map(\.effect)
        #expect(stopped == [.scanStopped(.loopsExhausted)])
        #expect(engine.phase == .item(.stopped(.afterLoops)))
        #expect(!engine.isRunning)
        _ = click(&engine, .pause, at: 5)
        #expect(engine.phase == .paused(.item(.afterLoops)))
        // Resumed, it starts again at the first item rather than where it stopped.
        let resumed = click(&engine, .pause, at: 6)
        #expect(engine.phase == .item(.scanning))
        #expect(resumed.last == .highlight(item: "a", kind: .element, frame: engine.tree[engine.tree.index(of: "a")!].frame, label: "A", context: nil))
    }

    @Test func aPendingAutoTapIsAnItemSubPhaseThatASecondPressTurnsIntoTheMenu() {
        var s = ScanSettings()
        s.tapBehavior = .autoTap
        s.style = .manual
        var engine = ScanEngine(tree: screen(buttons("a", "b")), settings: s)
        _ = engine.start(at: at(0))
        _ = click(&engine, .select, at: 1)
        let a = engine.tree.index(of: "a")!
        #expect(engine.phase == .item(.autoTap(.element(a))))
        #expect(engine.isRunning)
        let second = click(&engine, .select, at: 1.2)
        #expect(engine.phase == .item(.scanning))
        #expect(second.contains { if case .menuOpen(element: "a", _, _) = $0 { return true } else { return false } })
        #expect(engine.nextDeadline == nil, "manual scanning with the menu open: no timer")
    }

    @Test func aPausedAutoTapIsDroppedAndResumingScansOn() {
        var s = ScanSettings()
        s.tapBehavior = .autoTap
        s.style = .manual
        var engine = ScanEngine(tree: screen(buttons("a", "b")), settings: s)
        _ = engine.start(at: at(0))
        _ = click(&engine, .select, at: 1)
        _ = click(&engine, .pause, at: 1.2)
        #expect(engine.phase == .paused(.item(nil)))
        let resumed = click(&engine, .pause, at: 3)
        #expect(engine.phase == .item(.scanning))
        #expect(!resumed.contains { if case .activate = $0 { return true } else { return false } }, "the tap never happens")
    }

    @Test func anEmptyScreenDuringTheWaitAfterASelectionStopsScanningUntilItemsReturn() {
        var s = ScanSettings()
        s.style = .manual
        s.pauseAfterSelection = .seconds(.seconds(2))
        var engine = ScanEngine(tree: screen(buttons("a", "b")), settings: s)
        _ = engine.start(at: at(0))
        _ = click(&engine, .select, at: 1)  // a's menu, on Tap
        _ = click(&engine, .select, at: 1.2)
        #expect(engine.phase == .item(.waiting))
        let emptied = engine.replaceTree(screen([]), at: at(1.5)).scanned.map(\.effect)
        #expect(emptied == [.scanStopped(.nothingToScan)])
        #expect(engine.phase == .item(.stopped(.nothingToScan)))
        #expect(engine.nextDeadline == nil, "the wait's timer goes with it")
        let back = engine.replaceTree(screen(buttons("a", "b")), at: at(2)).scanned.map(\.effect)
        #expect(engine.phase == .item(.scanning))
        #expect(back.first == .scanStarted)
    }
}

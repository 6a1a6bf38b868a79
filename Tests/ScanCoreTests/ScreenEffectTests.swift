import Testing
@testable import ScanCore

/// `Effect.screen`: presenters learn the screen from the effects alone, before anything on
/// it is highlighted — at the start, for every snapshot of the window, for another window,
/// for a screen presented over it and when that closes.
@Suite struct ScreenEffectTests {
    let abc = screen(buttons("a", "b", "c"))

    func shown(_ effects: [TimedEffect]) -> [(id: String, serial: Int, count: Int)] {
        effects.compactMap { if case .screen(let s) = $0.effect { (s.tree.screenID, s.serial, s.tree.count) } else { nil } }
    }

    @Test func theStartShowsTheScreenBeforeItsFirstHighlight() {
        var engine = ScanEngine(tree: abc)
        let effects = engine.start(at: .zero)
        #expect(effects.first?.effect == .screen(ShownScreen(abc, serial: 1)))
        #expect(effects.scanned == timed(0, .scanStarted, lit("a", in: abc)))
    }

    @Test func aSnapshotBeforeTheStartIsShownOnceAtTheStart() {
        var engine = ScanEngine(tree: abc)
        let bigger = screen(buttons("a", "b", "c", "d"))
        #expect(engine.replaceTree(bigger, at: .zero).isEmpty)
        let s = shown(engine.start(at: at(0.1)))
        #expect(s.count == 1)
        #expect(s.first?.count == bigger.count)
    }

    @Test func everySnapshotIsShownEvenWhenNothingElseChanges() {
        var engine = ScanEngine(tree: abc)
        _ = engine.start(at: .zero)
        let relabelled = screen([.button("a"), .button("b"), .button("c", label: "See")])
        let effects = engine.replaceTree(relabelled, at: at(0.5))
        #expect(effects.scanned.isEmpty, "c is not highlighted: nothing else to do")
        #expect(shown(effects).map(\.serial) == [2])
        if case .screen(let s)? = effects.first?.effect {
            #expect(s.tree[s.tree.index(of: "c")!].label == "See", "the new labels reach the presenters")
        }
    }

    @Test func anotherWindowIsShownBeforeItsTitleIsAnnounced() {
        var engine = ScanEngine(tree: abc)
        _ = engine.start(at: .zero)
        let dialog = screen(buttons("ok"), id: "dialog", title: "Save?")
        let effects = engine.replaceTree(dialog, at: at(0.5)).map(\.effect)
        #expect(effects.first == .screen(ShownScreen(dialog, serial: 2)))
        #expect(effects.dropFirst().first == .announce("Save?"))
    }

    @Test func aFailureTheHostReportsIsSaidThroughTheEngine() {
        var engine = ScanEngine(tree: abc)
        _ = engine.start(at: .zero)
        #expect(engine.report("The tap on OK failed", at: at(0.4)) == timed(0.4, .announce("The tap on OK failed")))
        #expect(engine.nextDeadline == at(1), "the scan goes on as before")
    }

    @Test func aHostNoticeIsShownThroughTheEngineAndChangesNothing() {
        var engine = ScanEngine(tree: abc)
        _ = engine.start(at: .zero)
        #expect(engine.notice("Using /dev/input/event5", at: at(0.2)) == timed(0.2, .notice("Using /dev/input/event5")))
        #expect(engine.nextDeadline == at(1))
    }
}

import ScanCore
import Testing
@testable import SpeechOutput

/// Tones for a person who scans by ear: the first item of each cycle and the Exit item
/// (`positionTones`), and a label cut off at the limit (`speechPacing`). The plan is pure:
/// these check what would be sent.
@Suite struct PositionTonesTests {
    static func plan() -> UtterancePlan {
        var plan = UtterancePlan(speech: true, moveSound: "move", selectSound: "select")
        plan.firstTone = "first"
        plan.exitTone = "exit"
        plan.cutTone = "cut"
        return plan
    }

    static func lit(_ id: String, _ kind: HighlightKind = .element) -> TimedEffect {
        TimedEffect(.zero, .highlight(item: id, kind: kind, frame: nil, label: id.uppercased(), context: nil))
    }

    /// Sound icons before each label, in the order the batches come.
    static func icons(_ plan: inout UtterancePlan, _ batches: [[TimedEffect]]) -> [[String]] {
        var screen: ElementTree?
        return batches.map { plan.utterances($0, received: .zero, screen: &screen).flatMap(\.icons) }
    }

    @Test func theFirstItemOfEachCycleAndTheExitItemHaveTheirTones() {
        var plan = Self.plan()
        let started = TimedEffect(.zero, .scanStarted), entered = TimedEffect(.zero, .enterGroup("g"))
        let left = TimedEffect(.zero, .exitGroup("g"))
        let heard = Self.icons(&plan, [
            [started, Self.lit("a")], [Self.lit("b")], [Self.lit("g", .group)], [Self.lit("a")],
            // Into the group: its first item; its Exit; round again to its first.
            [entered, Self.lit("x")], [Self.lit("y")], [Self.lit("exit", .exit)], [Self.lit("x")],
            // Out of it: the top level's first is still "a".
            [left, Self.lit("g", .group)], [Self.lit("a")],
        ])
        #expect(heard == [["first"], ["move"], ["move"], ["first"],
                          ["select", "first"], ["move"], ["exit"], ["first"],
                          ["move"], ["first"]])
    }

    /// Scanning started again part way through a cycle (after a pause) keeps the top level's
    /// first item; a menu shown again with new entries is the same menu.
    @Test func aResumeOrAMenuShownAgainKeepsTheFirstItem() {
        var plan = Self.plan()
        let started = TimedEffect(.zero, .scanStarted)
        let menu = TimedEffect(.zero, .menuOpen(element: "b", entries: ["tap", "exit"], titles: ["Tap", "Exit"]))
        let closed = TimedEffect(.zero, .menuClose(element: "b"))
        let heard = Self.icons(&plan, [
            [started, Self.lit("a")], [Self.lit("b")], [started, Self.lit("b")], [Self.lit("c")], [Self.lit("a")],
            [menu, Self.lit("tap", .menuEntry)], [menu, Self.lit("tap", .menuEntry)], [Self.lit("exit", .menuEntry)],
            [closed, Self.lit("a")],
        ])
        #expect(heard == [["first"], ["move"], ["move"], ["move"], ["first"],
                          ["first"], ["first"], ["move"], ["first"]])
    }

    /// Back from the keyboard to the window, the scan goes on at the field: the window's
    /// first item is still the one it had.
    @Test func aScreenShownAgainKeepsItsFirstItem() {
        var plan = Self.plan()
        func shown(_ id: String) -> TimedEffect { TimedEffect(.zero, .screen(ShownScreen(ElementTree(screenID: id, size: (10, 10), nodes: [ElementNode(id: "r")]), serial: 1))) }
        let started = TimedEffect(.zero, .scanStarted)
        let heard = Self.icons(&plan, [
            [shown("window"), started, Self.lit("a")], [Self.lit("field")],
            [shown("keyboard"), Self.lit("key_e")], [Self.lit("key_t")],
            [shown("window"), Self.lit("field")], [Self.lit("a")],
        ])
        #expect(heard == [["first"], ["move"], ["first"], ["move"], ["move"], ["first"]])
    }

    /// The engine says when the scan moved on at the limit (`labelCut`, never for a press):
    /// the next label begins with the knock; with no label after it, the knock alone.
    @Test func aLabelCutAtTheLimitIsMarked() {
        var plan = Self.plan()
        plan.firstTone = nil
        let cut = TimedEffect(.zero, .labelCut)
        #expect(Self.icons(&plan, [[cut, Self.lit("b")]]) == [["cut"]])
        #expect(Self.icons(&plan, [[TimedEffect(.zero, .activate(element: "b", point: Point(x: 0, y: 0), target: nil)), Self.lit("c")]])
                == [["select"]])
        #expect(Self.icons(&plan, [[cut, TimedEffect(.zero, .scanStopped(.loopsExhausted))]]) == [["cut"]])
        #expect(Self.icons(&plan, [[Self.lit("c")]]) == [["move"]])
    }
}

/// Scanning by ear's reports from speech-dispatcher's events: a label's BEGIN and END (or
/// CANCEL) reach the engine with its highlight's time, also when they come before the
/// speech thread has recorded the label's message id; events of earlier messages are not
/// the label's.
@Suite struct LabelReportsTests {
    @Test func aLabelsBeginAndEndAreReportedWhicheverComesFirst() {
        let sink = BeginSink()
        let began = Collected<ScanInstant>(), said = Collected<ScanInstant>()
        sink.onLabelBegan = { began.append($0) }
        sink.onLabelSaid = { said.append($0) }
        sink.awaitEnd(messageID: 7, shownAt: .seconds(1))
        sink.began(messageID: 6, at: .seconds(1.1))
        sink.ended(messageID: 6)
        #expect(began.all.isEmpty && said.all.isEmpty && sink.labelPending, "an earlier message's events")
        sink.began(messageID: 7, at: .seconds(1.2))
        sink.ended(messageID: 7)
        #expect(began.all == [.seconds(1)] && said.all == [.seconds(1)] && !sink.labelPending)
        // Begun and ended before the thread recorded it (a short label, a busy thread).
        sink.began(messageID: 9, at: .seconds(2.1))
        sink.ended(messageID: 9)
        sink.awaitEnd(messageID: 9, shownAt: .seconds(2))
        #expect(began.all == [.seconds(1), .seconds(2)] && said.all == [.seconds(1), .seconds(2)])
        // A label that will not be said.
        sink.awaitEnd(messageID: 11, shownAt: .seconds(3))
        sink.notSaid(shownAt: .seconds(3))
        #expect(said.all.last == .seconds(3) && !sink.labelPending)
    }
}

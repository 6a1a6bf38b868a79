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
    static func icons(_ plan: inout UtterancePlan, _ batches: [[TimedEffect]], cut: Bool = false) -> [[String]] {
        var screen: ElementTree?
        return batches.map { plan.utterances($0, received: .zero, screen: &screen, cut: cut).flatMap(\.icons) }
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

    /// The presenter says when the label before was cut at the limit: the next highlight
    /// begins with the knock, after a select sound where there is one.
    @Test func aLabelCutOffIsMarked() {
        var plan = Self.plan()
        plan.firstTone = nil
        #expect(Self.icons(&plan, [[Self.lit("b")]], cut: true) == [["cut"]])
        #expect(Self.icons(&plan, [[TimedEffect(.zero, .activate(element: "b", point: Point(x: 0, y: 0), target: nil)), Self.lit("c")]], cut: true)
                == [["select", "cut"]])
        #expect(Self.icons(&plan, [[Self.lit("c")]]) == [["move"]])
    }
}

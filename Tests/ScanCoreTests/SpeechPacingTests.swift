import Testing
@testable import ScanCore

/// Scanning by ear (`speechPacing`): a highlight lasts until its label has been said, never
/// less than the interval, never more than `speechPacingLimit`; live, the speech presenter's
/// reports decide; in virtual time, the label's estimated length does. Time is a value.
@Suite("Scanning by ear")
struct SpeechPacingTests {
    static let long = "Open the document you were writing yesterday and carry on from the last line"

    static func settings(pacing: Bool = true, speech: Bool = true) -> ScanSettings {
        var s = ScanSettings()
        s.autoScanInterval = .seconds(0.5)
        s.speechPacing = pacing
        s.feedback.speech = speech
        return s
    }

    /// The highlights' items and times until `until`.
    static func highlights(_ engine: inout ScanEngine, until: Double) -> [String] {
        var out: [String] = []
        for e in engine.start(at: at(0)) + engine.handleDeadline(at: at(until)) {
            if case .highlight(let item, _, _, _, _, _) = e.effect { out.append("\(e.time.seconds) \(item)") }
        }
        return out
    }

    @Test func theEstimateIsSixCharactersAWordAtTheSpeakingRate() {
        #expect(ScanEngine.labelSeconds("", rate: 180) == 0)
        // 12 characters: two words, at three words a second, and 0.45 s.
        #expect(abs(ScanEngine.labelSeconds("Save as copy", rate: 180) - (0.45 + 2.0 / 3)) < 1e-9)
        #expect(abs(ScanEngine.labelSeconds("Save as copy", rate: 90) - (0.45 + 4.0 / 3)) < 1e-9)
    }

    /// In virtual time: a short label keeps the interval, a longer one holds the highlight
    /// as long as it takes, the longest is cut at the limit.
    @Test func aHighlightLastsAsLongAsItsLabelTakesWithinTheLimit() throws {
        let tree = screen([.button("a", label: "OK"), .button("b", label: "Save as copy"), .button("c", label: Self.long)])
        var s = Self.settings()
        s.speakingRate = 180
        s.autoScanInterval = .seconds(0.6)
        var engine = ScanEngine(tree: tree, settings: s)
        // "OK" takes 0.56 s: the interval holds. "Save as copy" takes 0.45 + 2/3 s, to the
        // nanosecond; the long label is cut at 3 s.
        let c = (at(0.6) + .seconds(0.45 + 2.0 / 3)).seconds
        #expect(Self.highlights(&engine, until: 5) == ["0.0 a", "0.6 b", "\(c) c", "\(c + 3) a"])
        #expect(c == 1.716666667)
        // The long label was cut: said once, just before the highlight that follows it.
        var again = ScanEngine(tree: tree, settings: s)
        let made = (again.start(at: at(0)) + again.handleDeadline(at: at(5))).map(\.effect)
        let cut = try #require(made.firstIndex(of: .labelCut))
        #expect(made.filter { $0 == .labelCut }.count == 1)
        if case .highlight("a", _, _, _, _, _) = made[cut + 1] {} else { Issue.record("after the cut: \(made[cut + 1])") }
    }

    @Test func withoutSpeechOrPacingTheIntervalAlone() {
        let tree = screen([.button("a", label: "OK"), .button("b", label: Self.long), .button("c")])
        for s in [Self.settings(pacing: false), Self.settings(speech: false)] {
            var engine = ScanEngine(tree: tree, settings: s)
            #expect(Self.highlights(&engine, until: 1.6) == ["0.0 a", "0.5 b", "1.0 c", "1.5 a"])
        }
    }

    /// Live: the interval is the least; a label still being said holds the highlight until
    /// its end is reported, or until the limit.
    @Test func liveTheReportedEndMovesTheScan() {
        let tree = screen([.button("a", label: "OK"), .button("b", label: "Save"), .button("c", label: "Cancel")])
        var engine = ScanEngine(tree: tree, settings: Self.settings())
        engine.setLabelsReported(true)
        _ = engine.start(at: at(0))
        // "OK" said at 0.2: the highlight stays its interval.
        #expect(engine.labelSaid(shownAt: at(0), at: at(0.2)).isEmpty)
        #expect(engine.handleDeadline(at: at(0.5)).map(\.effect).contains { if case .highlight("b", _, _, _, _, _) = $0 { true } else { false } })
        // "Save" not said by 0.5 past it: held; said at 1.7, the scan moves then.
        #expect(engine.handleDeadline(at: at(1.6)).isEmpty)
        #expect(engine.labelSaid(shownAt: at(0.4), at: at(1.65)).isEmpty, "a report for another highlight moves nothing")
        let moved = engine.labelSaid(shownAt: at(0.5), at: at(1.7))
        #expect(moved.map(\.time) == [at(1.7)])
        #expect(moved.first.map { if case .highlight("c", _, _, _, _, _) = $0.effect { true } else { false } } == true)
        // "Cancel" begins at once and never ends: moved on at the limit, 3 s after it began.
        #expect(engine.labelBegan(shownAt: at(1.7), at: at(1.75)).isEmpty)
        #expect(engine.handleDeadline(at: at(4.74)).isEmpty)
        let cut = engine.handleDeadline(at: at(4.75))
        #expect(cut.map(\.time) == [at(4.75), at(4.75)])
        #expect(cut.first?.effect == .labelCut, "the label cut is said: \(cut)")
        // "OK" waits behind a message being said: held while it has not begun; begun at 9,
        // said by 9.5, the scan moves then.
        #expect(engine.handleDeadline(at: at(8.9)).isEmpty)
        #expect(engine.labelBegan(shownAt: at(4.75), at: at(9)).isEmpty)
        #expect(engine.labelSaid(shownAt: at(4.75), at: at(9.5)).map(\.effect).contains(.labelCut) == false)
        // "Save" never begins (speech-dispatcher stopped answering): at most 10 s.
        #expect(engine.handleDeadline(at: at(19.49)).isEmpty)
        #expect(engine.handleDeadline(at: at(19.5)).map(\.time) == [at(19.5), at(19.5)])
    }

    /// A label re-sent on the same item (its value changed) is reported with its new time:
    /// it counts for the highlight still held.
    @Test func aHighlightShownAgainIsReportedByItsNewTime() {
        let tree = screen([.button("a", label: "OK"), .button("b", label: "Save")])
        var engine = ScanEngine(tree: tree, settings: Self.settings())
        engine.setLabelsReported(true)
        _ = engine.start(at: at(0))
        #expect(engine.handleDeadline(at: at(1)).isEmpty, "held for its label")
        #expect(engine.labelSaid(shownAt: at(0.8), at: at(1.2)).map(\.time) == [at(1.2)])
    }

    /// Scanning by ear, a group is announced by a short name: its heading's text, else its
    /// first item's label (not a list of three and how many more).
    @Test func aGroupIsAnnouncedByAShortName() {
        var tree = screen([.group("g", [.button("a", label: "Reply"), .button("b", label: "Forward"), .button("c", label: "Delete"),
                                        .button("d", label: "Archive")]),
                           .group("h", [.button("e", label: "Bold"), .button("f", label: "Italic")])])
        func groupLabels(_ s: ScanSettings) -> [String] {
            var engine = ScanEngine(tree: tree, settings: s)
            return (engine.start(at: at(0)) + engine.handleDeadline(at: at(5))).compactMap {
                if case .highlight(_, .group, _, let label, _, _) = $0.effect { return label } else { return nil }
            }
        }
        #expect(Array(groupLabels(Self.settings(pacing: false)).prefix(2)) == ["Reply, Forward, Delete and 1 more", "Bold, Italic"])
        #expect(Array(groupLabels(Self.settings()).prefix(2)) == ["Reply", "Bold"])
        // A heading in the container names it, scanned or not.
        let h = tree.index(of: "h")!
        var heading = ElementNode(id: "fmt")
        heading.label = "Formatting"
        heading.traits = TraitSet([.header])
        heading.parent = h
        var nodes = (0..<tree.count).map { tree[$0] }
        nodes.append(heading)
        nodes[h].children.insert(nodes.count - 1, at: 0)
        tree = ElementTree(screenID: "window", size: (400, 800), naturalOrder: .document, nodes: nodes)
        #expect(Array(groupLabels(Self.settings()).prefix(2)) == ["Reply", "Formatting"])
    }
}

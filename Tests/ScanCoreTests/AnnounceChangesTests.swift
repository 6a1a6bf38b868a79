import Testing
@testable import ScanCore

/// `announceChanges`: after an action, a text of the window that changed in the next
/// snapshots (a calculator's display) is announced once; the element acted on, changes
/// without an action and changes after the window has passed are not.
@Suite struct AnnounceChangesTests {
    /// A calculator: a display (static text) above keys 7 and +.
    func calculator(display: String, key7: String = "7", status: String = "Ready") -> ElementTree {
        var nodes = [ElementNode(id: "root")]
        nodes[0].frame = Rect(x: 0, y: 0, width: 300, height: 300)
        func add(_ id: String, _ label: String, _ traits: [ScanCore.Trait], y: Double) {
            var n = ElementNode(id: id)
            n.label = label
            n.traits = TraitSet(traits)
            n.isAccessibilityElement = true
            n.frame = Rect(x: 0, y: y, width: 100, height: 40)
            n.activationPoint = n.frame.center
            n.parent = 0
            nodes[0].children.append(nodes.count)
            nodes.append(n)
        }
        add("display", display, [.staticText], y: 0)
        add("key7", key7, [.button], y: 50)
        add("plus", "+", [.button], y: 100)
        add("status", status, [.staticText], y: 250)
        return ElementTree(screenID: "calc", size: (300, 300), naturalOrder: .document, nodes: nodes)
    }

    func announcements(_ effects: [TimedEffect]) -> [String] {
        effects.compactMap { if case .announce(let t) = $0.effect { t } else { nil } }
    }

    /// Started in manual style on 7, with taps at once: a select taps the key.
    func engine(_ settings: (inout ScanSettings) -> Void = { _ in }) -> ScanEngine {
        var s = ScanSettings()
        s.style = .manual
        s.tapBehavior = .alwaysTap
        settings(&s)
        var engine = ScanEngine(tree: calculator(display: "0"), settings: s)
        _ = engine.start(at: .zero)
        return engine
    }

    func select(_ engine: inout ScanEngine, at s: Double) -> [TimedEffect] {
        engine.handle(press(.select, at: s), at: at(s)) + engine.handle(release(.select, at: s + 0.05), at: at(s + 0.05))
    }

    @Test func theDisplayChangedByATapIsAnnouncedOnce() {
        var engine = engine()
        let tapped = select(&engine, at: 1)
        #expect(tapped.contains { if case .activate(element: "key7", _, _) = $0.effect { true } else { false } })
        #expect(announcements(engine.replaceTree(calculator(display: "7"), at: at(1.2))) == ["7"])
        #expect(announcements(engine.replaceTree(calculator(display: "77"), at: at(1.4))) == [], "one announcement per action")
    }

    @Test func aSnapshotWithoutChangeKeepsWaitingWithinTheWindow() {
        var engine = engine()
        _ = select(&engine, at: 1)
        #expect(announcements(engine.replaceTree(calculator(display: "0"), at: at(1.1))) == [])
        #expect(announcements(engine.replaceTree(calculator(display: "7", status: "Busy"), at: at(1.5))) == ["7, Busy"])
    }

    @Test func theElementActedOnAndChangesWithoutAnActionAreNotAnnounced() {
        var engine = engine()
        #expect(announcements(engine.replaceTree(calculator(display: "5"), at: at(0.5))) == [], "no action yet")
        _ = select(&engine, at: 1)
        #expect(announcements(engine.replaceTree(calculator(display: "5", key7: "Seven"), at: at(1.2))) == [],
                "the key the user chose changed its own label; the display did not change")
    }

    @Test func aChangeAfterTheWindowIsNotTheAction() {
        var engine = engine()
        _ = select(&engine, at: 1)
        #expect(announcements(engine.replaceTree(calculator(display: "7"), at: at(3.5))) == [])
    }

    @Test func theSettingTurnsItOff() {
        var engine = engine { $0.announceChanges = false }
        _ = select(&engine, at: 1)
        #expect(announcements(engine.replaceTree(calculator(display: "7"), at: at(1.2))) == [])
    }
}

import Testing
@testable import ScanCore

/// A handler's `key` effect: the tap is the engine's `key` effect, which front ends see and
/// the key injector sends (the live desktop's Close entry of a menu scanned alone: Escape).
@Suite struct KeyEffectTests {
    @Test func aTapOnAnElementWhoseHandlerSendsAKeyEmitsTheKey() {
        var root = ElementNode(id: "menu")
        root.frame = Rect(x: 0, y: 0, width: 120, height: 60)
        root.children = [1]
        var close = ElementNode(id: "close")
        close.label = "Close"
        close.traits = TraitSet([.button])
        close.isAccessibilityElement = true
        close.frame = Rect(x: 0, y: 30, width: 120, height: 30)
        close.activationPoint = close.frame.center
        close.parent = 0
        close.onActivate = [.key(.escape)]
        var s = ScanSettings()
        s.style = .manual
        s.tapBehavior = .alwaysTap
        var engine = ScanEngine(tree: ElementTree(screenID: "menu", size: (120, 60), nodes: [root, close]), settings: s)
        _ = engine.start(at: .zero)
        let effects = engine.handle(press(.select, at: 1), at: at(1)) + engine.handle(release(.select, at: 1.05), at: at(1.05))
        let kinds = effects.map(\.effect.kind)
        #expect(kinds.contains(.activate))
        #expect(effects.contains { $0.effect == .key(.escape) }, "\(effects.map(\.effect))")
    }
}

/// `run --app`: the application's window, behind another when the run starts, is raised
/// by a `window` effect once the window manager lists it, and only once.
@Suite struct RaiseWhenListedTests {
    @Test func theWindowIsRaisedOnceWhenListedAndNotWhenActive() {
        var tree = [ElementNode(id: "root")]
        tree[0].frame = Rect(x: 0, y: 0, width: 100, height: 100)
        var engine = ScanEngine(tree: ElementTree(screenID: "w", size: (100, 100), nodes: tree), settings: ScanSettings())
        engine.raiseWhenListed = "Notes"
        _ = engine.start(at: .zero)
        let files = ManagedWindow(id: "0x100", title: "Files", active: true)
        #expect(engine.windowsListed([files], at: at(0.5)).isEmpty, "not listed yet")
        let notes = ManagedWindow(id: "0x200", title: "Notes", active: false)
        let raised = engine.windowsListed([files, notes], at: at(1))
        #expect(raised.map(\.effect) == [.window(.activate, window: "0x200", title: "Notes", chosen: false)])
        #expect(engine.windowsListed([files, notes], at: at(2)).isEmpty, "once")

        var active = ScanEngine(tree: ElementTree(screenID: "w", size: (100, 100), nodes: tree), settings: ScanSettings())
        active.raiseWhenListed = "Notes"
        _ = active.start(at: .zero)
        #expect(active.windowsListed([ManagedWindow(id: "0x200", title: "Notes", active: true)], at: at(1)).isEmpty)

        // Listed before the start: raised by the start, after the scan began.
        var early = ScanEngine(tree: ElementTree(screenID: "w", size: (100, 100), nodes: tree), settings: ScanSettings())
        early.raiseWhenListed = "Notes"
        #expect(early.windowsListed([files, notes], at: .zero).isEmpty, "nothing before the start")
        let started = early.start(at: at(0.1)).map(\.effect)
        #expect(started.last == .window(.activate, window: "0x200", title: "Notes", chosen: false), "\(started)")
        #expect(started.first?.kind == .screen, "the start's own effects first")
    }
}

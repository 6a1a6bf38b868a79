import Testing
@testable import ScanCore

/// The menu pages as a table: which items each page offers in which state, in what order,
/// with what titles. Menus are read straight from the pages, as `openMenu` reads them.
@Suite("Menu pages")
struct MenuPageTests {
    /// A keyboard that is never opened here: only whether there is one matters.
    struct NoKeyboard: KeyboardProvider, ScreenLogic {
        func keyboard(for field: ElementNode?, screen: Rect) -> (tree: ElementTree, logic: any ScreenLogic, effects: [Effect]) {
            (ScanCoreTests.screen(buttons("key")), self, [])
        }
        mutating func closed(_ logic: any ScreenLogic) {}
        mutating func activate(_ id: String) -> ScreenChange { ScreenChange() }
        mutating func fieldChanged(textBefore: String) -> ScreenChange { ScreenChange() }
    }

    struct NoMessages: MessageScreenProvider {
        func messageScreen(on screen: Rect) -> (tree: ElementTree, logic: any ScreenLogic, effects: [Effect]) {
            (ScanCoreTests.screen(buttons("speak")), NoKeyboard(), [])
        }
        mutating func closed(_ logic: any ScreenLogic) {}
        mutating func phrasesChanged(_ phrases: [String]) {}
    }

    func engine(_ mode: ScanMode = .item, keyboard: Bool = false, windows: [ManagedWindow] = [],
                change: (inout ElementNode) -> Void = { _ in }) -> (ScanEngine, Int) {
        var s = ScanSettings()
        s.mode = mode
        var tree = screen(buttons("a", "b"))
        let a = tree.index(of: "a")!
        tree.update(a, change)
        var engine = ScanEngine(tree: tree, settings: s)
        if keyboard { engine.keyboardProvider = NoKeyboard() }
        engine.setWindows(windows)
        _ = engine.start(at: at(0))
        return (engine, a)
    }

    func names(_ engine: ScanEngine, _ target: ScanEngine.MenuTarget) -> [String] {
        engine.menuItems(for: target).map(\.name)
    }

    func titles(_ engine: ScanEngine, _ target: ScanEngine.MenuTarget) -> [String] {
        engine.menuItems(for: target).map { $0.title(engine.settings) }
    }

    // MARK: - an element's menu

    @Test func aPlainElementOffersTapTheModeTheScreenMenuAndExit() {
        let (e, a) = engine()
        #expect(names(e, .element(a)) == ["tap", "pointMode", "gestures", "screenMenu", "exit"])
        #expect(titles(e, .element(a)) == ["Tap", "Point mode", "Gestures", "Settings and more", "Exit menu"])
    }

    @Test func customActionsComeInDeclaredOrderAfterTapAndAdjustingAfterThem() {
        let (e, a) = engine { n in
            n.customActions = [CustomAction(name: "Reply"), CustomAction(name: "Delete")]
            n.adjustable = Adjustable(kind: .list(["low", "high"]), current: 0)
        }
        #expect(names(e, .element(a)) == ["tap", "Reply", "Delete", "increment", "decrement", "pointMode", "gestures", "screenMenu", "exit"])
        #expect(titles(e, .element(a)).prefix(3) == ["Tap", "Reply", "Delete"])
    }

    @Test func aDisabledElementOffersNeitherTapNorAdjustingButItsActions() {
        let (e, a) = engine { n in
            n.traits.insert(.notEnabled)
            n.customActions = [CustomAction(name: "Why")]
            n.adjustable = Adjustable(kind: .list(["low", "high"]), current: 0)
        }
        #expect(names(e, .element(a)) == ["Why", "pointMode", "gestures", "screenMenu", "exit"])
    }

    @Test func escapeIsOfferedWhereTheElementOrAnAncestorAnswersIt() {
        let (plain, a) = engine()
        #expect(!names(plain, .element(a)).contains("escape"))
        let (own, b) = engine { $0.onEscape = [] }
        #expect(names(own, .element(b)) == ["tap", "escape", "pointMode", "gestures", "screenMenu", "exit"])
        // The screen's root answers: every element's menu and the screen menu offer it.
        var s = ScanSettings()
        s.style = .manual
        var tree = screen(buttons("a"))
        tree.update(tree.root) { $0.onEscape = [] }
        let e = ScanEngine(tree: tree, settings: s)
        #expect(names(e, .element(tree.index(of: "a")!)).contains("escape"))
        #expect(names(e, .screen).first == "escape")
    }

    @Test func aTextFieldOffersTheKeyboardFirstWhenThereIsOne() {
        let field: (inout ElementNode) -> Void = { $0.textEntry = .text }
        let (with, a) = engine(keyboard: true, change: field)
        #expect(names(with, .element(a)) == ["keyboard", "tap", "pointMode", "gestures", "screenMenu", "exit"])
        let (without, b) = engine(change: field)
        #expect(names(without, .element(b)).first == "tap", "no keyboard provider: no keyboard")
        let (disabled, c) = engine(keyboard: true) { $0.textEntry = .text; $0.traits.insert(.notEnabled) }
        #expect(!names(disabled, .element(c)).contains("keyboard"))
        let (button, d) = engine(keyboard: true)
        #expect(!names(button, .element(d)).contains("keyboard"), "not a text field")
    }

    @Test func aPointsMenuTapsThereAndOffersItemMode() {
        let (e, a) = engine(.point) { $0.customActions = [CustomAction(name: "Share")] }
        let p = Point(x: 1, y: 1)
        #expect(names(e, .point(p, element: nil)) == ["tap", "itemMode", "gestures", "screenMenu", "exit"])
        #expect(names(e, .point(p, element: a)) == ["tap", "Share", "itemMode", "gestures", "screenMenu", "exit"])
    }

    // MARK: - the Gestures page

    @Test func theGesturesPageOffersPageStepsOnAdjustableElementsThenEveryGestureThenExit() {
        let gestures = Gesture.allCases.map(\.rawValue)
        let (plain, a) = engine()
        #expect(MenuPage.gestures.items(plain, .element(a)).map(\.name) == gestures + ["exit"])
        #expect(MenuPage.gestures.items(plain, .element(a)).map { $0.title(plain.settings) }
                == ["Scroll up", "Scroll down", "Scroll left", "Scroll right", "Right click", "Double click", "Long press", "Drag", "Exit menu"])
        #expect(MenuPage.gestures.items(plain, .point(Point(x: 1, y: 1), element: nil)).map(\.name) == gestures + ["exit"])
        let (slider, b) = engine { $0.adjustable = Adjustable(kind: .numeric(min: 0, max: 100, step: 1, decimals: 0, format: "{value}"), current: 50) }
        #expect(MenuPage.gestures.items(slider, .element(b)).map(\.name) == ["pageIncrement", "pageDecrement"] + gestures + ["exit"])
        #expect(MenuPage.gestures.items(slider, .element(b)).prefix(2).map { $0.title(slider.settings) } == ["Page increment", "Page decrement"])
        let (disabled, c) = engine { $0.adjustable = Adjustable(kind: .list(["low", "high"]), current: 0); $0.traits.insert(.notEnabled) }
        #expect(!MenuPage.gestures.items(disabled, .element(c)).map(\.name).contains("pageIncrement"))
    }

    /// A scroll on a long page is made where the page shows (its middle may be above the
    /// screen), and repeated presses scroll again at that same place, although the page's
    /// element has moved away with the scroll.
    @Test func aScrollIsMadeWhereThePageShowsAndRepeatedThere() {
        func page(top: Double) -> ElementTree {
            screen([.button("page", label: "Article", frame: Rect(x: 0, y: top, width: 400, height: 2020)), .button("b")])
        }
        var e = ScanEngine(tree: page(top: -1236), settings: ScanSettings())
        _ = e.start(at: at(0))
        let n = e.tree.index(of: "page")!
        let target = ScanEngine.MenuTarget.element(n)
        e.openMenu(target, page: .gestures)
        func scroll() -> Point? {
            e.out = []
            MenuPage.gestures.items(e, target).first { $0.name == "scrollDown" }!.perform(&e, target)
            for case let .gesture(.scrollDown, element, p, nil) in e.out.map(\.effect) where element == "page" { return p }
            return nil
        }
        let first = scroll()
        #expect(first == Point(x: 200, y: 392), "the middle of the part that shows (0 to 784), not the page's (-226)")
        #expect(e.item.menu?.page == .gestures, "the page stays open for the next press")
        // The page scrolled: its element is now mostly above the screen.
        _ = e.replaceTree(page(top: -1806), at: at(1))
        #expect(scroll() == first, "the page under the first point scrolls on")
        _ = e.replaceTree(page(top: -2400), at: at(2))
        #expect(scroll() == first)
        // A fresh menu starts from the element again.
        e.closeMenu()
        _ = e.replaceTree(page(top: -500), at: at(3))
        e.openMenu(.element(e.tree.index(of: "page")!), page: .gestures)
        let target2 = ScanEngine.MenuTarget.element(e.tree.index(of: "page")!)
        e.out = []
        MenuPage.gestures.items(e, target2).first { $0.name == "scrollDown" }!.perform(&e, target2)
        #expect(e.out.contains { $0.effect == .gesture(.scrollDown, element: "page", at: Point(x: 200, y: 510), to: nil) }, "\(e.out)")

        // Inside a browser's viewport (below its toolbar), the part in the viewport.
        var inViewport = screen([.group("viewport", [.button("page", label: "Article", frame: Rect(x: 0, y: -1236, width: 400, height: 2020))]), .button("b")])
        inViewport.update(inViewport.index(of: "viewport")!) { $0.frame = Rect(x: 0, y: 100, width: 400, height: 700) }
        var v = ScanEngine(tree: inViewport, settings: ScanSettings())
        _ = v.start(at: at(0))
        #expect(v.onScreenPoint(of: v.tree.index(of: "page")!) == Point(x: 200, y: 442), "between the viewport's top (100) and the page's end (784)")
    }

    /// A page is a tenth of the range, at least a step; it stops at the bound, and at the
    /// bound nothing moves.
    @Test func aPageStepIsATenthOfTheRangeAtLeastAStepClampedAtTheBounds() {
        func numeric(_ lo: Double, _ hi: Double, step: Double, at v: Double) -> Adjustable {
            Adjustable(kind: .numeric(min: lo, max: hi, step: step, decimals: 0, format: "{value}"), current: v)
        }
        #expect(numeric(0, 100, step: 1, at: 50).moved(by: 1, page: true)?.current == 60)
        #expect(numeric(0, 100, step: 1, at: 50).moved(by: -1, page: true)?.current == 40)
        #expect(numeric(0, 100, step: 1, at: 50).moved(by: 1)?.current == 51)
        #expect(numeric(0, 100, step: 25, at: 50).moved(by: 1, page: true)?.current == 75, "at least a step")
        #expect(numeric(0, 100, step: 1, at: 95).moved(by: 1, page: true)?.current == 100)
        #expect(numeric(0, 100, step: 1, at: 100).moved(by: 1, page: true) == nil)
        let list = (0..<30).map { "v\($0)" }
        #expect(Adjustable(kind: .list(list), current: 5).moved(by: 1, page: true)?.current == 8)
        #expect(Adjustable(kind: .list(list), current: 1).moved(by: -1, page: true)?.current == 0)
        #expect(Adjustable(kind: .list(["a", "b"]), current: 0).moved(by: 1, page: true)?.current == 1)
        #expect(Adjustable(kind: .list(["a", "b"]), current: 1).moved(by: 1) == nil)
    }

    // MARK: - the screen menu

    @Test func theScreenMenuOffersWindowsOnlyWithWindowsAndTheKeyboardOnlyWithOne() {
        #expect(names(engine().0, .screen) == ["pointMode", "settings", "keys", "exit"])
        #expect(titles(engine().0, .screen) == ["Point mode", "Settings", "Keys", "Exit menu"])
        let windows = [ManagedWindow(id: "1", title: "Editor", active: true)]
        #expect(names(engine(windows: windows).0, .screen) == ["pointMode", "settings", "keys", "windows", "exit"])
        #expect(names(engine(keyboard: true).0, .screen) == ["keyboard", "pointMode", "settings", "keys", "exit"])
        #expect(names(engine(.point).0, .screen) == ["itemMode", "settings", "keys", "exit"])
        var (e, _) = engine(keyboard: true)
        e.messageProvider = NoMessages()
        #expect(names(e, .screen) == ["keyboard", "message", "pointMode", "settings", "keys", "exit"])
        #expect(titles(e, .screen) == ["Keyboard", "Message", "Point mode", "Settings", "Keys", "Exit menu"])
        // Not over a screen already shown over the window (the keyboard, the message screen).
        _ = e.present(screen(buttons("key")), logic: NoKeyboard(), at: at(0.1))
        #expect(names(e, .screen) == ["pointMode", "settings", "keys", "exit"])
    }

    @Test func theKeyboardIsNotOfferedOverTheKeyboard() {
        var (e, _) = engine(keyboard: true)
        _ = e.present(screen(buttons("key")), logic: NoKeyboard(), at: at(0.1))
        #expect(!names(e, .screen).contains("keyboard"))
    }

    // MARK: - the pages

    @Test func theSettingsPageTitlesSayWhatSelectingDoes() {
        var (e, _) = engine()
        let page = ScanEngine.MenuTarget.page(.settings)
        #expect(names(e, page) == ["faster", "slower", "speech", "sound", "done"])
        e.settings.feedback.speech = false
        e.settings.feedback.sound = true
        #expect(titles(e, page) == ["Faster", "Slower", "Speech on", "Sound off", "Done"])
    }

    /// Selecting each item of the Settings page, in item and in point mode, changes exactly
    /// the settings the table marks as the page's, applies the change it reports and nothing
    /// else.
    @Test func theSettingsPageChangesTheSettingsTheTableMarks() {
        var changed: Set<String> = []
        for mode in [ScanMode.item, .point] {
            var (e, _) = engine(mode)
            e.openMenu(.page(.settings))
            for item in e.menuItems(for: .page(.settings)) {
                var after = e
                after.out = []
                item.perform(&after, .page(.settings))
                for case .settingChanged(let change) in after.out.map(\.effect) {
                    changed.insert(change.key)
                    var expected = e.settings
                    change.apply(to: &expected)
                    #expect(after.settings == expected, "\(item.name) in \(mode) mode")
                }
            }
        }
        #expect(!changed.isEmpty)
        #expect(changed == Set(ScanSettings.table.filter(\.menu).map(\.key)))
    }

    @Test func theKeysPageOffersEveryKeyThenDone() {
        let (e, _) = engine()
        #expect(names(e, .page(.keys)) == SpecialKey.allCases.map { "key:" + $0.rawValue } + ["done"])
        #expect(titles(e, .page(.keys)).first == "Escape key")
    }

    @Test func theWindowsPageListsTheOthersThenTheActiveOnesCommands() {
        let windows = [ManagedWindow(id: "1", title: "Editor", active: true, maximized: true),
                       ManagedWindow(id: "2", title: "", minimized: true)]
        let (e, _) = engine(windows: windows)
        #expect(names(e, .page(.windows)) == ["window:2", "closeWindow", "minimizeWindow", "restoreWindow", "done"])
        #expect(titles(e, .page(.windows)) == ["Untitled window, minimised", "Close window", "Minimise window", "Restore window size", "Done"])
    }

    @Test func everyPageEndsInTheItemThatLeavesItAndNamesEachItemOnce() {
        let windows = [ManagedWindow(id: "1", title: "Editor", active: true), ManagedWindow(id: "2", title: "Files")]
        let (e, a) = engine(keyboard: true, windows: windows) { $0.customActions = [CustomAction(name: "More")] }
        let menus: [(ScanEngine.MenuTarget, String)] = [
            (.element(a), "exit"), (.screen, "exit"), (.page(.settings), "done"), (.page(.keys), "done"), (.page(.windows), "done"),
        ]
        for (target, last) in menus {
            let n = names(e, target)
            #expect(n.last == last, "\(target)")
            #expect(Set(n).count == n.count, "\(target): \(n)")
        }
    }
}

/// Where the host cannot point (nothing shows the sweep), point mode says why instead.
@Suite struct PointModeRefusalTests {
    static let why = "Point mode cannot be used: nothing can show its lines."

    func engine(_ mode: ScanMode) -> (ScanEngine, [TimedEffect]) {
        var s = ScanSettings()
        s.style = .manual
        s.mode = mode
        var e = ScanEngine(tree: screen(buttons("a", "b")), settings: s)
        e.pointModeRefusal = Self.why
        let started = e.start(at: at(0))
        return (e, started)
    }

    func press(_ e: inout ScanEngine, _ action: SwitchAction, at t: Double) -> [TimedEffect] {
        e.handle(SwitchEvent(action, down: true, at: at(t)), at: at(t)) + e.handle(SwitchEvent(action, down: false, at: at(t + 0.05)), at: at(t + 0.05))
    }

    @Test func choosingPointModeSaysWhyAndScanningGoesOnWhereItWas() {
        var (e, _) = engine(.item)
        _ = press(&e, .select, at: 1)                 // a's menu
        #expect(e.currentHighlightID == "tap")
        _ = press(&e, .next, at: 2)                   // Point mode
        #expect(e.currentHighlightID == "pointMode")
        let chosen = press(&e, .select, at: 3).map(\.effect)
        #expect(chosen.contains(.announce(Self.why)), "\(chosen)")
        #expect(!chosen.contains { if case .modeChanged = $0 { true } else { false } }, "\(chosen)")
        #expect(e.currentMode == .item && e.currentHighlightID == "a")
    }

    @Test func aStartInPointModeStartsInItemModeSayingWhy() {
        let (e, started) = engine(.point)
        #expect(started.map(\.effect).contains(.announce(Self.why)))
        #expect(e.currentMode == .item)
        #expect(!started.contains { if case .sweep = $0.effect { true } else { false } })
    }
}

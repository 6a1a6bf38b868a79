import ScanCore
import ScanRuntime
import Testing
import Typing
import WordPrediction

/// A screen with one text field of `kind` (nil: no field, the keyboard is opened for
/// whatever has the focus).
func fieldScreen(_ kind: TextEntryKind) -> ElementTree {
    var root = ElementNode(id: "window")
    root.frame = Rect(x: 0, y: 0, width: 1000, height: 800)
    root.children = [1]
    var field = ElementNode(id: "field")
    field.isAccessibilityElement = true
    field.label = "Field"
    field.textEntry = kind
    field.respondsToUserInteraction = true
    field.frame = Rect(x: 100, y: 100, width: 400, height: 30)
    field.activationPoint = field.frame.center
    field.parent = 0
    return ElementTree(screenID: "window", size: (1000, 800), nodes: [root, field])
}

/// A person with two switches (manual scanning: next moves, select selects) choosing
/// elements by id, as they see them lit; the effects as they came.
struct TwoSwitchUser {
    var driver: ManualDriver
    var effects: [TimedEffect] = []
    var t = ScanInstant.zero

    init(_ engine: ScanEngine) {
        driver = ManualDriver(engine: engine)
        effects = driver.start()
    }

    var screen: ElementTree? {
        for e in effects.reversed() { if case .screen(let s) = e.effect { return s.tree } }
        return nil
    }

    var lit: String? {
        for e in effects.reversed() {
            if case let .highlight(item, kind, _, _, _, _) = e.effect, kind != .menuEntry { return item }
        }
        return nil
    }

    mutating func press(_ action: SwitchAction) {
        t = t + .seconds(0.5)
        effects += driver.advance(to: t)
        effects += driver.deliver(SwitchEvent(action, down: true, at: t))
        t = t + .seconds(0.05)
        effects += driver.advance(to: t)
        effects += driver.deliver(SwitchEvent(action, down: false, at: t))
    }

    /// Moves to `id` (into the groups on the way) and selects it.
    mutating func choose(_ id: String) {
        for _ in 0..<200 {
            guard let tree = screen, let target = tree.index(of: id), let item = lit else { press(.next); continue }
            if item == id { press(.select); return }
            var ancestor = tree[target].parent
            var inside = false
            while let a = ancestor { if tree[a].id == item { inside = true; break }; ancestor = tree[a].parent }
            press(inside ? .select : .next)
        }
        Issue.record("\(id) was never reached: \(effects.prefix(12).map { "\($0.effect)" })")
    }
}

@Suite("A secret keyboard: passwords, terminals and an unknown focus")
struct SecretKeyboardTests {
    static func maker() throws -> KeyboardMaker {
        KeyboardMaker(layout: KeyboardLayout(.frequency), predictor: try smallWords(), settings: TypingSettings())
    }

    static func open(_ kind: TextEntryKind?, text: String = "") throws -> Keyboard {
        var field = fieldScreen(kind ?? .text)[1]
        field.value = text
        let opened = try maker().keyboard(for: kind == nil ? nil : field, screen: Rect(x: 0, y: 0, width: 1000, height: 800))
        return try #require(opened.logic as? Keyboard)
    }

    @Test func whatEachFieldKeepsToItself() throws {
        let password = try Self.open(.password)
        #expect(password.secret && !password.predicts && !password.learns && password.tree.isSecret)
        let terminal = try Self.open(.terminal)
        #expect(terminal.secret && terminal.predicts && !terminal.learns && terminal.tree.isSecret)
        let unknown = try Self.open(nil)
        #expect(unknown.secret && unknown.predicts && !unknown.learns && unknown.tree.isSecret)
        let text = try Self.open(.text)
        #expect(!text.secret && text.predicts && text.learns && !text.tree.isSecret)
    }

    /// A `sudo` password typed at a terminal's prompt, or with the screen menu's keyboard:
    /// no word is said back, and the text is typed but never shown.
    @Test(arguments: [TextEntryKind.terminal, nil])
    func aTerminalOrAnUnknownFocusSaysNoWordBack(_ kind: TextEntryKind?) throws {
        var typist = Typist(try Self.open(kind))
        typist.type("hunter")
        let effects = typist.press("space")
        #expect(!effects.contains { if case .announce = $0 { true } else { false } }, "\(effects)")
        #expect(effects.contains(.typeText(" ", secret: true)))
        #expect(typist.field == "hunter ", "no capital at a terminal's prompt, nor for an unknown focus")
        let ordinary = try Self.open(.text)
        var writer = Typist(ordinary)
        writer.type("hunter")
        #expect(writer.press("space").contains(.announce("Hunter")), "an ordinary field says the word")
    }

    /// Typing "Hi" into a password field through the engine, as `run` does: the JSON stream
    /// carries no key's id, label, place or letter, but says when something was typed.
    @Test func aPasswordsKeysAreNotNamedInTheStream() throws {
        var settings = ScanSettings()
        settings.style = .manual
        var engine = ScanEngine(tree: fieldScreen(.password), settings: settings)
        engine.keyboardProvider = try Self.maker()
        var user = TwoSwitchUser(engine)
        user.choose("field")
        #expect(user.screen?.screenID == Keyboard.screenID)
        user.choose("shift")
        user.choose("key_h")
        user.choose("key_i")
        let typed = user.effects.compactMap { e -> String? in if case .typeText(let t, _) = e.effect { t } else { nil } }
        #expect(typed == ["H", "i"], "the keys reached the field")
        user.choose("hide")
        user.press(.next)
        let lines = EffectJSONStream.lines(user.effects)
        for leak in ["key_h", "key_i", "\"H\"", "\"i\"", "\"h\"", "shift", "row", "\"point\""] {
            let afterOpen = lines.drop { !$0.contains("\"keyboard\"") }.prefix { !$0.contains("keyboardClose") }
            #expect(!afterOpen.contains { $0.contains(leak) && !$0.contains("\"effect\":\"keyboard\"") }, "\(leak) in \(afterOpen.joined(separator: "\n"))")
        }
        #expect(lines.contains { $0.hasSuffix(#""effect":"highlight","item":"key","kind":"element","label":"•","secret":true}"#) })
        #expect(lines.filter { $0.contains(#""effect":"activate","element":"key","secret":true}"#) }.count == 4, "shift, h, i, hide")
        #expect(lines.filter { $0.contains(#""effect":"typeText","text":"•","secret":true}"#) }.count == 2)
        // Shift drawn held on the screen, never said held in the stream: it tells the case.
        #expect(lines.contains { $0.contains("\"effect\":\"keyboard\"") }, "the keyboard is in the stream")
        #expect(!lines.contains { $0.contains("\"held\"") }, "\(lines.filter { $0.contains("held") })")
        #expect(user.effects.contains { e in
            if case .keyboard(let keys) = e.effect { keys.contains { $0.id == "shift" && $0.held } } else { false }
        }, "the screen shows Shift held")
        // Back on the window: its elements are named again.
        #expect(lines.last?.contains(#""effect":"highlight","item":"field""#) == true, "\(lines.suffix(3))")
        #expect(lines.contains { $0.contains(#""effect":"activate","element":"field","point":[300.0,115.0]"#) })
    }

    /// At a terminal the prediction row shows words made from what was typed: a stream that
    /// leaves the screen has the keys, but not those words, from the keyboard's first report
    /// on (which comes before its screen).
    @Test func aTerminalsPredictionsAreNotInTheStream() throws {
        var screen = fieldScreen(.terminal)
        var nodes = (0..<screen.count).map { screen[$0] }
        nodes[1].value = "$ wh"
        screen = ElementTree(screenID: "window", size: (1000, 800), nodes: nodes)
        var settings = ScanSettings()
        settings.style = .manual
        var engine = ScanEngine(tree: screen, settings: settings)
        engine.keyboardProvider = try Self.maker()
        var user = TwoSwitchUser(engine)
        user.choose("field")
        let keyboard = try #require(user.driver.engine.presentedLogic as? Keyboard)
        #expect(!keyboard.predictions.isEmpty)
        let line = try #require(EffectJSONStream.lines(user.effects).first { $0.contains(#""effect":"keyboard""#) })
        for word in keyboard.predictions { #expect(!line.contains("\"\(word)\""), "\(word) in \(line)") }
        #expect(line.contains(#"{"id":"prediction1","label":"•","#))
        #expect(line.contains(#"{"id":"key_e","label":"e","#), "the keyboard's own keys are as they are")
        // Shift chosen: the letters show as capitals on the screen, not in the stream.
        user.choose("shift")
        let shifted = try #require(EffectJSONStream.lines(user.effects).last { $0.contains(#""effect":"keyboard""#) })
        #expect(shifted.contains(#"{"id":"key_e","label":"e","#), "\(shifted)")
        #expect((user.driver.engine.presentedLogic as? Keyboard)?.keys.contains { $0.label == "E" } == true)
    }
}

/// A stream encoded from its start, line by line.
enum EffectJSONStream {
    static func lines(_ effects: [TimedEffect]) -> [String] {
        var json = EffectJSON()
        return json.lines(effects).split(separator: "\n").map(String.init)
    }
}

@Suite("The engine and predictions made elsewhere")
struct EnginePredictionSourceTests {
    /// A two-switch user on a window with one text field, whose keyboards' predictions come
    /// from a source that answers when the test says.
    static func user() throws -> (TwoSwitchUser, HeldSource) {
        let source = HeldSource(try smallWords())
        var settings = ScanSettings()
        settings.style = .manual
        var engine = ScanEngine(tree: fieldScreen(.text), settings: settings)
        engine.keyboardProvider = KeyboardMaker(layout: KeyboardLayout(.frequency), words: .source(source), settings: settings.typing)
        return (TwoSwitchUser(engine), source)
    }

    /// The keyboard opens at once, scanning its letters; the predictions, made a moment
    /// later, come first: the scan starts over at them. Later ones keep the scan's place.
    @Test func thePredictionsArrivingAfterTheKeyboardOpensAreScannedFirst() throws {
        var (user, source) = try Self.user()
        user.choose("field")
        #expect(user.lit == "row1", "no predictions yet: the letters first")
        for made in source.answer() { user.effects += user.driver.wordsMade(made) }
        #expect(user.lit == "predictions")
        user.press(.next)
        #expect(user.lit == "row1")
        user.choose("key_t")
        for made in source.answer() { user.effects += user.driver.wordsMade(made) }
        #expect(user.lit == "predictions", "after a key the scan starts at the top anyway")
        user.press(.next)
        for made in source.answer() { user.effects += user.driver.wordsMade(made) }
        #expect(user.lit == "row1", "nothing new to show: the place is kept")
    }

    /// Predictions made late (the language's words still being read) never pull the
    /// highlight away from where the person moved it, even back to where it started.
    @Test(arguments: [[SwitchAction.next], [.next, .previous], [.select, .exit]])
    func latePredictionsLeaveAHighlightThatMoved(_ moves: [SwitchAction]) throws {
        var (user, source) = try Self.user()
        user.choose("field")
        for m in moves { user.press(m) }
        let place = user.lit
        #expect(place == (moves.count == 1 ? "row2" : "row1"), "\(moves)")
        for made in source.answer() { user.effects += user.driver.wordsMade(made) }
        #expect(user.lit == place, "\(moves): the person's place is kept")
    }
}

import Foundation
import ScanCore
import ScanRuntime
import Testing
import Typing
import WordPrediction

/// The small fixture list: its predictions are known.
func smallWords() throws -> WordPredictor {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    let path = root.appendingPathComponent("Fixtures/words/small.words").path
    return WordPredictor(system: try WordList(parsing: [UInt8](FileManager.default.contents(atPath: path) ?? Data()), file: path))
}

/// A keyboard driven key by key, collecting what it does to the field.
struct Typist {
    var keyboard: Keyboard
    var field = ""

    init(_ settings: TypingSettings = TypingSettings(), layout: KeyboardLayoutName = .frequency, learns: Bool = false) throws {
        keyboard = Keyboard(layout: KeyboardLayout(layout), predictor: try smallWords(), settings: settings, learns: learns)
    }

    /// The keyboard a `KeyboardMaker` opens over a field of this kind.
    init(field kind: TextEntryKind) throws {
        var node = ElementNode(id: "field")
        node.textEntry = kind
        node.frame = Rect(x: 0, y: 0, width: 300, height: 30)
        let maker = KeyboardMaker(layout: KeyboardLayout(.frequency), predictor: try smallWords(), settings: TypingSettings())
        keyboard = maker.keyboard(for: node, screen: Rect(x: 0, y: 0, width: 1000, height: 800)).logic as! Keyboard
    }

    /// Typing on a keyboard made elsewhere (by a `KeyboardMaker`).
    init(_ keyboard: Keyboard) {
        self.keyboard = keyboard
    }

    /// Presses the keys, by id; the effects of the last.
    @discardableResult
    mutating func press(_ ids: String...) -> [Effect] {
        var last: [Effect] = []
        for id in ids {
            last = keyboard.activate(id).effects
            for e in last {
                switch e {
                case .typeText(let t, _): field += t
                case .deleteText(let n): field.removeLast(min(n, field.count))
                case .key(.enter): field += "\n"
                default: break
                }
            }
        }
        return last
    }

    /// The key that types `c` on the page shown (switching pages first if needed).
    mutating func type(_ text: String) {
        for c in text {
            let (page, id) = keyboard.layout.key(typing: c, preferring: keyboard.page)!
            if page != keyboard.page { press(page == .symbols ? "symbols" : "letters") }
            press(id)
        }
    }
}

@Suite("Keyboard")
struct KeyboardTests {
    @Test func everyLayoutHasEveryLetterOnceAndSpace() {
        for name in KeyboardLayoutName.allCases {
            let layout = KeyboardLayout(name)
            for c in "abcdefghijklmnopqrstuvwxyz ., '" {
                #expect(layout.key(typing: c)?.page == .letters, "\(name): \(c)")
            }
            for c in "0123456789!?@€é" { #expect(layout.key(typing: c) != nil, "\(name): \(c)") }
            let ids = Keyboard(layout: layout, predictor: WordPredictor(system: WordList()), settings: TypingSettings()).keys.map(\.id)
            #expect(Set(ids).count == ids.count, "\(name): ids are unique")
        }
    }

    @Test func frequencyLayoutPutsTheCommonestLettersFirst() {
        let k = Keyboard(layout: KeyboardLayout(.frequency), predictor: WordPredictor(system: WordList()), settings: TypingSettings())
        let rows = k.tree
        // Row 1 (after the empty prediction row) starts with e, t; row 2 with a.
        let first = rows[rows.index(of: "row1")!].children.map { rows[$0].id }
        #expect(first.prefix(2) == ["key_e", "key_t"])
        #expect(rows[rows.index(of: "row2")!].children.first.map { rows[$0].id } == "key_a")
    }

    @Test func theFieldStartsWithACapitalAndSentencesToo() throws {
        var t = try Typist()
        #expect(t.keyboard.capital)
        t.type("hi")
        #expect(t.field == "Hi")
        // Punctuation puts the space after itself.
        t.type(".so")
        #expect(t.field == "Hi. So")
        t.type("?ok!yes")
        #expect(t.field == "Hi. So? Ok! Yes")
        var off = try Typist({ var s = TypingSettings(); s.autoCapitalize = false; return s }())
        off.type("hi.so")
        #expect(off.field == "hi. so")
    }

    @Test func shiftTakesBackTheOfferedCapitalOrGivesOne() throws {
        var t = try Typist()
        t.press("shift")
        #expect(!t.keyboard.capital)
        t.type("ab")
        t.press("shift")
        t.type("cd")
        #expect(t.field == "abCd")
        t.press("capsLock")
        t.type("ef")
        t.press("capsLock")
        t.type("g")
        #expect(t.field == "abCdEFg")
    }

    @Test func aPredictionTypesTheRestOfTheWordAndASpace() throws {
        var t = try Typist()
        t.type("wa")
        #expect(t.keyboard.predictions == ["Was", "Watch", "Water"])
        let effects = t.press("prediction2")
        #expect(effects.contains(.typeText("tch ", secret: false)))
        #expect(effects.contains(.announce("Watch")))
        #expect(t.field == "Watch ")
        // Typed in lower case where a capital was not due: the word keeps the user's case.
        t.type("wa")
        #expect(t.keyboard.predictions.first == "was")
    }

    @Test func aPredictionOfAnotherCaseReplacesTheTypedLetters() throws {
        var t = try Typist()
        t.press("shift")
        t.type("i")
        #expect(t.keyboard.predictions.contains("I"))
        let k = t.keyboard.predictions.firstIndex(of: "I")!
        let effects = t.press("prediction\(k + 1)")
        #expect(effects.prefix(2) == [.deleteText(characters: 1), .typeText("I ", secret: false)])
        #expect(t.field == "I ")
    }

    @Test func punctuationTakesBackTheSpaceBeforeItAndPutsOneAfter() throws {
        var t = try Typist()
        t.type("he")
        t.press("prediction1")
        #expect(t.field == "He ")
        let effects = t.press("key_comma")
        #expect(effects.prefix(2) == [.deleteText(characters: 1), .typeText(", ", secret: false)])
        t.type("so")
        t.press("symbols", "key_exclamation")
        #expect(t.field == "He, so! ")
        #expect(t.keyboard.page == .letters, "a sentence goes on in letters")
        // Between digits: no space.
        var n = try Typist()
        n.type("3.5 or 1,000")
        #expect(n.field == "3.5 or 1,000")
    }

    @Test func backspaceAndDeleteWord() throws {
        var t = try Typist()
        t.type("see you soon")
        t.press("backspace")
        #expect(t.field == "See you soo")
        t.press("deleteWord")
        #expect(t.field == "See you ")
        t.press("deleteWord")
        #expect(t.field == "See ")
        t.press("deleteWord", "deleteWord")
        #expect(t.field == "")
        // Text the keyboard does not know: the application's own Ctrl+Backspace.
        #expect(t.press("deleteWord") == [.shortcut(KeyChord("BackSpace", [.control]))])
        // Punctuation after a word goes with it.
        t.type("so.")
        #expect(t.field == "So. ")
        t.press("deleteWord")
        #expect(t.field == "")
    }

    @Test func enterIsAKeyAndStartsASentence() throws {
        var t = try Typist()
        t.type("ok")
        t.press("shift")
        let effects = t.press("enter")
        #expect(effects.contains(.key(.enter)))
        #expect(t.keyboard.capital)
    }

    @Test func theKeysAreReportedWhenTheirLabelsChange() throws {
        var k = Keyboard(layout: KeyboardLayout(.frequency), predictor: try smallWords(), settings: TypingSettings())
        guard case .keyboard(let opened)? = k.opened().first else { Issue.record("no keyboard effect"); return }
        #expect(opened.first?.label == "The")
        #expect(opened.contains { $0.id == "key_e" && $0.label == "E" })
        let change = k.activate("key_h")
        #expect(change.effects.contains { if case .keyboard = $0 { return true } else { return false } })
        // Page and Shift change labels; a key that changes nothing shown reports nothing.
        var same = Keyboard(layout: KeyboardLayout(.frequency), predictor: WordPredictor(system: WordList()), settings: TypingSettings())
        _ = same.opened()
        _ = same.activate("key_x")
        #expect(!same.activate("key_x").effects.contains { if case .keyboard = $0 { return true } else { return false } })
    }

    @Test func wordsTypedInCapitalsAreOfferedInCapitals() throws {
        var t = try Typist()
        t.press("capsLock")
        t.type("wa")
        t.press("capsLock")
        #expect(t.keyboard.predictions.first == "WAS")
        // A quote before a word stays when a prediction completes it.
        var q = try Typist()
        q.press("symbols", "key_apostrophe", "letters")
        q.type("wa")
        q.press("prediction1")
        #expect(q.field == "'Was ")
    }

    @Test func aPageChangeKeepsTheCapitalTheUserTookBack() throws {
        var t = try Typist()
        t.press("shift")
        #expect(!t.keyboard.capital)
        t.press("symbols", "letters")
        #expect(!t.keyboard.capital)
    }

    @Test func theEditPageSendsCaretMovesAndShortcuts() throws {
        var t = try Typist()
        t.press("edit")
        #expect(t.keyboard.page == .edit)
        #expect(t.press("wordLeft") == [.shortcut(KeyChord("Left", [.control]))])
        #expect(t.press("selectWord").prefix(2) == [.shortcut(KeyChord("Left", [.control])), .shortcut(KeyChord("Right", [.control, .shift]))])
        #expect(t.press("paste") == [.shortcut(KeyChord("v", [.control]))])
        // Ctrl is held for the next key only, and shown as held: the keys are reported again
        // with it held (no label changes), and once more when it is let go.
        let held = t.press("control")
        #expect(t.keyboard.modifiers == [.control])
        #expect(t.keyboard.tree[t.keyboard.tree.index(of: "control")!].traits.contains(.selected))
        func heldKeys(_ effects: [Effect]) -> [String]? {
            for case .keyboard(let keys) in effects { return keys.filter(\.held).map(\.id) }
            return nil
        }
        #expect(heldKeys(held) == ["control"])
        t.press("letters")
        let saved = t.press("key_s")
        #expect(saved.first == .shortcut(KeyChord("s", [.control])))
        // (The letters page has no Ctrl to draw: nothing to report.) Let go on the edit page.
        #expect(heldKeys(saved) == nil)
        #expect(heldKeys(t.press("edit")) == [])
        #expect(t.field.isEmpty, "a shortcut types nothing")
        #expect(t.keyboard.modifiers.isEmpty)
        t.press("edit", "alt", "control", "lineEnd")
        #expect(t.field.isEmpty)
        #expect(t.keyboard.modifiers.isEmpty)
        // Shift chosen before Ctrl: Ctrl+Shift+letter.
        // (At the field's start the first Shift takes back the offered capital.)
        t.press("letters", "shift", "shift", "edit", "control", "letters")
        #expect(t.press("key_z").first == .shortcut(KeyChord("z", [.control, .shift])))
    }

    @Test func hideClosesTheKeyboard() throws {
        var k = Keyboard(layout: KeyboardLayout(.qwerty), predictor: try smallWords(), settings: TypingSettings())
        let change = k.activate("hide")
        #expect(change.closed && change.effects.isEmpty, "the engine says keyboardClose as it closes it")
    }

    @Test func theFieldsTextFromTheApplicationDrivesPredictionsAndCapitals() throws {
        var k = Keyboard(layout: KeyboardLayout(.frequency), predictor: try smallWords(), settings: TypingSettings())
        _ = k.opened()
        let change = k.fieldChanged(textBefore: "I think wh")
        #expect(change.tree != nil && change.effects.count == 1)
        #expect(k.predictions == ["what", "where", "when", "why", "who"])
        #expect(!k.capital)
        _ = k.fieldChanged(textBefore: "Done. ")
        #expect(k.capital)
        #expect(k.fieldChanged(textBefore: "Done. ").tree == nil, "nothing changed")
    }

    @Test func theApplicationReportingWhatTheKeyboardTypedChangesNothing() throws {
        var t = try Typist()
        t.type("hel")
        let typed = t.keyboard.predictions
        // The application reports each key after it came: "H", "He", "Hel"; a slow one
        // answers the read made as the keyboard opened (the empty field) after them.
        for late in ["H", "He", "Hel", ""] { #expect(t.keyboard.fieldChanged(textBefore: late).tree == nil) }
        #expect(t.keyboard.text == "Hel" && t.keyboard.predictions == typed && !t.keyboard.capital)
        t.press("backspace")
        #expect(t.keyboard.fieldChanged(textBefore: "Hel").tree == nil)
        #expect(t.keyboard.text == "He")
        // A click elsewhere in the field: the keyboard follows.
        #expect(t.keyboard.fieldChanged(textBefore: "Hello. Wh").tree != nil)
        #expect(t.keyboard.text == "Hello. Wh")
    }

    @Test func wordsAreLearnedOnlyWhenLearningIsOn() throws {
        var off = try Typist(learns: false)
        off.type("zq ")
        #expect(off.keyboard.predictor?.user.wordCount == 0)
        var on = try Typist(learns: true)
        on.type("zq zq ")
        #expect(on.keyboard.predictor?.user.wordCount == 1)
        on.type("z")
        #expect(on.keyboard.predictions.first?.lowercased() == "zq")
    }
}

/// Predictions made when the test says, as `run`'s prediction thread makes them away from
/// the engine: what was asked is answered only at `answer()`, by a predictor that learns,
/// and the answers are handed to the keyboard or the engine by the test.
final class HeldSource: PredictionSource, @unchecked Sendable {
    private let lock = NSLock()
    private var predictor: WordPredictor
    private var pending: [WordContext] = []
    private(set) var questions: [WordContext] = []
    private(set) var learned: [String] = []

    init(_ predictor: WordPredictor) { self.predictor = predictor }

    func ask(_ context: WordContext, count: Int) {
        lock.withLock {
            if questions.last != context { questions.append(context) }
            if !pending.contains(context) { pending.append(context) }
        }
    }

    func learn(_ word: String, after previous: String?) {
        lock.withLock {
            predictor.learn(word, after: previous)
            learned.append(word)
        }
    }

    /// The answers to what was asked since the last call, oldest first.
    func answer() -> [MadeWords] {
        lock.withLock {
            defer { pending = [] }
            return pending.map { MadeWords(partial: $0.partial, previous: $0.previous, words: predictor.predictions(for: $0, count: 10)) }
        }
    }
}

extension Keyboard {
    /// Hands the keyboard every answer `source` makes now; the last change.
    mutating func take(_ source: HeldSource) -> ScreenChange {
        var last = ScreenChange()
        for made in source.answer() {
            let change = wordsMade(made)
            if !change.effects.isEmpty || change.tree != nil { last = change }
        }
        return last
    }
}

@Suite("Keyboard: predictions made elsewhere")
struct KeyboardSourceTests {
    static func maker(_ source: HeldSource) -> KeyboardMaker {
        KeyboardMaker(layout: KeyboardLayout(.frequency), words: .source(source), settings: TypingSettings())
    }

    /// A keyboard for a text field holding `text`, as the engine opens one.
    static func open(_ maker: KeyboardMaker, text: String) -> Keyboard {
        var field = ElementNode(id: "field")
        field.textEntry = .text
        field.value = text
        return maker.keyboard(for: field, screen: Rect(x: 0, y: 0, width: 1000, height: 800)).logic as! Keyboard
    }

    /// The predictions of a keyboard that makes them itself, after `text`.
    static func expected(_ text: String) throws -> [String] {
        Keyboard(layout: KeyboardLayout(.frequency), predictor: try smallWords(), settings: TypingSettings(), text: text).predictions
    }

    /// The keyboard opens at once, without predictions, and asks; once they are made it
    /// shows them, starting its scan over at them, since nothing was chosen yet.
    @Test func aKeyboardOpensAtOnceAndShowsThePredictionsWhenTheyAreMade() throws {
        let source = HeldSource(try smallWords())
        var k = Self.open(Self.maker(source), text: "I think ")
        #expect(k.predictions.isEmpty)
        #expect(source.questions == [WordContext(partial: "", previous: "think")])
        let change = k.take(source)
        #expect(k.predictions == (try Self.expected("I think ")))
        #expect(k.predictions.contains("the"), "\(k.predictions)")
        guard case .keyboard(let keys)? = change.effects.first else {
            Issue.record("no keyboard effect: \(change.effects)")
            return
        }
        #expect(keys.contains { $0.id == "prediction1" && $0.label == k.predictions.first })
        #expect(change.tree?.index(of: "predictions") != nil)
        #expect(change.startsOver, "the row comes first: the scan starts over at it")
        #expect(k.wordsMade(MadeWords(partial: "", previous: "think", words: ["the", "that"])).effects.isEmpty == false,
                "words made again, and different: redrawn")
        #expect(k.wordsMade(MadeWords(partial: "", previous: "think", words: ["the", "that"])).effects.isEmpty, "the same again: nothing to redraw")
        #expect(k.wordsMade(MadeWords(partial: "w", previous: "think", words: ["wombat"])).effects.isEmpty,
                "made for a text the keyboard does not have: not taken")
        #expect(k.predictions == ["the", "that"])
    }

    /// After a key the predictions shown stay until the new ones are made (a moment later):
    /// the row does not come and go under the highlight, and a word chosen from it meanwhile
    /// is typed as chosen.
    @Test func thePredictionsShownStayUntilTheNewOnesAreMade() throws {
        let source = HeldSource(try smallWords())
        var t = Typist(Self.open(Self.maker(source), text: "I think "))
        _ = t.keyboard.take(source)
        let before = t.keyboard.predictions
        t.type("w")
        #expect(t.keyboard.predictions == before, "the last ones, until the new are made")
        let shown = try #require(before.first)
        t.press("prediction1")
        #expect(t.field == shown + " ", "the word shown, whatever was typed since")
        #expect(source.questions.last == WordContext(partial: "", previous: shown), "the words after the one chosen asked for")
        let change = t.keyboard.take(source)
        #expect(!change.startsOver, "a key was chosen: the scan keeps its place")
    }

    /// Learning goes to the source, in order with the questions.
    @Test func wordsAreLearnedByTheSource() throws {
        let source = HeldSource(try smallWords())
        let maker = Self.maker(source)
        var t = Typist(Self.open(maker, text: ""))
        t.type("zq zq ")
        #expect(source.learned == ["Zq", "zq"], "the first at the sentence start, capitalised")
        var k = Self.open(maker, text: "Z")
        _ = k.take(source)
        #expect(k.predictions.first == "Zq", "what one keyboard learned the next knows: \(k.predictions)")
    }
}

@Suite("Text cost")
struct TextCostTests {
    /// Replays the cost's presses in `simulate`'s driver: the text comes out, its last part
    /// exactly at the cost's seconds.
    func replay(_ cost: TextCost, _ settings: ScanSettings, predictor: WordPredictor? = nil) throws -> (text: String, lastTyped: Double) {
        let engine = KeyboardSession.engine(layout: KeyboardLayout(settings.typing.keyboardLayout), predictor: try predictor ?? smallWords(), settings: settings)
        var driver = ManualDriver(engine: engine)
        var events: [SwitchEvent] = []
        // Hold scanning lets each press go at its own time; the other styles after 50 ms.
        for (k, t) in cost.pressTimes.enumerated() {
            let up = cost.releaseTimes.isEmpty ? t + ScanCost.pressLength : cost.releaseTimes[k]
            events += [SwitchEvent(.select, down: true, at: t), SwitchEvent(.select, down: false, at: up)]
        }
        for t in cost.nextTimes { events += [SwitchEvent(.next, down: true, at: t), SwitchEvent(.next, down: false, at: t + ScanCost.pressLength)] }
        driver.schedule(events.sorted { $0.timestamp < $1.timestamp })
        var field = "", last = 0.0
        for e in driver.start() + driver.advance(to: .seconds(cost.seconds + 5)) {
            switch e.effect {
            case .typeText(let s, _): field += s; last = e.time.seconds
            case .deleteText(let n): field.removeLast(min(n, field.count))
            case .key(.enter): field += "\n"; last = e.time.seconds
            default: break
            }
        }
        return (field, last)
    }

    @Test(arguments: ScanStyle.allCases)
    func costIsConfirmedBySimulationInEveryStyle(_ style: ScanStyle) throws {
        var settings = ScanSettings()
        settings.style = style
        settings.autoScanInterval = .seconds(0.5)
        for layout in KeyboardLayoutName.allCases {
            settings.typing.keyboardLayout = layout
            for text in ["see you soon", "Hello, how are you? Fine: 3.5 kg.", "where is the water"] {
                let cost = try TextCost.compute(text, layout: KeyboardLayout(layout), predictor: try smallWords(), settings: settings)
                let (typed, last) = try replay(cost, settings)
                var field = typed.lowercased()
                while field.hasSuffix(" ") { field.removeLast() }
                #expect(field == text.lowercased(), "\(style) \(layout): \(text)")
                #expect(last == cost.seconds, "\(style) \(layout): \(text)")
                #expect(cost.presses > 0)
            }
        }
    }

    /// A capital inside a sentence costs Shift, and the text comes out with it; a small
    /// letter where the keyboard offers a capital is taken as it comes.
    @Test func aCapitalInsideASentenceCostsShift() throws {
        var settings = ScanSettings()
        settings.autoScanInterval = .seconds(0.5)
        let words = WordPredictor(system: WordList())
        let plain = try TextCost.compute("see you sam", layout: KeyboardLayout(.frequency), predictor: words, settings: settings)
        let named = try TextCost.compute("see you Sam", layout: KeyboardLayout(.frequency), predictor: words, settings: settings)
        // Shift: its row, then the key (Shift is on the last row).
        #expect(named.presses == plain.presses + 2, "\(plain.presses) → \(named.presses)")
        #expect(named.seconds > plain.seconds)
        let (typed, _) = try replay(named, settings, predictor: words)
        #expect(typed == "See you Sam", "\(typed)")
    }

    /// A file name: as prose it costs a Backspace after the full stop (its space), and the
    /// capital after it is taken; in a file name's field every character is as chosen.
    @Test func aFileNameIsTypedInProseWithACorrectionAndInItsFieldWithout() throws {
        var settings = ScanSettings()
        settings.autoScanInterval = .seconds(0.5)
        let words = WordPredictor(system: WordList())
        let prose = try TextCost.compute("note.txt", layout: KeyboardLayout(.frequency), predictor: words, settings: settings)
        let (typed, _) = try replay(prose, settings, predictor: words)
        #expect(typed == "Note.Txt", "\(typed)")
        let file = try TextCost.compute("note.txt", layout: KeyboardLayout(.frequency), predictor: words, settings: settings, field: .fileName)
        #expect(file.presses == 2 * 8, "a row and a key for every character")
        #expect(file.presses < prose.presses)
        // In a one-line field the space after a predicted word comes with the next word.
        let sentence = try TextCost.compute("where is the water", layout: KeyboardLayout(.frequency), predictor: try smallWords(), settings: settings)
        let line = try TextCost.compute("where is the water", layout: KeyboardLayout(.frequency), predictor: try smallWords(), settings: settings, field: .line)
        #expect(line.presses <= sentence.presses, "\(line.presses) in a line, \(sentence.presses) in prose")
        for (text, kind) in [("www.example.org", TextEntryKind.url), ("sam@example.org", .email), ("3.5", .number), ("hello there", .line)] {
            let cost = try TextCost.compute(text, layout: KeyboardLayout(.frequency), predictor: try smallWords(), settings: settings, field: kind)
            #expect(cost.presses > 0, "\(kind)")
        }
    }

    @Test func predictionsSavePresses() throws {
        var settings = ScanSettings()
        settings.autoScanInterval = .seconds(0.5)
        let with = try TextCost.compute("where is the water", layout: KeyboardLayout(.frequency), predictor: try smallWords(), settings: settings)
        let without = try TextCost.compute("where is the water", layout: KeyboardLayout(.frequency), predictor: WordPredictor(system: WordList()), settings: settings)
        #expect(with.presses < without.presses)
        #expect(with.seconds < without.seconds)
        #expect(without.presses == 2 * "where is the water".count, "a row and a key for every character")
    }

    @Test func aTextTheKeyboardCannotTypeIsRefused() throws {
        let settings = ScanSettings()
        #expect(throws: TextCost.Problem.self) {
            try TextCost.compute("naïve ☃", layout: KeyboardLayout(.frequency), predictor: WordPredictor(system: WordList()), settings: settings)
        }
        var slow = ScanSettings()
        slow.reactionTime = .seconds(2)
        #expect(throws: TextCost.Problem.self) {
            try TextCost.compute("hi", layout: KeyboardLayout(.frequency), predictor: WordPredictor(system: WordList()), settings: slow)
        }
    }

    /// A character no key types is said before anything is typed, with its place and an
    /// excerpt of the text around it.
    @Test func aCharacterNoKeyTypesIsNamedWithItsPlace() throws {
        let text = String(repeating: "a", count: 300) + "☃" + String(repeating: "b", count: 300)
        do {
            _ = try TextCost.compute(text, layout: KeyboardLayout(.frequency), predictor: WordPredictor(system: WordList()), settings: ScanSettings())
            Issue.record("a snowman was typed")
        } catch {
            guard case .noKey(let c, _, let offset) = error else { Issue.record("\(error)"); return }
            #expect(c == "☃" && offset == 300)
            let a = String(repeating: "a", count: 20), b = String(repeating: "b", count: 19)
            #expect(error.description == "no key of the keyboard types \"☃\" (character 301 of \"…\(a)☃\(b)…\")")
        }
    }

    @Test func theSummaryCountsWordsAsFiveCharacters() {
        let costs = [TextCost(text: "abcde", seconds: 30, pressTimes: [.zero], nextTimes: []),
                     TextCost(text: "fghij", seconds: 30, pressTimes: [.zero, .zero], nextTimes: [.zero])]
        let s = TextCost.Summary(costs)
        #expect(s.characters == 10 && s.presses == 4)
        #expect(s.wordsPerMinute == 2)
        #expect(s.pressesPerCharacter == 0.4)
    }
}

@Suite("Keyboard placement")
struct KeyboardPlacementTests {
    let screen = Rect(x: 0, y: 0, width: 1280, height: 800)

    func covers(_ panel: Rect, _ field: Rect) -> Bool {
        panel.minX < field.maxX && field.minX < panel.maxX && panel.minY < field.maxY && field.minY < panel.maxY
    }

    @Test func atTheBottomUnlessTheFieldIsThere() {
        let high = Rect(x: 340, y: 144, width: 600, height: 34)
        let bottom = Keyboard.panel(on: screen, avoiding: high)
        #expect(bottom.maxY == 800 && bottom.width == 1280 && bottom.height == 360)
        let low = Rect(x: 340, y: 700, width: 600, height: 34)
        let top = Keyboard.panel(on: screen, avoiding: low)
        #expect(top.minY == 0 && !covers(top, low))
        #expect(Keyboard.panel(on: screen, avoiding: nil).maxY == 800)
    }

    @Test func aTallEditorKeepsItsTextInView() {
        // Mousepad's text view in a centred window.
        let editor = Rect(x: 321, y: 219, width: 638, height: 425)
        let panel = Keyboard.panel(on: screen, avoiding: editor)
        #expect(!covers(panel, editor), "\(panel)")
        #expect(panel.height >= 200)
        // A full-screen editor: nothing is free, the keyboard keeps its size and covers less.
        let full = Rect(x: 0, y: 30, width: 1280, height: 770)
        #expect(Keyboard.panel(on: screen, avoiding: full).height == 360)
    }
}

/// The text rules follow the field's kind: prose, one line, a file name, an address, a
/// number.
@Suite("Keyboard: the field's kind")
struct FieldKindTests {
    @Test func aOneLineFieldHasNoCapitalsAndAPredictionsSpaceComesBeforeTheNextWord() throws {
        var t = try Typist(field: .line)
        #expect(!t.keyboard.capital)
        t.type("wa")
        let k = try #require(t.keyboard.predictions.firstIndex(of: "watch"))
        let effects = t.press("prediction\(k + 1)")
        #expect(effects.contains(.typeText("tch", secret: false)), "\(effects)")
        #expect(t.field == "watch")
        // Enter after it: no space at the end of the field.
        var done = t
        done.press("enter")
        #expect(done.field == "watch\n")
        // A next word: the space comes before it, a prediction's too (they are the next
        // word's, as after a space).
        var next = t
        let word = try #require(next.keyboard.predictions.first)
        next.press("prediction1")
        #expect(next.field == "watch " + word)
        t.type("it")
        #expect(t.field == "watch it")
        // A full stop is as chosen, with no capital after it; a comma after a word leaves a
        // space for the next one.
        t.type(".so,then")
        #expect(t.field == "watch it.so, then")
        t.type(",")
        t.press("backspace")
        t.type("x")
        #expect(t.field == "watch it.so, thenx")
    }

    /// A word a prediction typed is learned and said once, not again when a space or
    /// punctuation follows it; the space left to come survives Shift and the page keys.
    @Test func aPredictedWordIsLearnedOnceAndItsSpaceWaitsThroughShift() throws {
        var t = try Typist(field: .line)
        t.keyboard.learns = true
        t.type("wa")
        let k = try #require(t.keyboard.predictions.firstIndex(of: "watch"))
        let chosen = t.press("prediction\(k + 1)")
        #expect(chosen.filter { if case .learnWord = $0 { true } else { false } }.count == 1)
        #expect(chosen.contains(.announce("watch")))
        var spaced = t
        let after = spaced.press("space")
        #expect(!after.contains { if case .learnWord = $0 { true } else if case .announce = $0 { true } else { false } }, "\(after)")
        #expect(spaced.field == "watch ")
        t.press("shift")
        t.type("i")
        #expect(t.field == "watch I")
        var digits = try Typist(field: .line)
        digits.type("wa")
        let w = try #require(digits.keyboard.predictions.firstIndex(of: "watch"))
        digits.press("prediction\(w + 1)")
        digits.press("symbols")
        digits.type("2")
        #expect(digits.field == "watch 2")
    }

    @Test func aFileNameKeepsEveryCharacterAsChosen() throws {
        var t = try Typist(field: .fileName)
        t.type("note.txt")
        #expect(t.field == "note.txt")
        var u = try Typist(field: .url)
        u.type("www.example.org")
        #expect(u.field == "www.example.org")
        var e = try Typist(field: .email)
        e.type("sam")
        e.press("symbols")
        e.type("@")
        e.press("letters")
        e.type("example.org")
        #expect(e.field == "sam@example.org")
    }

    @Test func anAddressesPredictionTypesTheWordAlone() throws {
        var t = try Typist(field: .url)
        t.type("wa")
        let k = try #require(t.keyboard.predictions.firstIndex(of: "watch"))
        t.press("prediction\(k + 1)")
        t.type(".org")
        #expect(t.field == "watch.org")
    }

    @Test func aNumberStartsOnTheDigitsAndPredictsNoWords() throws {
        var t = try Typist(field: .number)
        #expect(t.keyboard.page == .symbols)
        t.type("3.5")
        #expect(t.field == "3.5")
        #expect(t.keyboard.predictions.isEmpty)
    }

    @Test func onlyProseAndOneLineFieldsLearn() throws {
        for kind in TextEntryKind.allCases {
            let t = try Typist(field: kind)
            #expect(t.keyboard.learns == (kind == .text || kind == .line), "\(kind)")
            #expect(t.keyboard.secret == (kind == .password || kind == .terminal), "\(kind)")
            #expect(t.keyboard.capital == (kind == .text), "\(kind)")
        }
    }
}

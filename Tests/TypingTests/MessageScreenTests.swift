import ScanCore
import Testing
import Typing
import WordPrediction

/// The message screen's keys, one by one: what is written, said and kept.
@Suite struct MessageScreenTests {
    static let screen = Rect(x: 0, y: 0, width: 1000, height: 600)

    static func messages(phrases: [String] = ["I need a drink", "Thank you"], history: [String] = [], canHide: Bool = false,
                         learns: Bool = false) throws -> MessageScreen {
        var m = MessageScreen(layout: KeyboardLayout(.frequency), words: .inline(try smallWords()), settings: TypingSettings(),
                              learns: learns, phrases: phrases, history: history, screen: screen, canHide: canHide)
        _ = m.opened()
        return m
    }

    /// Presses the keys by id; every effect made.
    @discardableResult
    static func press(_ m: inout MessageScreen, _ ids: String...) -> [Effect] {
        ids.flatMap { m.activate($0).effects }
    }

    static func type(_ m: inout MessageScreen, _ text: String) {
        for c in text {
            let (_, id) = m.keyboard.layout.key(typing: c)!
            press(&m, id)
        }
    }

    static func spoken(_ effects: [Effect]) -> [String] {
        effects.compactMap { if case let .speak(text, voice, from) = $0 { "\(voice.rawValue) \(from.rawValue): \(text)" } else { nil } }
    }

    @Test func lettersWriteTheMessageAndNothingGoesToAnApplication() throws {
        var m = try Self.messages()
        var effects: [Effect] = []
        for c in "hi there" {
            let (_, id) = m.keyboard.layout.key(typing: c)!
            effects += Self.press(&m, id)
        }
        #expect(m.message == "Hi there")
        let toApplications = effects.filter {
            switch $0 { case .typeText, .deleteText, .key, .shortcut: true; default: false }
        }
        #expect(toApplications.isEmpty, "\(toApplications)")
        // The message is shown, large, at the top.
        let shown = m.keys.first!
        #expect(shown.id == "message" && shown.label == "Hi there")
        #expect(shown.frame.y == 0 && shown.frame.width == Self.screen.width)
        Self.press(&m, "backspace")
        #expect(m.message == "Hi ther")
    }

    @Test func speakSaysTheWholeMessageInThePublicVoiceAndKeepsIt() throws {
        var m = try Self.messages()
        Self.type(&m, "help me.now")
        let effects = Self.press(&m, "speak")
        #expect(Self.spoken(effects) == ["public message: Help me. Now"])
        #expect(m.history == ["Help me. Now"])
        #expect(m.message == "Help me. Now", "the message stays shown once said")
        // Said again: once more in the history's first place, not twice.
        #expect(Self.spoken(Self.press(&m, "speak")) == ["public message: Help me. Now"])
        #expect(m.history == ["Help me. Now"])
    }

    @Test func theNextKeyAfterSpeakingStartsANewMessage() throws {
        var m = try Self.messages()
        Self.type(&m, "yes please")
        Self.press(&m, "speak")
        Self.type(&m, "w")
        #expect(m.message == "W", "a new message, its first letter a capital")
        Self.press(&m, "speak")
        Self.press(&m, "backspace")
        #expect(m.message.isEmpty, "Backspace after speaking starts an empty message")
        #expect(m.history == ["W", "Yes please"])
    }

    @Test func clearEmptiesTheMessageAndSpeakingNothingSaysSo() throws {
        var m = try Self.messages()
        Self.type(&m, "abc")
        Self.press(&m, "clear")
        #expect(m.message.isEmpty)
        let effects = Self.press(&m, "speak")
        #expect(Self.spoken(effects).isEmpty)
        #expect(effects.contains(.announce("Nothing to say yet")))
        #expect(m.history.isEmpty)
    }

    @Test func yesNoAndAttentionAtOnce() throws {
        var m = try Self.messages()
        Self.type(&m, "draft")
        #expect(Self.spoken(Self.press(&m, "yes")) == ["public answer: Yes"])
        #expect(Self.spoken(Self.press(&m, "no")) == ["public answer: No"])
        #expect(Self.press(&m, "attention").contains(.attention))
        #expect(m.message == "Draft" && m.history.isEmpty, "an answer leaves the message being written as it was")
    }

    @Test func aPhraseIsChosenFromItsPageAndSaid() throws {
        var m = try Self.messages(history: ["See you soon", "Thank you"])
        Self.press(&m, "phrases")
        #expect(m.page == .phrases(0))
        let t = m.tree
        let labels = (0..<t.count).filter { t[$0].isAccessibilityElement }.map { t[$0].label ?? "" }
        // The phrases, then what was said lately that is not one of them, then Back.
        #expect(labels == ["I need a drink", "Thank you", "See you soon", "Back"])
        let rows = t[0].children.map { t[$0].label ?? "-" }
        #expect(rows == ["Phrases", "Recent", "-"])
        #expect(Self.spoken(Self.press(&m, "phrase1")) == ["public phrase: I need a drink"])
        #expect(m.page == .write, "back to the message once a phrase is said")
        Self.press(&m, "phrases")
        #expect(Self.spoken(Self.press(&m, "recent1")) == ["public history: See you soon"])
        Self.press(&m, "phrases", "back")
        #expect(m.page == .write)
    }

    @Test func noPhrasesYetIsSaidAndTheMessageStays() throws {
        var m = try Self.messages(phrases: [])
        let effects = Self.press(&m, "phrases")
        #expect(m.page == .write)
        #expect(effects.contains(.announce("No phrases yet: add them with switchscan phrases add")))
    }

    @Test func manyPhrasesComeAPageAtATime() throws {
        let phrases = (1...30).map { "Phrase number \($0)" }
        var m = try Self.messages(phrases: phrases)
        Self.press(&m, "phrases")
        func shown() -> [String] {
            let t = m.tree
            return (0..<t.count).filter { t[$0].isAccessibilityElement }.map { t[$0].label ?? "" }
        }
        #expect(shown().count == 24 + 2 && shown().suffix(2) == ["More", "Back"])
        Self.press(&m, "more")
        #expect(shown() == (25...30).map { "Phrase number \($0)" } + ["Back"])
        #expect(Self.spoken(Self.press(&m, "phrase27")) == ["public phrase: Phrase number 27"])
    }

    @Test func withoutAnApplicationBeneathThereIsNoHideAndNoEditPage() throws {
        let alone = try Self.messages()
        let ids = Set(alone.keys.map(\.id))
        #expect(!ids.contains("hide") && !ids.contains("edit"))
        #expect(["speak", "phrases", "yes", "no", "clear", "attention", "space", "key_e"].allSatisfy(ids.contains))
        var over = try Self.messages(canHide: true)
        #expect(over.keys.contains { $0.id == "hide" })
        #expect(over.activate("hide").closed)
    }

    @Test func wordsAreLearnedFromTheMessageAsFromTyping() throws {
        var m = try Self.messages(learns: true)
        Self.type(&m, "zebra ")
        #expect(m.keyboard.predictor?.predictions(for: WordContext(textBefore: "zeb"), count: 3).first == "zebra")
    }

    @Test func speakingLearnsTheLastWordAsASpaceWould() throws {
        var m = try Self.messages(learns: true)
        Self.type(&m, "call zebra")
        let effects = Self.press(&m, "speak")
        #expect(effects.contains(.learnWord("zebra", after: "Call")), "\(effects)")
        #expect(!Self.press(&m, "speak").contains { if case .learnWord = $0 { true } else { false } }, "said again: learned once")
    }

    @Test func deleteWordAfterSpeakingStartsANewMessage() throws {
        var m = try Self.messages()
        Self.type(&m, "good night")
        Self.press(&m, "speak")
        Self.press(&m, "deleteWord")
        #expect(m.message.isEmpty && !m.spoken)
        Self.type(&m, "ok")
        #expect(m.message == "Ok")
    }

    @Test func aLongMessageCanBeTakenBackPastWhatTheKeyboardKeeps() throws {
        let long = String(repeating: "abcdef ", count: 100)
        var m = MessageScreen(layout: KeyboardLayout(.frequency), words: .inline(try smallWords()), settings: TypingSettings(),
                              learns: false, phrases: [], history: [], screen: Self.screen, canHide: false, message: long)
        #expect(m.message.count == 700 && m.keyboard.text.count <= Keyboard.textKept && m.keyboard.text.hasPrefix("abcdef"))
        for _ in 0..<100 { Self.press(&m, "deleteWord") }
        #expect(m.message.isEmpty, "\(m.message.count) characters left")
    }

    @Test func aScreenPlacedOnAnotherSizeKeepsItsPageAndMessage() throws {
        var m = try Self.messages()
        Self.type(&m, "hi")
        Self.press(&m, "phrases")
        let moved = m.placed(on: Rect(x: 0, y: 0, width: 1920, height: 1080))
        #expect(moved.page == .phrases(0) && moved.message == "Hi")
        #expect(moved.keys.first?.frame.width == 1920)
    }

    /// New phrases (the file changed while it runs): a phrases page shown is redrawn with
    /// them, on a page that still has phrases; the hidden screen's maker offers them too.
    @Test func newPhrasesAreOfferedWhereverTheScreenIs() throws {
        var m = try Self.messages(phrases: (1...30).map { "P\($0)" })
        _ = Self.press(&m, "phrases")
        _ = Self.press(&m, "more")
        #expect(m.page == .phrases(1))
        let change = m.phrasesChanged(["Only one"])
        #expect(m.page == .phrases(0), "back to the only page there is")
        #expect(change.tree.map { t in (0..<t.count).contains { t[$0].label == "Only one" } } == true)
        #expect(m.phrasesChanged(["Only one"]).tree == nil, "the same phrases change nothing")
        var maker = MessageMaker(layout: KeyboardLayout(.frequency), words: .inline(try smallWords()), settings: TypingSettings(),
                                 phrases: ["Old"], history: [])
        maker.phrasesChanged(["New"])
        let made = maker.messageScreen(on: Rect(x: 0, y: 0, width: 800, height: 600))
        #expect((made.logic as? MessageScreen)?.phrases == ["New"])
    }

    @Test func aMessageHasAnEnd() throws {
        var m = try Self.messages()
        var effects: [Effect] = []
        for _ in 0..<(MessageScreen.maxMessage + 3) { effects += Self.press(&m, "key_e") }
        #expect(m.message.count == MessageScreen.maxMessage)
        #expect(effects.contains(.announce("The message is full: speak it or clear it")))
    }
}

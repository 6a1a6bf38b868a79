import Foundation
import ScanCore
import ScanHost
@testable import ScanSession
import Testing
import WordPrediction

/// `run`'s predictions, made on a thread of their own: asked without waiting, answered
/// once made, learning in order, the language's words joining when they are read.
@Suite struct PredictionThreadTests {
    static let language = """
        9 the
        8 to
        7 and
        5 think
        4 that
        3 think that
        2 think the
        """

    /// A thread with `user`'s words, whose language's words come when `gate` opens; what
    /// it makes is kept in `made`, as the engine would be handed it.
    static func thread(user: WordList, gate: DispatchSemaphore, made: Locked<[MadeWords]>,
                       delivered: DispatchSemaphore? = nil) -> PredictionThread {
        PredictionThread(user: user, language: {
            gate.wait()
            return WordPredictor(system: try! WordList(parsing: Array(language.utf8), file: "language"))
        }, deliver: { words in
            made.withLock { $0.append(words) }
            delivered?.signal()
        })
    }

    @Test func anAnswerIsMadeOnItsThreadAndHandedOn() throws {
        let gate = DispatchSemaphore(value: 0)
        let made = Locked<[MadeWords]>([])
        let delivered = DispatchSemaphore(value: 0)
        let t = Self.thread(user: try WordList(parsing: Array("3 wombat\n".utf8), file: "user"), gate: gate, made: made, delivered: delivered)
        let context = WordContext(textBefore: "I think ")
        t.ask(context, count: 5)
        t.ask(context, count: 5)
        t.drain()
        // (Asked again while it is being made, it is made once; asked once it is made, it is
        // made again: either may come first.)
        let first = made.withLock { $0 }
        #expect((1...2).contains(first.count) && first.allSatisfy { $0 == MadeWords(partial: "", previous: "think", words: ["wombat"]) },
                "the user's words while the language's are read: \(first)")
        for _ in first { #expect(delivered.wait(timeout: .now() + 10) == .success) }
        gate.signal()
        // The language's words arrive: the question last asked is answered again with them.
        #expect(delivered.wait(timeout: .now() + 10) == .success)
        let answers = made.withLock { $0 }
        #expect(answers.count == first.count + 1)
        let again = try #require(answers.last)
        #expect(again.partial == "" && again.previous == "think")
        #expect(again.words.first == "that" && again.words.count == 5 && !again.words.contains("wombat"),
                "the language's words after \"think\", against which a word typed three times counts for little: \(again.words)")
    }

    /// A thread whose language's words are in: a first question is answered with them
    /// (again, if they came after it), and what it made is then forgotten.
    static func ready(made: Locked<[MadeWords]>) throws -> PredictionThread {
        let gate = DispatchSemaphore(value: 0)
        gate.signal()
        let delivered = DispatchSemaphore(value: 0)
        let t = thread(user: WordList(), gate: gate, made: made, delivered: delivered)
        t.ask(WordContext(textBefore: "t"), count: 5)
        while made.withLock({ $0.last?.words.contains("the") }) != true {
            try #require(delivered.wait(timeout: .now() + 10) == .success, "the language's words never came")
        }
        t.drain()
        made.withLock { $0 = [] }
        return t
    }

    /// A question overtaken by another before it is made is not answered: the keyboard's
    /// text has moved on.
    @Test func aQuestionOvertakenIsNotAnswered() throws {
        let made = Locked<[MadeWords]>([])
        let t = try Self.ready(made: made)
        t.ask(WordContext(textBefore: "th"), count: 5)
        t.ask(WordContext(textBefore: "thi"), count: 5)
        t.drain()
        let partials = made.withLock { $0 }.map(\.partial)
        #expect(partials.last == "thi")
        #expect(partials.allSatisfy { $0 == "thi" } || partials == ["th", "thi"], "\(partials)")
    }

    /// Once made, the same question is made again when asked again: a keyboard opened anew
    /// on the same text (an empty field after another) gets its words.
    @Test func aQuestionAnsweredIsAnsweredAgainWhenAskedAgain() throws {
        let made = Locked<[MadeWords]>([])
        let t = try Self.ready(made: made)
        t.ask(WordContext(textBefore: ""), count: 5)
        t.drain()
        t.ask(WordContext(textBefore: ""), count: 5)
        t.drain()
        let answers = made.withLock { $0 }
        #expect(answers.count == 2 && answers[0] == answers[1] && answers[0].words.first == "the", "\(answers)")
    }

    @Test func whatIsLearnedIsKnownToTheNextAnswer() throws {
        let made = Locked<[MadeWords]>([])
        let t = try Self.ready(made: made)
        t.ask(WordContext(textBefore: "z"), count: 5)
        t.learn("zebra", after: nil)
        t.ask(WordContext(textBefore: "z"), count: 5)
        t.drain()
        #expect(made.withLock { $0 }.last?.words == ["zebra"], "asked after the word was learned: it knows it")
    }
}

import Foundation
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

    /// A thread with `user`'s words, whose language's words come when `gate` opens.
    static func thread(user: WordList, gate: DispatchSemaphore, ready: @escaping @Sendable () -> Void = {}) -> PredictionThread {
        PredictionThread(user: user, language: {
            gate.wait()
            return WordPredictor(system: try! WordList(parsing: Array(language.utf8), file: "language"))
        }, ready: ready)
    }

    /// Asks until answered, as the keyboard does when told the thread is ready (`drain`
    /// waits for the answer; the language's words arriving meanwhile make it ask again).
    static func answer(_ t: PredictionThread, _ text: String) -> [String]? {
        let context = WordContext(textBefore: text)
        for _ in 0..<10 {
            if let words = t.predictions(for: context, count: 5) { return words }
            t.drain()
        }
        return nil
    }

    @Test func anAnswerIsMadeOnItsThreadAndSaidReady() throws {
        let gate = DispatchSemaphore(value: 0)
        let readies = Locked(0)
        let said = DispatchSemaphore(value: 0)
        let t = Self.thread(user: try WordList(parsing: Array("3 wombat\n".utf8), file: "user"), gate: gate,
                            ready: { readies.withLock { $0 += 1 }; said.signal() })
        let context = WordContext(textBefore: "I think ")
        #expect(t.predictions(for: context, count: 5) == nil, "asked: not made yet")
        let again = t.predictions(for: context, count: 5)
        #expect(again == nil || again == ["wombat"], "asked again: being made, or made")
        t.drain()
        #expect(readies.withLock { $0 } == 1, "made once, though asked twice")
        #expect(t.predictions(for: context, count: 5) == ["wombat"], "the user's words while the language's are read")
        gate.signal()
        // The language's words arrive: said ready, and the next answer has them.
        _ = said.wait(timeout: .now() + 10)
        #expect(said.wait(timeout: .now() + 10) == .success)
        #expect(readies.withLock { $0 } == 2)
        let answer = try #require(Self.answer(t, "I think "))
        #expect(answer.first == "that" && answer.count == 5 && !answer.contains("wombat"),
                "the language's words after \"think\", against which a word typed three times counts for little: \(answer)")
    }

    @Test func whatIsLearnedIsKnownToTheNextAnswer() throws {
        // Open from the start (a semaphore made with a value may not end below it).
        let gate = DispatchSemaphore(value: 0)
        gate.signal()
        let t = Self.thread(user: WordList(), gate: gate)
        t.drain()
        _ = Self.answer(t, "z")
        t.learn("zebra", after: nil)
        #expect(Self.answer(t, "z") == ["zebra"], "asked after the word was learned: it knows it")
    }
}

import Dispatch
import ScanCore
import ScanHost
import Typing
import WordPrediction

/// The keyboard's predictions made on a thread of their own, so that the engine's never
/// computes them, however many words the user has taught it: the keyboard asks, and what
/// is made goes back to the engine as an input (`deliver`: `LiveScanner.wordsMade`).
///
/// The predictor lives on this thread alone: the user's words are indexed here, the
/// language's join here once read (on another thread, so that a big list keeps no
/// prediction waiting; the last question is answered again with them), and what the user
/// commits is learned here, in order, before any prediction asked after it.
final class PredictionThread: PredictionSource, @unchecked Sendable {
    private let queue = DispatchQueue(label: "switchscan.predictions", qos: .userInitiated)
    /// Touched on `queue` only.
    private var predictor = WordPredictor(system: WordList())

    private struct Question: Equatable {
        var context: WordContext
        var count: Int
        /// What had been learned (and read) when it was asked.
        var version: Int
    }

    private struct State {
        var version = 0
        /// The question being made (asking it again asks nothing), until it is answered.
        var making: Question?
        /// The question last asked: answered again when the language's words arrive.
        var last: Question?
    }

    private let state = Locked(State())
    private let deliver: @Sendable (MadeWords) -> Void

    /// - Parameters:
    ///   - user: the user's learned words.
    ///   - language: reads the language's words (called once, on another thread).
    ///   - deliver: called on this thread with each answer made.
    init(user: WordList, language: @escaping @Sendable () -> WordPredictor, deliver: @escaping @Sendable (MadeWords) -> Void) {
        self.deliver = deliver
        queue.async { [self] in predictor = WordPredictor(system: WordList(), user: user) }
        DispatchQueue.global(qos: .utility).async { [self] in
            let read = language()
            queue.async { [self] in
                predictor = predictor.replacingSystem(with: read)
                // The question last asked, answered again with the language's words.
                let again = state.withLock { s -> Question? in
                    s.version += 1
                    guard var q = s.last else { return nil }
                    q.version = s.version
                    s.last = q
                    s.making = q
                    return q
                }
                if let again { answer(again) }
            }
        }
    }

    func ask(_ context: WordContext, count: Int) {
        let question = state.withLock { s -> Question? in
            let q = Question(context: context, count: count, version: s.version)
            if s.making == q { return nil }
            s.making = q
            s.last = q
            return q
        }
        guard let question else { return }
        queue.async { [self] in
            // Another asked since (the text moved on, or a word was learned): only that one
            // is made.
            guard state.withLock({ $0.making == question }) else { return }
            answer(question)
        }
    }

    /// On `queue`. Once made, the same question asked again (a keyboard opened anew on the
    /// same text) is made again.
    private func answer(_ q: Question) {
        let words = predictor.predictions(for: q.context, count: q.count)
        state.withLock { if $0.making == q { $0.making = nil } }
        deliver(MadeWords(partial: q.context.partial, previous: q.context.previous, words: words))
    }

    func learn(_ word: String, after previous: String?) {
        state.withLock { $0.version += 1 }
        queue.async { [self] in predictor.learn(word, after: previous) }
    }

    /// Waits for everything asked so far to be done (for tests).
    func drain() { queue.sync {} }
}

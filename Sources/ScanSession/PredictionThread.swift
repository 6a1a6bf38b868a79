import Dispatch
import ScanHost
import Typing
import WordPrediction

/// The keyboard's predictions made on a thread of their own, so that the engine's never
/// computes them, however many words the user has taught it: the engine asks, gets what is
/// made or nil, and is told (`ready`) when the answer it asked for is made.
///
/// The predictor lives on this thread alone: the user's words are indexed here, the
/// language's join here once read (on another thread, so that a big list keeps no
/// prediction waiting), and what the user commits is learned here, in order, before any
/// prediction asked after it.
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
        var asked: Question?
        var answer: (question: Question, words: [String])?
    }

    private let state = Locked(State())
    private let ready: @Sendable () -> Void

    /// - Parameters:
    ///   - user: the user's learned words.
    ///   - language: reads the language's words (called once, on another thread).
    ///   - ready: called on this thread when an answer asked for is made, or when the
    ///     language's words arrive: the open keyboard should ask again.
    init(user: WordList, language: @escaping @Sendable () -> WordPredictor, ready: @escaping @Sendable () -> Void) {
        self.ready = ready
        queue.async { [self] in predictor = WordPredictor(system: WordList(), user: user) }
        DispatchQueue.global(qos: .utility).async { [self] in
            let read = language()
            queue.async { [self] in
                predictor = predictor.replacingSystem(with: read)
                state.withLock { $0.version += 1 }
                ready()
            }
        }
    }

    func predictions(for context: WordContext, count: Int) -> [String]? {
        let (question, made, ask) = state.withLock { s -> (Question, [String]?, Bool) in
            let q = Question(context: context, count: count, version: s.version)
            if let answer = s.answer, answer.question == q { return (q, answer.words, false) }
            if s.asked == q { return (q, nil, false) }
            s.asked = q
            return (q, nil, true)
        }
        if ask {
            queue.async { [self] in
                // Asked again since (the text moved on, or a word was learned): not made.
                guard state.withLock({ $0.asked == question }) else { return }
                let words = predictor.predictions(for: context, count: count)
                let current = state.withLock { s -> Bool in
                    guard s.version == question.version else { return false }
                    s.answer = (question, words)
                    return true
                }
                if current { ready() }
            }
        }
        return made
    }

    func learn(_ word: String, after previous: String?) {
        state.withLock { $0.version += 1 }
        queue.async { [self] in predictor.learn(word, after: previous) }
    }

    /// Waits for everything asked so far to be done (for tests).
    func drain() { queue.sync {} }
}

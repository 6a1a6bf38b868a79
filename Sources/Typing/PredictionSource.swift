import WordPrediction

/// Predictions made away from the engine's thread (`run`: a thread of their own), asked by
/// the keyboard without waiting.
///
/// A keyboard asks at every change of its text whose words it has not been given; the
/// answer comes back as an input of the engine (`MadeWords`, through
/// `LiveScanner.wordsMade`), which hands it to the open keyboard. What is learned is
/// learned in order: a prediction asked after a word was learned knows it.
public protocol PredictionSource: AnyObject, Sendable {
    /// Asks for the words for `context`; never waits. Asking again for what is being made
    /// asks nothing.
    func ask(_ context: WordContext, count: Int)
    /// A word the user committed, after the word before it in the sentence.
    func learn(_ word: String, after previous: String?)
}

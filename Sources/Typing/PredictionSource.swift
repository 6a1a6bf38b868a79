import WordPrediction

/// Predictions made away from the engine's thread (`run`: a thread of their own), asked by
/// the keyboard without waiting.
///
/// A keyboard asks at every change of its text; an answer not made yet is nil, and the
/// source then makes it and has the open keyboard refreshed (`ScreenLogic.refreshed`),
/// which asks again. What is learned is learned in order: a prediction asked after a word
/// was learned knows it.
public protocol PredictionSource: AnyObject, Sendable {
    /// The words for `context`, if they are made; nil while they are being made.
    func predictions(for context: WordContext, count: Int) -> [String]?
    /// A word the user committed, after the word before it in the sentence.
    func learn(_ word: String, after previous: String?)
}

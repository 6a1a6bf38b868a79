/// What the text before the caret says to the predictor: the word being typed, if the caret
/// is inside one, and the word before it, if the sentence has one.
///
/// Word characters are letters, digits, apostrophes (' and ’) and hyphens; anything else
/// separates words. A sentence ends at `.`, `?`, `!`, `…` and line breaks (and `¿`, `¡`
/// start one): after them there is no previous word, as at the very start. Only the tail of
/// the text is read, however long it is.
public struct WordContext: Hashable, Sendable {
    /// The partial word before the caret ("" after a separator), without leading
    /// apostrophes or hyphens (quotes and dashes there).
    public var partial: String
    /// The word before the partial one in the same sentence, without leading or trailing
    /// apostrophes and hyphens; nil at a sentence start.
    public var previous: String?

    public init(partial: String, previous: String?) {
        self.partial = partial
        self.previous = previous
    }

    public init(textBefore text: String) {
        var end = text.endIndex
        var start = end
        while start > text.startIndex, Self.isWordCharacter(text[text.index(before: start)]) {
            start = text.index(before: start)
        }
        partial = String(text[start..<end].drop(while: Self.isEdge))
        previous = nil
        // Back over separators to the previous word, unless a sentence ends in between.
        while start > text.startIndex {
            end = start
            while end > text.startIndex {
                let c = text[text.index(before: end)]
                if Self.isWordCharacter(c) { break }
                if Self.endsSentence(c) { return }
                end = text.index(before: end)
            }
            start = end
            while start > text.startIndex, Self.isWordCharacter(text[text.index(before: start)]) {
                start = text.index(before: start)
            }
            let word = Self.trimmed(text[start..<end])
            // A lone dash or quote between spaces is not a word: look further back.
            if !word.isEmpty {
                previous = String(word)
                return
            }
        }
    }

    static func isWordCharacter(_ c: Character) -> Bool {
        c.isLetter || c.isNumber || c == "'" || c == "’" || c == "-"
            || (c.unicodeScalars.first?.properties.generalCategory).map { [.nonspacingMark, .spacingMark, .enclosingMark].contains($0) } == true
    }

    static func endsSentence(_ c: Character) -> Bool {
        c == "." || c == "?" || c == "!" || c == "…" || c == "¿" || c == "¡" || c.isNewline
    }

    static func trimmed(_ word: Substring) -> Substring {
        var w = word.drop(while: isEdge)
        while let last = w.last, isEdge(last) { w = w.dropLast() }
        return w
    }

    /// Apostrophes and hyphens at a word's edge are quotes and dashes.
    static func isEdge(_ c: Character) -> Bool { c == "'" || c == "’" || c == "-" }
}

import Testing
import WordPrediction

@Suite("The text before the caret: the word being typed and the one before it")
struct WordContextTests {
    @Test(arguments: [
        ("", "", nil),
        ("th", "th", nil),
        ("of th", "th", "of"),
        ("of ", "", "of"),
        ("a cup of", "of", "cup"),
        ("Hello, wor", "wor", "Hello"),
        ("It is late. We", "We", nil),
        ("It is late. ", "", nil),
        ("Really?  ", "", nil),
        ("first line\nsecond", "second", nil),
        ("I don'", "don'", "I"),
        ("they don’t k", "k", "don’t"),
        ("a well-known w", "w", "well-known"),
        ("say 'hel", "hel", "say"),
        ("the 'quoted' wo", "wo", "quoted"),
        ("wait - what", "what", "wait"),
        ("3 cats", "cats", "3"),
        ("café cr", "cr", "café"),
        ("cafe\u{301} cr", "cr", "cafe\u{301}"),
    ] as [(String, String, String?)])
    func context(_ text: String, _ partial: String, _ previous: String?) {
        #expect(WordContext(textBefore: text) == WordContext(partial: partial, previous: previous))
    }

    @Test func onlyTheTailOfALongTextIsRead() {
        let long = String(repeating: "words and more words. ", count: 50_000) + "a cup of t"
        #expect(WordContext(textBefore: long) == WordContext(partial: "t", previous: "of"))
    }
}

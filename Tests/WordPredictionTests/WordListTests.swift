import Testing
import WordPrediction

func list(_ text: String, file: String = "test.words") throws -> WordList {
    try WordList(parsing: Array(text.utf8), file: file)
}

/// The error a list must be refused with.
func refusal(_ text: String, file: String = "test.words", sourceLocation: SourceLocation = #_sourceLocation) -> WordListError? {
    do {
        let loaded = try WordList(parsing: Array(text.utf8), file: file)
        Issue.record("expected the list to be refused; it loaded \(loaded.wordCount) words", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

@Suite("Word lists: the text format")
struct WordListTests {
    @Test func wordsAndPairsWithCommentsAndBlankLines() throws {
        let words = try list("""
            # a comment
            12 the

              7\tof   \r
            3 of the
            1 London of
            """)
        #expect(words.wordCount == 2)
        #expect(words.pairCount == 2)
        #expect(words.count(of: "the") == 12)
        #expect(words.count(of: "of") == 7)
        #expect(words.count(of: "The") == 0, "words are kept as spelled")
        #expect(words.count(of: "the", after: "of") == 3)
        #expect(words.count(of: "of", after: "London") == 1, "a pair's words need not be listed as words")
        #expect(words.count(of: "London") == 0)
    }

    @Test func anEmptyListAndAnEmptyFileAreTheSame() throws {
        #expect(try list("") == WordList())
        #expect(try list("# nothing\n\n") == WordList())
        #expect(WordList().serialized() == [])
    }

    @Test("serialized: words by count then bytes, pairs grouped by first word in that order, by count")
    func serializationOrder() throws {
        let words = try list("""
            1 b c
            5 zebra
            9 the
            5 London
            5 apple
            2 the end
            7 the apple
            2 the cat
            3 b a
            """)
        let text = String(decoding: words.serialized(), as: UTF8.self)
        #expect(text == """
            9 the
            5 London
            5 apple
            5 zebra
            7 the apple
            2 the cat
            2 the end
            3 b a
            1 b c

            """)
        #expect(try list(text) == words, "parsing the serialized list gives the same list")
        #expect(try list(text).serialized() == words.serialized())
    }

    @Test func equalityIgnoresTheOrderOfLines() throws {
        #expect(try list("1 a\n2 b\n3 a b\n") == list("3 a b\n2 b\n1 a\n"))
        #expect(try list("1 a\n2 b\n") != list("1 a\n3 b\n"))
        #expect(try list("1 a\n1 a b\n") != list("1 a\n1 b a\n"))
        #expect(try list("1 a\n") != list("1 A\n"))
    }

    @Test("a bad line: FILE:LINE: what was wrong; what is allowed", arguments: [
        ("12\n", "test.words:1: expected \"COUNT WORD\" or \"COUNT WORD1 WORD2\", got \"12\""),
        ("1 a b c\n", "test.words:1: expected \"COUNT WORD\" or \"COUNT WORD1 WORD2\", got \"1 a b c\""),
        ("# x\nten the\n", "test.words:2: \"ten\" is not a count; a count is a whole number from 1 to 1000000000000000"),
        ("0 the\n", "test.words:1: \"0\" is not a count; a count is a whole number from 1 to 1000000000000000"),
        ("-3 the\n", "test.words:1: \"-3\" is not a count; a count is a whole number from 1 to 1000000000000000"),
        ("1000000000000001 the\n", "test.words:1: \"1000000000000001\" is not a count; a count is a whole number from 1 to 1000000000000000"),
        // Past Int's range: refused like any count too big, never an overflow.
        ("9223372036854775808 the\n", "test.words:1: \"9223372036854775808\" is not a count; a count is a whole number from 1 to 1000000000000000"),
        ("18446744073709551616 the\n", "test.words:1: \"18446744073709551616\" is not a count; a count is a whole number from 1 to 1000000000000000"),
        ("9999999999999999999 of the\n", "test.words:1: \"9999999999999999999\" is not a count; a count is a whole number from 1 to 1000000000000000"),
        ("+5 the\n", "test.words:1: \"+5\" is not a count; a count is a whole number from 1 to 1000000000000000"),
        ("2 the\n3 the\n", "test.words:2: \"the\" is already listed on line 1; list each word once"),
        ("2 of the\n3 of the\n", "test.words:2: the pair \"of the\" is already listed; list each pair once"),
        ("1 a\u{1}b\n", "test.words:1: a word has a control character (byte 1); words are printable text without spaces"),
        ("1 a\u{A0}b\n", "test.words:1: \"a\u{A0}b\" has a space or control character; words are printable text without spaces"),
        ("1 \(String(repeating: "x", count: 101))\n", "test.words:1: \"\(String(repeating: "x", count: 40))…\" is too long; a word is at most 100 characters and 400 bytes"),
        // One character, but 401 bytes: a letter under 200 combining marks.
        ("1 a\(String(repeating: "\u{301}", count: 200))\n", "test.words:1: \"a\(String(repeating: "\u{301}", count: 79))…\" is too long; a word is at most 100 characters and 400 bytes"),
    ])
    func badLine(_ text: String, _ message: String) {
        let error = refusal(text)
        #expect(error?.problems.count == 1)
        #expect(error?.description == message + "\ntest.words: 1 error; the word list was not loaded.")
    }

    @Test func aWordIsBoundedInBytesAsWellAsCharacters() {
        let marks = "a" + String(repeating: "\u{301}", count: 100_000)
        #expect(marks.count == 1)
        #expect(!WordList.isValidWord(marks))
        var words = WordList()
        let added = words.add(marks)
        #expect(!added, "learning refuses it too")
        #expect(WordList.isValidWord(String(repeating: "é", count: 100)), "a hundred accented letters are a word")
        #expect(!WordList.isValidWord(String(repeating: "x", count: 101)))
    }

    @Test func leadingZerosDoNotCountAgainstTheLimit() throws {
        #expect(try list("0000000000000000000000007 the\n").count(of: "the") == 7)
        #expect(try list("1000000000000000 the\n").count(of: "the") == WordList.maxCount)
    }

    @Test func skippingBadLinesKeepsTheRestAndNamesWhatWasSkipped() {
        let text = "3 hello\n9223372036854775808 world\n2 there\n2 there\n1 hello there\n1 hello there\n"
        let (words, problems) = WordList.parsingSkippingBadLines(Array(text.utf8), file: "w.txt")
        #expect(words.sortedWords().map(\.word) == ["hello", "there"])
        #expect(words.count(of: "there") == 2)
        #expect(words.count(of: "there", after: "hello") == 1)
        #expect(words.pairCount == 1)
        #expect(problems?.description == """
            w.txt:2: "9223372036854775808" is not a count; a count is a whole number from 1 to 1000000000000000
            w.txt:4: "there" is already listed on line 3; list each word once
            w.txt:6: the pair "hello there" is already listed; list each pair once
            w.txt: 3 errors; those lines were skipped.
            """)
        #expect(WordList.parsingSkippingBadLines(Array("1 ok\n".utf8), file: "w.txt").problems == nil)
    }

    @Test func forgettingAWordWithManySuccessorsKeepsTheOthersInOrder() throws {
        var words = WordList()
        for i in 0..<2000 { words.add("w\(i)", after: "the", count: i % 7 + 1) }
        words.add("the", count: 5)
        words.add("w3", count: 2)
        words.add("the", after: "w3")
        let removed = words.remove("W10")
        #expect(removed)
        #expect(words.pairCount == 2000, "its pair after 'the' is gone, the others stay")
        #expect(words.count(of: "w10", after: "the") == 0)
        #expect(words.count(of: "w11", after: "the") == 5)
        #expect(words.count(of: "the", after: "w3") == 1)
        #expect(words.count(of: "the") == 5)
        #expect(try WordList(parsing: words.serialized(), file: "x") == words, "the rebuilt list writes and reads back as itself")
        let removedAbsent = words.remove("absent")
        #expect(!removedAbsent)
    }

    @Test func textThatIsNotUTF8IsRefusedWithItsLine() {
        do {
            _ = try WordList(parsing: Array("1 ok\n2 ".utf8) + [0xFF, 0x41] + Array("\n".utf8), file: "w.words")
            Issue.record("expected a refusal")
        } catch {
            #expect(error.description == "w.words:2: not UTF-8 text; word lists are UTF-8\nw.words: 1 error; the word list was not loaded.")
        }
    }

    @Test func everyProblemIsListedUpToALimitThenCounted() {
        let text = (1...25).map { "x\($0) word\n" }.joined()
        let error = refusal("1 fine\n" + text)
        #expect(error?.problems.count == WordListError.limit)
        #expect(error?.omitted == 5)
        #expect(error?.problems.first == .init(line: 2, message: "\"x1\" is not a count; a count is a whole number from 1 to 1000000000000000"))
        let lines = error?.description.split(separator: "\n") ?? []
        #expect(lines.suffix(2) == ["test.words: … and 5 more", "test.words: 25 errors; the word list was not loaded."])
    }

    @Test func aRepeatedPairFarFromTheFirstIsFoundWithItsLine() {
        let error = refusal("1 a b\n1 c d\n1 e f\n1 a x\n1 a b\n2 the\n2 the\n")
        #expect(error?.problems == [
            .init(line: 5, message: "the pair \"a b\" is already listed; list each pair once"),
            .init(line: 7, message: "\"the\" is already listed on line 6; list each word once"),
        ])
    }

    @Test func addingCountsAndRefusingWhatIsNotAWord() {
        var words = WordList()
        let added = [
            words.add("hello"), words.add("hello", count: 2),
            words.add("world", after: "hello"), words.add("world", after: "hello", count: 4),
            words.add("two words"), words.add(""), words.add("x", count: 0), words.add("b", after: "a\tb"),
        ]
        #expect(added == [true, true, true, true, false, false, false, false])
        #expect(words.count(of: "hello") == 3)
        #expect(words.count(of: "world") == 0)
        #expect(words.count(of: "world", after: "hello") == 5)
        #expect(words.wordCount == 1 && words.pairCount == 1)
        words.add("big", count: WordList.maxCount)
        words.add("big", count: 5)
        #expect(words.count(of: "big") == WordList.maxCount, "counts stop at the largest the format allows")
    }

    @Test func removingAWordInAnyCaseTakesItsPairs() throws {
        var words = try list("5 Hello\n2 hello\n3 world\n1 world Hello\n1 hello there\n4 world there\n")
        let removed = words.remove("HELLO")
        #expect(removed)
        #expect(words == (try list("3 world\n4 world there\n")))
        let again = words.remove("hello")
        #expect(!again)
        let onlyInPairs = words.remove("there")
        #expect(onlyInPairs, "a word only in pairs is removed with them")
        #expect(words == (try list("3 world\n")))
    }

    @Test func sortedWordsAndPairs() throws {
        let words = try list("1 b\n3 a\n2 a b\n5 a c\n")
        #expect(words.sortedWords().map(\.word) == ["a", "b"])
        #expect(words.sortedWords().map(\.count) == [3, 1])
        #expect(words.sortedPairs().map { "\($0.first) \($0.second) \($0.count)" } == ["a c 5", "a b 2"])
    }
}

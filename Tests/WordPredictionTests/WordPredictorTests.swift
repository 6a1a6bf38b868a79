import Testing
import WordPrediction

/// A small language: counts chosen so that frequency alone gives a known order.
let small = """
    1000 the
    600 of
    500 and
    400 to
    300 I
    200 London
    150 long
    120 lonely
    100 they
    90 them
    80 then
    70 there
    60 cup
    50 tea
    40 eat
    30 apple
    20 pizza
    20 pasta
    10 I'm
    500 of the
    300 of them
    100 of tea
    50 cup of
    40 I am
    """

func predictor(_ text: String = small, user: String = "") throws -> WordPredictor {
    WordPredictor(system: try list(text), user: try list(user, file: "user.words"))
}

@Suite("Predictions: completions and next words")
struct WordPredictorTests {
    @Test func withNothingTypedTheMostFrequentWordsComeFirst() throws {
        let p = try predictor()
        #expect(p.predictions(after: "", count: 4) == ["the", "of", "and", "to"])
        #expect(p.predictions(after: "", count: 0) == [])
    }

    @Test func aPartialWordIsCompletedInAnyCaseAndSpelledAsTheListSpellsIt() throws {
        let p = try predictor()
        #expect(p.predictions(after: "lon", count: 5) == ["London", "long", "lonely"])
        #expect(p.predictions(after: "Lon", count: 5) == ["London", "long", "lonely"])
        #expect(p.predictions(after: "LONDO", count: 5) == ["London"])
        #expect(p.predictions(after: "i", count: 2) == ["I", "I'm"])
        #expect(p.predictions(after: "i’", count: 2) == ["I'm"], "the typographic apostrophe matches the plain one")
        #expect(p.predictions(after: "lonx", count: 5) == [])
    }

    @Test func theWordItselfIsAmongItsCompletions() throws {
        let p = try predictor()
        #expect(p.predictions(after: "the", count: 5) == ["the", "they", "them", "then", "there"])
        #expect(p.predictions(after: "then", count: 5) == ["then"])
        #expect(p.predictions(after: "a cup of tea", count: 5) == ["tea"])
    }

    @Test func afterAWordItsPairsComeFirstThenFrequency() throws {
        let p = try predictor()
        #expect(p.predictions(after: "a cup of ", count: 5) == ["the", "them", "tea", "of", "and"])
        #expect(p.predictions(after: "a cup of t", count: 3) == ["the", "them", "tea"])
        #expect(p.predictions(after: "a cup of te", count: 3) == ["tea"])
        #expect(p.predictions(after: "cup ", count: 2) == ["of", "the"])
        #expect(p.predictions(after: "London I ", count: 1) == ["am"], "a pair's word need not be a listed word")
    }

    @Test func aWordWithoutPairsFallsBackToFrequency() throws {
        let p = try predictor()
        #expect(p.predictions(after: "pizza ", count: 3) == ["the", "of", "and"])
        #expect(p.predictions(after: "unknownword ", count: 3) == ["the", "of", "and"])
        #expect(p.predictions(after: "unknownword th", count: 2) == ["the", "they"])
    }

    @Test func aSentenceStartHasNoPreviousWord() throws {
        let p = try predictor()
        #expect(p.predictions(after: "A cup of. ", count: 3) == ["the", "of", "and"])
        #expect(p.predictions(after: "A cup of!\nt", count: 3) == ["the", "to", "they"])
        #expect(p.predictions(after: "Tea? Of ", count: 2) == ["the", "them"], "a capital does not hide a known word")
    }

    @Test func equalScoresAreInByteOrderOfTheirSpellings() throws {
        let p = try predictor()
        #expect(p.predictions(after: "p", count: 2) == ["pasta", "pizza"])
        let q = try predictor("5 b\n5 a\n5 B\n5 c\n")
        #expect(q.predictions(after: "", count: 4) == ["B", "a", "b", "c"])
    }

    @Test func onlyTheEndOfALongTextMatters() throws {
        let p = try predictor()
        let long = String(repeating: "pizza and pasta. ", count: 20_000) + "a cup of t"
        #expect(p.predictions(after: long, count: 3) == p.predictions(after: "a cup of t", count: 3))
    }

    @Test func aWordTypedAFewTimesBeatsOneMerelyFrequent() throws {
        var p = try predictor()
        #expect(p.predictions(after: "p", count: 1) == ["pasta"])
        for _ in 0..<3 { p.learn("pizza", after: nil) }
        #expect(p.predictions(after: "p", count: 1) == ["pizza"])
        #expect(!p.predictions(after: "", count: 3).contains("pizza"), "three times in all is little against the language")
        for _ in 0..<100 { p.learn("pizza", after: nil) }
        #expect(p.predictions(after: "", count: 3).contains("pizza"), "typed often, it is among the first words of a sentence")
        #expect(p.user.count(of: "pizza") == 103)
    }

    /// Past `ageLimit` words the user's counts are halved: the old uses weigh half, those
    /// typed once long ago are gone, and the file stays bounded.
    @Test func theUsersCountsAge() throws {
        var list = WordList()
        list.add("often", count: Int(WordPredictor.ageLimit) - 2)
        list.add("once")
        list.add("often", after: "once", count: 1)
        list.add("once", after: "often", count: 6)
        var p = WordPredictor(system: try predictor().system, user: list)
        p.learn("lately", after: nil)
        #expect(p.user.count(of: "often") == Int(WordPredictor.ageLimit) - 2, "not past the limit yet")
        p.learn("lately", after: "often")
        #expect(p.user.count(of: "often") == (Int(WordPredictor.ageLimit) - 2) / 2)
        #expect(p.user.count(of: "lately") == 1, "typed once before the halving (gone) and once after")
        #expect(p.user.count(of: "once") == 0, "typed once, long ago: forgotten")
        #expect(p.user.count(of: "often", after: "once") == 0)
        #expect(p.user.count(of: "once", after: "often") == 3)
        #expect(p.user.count(of: "lately", after: "often") == 1, "the pair just typed is counted after the halving")
        #expect(p.predictions(after: "la", count: 1) == ["lately"])

        // A hand-made file far past the limit is brought under it at once.
        var huge = WordList()
        huge.add("big", count: WordList.maxCount)
        huge.add("small", count: 3)
        var q = WordPredictor(system: WordList(), user: huge)
        q.learn("new", after: nil)
        #expect(q.user.count(of: "big") > 0 && Double(q.user.count(of: "big")) <= WordPredictor.ageLimit)
        #expect(q.user.count(of: "small") == 0)
    }

    @Test func aLearnedPairPredictsTheNextWord() throws {
        var p = try predictor()
        #expect(p.predictions(after: "we eat ", count: 1) == ["the"])
        p.learn("eat", after: "we")
        p.learn("pasta", after: "eat")
        p.learn("pasta", after: "eat")
        #expect(p.predictions(after: "we eat ", count: 1) == ["pasta"])
        #expect(p.user.count(of: "pasta", after: "eat") == 2)
    }

    @Test func learningKeepsTheListsSpellings() throws {
        var p = try predictor()
        p.learn("The", after: nil)           // a sentence's capital
        p.learn("london", after: "in")       // typed in lowercase, known with its capital
        p.learn("Zebra", after: nil)         // new, capitalised at a sentence start
        p.learn("Quokka", after: "a")        // new, capitalised mid-sentence: a name
        p.learn("  tea ", after: "Of")
        p.learn("two words", after: nil)     // not a word: ignored
        p.learn("", after: nil)
        #expect(p.user == (try list("1 the\n1 London\n1 zebra\n1 Quokka\n1 tea\n1 in London\n1 a Quokka\n1 of tea\n")))
        p.learn("ZEBRA", after: "the")
        #expect(p.user.count(of: "zebra") == 2, "a learned word keeps its first spelling")
    }

    @Test func forgettingAWordTakesItsPairsAndLeavesTheLanguage() throws {
        var p = try predictor()
        p.learn("pizza", after: "eat")
        p.learn("pizza", after: nil)
        p.learn("eat", after: "pizza")
        let forgotten = [p.forget("PIZZA")]
        #expect(p.user == (try list("1 eat\n")))
        let forgottenAgain = [p.forget("pizza"), p.forget("nothing")]
        #expect(forgotten == [true] && forgottenAgain == [false, false])
        #expect(p.predictions(after: "p", count: 2) == ["pasta", "pizza"], "the language's own words stay")
    }

    @Test func forgettingAllEmptiesTheUserList() throws {
        var p = try predictor(user: "3 pizza\n2 eat pizza\n")
        #expect(p.predictions(after: "eat ", count: 1) == ["pizza"])
        p.forgetAll()
        #expect(p.user == WordList())
        #expect(p.predictions(after: "eat ", count: 1) == ["the"])
    }

    @Test func aUserListAloneStillPredicts() throws {
        let p = try predictor("", user: "3 pizza\n2 pasta\n1 eat pizza\n")
        #expect(p.predictions(after: "", count: 5) == ["pizza", "pasta"])
        #expect(p.predictions(after: "eat p", count: 5) == ["pizza", "pasta"])
        #expect(WordPredictor(system: WordList()).predictions(after: "any", count: 5) == [])
    }

    @Test func anotherUserListOnTheSameSystemPredictsAsAPredictorBuiltWithIt() throws {
        let system = try list(small)
        let learned = try list("3 pizza\n2 eat pizza\n4 lonesome\n2 cup tea\n1 pasta\n", file: "user.words")
        let built = WordPredictor(system: system, user: try list("9 quokka\n", file: "old.words"))
        let replaced = built.replacingUser(learned)
        let fresh = WordPredictor(system: system, user: learned)
        #expect(replaced.user == learned && replaced.system == system)
        let contexts = ["", "p", "eat ", "lon", "a cup ", "q", "we eat p"]
        for text in contexts {
            #expect(replaced.predictions(after: text, count: 5) == fresh.predictions(after: text, count: 5), "after \"\(text)\"")
        }
        #expect(replaced.predictions(after: "q", count: 5) == [], "the old user's words are gone")
        #expect(built.predictions(after: "q", count: 5) == ["quokka"], "the predictor it came from keeps its own")
        #expect(replaced.predictions(after: "eat ", count: 1) == ["pizza"])
        #expect(built.replacingUser(WordList()).predictions(after: "p", count: 5) == WordPredictor(system: system).predictions(after: "p", count: 5))
    }

    @Test func theSameQuestionGetsTheSameAnswer() throws {
        let p = try predictor()
        let q = try predictor()
        for text in ["", "t", "of ", "a cup of t", "I ", "lon"] {
            #expect(p.predictions(after: text, count: 5) == q.predictions(after: text, count: 5))
        }
    }
}

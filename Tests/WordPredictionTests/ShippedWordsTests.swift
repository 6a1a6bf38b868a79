import Foundation
import Testing
import WordPrediction

/// Words/en.words, read once for every test here.
let shippedEnglish: (bytes: [UInt8], list: WordList?) = {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Words/en.words")
    let bytes = (try? Data(contentsOf: url)).map { [UInt8]($0) } ?? []
    return (bytes, try? WordList(parsing: bytes, file: "Words/en.words"))
}()

@Suite("The shipped English list")
struct ShippedWordsTests {
    @Test func itLoadsWithFiftyThousandWordsAndTheirPairs() throws {
        let list = try #require(shippedEnglish.list, "Words/en.words is missing or does not load")
        #expect(list.wordCount >= 50_000)
        #expect(list.pairCount >= 50_000)
    }

    @Test func itIsItsOwnSerialization() throws {
        let list = try #require(shippedEnglish.list)
        let lines = String(decoding: shippedEnglish.bytes, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(String(decoding: list.serialized(), as: UTF8.self) == lines.joined(separator: "\n") + "\n")
    }

    @Test func itPredictsPlainEnglish() throws {
        let p = WordPredictor(system: try #require(shippedEnglish.list))
        #expect(p.predictions(after: "", count: 5).contains("the"))
        #expect(p.predictions(after: "th", count: 5).first == "the")
        #expect(p.predictions(after: "I would like a cup of ", count: 5).contains("the"))
        #expect(p.predictions(after: "i", count: 5).contains("I"), "the pronoun is spelled with its capital")
        #expect(p.predictions(after: "I'", count: 5).contains("I'm"))
        #expect(p.predictions(after: "lond", count: 5).first == "London")
        #expect(p.predictions(after: "the united ", count: 5).contains("states"))
        #expect(p.predictions(after: "I ", count: 5).contains("am"))
        #expect(p.predictions(after: "We are going ", count: 5).contains("to"))
        #expect(p.predictions(after: "I would like to thank ", count: 5).first == "you")
    }

    /// The trial's letter, learned as the keyboard learns it (a word, after the one before
    /// it in its sentence).
    static func letterLearned() throws -> WordPredictor {
        var p = WordPredictor(system: try #require(shippedEnglish.list))
        for sentence in [["Dear", "Sam"], ["the", "meeting", "moved", "to", "Friday", "at", "3pm"], ["Thanks"]] {
            var previous: String?
            for word in sentence { p.learn(word, after: previous); previous = word }
        }
        return p
    }

    /// A letter's words, typed once, do not crowd out the language's: after "the" the words
    /// that follow "the" in English, at an empty field English's commonest words.
    @Test func wordsTypedOnceDoNotCrowdOutTheLanguage() throws {
        let fresh = WordPredictor(system: try #require(shippedEnglish.list))
        let p = try Self.letterLearned()
        let afterThe = p.predictions(after: "Dear Sam, the ", count: 5)
        #expect(!afterThe.contains("Sam") && !afterThe.contains("dear") && !afterThe.contains("Dear"), "\(afterThe)")
        #expect(afterThe.contains("meeting"), "the one pair the user wrote after \"the\": \(afterThe)")
        let empty = p.predictions(after: "", count: 5)
        #expect(empty == fresh.predictions(after: "", count: 5), "an empty field: \(empty)")
        #expect(p.predictions(after: "I will see you on ", count: 5) == fresh.predictions(after: "I will see you on ", count: 5))
    }

    /// What the user typed still comes first when its letters are typed, and a phrase typed
    /// twice comes back whole.
    @Test func aLearnedWordCompletesAndAPhraseTypedTwiceComesBack() throws {
        var p = try Self.letterLearned()
        #expect(p.predictions(after: "We meet on Fr", count: 1) == ["Friday"])
        #expect(p.predictions(after: "Dear S", count: 1) == ["Sam"])
        let fresh = WordPredictor(system: try #require(shippedEnglish.list))
        #expect(!fresh.predictions(after: "switch ", count: 5).contains("access"))
        for _ in 0..<2 { p.learn("switch", after: nil); p.learn("access", after: "switch") }
        #expect(p.predictions(after: "switch ", count: 5).contains("access"))
        #expect(p.predictions(after: "sw", count: 1) == ["switch"])
    }

    /// Used often, the user's own words lead at the start of a sentence too.
    @Test func aWordUsedOftenLeads() throws {
        var p = WordPredictor(system: try #require(shippedEnglish.list))
        for _ in 0..<30 { p.learn("Sam", after: nil) }
        #expect(p.predictions(after: "", count: 5).contains("Sam"))
    }
}


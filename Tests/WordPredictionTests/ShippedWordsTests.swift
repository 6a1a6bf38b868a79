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
}

import Foundation
import Testing

/// `switchscan cost` with a late person (`reactionSpread`, `--reaction`, `--spread`) and
/// `--suggest`: the rows keep their error-free seconds and add the expected ones; the
/// summary adds the error rate; the suggestion is the timing that makes the person fastest.
@Suite("switchscan cost, a late person")
struct CostLateCommandTests {
    static func objects(_ lines: [String]) throws -> [[String: Any]] {
        try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    @Test func rowsAddExpectedSecondsAndTheSummaryAnErrorRate() throws {
        try withTempDir { dir in try rowsAndSummary(try dir.write("s.json", #"{"autoScanInterval": 0.8}"#)) }
    }

    func rowsAndSummary(_ settings: String) throws {
        let late = try CLI.run(["cost", "Layouts/switch-control.uikit.json", "--json", "--reaction", "0.5", "--spread", "0.15", "--settings", settings])
        let onTime = try CLI.run(["cost", "Layouts/switch-control.uikit.json", "--json", "--reaction", "0.5", "--settings", settings])
        #expect(late.status == 0 && onTime.status == 0, "\(late)\n\(onTime)")
        let a = try Self.objects(late.stdoutLines), b = try Self.objects(onTime.stdoutLines)
        #expect(a.count == b.count)
        for (x, y) in zip(a.dropLast(), b.dropLast()) {
            // The error-free path is the same, so it still replays exactly.
            #expect(x["seconds"] as? Double == y["seconds"] as? Double)
            #expect(x["pressTimes"] as? [Double] == y["pressTimes"] as? [Double])
            #expect(y["expectedSeconds"] as? Double == y["seconds"] as? Double)
            let expected = try #require(x["expectedSeconds"] as? Double), seconds = try #require(x["seconds"] as? Double)
            #expect(expected > seconds && expected < seconds * 2, "\(x)")
        }
        let s = try #require(a.last?["summary"] as? [String: Any]), t = try #require(b.last?["summary"] as? [String: Any])
        let rate = try #require(s["errorRate"] as? Double)
        // At 0.8 s a step one press in 44 comes too late.
        #expect(rate > 0.01 && rate < 0.04, "\(s)")
        #expect(t["errorRate"] as? Double == 0)
        #expect(try #require(s["expectedMeanSeconds"] as? Double) > (try #require(s["meanSeconds"] as? Double)))
        // For people: a column and a line under the summary.
        let table = try CLI.run(["cost", "Layouts/switch-control.uikit.json", "--reaction", "0.5", "--spread", "0.15", "--settings", settings])
        #expect(table.stdout.hasPrefix("seconds  expected  presses  element\n"), "\(table.stdout)")
        #expect(table.stdoutLines.last?.hasPrefix("A person who presses 0.50 ± 0.15 s after the highlight: a mean of ") == true, "\(table.stdout)")
    }

    @Test func aTextGetsExpectedWordsAMinute() throws {
        try withTempDir { dir in
            let words = try TextCostCommandTests.fewWords(in: dir)
            let settings = try dir.write("s.json", #"{"autoScanInterval": 0.7}"#)
            let r = try CLI.run(["cost", "--text", "see you soon", "--words", words, "--json", "--reaction", "0.5", "--spread", "0.15", "--settings", settings])
            #expect(r.status == 0, "\(r)")
            let objects = try Self.objects(r.stdoutLines)
            let row = try #require(objects.first), summary = try #require(objects.last?["summary"] as? [String: Any])
            #expect(try #require(row["expectedSeconds"] as? Double) > (try #require(row["seconds"] as? Double)))
            let wpm = try #require(summary["wordsPerMinute"] as? Double), expected = try #require(summary["expectedWordsPerMinute"] as? Double)
            #expect(expected < wpm && expected > wpm / 3, "\(summary)")
            #expect(try #require(summary["errorRate"] as? Double) > 0.03)
        }
    }

    /// For 0.5 ± 0.15 s on the keyboard in rows the best interval is 0.8 s, near the rule of
    /// thumb (0.77 s); the shorter and longer ones around it are slower.
    @Test func suggestFindsTheFastestIntervalForTheLatePerson() throws {
        try withTempDir { dir in
            let settings = try dir.write("rows.json", #"{"grouping": "rowColumn"}"#)
            let r = try CLI.run(["cost", "Layouts/keyboard.json", "--settings", settings, "--reaction", "0.5", "--spread", "0.15", "--suggest", "--json"])
            #expect(r.status == 0, "\(r)")
            let objects = try Self.objects(r.stdoutLines)
            let suggested = try #require(objects.last?["suggested"] as? [String: Any])
            #expect(suggested["autoScanInterval"] as? Double == 0.8, "\(suggested)")
            let best = try #require(suggested["expectedMeanSeconds"] as? Double)
            let tried = objects.dropLast().compactMap { o -> (Double, Double)? in
                guard let i = o["autoScanInterval"] as? Double, let m = o["expectedMeanSeconds"] as? Double else { return nil }
                return (i, m)
            }
            #expect(tried.count > 10)
            #expect(tried.allSatisfy { $0.1 >= best - 1e-9 })
            #expect(try #require(tried.first { $0.0 == 0.6 }).1 > best + 1 && (try #require(tried.first { $0.0 == 1.2 }).1) > best + 1)
            let people = try CLI.run(["cost", "Layouts/keyboard.json", "--settings", settings, "--reaction", "0.5", "--spread", "0.15", "--suggest"])
            #expect(people.stdout.contains("Suggested: autoScanInterval 0.8, pauseOnFirstItem 0:"), "\(people.stdout)")
            #expect(people.stdout.contains("reaction time / 0.65, gives 0.77 s"), "\(people.stdout)")
        }
    }

    @Test func suggestSaysWhatItNeeds() throws {
        let noSpread = try CLI.run(["cost", "Layouts/keyboard.json", "--suggest"])
        #expect(noSpread.status != 0 && noSpread.stderr.contains("--suggest needs the person's reactionSpread"), "\(noSpread)")
        let step = try CLI.run(["cost", "Layouts/keyboard.json", "--suggest", "--spread", "0.1", "--style", "step"])
        #expect(step.status != 0 && step.stderr.contains("--suggest times auto scanning"), "\(step)")
        let badSpread = try CLI.run(["cost", "Layouts/keyboard.json", "--spread=-1"])
        #expect(badSpread.status == 64 && badSpread.stderr.contains("--spread takes 0 to 2 seconds"), "\(badSpread)")
        let messages = try CLI.run(["cost", "--messages", "--suggest", "--spread", "0.1"])
        #expect(messages.status == 64, "\(messages)")
    }
}

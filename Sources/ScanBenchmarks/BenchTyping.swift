import ArgumentParser
import CommandSupport
import Foundation
import ScanCore
import ScanFormats
import ScanHost
import ScanRuntime
import ScanSession
import WordPrediction

struct BenchTyping: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "typing",
        abstract: "Load the word list (time and memory), then type a text keystroke by keystroke, predicting at each; latency in ms.",
        discussion: """
        Each load reads the file, parses it and builds the predictor, as the keyboard does at \
        start. Memory is the process's resident size (VmRSS in /proc/self/status) before and \
        after the first load, which is kept. The text is replayed one character at a time: after each \
        character, and before the first, the predictor is asked for --count words. The \
        keystroke saving counts a word as chosen from the predictions as soon as they show it \
        (one press, its space included), against typing every character.
        """
    )

    @Option(name: .customLong("text-file"), help: "The text to type, one phrase a line.")
    var textFile = "Examples/phrases.txt"

    @Option(help: "The word list (default: the bundled Words/en.words).")
    var words: String?

    @Option(help: "How many times to load the list.")
    var loads = 10

    @Option(help: "Words asked for at each keystroke.")
    var count = 5

    @Flag(help: "Learn each word as it is finished, as the keyboard does (the user's list starts empty, or with --learned).")
    var learn = false

    @Option(help: "Start from a user's list of this many learned words (made up: letters at random, counts falling off as in real use, as many pairs as words), as a user who has typed for years.")
    var learned = 0

    @Flag(help: "Print one JSON object instead of the report.")
    var json = false

    @Flag(help: "Time typing into the live desktop instead: a key and an AT-SPI insert to the text in the application, that an insert waits for the keys before it, and a text field to the keyboard drawn (needs a display and an application with a text field).")
    var desktop = false

    @Option(help: "With --desktop: the application (default: the one 'run --desktop' would scan).")
    var app: String?

    @Option(help: "With --desktop: samples of each latency.")
    var repeats = 100

    func validate() throws {
        guard (1...1000).contains(loads) else { throw ValidationError("--loads takes 1 to 1000") }
        guard (1...100).contains(count) else { throw ValidationError("--count takes 1 to 100") }
        guard (1...10_000).contains(repeats) else { throw ValidationError("--repeats takes 1 to 10000") }
        guard (0...10_000_000).contains(learned) else { throw ValidationError("--learned takes 0 to 10000000") }
        if app != nil && !desktop { throw ValidationError("--app goes with --desktop") }
    }

    func run() throws {
        if desktop { return try runDesktop() }
        let listPath = words ?? BundledData.wordList(language: "en")
        let text: [UInt8]
        do { text = try readFile(textFile, what: "text file", limit: 64 << 20, streams: true) } catch {
            throw fail(error.description + " Give the text to type with --text-file FILE (one phrase a line).")
        }
        let phrases = String(decoding: text, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
            .filter { !$0.hasPrefix("#") }

        // Loads: the first one kept, for the memory it adds and for the typing.
        let rssBefore = residentKiB()
        var rssAfter = 0
        var loadTimes: [Int64] = []
        var predictor: WordPredictor?
        var fileSize = 0
        for _ in 0..<loads {
            let t0 = MonotonicClock.now()
            let bytes: [UInt8]
            do { bytes = try readFile(listPath, what: "word list", limit: WordsFile.maxFileSize) } catch { throw fail(error.description) }
            fileSize = bytes.count
            let loaded: WordPredictor
            do { loaded = WordPredictor(system: try WordList(parsing: bytes, file: listPath)) } catch { throw fail(error.description) }
            loadTimes.append((MonotonicClock.now() - t0).nanoseconds)
            if predictor == nil {
                predictor = loaded
                rssAfter = residentKiB()
            }
        }
        var typist = predictor!
        var userBuilt = 0.0
        if learned > 0 {
            let list = Self.madeUpUserList(learned)
            let t0 = MonotonicClock.now()
            typist = typist.replacingUser(list)
            userBuilt = Double((MonotonicClock.now() - t0).nanoseconds) / 1e6
        }

        // The time each prediction took, and the processor time its thread spent on it: on a
        // busy machine the first includes waits for a processor, the second does not.
        var latencies: [Int64] = [], cpu: [Int64] = []
        var typed = 0, pressed = 0
        for phrase in phrases {
            let chars = Array(phrase)
            var shown: [[String]] = []
            for i in 0...chars.count {
                // A word just finished: learned with the word before it, as the keyboard would.
                if learn, i > 0, Self.isWordCharacter(chars[i - 1]), i == chars.count || !Self.isWordCharacter(chars[i]) {
                    let context = WordContext(textBefore: String(chars[0..<i]))
                    typist.learn(context.partial, after: context.previous)
                }
                let before = String(chars[0..<i])
                let t0 = MonotonicClock.now(), c0 = threadCPUTime()
                let words = typist.predictions(after: before, count: count)
                latencies.append((MonotonicClock.now() - t0).nanoseconds)
                cpu.append(threadCPUTime().nanoseconds - c0.nanoseconds)
                shown.append(words)
            }
            let (withoutPredictions, withPredictions) = Self.keystrokes(chars, shown: shown)
            typed += withoutPredictions
            pressed += withPredictions
        }

        let load = Summary(loadTimes)
        let sortedLoads = loadTimes.sorted()
        let loadMedian = Double(sortedLoads[sortedLoads.count / 2]) / 1e6
        let latency = Summary(latencies), processor = Summary(cpu)
        let saved = typed > 0 ? 100 * Double(typed - pressed) / Double(typed) : 0
        let list = predictor!.system
        if json {
            writeOut("{\"words\":\(list.wordCount),\"pairs\":\(list.pairCount),\"file_mb\":\(r2(Double(fileSize) / 1_048_576)),"
                + "\"load_min_ms\":\(r2(Double(sortedLoads[0]) / 1e6)),\"load_median_ms\":\(r2(loadMedian)),\"load_p99_ms\":\(r2(load.p99 / 1000)),"
                + "\"load_first_ms\":\(r2(Double(loadTimes[0]) / 1e6)),\"learned\":\(typist.user.wordCount),\"learned_index_ms\":\(r2(userBuilt)),"
                + "\"rss_before_mb\":\(r2(Double(rssBefore) / 1024)),\"rss_after_mb\":\(r2(Double(rssAfter) / 1024)),"
                + "\"predictions\":\(latencies.count),\"p50_ms\":\(Self.ms(latency.p50)),\"p99_ms\":\(Self.ms(latency.p99)),\"max_ms\":\(Self.ms(latency.max)),"
                + "\"cpu_p50_ms\":\(Self.ms(processor.p50)),\"cpu_p99_ms\":\(Self.ms(processor.p99)),\"cpu_max_ms\":\(Self.ms(processor.max)),"
                + "\"keystrokes\":\(typed),\"keystrokes_with_predictions\":\(pressed),\"saved_percent\":\(r1(saved))}\n")
            return
        }
        writeOut("""
            Word list: \(listPath) (\(r2(Double(fileSize) / 1_048_576)) MB): \(list.wordCount) words, \(list.pairCount) pairs
            Load (read, parse, index) × \(loads): min \(r2(Double(sortedLoads[0]) / 1e6)) ms, median \(r2(loadMedian)) ms, p99 \(r2(load.p99 / 1000)) ms; the first \(r2(Double(loadTimes[0]) / 1e6)) ms
            Memory (VmRSS): \(r1(Double(rssBefore) / 1024)) MB before loading, \(r1(Double(rssAfter) / 1024)) MB after (+\(r1(Double(rssAfter - rssBefore) / 1024)) MB)
            Learned words: \(learned > 0 ? "\(typist.user.wordCount) words and \(typist.user.pairCount) pairs (made up; the predictor's index of them took \(r2(userBuilt)) ms)" : "none")
            Typing \(textFile): \(phrases.count) phrases, \(latencies.count) predictions of \(count) words\(learn ? ", learning each word" : "")
            Prediction: p50 \(Self.ms(latency.p50)) ms, p99 \(Self.ms(latency.p99)) ms, max \(Self.ms(latency.max)) ms; processor time p50 \(Self.ms(processor.p50)) ms, p99 \(Self.ms(processor.p99)) ms, max \(Self.ms(processor.max)) ms
            Keystrokes: \(typed) typing every character, \(pressed) choosing predictions (\(r1(saved))% saved)

            """)
    }

    static func ms(_ microseconds: Double) -> String { String(format: "%.3f", microseconds / 1000) }

    /// `n` learned words of 2 to 9 letters, the same every run, counted as a person's use
    /// falls off (a few words typed thousands of times, most once or twice), and `n` pairs.
    static func madeUpUserList(_ n: Int) -> WordList {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        var lines: [UInt8] = []
        var words: [[UInt8]] = []
        var seen = Set<[UInt8]>()
        while words.count < n {
            let length = 2 + Int(next() % 8)
            let word = (0..<length).map { _ in UInt8(ascii: "a") + UInt8(next() % 26) }
            guard seen.insert(word).inserted else { continue }
            words.append(word)
            lines += Array(String(max(1, 100_000 / (words.count + 10))).utf8) + [0x20] + word + [0x0A]
        }
        var pairs = Set<UInt64>()
        while pairs.count < n {
            // Pairs start mostly at the frequent words, as they do in real text.
            let first = Int(next() % UInt64(min(n, 1 + Int(next() % UInt64(n)))))
            let second = Int(next() % UInt64(n))
            guard pairs.insert(UInt64(first) << 32 | UInt64(second)).inserted else { continue }
            lines += Array("1 ".utf8) + words[first] + [0x20] + words[second] + [0x0A]
        }
        return (try? WordList(parsing: lines, file: "learned")) ?? WordList()
    }

    static func isWordCharacter(_ c: Character) -> Bool {
        c.isLetter || c.isNumber || c == "'" || c == "’" || c == "-"
    }

    /// Keystrokes for a phrase typed character by character, and with a word chosen from
    /// the predictions (`shown[i]`: those shown after i characters) as soon as they show
    /// it: one press for the rest of the word and the space after it.
    static func keystrokes(_ chars: [Character], shown: [[String]]) -> (Int, Int) {
        var without = 0, with = 0
        var i = 0
        while i < chars.count {
            guard isWordCharacter(chars[i]) else { without += 1; with += 1; i += 1; continue }
            var end = i
            while end < chars.count && isWordCharacter(chars[end]) { end += 1 }
            let word = String(chars[i..<end]).lowercased()
            let space = end < chars.count && chars[end] == " " ? 1 : 0
            without += end - i + space
            if let j = (i..<end).first(where: { p in shown[p].contains { $0.lowercased() == word } }) {
                with += j - i + 1
            } else {
                with += end - i + space
            }
            i = end + space
        }
        return (without, with)
    }

    /// The process's resident memory in KiB (VmRSS in /proc/self/status), 0 if unknown.
    func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}

import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `switchscan cost`: JSON lines with a summary last; each element's press times, given to
/// `simulate` as an events file, activate it at exactly its seconds.
@Suite("switchscan cost")
struct CostCommandTests {
    @Test func jsonLinesThenASummaryAndSimulateAgrees() throws {
        let r = try CLI.run(["cost", "Layouts/switch-control.uikit.json", "--json"])
        #expect(r.status == 0, "\(r)")
        let objects = try r.stdoutLines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let summary = try #require(objects.last?["summary"] as? [String: Any])
        let elements = objects.dropLast()
        #expect(summary["elements"] as? Int == elements.count)
        #expect(elements.map { $0["element"] as? String } == ["test1", "test2", "btn1", "btn2", "btn5", "btn6"])
        try withTempDir { dir in
            for e in elements {
                let id = try #require(e["element"] as? String)
                let presses = try #require(e["pressTimes"] as? [Double])
                #expect(e["presses"] as? Int == presses.count)
                let raw = try #require(r.stdoutLines.first { $0.contains("\"element\": \"\(id)\"") })
                // The times exactly as printed, so that nothing is lost in a conversion.
                let times = raw.split(separator: "[")[1].split(separator: "]")[0].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                let events = try dir.write("\(id).events", times.map { "\($0) select" }.joined(separator: "\n") + "\n")
                let sim = try CLI.run(["simulate", "Layouts/switch-control.uikit.json", "--events", events])
                let activation = sim.stdoutLines.first { $0.contains("\"effect\":\"activate\"") }
                let seconds = try #require(e["seconds"] as? Double)
                #expect(activation?.contains("\"t\":\(String(format: "%.3f", seconds)),") == true, "\(id): \(activation ?? "no activation")")
                #expect(activation?.contains("\"element\":\"\(id)\"") == true, "\(id)")
            }
        }
    }

    /// Scanning by ear: each highlight lasts as long as its label takes to say (estimated
    /// from its length and speakingRate), so reaching an element takes longer; `simulate`
    /// with the same settings replays each element's press times to its activation.
    @Test func scanningByEarCostsEachLabelsTimeAndSimulateAgrees() throws {
        try withTempDir { dir in
            let plain = try dir.write("plain.json", #"{"speech": true, "autoScanInterval": 0.35}"#)
            let paced = try dir.write("paced.json", #"{"speech": true, "speechPacing": true, "autoScanInterval": 0.35}"#)
            func run(_ settings: String) throws -> (lines: [String], summary: [String: Any]) {
                let r = try CLI.run(["cost", "Layouts/switch-control.uikit.json", "--settings", settings, "--json"])
                #expect(r.status == 0, "\(r)")
                let last = try #require(try JSONSerialization.jsonObject(with: Data(r.stdoutLines.last!.utf8)) as? [String: Any])
                return (r.stdoutLines.dropLast(), try #require(last["summary"] as? [String: Any]))
            }
            let (_, unpaced) = try run(plain)
            let (lines, summary) = try run(paced)
            let slower = try #require(summary["meanSeconds"] as? Double), faster = try #require(unpaced["meanSeconds"] as? Double)
            #expect(slower > faster, "paced \(slower) s, not paced \(faster) s")
            #expect(lines.count == 6)
            for raw in lines {
                let id = String(raw.split(separator: "\"element\": \"")[1].prefix { $0 != "\"" })
                let times = raw.split(separator: "[")[1].split(separator: "]")[0].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                let events = try dir.write("\(id).events", times.map { "\($0) select" }.joined(separator: "\n") + "\n")
                let sim = try CLI.run(["simulate", "Layouts/switch-control.uikit.json", "--settings", paced, "--events", events])
                let seconds = String(raw.split(separator: "\"seconds\": ")[1].prefix { $0 != "," })
                let activation = sim.stdoutLines.first { $0.contains("\"effect\":\"activate\"") }
                #expect(activation?.contains("\"t\":\(String(format: "%.3f", Double(seconds)!)),") == true, "\(id): \(activation ?? "no activation")")
            }
            let table = try CLI.run(["cost", "Layouts/switch-control.uikit.json", "--settings", paced])
            #expect(table.stdoutLines.last?.hasSuffix("(auto scanning, grouping: layout, each label said at 190 words a minute)") == true, "\(table)")
        }
    }

    /// `cost --messages`: each phrase of the file is said within 4 selections of the message
    /// screen's start with the default settings (one past the first page within 6: the row with
    /// More, and More), and `simulate --messages` with the same phrases replays each phrase's press
    /// times to its `speak` at exactly its seconds.
    @Test func aPhraseIsSaidWithinFourSelectionsAndSimulateAgrees() throws {
        try withTempDir { dir in
            let phrases = try dir.write("phrases.txt", (1...30).map { "Phrase number \($0)" }.joined(separator: "\n") + "\n")
            let r = try CLI.run(["cost", "--messages", "--phrases", phrases, "--json"])
            #expect(r.status == 0, "\(r)")
            let rows = r.stdoutLines.dropLast()
            #expect(rows.count == 30)
            for (k, raw) in rows.enumerated() {
                let row = try #require(try JSONSerialization.jsonObject(with: Data(raw.utf8)) as? [String: Any])
                #expect(row["phrase"] as? String == "Phrase number \(k + 1)")
                #expect((row["presses"] as? Int ?? 99) <= (k < 24 ? 4 : 6), "\(raw)")
                guard k == 0 || k == 23 || k == 29 else { continue }
                let times = raw.split(separator: "[")[1].split(separator: "]")[0].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                let events = try dir.write("p\(k).events", times.map { "\($0) select" }.joined(separator: "\n") + "\n")
                let sim = try CLI.run(["simulate", "--messages", "--phrases", phrases, "--events", events])
                let said = sim.stdoutLines.first { $0.contains("\"effect\":\"speak\"") }
                let seconds = try #require(row["seconds"] as? Double)
                #expect(said?.contains("\"t\":\(String(format: "%.3f", seconds)),") == true, "\(k): \(said ?? "nothing said")")
                #expect(said?.contains("\"text\":\"Phrase number \(k + 1)\"") == true, "\(said ?? "")")
            }
            let table = try CLI.run(["cost", "--messages", "--phrases", phrases])
            #expect(table.stdoutLines.last?.hasPrefix("30 phrases: mean ") == true, "\(table)")
            let none = try dir.write("none.txt", "# nothing yet\n")
            let empty = try CLI.run(["cost", "--messages", "--phrases", none])
            #expect(empty.status != 0 && empty.stderr.contains("has no phrase to say"), "\(empty)")
            // Settings that start in point mode cost the screen item by item; manual scanning
            // counts its next presses; a reaction slower than the interval is refused.
            let point = try dir.write("point.json", #"{"mode": "point"}"#)
            let pointed = try CLI.run(["cost", "--messages", "--phrases", phrases, "--settings", point, "--json"])
            #expect(pointed.status == 0 && pointed.stdoutLines.first == rows.first, "\(pointed)")
            let manual = try dir.write("manual.json", #"{"style": "manual"}"#)
            let stepped = try CLI.run(["cost", "--messages", "--phrases", phrases, "--settings", manual, "--json"])
            #expect(stepped.status == 0 && stepped.stdoutLines.first?.contains("\"nextTimes\": [") == true, "\(stepped)")
            let slow = try dir.write("slow.json", #"{"reactionTime": 1.5}"#)
            let refused = try CLI.run(["cost", "--messages", "--phrases", phrases, "--settings", slow])
            #expect(refused.status != 0 && refused.stderr.contains("reactionTime must be shorter than autoScanInterval"), "\(refused)")
            let mixed = try CLI.run(["cost", "--messages", "--text", "hello"])
            #expect(mixed.status != 0 && mixed.stderr.contains("--messages costs the message screen's phrases"), "\(mixed)")
        }
    }

    @Test func oneElementAndWeightsThatAreAllZeroAreSaidAsTheyAre() throws {
        try withTempDir { dir in
            let one = try dir.write("one.json", """
                {"schemaVersion": 1, "screen": {"id": "one", "title": "One", "size": {"width": 100, "height": 100}},
                 "root": {"id": "window", "isAccessibilityElement": false, "frame": {"x": 0, "y": 0, "width": 100, "height": 100},
                  "children": [{"id": "ok", "label": "OK", "traits": ["button"], "frame": {"x": 10, "y": 10, "width": 50, "height": 30}}]}}
                """)
            let zero = try dir.write("zero.json", #"{"weights": {"ok": 0}}"#)
            let r = try CLI.run(["cost", one, "--settings", zero])
            #expect(r.status == 0, "\(r)")
            #expect(r.stdoutLines.last?.hasPrefix("1 element: mean 0.60 s") == true, "\(r.stdout)")
            #expect(r.stdoutLines.last?.contains("no weighted mean (every weight is 0)") == true, "\(r.stdout)")
            let json = try CLI.run(["cost", one, "--settings", zero, "--json"])
            #expect(json.stdoutLines.last?.contains(#""weightedMeanSeconds": null,"#) == true, "\(json.stdout)")
        }
    }

    @Test func aTableForPeopleAndClearRefusals() throws {
        let r = try CLI.run(["cost", "Layouts/mail-inbox.json"])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("seconds  presses  element\n"))
        #expect(r.stdoutLines.last?.hasPrefix("15 elements: mean ") == true, "\(r.stdout)")
        try withTempDir { dir in
            let slow = try dir.write("slow.json", #"{"reactionTime": 1.5, "autoScanInterval": 1}"#)
            let refused = try CLI.run(["cost", "Layouts/mail-inbox.json", "--settings", slow])
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("reactionTime must be shorter than autoScanInterval"), "\(refused.stderr)")
            let bad = try dir.write("bad.json", #"{"grouping": "optimum", "reactionTime": 0.01, "weights": {"msg1": -1}}"#)
            let invalid = try CLI.run(["cost", "Layouts/mail-inbox.json", "--settings", bad])
            #expect(invalid.status == 2)
            #expect(invalid.stderr.contains("$.grouping") && invalid.stderr.contains("did you mean \"optimal\"?"), "\(invalid.stderr)")
            #expect(invalid.stderr.contains("$.reactionTime") && invalid.stderr.contains("between 0.06 and 5"), "\(invalid.stderr)")
            #expect(invalid.stderr.contains("$.weights.msg1"), "\(invalid.stderr)")
        }
        let none = try CLI.run(["cost"])
        #expect(none.status == 64)
    }

    /// `cost` takes the scanning options `run` and `simulate` take (the style too) and the
    /// desktop as its target with the same rules.
    @Test func theScanningAndTargetOptionsAreRunsOwn() throws {
        func meanSeconds(_ extra: [String]) throws -> String {
            let r = try CLI.run(["cost", "Layouts/mail-inbox.json"] + extra)
            #expect(r.status == 0, "\(r)")
            return r.stdoutLines.last ?? ""
        }
        let auto = try meanSeconds([]), step = try meanSeconds(["--style", "step"])
        #expect(auto.contains("auto scanning") && step.contains("step scanning"), "\(auto)\n\(step)")
        #expect(auto != step)
        for args in [["cost", "Layouts/mail-inbox.json", "--app", "gedit"], ["run", "--app", "gedit", "--no-devices"]] {
            let r = try CLI.run(args)
            #expect(r.status == 64 && r.stderr.contains("--app goes with --desktop"), "\(args): \(r)")
        }
        for (args, given) in [(["cost", "Layouts/mail-inbox.json", "--desktop"], "the layout"), (["run", "--layout", "Layouts/mail-inbox.json", "--desktop"], "--layout")] {
            let r = try CLI.run(args)
            #expect(r.status == 64 && r.stderr.contains("leave out \(given), or leave out --desktop"), "\(args): \(r)")
        }
    }
}

/// `switchscan cost --text-file`: a text a line however the lines end, errors that quote an
/// excerpt with its place, rows as they are costed, and time linear in a text's length.
@Suite("switchscan cost --text and --text-file")
struct TextCostCommandTests {
    /// A few words to predict from, for the tests whose subject is not the English list (which
    /// takes seconds to load in a debug build with a sanitizer).
    static func fewWords(in dir: TempDir) throws -> String {
        try dir.write("few.words", "5 see\n3 you\n2 soon\n1 hello\n1 there\n")
    }

    @Test(arguments: ["see you soon\r\nhello there\r\n", "see you soon\r\nhello there\r", "see you soon\nhello there"])
    func eachLineIsATextHoweverItEnds(_ content: String) throws {
        try withTempDir { dir in
            let file = try dir.write("phrases.txt", content)
            let r = try CLI.run(["cost", "--text-file", file, "--words", try Self.fewWords(in: dir)])
            #expect(r.status == 0, "\(r)")
            #expect(r.stdoutLines.count == 4, "\(r)")
            #expect(r.stdoutLines.dropFirst().first?.hasSuffix("  see you soon") == true, "\(r)")
            #expect(r.stdoutLines.dropFirst(2).first?.hasSuffix("  hello there") == true, "\(r)")
            #expect(r.stdoutLines.last?.hasPrefix("2 texts, 23 characters: ") == true, "\(r)")
        }
    }

    /// `--learn`: each text's words are learned for the texts after it, as `run` learns
    /// them; not in a field that learns nothing; without it every text starts afresh.
    @Test func withLearnLaterTextsArePredictedFromEarlierOnes() throws {
        try withTempDir { dir in
            let words = try Self.fewWords(in: dir)
            let file = try dir.write("twice.txt", "zebra crossing\nzebra crossing\n")
            func presses(_ extra: [String]) throws -> [Int] {
                let r = try CLI.run(["cost", "--text-file", file, "--words", words, "--json"] + extra)
                #expect(r.status == 0, "\(r)")
                return r.stdoutLines.dropLast().compactMap { line in
                    line.range(of: "\"presses\": ").flatMap { Int(line[$0.upperBound...].prefix { $0.isNumber }) }
                }
            }
            let plain = try presses([]), learning = try presses(["--learn"])
            let fileName = try presses(["--field", "fileName"]), fileNameLearning = try presses(["--learn", "--field", "fileName"])
            #expect(plain.count == 2 && plain[0] == plain[1], "\(plain)")
            #expect(learning.count == 2 && learning[0] == plain[0] && learning[1] < plain[1] - 8, "the second time both words are predicted: \(learning) \(plain)")
            #expect(fileName.count == 2 && fileNameLearning == fileName, "a file name teaches nothing: \(fileNameLearning) \(fileName)")
            let human = try CLI.run(["cost", "--text-file", file, "--words", words, "--learn"])
            #expect(human.stdoutLines.last?.hasSuffix(", learning as it types)") == true, "\(human)")
            let refused = try CLI.run(["cost", "--text", "zebra", "--words", words, "--learn"])
            #expect(refused.status != 0 && refused.stderr.contains("--learn goes with --text-file"), "\(refused)")
        }
    }

    @Test func anErrorQuotesAnExcerptAndItsPlace() throws {
        try withTempDir { dir in
            let long = String(repeating: "a", count: 100_000) + "☃" + String(repeating: "b", count: 100_000)
            let file = try dir.write("phrases.txt", "see you soon\r\n  \(long)\r\n")
            let r = try CLI.run(["cost", "--text-file", file, "--words", try Self.fewWords(in: dir)])
            // The rows of the texts before it were printed as they were costed.
            #expect(r.status == 2 && r.stdoutLines.count == 2 && r.stdoutLines.last?.hasSuffix("  see you soon") == true, "\(r.status) \(r.stdout.prefix(300))")
            let a = String(repeating: "a", count: 20), b = String(repeating: "b", count: 19)
            #expect(r.stderr == "Error: \(file):2:100003: no key of the keyboard types \"☃\" (character 100001 of \"…\(a)☃\(b)…\"); leave it out of the text.\n", "\(r.stderr.prefix(500))")
        }
        // One character of twenty thousand combining marks.
        let zalgo = try withTempDir { dir in
            try CLI.run(["cost", "--text", "hi a" + String(repeating: "\u{301}", count: 20_000) + " there", "--words", try Self.fewWords(in: dir)])
        }
        #expect(zalgo.status == 2 && zalgo.stdout.isEmpty)
        #expect(zalgo.stderr.utf8.count < 600, "\(zalgo.stderr.utf8.count) bytes")
        // Compared as bytes: the letter and its marks are one character.
        #expect(zalgo.stderr.utf8.starts(with: "Error: no key of the keyboard types \"a\u{301}".utf8), "\(zalgo.stderr.prefix(100))")
        #expect(MessageTextTests.contains(zalgo.stderr, "…\" (character 4 of \"hi a\u{301}"), "\(zalgo.stderr.prefix(300))")
        #expect(zalgo.stderr.hasSuffix("…\"); leave it out of the text.\n"), "\(zalgo.stderr.prefix(300))")
    }

    @Test func aTextTheModelledUserCannotTypeIsQuotedShort() throws {
        let r = try CLI.run(["cost", "--text", "hello , " + String(repeating: "a", count: 50_000)])
        #expect(r.status == 2 && r.stdout.isEmpty, "\(r.status)")
        #expect(r.stderr.hasPrefix("Error: the modelled user could not type \"hello , aaaa"), "\(r.stderr.prefix(300))")
        #expect(r.stderr.utf8.count < 400, "\(r.stderr.utf8.count) bytes: \(r.stderr.prefix(300))")
    }

    @Test func aTextOfSpacesIsRefusedLikeAnEmptyOne() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        for text in ["", "   ", " \t "] {
            let r = try CLI.run(["cost", "--text", text, "--words", try Self.fewWords(in: dir)])
            #expect(r.status == 2 && r.stdout.isEmpty, "\(r)")
            #expect(r.stderr == "Error: --text has nothing to type; give the text to type, e.g. --text \"see you soon\".\n", "\(r)")
        }
    }

    /// A text of forty thousand characters, of hundred-letter words each typed by one
    /// prediction, is costed (the field is compared with the text as it grows, never whole).
    @Test func aLongTextIsCosted() throws {
        try withTempDir { dir in
            let word = String(repeating: "abcdefghij", count: 10)
            let words = try dir.write("long.words", "5 \(word)\n")
            let file = try dir.write("long.txt", Array(repeating: word, count: 400).joined(separator: " ") + "\n")
            let r = try CLI.run(["cost", "--text-file", file, "--words", words, "--json"])
            #expect(r.status == 0, "\(r.status) \(r.stderr)")
            #expect(r.stdoutLines.last?.hasPrefix("{\"summary\": {\"texts\": 1, \"characters\": 40399, \"seconds\": 120.0, \"presses\": 400,") == true, "\(r.stdoutLines.last ?? "")")
        }
    }

    /// Rows come as each text is costed: the first is there before the file has ended.
    @Test(arguments: [false, true])
    func rowsComeAsTheyAreCosted(json: Bool) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let (binary, arguments) = try CLI.command(["cost", "--text-file", "-", "--words", try Self.fewWords(in: dir)] + (json ? ["--json"] : []))
        let p = Process()
        p.executableURL = binary
        p.arguments = arguments
        p.currentDirectoryURL = CLI.packageRoot
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) }; p.waitUntilExit() }
        try input.fileHandleForWriting.write(contentsOf: Data("see you soon\n".utf8))
        // Read until the first text's row, for at most 10 s (longer under a sanitizer).
        let out = output.fileHandleForReading.fileDescriptor
        _ = fcntl(out, F_SETFL, fcntl(out, F_GETFL) | O_NONBLOCK)
        var seen = ""
        let deadline = Date().addingTimeInterval(10 * CLI.timeScale)
        while !seen.contains("see you soon") && Date() < deadline {
            // Waiting for the row to be written, not for a time.
            var ready = pollfd(fd: out, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 100) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = read(out, &buffer, buffer.count)
            if n > 0 { seen += String(decoding: buffer[0..<n], as: UTF8.self) } else if n == 0 { break }
        }
        #expect(seen.contains("see you soon"), "no row before the end of the file: \(seen)")
        #expect(p.isRunning, "it waits for the next line")
        try input.fileHandleForWriting.write(contentsOf: Data("hello there\n".utf8))
        try input.fileHandleForWriting.close()
        _ = fcntl(out, F_SETFL, fcntl(out, F_GETFL) & ~O_NONBLOCK)
        seen += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let lines = seen.split(separator: "\n")
        #expect(lines.count == (json ? 3 : 4), "\(seen)")
        #expect(lines.last?.contains(json ? "\"texts\": 2" : "2 texts") == true, "\(seen)")
    }

    @Test func aTextFileIsLimitedTo16MiB() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let r = try CLI.run(["cost", "--text-file", "/dev/zero", "--words", try Self.fewWords(in: dir)])
        #expect(r.status == 2 && r.stdout.isEmpty, "\(r)")
        #expect(r.stderr == "Error: text file '/dev/zero' is 16.1 MiB; text files are limited to 16 MiB.\n", "\(r)")
    }
}

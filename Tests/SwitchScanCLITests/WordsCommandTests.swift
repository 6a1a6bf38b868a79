import Foundation
import Testing

/// `switchscan words`: the learned-words file shown and forgotten, found through
/// XDG_DATA_HOME or HOME.
@Suite("switchscan words")
struct WordsCommandTests {
    /// `switchscan ARGS…` with only `environment` (and a PATH).
    static func run(_ arguments: [String], environment: [String: String]) throws -> RunResult {
        let binary = try #require(CLI.binary)
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = CLI.packageRoot
        process.environment = ProcessInfo.processInfo.environment
            .filter { $0.key.hasSuffix("SAN_OPTIONS") || $0.key.hasPrefix("SWITCHSCAN_TEST_") }
            .merging(environment.merging(["PATH": "/usr/bin:/bin"]) { a, _ in a }) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return RunResult(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                         stderr: String(decoding: stderr, as: UTF8.self), timedOut: false)
    }

    @Test func pathFollowsXDGDataHomeThenHome() throws {
        try withTempDir { dir in
            let xdg = try Self.run(["words", "path"], environment: ["XDG_DATA_HOME": dir.url.path, "HOME": "/nowhere"])
            #expect(xdg.stdout == dir.url.path + "/switchscan/words.txt\n")
            let home = try Self.run(["words", "path"], environment: ["XDG_DATA_HOME": "", "HOME": dir.url.path])
            #expect(home.stdout == dir.url.path + "/.local/share/switchscan/words.txt\n")
            let none = try Self.run(["words", "path"], environment: [:])
            #expect(none.status == 2)
            #expect(none.stderr == "Error: no home folder (HOME and XDG_DATA_HOME are unset); give the file with --file.\n")
            let relative = try Self.run(["words", "path"], environment: ["HOME": "home/me"])
            #expect(relative.status == 2)
            #expect(relative.stderr == "Error: no home folder (HOME is 'home/me', not an absolute path, and XDG_DATA_HOME is unset); give the file with --file.\n")
        }
    }

    @Test func listShowsTheLearnedWordsMostOftenFirst() throws {
        try withTempDir { dir in
            let env = ["XDG_DATA_HOME": dir.url.path]
            let file = dir.url.path + "/switchscan/words.txt"
            let empty = try Self.run(["words", "list"], environment: env)
            #expect(empty.status == 0)
            #expect(empty.stdout == "No words learned yet: \(file) does not exist.\n")
            try FileManager.default.createDirectory(atPath: dir.url.path + "/switchscan", withIntermediateDirectories: true)
            try Data("2 world\n12 hello\n3 hello world\n".utf8).write(to: URL(fileURLWithPath: file))
            let r = try Self.run(["words", "list"], environment: env)
            #expect(r.status == 0)
            #expect(r.stdout == "12 hello\n 2 world\n2 words and 1 pair learned, in \(file).\n")
        }
    }

    @Test func forgetOneWordThenAll() throws {
        try withTempDir { dir in
            let file = try dir.write("words.txt", "3 hello\n2 World\n1 there\n1 hello World\n1 World there\n")
            let gone = try CLI.run(["words", "forget", "world", "--file", file])
            #expect(gone.status == 0)
            #expect(gone.stdout == "Forgot \"world\" and 2 pairs with it in \(file).\n")
            #expect(try String(contentsOfFile: file, encoding: .utf8).hasSuffix("Format: Words/README.md.\n3 hello\n1 there\n"))
            let absent = try CLI.run(["words", "forget", "world", "--file", file])
            #expect(absent.status == 0)
            #expect(absent.stdout == "\"world\" is not among the learned words in \(file); nothing changed.\n")
            let all = try CLI.run(["words", "forget", "--all", "--file", file])
            #expect(all.stdout == "Forgot every learned word (2 words, 0 pairs) in \(file).\n")
            let after = try CLI.run(["words", "list", "--file", file])
            #expect(after.stdout == "0 words and 0 pairs learned, in \(file).\n")
        }
    }

    @Test func forgetNeedsAWordOrAll() throws {
        let none = try CLI.run(["words", "forget"])
        #expect(none.status == 64)
        #expect(none.stderr.hasPrefix("Error: No word given. Give the word to forget, e.g. 'switchscan words forget teh', or --all to forget every learned word.\n"))
        let both = try CLI.run(["words", "forget", "teh", "--all"])
        #expect(both.status == 64)
        #expect(both.stderr.hasPrefix("Error: Give either a word or --all, not both.\n"))
    }

    @Test func aBrokenFileIsNamedWithItsLinesAndLeftAlone() throws {
        try withTempDir { dir in
            let text = "3 hello\nhello\n1 a b c\n"
            let file = try dir.write("words.txt", text)
            let problems = """
                \(file):2: expected "COUNT WORD" or "COUNT WORD1 WORD2", got "hello"
                \(file):3: expected "COUNT WORD" or "COUNT WORD1 WORD2", got "1 a b c"
                \(file): 2 errors; the word list was not loaded.
                """
            let list = try CLI.run(["words", "list", "--file", file])
            #expect(list.status == 2)
            #expect(list.stdout == "")
            #expect(list.stderr == problems + "\nEdit the lines named, or forget every learned word with 'switchscan words forget --all'.\n")
            let forget = try CLI.run(["words", "forget", "hello", "--file", file])
            #expect(forget.status == 2)
            #expect(forget.stdout == "")
            #expect(forget.stderr == list.stderr)
            #expect(try String(contentsOfFile: file, encoding: .utf8) == text)
        }
    }

    /// A count past Int's range (a hand edit, a broken disk) once trapped every command that
    /// read the file, the way out included.
    @Test func aHugeCountIsNamedAndForgetAllMendsTheFile() throws {
        try withTempDir { dir in
            let file = try dir.write("words.txt", "3 hello\n9223372036854775808 world\n1 hello world\n")
            let list = try CLI.run(["words", "list", "--file", file])
            #expect(list.status == 2, "\(list)")
            #expect(list.stderr.hasPrefix("\(file):2: \"9223372036854775808\" is not a count; a count is a whole number from 1 to 1000000000000000\n"))
            let one = try CLI.run(["words", "forget", "hello", "--file", file])
            #expect(one.status == 2, "\(one)")
            let all = try CLI.run(["words", "forget", "--all", "--file", file])
            #expect(all.status == 0, "\(all)")
            #expect(all.stdout == "Forgot every learned word (1 word, 1 pair) in \(file).\n")
            let after = try CLI.run(["words", "list", "--file", file])
            #expect(after.stdout == "0 words and 0 pairs learned, in \(file).\n")
            for command in [["simulate", "--keyboard", "--words", file, "--events", "/dev/null"], ["cost", "--text", "hi", "--words", file]] {
                try "1 hi\n9999999999999999999 there\n".write(toFile: file, atomically: true, encoding: .utf8)
                let r = try CLI.run(command)
                #expect(r.status == 2, "\(command): \(r)")
                #expect(r.stderr.contains("\(file):2: \"9999999999999999999\" is not a count"), "\(command): \(r)")
            }
        }
    }

    @Test func forgettingAWordNotLearnedLeavesTheFileAsItIs() throws {
        try withTempDir { dir in
            let text = "# my own note\n3 hello\n"
            let file = try dir.write("words.txt", text)
            let r = try CLI.run(["words", "forget", "absent", "--file", file])
            #expect(r.status == 0)
            #expect(r.stdout == "\"absent\" is not among the learned words in \(file); nothing changed.\n")
            #expect(try String(contentsOfFile: file, encoding: .utf8) == text)
        }
    }
}

@Suite("switchscan-bench typing")
struct BenchTypingTests {
    @Test func aMissingTextSaysHowToGiveOne() throws {
        let r = try CLI.run(["switchscan-bench", "typing", "--text-file", "no-such-phrases.txt", "--loads", "1"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("'no-such-phrases.txt' does not exist"))
        #expect(r.stderr.contains("Give the text to type with --text-file FILE (one phrase a line)."))
    }

    @Test func itTypesATextAndReportsInJSON() throws {
        try withTempDir { dir in
            let words = try dir.write("tiny.words", "9 the\n5 cat\n4 sat\n3 the cat\n2 cat sat\n")
            let text = try dir.write("text.txt", "the cat sat\nthe cat\n")
            let r = try CLI.run(["switchscan-bench", "typing", "--words", words, "--text-file", text, "--loads", "2", "--json"])
            #expect(r.status == 0, "\(r)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            #expect(object["words"] as? Int == 3)
            #expect(object["pairs"] as? Int == 2)
            #expect(object["predictions"] as? Int == 20, "one before each of the 11 + 7 characters and one after each phrase")
            #expect(object["keystrokes"] as? Int == 18)
            // "the" at once (1 press), "cat" (1), "sat" (1); then "the" (1), "cat" (1).
            #expect(object["keystrokes_with_predictions"] as? Int == 5)
            for key in ["load_min_ms", "load_median_ms", "load_p99_ms", "rss_before_mb", "rss_after_mb", "p50_ms", "p99_ms", "max_ms"] {
                #expect(object[key] is Double, "\(key)")
            }
        }
    }
}

/// `switchscan devices grant`: one device named, or a clear refusal that installs nothing.
@Suite("switchscan devices grant")
struct DevicesGrantTests {
    @Test func aPathThatIsNoInputDeviceIsRefusedAndNothingIsInstalled() throws {
        for node in ["/dev/null", "/dev/input/event999", "no-such-node"] {
            let r = try CLI.run(["devices", "grant", node, "--yes"])
            #expect(r.status == 2, "\(node): \(r)")
            #expect(r.stdout == "")
            #expect(r.stderr == "Error: \(node) is not an input device that udev knows. 'switchscan devices' lists them (the /dev/input/event… nodes).\n")
        }
        let help = try CLI.run(["devices", "grant", "--help"])
        #expect(help.stdout.contains("/etc/udev/rules.d"), "\(help)")
        // `devices` alone still lists.
        let list = try CLI.run(["devices"])
        #expect(list.status == 0)
    }
}

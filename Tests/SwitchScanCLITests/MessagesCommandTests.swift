import Foundation
import Testing
import TestSupport

/// `switchscan` with a pipe on standard input written as its JSON lines are read: a
/// virtual user who presses after seeing what is lit (two switches: Tab moves, space
/// selects).
final class VirtualUser: @unchecked Sendable {
    let process = Process()
    private let input = Pipe(), output = Pipe(), errors = Pipe()
    private let lock = NSLock()
    private var out = Data(), err = Data()

    init(_ arguments: [String], environment: [String: String]) throws {
        let (binary, arguments) = try CLI.command(arguments)
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = CLI.packageRoot
        // The sanitizers' options and the tests' time scale pass through (a sanitizer build
        // of the child reports leaks at exit unless told not to, as the tests' runs are).
        process.environment = ProcessInfo.processInfo.environment
            .filter { $0.key.hasSuffix("SAN_OPTIONS") || $0.key.hasPrefix("SWITCHSCAN_TEST_") }
            .merging(environment) { $1 }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        output.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            self?.lock.withLock { self?.out.append(d) }
        }
        errors.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            self?.lock.withLock { self?.err.append(d) }
        }
        try process.run()
    }

    var lines: [String] {
        lock.withLock { String(decoding: out, as: UTF8.self) }.split(separator: "\n").map(String.init)
    }
    var stderr: String { lock.withLock { String(decoding: err, as: UTF8.self) } }

    /// The highlights so far, as their items.
    var highlights: [String] {
        lines.filter { $0.contains(#""effect":"highlight""#) }.compactMap { line in
            line.range(of: #""item":""#).map { r in String(line[r.upperBound...].prefix { $0 != "\"" }) }
        }
    }

    /// The highlights there were when the last key was sent: what it does is waited for
    /// before the next is chosen.
    private var sentAt = 0

    func send(_ keys: String) {
        sentAt = highlights.count
        input.fileHandleForWriting.write(Data(keys.utf8))
    }

    /// A JSON line's effect name.
    static func effect(of line: String) -> String? {
        guard let r = line.range(of: "\"effect\":\"") else { return nil }
        return String(line[r.upperBound...].prefix { $0 != "\"" })
    }

    /// Waits for a line that `matches`, after the first `after` lines. (Called outside
    /// `#expect`: a closure inside the macro's expression was seen to be called in place of
    /// another's.)
    func waitForLine(after: Int = 0, timeout: Double = 10 * CLI.timeScale, _ matches: (String) -> Bool) -> String? {
        var found: String?
        _ = TestTime.poll(timeout: timeout) {
            for line in lines.dropFirst(after) where matches(line) {
                found = line
                return true
            }
            return false
        }
        return found
    }

    /// Moves (Tab) until `item` is lit, then selects it (space); whether it got there.
    @discardableResult
    func choose(_ item: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        for _ in 0..<40 {
            // What the last key did, seen first (every key here lights something new).
            guard TestTime.poll(timeout: 10 * CLI.timeScale, until: { highlights.count > sentAt }) else { break }
            if highlights.last == item {
                send(" ")
                return true
            }
            send("\t")
        }
        Issue.record("\(item) was never lit; lit: \(highlights.suffix(10)); stderr: \(stderr)", sourceLocation: sourceLocation)
        return false
    }

    /// Ends the input (the run ends) and waits for the process.
    func finish() -> Int32 {
        try? input.fileHandleForWriting.close()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { [process] in process.waitUntilExit(); done.signal() }
        if done.wait(timeout: .now() + 20 * CLI.timeScale) == .timedOut {
            process.terminate()
            Issue.record("switchscan did not end at the end of its input")
            return -1
        }
        output.fileHandleForReading.readabilityHandler = nil
        errors.fileHandleForReading.readabilityHandler = nil
        return process.terminationStatus
    }
}

/// `switchscan run --messages` and `switchscan phrases`: a message written and said with
/// one switch, phrases a carer keeps.
@Suite("switchscan messages")
struct MessagesCommandTests {
    /// A home of its own, and no speech-dispatcher (none is started: the warning says so).
    static func environment(_ dir: TempDir) -> [String: String] {
        ["HOME": dir.url.path, "XDG_CONFIG_HOME": dir.url.path + "/config", "XDG_DATA_HOME": dir.url.path + "/data",
         "SPEECHD_ADDRESS": "unix_socket:" + dir.url.path + "/no-speechd.sock", "SPEECHD_CMD": "/bin/false", "PATH": "/usr/bin:/bin"]
    }

    /// `run --messages` with this phrases file, once the virtual user has chosen Phrases.
    static func onThePhrasesPage(_ dir: TempDir, file contents: Data) throws -> (VirtualUser, String) {
        try FileManager.default.createDirectory(atPath: dir.url.path + "/config/switchscan", withIntermediateDirectories: true)
        let file = dir.url.path + "/config/switchscan/phrases.txt"
        try contents.write(to: URL(fileURLWithPath: file))
        let user = try VirtualUser(["run", "--messages", "--style", "manual", "--output", "json", "--no-devices",
                                    "--rt-priority", "0", "--no-mlock", "--allow-deep-idle"], environment: environment(dir))
        let started = user.waitForLine { $0.contains(#""effect":"highlight","item":"messageKeys""#) }
        #expect(started != nil)
        user.choose("messageKeys")
        user.choose("phrases")
        return (user, file)
    }

    @Test func aVirtualUserWritesAMessageSpeaksItAndSaysAPhrase() throws {
        try withTempDir { dir in
            let env = Self.environment(dir)
            try FileManager.default.createDirectory(atPath: dir.url.path + "/config/switchscan", withIntermediateDirectories: true)
            try Data("# ours\nI need a drink\nThank you\n".utf8).write(to: URL(fileURLWithPath: dir.url.path + "/config/switchscan/phrases.txt"))
            let user = try VirtualUser(["run", "--messages", "--style", "manual", "--output", "json", "--no-devices",
                                        "--rt-priority", "0", "--no-mlock", "--allow-deep-idle"], environment: env)
            // The first word offered (once the language's words are read), then Speak.
            let offered = user.waitForLine(timeout: 30 * CLI.timeScale) { $0.contains(#""id":"prediction1""#) }
            #expect(offered != nil, "no predictions: \(user.stderr)")
            user.choose("predictions")
            user.choose("prediction1")
            let typed = user.waitForLine { $0.contains(#""effect":"keyboard""#) && $0.contains(#""id":"message","label":""#) && !$0.contains(#""id":"message","label":"""#) }
            let word = typed.flatMap { line in
                line.range(of: #""id":"message","label":""#).map { r in String(line[r.upperBound...].prefix { $0 != "\"" }) }
            }
            #expect(word?.isEmpty == false, "the message shows what was written: \(user.lines.suffix(5))")
            user.choose("messageKeys")
            user.choose("speak")
            let spoken = user.waitForLine { VirtualUser.effect(of: $0) == "speak" }
            let said = try #require(word).trimmingCharacters(in: .whitespaces)
            #expect(spoken?.contains(#""text":"\#(said)","voice":"public","from":"message""#) == true, "\(spoken ?? "no speak effect")")
            // A quick answer, then a phrase from the file.
            let before = user.lines.count
            user.choose("messageKeys")
            user.choose("yes")
            let answered = user.waitForLine(after: before) { $0.contains(#""effect":"speak","text":"Yes","voice":"public","from":"answer""#) }
            #expect(answered != nil)
            user.choose("messageKeys")
            user.choose("phrases")
            user.choose("phraseRow1")
            user.choose("phrase2")
            let phraseSaid = user.waitForLine(after: before) { $0.contains(#""effect":"speak","text":"Thank you","voice":"public","from":"phrase""#) }
            #expect(phraseSaid != nil)
            #expect(user.finish() == 0, "\(user.stderr)")
            // The message is kept in the history, readable by the user alone; the phrase and the answer are not.
            let history = dir.url.path + "/data/switchscan/history.txt"
            #expect((try? String(contentsOfFile: history, encoding: .utf8)) == said + "\n")
            let mode = (try? FileManager.default.attributesOfItem(atPath: history)[.posixPermissions] as? Int) ?? 0
            #expect(mode == 0o600)
            #expect(user.stderr.contains("speech-dispatcher"), "no speech-dispatcher is said: \(user.stderr)")
        }
    }

    /// A phrase a carer adds while the run goes on is offered without a restart (the file is
    /// looked at every 2 s), and a phrases page shown is redrawn with it.
    @Test func aPhraseAddedWhileItRunsIsOffered() throws {
        try withTempDir { dir in
            let (user, file) = try Self.onThePhrasesPage(dir, file: Data("I need a drink\n".utf8))
            let shown = user.waitForLine { $0.contains(#""effect":"keyboard""#) && $0.contains(#""id":"phrase1","label":"I need a drink""#) }
            #expect(shown != nil)
            let before = user.lines.count
            let added = try CLI.run(["phrases", "add", "Open the window", "--file", file])
            #expect(added.status == 0, "\(added)")
            let redrawn = user.waitForLine(after: before) { $0.contains(#""effect":"keyboard""#) && $0.contains(#""id":"phrase2","label":"Open the window""#) }
            #expect(redrawn != nil, "\(user.lines.suffix(3)); \(user.stderr)")
            #expect(user.finish() == 0)
        }
    }

    @Test func aDamagedPhrasesFileIsSaidAndTheScreenStillOpens() throws {
        try withTempDir { dir in
            let (user, file) = try Self.onThePhrasesPage(dir, file: Data([0x48, 0x69, 0x00, 0x0A]))
            let noPhrases = user.waitForLine { $0.contains("No phrases yet") }
            #expect(noPhrases != nil)
            #expect(user.finish() == 0)
            #expect(user.stderr.contains(file) && user.stderr.contains("not text"), "\(user.stderr)")
        }
    }

    @Test func phrasesAreListedAddedAndRemovedForACarer() throws {
        try withTempDir { dir in
            let env = Self.environment(dir)
            let file = dir.url.path + "/config/switchscan/phrases.txt"
            let none = try WordsCommandTests.run(["phrases", "list"], environment: env)
            #expect(none.status == 0 && none.stdout.contains("No phrases yet"), "\(none)")
            #expect(try WordsCommandTests.run(["phrases", "add", "I need a drink"], environment: env).stdout == "Added \"I need a drink\" to \(file).\n")
            #expect(try WordsCommandTests.run(["phrases", "add", "Thank you"], environment: env).status == 0)
            let again = try WordsCommandTests.run(["phrases", "add", "Thank you"], environment: env)
            #expect(again.status == 0 && again.stdout.contains("already a phrase"))
            let list = try WordsCommandTests.run(["phrases", "list"], environment: env)
            #expect(list.stdout == "I need a drink\nThank you\n2 phrases in \(file).\n", "\(list)")
            #expect(try WordsCommandTests.run(["phrases", "remove", "I need a drink"], environment: env).status == 0)
            let missing = try WordsCommandTests.run(["phrases", "remove", "I need a drink"], environment: env)
            #expect(missing.status == 2 && missing.stderr.contains("is not a phrase"), "\(missing)")
            #expect((try? String(contentsOfFile: file, encoding: .utf8)) == "Thank you\n")
            let empty = try WordsCommandTests.run(["phrases", "add", "  "], environment: env)
            #expect(empty.status == 2 && empty.stderr.contains("empty phrase"), "\(empty)")
            #expect(try WordsCommandTests.run(["phrases", "path"], environment: env).stdout == file + "\n")
        }
    }

    @Test func simulateStartsOnTheMessageScreen() throws {
        let r = try CLI.run(["simulate", "--messages", "--phrases", "Examples/say.txt", "--until", "2"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains(#""id":"speak","label":"Speak""#) && r.stdout.contains(#""item":"messageKeys""#), "\(r.stdout)")
        let missing = try CLI.run(["simulate", "--messages", "--phrases", "Examples/none.txt"])
        #expect(missing.status == 2 && missing.stderr.contains("Examples/none.txt"), "\(missing)")
        let both = try CLI.run(["run", "--messages", "--desktop"])
        #expect(both.status == 64 && both.stderr.contains("--messages"), "\(both)")
    }
}

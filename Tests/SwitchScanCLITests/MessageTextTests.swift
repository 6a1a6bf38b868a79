import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Messages for a person quote text from arguments, the environment and files: on standard
/// output as on standard error, control characters show as their pictures and the quote is
/// an excerpt, however long the text. Data meant to be read by programs stays exact.
@Suite("Text quoted in messages")
struct MessageTextTests {
    static let escapes = "\u{1B}]0;PWNED\u{07}\u{1B}[2J"
    static let shown = "␛]0;PWNED␇␛[2J"

    static func contains(_ text: String, _ part: String) -> Bool {
        let bytes = Array(text.utf8), wanted = Array(part.utf8)
        return bytes.count >= wanted.count && (0...(bytes.count - wanted.count)).contains { bytes[$0..<$0 + wanted.count].elementsEqual(wanted) }
    }

    @Test func aWordArgumentIsShownNotObeyed() throws {
        try withTempDir { dir in
            let file = try dir.write("words.txt", "3 hello\n")
            let r = try CLI.run(["words", "forget", Self.escapes, "--file", file])
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout == "\"\(Self.shown)\" is not among the learned words in \(file); nothing changed.\n", "\(r)")
        }
    }

    @Test func aLongWordArgumentIsQuotedShort() throws {
        try withTempDir { dir in
            let file = try dir.write("words.txt", "3 hello\n")
            // One character of twenty thousand combining marks, then more letters.
            let word = "a" + String(repeating: "\u{301}", count: 20_000) + String(repeating: "b", count: 50_000)
            let r = try CLI.run(["words", "forget", word, "--file", file])
            #expect(r.status == 0, "\(r.status) \(r.stderr)")
            #expect(r.stdout.utf8.count < 600, "\(r.stdout.utf8.count) bytes")
            #expect(r.stdout.utf8.starts(with: "\"a\u{301}".utf8), "\(r.stdout.prefix(200))")
            #expect(r.stdout.hasSuffix("…\" is not among the learned words in \(file); nothing changed.\n"), "\(r.stdout.prefix(200))")
        }
    }

    @Test func aHomeWithEscapesIsShownNotObeyed() throws {
        try withTempDir { dir in
            let data = dir.url.path + "/" + Self.escapes
            let r = try WordsCommandTests.run(["words", "list"], environment: ["XDG_DATA_HOME": data])
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout == "No words learned yet: \(dir.url.path)/\(Self.shown)/switchscan/words.txt does not exist.\n", "\(r)")
            // `words path` is data for programs: exact.
            let path = try WordsCommandTests.run(["words", "path"], environment: ["XDG_DATA_HOME": data])
            #expect(path.stdout == data + "/switchscan/words.txt\n")
        }
    }

    @Test func setupListShowsItsPathSafely() throws {
        try withTempDir { dir in
            let home = dir.url.appendingPathComponent(Self.escapes)
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            let r = try SetupCommandTests.setup(["--list"], home: home)
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout == "No switches are assigned: \(dir.url.path)/\(Self.shown)/.config/switchscan/devices/90-local.json does not exist. Run 'switchscan setup' to assign them.\n", "\(r)")
        }
    }

    @Test func autostartMessagesShowTheirPathsSafely() throws {
        let home = try AutostartTests.Home()
        defer { home.dir.remove() }
        let config = home.dir.url.path + "/" + Self.escapes
        let r = try CLI.run(["autostart", "enable"], environment: home.environment(config: config))
        #expect(r.status == 0, "\(r)")
        #expect(!r.stdout.contains("\u{1B}") && !r.stdout.contains("\u{07}"), "\(r)")
        #expect(r.stdout.hasPrefix("Enabled: SwitchScan starts when you log in to the desktop, from the autostart entry \(home.dir.url.path)/\(Self.shown)/autostart/switchscan.desktop.\n"), "\(r)")
        let status = try CLI.run(["autostart", "status"], environment: home.environment(config: config))
        #expect(status.stdout == "On: the autostart entry \(home.dir.url.path)/\(Self.shown)/autostart/switchscan.desktop starts SwitchScan when you log in to the desktop.\n", "\(status)")
    }

    /// Arguments are quoted as excerpts in the refusals of a command line.
    @Test func aLongArgumentIsQuotedShort() throws {
        let long = String(repeating: "9", count: 100_000)
        for arguments in [["simulate", "Layouts/mail-inbox.json", "--until", long], ["run", "--duration", long],
                          ["replay", "x.evemu", "--until", long], ["settings", "set", "loops", "1", long]] {
            let r = try CLI.run(arguments)
            #expect(r.status == 64, "\(arguments[0]): \(r.status)")
            #expect(r.stderr.utf8.count < 1000 && r.stderr.contains("99999…"), "\(arguments[0]): \(r.stderr.prefix(300))")
        }
    }

    /// A name of one character with twenty thousand combining marks is quoted as an excerpt.
    @Test func aCharacterOfManyScalarsIsQuotedShort() throws {
        try withTempDir { dir in
            let key = "k" + String(repeating: "\u{301}", count: 20_000)
            let settings = try dir.write("zalgo.json", "{\"\(key)\": 1}")
            let r = try CLI.run(["validate", settings])
            #expect(r.status == 2)
            // Compared as bytes: the letter and its marks are one character.
            #expect(Self.contains(r.stderr, "unknown field \"k\u{301}"), "\(r.stderr.prefix(300))")
            #expect(r.stderr.utf8.count < 2000, "\(r.stderr.utf8.count) bytes")
        }
    }
}

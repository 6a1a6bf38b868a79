import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `switchscan run --speech`: the real command speaks its highlights through a private
/// speech-dispatcher (test module `textlog`), each new one cancelling the last (`slowlog`).
// The limit guards against a hang: tests run two at a time on these machines, and a test
// waits its turn behind the long desktop tests (three minutes and more), the limit running.
@Suite("switchscan run speaks", .serialized, .timeLimit(.minutes(5)))
struct RunSpeaksTests {
    /// The switchscan executable SwiftPM built beside this test bundle.
    static func binary() throws -> String {
        guard let url = TestPaths.executable(named: "switchscan") else { throw SpeechTestError("the switchscan executable was not found beside the tests nor under .build*") }
        return url.path
    }

    static let root = TestPaths.packageRoot

    /// Runs the bundled layout with manual presses fed on standard input, and returns what
    /// was spoken once `done` holds.
    func run(_ daemon: SpeechDaemon, keys: String, until done: ([String]) -> Bool) throws -> (spoken: [String], stdout: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try Self.binary())
        p.arguments = ["run", "--speech", "--no-overlay", "--no-devices", "--output", "json", "--style", "manual"]
        p.currentDirectoryURL = Self.root
        var env = ProcessInfo.processInfo.environment
        env["SPEECHD_ADDRESS"] = "unix_socket:" + daemon.socket
        env["DISPLAY"] = nil
        p.environment = env
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = FileHandle.nullDevice
        try p.run()
        // The first highlight is said once the connection is up; a highlight that is still
        // waiting for it is replaced by a newer one (only the current item is worth saying).
        _ = daemon.waitForSpoken(timeout: 5) { !$0.isEmpty }
        // Each press once the last highlight is being said (a new utterance begun).
        for k in keys {
            let before = daemon.spoken().count
            try input.fileHandleForWriting.write(contentsOf: Data(String(k).utf8))
            _ = daemon.waitForSpoken(timeout: 5) { $0.count > before }
        }
        let spoken = daemon.waitForSpoken(timeout: 5, until: done)
        p.terminate()
        p.waitUntilExit()
        let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (spoken, out)
    }

    @Test func theHighlightsAreSpokenInOrder() throws {
        let daemon = try SpeechDaemon(module: .textlog)
        defer { daemon.stop() }
        let (spoken, out) = try run(daemon, keys: "\t\t") { $0.count >= 3 }
        let labels = out.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("\"effect\":\"highlight\""), let r = line.range(of: "\"label\":\"") else { return nil }
            return String(line[r.upperBound...].prefix { $0 != "\"" })
        }
        #expect(labels.count >= 3, "\(out)")
        #expect(spoken.count == labels.count, "one utterance per highlight: \(spoken) for \(labels)")
        for (said, label) in zip(spoken, labels) { #expect(said.hasPrefix(label), "\(said) starts with \(label)") }
    }

    @Test func eachHighlightCancelsTheLast() throws {
        let daemon = try SpeechDaemon(module: .slowlog)
        defer { daemon.stop() }
        let (spoken, _) = try run(daemon, keys: "\t\t") { lines in lines.filter { $0.hasPrefix("start ") }.count >= 3 && lines.contains { $0.hasPrefix("end ") } }
        let starts = spoken.filter { $0.hasPrefix("start ") }, ends = spoken.filter { $0.hasPrefix("end ") }
        #expect(starts.count == 3 && ends.count == 1, "\(spoken)")
        #expect(ends.first.map { String($0.dropFirst(4)) } == starts.last.map { String($0.dropFirst(6)) }, "only the last is finished: \(spoken)")
    }

    /// Scanning by ear: with a 0.1 s interval and labels that take half a second to say
    /// (`slowlog`), each highlight stays until its label has been said whole, and the next
    /// follows at once; none is cut.
    @Test func scanningByEarHoldsEachHighlightUntilItsLabelIsSaid() throws {
        let daemon = try SpeechDaemon(module: .slowlog)
        defer { daemon.stop() }
        let settings = daemon.directory + "/settings.json"
        try #"{"autoScanInterval": 0.1, "speechPacing": true, "loops": 100}"#.write(toFile: settings, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try Self.binary())
        p.arguments = ["run", "--speech", "--no-overlay", "--no-devices", "--output", "json", "--settings", settings]
        p.currentDirectoryURL = Self.root
        var env = ProcessInfo.processInfo.environment
        env["SPEECHD_ADDRESS"] = "unix_socket:" + daemon.socket
        env["DISPLAY"] = nil
        p.environment = env
        let output = Pipe()
        p.standardInput = Pipe()
        p.standardOutput = output
        p.standardError = FileHandle.nullDevice
        try p.run()
        let spoken = daemon.waitForSpoken(timeout: 10) { $0.filter { $0.hasPrefix("end ") }.count >= 4 }
        p.terminate()
        p.waitUntilExit()
        let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let times = out.split(separator: "\n").compactMap { line -> Double? in
            guard line.contains("\"effect\":\"highlight\""), let r = line.range(of: "\"t\":") else { return nil }
            return Double(line[r.upperBound...].prefix { $0 != "," })
        }
        // Said whole, one after another: every start has its end before the next start.
        let said = Array(spoken.prefix(8))
        #expect(said.count == 8, "\(spoken)")
        for k in stride(from: 0, to: said.count - 1, by: 2) {
            #expect(said[k].hasPrefix("start ") && said[k + 1] == "end " + said[k].dropFirst(6), "\(spoken)")
        }
        // Each highlight lasted its label (half a second, and the time to start saying it),
        // not the 0.1 s interval, nor the 3 s limit.
        #expect(times.count >= 4, "\(out)")
        for (a, b) in zip(times, times.dropFirst()).prefix(3) {
            #expect(b - a >= 0.5 && b - a < 2.5, "highlights at \(times)")
        }
    }
}

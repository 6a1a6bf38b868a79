import Foundation
import Testing

/// `switchscan report`: the usage log `run` keeps, shown day by day for a carer: no data, a
/// damaged log, a huge one, the table, JSON and the plot.
@Suite("switchscan report")
struct ReportCommandTests {
    /// The local date `days` days ago, as the log writes it.
    static func day(_ days: Int) -> String {
        let f = DateFormatter()
        f.dateFormat = "yyyy-MM-dd"
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone.current
        return f.string(from: Calendar.current.date(byAdding: .day, value: -days, to: Date())!)
    }

    static func run(_ arguments: [String], data: URL) throws -> RunResult {
        try WordsCommandTests.run(["report"] + arguments, environment: ["XDG_DATA_HOME": data.path, "HOME": "/nowhere"])
    }

    static func write(_ text: String, in data: URL) throws {
        let folder = data.appendingPathComponent("switchscan")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try text.write(to: folder.appendingPathComponent("usage.log"), atomically: true, encoding: .utf8)
    }

    @Test func withoutDataItSaysWhereItWouldBeKept() throws {
        try withTempDir { dir in
            let r = try Self.run([], data: dir.url)
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout == "No usage is kept yet in \(dir.url.path)/switchscan/usage.log: 'switchscan run' keeps it as the person scans.\n")
            let json = try Self.run(["--json"], data: dir.url)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect((object["days"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func theDaysAreShownWithTheirFigures() throws {
        try withTempDir { dir in
            try Self.write("""
                # SwitchScan's usage
                \(Self.day(40)) presses=9 selections=9 runningSeconds=60
                \(Self.day(3)) presses=500 selections=300 undone=30 reactions=250 reactionSum=150 reactionSquares=95 intervalSelections=290 intervalSum=261 words=40 writingSeconds=1500 runningSeconds=3700
                \(Self.day(1)) presses=520 selections=320 undone=16 reactions=290 reactionSum=160 reactionSquares=92 intervalSelections=310 intervalSum=290 words=55 writingSeconds=1400 runningSeconds=4000

                """, in: dir.url)
            let r = try Self.run(["--days", "7"], data: dir.url)
            #expect(r.status == 0, "\(r)")
            let lines = r.stdoutLines
            #expect(lines.first?.hasPrefix("Day") == true)
            // 300 selections, 30 undone: 10 %; reaction 150 / 250 = 0.60 s; 40 words in 25 minutes.
            let first = try #require(lines.first { $0.hasPrefix(Self.day(3)) })
            #expect(first.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
                    == [Self.day(3), "1:02", "500", "300", "30", "(10", "%)", "0.60", "±", "0.14", "s", "0.90", "s", "40", "1.6"], "\(r)")
            #expect(lines.contains { $0.hasPrefix("All 2 days") })
            #expect(!r.stdout.contains(Self.day(40)), "older than --days")
            let json = try Self.run(["--days", "7", "--json"], data: dir.url)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let days = try #require(object["days"] as? [[String: Any]])
            #expect(days.map { $0["day"] as? String } == [Self.day(3), Self.day(1)])
            #expect(days[1]["undoneRate"] as? Double == 0.05)
            #expect(days[1]["wordsPerMinute"] as? Double == 2.36)
            #expect(days[0]["reactionMean"] as? Double == 0.6)
        }
    }

    /// The plot: an SVG with a point for each day used, a panel for each figure.
    @Test func thePlotIsWritten() throws {
        try withTempDir { dir in
            try Self.write("\(Self.day(2)) presses=5 selections=5 reactions=4 reactionSum=2 reactionSquares=1.1 intervalSelections=5 intervalSum=5\n", in: dir.url)
            let svg = dir.url.appendingPathComponent("weeks.svg").path
            let r = try Self.run(["--svg", svg], data: dir.url)
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout.hasSuffix("Plot written to \(svg).\n"))
            let text = try String(contentsOfFile: svg, encoding: .utf8)
            #expect(text.hasPrefix("<svg"))
            for title in ["Reaction time and scan interval", "Selections undone", "Words a minute"] { #expect(text.contains(title)) }
            // One day with a reaction time and an interval: a dot each, nothing for words.
            #expect(text.components(separatedBy: "<circle").count - 1 == 3)
        }
    }

    @Test func aDamagedLineIsNamedAndTheRestShown() throws {
        try withTempDir { dir in
            try Self.write("\(Self.day(1)) presses=5 selections=4\nnot a day\n\(Self.day(0)) presses=many\n", in: dir.url)
            let r = try Self.run([], data: dir.url)
            #expect(r.status == 0, "\(r)")
            let path = dir.url.path + "/switchscan/usage.log"
            #expect(r.stderr.contains("Warning: \(path): line 2 (it does not start with a day as YYYY-MM-DD) is left out."), "\(r)")
            #expect(r.stderr.contains("Warning: \(path): line 3 (presses must be a whole number from 0 to 10^12, not 'many') is left out."), "\(r)")
            #expect(r.stdoutLines.contains { $0.hasPrefix(Self.day(1)) })
        }
    }

    @Test func aHugeLogIsRefusedWithItsName() throws {
        try withTempDir { dir in
            try Self.write("", in: dir.url)
            let path = dir.url.path + "/switchscan/usage.log"
            #expect(truncate(path, 50 << 20) == 0)
            let r = try Self.run([], data: dir.url)
            #expect(r.status == 2)
            #expect(r.stderr.contains("usage log '\(path)' is 50 MiB"), "\(r)")
            #expect(r.stderr.contains("move this one away"), "\(r)")
            #expect(r.stdout.isEmpty)
        }
    }

    @Test func badArgumentsAreRefused() throws {
        try withTempDir { dir in
            let r = try Self.run(["--days", "0"], data: dir.url)
            #expect(r.status != 0)
            #expect(r.stderr.contains("--days takes 1 to 1000"), "\(r)")
        }
    }
}

import Foundation
import ScanCore
@testable import ScanFormats
import Testing

/// The usage log `run` keeps and `switchscan report` reads: a line a day, counts only.
@Suite struct UsageLogTests {
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("usage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func usage(presses: Int, selections: Int, undone: Int = 0, reactions: [Double] = []) -> Usage {
        var u = Usage()
        u.presses = presses
        u.selections = selections
        u.undone = undone
        u.reactions = reactions.count
        u.reactionSum = reactions.reduce(0, +)
        u.reactionSquares = reactions.reduce(0) { $0 + $1 * $1 }
        u.runningSeconds = 61.5
        return u
    }

    @Test func whereItIsKept() {
        #expect(UsageLog.userPath(environment: ["XDG_DATA_HOME": "/d", "HOME": "/h"]) == "/d/switchscan/usage.log")
        #expect(UsageLog.userPath(environment: ["XDG_DATA_HOME": "rel", "HOME": "/h"]) == "/h/.local/share/switchscan/usage.log")
        #expect(UsageLog.userPath(environment: [:]) == nil)
    }

    /// Each write adds to the day's line; a new day gets a line of its own, in order; the
    /// file is the user's alone, and reads back as written.
    @Test func countsAreAddedToTheirDay() throws {
        let f = try Self.folder()
        defer { try? FileManager.default.removeItem(at: f) }
        let path = f.appendingPathComponent("data/switchscan/usage.log").path
        #expect(try UsageLog.load(path).days.isEmpty)
        try UsageLog.add(Self.usage(presses: 10, selections: 6, undone: 1, reactions: [0.5, 0.6]), day: "2026-11-30", to: path)
        try UsageLog.add(Self.usage(presses: 4, selections: 3, reactions: [0.7]), day: "2026-11-30", to: path)
        try UsageLog.add(Self.usage(presses: 1, selections: 1), day: "2026-11-02", to: path)
        let log = try UsageLog.load(path)
        #expect(log.problems.isEmpty)
        #expect(log.days.map(\.day) == ["2026-11-02", "2026-11-30"])
        let day = try #require(log.days.last?.usage)
        #expect(day.presses == 14 && day.selections == 9 && day.undone == 1 && day.reactions == 3)
        #expect(abs(try #require(day.meanReaction) - 0.6) < 1e-9)
        #expect(abs(try #require(day.reactionSpread) - 0.1) < 1e-9)
        #expect(abs(day.runningSeconds - 123) < 1e-9)
        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o600)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("2026-11-30 presses=14 selections=9 undone=1 reactions=3 reactionSum=1.8 "), "\(text)")
    }

    /// Bounded: the newest days are kept.
    @Test func onlyTheNewestDaysAreKept() throws {
        let f = try Self.folder()
        defer { try? FileManager.default.removeItem(at: f) }
        let path = f.appendingPathComponent("usage.log").path
        let days = (0..<(UsageLog.keptDays + 20)).map { UsageLog.Day(UsageLog.day($0, before: "2026-11-30"), Self.usage(presses: 1, selections: 1)) }
        try Data(UsageLog.bytes(days.reversed())).write(to: URL(fileURLWithPath: path))
        try UsageLog.add(Self.usage(presses: 2, selections: 2), day: "2026-12-01", to: path)
        let log = try UsageLog.load(path)
        #expect(log.days.count == UsageLog.keptDays)
        #expect(log.days.last?.day == "2026-12-01")
        #expect(log.days.first?.day == UsageLog.day(UsageLog.keptDays - 2, before: "2026-11-30"))
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        #expect(size < UsageLog.maxFileSize / 2)
    }

    /// A damaged line is named by its number and what is wrong, the others read; a write
    /// keeps it as it is, and a newer SwitchScan's keys too.
    @Test func aDamagedLineIsNamedAndKept() throws {
        let f = try Self.folder()
        defer { try? FileManager.default.removeItem(at: f) }
        let path = f.appendingPathComponent("usage.log").path
        var bytes = Array("# a comment\n2026-11-01 presses=3 selections=2\n2026-13-01 presses=1\n".utf8)
        bytes += Array("2026-11-02 presses=-4\n2026-11-03 presses=x\n2026-11-04 selections\n".utf8)
        bytes += [0xFF, 0x0A] + Array("2026-11-05 presses=7 selections=5 newerKey=9\n2026-11-06 words=9223372036854775807\n\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let log = try UsageLog.load(path)
        #expect(log.days.map(\.day) == ["2026-11-01", "2026-11-05"])
        #expect(log.days.last?.usage.presses == 7)
        #expect(log.problems == [
            "line 3 (it does not start with a day as YYYY-MM-DD)",
            "line 4 (presses must be a whole number from 0 to 10^12, not '-4')",
            "line 5 (presses must be a whole number from 0 to 10^12, not 'x')",
            "line 6 ('selections' is not key=value)",
            "line 7 (not UTF-8 text)",
            "line 9 (words must be a whole number from 0 to 10^12, not '9223372036854775807')",
        ])
        let said = try UsageLog.add(Self.usage(presses: 1, selections: 1), day: "2026-11-05", to: path)
        #expect(said.count == 6 && said[0] == "line 3 (it does not start with a day as YYYY-MM-DD) of \(path) could not be read; it is kept as it is")
        let again = try UsageLog.load(path)
        #expect(again.problems.count == 6)
        #expect(again.days.map(\.day) == ["2026-11-01", "2026-11-05"])
        #expect(again.days.last?.usage.presses == 8)
        let text = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(text.count > 0 && text.contains(0xFF))
        #expect(String(decoding: text, as: UTF8.self).contains(" newerKey=9\n"))
        #expect(String(decoding: text, as: UTF8.self).contains("2026-13-01 presses=1\n"))
    }

    /// Counts past any day's are refused as damage, never added up past Int's bounds.
    @Test func countsAreBounded() {
        var u = Usage()
        u.presses = Int.max
        u.runningSeconds = .infinity
        #expect(u.bounded.presses == Int(UsageLog.maxValue) && u.bounded.runningSeconds == 0)
        let two = UsageLog.parse(Array("2026-11-01 presses=1000000000000\n2026-11-01 presses=1000000000000\n".utf8))
        #expect(two.days.first?.usage.presses == Int(UsageLog.maxValue))
    }

    /// A file far larger than a log can be is refused unread, by `load` and by `add` alike,
    /// and left as it is.
    @Test func aHugeFileIsRefusedAndLeftAlone() throws {
        let f = try Self.folder()
        defer { try? FileManager.default.removeItem(at: f) }
        let path = f.appendingPathComponent("usage.log").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        #expect(truncate(path, off_t(UsageLog.maxFileSize + 1)) == 0)
        #expect(throws: FileReadError.self) { try UsageLog.load(path) }
        do {
            try UsageLog.add(Self.usage(presses: 1, selections: 1), day: "2026-11-06", to: path)
            Issue.record("a huge file was written")
        } catch {
            #expect(error.description.contains("usage log") && error.description.contains(path), "\(error.description)")
        }
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        #expect(size == UsageLog.maxFileSize + 1)
    }

    @Test func days() {
        #expect(UsageLog.isDay("2024-02-29") && !UsageLog.isDay("2023-02-29") && !UsageLog.isDay("2026-1-01") && !UsageLog.isDay("2026-00-10"))
        #expect(UsageLog.day(1, before: "2026-03-01") == "2026-02-28")
        #expect(UsageLog.day(-1, before: "2026-12-31") == "2027-01-01")
        #expect(UsageLog.day(365, before: "2026-11-30") == "2025-11-30")
        #expect(UsageLog.isDay(Substring(UsageLog.day(of: 1_780_000_000))))
    }
}

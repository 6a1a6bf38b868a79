#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ScanCore

/// The usage log `run` keeps for `switchscan report`: `$XDG_DATA_HOME/switchscan/usage.log`,
/// readable by the user alone, a line a day, counts only (never text):
///
///     2026-11-30 presses=540 selections=312 undone=12 reactions=280 reactionSum=145.6 ...
///
/// The day is the local date; the keys are `Usage`'s. A key not known (a newer
/// SwitchScan's) is kept as it is, and so is a line that cannot be read, so that nothing
/// is lost by a rewrite. Changed like the settings (UserFile: atomic, links kept), bounded
/// to the newest `keptDays` days and `keptDamaged` damaged lines.
public enum UsageLog {
    /// Nearly three years of days.
    public static let keptDays = 1000
    /// Damaged lines kept as they are, the first ones.
    public static let keptDamaged = 100
    /// 1100 lines are under 400 kB: anything near this size is not a usage log.
    public static let maxFileSize = 1 << 20
    /// The most a day's count or seconds can be: far beyond a day's use, and far enough
    /// below Int's bounds that adding up every day kept cannot overflow.
    public static let maxValue = 1_000_000_000_000.0

    public struct Day: Hashable, Sendable {
        /// YYYY-MM-DD.
        public var day: String
        public var usage: Usage
        /// `key=value` words of keys not known here, kept as they are.
        public var others: [String] = []
        public init(_ day: String, _ usage: Usage) { self.day = day; self.usage = usage }
    }

    /// What a log holds: its days in order, and the lines that could not be read (each
    /// named by its number, with what is wrong, and as it is).
    public struct Contents: Sendable {
        public var days: [Day] = []
        public var problems: [String] = []
        public var damaged: [ArraySlice<UInt8>] = []
    }

    /// `$XDG_DATA_HOME/switchscan/usage.log`, else `~/.local/share/switchscan/usage.log`;
    /// nil without a home.
    public static func userPath(environment env: [String: String]) -> String? {
        let data = env["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? env["HOME"].flatMap { !$0.hasPrefix("/") ? nil : $0 + "/.local/share" }
        return data.map { $0 + "/switchscan/usage.log" }
    }

    /// The log at `path`: empty while the file does not exist. A file that cannot be read
    /// (or is too large to be one) is an error that names it.
    public static func load(_ path: String) throws(FileReadError) -> Contents {
        guard access(path, F_OK) == 0 else { return Contents() }
        return parse(try readFile(path, what: "usage log", limit: maxFileSize))
    }

    /// Adds `usage` to `day`'s line of the log at `path` (made, 0600, when missing), keeping
    /// the newest `keptDays` days. Returns the lines that could not be read (kept as they
    /// are, the first `keptDamaged`), to be said.
    @discardableResult
    public static func add(_ usage: Usage, day: String, to path: String) throws(FileReadError) -> [String] {
        var problems: [String] = []
        try UserFile.update(path, what: "usage log", mode: 0o600, limit: maxFileSize) { (current) throws(FileReadError) -> [UInt8] in
            var contents = parse(current ?? [])
            problems = contents.problems
            if let k = contents.days.lastIndex(where: { $0.day == day }) {
                contents.days[k].usage.add(usage.bounded)
            } else {
                contents.days.append(Day(day, usage.bounded))
                contents.days.sort { $0.day < $1.day }
            }
            return bytes(contents.days.suffix(keptDays), damaged: contents.damaged.prefix(keptDamaged))
        }
        return problems.map { "\($0) of \(path) could not be read; it is kept as it is" }
    }

    static let header = "# SwitchScan's usage, a line a day: counts only. 'switchscan report' shows them.\n"

    static func bytes(_ days: some Sequence<Day>, damaged: some Sequence<ArraySlice<UInt8>> = [ArraySlice<UInt8>]()) -> [UInt8] {
        var out = Array((header + days.map { line($0) + "\n" }.joined()).utf8)
        for d in damaged { out += d + [0x0A] }
        return out
    }

    static func line(_ d: Day) -> String {
        let u = d.usage
        let fields: [(String, String)] = [
            ("presses", "\(u.presses)"), ("selections", "\(u.selections)"), ("undone", "\(u.undone)"),
            ("reactions", "\(u.reactions)"), ("reactionSum", number(u.reactionSum)), ("reactionSquares", number(u.reactionSquares)),
            ("intervalSelections", "\(u.intervalSelections)"), ("intervalSum", number(u.intervalSum)),
            ("words", "\(u.words)"), ("writingSeconds", number(u.writingSeconds)), ("runningSeconds", number(u.runningSeconds)),
        ]
        return d.day + fields.map { " \($0.0)=\($0.1)" }.joined() + d.others.map { " " + $0 }.joined()
    }

    static func number(_ d: Double) -> String {
        var s = formatFixed(d, decimals: 4)
        if s.contains(".") {
            while s.hasSuffix("0") { s.removeLast() }
            if s.hasSuffix(".") { s.removeLast() }
        }
        return s
    }

    static func parse(_ bytes: [UInt8]) -> Contents {
        var out = Contents()
        var byDay: [String: Int] = [:]
        for (number, raw) in PhrasesFile.lines(bytes) {
            guard let text = String(validating: raw, as: UTF8.self) else {
                out.problems.append("line \(number) (not UTF-8 text)")
                out.damaged.append(raw)
                continue
            }
            let trimmed = Substring(text).trimmingSpaces
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            switch day(String(trimmed)) {
            case .success(let d):
                if let k = byDay[d.day] { out.days[k].usage.add(d.usage); out.days[k].usage = out.days[k].usage.bounded } else {
                    byDay[d.day] = out.days.count
                    out.days.append(d)
                }
            case .failure(let why):
                out.problems.append("line \(number) (\(why.why))")
                out.damaged.append(raw)
            }
        }
        out.days.sort { $0.day < $1.day }
        return out
    }

    struct Damaged: Error { var why: String }

    static func day(_ line: String) -> Result<Day, Damaged> {
        let words = line.split(separator: " ", omittingEmptySubsequences: true)
        guard let first = words.first, isDay(first) else {
            return .failure(Damaged(why: "it does not start with a day as YYYY-MM-DD"))
        }
        var u = Usage()
        var others: [String] = []
        for word in words.dropFirst() {
            guard let eq = word.firstIndex(of: "=") else { return .failure(Damaged(why: "'\(word.prefix(40))' is not key=value")) }
            let key = word[..<eq], value = word[word.index(after: eq)...]
            func count(_ field: inout Int) -> Damaged? {
                guard let n = Int(value), n >= 0, Double(n) <= maxValue else {
                    return Damaged(why: "\(key) must be a whole number from 0 to 10^12, not '\(value.prefix(40))'")
                }
                field = n
                return nil
            }
            func seconds(_ field: inout Double) -> Damaged? {
                guard let d = Double(value), d.isFinite, d >= 0, d <= maxValue else {
                    return Damaged(why: "\(key) must be a number from 0 to 10^12, not '\(value.prefix(40))'")
                }
                field = d
                return nil
            }
            let problem: Damaged?
            switch key {
            case "presses": problem = count(&u.presses)
            case "selections": problem = count(&u.selections)
            case "undone": problem = count(&u.undone)
            case "reactions": problem = count(&u.reactions)
            case "reactionSum": problem = seconds(&u.reactionSum)
            case "reactionSquares": problem = seconds(&u.reactionSquares)
            case "intervalSelections": problem = count(&u.intervalSelections)
            case "intervalSum": problem = seconds(&u.intervalSum)
            case "words": problem = count(&u.words)
            case "writingSeconds": problem = seconds(&u.writingSeconds)
            case "runningSeconds": problem = seconds(&u.runningSeconds)
            default:
                problem = nil
                others.append(String(word))
            }
            if let problem { return .failure(problem) }
        }
        var day = Day(String(first), u)
        day.others = others
        return .success(day)
    }

    /// Whether `s` is a date as YYYY-MM-DD that exists.
    public static func isDay(_ s: Substring) -> Bool {
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        guard s.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]), (1...12).contains(m) else { return false }
        let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
        let length = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]
        return (1...length).contains(d)
    }

    /// The local date of `time` (seconds since 1970) as YYYY-MM-DD.
    public static func day(of time: Int) -> String {
        var t = time_t(time)
        var parts = tm()
        localtime_r(&t, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
    }

    /// The day `n` days before `day` (YYYY-MM-DD), in the calendar.
    public static func day(_ n: Int, before day: String) -> String {
        let p = day.split(separator: "-").compactMap { Int($0) }
        guard p.count == 3 else { return day }
        var parts = tm()
        parts.tm_year = Int32(p[0] - 1900)
        parts.tm_mon = Int32(p[1] - 1)
        parts.tm_mday = Int32(p[2] - n)
        parts.tm_hour = 12
        var t = timegm(&parts)
        var out = tm()
        gmtime_r(&t, &out)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(out.tm_year + 1900)-\(two(out.tm_mon + 1))-\(two(out.tm_mday))"
    }
}

extension Usage {
    /// Each count and each seconds within `UsageLog.maxValue`: what a day's line can say.
    var bounded: Usage {
        func c(_ n: Int) -> Int { min(n, Int(UsageLog.maxValue)) }
        func s(_ d: Double) -> Double { d.isFinite ? min(max(d, 0), UsageLog.maxValue) : 0 }
        var u = self
        u.presses = c(presses); u.selections = c(selections); u.undone = c(undone); u.reactions = c(reactions)
        u.intervalSelections = c(intervalSelections); u.words = c(words)
        u.reactionSum = s(reactionSum); u.reactionSquares = s(reactionSquares); u.intervalSum = s(intervalSum)
        u.writingSeconds = s(writingSeconds); u.runningSeconds = s(runningSeconds)
        return u
    }
}

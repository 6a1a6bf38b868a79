import ScanCore

/// Reads a simulation events file: one event a line, `#` comments,
/// `SECONDS ACTION down`, `SECONDS ACTION up`, or `SECONDS ACTION` (a press: down, then up
/// 50 ms later). Times may not go backwards; a switch cannot go down twice without going up.
public enum EventsLoader {
    public static let pressLength = ScanDuration.milliseconds(50)

    public typealias EventsError = LineFileError

    /// Events files past this size are refused before they are read.
    public static let maxFileSize = 64 << 20

    public static func load(text: String, file: String) throws(EventsError) -> SwitchEventList {
        try load(bytes: Array(text.utf8), file: file)
    }

    /// Checks every line, then gives the events in time order (stable: at one instant, in
    /// the file's order, a press's release before a later line's event).
    public static func load(bytes: [UInt8], file: String) throws(EventsError) -> SwitchEventList {
        var problems = LineProblems()
        var events = SwitchEventList()
        // Room for as many as the file could hold (two events from each line of at least
        // seven bytes, "0 next\n"), so the list is never copied while it grows; room not
        // used is never touched, and takes no memory.
        events.reserve(2 * (bytes.count / 7 + 1))
        // Releases of presses not yet due (at most one an action), in time order: presses
        // all last 50 ms. Each goes in before the first later line whose time reaches it.
        var releases: [(at: ScanInstant, action: SwitchAction)] = []
        func append(_ action: SwitchAction, down: Bool, at: ScanInstant) {
            var due = 0
            while due < releases.count, releases[due].at <= at {
                events.append(releases[due].action, down: false, at: releases[due].at)
                due += 1
            }
            releases.removeFirst(due)
            events.append(action, down: down, at: at)
        }
        var lastTime = -1.0
        var down: [SwitchAction: Int] = [:]
        var pressedUntil: [SwitchAction: ScanInstant] = [:]
        var pressLine: [SwitchAction: Int] = [:]
        let actions = SwitchAction.allCases.map(\.rawValue)
        for (lineNo, raw) in Lines(bytes) {
            var line = raw
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if words.isEmpty { continue }
            guard words.count == 2 || words.count == 3 else {
                problems.add(lineNo, "expected \"SECONDS ACTION\" or \"SECONDS ACTION down|up\", got \"\(excerpt(String(line.trimmingSpaces)))\"")
                continue
            }
            // Plain decimal seconds only: Double() would also take "0x10", "inf" or "1e1".
            let digits = words[0].utf8.filter { $0 != UInt8(ascii: ".") }
            let plain = !digits.isEmpty && digits.allSatisfy { $0 >= 48 && $0 <= 57 } && words[0].utf8.count - digits.count <= 1
            guard plain, let t = Double(words[0]), t.isFinite, t >= 0, t <= 86_400 else {
                problems.add(lineNo, "\"\(excerpt(String(words[0])))\" is not a time; give seconds from 0 to 86400 from the start, e.g. 1.25")
                continue
            }
            if t < lastTime {
                problems.add(lineNo, "time \(words[0]) is before the previous event's (\(format(lastTime))); list events in time order")
                continue
            }
            lastTime = t
            guard let action = SwitchAction(rawValue: String(words[1])) else {
                var msg = "\"\(excerpt(String(words[1])))\" is not a switch action; allowed: \(actions.joined(separator: ", "))"
                if let s = suggestion(for: String(words[1]), among: actions) { msg += "; did you mean \"\(s)\"?" }
                problems.add(lineNo, msg)
                continue
            }
            let at = ScanInstant.seconds(t)
            // A press holds its switch down for 50 ms: another press of it inside that is
            // a switch going down twice.
            if let until = pressedUntil[action], at < until {
                problems.add(lineNo, "\(action.rawValue) is still down from the press on line \(pressLine[action]!) (a press lasts 50 ms)")
                continue
            }
            if words.count == 3 {
                switch words[2] {
                case "down":
                    if let l = down[action] { problems.add(lineNo, "\(action.rawValue) is already down (since line \(l)); add \"\(action.rawValue) up\" first"); continue }
                    down[action] = lineNo
                    append(action, down: true, at: at)
                case "up":
                    if down[action] == nil { problems.add(lineNo, "\(action.rawValue) goes up without going down first"); continue }
                    down[action] = nil
                    append(action, down: false, at: at)
                default:
                    problems.add(lineNo, "\"\(excerpt(String(words[2])))\" must be \"down\" or \"up\" (or nothing, for a press)")
                }
            } else {
                if let l = down[action] { problems.add(lineNo, "\(action.rawValue) is held down (since line \(l)); a press needs it up"); continue }
                append(action, down: true, at: at)
                releases.append((at + pressLength, action))
                pressedUntil[action] = at + pressLength
                pressLine[action] = lineNo
            }
        }
        if !problems.isEmpty { throw EventsError(file: file, problems: problems, outcome: "nothing was simulated") }
        for release in releases { events.append(release.action, down: false, at: release.at) }
        return events
    }
}

/// Switch events in time order, as an events file gives them, kept in 16 bytes each (a
/// SwitchEvent takes 40, with its source and debounce): a file of millions of presses is
/// held between its check and its replay in a few tens of megabytes.
public struct SwitchEventList: RandomAccessCollection, Sendable {
    struct Packed {
        var nanoseconds: Int64
        var action: UInt8
        var isDown: Bool
    }

    private var packed: [Packed] = []
    private static let actions = SwitchAction.allCases

    public init() {}

    /// The bytes an event takes here.
    public static var bytesPerEvent: Int { MemoryLayout<Packed>.stride }

    mutating func reserve(_ count: Int) { packed.reserveCapacity(count) }

    mutating func append(_ action: SwitchAction, down: Bool, at time: ScanInstant) {
        // allCases holds every action, and there are far fewer than 256.
        let index = Self.actions.firstIndex(of: action)!
        packed.append(Packed(nanoseconds: time.nanoseconds, action: UInt8(index), isDown: down))
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { packed.count }

    public subscript(i: Int) -> SwitchEvent {
        let p = packed[i]
        return SwitchEvent(Self.actions[Int(p.action)], down: p.isDown, at: ScanInstant(nanoseconds: p.nanoseconds))
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" || s.last == "\r" { s = s.dropLast() }
        return s
    }
}

/// Problems of a line-oriented file (events, recordings): `FILE:LINE: message` each, then a
/// count and what was not done.
public struct LineFileError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var problems: [(line: Int, message: String)]
    /// Problems past those kept, counted.
    public var omitted: Int
    public var outcome: String

    public init(file: String, problems: LineProblems, outcome: String) {
        self.file = file; self.problems = problems.kept; self.omitted = problems.omitted; self.outcome = outcome
    }

    public var description: String {
        var lines = problems.map { "\(file):\($0.line): \($0.message)" }
        if omitted > 0 { lines.append("\(file): … and \(omitted) more") }
        let total = problems.count + omitted
        return (lines + ["\(file): \(total == 1 ? "1 error" : "\(total) errors"); \(outcome)."]).joined(separator: "\n")
    }
}

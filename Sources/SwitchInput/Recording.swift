import Foundation
import ScanCore
import ScanFormats

/// Recordings in the evemu-record text format: `# ` comments, `N:`/`I:`/`B:`/`A:`
/// description lines, and events `E: <sec>.<usec> <type hex> <code hex> <value>`.
/// SwitchScan writes the device's name and ids as `N:`/`I:` lines, and the mapped codes'
/// names in comments, so a recording replays through the same profile.
public enum EvemuRecording {
    public struct Recording: Sendable {
        public var name: String
        public var bus: UInt16
        public var vendor: UInt16
        public var product: UInt16
        public var events: [RawInputEvent]
        public var axisRanges: [UInt16: ClosedRange<Int32>]
    }

    public typealias ParseError = LineFileError

    /// Recordings past this size are refused before they are read.
    public static let maxFileSize = 256 << 20
    /// Event times are seconds from the start, at most this many (about 11 days).
    public static let maxSeconds: Int64 = 1_000_000

    public static func parse(_ text: String, file: String) throws(ParseError) -> Recording {
        try parse(bytes: Array(text.utf8), file: file)
    }

    public static func parse(bytes: [UInt8], file: String) throws(ParseError) -> Recording {
        var rec = Recording(name: "", bus: 0, vendor: 0, product: 0, events: [], axisRanges: [:])
        var problems = LineProblems()
        var last = ScanInstant(nanoseconds: Int64.min)
        for (number, raw) in Lines(bytes) {
            let k = number - 1
            var line = raw
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }  // comments, also after an event
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            if parts.isEmpty { continue }
            switch parts.first {
            case "N:":
                rec.name = String(raw.drop { $0 != ":" }.dropFirst()).trimmingCharacters(in: [" ", "\t", "\r"])
            case "I:":
                let ids = parts.dropFirst().compactMap { UInt16($0, radix: 16) }
                if ids.count >= 3 { rec.bus = ids[0]; rec.vendor = ids[1]; rec.product = ids[2] }
                else { problems.add(k + 1, "an I: line gives bus, vendor and product in hex, e.g. \"I: 0003 045e 0b0a 0111\"") }
            case "A:":
                // A: <code hex> <min> <max> <fuzz> <flat> [<resolution>]
                if parts.count >= 4, let c = UInt16(parts[1], radix: 16), let lo = Int32(parts[2]), let hi = Int32(parts[3]), lo < hi {
                    rec.axisRanges[c] = lo...hi
                }
            case "E:":
                guard parts.count == 5, let t = parseTime(parts[1]), let type = UInt16(parts[2], radix: 16),
                      let code = UInt16(parts[3], radix: 16), let value = Int32(parts[4]) else {
                    problems.add(k + 1, "an event line is \"E: <seconds>.<microseconds> <type hex> <code hex> <value>\", e.g. \"E: 0.000001 0001 0039 1\"; seconds from 0 to \(maxSeconds)")
                    continue
                }
                if t < last {
                    problems.add(k + 1, "time \(parts[1]) goes back in time; a recording is in time order")
                    continue
                }
                last = t
                rec.events.append(RawInputEvent(type: type, code: code, value: value, time: t))
            default:
                continue  // B:, P:, L:, S: … describe the device; not needed to replay
            }
        }
        if !problems.isEmpty { throw ParseError(file: file, problems: problems, outcome: "nothing was replayed") }
        return rec
    }

    /// `SECONDS.MICROSECONDS`, digits only: no sign, six digits after the point, seconds
    /// up to `maxSeconds`.
    static func parseTime(_ s: String) -> ScanInstant? {
        let p = s.split(separator: ".", omittingEmptySubsequences: false)
        func digits(_ t: Substring) -> Bool { !t.isEmpty && t.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } }
        guard p.count == 2, digits(p[0]), digits(p[1]), p[0].count <= 7, p[1].count == 6,
              let sec = Int64(p[0]), let usec = Int64(p[1]), sec <= maxSeconds else { return nil }
        return ScanInstant(nanoseconds: sec * 1_000_000_000 + usec * 1000)
    }

    /// One event line (times relative to the recording's start).
    public static func line(_ e: RawInputEvent, since start: ScanInstant) -> String {
        let ns = max(0, e.time.nanoseconds - start.nanoseconds)
        let usec = String(ns / 1000 % 1_000_000)
        return "E: \(ns / 1_000_000_000).\(String(repeating: "0", count: 6 - usec.count))\(usec) "
            + "\(hex(e.type)) \(hex(e.code)) \(e.value)"
    }

    public static func header(name: String, bus: UInt16, vendor: UInt16, product: UInt16) -> String {
        "# EVEMU 1.3\n# Recorded by switchscan record\nN: \(name)\nI: \(hex(bus)) \(hex(vendor)) \(hex(product)) 0000\n"
    }

    static func hex(_ v: UInt16) -> String {
        let h = String(v, radix: 16)
        return String(repeating: "0", count: max(0, 4 - h.count)) + h
    }
}

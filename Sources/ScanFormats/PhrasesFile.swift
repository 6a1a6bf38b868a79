#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The phrases a person says often ("I need a drink", "Please turn me over"), ready on the
/// message screen: `$XDG_CONFIG_HOME/switchscan/phrases.txt`, UTF-8, one phrase a line, in
/// the order they are offered. A carer edits it by hand or with `switchscan phrases`; a
/// change is made like a change of the settings (UserFile: atomic, links kept, refusals
/// explained). Blank lines and lines starting with `#` are left out.
public enum PhrasesFile {
    /// Files past this size are refused before they are read: a phrases file is a few
    /// kilobytes.
    public static let maxFileSize = 1 << 20
    /// A phrase past this many characters is left out (said: the line and its length).
    public static let maxPhraseLength = 300
    /// Phrases past this many are left out: more could not be scanned in a reasonable time.
    public static let maxPhrases = 500

    public struct Loaded: Sendable {
        public var phrases: [String]
        /// What was left out and why, each naming the file and the line.
        public var problems: [String]
    }

    /// `$XDG_CONFIG_HOME/switchscan/phrases.txt`, else `~/.config/switchscan/phrases.txt`
    /// (an empty or relative variable counts as unset); nil without a home.
    public static func userPath(environment env: [String: String]) -> String? {
        let config = env["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? env["HOME"].flatMap { !$0.hasPrefix("/") ? nil : $0 + "/.config" }
        return config.map { $0 + "/switchscan/phrases.txt" }
    }

    /// The phrases at `path`: none while the file does not exist. A file that cannot be
    /// read as text (not a regular file, unreadable, too large, binary) is an error that
    /// names it and says what would be right; a bad line is left out and named in
    /// `problems`, and the other lines are read.
    public static func load(_ path: String) throws(FileReadError) -> Loaded {
        guard access(path, F_OK) == 0 else { return Loaded(phrases: [], problems: []) }
        let bytes = try readFile(path, what: "phrases file", limit: maxFileSize)
        if let zero = bytes.firstIndex(of: 0) {
            let line = bytes[..<zero].reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            throw FileReadError(description: "Error: phrases file \(shown(path)) is not text (a NUL byte on line \(line)). It should hold one phrase a line, in UTF-8; write it again or remove it.")
        }
        return parse(bytes, file: path)
    }

    /// The phrases of a file's text (see `load`).
    public static func parse(_ bytes: [UInt8], file: String) -> Loaded {
        var out = Loaded(phrases: [], problems: [])
        var seen = Set<String>()
        var extra = 0
        for (number, raw) in lines(bytes) {
            guard let text = String(validating: raw, as: UTF8.self) else {
                out.problems.append("\(shown(file)):\(number): not UTF-8 text; left out. Write the phrase again in UTF-8.")
                continue
            }
            guard let phrase = cleaned(text) else { continue }
            if phrase.count > maxPhraseLength {
                out.problems.append("\(shown(file)):\(number): a phrase of \(phrase.count) characters; left out. A phrase is at most \(maxPhraseLength) characters: split it.")
                continue
            }
            guard seen.insert(phrase).inserted else { continue }
            if out.phrases.count == maxPhrases { extra += 1; continue }
            out.phrases.append(phrase)
        }
        if extra > 0 {
            out.problems.append("\(shown(file)): \(extra) phrases after the first \(maxPhrases) are left out. Remove some, or put the ones most used first.")
        }
        return out
    }

    /// A line as a phrase: its spaces trimmed, control characters as spaces, a byte order
    /// mark (some editors start a file with one) left out; nil for a blank line or a comment.
    static func cleaned(_ line: String) -> String? {
        var s = String(line.filter { $0 != "\u{FEFF}" }.map { $0.isNewline || ($0.unicodeScalars.first.map { $0.properties.generalCategory == .control } ?? false) ? " " : $0 })
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        guard !s.isEmpty, !s.hasPrefix("#") else { return nil }
        return s
    }

    /// What `phrases add` and `remove` say, and whether the file changed.
    public enum Change: Equatable, Sendable { case added, removed, alreadyThere, notThere }

    /// Adds `phrase` at the end of the file at `path` (made, mode 0600, with its folder if
    /// needed); one already there is not added twice.
    public static func add(_ phrase: String, to path: String) throws(FileReadError) -> Change {
        guard let clean = cleaned(phrase) else {
            throw FileReadError(description: "Error: an empty phrase (or one starting with #) cannot be added. Give the words to say, in quotes: switchscan phrases add \"I need a drink\".")
        }
        guard clean.count <= maxPhraseLength else {
            throw FileReadError(description: "Error: the phrase has \(clean.count) characters; a phrase is at most \(maxPhraseLength). Split it into shorter ones.")
        }
        var result = Change.added
        try UserFile.update(path, what: "phrases file", mode: 0o600) { (current) throws(FileReadError) -> [UInt8] in
            let bytes = current ?? []
            if bytes.contains(0) {
                throw FileReadError(description: "Error: phrases file \(shown(path)) is not text; it was left unchanged. Write it again or remove it.")
            }
            // Every line, past the first `maxPhrases` too.
            if lines(bytes).contains(where: { String(validating: $0.bytes, as: UTF8.self).flatMap(cleaned) == clean }) {
                result = .alreadyThere
                return bytes
            }
            // Lines end as the file's do (CR LF where it has them).
            let newline: [UInt8] = bytes.firstIndex(of: 0x0A).map { $0 > 0 && bytes[$0 - 1] == 0x0D } == true ? [0x0D, 0x0A] : [0x0A]
            var out = bytes
            if let last = out.last, last != 0x0A { out += newline }
            out += Array(clean.utf8) + newline
            return out
        }
        return result
    }

    /// Removes every line that is `phrase` (as `load` reads it) from the file at `path`;
    /// the other lines, comments and blank lines stay as they were.
    public static func remove(_ phrase: String, from path: String) throws(FileReadError) -> Change {
        guard let clean = cleaned(phrase), access(path, F_OK) == 0 else { return .notThere }
        var result = Change.notThere
        try UserFile.update(path, what: "phrases file", mode: 0o600) { (current) throws(FileReadError) -> [UInt8] in
            guard let bytes = current else { return [] }
            var kept: [UInt8] = []
            for (_, line) in lines(bytes) where String(validating: line, as: UTF8.self).flatMap(cleaned) != clean {
                kept += line + [0x0A]
            }
            // The last line's newline: as it was.
            if bytes.last != 0x0A, !kept.isEmpty { kept.removeLast() }
            if kept.count != bytes.count { result = .removed }
            return kept
        }
        return result
    }

    /// A file's lines as bytes (without their newlines), numbered from 1: a line that is
    /// not UTF-8 is kept as it is when the file is changed.
    static func lines(_ bytes: [UInt8]) -> [(number: Int, bytes: ArraySlice<UInt8>)] {
        var out: [(Int, ArraySlice<UInt8>)] = []
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            out.append((out.count + 1, bytes[start..<end]))
            start = end + 1
        }
        return out
    }
}

/// Why a word list was refused: each bad line as `FILE:LINE: what was wrong; what is
/// allowed`, the first `limit` of them, then how many more and that nothing was loaded.
public struct WordListError: Error, CustomStringConvertible, Equatable, Sendable {
    public struct Problem: Equatable, Sendable {
        public var line: Int
        public var message: String

        public init(line: Int, message: String) {
            self.line = line
            self.message = message
        }
    }

    public static let limit = 20

    public var file: String
    public var problems: [Problem]
    /// Problems past the first `limit`, counted.
    public var omitted: Int
    /// The bad lines were skipped and the rest read (`WordList.parsingSkippingBadLines`),
    /// rather than the whole list refused.
    public var skipped: Bool

    init(file: String, problems: [Problem], omitted: Int, skipped: Bool = false) {
        self.file = file
        self.problems = problems
        self.omitted = omitted
        self.skipped = skipped
    }

    public var description: String {
        var lines = problems.map { "\(file):\($0.line): \($0.message)" }
        if omitted > 0 { lines.append("\(file): … and \(omitted) more") }
        let total = problems.count + omitted
        lines.append("\(file): \(total == 1 ? "1 error" : "\(total) errors"); "
            + (skipped ? (total == 1 ? "that line was skipped." : "those lines were skipped.") : "the word list was not loaded."))
        return lines.joined(separator: "\n")
    }
}

extension WordList {
    /// Reads the text format: UTF-8, one entry a line, `COUNT WORD` for a word and
    /// `COUNT WORD1 WORD2` for a pair (WORD2 seen after WORD1), fields separated by spaces
    /// or tabs; lines starting with `#` and blank lines are ignored. A count is a whole
    /// number from 1 to `maxCount`; each word and each pair is listed once. Any bad line
    /// refuses the whole list, with every problem (up to `WordListError.limit`) named.
    public init(parsing bytes: [UInt8], file: String) throws(WordListError) {
        let (list, problems) = Self.parse(bytes, file: file, pairLines: false)
        if let problems { throw problems }
        self = list
    }

    /// Reads the text format like `init(parsing:file:)`, but a bad line is skipped rather
    /// than refusing the list: the list of the good lines, and the bad ones named (nil when
    /// there were none). For the user's own words, damaged by a hand edit or a broken disk:
    /// what reads is kept.
    public static func parsingSkippingBadLines(_ bytes: [UInt8], file: String) -> (list: WordList, problems: WordListError?) {
        var (list, problems) = parse(bytes, file: file, pairLines: false)
        problems?.skipped = true
        return (list, problems)
    }

    /// `pairLines`: remember every pair with its line, to name the line of a pair listed
    /// twice (and skip it). Without it, a list with such a pair is read again with it.
    private static func parse(_ bytes: [UInt8], file: String, pairLines: Bool) -> (WordList, WordListError?) {
        var list = WordList()
        var problems: [WordListError.Problem] = []
        var omitted = 0
        func problem(_ line: Int, _ message: String) {
            if problems.count < WordListError.limit { problems.append(.init(line: line, message: message)) } else { omitted += 1 }
        }
        // Room for a list of the shipped size without regrowing (about 24 bytes a line).
        list.reserveCapacity(words: min(bytes.count / 24 + 1, 1 << 16), bytes: min(bytes.count / 8 + 1, 1 << 20))
        var wordLines: [Int32] = []  // by id: the line that gave it a count
        var pairs = Set<UInt64>()
        // Pairs are gathered first and handed to their first words at the end, each word's
        // array made at its final size: growing 16 000 arrays one pair at a time cost more
        // than the rest of the loading.
        var pending: [(first: Int32, second: WordList.Successor)] = []
        pending.reserveCapacity(bytes.count / 24 + 1)
        // Pairs come grouped by their first word: the last one's bytes and id are kept.
        var lastFirst: Range<Int> = 0..<0
        var lastFirstID: Int32 = -1

        var lineNo = 0
        var start = 0
        let n = bytes.count
        while start < n {
            lineNo += 1
            // Each byte is looked at once: the fields (up to four; a fourth is an error) and
            // the line's end in one pass, without an array per line. A CR before the line
            // feed is not part of the last field.
            var fields = (0..<0, 0..<0, 0..<0)
            var fieldCount = 0
            var i = start
            while true {
                while i < n && (bytes[i] == 0x20 || bytes[i] == 0x09) { i += 1 }
                if i == n || bytes[i] == 0x0A { break }
                let fieldStart = i
                while i < n && bytes[i] != 0x20 && bytes[i] != 0x09 && bytes[i] != 0x0A { i += 1 }
                var fieldEnd = i
                if bytes[fieldEnd - 1] == 0x0D && (i == n || bytes[i] == 0x0A) { fieldEnd -= 1 }
                if fieldEnd == fieldStart { continue }
                switch fieldCount {
                case 0: fields.0 = fieldStart..<fieldEnd
                case 1: fields.1 = fieldStart..<fieldEnd
                case 2: fields.2 = fieldStart..<fieldEnd
                default: break
                }
                fieldCount += 1
            }
            var end = i
            if end > start && bytes[end - 1] == 0x0D { end -= 1 }
            defer { start = i + 1 }

            guard fieldCount > 0, bytes[fields.0.lowerBound] != UInt8(ascii: "#") else { continue }
            guard fieldCount == 2 || fieldCount == 3 else {
                problem(lineNo, "expected \"COUNT WORD\" or \"COUNT WORD1 WORD2\", got \"\(excerpt(bytes[start..<end]))\"")
                continue
            }
            guard let count = Self.count(bytes[fields.0]) else {
                problem(lineNo, "\"\(excerpt(bytes[fields.0]))\" is not a count; a count is a whole number from 1 to \(Self.maxCount)")
                continue
            }

            if fieldCount == 2 {
                if let reason = Self.wordProblem(bytes[fields.1]) { problem(lineNo, reason); continue }
                let id = list.id(creatingUTF8: bytes[fields.1])
                while wordLines.count <= Int(id) { wordLines.append(0) }
                if list.count(id) > 0 {
                    problem(lineNo, "\"\(excerpt(bytes[fields.1]))\" is already listed on line \(wordLines[Int(id)]); list each word once")
                    continue
                }
                wordLines[Int(id)] = Int32(truncatingIfNeeded: lineNo)
                list.setCount(count, of: id)
            } else {
                let firstID: Int32
                if lastFirstID >= 0 && bytes[fields.1].elementsEqual(bytes[lastFirst]) {
                    firstID = lastFirstID
                } else {
                    if let reason = Self.wordProblem(bytes[fields.1]) { problem(lineNo, reason); continue }
                    firstID = list.id(creatingUTF8: bytes[fields.1])
                    lastFirst = fields.1
                    lastFirstID = firstID
                }
                if let reason = Self.wordProblem(bytes[fields.2]) { problem(lineNo, reason); continue }
                let secondID = list.id(creatingUTF8: bytes[fields.2])
                if pairLines && !pairs.insert(UInt64(UInt32(firstID)) << 32 | UInt64(UInt32(secondID))).inserted {
                    problem(lineNo, "the pair \"\(excerpt(bytes[fields.1])) \(excerpt(bytes[fields.2]))\" is already listed; list each pair once")
                    continue
                }
                pending.append((firstID, WordList.Successor(id: secondID, count: count)))
            }
        }
        list.appendPairs(pending)
        if !pairLines && list.hasRepeatedPair() { return parse(bytes, file: file, pairLines: true) }
        return (list, problems.isEmpty ? nil : WordListError(file: file, problems: problems, omitted: omitted))
    }

    /// The list in its text format: the words, most frequent first (equal counts in byte
    /// order), then the pairs grouped by first word in that order, most frequent first. The
    /// same list always gives the same bytes, and parsing them gives the same list.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(wordCount * 16 + pairCount * 24)
        for (word, count) in sortedWords() {
            out.append(contentsOf: String(count).utf8)
            out.append(0x20)
            out.append(contentsOf: word.utf8)
            out.append(0x0A)
        }
        for (first, second, count) in sortedPairs() {
            out.append(contentsOf: String(count).utf8)
            out.append(0x20)
            out.append(contentsOf: first.utf8)
            out.append(0x20)
            out.append(contentsOf: second.utf8)
            out.append(0x0A)
        }
        return out
    }

    /// A count: decimal digits, 1 to `maxCount`. Reading stops as soon as the value is past
    /// `maxCount`, so that no number of digits can overflow.
    static func count(_ digits: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for d in digits {
            guard d >= 0x30 && d <= 0x39 else { return nil }
            value = value * 10 + Int(d - 0x30)
            if value > maxCount { return nil }
        }
        return value >= 1 ? value : nil
    }

    /// Why a field cannot be a word, or nil if it can.
    private static func wordProblem(_ field: ArraySlice<UInt8>) -> String? {
        if field.allSatisfy({ $0 < 0x80 }) {
            if let bad = field.first(where: { $0 < 0x20 || $0 == 0x7F }) {
                return "a word has a control character (byte \(bad)); words are printable text without spaces"
            }
            return field.count > maxWordLength ? tooLong(field) : nil
        }
        if field.count > maxWordBytes { return tooLong(field) }
        guard let word = String(validating: field, as: UTF8.self) else {
            return "not UTF-8 text; word lists are UTF-8"
        }
        if word.count > maxWordLength { return tooLong(field) }
        guard isValidWord(word) else {
            return "\"\(excerpt(word))\" has a space or control character; words are printable text without spaces"
        }
        return nil
    }

    private static func tooLong(_ field: ArraySlice<UInt8>) -> String {
        "\"\(excerpt(field))\" is too long; a word is at most \(maxWordLength) characters and \(maxWordBytes) bytes"
    }
}

/// Text for a message, cut short: at most 40 characters of at most 80 code points (a
/// letter under a thousand combining marks is one character), control characters shown
/// as "?".
func excerpt<S: StringProtocol>(_ text: S) -> String {
    var scalars = String.UnicodeScalarView()
    var cut = false, n = 0
    for u in text.unicodeScalars {
        if n == 80 { cut = true; break }
        scalars.append(u.properties.generalCategory == .control ? "?" : u)
        n += 1
    }
    var cleaned = String(scalars)
    if cleaned.count > 40 { cleaned = String(cleaned.prefix(40)); cut = true }
    return cut ? cleaned + "…" : cleaned
}

func excerpt(_ bytes: ArraySlice<UInt8>) -> String {
    excerpt(String(decoding: bytes.prefix(200), as: UTF8.self))
}

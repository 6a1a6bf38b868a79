import JSONTape
import ScanCore

/// One finding about a data file: where (file, line:column, JSON path, element id), what
/// was wrong and what would be right.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable { case error, warning, info }

    public var severity: Severity
    public var code: String
    public var file: String
    public var offset: Int
    public var line = 0
    public var column = 0
    public var path: String
    public var element: String?
    public var message: String

    public init(_ severity: Severity, _ code: String, file: String, offset: Int, path: String,
                element: String?, _ message: String) {
        self.severity = severity; self.code = code; self.file = file; self.offset = offset
        self.path = path; self.element = element; self.message = message
    }

    /// `file:line:col: error E09: $.path (element "id"): message`, always one line: names
    /// and values quoted from the file show their control characters (a newline in a key
    /// cannot forge a line of its own).
    public var description: String {
        var s = "\(file):\(line):\(column): \(severity.rawValue) \(code): \(path)"
        if let element { s += " (element \"\(element)\")" }
        return TerminalText.visible(s + ": " + message)
    }
}

/// A file that could not be used, with everything wrong in it.
public struct DataFileError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var diagnostics: [Diagnostic]
    /// Findings beyond those kept (a reader keeps the first thousand).
    public var omitted: Int

    public init(file: String, diagnostics: [Diagnostic], omitted: Int = 0) {
        self.file = file; self.diagnostics = diagnostics; self.omitted = omitted
    }

    public var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }

    public var description: String {
        let errs = errors
        var lines = errs.map(\.description)
        if omitted > 0 { lines.append("\(file): … and \(omitted) more") }
        let total = errs.count + omitted
        let count = total == 1 ? "1 error" : "\(total) errors"
        return (lines + ["\(file): \(count); the file was not loaded."]).joined(separator: "\n")
    }
}

/// Sorts by position and fills in line and column in one pass over the file (a generated
/// file can be one 100 MB line with thousands of findings). Columns count characters as an
/// editor does (UTF-8 scalars).
func locate(_ diagnostics: [Diagnostic], in bytes: [UInt8]) -> [Diagnostic] {
    guard !diagnostics.isEmpty else { return [] }
    var sorted = diagnostics.sorted { $0.offset < $1.offset }
    var line = 1, column = 1, pos = 0
    for k in sorted.indices {
        let target = min(max(sorted[k].offset, 0), bytes.count)
        while pos < target {
            let b = bytes[pos]
            if b == 0x0A { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
            pos += 1
        }
        sorted[k].line = line
        sorted[k].column = column
    }
    return sorted
}

/// "did you mean" for a misspelt name: the nearest candidate within a small edit distance.
/// A word far longer than every candidate is no misspelling of one: it gets no suggestion,
/// so that the work stays small whatever a file holds.
public func suggestion(for word: String, among candidates: [String]) -> String? {
    let longest = candidates.map(\.utf8.count).max() ?? 0
    guard word.utf8.count <= 2 * longest + 8 else { return nil }
    // Bytes, ASCII letters folded: names in data files are ASCII, and this runs for every
    // unknown name of a file against every candidate.
    func folded(_ s: String) -> [UInt8] { s.utf8.map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 } }
    let w = folded(word)
    let limit = max(2, w.count / 3)
    var best: (String, Int)?
    for c in candidates {
        let cw = folded(c)
        // A length that far off cannot be within the limit: no distance to compute.
        guard abs(cw.count - w.count) <= limit else { continue }
        if let d = editDistance(w, cw, atMost: min(limit, (best?.1 ?? limit + 1) - 1)), best == nil || d < best!.1 { best = (c, d) }
    }
    if let (name, _) = best { return name }
    // A known name inside a decorated spelling ("isButton", "UIAccessibilityTraitButton").
    return candidates.first { c in c.count >= 3 && w.count >= c.utf8.count && w.suffix(c.utf8.count).elementsEqual(folded(c)) }
}

/// The edit distance of `a` and `b`, or nil once it is certain to exceed `limit`.
func editDistance(_ a: [UInt8], _ b: [UInt8], atMost limit: Int) -> Int? {
    if a.isEmpty { return b.count <= limit ? b.count : nil }
    if b.isEmpty { return a.count <= limit ? a.count : nil }
    var prev = Array(0...b.count)
    var cur = Array(repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        cur[0] = i
        var rowMin = i
        for j in 1...b.count {
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            rowMin = min(rowMin, cur[j])
        }
        if rowMin > limit { return nil }
        swap(&prev, &cur)
    }
    return prev[b.count] <= limit ? prev[b.count] : nil
}

func quotedList(_ names: [String]) -> String { names.joined(separator: ", ") }

/// A data file parsed once, for a reader that tells what it is from its content
/// (`switchscan validate`) and then loads it without parsing it again.
public struct ParsedDataFile: Sendable {
    public let bytes: [UInt8]
    public let file: String
    let document: JSONDocument

    public init(bytes: [UInt8], file: String) throws(DataFileError) {
        self.bytes = bytes
        self.file = file
        document = try parseDataFile(bytes, file: file)
    }

    /// Whether the top level is an object with any of these keys.
    public func hasTopLevelKey(_ keys: [String]) -> Bool {
        guard let members = document.root.object else { return false }
        return members.contains { keys.contains($0.key) }
    }
}

/// Parses a data file's JSON; a syntax error becomes the file's one E01 diagnostic.
func parseDataFile(_ bytes: [UInt8], file: String) throws(DataFileError) -> JSONDocument {
    do {
        return try JSONDocument.parse(bytes)
    } catch {
        throw DataFileError(file: file, diagnostics: locate([Diagnostic(.error, "E01", file: file, offset: error.offset,
            path: "$", element: nil, "malformed JSON: \(error.message)")], in: bytes))
    }
}

/// Turns byte offsets into 1-based line:column, built once per file that needs it.
public struct LineIndex: Sendable {
    var lineStarts: [Int] = [0]
    let bytes: [UInt8]

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        for (k, b) in bytes.enumerated() where b == 0x0A { lineStarts.append(k + 1) }
    }

    public func position(of offset: Int) -> (line: Int, column: Int) {
        var lo = 0, hi = lineStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if lineStarts[mid] <= offset { lo = mid } else { hi = mid - 1 }
        }
        // Columns count characters (UTF-8 scalars), not bytes, as an editor does.
        let start = lineStarts[lo]
        let end = min(max(offset, start), bytes.count)
        var column = 1
        for k in start..<end where bytes[k] & 0xC0 != 0x80 { column += 1 }
        return (lo + 1, column)
    }
}

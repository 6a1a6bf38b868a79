#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The messages a person said lately on the message screen, offered again under
/// `Phrases`: `$XDG_DATA_HOME/switchscan/history.txt`, readable by the user alone (they
/// are the person's own words), newest first, one a line, at most `limit`. A message's
/// line breaks are kept as `\n` and backslashes as `\\`. Changed like the settings
/// (UserFile: atomic, links kept).
public enum MessageHistoryFile {
    public static let limit = 50
    /// A history is 50 messages: anything near this size is not one.
    public static let maxFileSize = 1 << 20

    /// `$XDG_DATA_HOME/switchscan/history.txt`, else `~/.local/share/switchscan/history.txt`;
    /// nil without a home.
    public static func userPath(environment env: [String: String]) -> String? {
        let data = env["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? env["HOME"].flatMap { !$0.hasPrefix("/") ? nil : $0 + "/.local/share" }
        return data.map { $0 + "/switchscan/history.txt" }
    }

    /// The messages at `path`, newest first: none while the file does not exist. A file
    /// that cannot be read is an error that names it; a line that is not UTF-8 is left out.
    public static func load(_ path: String) throws(FileReadError) -> [String] {
        guard access(path, F_OK) == 0 else { return [] }
        return parse(try readFile(path, what: "message history", limit: maxFileSize))
    }

    static func parse(_ bytes: [UInt8]) -> [String] {
        var out: [String] = []
        for (_, line) in PhrasesFile.lines(bytes) where out.count < limit {
            guard let text = String(validating: line, as: UTF8.self), let message = unescaped(text), !message.isEmpty,
                  !out.contains(message) else { continue }
            out.append(message)
        }
        return out
    }

    /// Puts `message` first in the history at `path` (once: an earlier saying of it moves
    /// up), keeping the newest `limit`.
    public static func add(_ message: String, to path: String) throws(FileReadError) {
        guard !message.isEmpty else { return }
        try UserFile.update(path, what: "message history", mode: 0o600) { (current) throws(FileReadError) -> [UInt8] in
            let kept = parse(current ?? []).filter { $0 != message }
            let all = ([message] + kept).prefix(limit)
            return Array(all.map { escaped($0) + "\n" }.joined().utf8)
        }
    }

    static func escaped(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "\\": out += "\\\\"
            case "\n", "\r\n": out += "\\n"
            case "\r": out += "\\n"
            default: out.append(c)
            }
        }
        return out
    }

    /// nil for a line that is not as `escaped` writes (a lone backslash before another letter).
    static func unescaped(_ s: String) -> String? {
        var out = ""
        var escape = false
        for c in s {
            if escape {
                switch c {
                case "\\": out.append("\\")
                case "n": out.append("\n")
                default: return nil
                }
                escape = false
            } else if c == "\\" {
                escape = true
            } else {
                out.append(c)
            }
        }
        return escape ? nil : out
    }
}

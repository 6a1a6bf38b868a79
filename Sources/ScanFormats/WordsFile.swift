#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WordPrediction

/// Word list files: a language's list (`Words/en.words`) and the words the user has taught
/// the predictor (`words.txt`), both in the word list format (Words/README.md). The user's
/// file is changed like the settings file (UserFile), and readable by the user alone: it
/// holds words they typed.
public enum WordsFile {
    /// How to mend a learned-words file with a bad line.
    public static let mend = "Edit the lines named, or forget every learned word with 'switchscan words forget --all'."

    /// Word lists past this size are refused before they are read.
    public static let maxFileSize = 64 << 20

    /// `$XDG_DATA_HOME/switchscan/words.txt`, else `~/.local/share/switchscan/words.txt`
    /// (an empty or relative variable counts as unset, as the XDG rules say); nil without a home.
    public static func userPath(environment env: [String: String]) -> String? {
        let data = env["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? env["HOME"].flatMap { !$0.hasPrefix("/") ? nil : $0 + "/.local/share" }
        return data.map { $0 + "/switchscan/words.txt" }
    }

    /// The word list at `path`; a missing file, an unreadable one or a bad line is an error
    /// that names it (and the line).
    public static func load(_ path: String) throws(FileReadError) -> WordList {
        let bytes = try readFile(path, what: "word list", limit: maxFileSize)
        do {
            return try WordList(parsing: bytes, file: path)
        } catch {
            throw FileReadError(description: error.description)
        }
    }

    /// The user's learned words: empty while the file does not exist yet. A bad line (a
    /// hand edit, a broken disk) does not cost the user the rest: it is skipped and named in
    /// `damaged`, and the other lines are read. A file that cannot be read at all is an error.
    public static func loadUser(_ path: String) throws(FileReadError) -> (list: WordList, damaged: WordListError?) {
        guard access(path, F_OK) == 0 else { return (WordList(), nil) }
        let bytes = try readFile(path, what: "word list", limit: maxFileSize)
        let (list, problems) = WordList.parsingSkippingBadLines(bytes, file: path)
        return (list, problems)
    }

    /// Changes the user's words at `path` as they are at that moment (UserFile), creating
    /// the file (mode 0600) and its folder if needed: a header comment, then the list.
    /// `body` says whether it changed anything; when not, the file is left as it is (a
    /// comment the user wrote in it stays). A file with a bad line is refused, unless
    /// `skippingBadLines` (for a change that does not depend on what is there).
    public static func change(_ path: String, skippingBadLines: Bool = false,
                              _ body: (inout WordList) -> Bool) throws(FileReadError) {
        try UserFile.update(path, what: "word list", mode: 0o600) { (current) throws(FileReadError) -> [UInt8] in
            var list = WordList()
            if let current {
                if skippingBadLines {
                    list = WordList.parsingSkippingBadLines(current, file: path).list
                } else {
                    do throws(WordListError) { list = try WordList(parsing: current, file: path) } catch {
                        throw FileReadError(description: error.description + "\n\(path) was left unchanged. \(mend)")
                    }
                }
            }
            guard body(&list) else { return current ?? [] }
            let header = """
                # SwitchScan: the words you taught the predictor, learned as you typed.
                # COUNT WORD, then COUNT WORD1 WORD2 (WORD2 typed after WORD1). Edit it, or use
                # 'switchscan words forget WORD'. Format: Words/README.md.

                """
            return Array(header.utf8) + list.serialized()
        }
    }
}

import Foundation
import ScanCore
import ScanFormats
import WordPrediction

/// Problems with the user's files end the command with status 2 after saying what is
/// wrong and where; nothing is written on stdout by then.
public struct InputProblem: Error {
    public var message: String
    public init(message: String) { self.message = message }
}

/// A whole input file ("-" is standard input), refused past `limit` bytes before or while
/// it is read. With `streams`, pipes, FIFOs and /dev/stdin are read as they come; without,
/// only a regular file is read (`readFile`).
public func readBytes(_ path: String, what: String, limit: Int = LayoutLoader.maxFileSize, streams: Bool = false) throws(InputProblem) -> [UInt8] {
    do {
        return try readFile(path, what: what, limit: limit, streams: streams)
    } catch {
        throw InputProblem(message: error.description)
    }
}

public func loadLayout(_ path: String) throws(InputProblem) -> LayoutDocument {
    let bytes = try readBytes(path, what: "layout", streams: true)
    do {
        return try LayoutLoader.load(bytes: bytes, file: path)
    } catch {
        throw InputProblem(message: error.description)
    }
}

public func loadSettings(_ path: String) throws(InputProblem) -> ScanSettings {
    let bytes = try readBytes(path, what: "settings file")
    do {
        return try SettingsLoader.load(bytes: bytes, file: path)
    } catch {
        throw InputProblem(message: error.description)
    }
}

/// The keyboard's words: a word list file, else the bundled English one.
public func loadWords(_ file: String? = nil) throws(InputProblem) -> WordPredictor {
    do {
        return WordPredictor(system: try WordsFile.load(file ?? BundledData.wordList(language: "en")))
    } catch {
        throw InputProblem(message: error.description)
    }
}

/// The phrases of the message screen from `path`: a file that cannot be read is an error
/// that names it; a line left out (too long, not UTF-8) is in `problems`, for the user to
/// be told, and the others are offered. `mustExist`: a file named on the command line,
/// not the user's own.
public func loadPhrases(_ path: String, mustExist: Bool) throws(InputProblem) -> PhrasesFile.Loaded {
    if mustExist && access(path, F_OK) != 0 {
        throw InputProblem(message: "Error: phrases file \(path) does not exist. Give a file of one phrase a line (docs/MESSAGES.md).")
    }
    do {
        return try PhrasesFile.load(path)
    } catch {
        throw InputProblem(message: error.description)
    }
}

/// The user's learned words for a session, whether it may learn more into their file, and
/// what to tell the user. A file that cannot be read is said and left as it is; one with a
/// damaged line gives the words of its other lines, and is left as it is too, for the user
/// to mend (nothing is learned into it that time).
public func learnedWords(_ path: String?, learn: Bool) -> (list: WordList, learn: Bool, note: String?) {
    guard let path else { return (WordList(), learn, nil) }
    do {
        let read = try WordsFile.loadUser(path)
        guard let damaged = read.damaged else { return (read.list, learn, nil) }
        return (read.list, false, "Warning: your learned words are damaged:\n\(damaged.description)\n"
            + "The other words are used, but nothing new is learned into the file until it is mended. " + WordsFile.mend)
    } catch {
        return (WordList(), false, "Warning: your learned words are not used: \(error.description)")
    }
}

/// Where the bundled data folders (Layouts/, Devices/, Words/) are: `share/switchscan` beside an
/// installed `bin/`, else the checkout the executable was built in (it sits in
/// .build/<triple>/<config>/), else the current directory when it is a checkout. A folder
/// of the same name elsewhere in the current directory does not shadow them.
public enum BundledData {
    public static func path(_ relative: String) -> String? {
        let fm = FileManager.default
        for base in bases() {
            let candidate = base.appendingPathComponent(relative).path
            if fm.fileExists(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// A bundled file, or the relative path itself (whose error then names it) when none is found.
    public static func file(_ relative: String) -> String { path(relative) ?? relative }

    /// The bundled word list of `language` ("en": Words/en.words), or its relative path
    /// when none is found.
    public static func wordList(language: String) -> String { file("Words/\(language).words") }

    public static func bases() -> [URL] {
        let fm = FileManager.default
        // /proc/self/exe: the real binary, whatever symlink or PATH entry started it.
        let exe = (try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            .map { URL(fileURLWithPath: $0) } ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let bin = exe.deletingLastPathComponent()
        var bases = [bin.deletingLastPathComponent().appendingPathComponent("share/switchscan")]
        // A checkout is a folder with Package.swift, up to three levels above the binary.
        var dir = bin
        for _ in 0..<4 {
            if fm.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { bases.append(dir); break }
            dir = dir.deletingLastPathComponent()
        }
        let here = URL(fileURLWithPath: fm.currentDirectoryPath)
        if fm.fileExists(atPath: here.appendingPathComponent("Package.swift").path) { bases.append(here) }
        return bases
    }
}


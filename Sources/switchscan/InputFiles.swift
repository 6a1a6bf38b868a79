import ArgumentParser
import CSys
import Foundation
import ScanCore
import ScanFormats
import ScanHost
import WordPrediction

/// Problems with the user's files end the command with status 2 after saying what is
/// wrong and where; nothing is written on stdout by then.
struct InputProblem: Error {
    var message: String
}

func fail(_ message: String) -> ExitCode {
    writeErr(message.hasSuffix("\n") ? message : message + "\n")
    return ExitCode(2)
}

/// A whole input file ("-" is standard input), refused past `limit` bytes before or while
/// it is read. Pipes, FIFOs and /dev/stdin are read as they come.
func readBytes(_ path: String, what: String, limit: Int = LayoutLoader.maxFileSize) throws(InputProblem) -> [UInt8] {
    do {
        return try readFile(path, what: what, limit: limit)
    } catch {
        throw InputProblem(message: error.description)
    }
}

func loadLayout(_ path: String) throws(InputProblem) -> LayoutDocument {
    let bytes = try readBytes(path, what: "layout")
    do {
        return try LayoutLoader.load(bytes: bytes, file: path)
    } catch {
        throw InputProblem(message: error.description)
    }
}

func loadSettings(_ path: String) throws(InputProblem) -> ScanSettings {
    let bytes = try readBytes(path, what: "settings file")
    do {
        return try SettingsLoader.load(bytes: bytes, file: path)
    } catch {
        throw InputProblem(message: error.description)
    }
}

/// The keyboard's words: a word list file, else the bundled English one.
func loadWords(_ file: String? = nil) throws(InputProblem) -> WordPredictor {
    do {
        return WordPredictor(system: try WordsFile.load(file ?? BundledData.wordList(language: "en")))
    } catch {
        throw InputProblem(message: error.description)
    }
}

/// Seconds as a person writes them: "12", "12.5". Not "0x10", "1e3", "inf" or "nan", which
/// Double's parser would take.
struct Seconds {
    var value: Double
    init?(argument: String) {
        let parts = argument.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              parts.count == 1 || !parts[1].isEmpty, let v = Double(argument) else { return nil }
        value = v
    }
}

extension ScanStyle: ExpressibleByArgument {}
extension ScanMode: ExpressibleByArgument {}

/// The options every scanning command shares.
struct ScanOptions: ParsableArguments {
    @Option(help: "A settings file (JSON) with the timing and behaviour preferences.")
    var settings: String?

    @Option(help: "Scanning style: auto, manual or step (overrides the settings file).")
    var style: ScanStyle?

    @Option(help: "Start in item or point mode (overrides the settings file).")
    var mode: ScanMode?

    /// The layout and the settings, each problem added to `problems` (all are reported).
    func load(layout: String, problems: inout [String]) -> (LayoutDocument?, ScanSettings) {
        var document: LayoutDocument?
        do { document = try loadLayout(layout) } catch { problems.append(error.message) }
        return (document, loadScanSettings(problems: &problems))
    }

    /// The settings alone (the live desktop has no layout file).
    func loadScanSettings(problems: inout [String]) -> ScanSettings {
        var scanSettings = ScanSettings()
        if let settings {
            do { scanSettings = try loadSettings(settings) } catch { problems.append(error.message) }
        }
        if let style { scanSettings.style = style }
        if let mode { scanSettings.mode = mode }
        return scanSettings
    }
}

/// Where the bundled data folders (Layouts/, Devices/, Words/) are: `share/switchscan` beside an
/// installed `bin/`, else the checkout the executable was built in (it sits in
/// .build/<triple>/<config>/), else the current directory when it is a checkout. A folder
/// of the same name elsewhere in the current directory does not shadow them.
enum BundledData {
    static func path(_ relative: String) -> String? {
        let fm = FileManager.default
        for base in bases() {
            let candidate = base.appendingPathComponent(relative).path
            if fm.fileExists(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// A bundled file, or the relative path itself (whose error then names it) when none is found.
    static func file(_ relative: String) -> String { path(relative) ?? relative }

    /// The bundled word list of `language` ("en": Words/en.words), or its relative path
    /// when none is found.
    static func wordList(language: String) -> String { file("Words/\(language).words") }

    static func bases() -> [URL] {
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

/// Ctrl-C, Ctrl-\, SIGTERM and SIGHUP, taken by a thread that waits for them.
///
/// `block()` is called before any thread exists, so that every thread inherits the block:
/// such a signal then stays pending, whenever it comes, until `wait()` takes it. (A Dispatch
/// signal source lost a SIGTERM sent just after start: until Dispatch registers it the
/// disposition is SIG_IGN, and Dispatch's main loop unblocks signals on the main thread.)
enum TerminationSignals {
    /// Those the parent left to us: a signal it ignores (`nohup` ignores SIGHUP) stays
    /// ignored for the whole run. Linux keeps a blocked signal pending even when it is
    /// ignored, so an ignored one must not be blocked and waited for.
    static let all = [SIGINT, SIGQUIT, SIGTERM, SIGHUP].filter { csys_signal_ignored($0) == 0 }

    static var set: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for sig in all { sigaddset(&set, sig) }
        return set
    }

    static func block() {
        var s = set
        pthread_sigmask(SIG_BLOCK, &s, nil)
    }

    /// The next one to come (blocking).
    static func wait() -> Int32 {
        var s = set
        var sig: Int32 = 0
        while sigwait(&s, &sig) != 0 {}
        return sig
    }

    /// Blocks them and takes them on a thread of its own from now on: until `handle` is
    /// given a way to end the run cleanly, one of them ends the process at once, dying of
    /// that signal (loading a FIFO, a pipe, an accessibility bus that never answers: the
    /// user can still stop it), after `early` has put back what setup changed (the
    /// terminal). The kernel releases devices grabbed and removes virtual ones with the
    /// process.
    static func watch(early: @escaping @Sendable () -> Void) {
        block()
        guard let thread = try? spawnThread({
            while true {
                let sig = wait()
                if let end = handler.withLock({ $0 }) {
                    end(sig)
                } else {
                    early()
                    dieOf(sig)
                }
            }
        }) else { return }
        pthread_detach(thread)
    }

    /// How a signal ends the run from now on (the session's clean shutdown).
    static func handle(_ end: @escaping @Sendable (Int32) -> Void) { handler.withLock { $0 = end } }

    private static let handler = Locked<(@Sendable (Int32) -> Void)?>(nil)

    /// Ends the process as that signal would have, so that a shell or a supervisor sees it.
    static func dieOf(_ sig: Int32) -> Never {
        signal(sig, SIG_DFL)
        var one = sigset_t()
        sigemptyset(&one)
        sigaddset(&one, sig)
        pthread_sigmask(SIG_UNBLOCK, &one, nil)
        raise(sig)
        exit(128 + sig)
    }
}

import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one run of the built `switchscan` printed and how it ended.
struct RunResult: Sendable, CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String
    var timedOut: Bool

    var stdoutLines: [String] {
        stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast(stdout.hasSuffix("\n") ? 1 : 0).map(String.init)
    }

    var description: String {
        "exit status \(status)\(timedOut ? " (timed out)" : "")\n--- stdout ---\n\(stdout)--- stderr ---\n\(stderr)"
    }
}

/// Runs the `switchscan` executable that SwiftPM built next to this test bundle, as a
/// subprocess, with the package root as its current directory (so that `Layouts/…` and
/// `Examples/…` resolve), a time limit, and stdout/stderr captured through files (no pipe
/// can fill up and deadlock).
enum CLI {
    static let packageRoot = TestPaths.packageRoot
    static let binary: URL? = TestPaths.executable(named: "switchscan")

    /// How long a run may take: 20 s, longer by SWITCHSCAN_TEST_TIME_SCALE when the children
    /// are built with a sanitizer and run several times slower.
    static let timeout: Double = 20 * timeScale
    static let timeScale = TestPaths.timeScale

    /// The executable and arguments of a command line: `switchscan ARGS…`, or the
    /// benchmarks' own tool when the first word is `switchscan-bench`.
    static func command(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> (URL, [String]) {
        let binary = try #require(binary, "the switchscan executable was not found next to the test bundle nor under .build*/debug", sourceLocation: sourceLocation)
        guard arguments.first == "switchscan-bench" else { return (binary, arguments) }
        return (binary.deletingLastPathComponent().appendingPathComponent("switchscan-bench"), Array(arguments.dropFirst()))
    }

    /// Runs `switchscan ARGS…` (or `switchscan-bench ARGS…`, see `command`); `stdin` (if given) is written to its standard input through
    /// a pipe, otherwise standard input is /dev/null. A run longer than `timeout` seconds is
    /// terminated and recorded as a test failure.
    static func run(
        _ arguments: [String], stdin: String? = nil, timeout: Double = CLI.timeout, directory: URL? = nil,
        environment: [String: String]? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> RunResult {
        let (binary, arguments) = try command(arguments, sourceLocation: sourceLocation)
        let scratch = try TempDir()
        defer { scratch.remove() }
        let outURL = scratch.url.appendingPathComponent("stdout")
        let errURL = scratch.url.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        defer { try? outHandle.close(); try? errHandle.close() }

        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? packageRoot
        if let environment { process.environment = environment }
        process.standardOutput = outHandle
        process.standardError = errHandle
        let input = stdin.map { _ in Pipe() }
        process.standardInput = input ?? FileHandle.nullDevice

        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        try process.run()
        if let input, let stdin {
            // Written from another thread so that a child that does not read cannot block us.
            let writer = input.fileHandleForWriting
            let bytes = Data(stdin.utf8)
            DispatchQueue.global().async {
                try? writer.write(contentsOf: bytes)
                try? writer.close()
            }
        }
        var timedOut = false
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            process.terminate()
            if finished.wait(timeout: .now() + 1) == .timedOut {  // SIGTERM may be blocked in the child
                kill(process.processIdentifier, SIGKILL)
                _ = finished.wait(timeout: .now() + 5)
            }
            Issue.record("switchscan \(arguments.joined(separator: " ")) did not finish within \(timeout) s; terminated", sourceLocation: sourceLocation)
        }
        let out = String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self)
        let err = String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self)
        // A death by signal N is reported as 128 + N, as a shell would, so that it can never
        // pass for one of the tool's own exit statuses.
        let status: Int32 = process.isRunning ? -1
            : process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus
            : process.terminationStatus
        return RunResult(status: status, stdout: out, stderr: err, timedOut: timedOut)
    }
}

/// A fresh directory under the system's temporary directory, removed by `remove()`.
struct TempDir: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("switchscan-cli-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Writes `text` to `name` inside the directory; returns the file's absolute path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let file = url.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file.path
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Runs `body` with a fresh temporary directory and removes it afterwards.
func withTempDir<T>(_ body: (TempDir) throws -> T) throws -> T {
    let dir = try TempDir()
    defer { dir.remove() }
    return try body(dir)
}

/// One line of `simulate` output: the raw text, its time in whole milliseconds (read from
/// the printed digits, not through floating point), and the parsed object.
struct EffectLine {
    var raw: String
    var millis: Int
    var object: [String: Any]

    var effect: String? { object["effect"] as? String }
    var item: String? { object["item"] as? String }
    var kind: String? { object["kind"] as? String }
    var seconds: String { String(raw.dropFirst(5).prefix { $0 != "," && $0 != "}" }) }
}

/// Parses every stdout line of `simulate`, recording an issue for any line that is not a JSON
/// object starting with `{"t":SECONDS.mmm,"effect":"…"`, and for any time going backwards.
func parseEffects(_ result: RunResult, sourceLocation: SourceLocation = #_sourceLocation) -> [EffectLine] {
    var lines: [EffectLine] = []
    var previous = Int.min
    for raw in result.stdoutLines {
        guard raw.hasPrefix("{\"t\":") else {
            Issue.record("line does not start with {\"t\": — \(raw)", sourceLocation: sourceLocation)
            continue
        }
        let t = raw.dropFirst(5).prefix { $0 != "," && $0 != "}" }
        let parts = t.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].allSatisfy(\.isASCII), parts[0].allSatisfy(\.isNumber),
              parts[1].count == 3, parts[1].allSatisfy(\.isASCII), parts[1].allSatisfy(\.isNumber),
              let whole = Int(parts[0]), let fraction = Int(parts[1])
        else {
            Issue.record("t is not seconds with exactly 3 decimals: \(t) in \(raw)", sourceLocation: sourceLocation)
            continue
        }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(raw.utf8))) as? [String: Any] else {
            Issue.record("line is not a JSON object: \(raw)", sourceLocation: sourceLocation)
            continue
        }
        if !(object["effect"] is String) {
            Issue.record("line has no \"effect\" string: \(raw)", sourceLocation: sourceLocation)
        }
        if !raw.dropFirst(5 + t.count).hasPrefix(",\"effect\":") {
            Issue.record("\"effect\" is not the second key: \(raw)", sourceLocation: sourceLocation)
        }
        let millis = whole * 1000 + fraction
        if millis < previous {
            Issue.record("output is not in time order at \(raw)", sourceLocation: sourceLocation)
        }
        previous = millis
        lines.append(EffectLine(raw: raw, millis: millis, object: object))
    }
    return lines
}

/// The layouts bundled in Layouts/, listed by hand.
let bundledLayouts = [
    "Layouts/adjustable-stepper.json",
    "Layouts/custom-actions.json",
    "Layouts/grouping-activation-point.json",
    "Layouts/keypad-order.json",
    "Layouts/mail-inbox.json",
    "Layouts/modal-dialog.json",
    "Layouts/navbar-order.json",
    "Layouts/switch-control.swiftui.json",
    "Layouts/switch-control.uikit.json",
]

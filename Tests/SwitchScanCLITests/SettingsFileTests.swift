import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The scanner menu's Settings survive a restart: `run` keeps a change in the user's
/// settings file, and the next run starts from it; the file is replaced atomically.
@Suite("The user's settings file")
struct SettingsFileTests {
    /// `switchscan run` with HOME in `home`, the terminal keys in `keys` (m: menu, Tab: next,
    /// space: select), stdin's end quitting.
    static func run(home: URL, keys: String) throws -> RunResult {
        let binary = try #require(CLI.binary)
        let process = Process()
        process.executableURL = binary
        process.arguments = ["run", "--layout", "Layouts/switch-control.uikit.json", "--no-devices", "--output", "json"]
        process.currentDirectoryURL = CLI.packageRoot
        process.environment = ["HOME": home.path, "PATH": "/usr/bin:/bin"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        try input.fileHandleForWriting.write(contentsOf: Data(keys.utf8))
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return RunResult(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: "", timedOut: false)
    }

    @Test func fasterFromTheMenuIsKeptForTheNextRun() throws {
        try withTempDir { dir in
            // Menu, next to Settings, select it, select Faster.
            let first = try Self.run(home: dir.url, keys: "m\t  ")
            #expect(first.stdout.contains(#""effect":"settingChanged","name":"autoScanInterval","value":0.9"#), "\(first.stdout)")
            let file = dir.url.appendingPathComponent(".config/switchscan/settings.json")
            #expect((try? String(contentsOf: file, encoding: .utf8)) == "{\n  \"autoScanInterval\": 0.9\n}\n")
            // The next run starts at 0.9 s: Faster takes it to 0.8.
            let second = try Self.run(home: dir.url, keys: "m\t  ")
            #expect(second.stdout.contains(#""name":"autoScanInterval","value":0.8"#), "\(second.stdout)")
            #expect((try? String(contentsOf: file, encoding: .utf8))?.contains("0.8") == true)
        }
    }

    @Test func setKeepsTheOtherSettingsAndRefusesABadValue() throws {
        try withTempDir { dir in
            let file = try dir.write("s.json", #"{"style": "step", "weights": {"a": 2}}"#)
            #expect(try CLI.run(["settings", "set", "autoScanInterval", "1.5", "--file", file]).status == 0)
            let bad = try CLI.run(["settings", "set", "loops", "500", "--file", file])
            #expect(bad.status == 2)
            #expect(bad.stderr.contains("$.loops") && bad.stderr.contains("left unchanged"), "\(bad.stderr)")
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(text == "{\n  \"style\": \"step\",\n  \"weights\": {\"a\":2},\n  \"autoScanInterval\": 1.5\n}\n")
        }
    }

    /// A negative number is a value, not an option; one value only.
    @Test func setTakesANegativeNumberAndOneValue() throws {
        try withTempDir { dir in
            let file = try dir.write("s.json", "{}")
            let set = try CLI.run(["settings", "set", "speechVolume", "-5", "--file", file])
            #expect(set.status == 0, "\(set.stderr)")
            #expect(try String(contentsOfFile: file, encoding: .utf8) == "{\n  \"speechVolume\": -5\n}\n")
            let two = try CLI.run(["settings", "set", "speechVolume", "1", "2", "--file", file])
            #expect(two.status == 64 && two.stderr.contains("One value only, not 2: 1 2"), "\(two.stderr)")
            let none = try CLI.run(["settings", "set", "speechVolume", "--file", file])
            #expect(none.status == 64 && none.stderr.contains("Missing expected argument '<value>'"), "\(none.stderr)")
        }
    }

    @Test func showRefusesABrokenFileWithItsPlace() throws {
        try withTempDir { dir in
            let file = try dir.write("bad.json", #"{"loops": "x"}"#)
            let shown = try CLI.run(["settings", "show", "--file", file])
            #expect(shown.status == 2)
            #expect(shown.stderr == "\(file):1:11: error E04: $.loops: must be a number, got a string\n\(file): 1 error; the file was not loaded.\n",
                    "\(shown.stderr)")
        }
    }

    /// A writer killed at any moment leaves the old file or the new one, whole.
    @Test func aWriterKilledMidWriteLeavesAWholeFile() throws {
        let binary = try #require(CLI.binary)
        try withTempDir { dir in
            // Large weights make each rewrite take long enough to be cut in the middle.
            let weights = (0..<50_000).map { "\"element\($0)\": \($0 % 7)" }.joined(separator: ", ")
            let file = try dir.write("settings.json", "{\"autoScanInterval\": 1.5, \"weights\": {\(weights)}}")
            var killed = 0
            for round in 0..<20 {
                let p = Process()
                p.executableURL = binary
                p.arguments = ["settings", "set", "autoScanInterval", round % 2 == 0 ? "2.5" : "1.5", "--file", file]
                p.standardOutput = FileHandle.nullDevice
                p.standardError = FileHandle.nullDevice
                try p.run()
                // Killed the moment its copy (".settings.json.RANDOM.tmp") appears beside the
                // file: in the middle of the write.
                func copies() -> [String] {
                    ((try? FileManager.default.contentsOfDirectory(atPath: dir.url.path)) ?? []).filter { $0.hasPrefix(".settings.json.") }
                }
                while p.isRunning && copies().isEmpty { sched_yield() }
                if p.isRunning { kill(p.processIdentifier, SIGKILL); killed += 1 }
                p.waitUntilExit()
                for copy in copies() { unlink(dir.url.appendingPathComponent(copy).path) }
                let check = try CLI.run(["settings", "show", "--file", file])
                #expect(check.status == 0, "round \(round): \(check.stderr.prefix(300))")
                // Whole: it parses and validates (above), and the last weight is there.
                #expect(check.stdout.contains("\"element49999\""), "round \(round)")
                #expect(check.stdout.contains("\"autoScanInterval\": 1.5") || check.stdout.contains("\"autoScanInterval\": 2.5"))
            }
            #expect(killed >= 5, "writers killed in the middle of a write: \(killed) of 20")
        }
    }
}

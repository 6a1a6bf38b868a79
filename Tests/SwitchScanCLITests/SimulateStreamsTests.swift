import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// `simulate` writes its effects as they are made: a day of fast scanning (hundreds of
/// megabytes of JSON lines) takes no more memory than a minute of it.
@Suite("simulate streams")
struct SimulateStreamsTests {
    /// Starts `switchscan ARGS…` with a pipe on stdout that is never read, waits until the
    /// pipe holds 60 KB (the process has begun to write, and soon blocks), and returns its
    /// resident memory then (or its peak so far, `VmHWM`), in KiB.
    static func residentWhenWriting(_ arguments: [String], field: String = "VmRSS") throws -> Int {
        let binary = try #require(CLI.binary)
        let p = Process()
        p.executableURL = binary
        p.arguments = arguments
        p.currentDirectoryURL = CLI.packageRoot
        // Under AddressSanitizer freed memory is held in quarantine, which would read as
        // memory kept: the count is of memory in use.
        var env = ProcessInfo.processInfo.environment
        env["ASAN_OPTIONS"] = (env["ASAN_OPTIONS"].map { $0 + ":" } ?? "") + "quarantine_size_mb=0"
        p.environment = env
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() }
        // 60 000 bytes of effects read as they come (it writes on meanwhile, then waits on
        // the full pipe).
        let read = out.fileHandleForReading.readData(ofLength: 60_000).count
        try #require(read == 60_000 && p.isRunning, "the simulation wrote \(read) bytes")
        let status = try String(contentsOfFile: "/proc/\(p.processIdentifier)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix(field + ":") })
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0
    }

    @Test func aDayOfEffectsTakesNoMoreMemoryThanAMinute() throws {
        try withTempDir { dir in
            let settings = try dir.write("fast.json", #"{"autoScanInterval": 0.1, "loops": 100}"#)
            // A press every 10 s: scanning never stops, ten highlights a second.
            let day = try dir.write("day.events", stride(from: 5, to: 86_400, by: 10).map { "\($0) select\n" }.joined())
            let minute = try dir.write("minute.events", stride(from: 5, to: 60, by: 10).map { "\($0) select\n" }.joined())
            let common = ["simulate", "Layouts/switch-control.uikit.json", "--settings", settings, "--events"]
            let small = try Self.residentWhenWriting(common + [minute])
            let large = try Self.residentWhenWriting(common + [day])
            // Held whole, the day's output alone would be over 100 MiB.
            #expect(large < small + 32 * 1024, "resident: \(large) KiB for a day, \(small) KiB for a minute")
        }
    }

    /// The events are held between their check and their replay in a few bytes each: the
    /// peak memory of a simulation of two hundred thousand presses, over that of ten, is far
    /// below the line's own ~300 bytes an event.
    @Test func manyPressesTakeFewBytesEach() throws {
        try withTempDir { dir in
            let presses = 200_000
            // Presses from 5 s on, 0.17 s apart (each is down and up, 50 ms apart), or ten 10 s
            // apart; scanning fast meanwhile, either run writes its 60 KB soon.
            let many = try dir.write("many.events", (0..<presses).map { k in
                let centiseconds = 500 + 17 * k
                return "\(centiseconds / 100).\(centiseconds % 100 < 10 ? "0" : "")\(centiseconds % 100) select\n"
            }.joined())
            let few = try dir.write("few.events", (0..<10).map { k in "\(5 + 10 * k) select\n" }.joined())
            let settings = try dir.write("fast.json", #"{"autoScanInterval": 0.1, "loops": 100}"#)
            let common = ["simulate", "Layouts/switch-control.uikit.json", "--settings", settings, "--until", "86400", "--events"]
            let small = try Self.residentWhenWriting(common + [few], field: "VmHWM")
            let large = try Self.residentWhenWriting(common + [many], field: "VmHWM")
            let perPress = (large - small) * 1024 / presses
            #expect(perPress < 120, "peak: \(large) KiB for \(presses) presses, \(small) KiB for ten: \(perPress) bytes a press")
        }
    }
}

extension SimulateStreamsTests {
    /// A parent that hands down SIGTERM blocked (a thread pool's mask) cannot make a command
    /// unstoppable: here `simulate` is blocked writing to a pipe no one reads.
    @Test func aTerminationSignalTheParentBlockedStillEndsACommand() throws {
        let binary = try #require(CLI.binary)
        try withTempDir { dir in
            let settings = try dir.write("fast.json", #"{"autoScanInterval": 0.1, "loops": 100}"#)
            let day = try dir.write("day.events", stride(from: 5, to: 86_400, by: 10).map { "\($0) select\n" }.joined())
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            p.arguments = ["-c", "import os, signal, sys; signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM}); os.execv(sys.argv[1], sys.argv[1:])",
                           binary.path, "simulate", "Layouts/switch-control.uikit.json", "--settings", settings, "--events", day]
            p.currentDirectoryURL = CLI.packageRoot
            let out = Pipe()
            p.standardOutput = out
            p.standardError = FileHandle.nullDevice
            let ended = DispatchSemaphore(value: 0)
            p.terminationHandler = { _ in ended.signal() }
            try p.run()
            defer { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() }
            // A full pipe says so by no event: its fill is looked at until it is nearly full.
            var queued: Int32 = 0
            _ = TestTime.poll(timeout: 60, every: 0.01) {
                _ = ioctl(out.fileHandleForReading.fileDescriptor, UInt(FIONREAD), &queued)
                return !p.isRunning || queued >= 60_000
            }
            kill(p.processIdentifier, SIGTERM)
            #expect(ended.wait(timeout: .now() + 5) == .success, "SIGTERM ended it within 5 s")
            if !p.isRunning { #expect(p.terminationReason == .uncaughtSignal && p.terminationStatus == SIGTERM) }
        }
    }
}

extension SimulateStreamsTests {
    /// `run` still loading its inputs (a FIFO as the layout, which no one writes)
    /// ends at once on SIGTERM, dying of it, as it does once running.
    @Test func aSignalEndsARunStillLoadingItsInputs() throws {
        let binary = try #require(CLI.binary)
        try withTempDir { dir in
            let fifo = dir.url.appendingPathComponent("layout.json").path
            #expect(mkfifo(fifo, 0o600) == 0)
            let p = Process()
            p.executableURL = binary
            p.arguments = ["run", "--layout", fifo, "--no-devices", "--output", "json"]
            p.currentDirectoryURL = CLI.packageRoot
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            p.standardInput = FileHandle.nullDevice
            let ended = DispatchSemaphore(value: 0)
            p.terminationHandler = { _ in ended.signal() }
            try p.run()
            defer { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() }
            // Until it waits in the FIFO's open for a writer (the kernel's wait_for_partner),
            // which sends no event.
            var waitsIn = ""
            _ = TestTime.poll(timeout: 5, every: 0.01) {
                waitsIn = (try? String(contentsOfFile: "/proc/\(p.processIdentifier)/wchan", encoding: .utf8)) ?? ""
                return waitsIn == "wait_for_partner" || !p.isRunning
            }
            #expect(waitsIn == "wait_for_partner", "waiting in \(waitsIn)")
            kill(p.processIdentifier, SIGTERM)
            #expect(ended.wait(timeout: .now() + 2) == .success, "SIGTERM ended it within 2 s")
            if !p.isRunning { #expect(p.terminationReason == .uncaughtSignal && p.terminationStatus == SIGTERM) }
        }
    }
}

import Foundation
import JSONTape
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Inputs an attacker, or an accident, could give: each refused with its place, within
/// bounded time and memory, never a trap or a hang.
@Suite("Hostile input")
struct HostileInputTests {
    @Test(arguments: ["1e300", "inf", "nan", "-5", "1000001", "0x10", "1e3", "12.", ".5", "١٢"])
    func replayUntilOutOfRange(_ value: String) throws {
        let r = try CLI.run(["replay", "Tests/Fixtures/usb-keyboard-autorepeat.evemu", "--until=\(value)"])
        #expect(r.status == 64, "\(r)")
        #expect(r.stderr.contains("--until takes seconds between 0 and 1000000"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    /// Every numeric argument has a range; outside it, status 64 and the range.
    @Test(arguments: [["simulate", "Layouts/mail-inbox.json", "--until=1e300"], ["run", "--duration=inf"],
                      ["record", "/dev/null", "-o", "/dev/null", "--duration=nan"], ["switchscan-bench", "input", "--timeout=nan"],
                      ["switchscan-bench", "screen", "--presses=0"], ["switchscan-bench", "desktop", "--changes=-1"], ["switchscan-bench", "layout", "--repeats=99"],
                      ["run", "--rt-priority=100"]])
    func numericArgumentsOutOfRange(_ arguments: [String]) throws {
        let r = try CLI.run(arguments)
        #expect(r.status == 64, "\(arguments): \(r)")
        #expect(r.stderr.contains(" takes "), "\(r.stderr)")
    }

    @Test func aRecordingWithHugeTimesIsRefusedWithItsLine() throws {
        try withTempDir { dir in
            let rec = try dir.write("huge.evemu", "N: Keyboard\nI: 0003 045e 0b0a 0111\nE: 99999999999.000000 0001 0039 1\n")
            let r = try CLI.run(["replay", rec])
            #expect(r.status == 2, "\(r)")
            #expect(r.stderr.contains("\(rec):3: an event line is"))
        }
    }

    @Test func tenThousandBadEventLinesGiveAHundredMessagesAndACount() throws {
        try withTempDir { dir in
            let events = try dir.write("bad.events", String(repeating: "x y z w\n", count: 10_000))
            let r = try CLI.run(["simulate", "Layouts/switch-control.uikit.json", "--events", events])
            #expect(r.status == 2)
            #expect(r.stderr.split(separator: "\n").count == 102)
            #expect(r.stderr.contains("\(events): … and 9900 more"))
            #expect(r.stdout.isEmpty)
        }
    }

    /// A label that would set the terminal's title, ring its bell and reverse what follows:
    /// the terminal UI and `cost` show it, the JSON escapes it.
    @Test func namesFromOutsideCannotDriveTheTerminal() throws {
        try withTempDir { dir in
            let hostile = "A\u{1B}]0;pwned\u{07}B\u{202E}C"
            let layout = try dir.write("hostile.json", """
                {"schemaVersion": 1, "screen": {"id": "h", "title": "Hostile", "size": {"width": 400, "height": 200}},
                 "root": {"id": "window", "isAccessibilityElement": false, "frame": {"x": 0, "y": 0, "width": 400, "height": 200},
                  "children": [{"id": "ok", "label": \(jsonString(hostile)), "traits": ["button"], "frame": {"x": 0, "y": 0, "width": 400, "height": 200}}]}}
                """)
            let table = try CLI.run(["cost", layout])
            #expect(table.status == 0, "\(table)")
            #expect(!table.stdout.contains("\u{1B}") && !table.stdout.contains("\u{07}") && !table.stdout.contains("\u{202E}"), "\(table.stdout)")
            #expect(table.stdout.contains("A␛]0;pwned␇B\u{FFFD}C"), "\(table.stdout)")
            let json = try CLI.run(["cost", layout, "--json"])
            #expect(json.stdout.contains(#""label": "A\u001b]0;pwned\u0007B\u202eC""#), "\(json.stdout)")
            // The terminal UI, on a pseudo-terminal (util-linux's script).
            let script = URL(fileURLWithPath: "/usr/bin/script")
            try #require(FileManager.default.isExecutableFile(atPath: script.path), "util-linux's script gives the terminal UI a terminal")
            let binary = try #require(CLI.binary)
            let p = Process()
            p.executableURL = script
            p.arguments = ["-qec", "'\(binary.path)' run --layout '\(layout)' --no-devices --output terminal --duration 1", "/dev/null"]
            let out = Pipe()
            p.standardOutput = out
            p.standardError = out
            p.standardInput = FileHandle.nullDevice
            try p.run()
            let screen = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            #expect(p.terminationStatus == 0, "\(screen)")
            #expect(screen.contains("A␛]0;pwned␇B\u{FFFD}C"), "the label, shown")
            #expect(!screen.contains("\u{1B}]0;") && !screen.contains("\u{07}") && !screen.contains("\u{202E}"), "nothing of it obeyed")
        }
    }

    /// A file just past a limit is said to be past it, not to be the limit.
    @Test func aFileJustOverItsLimitSaysBy() throws {
        try withTempDir { dir in
            let path = dir.url.appendingPathComponent("events").path
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            #expect(ftruncate(fd, (64 << 20) + 1) == 0)
            close(fd)
            let r = try CLI.run(["simulate", "Layouts/mail-inbox.json", "--events", path])
            #expect(r.status == 2, "\(r)")
            #expect(r.stderr.contains("events file '\(path)' is 64.1 MiB; events files are limited to 64 MiB."), "\(r.stderr)")
        }
    }

    @Test func aHugeSparseFileIsRefusedBeforeItIsRead() throws {
        try withTempDir { dir in
            let path = dir.url.appendingPathComponent("sparse.json").path
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            #expect(ftruncate(fd, 3 << 30) == 0)
            close(fd)
            for (command, what) in [(["validate", path], "file"), (["simulate", path], "layout"),
                                    (["simulate", "Layouts/mail-inbox.json", "--events", path], "events file")] {
                let r = try CLI.run(command)
                #expect(r.status == 2, "\(command): \(r)")
                #expect(r.stderr.contains("\(what) '\(path)' is 3072 MiB"), "\(r.stderr)")
            }
        }
    }

    @Test func inputFromAFIFOAndFromStandardInput() throws {
        try withTempDir { dir in
            let fifo = dir.url.appendingPathComponent("events.fifo").path
            #expect(mkfifo(fifo, 0o600) == 0)
            // The writer opens the FIFO once switchscan opens it for reading.
            let writer = Thread {
                let fd = open(fifo, O_WRONLY)
                _ = write(fd, "0.5 select\n", 11)
                close(fd)
            }
            writer.start()
            let r = try CLI.run(["simulate", "Layouts/switch-control.uikit.json", "--events", fifo, "--until", "1"])
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout.contains("\"effect\":\"enterGroup\""))
            let s = try CLI.run(["simulate", "Layouts/switch-control.uikit.json", "--events", "/dev/stdin", "--until", "1"], stdin: "0.5 select\n")
            #expect(s.status == 0, "\(s)")
            #expect(s.stdout == r.stdout)
        }
    }

    @Test func aFiftyMegabyteUnknownSettingsKeyIsReportedShort() throws {
        try withTempDir { dir in
            let settings = try dir.write("long.json", "{\"" + String(repeating: "k", count: 50_000_000) + "\": 1}")
            let r = try CLI.run(["validate", settings])
            #expect(r.status == 2)
            #expect(r.stderr.count < 2000, "the message quotes an excerpt of the key")
            #expect(r.stderr.contains("unknown field \"kkkk"))
        }
    }

    @Test func aSocketPathThatIsAFileIsRefusedAndKept() throws {
        try withTempDir { dir in
            let path = try dir.write("notes.txt", "keep me")
            let r = try CLI.run(["run", "--layout", "Layouts/mail-inbox.json", "--socket", path, "--duration", "1"])
            #expect(r.status != 0)
            #expect(r.stderr.contains("exists and is not a socket"), "\(r.stderr)")
            #expect((try? String(contentsOfFile: path, encoding: .utf8)) == "keep me")
        }
    }

    /// Two hundred front ends that never read and twenty that read a byte at a time neither
    /// slow the scan's other output nor its end.
    @Test func manyIdleAndSlowFrontEndsDoNotSlowTheRunNorItsEnd() throws {
        try withTempDir { dir in
            let path = dir.url.appendingPathComponent("effects.sock").path
            let out = dir.url.appendingPathComponent("effects.json").path
            var idle: [Int32] = [], slow: [Int32] = []
            let stop = StopFlag()
            let started = Date()
            let r = try OutputFailureTests.run(["run", "--layout", "Layouts/mail-inbox.json", "--socket", path, "--duration", "3",
                                                 "--no-devices", "--output", "json", "--rt-priority", "0", "--no-mlock",
                                                 "--settings", try dir.write("fast.json", #"{"autoScanInterval": 0.1, "loops": 100}"#)],
                                                stdout: .file(out), stderr: .file("")) {
                for _ in 0..<1000 where idle.count + slow.count < 220 {
                    let fd = Self.connectClient(path)
                    if fd >= 0 {
                        if idle.count < 200 { idle.append(fd) } else { slow.append(fd) }
                    } else {
                        _ = poll(nil, 0, 5)
                    }
                }
                let readers = slow
                DispatchQueue.global().async {
                    var byte: UInt8 = 0
                    while !stop.isSet {
                        for fd in readers { _ = recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) }
                        _ = poll(nil, 0, 50)
                    }
                }
            }
            let took = Date().timeIntervalSince(started)
            stop.set()
            defer { for fd in idle + slow { close(fd) } }
            #expect(idle.count == 200 && slow.count == 20, "connected")
            #expect(r.status == 0, "\(r)")
            #expect(took < 4.5, "a 3 s run ended after \(took) s")
            let lines = ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n")
            let last = lines.last.flatMap { $0.split(separator: ",").first }.flatMap { Double($0.dropFirst(5)) } ?? 0
            #expect(last > 2.5, "standard output kept up with the scan: its last effect at \(last) s")
        }
    }

    static func connectClient(_ path: String) -> Int32 {
        var st = stat()
        guard stat(path, &st) == 0 else { return -1 }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        } == 0
        if !ok { close(fd) }
        return ok ? fd : -1
    }

    /// A front end that connects and never reads does not hold up the end of the run.
    @Test func aClientThatNeverReadsDoesNotHoldUpTheEnd() throws {
        try withTempDir { dir in
            let path = dir.url.appendingPathComponent("effects.sock").path
            var client: Int32 = -1
            let r = try OutputFailureTests.run(["run", "--layout", "Layouts/mail-inbox.json", "--socket", path, "--duration", "2",
                                                 "--settings", try dir.write("fast.json", #"{"autoScanInterval": 0.1}"#)],
                                                stdout: .file("/dev/null"), stderr: .file("")) {
                // Connect as soon as the socket is there, then never read.
                for _ in 0..<1000 where client < 0 {
                    var st = stat()
                    if stat(path, &st) == 0 {
                        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
                        var addr = sockaddr_un()
                        addr.sun_family = sa_family_t(AF_UNIX)
                        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
                        let ok = withUnsafePointer(to: &addr) {
                            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
                        } == 0
                        if ok { client = fd } else { close(fd) }
                    }
                    if client < 0 { _ = poll(nil, 0, 5) }
                }
            }
            defer { if client >= 0 { close(client) } }
            #expect(client >= 0, "connected")
            #expect(r.status == 0, "\(r)")
        }
    }

    /// Under `nohup` SIGHUP is ignored: it stays ignored for the whole run.
    @Test func aSignalTheParentIgnoresStaysIgnored() throws {
        let r = try OutputFailureTests.run(["run", "--layout", "Layouts/mail-inbox.json", "--duration", "2"],
                                           stdout: .file("/dev/null"), stderr: .file(""),
                                           shellPrefix: "trap '' HUP; (sleep 1; kill -HUP $$) & ")
        #expect(r.status == 0, "ended by --duration, not by the SIGHUP: \(r)")
    }
}

/// Tells a helper thread to stop.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

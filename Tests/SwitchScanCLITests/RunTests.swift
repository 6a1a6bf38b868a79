import Foundation
import Testing

/// `switchscan run` without a terminal: keys come from stdin, effects go out as JSON lines.
@Suite("switchscan run")
struct RunTests {
    @Test func keysFromStdinDriveTheScannerAndEndOfInputQuits() throws {
        // Space selects the group at the start, q quits.
        // --no-devices: on a machine with a readable keyboard, it would be the switch instead.
        let r = try CLI.run(["run", "--no-devices", "--output", "json", "--rt-priority", "0", "--no-mlock"], stdin: " q")
        #expect(r.status == 0, "\(r)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains(#""effect":"scanStarted""#) == true, "\(r.stdout)")
        #expect(lines.contains { $0.contains(#""effect":"enterGroup","group":"testWrap""#) }, "\(r.stdout)")
        for line in lines {
            #expect(line.hasPrefix(#"{"t":"#) && line.hasSuffix("}"), "every line is a JSON object: \(line)")
        }
    }

    @Test func theBundledLayoutIsFoundFromAnyDirectory() throws {
        let elsewhere = try TempDir()
        defer { elsewhere.remove() }
        // Folders of the same names there (not a checkout) do not shadow the bundled ones.
        for folder in ["Layouts", "Devices"] {
            try FileManager.default.createDirectory(at: elsewhere.url.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try elsewhere.write("Layouts/switch-control.uikit.json", "not a layout")
        try elsewhere.write("Devices/broken.json", "{")
        let r = try CLI.run(["run", "--no-devices", "--output", "json", "--rt-priority", "0", "--no-mlock", "--allow-deep-idle"],
                            stdin: " q", directory: elsewhere.url)
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains(#""effect":"enterGroup","group":"testWrap""#), "\(r)")
        // The bundled device profiles are found the same way: a replay needs the X-Keys one.
        let recording = CLI.packageRoot.appendingPathComponent("Tests/Fixtures/xkeys-switch-interface.evemu").path
        let here = try CLI.run(["replay", recording, "--until", "4"])
        let there = try CLI.run(["replay", recording, "--until", "4"], directory: elsewhere.url)
        #expect(there.status == 0, "\(there)")
        #expect(there.stdout.contains(#""effect":"menuOpen""#))
        #expect(there.stdout == here.stdout)
    }

    @Test func aBadLayoutIsRefusedBeforeAnythingRuns() throws {
        let r = try CLI.run(["run", "--layout", "Layouts/missing.json", "--output", "json"], stdin: "")
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("Layouts/missing.json"))
    }

    @Test func badOptionsAreACommandLineError() throws {
        let r = try CLI.run(["run", "--rt-priority", "150"], stdin: "")
        #expect(r.status == 64)
        #expect(r.stderr.contains("--rt-priority"))
    }
}

/// `switchscan replay`: a recorded device session reproduces the same effects, through the
/// device's profile, in virtual time.
@Suite("switchscan replay")
struct ReplayTests {
    @Test func aRecordedSwitchInterfaceSessionReplaysExactly() throws {
        let r = try CLI.run(["replay", "Tests/Fixtures/xkeys-switch-interface.evemu", "--until", "4"])
        #expect(r.status == 0, "\(r)")
        let effects = r.stdout.split(separator: "\n").map { line -> String in
            let t = line.split(separator: ",")[0].dropFirst(5)
            let e = line.split(separator: ",")[1].split(separator: ":")[1]
            return "\(t) \(e)"
        }
        #expect(effects == [
            #"0.000 "scanStarted"}"#, #"0.000 "highlight""#, #"1.000 "highlight""#, #"2.000 "highlight""#, #"3.000 "highlight""#,
            #"3.200 "enterGroup""#, #"3.200 "highlight""#, #"3.500 "menuOpen""#, #"3.500 "highlight""#, #"3.700 "highlight""#,
        ], "\(r.stdout)")
        // Replaying twice gives the same bytes.
        let again = try CLI.run(["replay", "Tests/Fixtures/xkeys-switch-interface.evemu", "--until", "4"])
        #expect(again.stdout == r.stdout)
    }

    @Test func aBadRecordingIsRefusedWithItsLine() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let file = try dir.write("bad.evemu", "N: x\nE: 1.0 0001 0039 1\n")
        let r = try CLI.run(["replay", file])
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("\(file):2: an event line is"))
    }
}

/// Real-time scheduling refused (an ordinary user without rtprio or memlock limits): one
/// clear warning that says how to allow it, and scanning goes on. Needs root, to become
/// that ordinary user with setpriv.
@Suite("switchscan run without real-time rights")
struct RefusedRealTimeTests {
    /// Root (to become another user), setpriv and prlimit, and a binary that user can reach.
    static let canDropRights: Bool = {
        let fm = FileManager.default
        guard getuid() == 0, fm.isExecutableFile(atPath: "/usr/bin/setpriv"), fm.isExecutableFile(atPath: "/usr/bin/prlimit"),
              let binary = CLI.binary else { return false }
        // Every folder on the way must be searchable by others, and the binary executable.
        var url = binary
        while url.path != "/" {
            var st = stat()
            guard stat(url.path, &st) == 0, st.st_mode & S_IXOTH != 0 else { return false }
            url = url.deletingLastPathComponent()
        }
        return true
    }()

    @Test(.enabled(if: canDropRights, "needs root and setpriv to run as an ordinary user"))
    func refusedSchedulingWarnsOnceAndScans() throws {
        let binary = try #require(CLI.binary)
        let process = Process()
        // No rtprio or memlock allowance (whatever the runner's limits are), no capabilities.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        process.arguments = ["--rtprio=0:0", "--memlock=65536:65536",
                             "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
                             binary.path, "run", "--no-devices", "--output", "json", "--duration", "3", "--allow-deep-idle"]
        process.currentDirectoryURL = URL(fileURLWithPath: "/")
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(stderr)")
        let warnings = stderr.components(separatedBy: "Warning: Real-time scheduling was refused").count - 1
        #expect(warnings == 1, "\(stderr)")
        #expect(stderr.contains("EPERM") && stderr.contains("limits.conf") && stderr.contains("setcap"), "\(stderr)")
        // And it scanned on: the step to the second item came.
        #expect(stdout.contains(#""effect":"highlight","item":"btn1""#), "\(stdout)")
    }
}

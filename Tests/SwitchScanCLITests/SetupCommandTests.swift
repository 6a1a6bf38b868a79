import Foundation
import Testing

/// `switchscan setup`'s --list and --reset on a temporary home, and its message where no
/// device can be heard. (Pressing switches is tested in the guest kernel: Tests/E2E, 12.)
@Suite("switchscan setup")
struct SetupCommandTests {
    /// `switchscan setup ARGS` with HOME in `home` and no XDG_CONFIG_HOME.
    static func setup(_ arguments: [String], home: URL) throws -> RunResult {
        let binary = try #require(CLI.binary)
        let process = Process()
        process.executableURL = binary
        process.arguments = ["setup"] + arguments
        process.currentDirectoryURL = CLI.packageRoot
        process.environment = ["HOME": home.path, "PATH": "/usr/bin:/bin"]
        let output = Pipe(), errors = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return RunResult(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                         stderr: String(decoding: err, as: UTF8.self), timedOut: false)
    }

    static let mixed = """
        {"schemaVersion": 1, "description": "Mine", "sections": [
          {"name": "my keyboard", "match": {"name": "*kbd*"}, "switches": {"KEY_SPACE": null}},
          {"name": "switchscan setup: X-Keys", "match": {"bus": "usb", "vendor": "05f3", "product": "0232"}, "switches": {"BTN_1": "select", "BTN_0": "next", "BTN_2": null}}
        ]}
        """

    func local(_ dir: TempDir) -> URL { dir.url.appendingPathComponent(".config/switchscan/devices/90-local.json") }

    func write(_ text: String, to file: URL) throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: file, atomically: true, encoding: .utf8)
    }

    @Test func listWithNothingAssigned() throws {
        try withTempDir { dir in
            let r = try Self.setup(["--list"], home: dir.url)
            #expect(r.status == 0)
            #expect(r.stdout == "No switches are assigned: \(local(dir).path) does not exist. Run 'switchscan setup' to assign them.\n")
        }
    }

    @Test func listShowsOnlyWhatSetupAssigned() throws {
        try withTempDir { dir in
            try write(Self.mixed, to: local(dir))
            let r = try Self.setup(["--list"], home: dir.url)
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout == "Switches assigned with setup, in \(local(dir).path):\n  X-Keys (usb 05f3:0232): BTN_1 select, BTN_0 next\n")
        }
    }

    @Test func resetKeepsTheUsersOwnSections() throws {
        try withTempDir { dir in
            try write(Self.mixed, to: local(dir))
            let r = try Self.setup(["--reset"], home: dir.url)
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout == "Removed the switches assigned with setup from \(local(dir).path); your own sections are kept. The settings file was left as it is.\n")
            #expect(try String(contentsOf: local(dir), encoding: .utf8) == """
                {
                  "schemaVersion": 1,
                  "description": "Mine",
                  "sections": [
                    {"name":"my keyboard","match":{"name":"*kbd*"},"switches":{"KEY_SPACE":null}}
                  ]
                }

                """)
            let again = try Self.setup(["--reset"], home: dir.url)
            #expect(again.stdout == "Nothing to remove: \(local(dir).path) has no switches assigned with setup.\n")
        }
    }

    @Test func resetDeletesAFileOfSetupsAlone() throws {
        try withTempDir { dir in
            try write(#"{"schemaVersion": 1, "sections": [{"name": "switchscan setup: Pad", "match": {"name": "Pad"}, "switches": {"BTN_0": "select"}}]}"#, to: local(dir))
            let r = try Self.setup(["--reset"], home: dir.url)
            #expect(r.stdout == "Removed the switches assigned with setup: \(local(dir).path) is deleted. The settings file was left as it is.\n")
            #expect(!FileManager.default.fileExists(atPath: local(dir).path))
        }
    }

    /// A local profile that is a link (a dotfile manager's) stays a link: its target keeps
    /// what is left, an empty list of sections, and is not deleted behind the link.
    @Test func resetKeepsALinkAndItsTarget() throws {
        try withTempDir { dir in
            let target = dir.url.appendingPathComponent("dotfiles/switchscan-local.json")
            try write(#"{"schemaVersion": 1, "sections": [{"name": "switchscan setup: Pad", "match": {"name": "Pad"}, "switches": {"BTN_0": "select"}}]}"#, to: target)
            try FileManager.default.createDirectory(at: local(dir).deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: local(dir).path, withDestinationPath: target.path)
            let r = try Self.setup(["--reset"], home: dir.url)
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout == "Removed the switches assigned with setup: \(local(dir).path) (a link to \(target.path)) now has no sections; the link and its file are kept. The settings file was left as it is.\n", "\(r)")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: local(dir).path) == target.path, "the link is kept")
            #expect(try String(contentsOf: target, encoding: .utf8) == """
                {
                  "schemaVersion": 1,
                  "sections": []
                }

                """)
            let list = try Self.setup(["--list"], home: dir.url)
            #expect(list.stdout == "No switches are assigned with setup in \(local(dir).path). Run 'switchscan setup' to assign them.\n", "\(list)")
        }
    }

    @Test func aBrokenLocalProfileIsLeftAsItIs() throws {
        try withTempDir { dir in
            try write("[1, 2]", to: local(dir))
            let r = try Self.setup(["--reset"], home: dir.url)
            #expect(r.status == 2)
            #expect(r.stderr == "Error: \(local(dir).path) is not a device profile (a JSON object with \"sections\"); it was left unchanged. Fix it, or move it away and run setup again.\n")
            #expect(try String(contentsOf: local(dir), encoding: .utf8) == "[1, 2]")
        }
    }

    @Test func aDeviceThatIsNotThereIsSaidSo() throws {
        try withTempDir { dir in
            let r = try Self.setup(["--device", "/dev/input/event999", "--no-speech"], home: dir.url)
            #expect(r.status == 2)
            #expect(r.stderr == "Error: While opening /dev/input/event999: No such file or directory (ENOENT). Hint: the device is gone (unplugged?) or the path is wrong; 'switchscan devices' lists what is there.\n")
            #expect(!FileManager.default.fileExists(atPath: local(dir).path))
        }
    }

    /// Where the machine has no input device at all (a container, a build server).
    @Test(.enabled(if: ((try? FileManager.default.contentsOfDirectory(atPath: "/dev/input")) ?? []).allSatisfy { !$0.hasPrefix("event") }))
    func noDeviceAtAll() throws {
        try withTempDir { dir in
            let r = try Self.setup(["--no-speech"], home: dir.url)
            #expect(r.status == 2)
            #expect(r.stderr == """
                Error: No input device found (no /dev/input/event* nodes). Plug in the switch (a switch interface, a keyboard, \
                a gamepad or a mouse) and run 'switchscan setup' again; in a container or VM, the host must pass input devices through.

                """)
        }
    }

    @Test func listAndResetGoAlone() throws {
        try withTempDir { dir in
            let r = try Self.setup(["--list", "--reset"], home: dir.url)
            #expect(r.status == 64)
            #expect(r.stderr.contains("--list and --reset go alone"), "\(r)")
        }
    }
}

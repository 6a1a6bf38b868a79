import ArgumentParser
import CommandSupport
import Foundation
import ScanCore
import ScanFormats
import ScanRuntime
import ScanSession
import SwitchInput

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List input devices and whether they are switches (the default), or let you read one switch alone (grant).",
        subcommands: [DevicesList.self, DevicesGrant.self],
        defaultSubcommand: DevicesList.self
    )
}

struct DevicesList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List input devices: node, name, bus and ids, capabilities, matching profile sections, and whether SwitchScan can read them."
    )

    @Option(name: .customLong("profiles"), help: "A folder of device profiles (default: Devices/ and ~/.config/switchscan/devices/).")
    var profilesFolder: [String] = []

    func run() throws {
        let profiles: DeviceProfiles
        do { profiles = try ProfileLibrary.load(folders: profilesFolder.isEmpty ? ProfileLibrary.defaultFolders(devices: BundledData.file("Devices")) : profilesFolder) }
        catch { throw fail(error.description) }
        let udev: Udev
        do { udev = try Udev() } catch { throw fail("Error: \(error)") }
        let devices = udev.inputDevices()
        guard !devices.isEmpty else {
            print("""
                No input devices found (no /dev/input/event* nodes). Plug in a switch interface or a keyboard; \
                in a container or VM, the host must pass input devices through. \
                'switchscan run' still works with the terminal keyboard.
                """)
            return
        }
        for d in devices {
            let mapping = profiles.mapping(for: d)
            print("\(d.node)  \(TerminalText.visible(d.name))")
            print("    bus \(d.bus.isEmpty ? "?" : d.bus), id \(d.idText), capabilities: \(d.capabilities.isEmpty ? "none" : d.capabilities.sorted().joined(separator: ", "))")
            if d.isMadeBySwitchScan {
                print("    made by SwitchScan (its own keys or pointer): never used as a switch")
                continue
            }
            if mapping.sections.isEmpty {
                print("    profiles: no section matches")
            } else {
                print("    profiles: \(mapping.sections.joined(separator: "; "))")
                let names = (mapping.switches.map { "\($0.key.name)=\($0.value.rawValue)" } + mapping.axes.keys.map { "\($0.name)=axis" }).sorted()
                print("    switches: \(names.isEmpty ? "none" : names.joined(separator: ", "))")
                if !mapping.isEmpty && d.needsNaming && !mapping.named { print("    not a switch: \(DeviceMapping.unnamedProblem)") }
            }
            do {
                let dev = try EvdevDevice(path: d.node)
                let present = (Array(mapping.switches.keys) + Array(mapping.axes.keys)).filter(dev.hasCode).map(\.name).sorted()
                print("    readable: yes" + (mapping.isEmpty ? "" : "; has \(present.isEmpty ? "none" : present.joined(separator: ", ")) of the mapped codes"))
            } catch {
                print("    readable: no — \(error.description)")
            }
        }
    }
}

/// Lets the user at the seat read one switch that presents as a keyboard or a mouse,
/// through a udev rule for that device alone, installed with the administrator's consent.
struct DevicesGrant: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grant",
        abstract: "Let the user at the seat read one switch (a switch interface that types keys, a head mouse) without the 'input' group.",
        discussion: """
        Writes a udev rule for that device alone (its vendor, product and serial) to \(DeviceGrant.folder), \
        after saying what it grants and asking; installing it needs the administrator's password (sudo at a \
        terminal, else pkexec). Delete the file to take it back. 'switchscan devices' lists the nodes.
        """
    )

    @Argument(help: "The device's node, e.g. /dev/input/event5 (or a link to it, such as /dev/input/by-id/…).")
    var node: String

    @Flag(help: "Do not ask before installing (the administrator's password is still asked for).")
    var yes = false

    @Flag(help: "Print the rule and where it would go, and install nothing.")
    var print = false

    func run() throws {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: node)).map {
            $0.hasPrefix("/") ? $0 : URL(fileURLWithPath: node).deletingLastPathComponent().appendingPathComponent($0).standardizedFileURL.path
        } ?? node
        let udev: Udev
        do { udev = try Udev() } catch { throw fail("Error: \(error)") }
        guard let device = udev.inputDevices().first(where: { $0.node == path }) else {
            throw fail("Error: \(TerminalText.visible(node)) is not an input device that udev knows. 'switchscan devices' lists them (the /dev/input/event… nodes).")
        }
        let grant: DeviceGrant
        switch DeviceGrant.rule(for: device) {
        case .success(let g): grant = g
        case .failure(let refusal):
            throw fail("Error: no rule is written for \(device.node) (\(TerminalText.visible(device.name))): \(refusal.reason).")
        }
        let file = DeviceGrant.folder + "/" + grant.fileName
        if print {
            writeOut("# \(file)\n" + grant.text)
            return
        }
        let root = getuid() == 0
        let elevate = root ? nil : Self.elevator()
        if !root && elevate == nil {
            throw fail("""
                Error: installing the rule needs the administrator, and neither sudo nor pkexec is installed. \
                As root, put this in \(file), then run 'udevadm control --reload' and 'udevadm trigger':
                \(grant.text)
                """)
        }
        let what = grant.wholeModel
            ? "every device of one model, \(TerminalText.visible(device.name)) (\(device.idText): this one, \(device.node), has no serial number or port to tell it apart)"
            : "one device, \(TerminalText.visible(device.name)) (\(device.node), \(device.idText))"
        writeMessage("""
            This lets whoever is logged in at this computer's seat read \(what), as a switch, without joining the \
            'input' group: any program of theirs can then read what is pressed on it, as SwitchScan does, and no other \
            keyboard or mouse. It writes \(file)\(root ? "" : " and asks for the administrator's password (\(elevate!.name))"). \
            Delete that file to take it back.

            """)
        if !yes {
            guard TerminalState.inputIsTerminal else {
                throw fail("Error: nothing was installed: answer at a terminal, or add --yes to install without asking.")
            }
            // On stderr, as sudo asks: at once, and apart from what the command prints.
            writeErr("Install it? [y/N] ")
            let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            guard answer == "y" || answer == "yes" else {
                writeOut("Nothing was installed.\n")
                return
            }
        }
        let arguments = ["sh", "-c", DeviceGrant.installScript, "sh", grant.fileName, device.node]
        let status = elevate.map { Self.run($0.path, arguments, input: Array(grant.text.utf8)) }
            ?? Self.run("/bin/sh", Array(arguments.dropFirst()), input: Array(grant.text.utf8))
        switch status {
        case 0:
            // Said only once udev has tagged the device: the rule really names it.
            writeMessage("Installed \(file). \(device.node) can be read now; 'switchscan setup' can assign its switches.\n")
        case 3:
            throw fail("Error: \(file) is installed, but udev did not take it up; unplug the device and plug it in again, or restart.")
        case 4:
            throw fail("Error: \(file) is installed, but udev has not given \(device.node) to the seat's user; unplug it and plug it in again. 'udevadm info \(device.node)' shows its tags.")
        default:
            throw fail("Error: the rule was not installed (\(elevate?.name ?? "sh") ended with status \(status)); nothing was changed.")
        }
    }

    /// Runs `path` with `arguments` and `input` on its standard input, its other streams
    /// this command's (sudo asks for the password on the terminal); its exit status, 128 +
    /// the signal it died of, or 127 when it could not be started. Spawned directly: the
    /// command waits for nothing else.
    static func run(_ path: String, _ arguments: [String], input: [UInt8]) -> Int32 {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return 127 }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[0], 0)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addclose(&actions, fds[1])
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid = pid_t(0)
        let rc = posix_spawn(&pid, path, &actions, nil, argv, environ)
        close(fds[0])
        guard rc == 0 else { close(fds[1]); return 127 }
        // A child that ends without reading must not end this command with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        var offset = 0
        while offset < input.count {
            let n = input[offset...].withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            offset += n
        }
        close(fds[1])
        var status = Int32(0)
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// sudo at a terminal (it asks for the password there), else pkexec (the desktop's
    /// password dialog).
    static func elevator() -> (name: String, path: String)? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        func find(_ name: String) -> String? {
            path.split(separator: ":").map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        let order = TerminalState.inputIsTerminal ? ["sudo", "pkexec"] : ["pkexec", "sudo"]
        for name in order { if let found = find(name) { return (name, found) } }
        return nil
    }
}

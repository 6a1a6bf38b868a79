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

#if canImport(Glibc)
import Glibc
#endif
import ScanFormats
@testable import ScanSession
import SwitchInput
import Testing

/// `switchscan setup`'s session, where it needs no device: why none could be read. (The
/// assignment itself, with real kernel devices, is in the end-to-end scenarios.)
@Suite struct SetupSessionTests {
    static func device(_ n: Int) -> InputDeviceDescription {
        InputDeviceDescription(node: "/dev/input/event\(n)", name: "Switch \(n)", bus: "usb", vendor: 1, product: 2, capabilities: ["keyboard"])
    }

    /// One reason for all (no permission) is said once, with its fix, naming at most three
    /// nodes, and then which devices there are, so the person can tell which is the switch.
    @Test func devicesNoneCanReadAreSaidOnceWithTheFix() {
        let found = (1...5).map(Self.device)
        let problems = found.map { InputError.opening($0.node, EACCES) }
        let message = SetupSession.noneReadable(problems, found: found)
        let lines = message.split(separator: "\n").map(String.init)
        #expect(lines.first == "Error: No input device can be read, so no switch can be heard.")
        #expect(lines.count == 3, "\(message)")
        #expect(lines[1].contains("/dev/input/event1, /dev/input/event2, /dev/input/event3 and 2 more"), "\(lines[1])")
        #expect(lines[1].contains("input' group"), "the fix: \(lines[1])")
        #expect(lines[2].hasPrefix("  The devices: /dev/input/event1 (Switch 1)") && lines[2].contains("/dev/input/event5 (Switch 5)."), "\(lines[2])")
    }

    /// Different reasons are each said, one line a device.
    @Test func differentReasonsAreEachSaid() {
        let found = [Self.device(1), Self.device(2)]
        let problems = [InputError.opening(found[0].node, EACCES), InputError.opening(found[1].node, ENODEV)]
        let lines = SetupSession.noneReadable(problems, found: found).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[1].contains("/dev/input/event1") && lines[2].contains("/dev/input/event2"))
    }
}

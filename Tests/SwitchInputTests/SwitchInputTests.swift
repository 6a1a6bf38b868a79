import Foundation
import ScanCore
import ScanFormats
@testable import SwitchInput
import Testing

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

func fixture(_ name: String) throws -> EvemuRecording.Recording {
    let url = packageRoot.appendingPathComponent("Tests/Fixtures/\(name)")
    return try EvemuRecording.parse(String(decoding: try Data(contentsOf: url), as: UTF8.self), file: name)
}

func shippedProfiles() throws -> DeviceProfiles {
    try ProfileLibrary.load(folders: [packageRoot.appendingPathComponent("Devices").path])
}

func describe(_ e: [SwitchEvent]) -> [String] {
    e.map { "\($0.action.rawValue) \($0.isDown ? "down" : "up") \($0.timestamp)" }
}

@Suite("Device profiles")
struct DeviceProfileTests {
    @Test func everyShippedProfileLoads() throws {
        let profiles = try shippedProfiles()
        #expect(profiles.sections.count >= 8)
    }

    @Test func aUSBKeyboardUsesSpaceAndEnter() throws {
        let d = InputDeviceDescription(node: "/dev/input/event3", name: "Logitech USB Keyboard", bus: "usb",
                                       vendor: 0x046d, product: 0xc31c, capabilities: ["keyboard"])
        let m = try shippedProfiles().mapping(for: d)
        let codes = LibevdevCodes()
        #expect(m.switches[codes.code(named: "KEY_SPACE")!] == .select)
        #expect(m.switches[codes.code(named: "KEY_ENTER")!] == .next)
        #expect(m.sections.contains { $0.contains("10-generic-keyboard") })
    }

    @Test(arguments: [(UInt16(0x0b0a), "usb"), (0x0b0c, "bluetooth")])
    func theXboxAdaptiveControllerMatchesOnBothBuses(_ product: UInt16, _ bus: String) throws {
        let d = InputDeviceDescription(node: "/dev/input/event9", name: "Microsoft Xbox Adaptive Controller", bus: bus,
                                       vendor: 0x045e, product: product, capabilities: ["gamepad", "joystick"])
        let m = try shippedProfiles().mapping(for: d)
        #expect(m.sections.contains { $0.contains("30-vendor-microsoft-xbox-adaptive") })
        #expect(m.switches[LibevdevCodes().code(named: "BTN_SOUTH")!] == .select)
        #expect(m.debounce == .milliseconds(20))
    }

    @Test(arguments: [UInt16(0x0232), 0x0261, 0x0264])
    func xkeysSwitchInterfacesMapTheirJacks(_ product: UInt16) throws {
        let d = InputDeviceDescription(node: "/dev/input/event4", name: "P. I. Engineering XK-3 Switch Interface", bus: "usb",
                                       vendor: 0x05f3, product: product, capabilities: ["joystick"])
        let m = try shippedProfiles().mapping(for: d)
        let codes = LibevdevCodes()
        #expect(m.switches[codes.code(named: "BTN_0")!] == .select)
        #expect(m.switches[codes.code(named: "BTN_1")!] == .next)
        #expect(m.debounce == .milliseconds(30))
    }

    @Test func aSipAndPuffAxisIsTwoSwitches() throws {
        let d = InputDeviceDescription(node: "/dev/input/event6", name: "Origin Instruments Sip and Puff Switch", bus: "usb",
                                       vendor: 0x1234, product: 0x5678, capabilities: ["joystick"])
        let m = try shippedProfiles().mapping(for: d)
        let axis = try #require(m.axes[LibevdevCodes().code(named: "ABS_X")!])
        #expect(axis.high == .select && axis.low == .next)
    }

    @Test func aMouseWithoutAProfileSectionForItsButtonsStillMatchesTheGenericOne() throws {
        let d = InputDeviceDescription(node: "/dev/input/event7", name: "HeadMouse Nano", bus: "usb", vendor: 0x1234,
                                       product: 0x0001, capabilities: ["mouse"])
        #expect(try shippedProfiles().mapping(for: d).switches[LibevdevCodes().code(named: "BTN_LEFT")!] == .select)
    }

    @Test func laterSectionsOverrideAndNullRemoves() throws {
        let json = #"""
        {"schemaVersion": 1, "sections": [
          {"name": "base", "switches": {"KEY_SPACE": "select", "KEY_ENTER": "next"}, "debounce": 0.02},
          {"name": "override", "match": {"name": "special*"}, "switches": {"KEY_SPACE": "menu", "KEY_ENTER": null}, "debounce": 0}
        ]}
        """#
        let sections = try DeviceProfileLoader.load(bytes: Array(json.utf8), file: "t.json", codes: LibevdevCodes())
        let profiles = DeviceProfiles(sections: sections)
        let codes = LibevdevCodes()
        let special = profiles.mapping(for: InputDeviceDescription(node: "n", name: "Special Switch", bus: "usb", vendor: 1, product: 2, capabilities: []))
        #expect(special.switches[codes.code(named: "KEY_SPACE")!] == .menu)
        #expect(special.switches[codes.code(named: "KEY_ENTER")!] == nil)
        #expect(special.debounce == nil, "an explicit 0 turns debounce off")
        let other = profiles.mapping(for: InputDeviceDescription(node: "n", name: "Other", bus: "usb", vendor: 1, product: 2, capabilities: []))
        #expect(other.switches[codes.code(named: "KEY_ENTER")!] == .next)
        #expect(other.debounce == .milliseconds(20))
    }

    @Test func badProfilesGetPreciseMessages() throws {
        let json = #"""
        {"schemaVersion": 1, "sections": [
          {"name": "typos", "match": {"capabilities": ["keybaord"], "vendor": "xyz"},
           "switches": {"KEY_SPAC": "select", "ABS_X": "next", "KEY_ENTER": "selct"},
           "axes": {"KEY_A": {"high": "select"}}}
        ]}
        """#
        do {
            _ = try DeviceProfileLoader.load(bytes: Array(json.utf8), file: "Devices/50-bad.json", codes: LibevdevCodes())
            Issue.record("expected errors")
        } catch {
            let text = error.description
            #expect(text.contains(#"$.sections[0].switches.KEY_SPAC (element "typos"): unknown event code "KEY_SPAC"; did you mean "KEY_SPACE"?"#), "\(text)")
            #expect(text.contains(#"$.sections[0].switches.ABS_X (element "typos"): "ABS_X" is an axis"#), "\(text)")
            #expect(text.contains(#"did you mean "select"?"#), "\(text)")
            #expect(text.contains(#"did you mean "keyboard"?"#), "\(text)")
            #expect(text.contains(#""xyz" is not a 4-digit hex id"#), "\(text)")
            #expect(text.contains(#""KEY_A" is not an axis"#), "\(text)")
            #expect(text.hasPrefix("Devices/50-bad.json:"))
            #expect(error.errors.count == 6)
        }
    }
}

@Suite("Switch decoder")
struct SwitchDecoderTests {
    func decoder(_ recording: EvemuRecording.Recording) throws -> SwitchDecoder {
        let caps: Set<String> = recording.events.contains { $0.type == 3 } ? ["joystick"] : recording.name.contains("Keyboard") ? ["keyboard"] : ["joystick"]
        let d = InputDeviceDescription(node: "x", name: recording.name, bus: "usb", vendor: recording.vendor,
                                       product: recording.product, capabilities: caps)
        return SwitchDecoder(mapping: try shippedProfiles().mapping(for: d), deviceID: 1, axisRanges: recording.axisRanges)
    }

    @Test func buttonsBecomePressesAndReleases() throws {
        let rec = try fixture("xkeys-switch-interface.evemu")
        var d = try decoder(rec)
        let out = rec.events.flatMap { d.decode($0) }
        #expect(describe(out) == ["select down 3.200", "select up 3.260", "select down 3.500", "select up 3.540",
                                  "next down 3.700", "next up 3.750"])
        #expect(out.allSatisfy { $0.debounce == .milliseconds(30) }, "the profile's debounce travels with the events")
    }

    @Test func autorepeatIsNotAPress() throws {
        let rec = try fixture("usb-keyboard-autorepeat.evemu")
        var d = try decoder(rec)
        #expect(describe(rec.events.flatMap { d.decode($0) }) == ["select down 1.200", "select up 1.530"])
    }

    @Test func anAxisWithHysteresisDoesNotChatter() throws {
        let rec = try fixture("sip-and-puff.evemu")
        var d = try decoder(rec)
        #expect(describe(rec.events.flatMap { d.decode($0) }) == ["select down 1.000", "select up 1.100", "next down 2.200", "next up 2.300"])
    }

    @Test func resyncAfterDroppedEventsReleasesButNeverPresses() throws {
        let rec = try fixture("xkeys-switch-interface.evemu")
        var d = try decoder(rec)
        let t = ScanInstant.seconds(1)
        // BTN_0 down before the overflow; during resync libevdev reports BTN_0 up and BTN_1 down.
        #expect(d.decode(RawInputEvent(type: 1, code: 0x100, value: 1, time: t)).count == 1)
        d.beginResync()
        let during = d.decode(RawInputEvent(type: 1, code: 0x100, value: 0, time: t + .seconds(1)))
            + d.decode(RawInputEvent(type: 1, code: 0x101, value: 1, time: t + .seconds(1)))
        d.endResync()
        #expect(describe(during) == ["select up 2.000"], "the release gets through; the lost press is not invented")
        // The switch that was down through the resync comes up later: no stray release.
        #expect(d.decode(RawInputEvent(type: 1, code: 0x101, value: 0, time: t + .seconds(2))).isEmpty)
        #expect(!d.anyDown)
    }

    @Test func releaseAllWhenTheDeviceGoesAway() throws {
        let rec = try fixture("xkeys-switch-interface.evemu")
        var d = try decoder(rec)
        _ = d.decode(RawInputEvent(type: 1, code: 0x100, value: 1, time: .seconds(1)))
        #expect(d.anyDown)
        #expect(describe(d.releaseAll(at: .seconds(2))) == ["select up 2.000"])
        #expect(!d.anyDown)
    }
}

@Suite("Opening devices")
struct OpenerTests {
    struct Refusing: DeviceOpener {
        let code: Int32
        func open(_ path: String) -> Int32 { -code }
        func close(_ fd: Int32) {}
    }

    @Test(arguments: [(EACCES, "input' group"), (ENOENT, "switchscan devices"), (EBUSY, "--grab")])
    func failuresSayWhatToDo(_ code: Int32, _ hint: String) {
        do {
            _ = try EvdevDevice(path: "/dev/input/event7", opener: Refusing(code: code))
            Issue.record("expected a failure")
        } catch {
            #expect(error.description.hasPrefix("While opening /dev/input/event7: "))
            #expect(error.description.contains(hint), "\(error)")
        }
    }

    @Test func aNonEvdevFileIsRefusedClearly() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-device-\(UUID())").path
        FileManager.default.createFile(atPath: path, contents: Data("hello".utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try EvdevDevice(path: path)
            Issue.record("expected a failure")
        } catch {
            #expect(error.description.contains("as an evdev device"), "\(error)")
        }
    }
}

@Suite("Recordings")
struct RecordingTests {
    @Test func roundTrip() throws {
        let rec = try fixture("xkeys-switch-interface.evemu")
        #expect(rec.name == "P. I. Engineering XK-3 Switch Interface")
        #expect(rec.vendor == 0x05f3 && rec.product == 0x0232)
        let start = rec.events[0].time
        let text = EvemuRecording.header(name: rec.name, bus: rec.bus, vendor: rec.vendor, product: rec.product)
            + rec.events.map { EvemuRecording.line($0, since: .zero) }.joined(separator: "\n")
        let again = try EvemuRecording.parse(text, file: "again")
        #expect(again.events == rec.events)
        #expect(EvemuRecording.line(rec.events[0], since: start) == "E: 0.000000 0001 0100 1")
    }

    @Test func badLinesAreReportedWithTheirNumbers() {
        do {
            _ = try EvemuRecording.parse("N: x\nE: 1.0 0001 0039 1\nE: 2.000000 0001 0039 1\nE: 1.000000 0001 0039 0\n", file: "r.evemu")
            Issue.record("expected errors")
        } catch {
            #expect(error.problems.map(\.line) == [2, 4])
            #expect(error.description.contains("r.evemu:4: time 1.000000 goes back in time"))
        }
    }
}

/// A sink that takes nothing: for what is decided before a device is opened.
final class NoSink: SwitchEventSink, @unchecked Sendable {
    func perform(_ body: @escaping @Sendable () -> Void) { body() }
    func performAndWait<T>(_ body: @escaping () -> T) -> T? { body() }
    func attach(fd: Int32, decode: @escaping (Int32) -> (events: [SwitchEvent], gone: Bool)) {}
    func detach(fd: Int32) {}
    func submit(_ event: SwitchEvent) {}
    var now: ScanInstant { .zero }
}

@Suite("SwitchScan's own devices")
struct OwnDevicesTests {
    /// Its uinput keys type letters and spaces: read back as a keyboard, a typed space
    /// would select. They are passed over whatever the profiles say.
    @Test func theKeysAndPointerSwitchScanMakesAreNeverSwitches() throws {
        let devices = SwitchDevices(sink: NoSink(), profiles: try shippedProfiles(), grab: false, log: { _ in })
        let own = InputDeviceDescription(node: "/dev/input/event42", name: "SwitchScan keys", bus: "virtual",
                                         vendor: InputDeviceDescription.switchScanVendor, product: 2, capabilities: ["keyboard"])
        #expect(own.isMadeBySwitchScan)
        let mapping = try shippedProfiles().mapping(for: own)
        #expect(!mapping.isEmpty, "a keyboard profile would match it")
        let report = devices.add(own)
        #expect(!report.opened && report.problem?.contains("made by SwitchScan") == true, "\(report)")
        let other = InputDeviceDescription(node: "/dev/input/event3", name: "Some USB Keyboard", bus: "usb",
                                           vendor: InputDeviceDescription.switchScanVendor, product: 2, capabilities: ["keyboard"])
        #expect(!other.isMadeBySwitchScan, "only virtual devices with its id")
    }
}

import Foundation
import ScanCore
import ScanFormats
@testable import SwitchInput
import Testing

/// Who may read which device, and which devices are switches: only what SwitchScan needs.
@Suite("Device access: named switches, narrow grants")
struct DeviceAccessTests {
    static let laptopKeyboard = InputDeviceDescription(node: "/dev/input/event3", name: "AT Translated Set 2 keyboard", bus: "i8042",
                                                       vendor: 0x0001, product: 0x0001, capabilities: ["keyboard"])
    static let touchpad = InputDeviceDescription(node: "/dev/input/event6", name: "SynPS/2 Synaptics TouchPad", bus: "i8042",
                                                 vendor: 0x0002, product: 0x0007, capabilities: ["mouse"])

    /// Whoever types on the laptop's keyboard, or clicks its touchpad, is not pressing
    /// switches: a profile for keyboards or mice in general maps them, but names neither.
    @Test func aKeyboardOrMouseIsASwitchOnlyWhenNamed() throws {
        let profiles = try shippedProfiles()
        for d in [Self.laptopKeyboard, Self.touchpad] {
            let mapping = profiles.mapping(for: d)
            #expect(!mapping.isEmpty && !mapping.named && d.needsNaming, "\(d.name)")
            let report = SwitchDevices(sink: NoSink(), profiles: profiles, grab: false, log: { _ in }).add(d)
            #expect(!report.opened, "\(d.name)")
            #expect(report.problem == DeviceMapping.unnamedProblem)
        }
        // An X-Keys interface set to type keys is named by its profile; a gamepad is a switch.
        let xkeys = InputDeviceDescription(node: "/dev/input/event4", name: "P. I. Engineering XK-3 Switch Interface", bus: "usb",
                                           vendor: 0x05f3, product: 0x0232, capabilities: ["keyboard"])
        #expect(profiles.mapping(for: xkeys).named)
        let pad = InputDeviceDescription(node: "/dev/input/event5", name: "Generic USB Gamepad", bus: "usb",
                                         vendor: 0x0079, product: 0x0011, capabilities: ["gamepad", "joystick"])
        #expect(!pad.needsNaming)
        // A keyboard that also reports a lid or tablet-mode switch is still a keyboard.
        var withLid = Self.laptopKeyboard
        withLid.capabilities.insert("switch")
        #expect(withLid.needsNaming)
        // What setup writes names the device it heard.
        let local = try DeviceProfileLoader.load(bytes: Array("""
            {"schemaVersion": 1, "sections": [{"name": "switchscan setup: AT Translated Set 2 keyboard",
              "match": {"bus": "i8042", "vendor": "0001", "product": "0001"}, "switches": {"KEY_F9": "select"}}]}
            """.utf8), file: "90-local.json", codes: LibevdevCodes())
        #expect(DeviceProfiles(sections: profiles.sections + local).mapping(for: Self.laptopKeyboard).named)
    }

    /// `--device` chooses it: that names it.
    @Test func aKeyboardChosenWithDeviceIsTried() throws {
        let devices = SwitchDevices(sink: NoSink(), profiles: try shippedProfiles(), grab: false,
                                    only: [Self.laptopKeyboard.node], log: { _ in })
        let report = devices.add(Self.laptopKeyboard)
        #expect(report.problem != DeviceMapping.unnamedProblem, "\(report)")
    }

    @Test func aGrantNamesOneDeviceByVendorProductAndSerial() throws {
        // A serial as udev gives it (letters, digits, "#+-.:=@_").
        let d = InputDeviceDescription(node: "/dev/input/event7", name: "AbleNet Blue2 \u{1B}[31m", bus: "usb", vendor: 0x2341, product: 0x8036,
                                       capabilities: ["keyboard"], properties: ["ID_SERIAL_SHORT": "A1#B2+x@y", "ID_PATH": "pci-0000:00:14.0-usb-0:2:1.0"])
        let grant = try DeviceGrant.rule(for: d).get()
        #expect(grant.fileName == "71-switchscan-2341-8036-A1_B2_x_y.rules")
        #expect(!grant.wholeModel)
        #expect(grant.text == """
            # Written by 'switchscan devices grant' for one switch: AbleNet Blue2 [31m (2341:8036, serial A1#B2+x@y).
            # The user at the seat may read this device alone (systemd-logind's uaccess), as a
            # switch for SwitchScan; no other keyboard or mouse. Delete this file to take it back.
            ACTION=="remove", GOTO="switchscan_grant_end"
            SUBSYSTEM=="input", KERNEL=="event*", ATTRS{id/vendor}=="2341", ATTRS{id/product}=="8036", ENV{ID_SERIAL_SHORT}=="A1#B2+x@y", TAG+="uaccess"
            LABEL="switchscan_grant_end"

            """)
        // No serial: the port it is plugged into tells it from others of its model.
        var noSerial = d
        noSerial.properties = ["ID_PATH": "pci-0000:00:14.0-usb-0:2:1.0"]
        let byPort = try DeviceGrant.rule(for: noSerial).get()
        #expect(byPort.fileName == "71-switchscan-2341-8036-pci_0000_00_14_0_usb_0_2_1_0.rules")
        #expect(byPort.text.contains(#"ENV{ID_PATH}=="pci-0000:00:14.0-usb-0:2:1.0", TAG+="uaccess""#))
        // Nothing to tell it apart (or a value a rule would read as a pattern): the model, said so.
        for properties in [[:], ["ID_SERIAL_SHORT": "a*b", "ID_PATH": "x\"y"]] {
            var model = d
            model.properties = properties
            let grant = try DeviceGrant.rule(for: model).get()
            #expect(grant.wholeModel && grant.fileName == "71-switchscan-2341-8036.rules", "\(properties)")
            #expect(grant.text.contains("every device of this model") && !grant.text.contains("ENV{"))
        }
        let own = InputDeviceDescription(node: "/dev/input/event9", name: "SwitchScan keys", bus: "virtual",
                                         vendor: InputDeviceDescription.switchScanVendor, product: 2, capabilities: ["keyboard"])
        #expect(throws: GrantRefusal.self) { try DeviceGrant.rule(for: own).get() }
        let anonymous = InputDeviceDescription(node: "/dev/input/event8", name: "virtual", bus: "virtual", vendor: 0, product: 0, capabilities: ["keyboard"])
        #expect(throws: GrantRefusal.self) { try DeviceGrant.rule(for: anonymous).get() }
    }

    /// The packaged rule tags for the seat's user exactly the switch interfaces the shipped
    /// profiles name by vendor and product, and no keyboard, mouse or /dev/uinput; uinput
    /// goes to the 'uinput' group alone.
    @Test func thePackagedRuleGrantsTheProfilesSwitchInterfacesAndNothingElse() throws {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("packaging/70-switchscan.rules"), encoding: .utf8)
        let rules = text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        var granted = Set<String>()
        for line in rules where line.contains("uaccess") {
            guard let vendor = line.firstMatch(of: /ATTRS\{id\/vendor\}=="([0-9a-f]{4})"/)?.1,
                  let products = line.firstMatch(of: /ATTRS\{id\/product\}=="([0-9a-f|]+)"/)?.1 else {
                Issue.record("a grant that does not name vendor and product: \(line)")
                continue
            }
            for p in products.split(separator: "|") { granted.insert("\(vendor):\(p)") }
        }
        var named = Set<String>()
        for s in try shippedProfiles().sections where s.file.contains("30-vendor") {
            if let v = s.match.vendor, let p = s.match.product {
                named.insert(InputDeviceDescription(node: "", name: "", bus: "", vendor: v, product: p, capabilities: []).idText)
            }
        }
        #expect(granted == named)
        #expect(!rules.contains { $0.contains("ID_INPUT_KEY") || $0.contains("ID_INPUT_MOUSE") || $0.contains("ID_INPUT_KEYBOARD") })
        let uinput = rules.filter { $0.contains("uinput") }
        #expect(uinput == [#"SUBSYSTEM=="misc", KERNEL=="uinput", OPTIONS+="static_node=uinput", GROUP="uinput", MODE="0660""#])
        let postrm = try String(contentsOf: packageRoot.appendingPathComponent("packaging/postrm"), encoding: .utf8)
        #expect(postrm.contains("udevadm trigger --action=change --subsystem-match=input --subsystem-match=misc"))
    }
}

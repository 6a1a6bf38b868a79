import ScanCore
import ScanFormats
import Testing
@testable import SwitchSetup

/// The few kernel names these tests use.
struct Codes: EventCodeResolver {
    static let table = [btn0, btn1, keyZ, absX, EventCode(type: 1, code: 57, name: "KEY_SPACE"), EventCode(type: 1, code: 0x102, name: "BTN_2")]
    func code(named name: String) -> EventCode? { Self.table.first { $0.name == name } }
    var allNames: [String] { Self.table.map(\.name) }
}

@Suite("The local profile setup writes")
struct LocalProfileTests {
    let file = "90-local.json"

    @Test func aNewFileHoldsOneSectionADevice() throws {
        let sections = LocalProfile.sections([Assignment(sw(btn1), .select), Assignment(sw(btn0), .next)], mapped: [box.node: [btn0, btn1, EventCode(type: 1, code: 0x102, name: "BTN_2")]])
        let bytes = try LocalProfile.merged(nil, sections: sections, file: file, codes: Codes())
        #expect(String(decoding: bytes, as: UTF8.self) == """
            {
              "schemaVersion": 1,
              "description": "Switches assigned with switchscan setup.",
              "sections": [
                {
                  "name": "switchscan setup: X-Keys Switch Interface",
                  "match": {"bus": "usb", "vendor": "05f3", "product": "0232"},
                  "switches": {"BTN_1": "select", "BTN_0": "next", "BTN_2": null}
                }
              ]
            }

            """)
        // It reads back as a profile that maps the device as assigned.
        let profile = DeviceProfiles(sections: try DeviceProfileLoader.load(bytes: bytes, file: file, codes: Codes()))
        let mapping = profile.mapping(for: box.description)
        #expect(mapping.switches == [btn1: .select, btn0: .next])
        #expect(try LocalProfile.listing(bytes, file: file) == ["X-Keys Switch Interface (usb 05f3:0232): BTN_1 select, BTN_0 next"])
    }

    @Test func theUsersOtherSectionsAndMembersAreKept() throws {
        let current = Array("""
            {"schemaVersion": 1, "description": "Mine", "sections": [
              {"name": "my keyboard", "match": {"name": "*kbd*"}, "switches": {"KEY_SPACE": null}},
              {"name": "switchscan setup: Old", "match": {"name": "Old"}, "switches": {"BTN_0": "select"}}
            ]}
            """.utf8)
        let axis = HeardSwitch(device: pad, code: absX, side: .low)
        let sections = LocalProfile.sections([Assignment(axis, .select), Assignment(HeardSwitch(device: pad, code: absX, side: .high), .next)])
        let text = String(decoding: try LocalProfile.merged(current, sections: sections, file: file, codes: Codes()), as: UTF8.self)
        #expect(text == """
            {
              "schemaVersion": 1,
              "description": "Mine",
              "sections": [
                {"name":"my keyboard","match":{"name":"*kbd*"},"switches":{"KEY_SPACE":null}},
                {
                  "name": "switchscan setup: Gamepad",
                  "match": {"bus": "usb", "vendor": "045e", "product": "028e"},
                  "axes": {"ABS_X": {"low": "select", "high": "next", "threshold": 0.5, "hysteresis": 0.1}}
                }
              ]
            }

            """)
        #expect(try LocalProfile.listing(Array(text.utf8), file: file) == ["Gamepad (usb 045e:028e): ABS_X (low) select, ABS_X (high) next"])
    }

    @Test func resetRemovesOnlySetupSections() throws {
        let current = Array("""
            {"schemaVersion": 1, "sections": [
              {"name": "switchscan setup: Old", "match": {"name": "Old"}, "switches": {"BTN_0": "select"}},
              {"name": "mine", "switches": {"BTN_1": "next"}}
            ]}
            """.utf8)
        let reset = try LocalProfile.removingSetup(current, file: file, codes: Codes())
        #expect(reset.removed == 1 && reset.remaining == 1)
        #expect(String(decoding: reset.bytes, as: UTF8.self) == "{\n  \"schemaVersion\": 1,\n  \"sections\": [\n    {\"name\":\"mine\",\"switches\":{\"BTN_1\":\"next\"}}\n  ]\n}\n")
        #expect(try LocalProfile.listing(reset.bytes, file: file).isEmpty)
    }

    @Test func aFileThatIsNotAProfileIsLeftAlone() {
        #expect(throws: FileReadError.self) { try LocalProfile.merged(Array("[1, 2]".utf8), sections: [], file: file, codes: Codes()) }
        // A result that would not load (an unknown code in the user's section) is refused too.
        let bad = Array(#"{"schemaVersion": 1, "sections": [{"name": "x", "switches": {"KEY_NOPE": "select"}}]}"#.utf8)
        #expect(throws: FileReadError.self) { try LocalProfile.merged(bad, sections: [], file: file, codes: Codes()) }
    }

    @Test func aDeviceWithoutIdsIsMatchedByName() {
        let plain = SetupDevice(node: "/dev/input/event3", name: "AT Translated Set 2 keyboard", bus: "", vendor: 0, product: 0)
        #expect(LocalProfile.match(plain) == #"{"name": "AT Translated Set 2 keyboard"}"#)
    }
}

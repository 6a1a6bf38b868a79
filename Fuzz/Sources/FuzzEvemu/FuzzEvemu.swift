import ScanCore
import ScanFormats
import SwitchInput

/// A mapping of keys, buttons and an axis, as the bundled profiles give them.
let mapping: DeviceMapping = {
    let profile = #"""
        {"schemaVersion": 1, "sections": [{"name": "fuzz", "switches": {"KEY_SPACE": "select", "KEY_ENTER": "next", "BTN_0": "menu"},
         "axes": {"ABS_X": {"low": "previous", "high": "next"}, "ABS_Y": {"high": "select", "threshold": 0.3}}, "debounce": 0.02}]}
        """#
    let sections = (try? DeviceProfileLoader.load(bytes: Array(profile.utf8), file: "fuzz.json", codes: LibevdevCodes())) ?? []
    return DeviceProfiles(sections: sections).mapping(for: InputDeviceDescription(node: "fuzz", name: "x", bus: "usb", vendor: 0, product: 0, capabilities: []))
}()

/// A recording, parsed and decoded into switch events as `replay` does.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvemu(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let rec = try? EvemuRecording.parse(bytes: Array(UnsafeBufferPointer(start: data, count: size)), file: "fuzz.evemu") else { return 0 }
    var decoder = SwitchDecoder(mapping: mapping, deviceID: 1, axisRanges: rec.axisRanges)
    for e in rec.events { _ = decoder.decode(e) }
    return 0
}

import ScanFormats
import SwitchInput

/// A device profile, and the mapping it gives a device.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProfile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let sections = try? DeviceProfileLoader.load(bytes: Array(UnsafeBufferPointer(start: data, count: size)), file: "fuzz.json",
                                                       codes: LibevdevCodes()) else { return 0 }
    let device = InputDeviceDescription(node: "fuzz", name: "USB Switch Interface", bus: "usb", vendor: 0x45e, product: 0xb0a,
                                        capabilities: ["keyboard", "joystick"])
    _ = DeviceProfiles(sections: sections).mapping(for: device)
    return 0
}

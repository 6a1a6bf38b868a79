import CEvdev
import ScanCore

/// A virtual keyboard made through uinput with just the scanner menu's keys (Escape,
/// Enter, Tab, the arrows), for where no display server injects them (Wayland, the
/// console): the compositor or the console reads it like any keyboard and hands the keys
/// to whatever has the focus. A device of its own, so the uinput pointer stays a plain
/// mouse to udev and libinput.
public final class UinputKeys: @unchecked Sendable {
    public static let deviceName = "SwitchScan keys"
    private let device: UinputDevice
    private let codes: [SpecialKey: UInt32]

    public init() throws(InputError) {
        var codes: [SpecialKey: UInt32] = [:]
        for key in SpecialKey.allCases {
            let name = switch key {
            case .escape: "KEY_ESC"
            case .enter: "KEY_ENTER"
            case .tab: "KEY_TAB"
            case .up: "KEY_UP"
            case .down: "KEY_DOWN"
            case .left: "KEY_LEFT"
            case .right: "KEY_RIGHT"
            }
            let code = libevdev_event_code_from_name(cevdev_ev_key_type(), name)
            if code >= 0 { codes[key] = UInt32(code) }
        }
        device = try UinputDevice(name: Self.deviceName, product: 0x0002, what: "a uinput keyboard",
                                  alternative: "run on X11, where keys go through XTest") { dev in
            for code in codes.values { libevdev_enable_event_code(dev, cevdev_ev_key_type(), code, nil) }
        }
        self.codes = codes
    }

    /// The device node the kernel gave it (/dev/input/eventN), where known.
    public var node: String? { device.node }

    /// Presses and releases `key`; false if the kernel refused an event.
    @discardableResult
    public func press(_ key: SpecialKey) -> Bool {
        guard let code = codes[key] else { return false }
        let key = cevdev_ev_key_type(), syn = cevdev_ev_syn(), report = cevdev_syn_report()
        let events: [UinputDevice.Event] = [(key, code, 1), (syn, report, 0), (key, code, 0), (syn, report, 0)]
        return device.write { events }
    }
}

#if canImport(Glibc)
import Glibc
#endif
import CEvdev
import ScanCore

/// A virtual keyboard made through uinput with just the scanner menu's keys (Escape,
/// Enter, Tab, the arrows), for where no display server injects them (Wayland, the
/// console): the compositor or the console reads it like any keyboard and hands the keys
/// to whatever has the focus. A device of its own, so the uinput pointer stays a plain
/// mouse to udev and libinput.
public final class UinputKeys: @unchecked Sendable {
    public static let deviceName = "SwitchScan keys"
    private let device: OpaquePointer
    private let uinput: OpaquePointer
    private var mutex = pthread_mutex_t()
    private let codes: [SpecialKey: UInt32]

    public init() throws(InputError) {
        guard let dev = libevdev_new() else { throw InputError(attempted: "making a uinput keyboard", errno: ENOMEM) }
        libevdev_set_name(dev, Self.deviceName)
        libevdev_set_id_bustype(dev, Int32(cevdev_bus_virtual()))
        libevdev_set_id_vendor(dev, 0x5353)
        libevdev_set_id_product(dev, 0x0002)
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
            guard code >= 0 else { continue }
            codes[key] = UInt32(code)
            libevdev_enable_event_code(dev, cevdev_ev_key_type(), UInt32(code), nil)
        }
        var ui: OpaquePointer?
        let rc = libevdev_uinput_create_from_device(dev, cevdev_uinput_managed(), &ui)
        guard rc == 0, let ui else {
            libevdev_free(dev)
            throw InputError(attempted: "creating a uinput keyboard (/dev/uinput)", errno: -rc,
                             hint: -rc == EACCES ? "give your user access to /dev/uinput (a udev rule with TAG+=\"uaccess\"), or run on X11, where keys go through XTest." :
                                   -rc == ENOENT ? "load the uinput module (sudo modprobe uinput)." : nil)
        }
        device = dev
        uinput = ui
        self.codes = codes
        pthread_mutex_init(&mutex, nil)
    }

    deinit {
        libevdev_uinput_destroy(uinput)
        libevdev_free(device)
        pthread_mutex_destroy(&mutex)
    }

    /// The device node the kernel gave it (/dev/input/eventN), where known.
    public var node: String? { libevdev_uinput_get_devnode(uinput).map { String(cString: $0) } }

    /// Presses and releases `key`; false if the kernel refused an event.
    @discardableResult
    public func press(_ key: SpecialKey) -> Bool {
        guard let code = codes[key] else { return false }
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        var ok = true
        for value: Int32 in [1, 0] {
            if libevdev_uinput_write_event(uinput, cevdev_ev_key_type(), code, value) != 0 { ok = false }
            if libevdev_uinput_write_event(uinput, cevdev_ev_syn(), cevdev_syn_report(), 0) != 0 { ok = false }
        }
        return ok
    }
}

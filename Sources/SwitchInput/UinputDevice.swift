#if canImport(Glibc)
import Glibc
#endif
import CEvdev
import ScanFormats
import ScanHost

/// A virtual input device made through uinput from a libevdev description, destroyed with
/// the value. Writes are serialised: callable from any thread.
final class UinputDevice: @unchecked Sendable {
    private let device: OpaquePointer
    private let uinput: OpaquePointer
    private let lock = Lock()

    /// `what`: "a uinput pointer", for messages; `alternative`: what to use instead where
    /// /dev/uinput is not open to the user. `describe` enables the device's events.
    init(name: String, product: Int32, what: String, alternative: String,
         describe: (OpaquePointer) -> Void) throws(InputError) {
        guard let dev = libevdev_new() else { throw InputError(attempted: "making \(what)", errno: ENOMEM) }
        libevdev_set_name(dev, name)
        libevdev_set_id_bustype(dev, Int32(cevdev_bus_virtual()))
        libevdev_set_id_vendor(dev, Int32(InputDeviceDescription.switchScanVendor))
        libevdev_set_id_product(dev, product)
        describe(dev)
        var ui: OpaquePointer?
        let rc = libevdev_uinput_create_from_device(dev, cevdev_uinput_managed(), &ui)
        guard rc == 0, let ui else {
            libevdev_free(dev)
            throw InputError(attempted: "creating \(what) (/dev/uinput)", errno: -rc,
                             hint: -rc == EACCES ? "/dev/uinput is for the 'uinput' group (the package's udev rule): an administrator adds you with 'sudo adduser $USER uinput', then you log in again; or \(alternative)." :
                                   -rc == ENOENT ? "load the uinput module (sudo modprobe uinput)." : nil)
        }
        device = dev
        uinput = ui
    }

    deinit {
        libevdev_uinput_destroy(uinput)
        libevdev_free(device)
    }

    /// The device node the kernel gave it (/dev/input/eventN), where known.
    var node: String? { libevdev_uinput_get_devnode(uinput).map { String(cString: $0) } }

    typealias Event = (type: UInt32, code: UInt32, value: Int32)

    /// Writes the events `batch` makes, as one batch: `batch` runs under the device's lock,
    /// so it may read and update its caller's state. False if the kernel refused any.
    func write(_ batch: () -> [Event]) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        var ok = true
        for e in batch() where libevdev_uinput_write_event(uinput, e.type, e.code, e.value) != 0 { ok = false }
        return ok
    }
}

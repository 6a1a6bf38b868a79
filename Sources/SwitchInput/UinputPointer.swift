#if canImport(Glibc)
import Glibc
#endif
import CEvdev
import ScanCore

/// A virtual absolute pointer made through uinput (libevdev's uinput API), for clicks where
/// no display server injects them (Wayland, the console). It has ABS_X and ABS_Y, ranged to
/// the screen, and the left and right buttons, and no touch or tool bits, so that udev and
/// libinput take it for a mouse; a point on the screen is an absolute position on it.
public final class UinputPointer: @unchecked Sendable {
    public static let deviceName = "SwitchScan pointer"
    private let device: OpaquePointer
    private let uinput: OpaquePointer
    private var mutex = pthread_mutex_t()
    /// The axes' values as the kernel has them (a new device starts at 0, 0).
    private var last: (x: Int32, y: Int32) = (0, 0)
    public let width: Int32
    public let height: Int32

    /// `width` × `height`: the screen in the units clicks are given in (pixels).
    public init(width: Int, height: Int) throws(InputError) {
        guard width > 0, height > 0, width <= 65_535, height <= 65_535 else {
            throw InputError(attempted: "making a \(width)x\(height) pointer", errno: EINVAL, hint: "give the screen's size, e.g. --screen 1920x1080.")
        }
        self.width = Int32(width)
        self.height = Int32(height)
        guard let dev = libevdev_new() else { throw InputError(attempted: "making a uinput pointer", errno: ENOMEM) }
        libevdev_set_name(dev, Self.deviceName)
        libevdev_set_id_bustype(dev, Int32(cevdev_bus_virtual()))
        libevdev_set_id_vendor(dev, 0x5353)
        libevdev_set_id_product(dev, 0x0001)
        for (code, extent) in [(cevdev_abs_x(), width), (cevdev_abs_y(), height)] {
            var info = input_absinfo(value: 0, minimum: 0, maximum: Int32(extent - 1), fuzz: 0, flat: 0, resolution: 0)
            libevdev_enable_event_code(dev, cevdev_ev_abs(), code, &info)
        }
        for code in [cevdev_btn_left(), cevdev_btn_right()] { libevdev_enable_event_code(dev, cevdev_ev_key_type(), code, nil) }
        var ui: OpaquePointer?
        let rc = libevdev_uinput_create_from_device(dev, cevdev_uinput_managed(), &ui)
        guard rc == 0, let ui else {
            libevdev_free(dev)
            throw InputError(attempted: "creating a uinput pointer (/dev/uinput)", errno: -rc,
                             hint: -rc == EACCES ? "give your user access to /dev/uinput (a udev rule with TAG+=\"uaccess\"), or use --pointer xtest on X11." :
                                   -rc == ENOENT ? "load the uinput module (sudo modprobe uinput)." : nil)
        }
        device = dev
        uinput = ui
        pthread_mutex_init(&mutex, nil)
    }

    deinit {
        libevdev_uinput_destroy(uinput)
        libevdev_free(device)
        pthread_mutex_destroy(&mutex)
    }

    /// The device node the kernel gave it (/dev/input/eventN), where known.
    public var node: String? { libevdev_uinput_get_devnode(uinput).map { String(cString: $0) } }

    /// Moves to the point and clicks the left button; false if the kernel refused an event.
    @discardableResult
    public func click(at p: Point) -> Bool {
        let x = Int32(max(0, min(Double(width - 1), p.x.rounded())))
        let y = Int32(max(0, min(Double(height - 1), p.y.rounded())))
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        do {
            var ok = true
            func send(_ type: UInt32, _ code: UInt32, _ value: Int32) {
                if libevdev_uinput_write_event(uinput, type, code, value) != 0 { ok = false }
            }
            // The kernel drops an axis value equal to the one before: after another device
            // moved the cursor, the same point again would not move it. Step aside first.
            if last.x == x || last.y == y {
                send(cevdev_ev_abs(), cevdev_abs_x(), x == 0 ? 1 : x - 1)
                send(cevdev_ev_abs(), cevdev_abs_y(), y == 0 ? 1 : y - 1)
                send(cevdev_ev_syn(), cevdev_syn_report(), 0)
            }
            send(cevdev_ev_abs(), cevdev_abs_x(), x)
            send(cevdev_ev_abs(), cevdev_abs_y(), y)
            send(cevdev_ev_syn(), cevdev_syn_report(), 0)
            send(cevdev_ev_key_type(), cevdev_btn_left(), 1)
            send(cevdev_ev_syn(), cevdev_syn_report(), 0)
            send(cevdev_ev_key_type(), cevdev_btn_left(), 0)
            send(cevdev_ev_syn(), cevdev_syn_report(), 0)
            last = (x, y)
            return ok
        }
    }
}

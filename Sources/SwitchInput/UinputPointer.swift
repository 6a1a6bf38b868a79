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
    private let device: UinputDevice
    /// The axes' values as the kernel has them (a new device starts at 0, 0); read and
    /// changed under the device's lock.
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
        device = try UinputDevice(name: Self.deviceName, product: 0x0001, what: "a uinput pointer",
                                  alternative: "use --pointer xtest on X11") { dev in
            for (code, extent) in [(cevdev_abs_x(), width), (cevdev_abs_y(), height)] {
                var info = input_absinfo(value: 0, minimum: 0, maximum: Int32(extent - 1), fuzz: 0, flat: 0, resolution: 0)
                libevdev_enable_event_code(dev, cevdev_ev_abs(), code, &info)
            }
            for code in [cevdev_btn_left(), cevdev_btn_right()] { libevdev_enable_event_code(dev, cevdev_ev_key_type(), code, nil) }
        }
    }

    /// The device node the kernel gave it (/dev/input/eventN), where known.
    public var node: String? { device.node }

    /// Moves to the point and clicks the left button; false if the kernel refused an event.
    @discardableResult
    public func click(at p: Point) -> Bool {
        let x = Int32(max(0, min(Double(width - 1), p.x.rounded())))
        let y = Int32(max(0, min(Double(height - 1), p.y.rounded())))
        let abs = cevdev_ev_abs(), key = cevdev_ev_key_type(), syn = cevdev_ev_syn(), report = cevdev_syn_report()
        return device.write {
            var events: [UinputDevice.Event] = []
            // The kernel drops an axis value equal to the one before: after another device
            // moved the cursor, the same point again would not move it. Step aside first.
            if last.x == x || last.y == y {
                events += [(abs, cevdev_abs_x(), x == 0 ? 1 : x - 1), (abs, cevdev_abs_y(), y == 0 ? 1 : y - 1), (syn, report, 0)]
            }
            events += [(abs, cevdev_abs_x(), x), (abs, cevdev_abs_y(), y), (syn, report, 0),
                       (key, cevdev_btn_left(), 1), (syn, report, 0), (key, cevdev_btn_left(), 0), (syn, report, 0)]
            last = (x, y)
            return events
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
import CEvdev
import ScanCore

/// A virtual absolute pointer made through uinput (libevdev's uinput API), for clicks where
/// no display server injects them (Wayland, the console). It has ABS_X and ABS_Y, ranged to
/// the screen, and the left and right buttons, and no touch or tool bits, so that udev and
/// libinput take it for a mouse; a point on the screen is an absolute position on it. Its
/// wheels (REL_WHEEL, REL_HWHEEL) scroll.
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
            for code in [cevdev_btn_left(), cevdev_btn_right(), cevdev_btn_middle()] { libevdev_enable_event_code(dev, cevdev_ev_key_type(), code, nil) }
            for code in [cevdev_rel_wheel(), cevdev_rel_hwheel()] { libevdev_enable_event_code(dev, cevdev_ev_rel(), code, nil) }
        }
    }

    /// The device node the kernel gave it (/dev/input/eventN), where known.
    public var node: String? { device.node }

    /// Moves to the point and clicks the left button; false if the kernel refused an event.
    @discardableResult
    public func click(at p: Point) -> Bool {
        let key = cevdev_ev_key_type(), syn = cevdev_ev_syn(), report = cevdev_syn_report()
        return device.write {
            moveEvents(p) + [(key, cevdev_btn_left(), 1), (syn, report, 0), (key, cevdev_btn_left(), 0), (syn, report, 0)]
        }
    }

    /// A gesture at `p`, as `XTestPointer.perform` makes it: the right button, the left
    /// twice, the left held 0.8 s, a drag to `to` in ten steps, or five notches of a wheel.
    /// A long press and a drag take their time here (the calling thread waits).
    @discardableResult
    public func perform(_ gesture: Gesture, at p: Point, to: Point? = nil) -> Bool {
        let key = cevdev_ev_key_type(), rel = cevdev_ev_rel(), syn = cevdev_ev_syn(), report = cevdev_syn_report()
        let left = cevdev_btn_left()
        func button(_ b: UInt32, _ down: Bool) -> [UinputDevice.Event] { [(key, b, down ? 1 : 0), (syn, report, 0)] }
        func pause(_ ms: Int) { usleep(useconds_t(ms * 1000)) }
        switch gesture {
        case .rightClick:
            return device.write { moveEvents(p) + button(cevdev_btn_right(), true) + button(cevdev_btn_right(), false) }
        case .doubleClick:
            return device.write { moveEvents(p) + button(left, true) + button(left, false) + button(left, true) + button(left, false) }
        case .longPress:
            guard device.write({ moveEvents(p) + button(left, true) }) else { return false }
            pause(Self.longPressMilliseconds)
            return device.write { button(left, false) }
        case .drag:
            guard let to, device.write({ moveEvents(p) + button(left, true) }) else { return false }
            var ok = true
            for k in 1...10 where ok {
                pause(k == 1 ? 100 : 20)
                let f = Double(k) / 10
                ok = device.write { moveEvents(Point(x: p.x + (to.x - p.x) * f, y: p.y + (to.y - p.y) * f), stepAside: false) }
            }
            pause(100)
            return device.write { button(left, false) } && ok
        case .scrollUp, .scrollDown, .scrollLeft, .scrollRight:
            // REL_WHEEL is positive away from the user (up); REL_HWHEEL positive to the right.
            let (code, value): (UInt32, Int32) = switch gesture {
            case .scrollUp: (cevdev_rel_wheel(), 1)
            case .scrollDown: (cevdev_rel_wheel(), -1)
            case .scrollLeft: (cevdev_rel_hwheel(), -1)
            default: (cevdev_rel_hwheel(), 1)
            }
            return device.write {
                moveEvents(p) + (0..<Self.wheelNotches).flatMap { _ in [(rel, code, value), (syn, report, 0)] as [UinputDevice.Event] }
            }
        }
    }

    /// How long a long press holds the button.
    public static let longPressMilliseconds = 800
    /// How many notches of the wheel a scroll turns.
    public static let wheelNotches = 5

    /// The events that move to `p` (called under the device's lock).
    private func moveEvents(_ p: Point, stepAside: Bool = true) -> [UinputDevice.Event] {
        let x = Int32(max(0, min(Double(width - 1), p.x.rounded())))
        let y = Int32(max(0, min(Double(height - 1), p.y.rounded())))
        let abs = cevdev_ev_abs(), syn = cevdev_ev_syn(), report = cevdev_syn_report()
        var events: [UinputDevice.Event] = []
        // The kernel drops an axis value equal to the one before: after another device
        // moved the cursor, the same point again would not move it. Step aside first.
        if stepAside && (last.x == x || last.y == y) {
            events += [(abs, cevdev_abs_x(), x == 0 ? 1 : x - 1), (abs, cevdev_abs_y(), y == 0 ? 1 : y - 1), (syn, report, 0)]
        }
        events += [(abs, cevdev_abs_x(), x), (abs, cevdev_abs_y(), y), (syn, report, 0)]
        last = (x, y)
        return events
    }
}

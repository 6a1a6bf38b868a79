import ScanCore
import ScanFormats

/// An input device as setup names it and a profile matches it.
public struct SetupDevice: Hashable, Sendable {
    public var node: String
    public var name: String
    /// "usb", "bluetooth", … (lower case), or empty when unknown.
    public var bus: String
    public var vendor: UInt16
    public var product: UInt16

    public init(node: String, name: String, bus: String, vendor: UInt16, product: UInt16) {
        self.node = node; self.name = name; self.bus = bus; self.vendor = vendor; self.product = product
    }

    public init(_ d: InputDeviceDescription) {
        self.init(node: d.node, name: d.name, bus: d.bus, vendor: d.vendor, product: d.product)
    }

    /// How matching sees it: bus, ids and name, never the node (which changes with each plug).
    public var description: InputDeviceDescription {
        InputDeviceDescription(node: node, name: name, bus: bus, vendor: vendor, product: product, capabilities: [])
    }
}

/// One way an axis is pushed: towards its minimum or its maximum.
public enum AxisSide: String, Hashable, Sendable { case low, high }

/// One switch heard during setup: a key or button of a device, or one side of an axis.
public struct HeardSwitch: Hashable, Sendable {
    public var device: SetupDevice
    public var code: EventCode
    /// nil for a key or button.
    public var side: AxisSide?

    public init(device: SetupDevice, code: EventCode, side: AxisSide? = nil) {
        self.device = device; self.code = code; self.side = side
    }

    /// "BTN_0 on X-Keys Switch Interface", "ABS_X (low) on Sip and Puff".
    public var label: String {
        code.name + (side.map { " (\($0.rawValue))" } ?? "") + " on " + (device.name.isEmpty ? device.node : device.name)
    }
}

/// What a switch did, as setup reads it.
public enum SwitchChange: Hashable, Sendable {
    case down(HeardSwitch)
    case up(HeardSwitch)
    /// Autorepeat (evdev value 2): the key is being held down.
    case repeating(HeardSwitch)
    /// Already down when setup began.
    case heldAtStart(HeardSwitch)

    public var heard: HeardSwitch {
        switch self { case .down(let s), .up(let s), .repeating(let s), .heldAtStart(let s): s }
    }
}

/// Turns one device's raw evdev events into switch changes: any key or button, and (on
/// joysticks and gamepads) any axis, pushed past half-way from its centre, released once
/// back inside 0.4 (the profiles' default threshold and hysteresis). Pure, like the decoder
/// `run` uses, so it is tested with synthetic events.
public struct SwitchTracker: Sendable {
    public static let keyType: UInt16 = 1   // EV_KEY
    public static let absType: UInt16 = 3   // EV_ABS
    public static let threshold = 0.5
    public static let hysteresis = 0.1

    public let device: SetupDevice
    let usesAxes: Bool
    var keysDown: Set<UInt16>
    var axisSide: [UInt16: Int] = [:]
    let ranges: [UInt16: ClosedRange<Int32>]
    /// The keys down when the device was opened, reported once by `start()`.
    let heldKeys: [EventCode]

    /// `heldKeys`: keys down now (the kernel's state); `axes`: each axis's range and value
    /// now, on devices whose axes may be switches (joysticks, gamepads): one off-centre now
    /// counts as held, silently (a trigger rests at its end), until it comes back.
    public init(device: SetupDevice, heldKeys: [EventCode], axes: [UInt16: (range: ClosedRange<Int32>, value: Int32)]?) {
        self.device = device
        self.heldKeys = heldKeys.filter { Self.isSwitchKey($0.code) }
        keysDown = Set(self.heldKeys.map(\.code))
        usesAxes = axes != nil
        var ranges: [UInt16: ClosedRange<Int32>] = [:]
        for (code, axis) in axes ?? [:] where Self.isSwitchAxis(code) && axis.range.lowerBound < axis.range.upperBound {
            ranges[code] = axis.range
        }
        self.ranges = ranges
        for (code, range) in ranges {
            let f = Self.fraction(axes![code]!.value, range)
            if abs(f) >= Self.threshold { axisSide[code] = f > 0 ? 1 : -1 }
        }
    }

    /// The keys already down: reported, so that the person hears why they do nothing.
    public func start() -> [SwitchChange] {
        heldKeys.map { .heldAtStart(HeardSwitch(device: device, code: $0)) }
    }

    /// Touch and pen "buttons" (BTN_TOOL_*, BTN_TOUCH, BTN_STYLUS…) are a finger on a
    /// touchpad, not a switch.
    static func isSwitchKey(_ code: UInt16) -> Bool { code != 0 && !(0x140...0x14f).contains(code) }
    /// Sticks, triggers, wheels and hats; not pressure, distance, tilt or multitouch.
    static func isSwitchAxis(_ code: UInt16) -> Bool { code < 0x18 }

    static func fraction(_ value: Int32, _ range: ClosedRange<Int32>) -> Double {
        let centre = (Double(range.lowerBound) + Double(range.upperBound)) / 2
        let half = max(0.5, (Double(range.upperBound) - Double(range.lowerBound)) / 2)
        return (Double(value) - centre) / half
    }

    public mutating func handle(_ code: EventCode, value: Int32) -> [SwitchChange] {
        switch code.type {
        case Self.keyType:
            guard Self.isSwitchKey(code.code) else { return [] }
            let heard = HeardSwitch(device: device, code: code)
            switch value {
            case 0: return keysDown.remove(code.code) != nil ? [.up(heard)] : []
            case 1: return keysDown.insert(code.code).inserted ? [.down(heard)] : []
            default:
                keysDown.insert(code.code)
                return [.repeating(heard)]
            }
        case Self.absType:
            guard usesAxes, let range = ranges[code.code] else { return [] }
            let f = Self.fraction(value, range)
            let side = axisSide[code.code] ?? 0
            var next = side
            if side == 0 {
                if f >= Self.threshold { next = 1 } else if f <= -Self.threshold { next = -1 }
            } else if side > 0, f < Self.threshold - Self.hysteresis {
                next = f <= -Self.threshold ? -1 : 0
            } else if side < 0, f > -(Self.threshold - Self.hysteresis) {
                next = f >= Self.threshold ? 1 : 0
            }
            guard next != side else { return [] }
            axisSide[code.code] = next
            func heard(_ s: Int) -> HeardSwitch { HeardSwitch(device: device, code: code, side: s > 0 ? .high : .low) }
            var out: [SwitchChange] = []
            if side != 0 { out.append(.up(heard(side))) }
            if next != 0 { out.append(.down(heard(next))) }
            return out
        default:
            return []
        }
    }
}

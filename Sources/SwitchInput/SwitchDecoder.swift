import ScanCore
import ScanFormats

/// One evdev event as the kernel reports it, with its CLOCK_MONOTONIC timestamp.
public struct RawInputEvent: Hashable, Sendable {
    public var type: UInt16
    public var code: UInt16
    public var value: Int32
    public var time: ScanInstant
    public init(type: UInt16, code: UInt16, value: Int32, time: ScanInstant) {
        self.type = type; self.code = code; self.value = value; self.time = time
    }

    public static let key: UInt16 = 1   // EV_KEY
    public static let abs: UInt16 = 3   // EV_ABS
}

/// Turns a device's raw events into switch events through its profile mapping. Pure: no
/// I/O, so it is tested with recorded or synthetic events.
///
/// - Key repeats (value 2) are never presses.
/// - After SYN_DROPPED, while the state is resynchronised, only releases get through: a
///   press lost in the overflow is not invented afterwards (no phantom press), and a switch
///   that came up meanwhile is released.
/// - Axes become switches with a threshold and hysteresis.
public struct SwitchDecoder: Sendable {
    public let mapping: DeviceMapping
    public let deviceID: Int
    let keys: [UInt16: SwitchAction]
    let axes: [UInt16: AxisSwitch]
    let ranges: [UInt16: ClosedRange<Int32>]
    var down: Set<UInt16> = []
    var axisSide: [UInt16: Int] = [:]
    public private(set) var resyncing = false

    public init(mapping: DeviceMapping, deviceID: Int, axisRanges: [UInt16: ClosedRange<Int32>] = [:]) {
        self.mapping = mapping
        self.deviceID = deviceID
        var k: [UInt16: SwitchAction] = [:]
        for (code, action) in mapping.switches where code.type == RawInputEvent.key { k[code.code] = action }
        keys = k
        var a: [UInt16: AxisSwitch] = [:]
        for (code, axis) in mapping.axes where code.type == RawInputEvent.abs { a[code.code] = axis }
        axes = a
        ranges = axisRanges
    }

    /// Whether any mapped switch of this device is held (a grab waits until none is).
    public var anyDown: Bool { !down.isEmpty || axisSide.values.contains { $0 != 0 } }

    public mutating func beginResync() { resyncing = true }
    public mutating func endResync() { resyncing = false }

    func source(_ code: UInt16, side: Int = 0) -> Int { deviceID << 17 | Int(code) << 1 | (side > 0 ? 1 : 0) }

    public mutating func decode(_ e: RawInputEvent) -> [SwitchEvent] {
        switch e.type {
        case RawInputEvent.key:
            guard let action = keys[e.code] else { return [] }
            switch e.value {
            case 1:
                // A press seen only by resync happened while events were lost: not acted on.
                guard !resyncing, down.insert(e.code).inserted else { return [] }
                return [SwitchEvent(action, down: true, at: e.time, source: source(e.code), debounce: mapping.debounce)]
            case 0:
                guard down.remove(e.code) != nil else { return [] }
                return [SwitchEvent(action, down: false, at: e.time, source: source(e.code), debounce: mapping.debounce)]
            default:
                return []  // 2: autorepeat while held
            }
        case RawInputEvent.abs:
            guard let axis = axes[e.code] else { return [] }
            let range = ranges[e.code] ?? -127...127
            let centre = (Double(range.lowerBound) + Double(range.upperBound)) / 2
            let half = max(1, (Double(range.upperBound) - Double(range.lowerBound)) / 2)
            let f = (Double(e.value) - centre) / half
            let side = axisSide[e.code] ?? 0
            var next = side
            if side == 0 {
                if f >= axis.threshold, axis.high != nil { next = 1 } else if f <= -axis.threshold, axis.low != nil { next = -1 }
            } else if side == 1 {
                if f < axis.threshold - axis.hysteresis { next = f <= -axis.threshold && axis.low != nil ? -1 : 0 }
            } else {
                if f > -(axis.threshold - axis.hysteresis) { next = f >= axis.threshold && axis.high != nil ? 1 : 0 }
            }
            guard next != side else { return [] }
            var out: [SwitchEvent] = []
            if side != 0, let a = side > 0 ? axis.high : axis.low {
                out.append(SwitchEvent(a, down: false, at: e.time, source: source(e.code, side: side), debounce: mapping.debounce))
            }
            if next != 0, !resyncing, let a = next > 0 ? axis.high : axis.low {
                out.append(SwitchEvent(a, down: true, at: e.time, source: source(e.code, side: next), debounce: mapping.debounce))
                axisSide[e.code] = next
            } else {
                axisSide[e.code] = 0
            }
            return out
        default:
            return []
        }
    }

    /// Releases for everything held: the device went away or is being closed.
    public mutating func releaseAll(at t: ScanInstant) -> [SwitchEvent] {
        var out: [SwitchEvent] = []
        for code in down.sorted() {
            if let a = keys[code] { out.append(SwitchEvent(a, down: false, at: t, source: source(code), debounce: nil)) }
        }
        down.removeAll()
        for (code, side) in axisSide.sorted(by: { $0.key < $1.key }) where side != 0 {
            if let axis = axes[code], let a = side > 0 ? axis.high : axis.low {
                out.append(SwitchEvent(a, down: false, at: t, source: source(code, side: side), debounce: nil))
            }
        }
        axisSide.removeAll()
        return out
    }
}

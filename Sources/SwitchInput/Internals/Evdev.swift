#if canImport(Glibc)
import Glibc
#endif
import CEvdev
import CSys
import ScanCore
import ScanFormats

/// A failed system call, with the errno and what was being attempted.
public struct InputError: Error, CustomStringConvertible, Sendable {
    public var attempted: String
    public var errno: Int32
    public var hint: String?

    public var description: String {
        "While \(attempted): \(String(cString: csys_errno_description(errno)))." + (hint.map { " Hint: \($0)" } ?? "")
    }

    /// The hint a user can act on for the usual failures of opening an input device.
    public static func opening(_ path: String, _ code: Int32) -> InputError {
        let hint: String?
        switch code {
        case EACCES, EPERM: hint = "add your user to the 'input' group (sudo usermod -aG input $USER, then log in again; it reads every keyboard), or let the user at the seat read this device alone: switchscan devices grant \(path)"
        case ENOENT, ENODEV: hint = "the device is gone (unplugged?) or the path is wrong; 'switchscan devices' lists what is there."
        case EBUSY: hint = "another program holds the device exclusively (grabbed); close it or run without --grab."
        default: hint = nil
        }
        return InputError(attempted: "opening \(path)", errno: code, hint: hint)
    }
}

/// How a device node is opened: injectable (like libinput's open_restricted), so tests and
/// the guest-kernel suite can supply their own descriptors.
public protocol DeviceOpener: Sendable {
    /// Returns an fd or a negative errno.
    func open(_ path: String) -> Int32
    func close(_ fd: Int32)
}

public struct SystemDeviceOpener: DeviceOpener {
    public init() {}
    public func open(_ path: String) -> Int32 {
        let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        return fd >= 0 ? fd : -errno
    }
    public func close(_ fd: Int32) { _ = Glibc.close(fd) }
}

/// An open evdev device: owns its fd and its libevdev handle (freed in deinit).
public final class EvdevDevice: @unchecked Sendable {
    public let path: String
    public let fd: Int32
    let dev: OpaquePointer
    let opener: DeviceOpener
    public private(set) var grabbed = false

    public init(path: String, opener: DeviceOpener = SystemDeviceOpener()) throws(InputError) {
        let fd = opener.open(path)
        guard fd >= 0 else { throw InputError.opening(path, -fd) }
        var raw: OpaquePointer?
        let rc = libevdev_new_from_fd(fd, &raw)
        guard rc == 0, let raw else {
            opener.close(fd)
            throw InputError(attempted: "reading \(path) as an evdev device", errno: -rc, hint: "is it an /dev/input/event* node?")
        }
        self.path = path
        self.fd = fd
        self.dev = raw
        self.opener = opener
        // One clock domain: the engine's deadlines are CLOCK_MONOTONIC, so are event times.
        _ = libevdev_set_clock_id(raw, CLOCK_MONOTONIC)
    }

    deinit {
        if grabbed { _ = libevdev_grab(dev, LIBEVDEV_UNGRAB) }
        libevdev_free(dev)
        opener.close(fd)
    }

    public var name: String { libevdev_get_name(dev).map { String(cString: $0) } ?? "" }
    public var vendor: UInt16 { UInt16(truncatingIfNeeded: libevdev_get_id_vendor(dev)) }
    public var product: UInt16 { UInt16(truncatingIfNeeded: libevdev_get_id_product(dev)) }
    public var busType: Int32 { libevdev_get_id_bustype(dev) }

    /// What matching needs, from the device itself (for nodes udev does not describe).
    public func describe() -> InputDeviceDescription {
        func has(_ type: UInt32, _ code: UInt32) -> Bool { libevdev_has_event_code(dev, type, code) == 1 }
        var caps: Set<String> = []
        if has(1, 57) || has(1, 28) { caps.insert("keyboard") }          // KEY_SPACE, KEY_ENTER
        if has(1, 0x110) { caps.insert("mouse") }                          // BTN_LEFT
        if has(1, 0x130) { caps.insert("gamepad") }                        // BTN_SOUTH
        if has(1, 0x120) || (has(3, 0) && !has(1, 0x110)) { caps.insert("joystick") }  // BTN_TRIGGER, ABS_X
        return InputDeviceDescription(node: path, name: name, bus: Udev.busName(Int(busType)), vendor: vendor,
                                      product: product, capabilities: caps)
    }

    public func hasCode(_ c: EventCode) -> Bool {
        libevdev_has_event_code(dev, UInt32(c.type), UInt32(c.code)) == 1
    }

    /// The axis ranges of the ABS codes this device has.
    public func axisRanges(_ codes: [EventCode]) -> [UInt16: ClosedRange<Int32>] {
        var out: [UInt16: ClosedRange<Int32>] = [:]
        for c in codes where c.type == RawInputEvent.abs {
            guard let info = libevdev_get_abs_info(dev, UInt32(c.code)) else { continue }
            let lo = info.pointee.minimum, hi = info.pointee.maximum
            if lo < hi { out[c.code] = lo...hi }
        }
        return out
    }

    /// Whether any of these keys is held now (the kernel's state).
    public func anyKeyDown(_ codes: [EventCode]) -> Bool {
        codes.contains { $0.type == RawInputEvent.key && libevdev_get_event_value(dev, UInt32($0.type), UInt32($0.code)) != 0 }
    }

    /// The keys and buttons down now (the kernel's state), by name: `setup` tells the person
    /// which are held, and never takes one of them for a press.
    public func keysDown() -> [EventCode] {
        let names = LibevdevCodes()
        return (0...cevdev_key_max()).filter {
            libevdev_has_event_code(dev, cevdev_ev_key(), $0) == 1 && libevdev_get_event_value(dev, cevdev_ev_key(), $0) != 0
        }.map { EventCode(type: RawInputEvent.key, code: UInt16($0), name: names.name(type: RawInputEvent.key, code: UInt16($0))) }
    }

    /// Every axis the device has: its range and its value now.
    public func axes() -> [UInt16: (range: ClosedRange<Int32>, value: Int32)] {
        var out: [UInt16: (range: ClosedRange<Int32>, value: Int32)] = [:]
        for c in 0...cevdev_abs_max() where libevdev_has_event_code(dev, cevdev_ev_abs(), c) == 1 {
            guard let info = libevdev_get_abs_info(dev, c), info.pointee.minimum < info.pointee.maximum else { continue }
            out[UInt16(c)] = (info.pointee.minimum...info.pointee.maximum, info.pointee.value)
        }
        return out
    }

    /// Exclusive access, so the switch's key presses do not also type into other programs.
    public func grab() throws(InputError) {
        guard !grabbed else { return }
        let rc = libevdev_grab(dev, LIBEVDEV_GRAB)
        guard rc == 0 else { throw InputError(attempted: "grabbing \(path)", errno: -rc, hint: "another program may hold it; run without --grab.") }
        grabbed = true
    }

    public func ungrab() {
        guard grabbed else { return }
        _ = libevdev_grab(dev, LIBEVDEV_UNGRAB)
        grabbed = false
    }

    public enum ReadResult { case events([RawInputEvent], resynced: Bool), gone(InputError) }

    /// Everything available now, without blocking. After SYN_DROPPED libevdev replays the
    /// state difference; those events come marked as a resync, and `resynced` says so.
    public func readAvailable(into decoder: inout SwitchDecoder) -> (events: [SwitchEvent], gone: InputError?, resynced: Bool) {
        var out: [SwitchEvent] = []
        var resynced = false
        let gone = readRaw(resync: { decoder.beginResync() }, resynced: { decoder.endResync(); resynced = true }) { out += decoder.decode($0) }
        return (out, gone, resynced)
    }

    /// Raw events available now, in order; `resync`/`resynced` bracket the state replay
    /// after SYN_DROPPED. Returns the error if the device is gone.
    public func readRaw(resync: () -> Void = {}, resynced: () -> Void = {}, _ each: (RawInputEvent) -> Void) -> InputError? {
        var syncing = false
        var ev = input_event()
        var flags = LIBEVDEV_READ_FLAG_NORMAL.rawValue
        while true {
            let rc = libevdev_next_event(dev, flags, &ev)
            if rc == -EAGAIN {
                if syncing { syncing = false; resynced(); flags = LIBEVDEV_READ_FLAG_NORMAL.rawValue; continue }
                break
            }
            if rc == Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue) {
                if !syncing { syncing = true; resync(); flags = LIBEVDEV_READ_FLAG_SYNC.rawValue; continue }
            } else if rc < 0 {
                return InputError(attempted: "reading \(path)", errno: -rc, hint: rc == -ENODEV ? "the device was unplugged." : nil)
            }
            let t = ScanInstant(nanoseconds: Int64(cevdev_event_sec(&ev)) * 1_000_000_000 + Int64(cevdev_event_usec(&ev)) * 1000)
            each(RawInputEvent(type: ev.type, code: ev.code, value: ev.value, time: t))
        }
        return nil
    }
}

/// Event code names through libevdev, so profiles use the kernel's own names.
public struct LibevdevCodes: EventCodeResolver, Sendable {
    public init() {}

    public func code(named name: String) -> EventCode? {
        let type = libevdev_event_type_from_code_name(name)
        guard type >= 0 else { return nil }
        let code = libevdev_event_code_from_code_name(name)
        guard code >= 0 else { return nil }
        return EventCode(type: UInt16(type), code: UInt16(code), name: name)
    }

    public var allNames: [String] {
        var names: [String] = []
        for (type, max) in [(cevdev_ev_key(), cevdev_key_max()), (cevdev_ev_abs(), cevdev_abs_max())] {
            for c in 0...max {
                if let n = libevdev_event_code_get_name(type, c) { names.append(String(cString: n)) }
            }
        }
        return names
    }

    /// "KEY_SPACE" for a numeric code (recordings, `devices`).
    public func name(type: UInt16, code: UInt16) -> String {
        libevdev_event_code_get_name(UInt32(type), UInt32(code)).map { String(cString: $0) } ?? "\(type):\(code)"
    }
}

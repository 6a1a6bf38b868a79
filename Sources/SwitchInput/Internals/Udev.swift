#if canImport(Glibc)
import Glibc
#endif
import CUdev
import Foundation
import ScanFormats

/// The udev context (freed in deinit). Enumerates input event nodes and their properties.
public final class Udev: @unchecked Sendable {
    let udev: OpaquePointer

    public init() throws(InputError) {
        guard let u = udev_new() else { throw InputError(attempted: "creating a udev context", errno: errno, hint: nil) }
        udev = u
    }

    deinit { udev_unref(udev) }

    /// Every /dev/input/event* node, with what udev knows about it.
    public func inputDevices() -> [InputDeviceDescription] {
        guard let en = udev_enumerate_new(udev) else { return [] }
        defer { udev_enumerate_unref(en) }
        udev_enumerate_add_match_subsystem(en, "input")
        udev_enumerate_scan_devices(en)
        var out: [InputDeviceDescription] = []
        var entry = udev_enumerate_get_list_entry(en)
        while let e = entry {
            if let syspath = udev_list_entry_get_name(e), let d = udev_device_new_from_syspath(udev, syspath) {
                if let desc = Self.describe(d) { out.append(desc) }
                udev_device_unref(d)
            }
            entry = udev_list_entry_get_next(e)
        }
        // event2 before event10
        func number(_ node: String) -> Int { Int(node.drop { !$0.isNumber }) ?? 0 }
        return out.sorted { number($0.node) < number($1.node) }
    }

    /// Only event nodes: the mouseN/jsN legacy nodes carry the same events.
    static func describe(_ d: OpaquePointer) -> InputDeviceDescription? {
        guard let nodeC = udev_device_get_devnode(d) else { return nil }
        let node = String(cString: nodeC)
        guard node.hasPrefix("/dev/input/event") else { return nil }
        var props: [String: String] = [:]
        var entry = udev_device_get_properties_list_entry(d)
        while let e = entry {
            if let k = udev_list_entry_get_name(e) {
                props[String(cString: k)] = udev_list_entry_get_value(e).map { String(cString: $0) } ?? ""
            }
            entry = udev_list_entry_get_next(e)
        }
        // Name, bus and ids live on the parent "input" device.
        var name = props["NAME"]?.trimmingCharacters(in: ["\""]) ?? ""
        var bus = props["ID_BUS"] ?? ""
        var vendor = UInt16(props["ID_VENDOR_ID"] ?? "", radix: 16) ?? 0
        var product = UInt16(props["ID_MODEL_ID"] ?? "", radix: 16) ?? 0
        if let parent = udev_device_get_parent_with_subsystem_devtype(d, "input", nil) {
            if let n = udev_device_get_sysattr_value(parent, "name") { name = String(cString: n) }
            if let v = udev_device_get_sysattr_value(parent, "id/vendor") { vendor = UInt16(String(cString: v), radix: 16) ?? vendor }
            if let p = udev_device_get_sysattr_value(parent, "id/product") { product = UInt16(String(cString: p), radix: 16) ?? product }
            if let b = udev_device_get_sysattr_value(parent, "id/bustype"), bus.isEmpty {
                bus = busName(Int(String(cString: b), radix: 16) ?? 0)
            }
        }
        var caps: Set<String> = []
        if props["ID_INPUT_KEYBOARD"] == "1" || props["ID_INPUT_KEY"] == "1" && props["ID_INPUT_MOUSE"] != "1" { caps.insert("keyboard") }
        if props["ID_INPUT_MOUSE"] == "1" { caps.insert("mouse") }
        if props["ID_INPUT_JOYSTICK"] == "1" { caps.insert("joystick"); caps.insert("gamepad") }
        if props["ID_INPUT_SWITCH"] == "1" { caps.insert("switch") }
        return InputDeviceDescription(node: node, name: name, bus: bus.lowercased(), vendor: vendor, product: product,
                                      capabilities: caps, properties: props)
    }

    /// Kernel BUS_* numbers as names.
    static func busName(_ b: Int) -> String {
        switch b {
        case 0x03: return "usb"
        case 0x05: return "bluetooth"
        case 0x06: return "virtual"
        case 0x11: return "i8042"
        case 0x18: return "i2c"
        case 0x19: return "host"
        default: return b == 0 ? "" : "0x" + String(b, radix: 16)
        }
    }

    /// Follows devices coming and going. Falls back to kernel uevents where no udevd runs
    /// (a minimal system or a test guest), at the cost of properties udev would add.
    public final class Monitor: @unchecked Sendable {
        let monitor: OpaquePointer
        let udev: Udev
        public let fd: Int32
        public let source: String

        public init(_ udev: Udev) throws(InputError) {
            self.udev = udev
            var m: OpaquePointer?
            var which = "udev"
            if access("/run/udev/control", F_OK) == 0 { m = udev_monitor_new_from_netlink(udev.udev, "udev") }
            if m == nil { m = udev_monitor_new_from_netlink(udev.udev, "kernel"); which = "kernel" }
            guard let m else { throw InputError(attempted: "listening for input devices (udev monitor)", errno: errno, hint: nil) }
            udev_monitor_filter_add_match_subsystem_devtype(m, "input", nil)
            let rc = udev_monitor_enable_receiving(m)
            guard rc >= 0 else {
                udev_monitor_unref(m)
                throw InputError(attempted: "listening for input devices (udev monitor)", errno: -rc, hint: nil)
            }
            monitor = m
            fd = udev_monitor_get_fd(m)
            source = which
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        }

        deinit { udev_monitor_unref(monitor) }

        public enum Change { case added(InputDeviceDescription), removed(String) }

        /// Everything pending on the monitor (call when its fd is readable).
        public func changes() -> [Change] {
            var out: [Change] = []
            while let d = udev_monitor_receive_device(monitor) {
                defer { udev_device_unref(d) }
                let action = udev_device_get_action(d).map { String(cString: $0) } ?? ""
                guard let nodeC = udev_device_get_devnode(d) else { continue }
                let node = String(cString: nodeC)
                guard node.hasPrefix("/dev/input/event") else { continue }
                if action == "remove" { out.append(.removed(node)) }
                else if action == "add", let desc = Udev.describe(d) { out.append(.added(desc)) }
            }
            return out
        }
    }
}

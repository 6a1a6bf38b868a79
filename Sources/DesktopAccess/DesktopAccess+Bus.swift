import CAtspi
#if canImport(Glibc)
import Glibc
#endif

extension DesktopAccess {
    /// Whether the accessibility bus answers now, asked without libatspi, which cannot try
    /// again in a process once its first try failed: the session bus hands out the bus's
    /// address (D-Bus-activating it if need be) and a connection to it is accepted. Without a
    /// session bus named in DBUS_SESSION_BUS_ADDRESS libatspi finds the bus through the
    /// display, and there is nothing to ask: true.
    public static func busAnswers(timeoutMilliseconds: Int32) -> Bool {
        guard let named = sessionBusAddress else { return true }
        guard let address = ask(named, timeoutMilliseconds: timeoutMilliseconds) else { return false }
        return withConnection(address) { _ in true } != nil
    }

    /// The session bus named in DBUS_SESSION_BUS_ADDRESS; nil without one.
    private static var sessionBusAddress: String? {
        guard let named = getenv("DBUS_SESSION_BUS_ADDRESS").map({ String(cString: $0) }), !named.isEmpty, named != "disabled:" else { return nil }
        return named
    }

    /// `body` with a private connection to the bus at `address` (never exiting when it
    /// goes), closed after; nil where it cannot connect.
    private static func withConnection<T>(_ address: String, _ body: (OpaquePointer) -> T?) -> T? {
        var err = DBusError()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        guard let bus = dbus_connection_open_private(address, &err) else { return nil }
        defer { dbus_connection_close(bus); dbus_connection_unref(bus) }
        dbus_connection_set_exit_on_disconnect(bus, 0)
        guard dbus_bus_register(bus, &err) != 0 else { return nil }
        return body(bus)
    }

    /// Asks the session bus at `address` for the accessibility bus's address.
    private static func ask(_ address: String, timeoutMilliseconds: Int32) -> String? {
        withConnection(address) { bus in askAddress(bus, timeoutMilliseconds) }
    }

    private static func askAddress(_ bus: OpaquePointer, _ timeoutMilliseconds: Int32) -> String? {
        var err = DBusError()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        guard let message = dbus_message_new_method_call("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress") else { return nil }
        defer { dbus_message_unref(message) }
        guard let reply = dbus_connection_send_with_reply_and_block(bus, message, timeoutMilliseconds, &err) else { return nil }
        defer { dbus_message_unref(reply) }
        var it = DBusMessageIter()
        guard dbus_message_iter_init(reply, &it) != 0, dbus_message_iter_get_arg_type(&it) == Int32(UInt8(ascii: "s")) else { return nil }
        var text: UnsafePointer<CChar>?
        dbus_message_iter_get_basic(&it, &text)
        guard let text, text.pointee != 0 else { return nil }
        return String(cString: text)
    }
}

extension DesktopAccess {
    /// What turning accessibility on found: it was on already, SwitchScan turned it on, or
    /// the flag could not be read or set (no session bus, a bus launcher without it).
    public enum Enabling: Equatable, Sendable { case wasOn, turnedOn, unknown }

    /// Turns on the accessibility bus's `IsEnabled` flag (org.a11y.Status on the session
    /// bus's org.a11y.Bus) when it is off. Firefox, Chromium and Electron publish their
    /// trees only while it is on (Orca sets it too). It is left on at exit: the bus launcher
    /// keeps it in the desktop's settings, browsers that read it only when they start
    /// (Chromium) need it on before their next start, and an Orca started meanwhile relies
    /// on it.
    @discardableResult
    public static func enableAccessibility(timeoutMilliseconds: Int32 = 2000) -> Enabling {
        guard let named = sessionBusAddress else { return .unknown }
        return withConnection(named) { bus -> Enabling in
            guard let on = isEnabled(bus, timeoutMilliseconds) else { return .unknown }
            if on { return .wasOn }
            guard let m = statusCall("Set") else { return .unknown }
            defer { dbus_message_unref(m) }
            var it = DBusMessageIter()
            dbus_message_iter_init_append(m, &it)
            var variant = DBusMessageIter()
            var ok = dbus_message_iter_open_container(&it, Int32(UInt8(ascii: "v")), "b", &variant) != 0
            var yes: dbus_bool_t = 1
            ok = ok && dbus_message_iter_append_basic(&variant, Int32(UInt8(ascii: "b")), &yes) != 0
            ok = ok && dbus_message_iter_close_container(&it, &variant) != 0
            var err = DBusError()
            dbus_error_init(&err)
            defer { dbus_error_free(&err) }
            guard ok, let reply = dbus_connection_send_with_reply_and_block(bus, m, timeoutMilliseconds, &err) else { return .unknown }
            dbus_message_unref(reply)
            return isEnabled(bus, timeoutMilliseconds) == true ? .turnedOn : .unknown
        } ?? .unknown
    }

    /// The flag as the bus launcher has it; nil where it cannot be read.
    public static func accessibilityEnabled(timeoutMilliseconds: Int32 = 2000) -> Bool? {
        sessionBusAddress.flatMap { withConnection($0) { isEnabled($0, timeoutMilliseconds) } }
    }

    /// A Properties call (`Get` or `Set`) on the bus launcher's org.a11y.Status IsEnabled,
    /// its interface and property names appended; the caller appends any value.
    private static func statusCall(_ method: String) -> OpaquePointer? {
        guard let m = dbus_message_new_method_call("org.a11y.Bus", "/org/a11y/bus", "org.freedesktop.DBus.Properties", method) else { return nil }
        var it = DBusMessageIter()
        dbus_message_iter_init_append(m, &it)
        var ok = true
        for s in ["org.a11y.Status", "IsEnabled"] {
            s.withCString { p in
                var v: UnsafePointer<CChar>? = p
                ok = ok && dbus_message_iter_append_basic(&it, Int32(UInt8(ascii: "s")), &v) != 0
            }
        }
        guard ok else { dbus_message_unref(m); return nil }
        return m
    }

    private static func isEnabled(_ bus: OpaquePointer, _ timeoutMilliseconds: Int32) -> Bool? {
        var err = DBusError()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        guard let m = statusCall("Get") else { return nil }
        defer { dbus_message_unref(m) }
        guard let reply = dbus_connection_send_with_reply_and_block(bus, m, timeoutMilliseconds, &err) else { return nil }
        defer { dbus_message_unref(reply) }
        var r = DBusMessageIter()
        guard dbus_message_iter_init(reply, &r) != 0, dbus_message_iter_get_arg_type(&r) == Int32(UInt8(ascii: "v")) else { return nil }
        var v = DBusMessageIter()
        dbus_message_iter_recurse(&r, &v)
        guard dbus_message_iter_get_arg_type(&v) == Int32(UInt8(ascii: "b")) else { return nil }
        var b: dbus_bool_t = 0
        dbus_message_iter_get_basic(&v, &b)
        return b != 0
    }
}

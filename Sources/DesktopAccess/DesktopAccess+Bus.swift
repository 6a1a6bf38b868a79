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
        guard let named = getenv("DBUS_SESSION_BUS_ADDRESS").map({ String(cString: $0) }), !named.isEmpty, named != "disabled:" else { return true }
        guard let address = ask(named, timeoutMilliseconds: timeoutMilliseconds) else { return false }
        return ask(address, timeoutMilliseconds: timeoutMilliseconds, call: false) != nil
    }

    /// Connects privately to the bus at `address` (never exiting when it goes) and, with
    /// `call`, asks it for the accessibility bus's address; without, answers "" once the
    /// connection is accepted.
    private static func ask(_ address: String, timeoutMilliseconds: Int32, call: Bool = true) -> String? {
        var err = DBusError()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        guard let bus = dbus_connection_open_private(address, &err) else { return nil }
        defer { dbus_connection_close(bus); dbus_connection_unref(bus) }
        dbus_connection_set_exit_on_disconnect(bus, 0)
        guard dbus_bus_register(bus, &err) != 0 else { return nil }
        guard call else { return "" }
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

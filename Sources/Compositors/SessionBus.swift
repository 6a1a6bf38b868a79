import CDBus

/// A private connection to the session bus, for calls with simple arguments: strings,
/// numbers, booleans, object paths and string-to-string option dictionaries. Not thread
/// safe: its owner holds it under a lock, or reads it on one thread.
final class SessionBus {
    struct Failure: Error, CustomStringConvertible {
        /// The bus's error name ("org.freedesktop.DBus.Error.ServiceUnknown"), empty when none.
        var name: String
        var description: String
        /// Nothing owns the name called.
        var noOwner: Bool { name == DBUS_ERROR_SERVICE_UNKNOWN || name == DBUS_ERROR_NAME_HAS_NO_OWNER }
        /// The call had no answer in time.
        var timedOut: Bool { name == DBUS_ERROR_NO_REPLY || name == DBUS_ERROR_TIMEOUT }
    }

    enum Arg {
        case string(String), uint32(UInt32), int32(Int32), double(Double), bool(Bool), path(String)
        /// a{sv} with string values.
        case options([String: String])
    }

    let connection: OpaquePointer

    init() throws(Failure) {
        var err = DBusError()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        guard let c = dbus_bus_get_private(DBUS_BUS_SESSION, &err) else {
            throw Failure(name: Self.text(err.name) ?? "", description: "the session bus cannot be reached (\(Self.text(err.message) ?? "no session bus"))")
        }
        dbus_connection_set_exit_on_disconnect(c, 0)
        connection = c
    }

    func close() {
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
    }

    var isConnected: Bool { dbus_connection_get_is_connected(connection) != 0 }

    /// This connection's unique name.
    var uniqueName: String { dbus_bus_get_unique_name(connection).map { String(cString: $0) } ?? "" }

    /// A call that waits for its answer: the answer's arguments.
    @discardableResult
    func call(_ destination: String, _ path: String, _ interface: String, _ method: String, _ args: [Arg] = [],
              timeoutMilliseconds: Int32 = 2000) throws(Failure) -> [Value] {
        guard let m = dbus_message_new_method_call(destination, path, interface, method) else {
            throw Failure(name: "", description: "no memory for a D-Bus message")
        }
        defer { dbus_message_unref(m) }
        Self.append(m, args)
        var err = DBusError()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        guard let r = dbus_connection_send_with_reply_and_block(connection, m, timeoutMilliseconds, &err) else {
            throw Failure(name: Self.text(err.name) ?? "", description: Self.text(err.message) ?? "no answer")
        }
        defer { dbus_message_unref(r) }
        return Self.values(r)
    }

    /// Sends a call without waiting for (or asking for) an answer; false when the connection
    /// is gone.
    func send(_ destination: String, _ path: String, _ interface: String, _ method: String, _ args: [Arg] = []) -> Bool {
        guard isConnected, let m = dbus_message_new_method_call(destination, path, interface, method) else { return false }
        defer { dbus_message_unref(m) }
        dbus_message_set_no_reply(m, 1)
        Self.append(m, args)
        let sent = dbus_connection_send(connection, m, nil) != 0
        dbus_connection_flush(connection)
        return sent
    }

    /// Hears the signals that match `rule` (a D-Bus match rule).
    func addMatch(_ rule: String) {
        var err = DBusError()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        dbus_bus_add_match(connection, rule, &err)
    }

    /// Waits up to `milliseconds` for messages and hands each to `body` (its interface,
    /// member and arguments; signals and calls alike). False once disconnected.
    func read(milliseconds: Int32, _ body: (_ interface: String, _ member: String, _ args: [Value]) -> Void) -> Bool {
        guard dbus_connection_read_write(connection, milliseconds) != 0 else { return false }
        while let m = dbus_connection_pop_message(connection) {
            defer { dbus_message_unref(m) }
            if dbus_message_is_signal(m, DBUS_INTERFACE_LOCAL, "Disconnected") != 0 { return false }
            body(Self.text(dbus_message_get_interface(m)) ?? "", Self.text(dbus_message_get_member(m)) ?? "", Self.values(m))
        }
        return true
    }

    // MARK: Message parts

    /// An argument of a message, as far as these calls need.
    enum Value: Equatable {
        /// An array, a struct or a dictionary entry: its members in order.
        case string(String), uint32(UInt32), int32(Int32), bool(Bool), list([Value]), other

        var string: String? { if case .string(let s) = self { s } else { nil } }
        var uint32: UInt32? { if case .uint32(let v) = self { v } else { nil } }
        var bool: Bool? { if case .bool(let v) = self { v } else { nil } }
        var int32: Int32? { if case .int32(let v) = self { v } else { nil } }
        var list: [Value]? { if case .list(let v) = self { v } else { nil } }

        /// The value for `key` in a dictionary (`a{sv}`).
        subscript(key: String) -> Value? {
            list?.lazy.compactMap { $0.list }.first { $0.count == 2 && $0[0].string == key }?[1]
        }
    }

    private static func code(_ c: Character) -> Int32 { Int32(c.asciiValue!) }

    static func text(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }

    private static func values(_ m: OpaquePointer) -> [Value] {
        var it = DBusMessageIter()
        guard dbus_message_iter_init(m, &it) != 0 else { return [] }
        return values(&it)
    }

    /// The arguments from `it` on; a variant as what it holds.
    private static func values(_ it: inout DBusMessageIter) -> [Value] {
        var out: [Value] = []
        repeat {
            switch dbus_message_iter_get_arg_type(&it) {
            case code("v"):
                var inner = DBusMessageIter()
                dbus_message_iter_recurse(&it, &inner)
                out.append(values(&inner).first ?? .other)
            case code("s"), code("o"):
                var p: UnsafePointer<CChar>?
                dbus_message_iter_get_basic(&it, &p)
                out.append(.string(p.map { String(cString: $0) } ?? ""))
            case code("u"):
                var v: UInt32 = 0
                dbus_message_iter_get_basic(&it, &v)
                out.append(.uint32(v))
            case code("i"):
                var v: Int32 = 0
                dbus_message_iter_get_basic(&it, &v)
                out.append(.int32(v))
            case code("b"):
                var v: dbus_bool_t = 0
                dbus_message_iter_get_basic(&it, &v)
                out.append(.bool(v != 0))
            case code("a"), code("r"), code("e"):
                var inner = DBusMessageIter()
                dbus_message_iter_recurse(&it, &inner)
                // An empty array's iterator stands on nothing.
                out.append(.list(dbus_message_iter_get_arg_type(&inner) == 0 ? [] : values(&inner)))
            default:
                out.append(.other)
            }
        } while dbus_message_iter_next(&it) != 0
        return out
    }

    private static func append(_ m: OpaquePointer, _ args: [Arg]) {
        var it = DBusMessageIter()
        dbus_message_iter_init_append(m, &it)
        for a in args { append(&it, a) }
    }

    private static func append(_ it: inout DBusMessageIter, _ a: Arg) {
        switch a {
        case .string(let s), .path(let s):
            let type = if case .path = a { code("o") } else { code("s") }
            s.withCString { p in
                var q: UnsafePointer<CChar>? = p
                _ = dbus_message_iter_append_basic(&it, type, &q)
            }
        case .uint32(var v): _ = dbus_message_iter_append_basic(&it, code("u"), &v)
        case .int32(var v): _ = dbus_message_iter_append_basic(&it, code("i"), &v)
        case .double(var v): _ = dbus_message_iter_append_basic(&it, code("d"), &v)
        case .bool(let b):
            var v: dbus_bool_t = b ? 1 : 0
            _ = dbus_message_iter_append_basic(&it, code("b"), &v)
        case .options(let dict):
            var array = DBusMessageIter()
            _ = dbus_message_iter_open_container(&it, code("a"), "{sv}", &array)
            for (k, v) in dict.sorted(by: { $0.key < $1.key }) {
                var entry = DBusMessageIter()
                _ = dbus_message_iter_open_container(&array, code("e"), nil, &entry)
                append(&entry, .string(k))
                var variant = DBusMessageIter()
                _ = dbus_message_iter_open_container(&entry, code("v"), "s", &variant)
                append(&variant, .string(v))
                _ = dbus_message_iter_close_container(&entry, &variant)
                _ = dbus_message_iter_close_container(&array, &entry)
            }
            _ = dbus_message_iter_close_container(&it, &array)
        }
    }
}

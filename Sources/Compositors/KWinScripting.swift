#if canImport(Glibc)
import Glibc
#endif
import CDBus
import ScanHost

public struct KWinError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// SwitchScan's scripts inside KWin, and the D-Bus object they report to. Two private
/// connections to the session bus: one asks KWin (`org.kde.kwin.Scripting`: load, start,
/// unload), used under a lock and never read by anyone else; one only listens, on a thread
/// of its own, for the scripts' calls — from KWin's connection alone (any other caller is
/// refused) — and hands each report's bytes to `report`. Script files are written to the
/// user's runtime folder, readable by the user alone, and removed with their script.
final class KWinScripting: @unchecked Sendable {
    static let kwin = "org.kde.KWin"
    /// The object path the scripts call.
    static let objectPath = "/org/switchscan/KWinPlaces"
    /// How long a request to KWin waits.
    static let timeoutMilliseconds: Int32 = 2000

    /// The listening connection's unique name: what the scripts call.
    let service: String
    private let lock = Lock()
    private let caller: OpaquePointer      // used under `lock`
    private let listener: OpaquePointer    // read on the thread only
    private let kwinOwner: String
    private var scripts: [String: String] = [:]  // plugin name → its file; under `lock`
    private var thread: pthread_t?               // under `lock`
    private var stopped = false                  // under `lock`
    private var closed = false                   // under `lock`
    private var closeWhenLoopEnds = false        // under `lock`
    private let folder: String
    /// The folder was made for this process (no runtime folder): removed at the end.
    private let ownFolder: Bool
    private nonisolated(unsafe) static var made = 0  // under `madeLock`
    private static let madeLock = Lock()

    /// Connects twice to the session bus and finds KWin on it; fails saying what is missing.
    init(environment: [String: String]) throws(KWinError) {
        var err = DBusError()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        func open() throws(KWinError) -> OpaquePointer {
            guard let c = dbus_bus_get_private(DBUS_BUS_SESSION, &err) else {
                throw KWinError("the session bus cannot be reached (\(Self.text(err.message) ?? "no session bus")), so KWin cannot be asked where windows are")
            }
            dbus_connection_set_exit_on_disconnect(c, 0)
            return c
        }
        let caller = try open()
        let listener: OpaquePointer
        do { listener = try open() } catch {
            dbus_connection_close(caller); dbus_connection_unref(caller)
            throw error
        }
        self.caller = caller
        self.listener = listener
        service = dbus_bus_get_unique_name(listener).map { String(cString: $0) } ?? ""
        // The user's runtime folder (a KWin session has one); else a private folder made now,
        // never a shared one where another user could write the script KWin is to run.
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            folder = runtime
            ownFolder = false
        } else {
            var template = Array("/tmp/switchscan-kwin-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else {
                Self.close(caller); Self.close(listener)
                throw KWinError("XDG_RUNTIME_DIR is not set and no private folder could be made for SwitchScan's KWin script: \(String(cString: strerror(errno)))")
            }
            folder = String(cString: made)
            ownFolder = true
        }
        var owner: String?
        if let m = dbus_message_new_method_call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner") {
            Self.append(m, [Self.kwin])
            if let r = dbus_connection_send_with_reply_and_block(caller, m, Self.timeoutMilliseconds, &err) {
                owner = Self.firstString(r)
                dbus_message_unref(r)
            }
            dbus_message_unref(m)
        }
        guard let owner, !service.isEmpty else {
            Self.close(caller); Self.close(listener)
            if ownFolder { rmdir(folder) }
            let why = dbus_error_is_set(&err) != 0 ? "the bus answered \(Self.text(err.name) ?? ""): \(Self.text(err.message) ?? "")"
                : service.isEmpty ? "the bus gave SwitchScan no name" : "nothing answered"
            throw KWinError("KWin is not on the session bus (asking for \(Self.kwin)'s owner: \(why)), so it cannot be asked where windows are")
        }
        kwinOwner = owner
        sweep()
    }

    /// The names of the scripts a process loads: its places', its Windows page's, and the
    /// page's latest command.
    static func scriptNames(pid: Int32) -> (places: String, windows: String, command: String) {
        ("switchscan-places-\(pid)", "switchscan-windows-\(pid)", "switchscan-command-\(pid)")
    }

    /// Unloads what a run that ended without unloading (killed, crashed) left in KWin, as its
    /// script files in the folder tell, and removes those files: a script left loaded would
    /// go on calling a name that is gone at every window change until KWin restarts.
    private func sweep() {
        guard let dir = opendir(folder) else { return }
        var dead: [(Int32, String)] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix("switchscan-kwin-"), name.hasSuffix(".js"),
                  let pid = name.dropFirst("switchscan-kwin-".count).split(separator: "-").first.flatMap({ Int32($0) }),
                  pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            dead.append((pid, "\(folder)/\(name)"))
        }
        closedir(dir)
        lock.withLock {
            for pid in Set(dead.map(\.0)) {
                let n = Self.scriptNames(pid: pid)
                for name in [n.places, n.windows, n.command] {
                    _ = try? callLocked("/Scripting", "org.kde.kwin.Scripting", "unloadScript", [name])
                }
            }
        }
        for (_, file) in dead { unlink(file) }
    }

    deinit { close() }

    private static func close(_ c: OpaquePointer) {
        dbus_connection_close(c)
        dbus_connection_unref(c)
    }

    /// Starts listening: `report` is called on the listening thread with each report's bytes.
    func listen(thread name: String, _ report: @escaping @Sendable ([UInt8]) -> Void) throws(KWinError) {
        let failed: String? = lock.withLock {
            guard thread == nil, !closed else { return nil }
            do {
                thread = try spawnThread(name: name) { [self] in
                    loop(report)
                    // Closed from this thread (its owner let go here): the connections go now
                    // that nothing reads them.
                    if lock.withLock({ closeWhenLoopEnds }) {
                        Self.close(caller)
                        Self.close(listener)
                    }
                }
                return nil
            } catch {
                return "\(error)"
            }
        }
        if let failed { throw KWinError("no thread could be started to hear KWin: \(failed)") }
    }

    private func loop(_ report: @Sendable ([UInt8]) -> Void) {
        while !lock.withLock({ stopped }) {
            // Reads for at most 100 ms, so that `close` is heard soon; 0 once disconnected.
            guard dbus_connection_read_write(listener, 100) != 0 else { return }
            while let m = dbus_connection_pop_message(listener) {
                defer { dbus_message_unref(m) }
                if dbus_message_is_signal(m, DBUS_INTERFACE_LOCAL, "Disconnected") != 0 { return }
                guard dbus_message_get_type(m) == DBUS_MESSAGE_TYPE_METHOD_CALL else { continue }
                let sender = dbus_message_get_sender(m).map { String(cString: $0) }
                let ours = dbus_message_is_method_call(m, KWinScript.interface, KWinScript.method) != 0
                    && dbus_message_has_path(m, Self.objectPath) != 0
                if ours && sender == kwinOwner, let text = Self.firstString(m) {
                    answer(m, error: nil)
                    report(Array(text.utf8))
                    // `report` may have let go of KWin.
                    if lock.withLock({ stopped }) { return }
                } else if ours {
                    answer(m, error: (DBUS_ERROR_ACCESS_DENIED, "SwitchScan takes window places from KWin alone"))
                } else {
                    answer(m, error: (DBUS_ERROR_UNKNOWN_METHOD, "SwitchScan's KWin object has only \(KWinScript.method)"))
                }
            }
        }
    }

    private func answer(_ call: OpaquePointer, error: (String, String)?) {
        guard dbus_message_get_no_reply(call) == 0 else { return }
        let reply = error.map { dbus_message_new_error(call, $0.0, $0.1) } ?? dbus_message_new_method_return(call)
        guard let reply else { return }
        dbus_connection_send(listener, reply, nil)
        dbus_message_unref(reply)
        dbus_connection_flush(listener)
    }

    /// Loads `text` as the script `name` (unloading one of that name first) and starts it.
    func run(_ text: String, name: String) throws(KWinError) {
        let r: Result<Void, KWinError> = lock.withLock { Result { () throws(KWinError) in try runLocked(text, name: name) } }
        try r.get()
    }

    private func runLocked(_ text: String, name: String) throws(KWinError) {
        guard !closed else { throw KWinError("SwitchScan has let go of KWin") }
        unloadLocked(name)
        let file = Self.madeLock.withLock { () -> String in
            Self.made += 1
            return "\(folder)/switchscan-kwin-\(getpid())-\(Self.made).js"
        }
        try write(text, to: file)
        scripts[name] = file
        // KWin lets go of an unloaded script a moment later (deleteLater): until then a
        // script of the same name is still loaded, and loading it again gives -1.
        var id = -1
        for attempt in 0..<10 {
            if attempt > 0 { usleep(20_000) }
            id = try callLocked("/Scripting", "org.kde.kwin.Scripting", "loadScript", [file, name]) ?? -1
            if id >= 0 { break }
        }
        guard id >= 0 else {
            throw KWinError("KWin did not load SwitchScan's script '\(name)' (loadScript gave \(id): a script of that name stays loaded, "
                            + "or KWin refused it; its log says why, under kwin_scripting)")
        }
        try callLocked("/Scripting", "org.kde.kwin.Scripting", "start", [])
    }

    /// Unloads the script `name` and removes its file; quiet when it is not loaded.
    func unload(_ name: String) { lock.withLock { unloadLocked(name) } }

    private func unloadLocked(_ name: String) {
        guard let file = scripts.removeValue(forKey: name) else { return }
        _ = try? callLocked("/Scripting", "org.kde.kwin.Scripting", "unloadScript", [name])
        unlink(file)
    }

    private func write(_ text: String, to file: String) throws(KWinError) {
        // A new file only: one left by an earlier process of the same id is removed first.
        unlink(file)
        let fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw KWinError("SwitchScan's KWin script cannot be written to \(file): \(String(cString: strerror(errno)))") }
        defer { Glibc.close(fd) }
        let bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, bytes.count - done) }
            guard n > 0 else {
                unlink(file)
                throw KWinError("SwitchScan's KWin script cannot be written to \(file): \(String(cString: strerror(errno)))")
            }
            done += n
        }
    }

    /// A call to KWin with string arguments: the answer's integer where it is one, or a
    /// failure saying KWin's answer. Under `lock`.
    @discardableResult
    private func callLocked(_ path: String, _ iface: String, _ method: String, _ args: [String]) throws(KWinError) -> Int? {
        guard let m = dbus_message_new_method_call(Self.kwin, path, iface, method) else { throw KWinError("no memory for a D-Bus message") }
        defer { dbus_message_unref(m) }
        Self.append(m, args)
        var err = DBusError()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        guard let r = dbus_connection_send_with_reply_and_block(caller, m, Self.timeoutMilliseconds, &err) else {
            throw KWinError("KWin refused \(method): \(Self.text(err.name) ?? "") \(Self.text(err.message) ?? "no answer")")
        }
        return Self.firstInt(r)
    }

    /// Unloads every script, stops listening and closes both connections. Idempotent.
    func close() {
        let (first, t): (Bool, pthread_t?) = lock.withLock {
            guard !closed else { return (false, nil) }
            for name in Array(scripts.keys) { unloadLocked(name) }
            // Empty now that its scripts are gone.
            if ownFolder { rmdir(folder) }
            closed = true
            stopped = true
            defer { thread = nil }
            return (true, thread)
        }
        guard first else { return }
        if let t, pthread_equal(t, pthread_self()) != 0 {
            // The loop is this thread's caller: it closes the connections when it returns.
            lock.withLock { closeWhenLoopEnds = true }
            pthread_detach(t)
            return
        }
        if let t { pthread_join(t, nil) }
        Self.close(caller)
        Self.close(listener)
    }

    // MARK: Message parts

    /// D-Bus's type codes (macros Swift does not import).
    private static let typeString = Int32(UInt8(ascii: "s")), typeInt32 = Int32(UInt8(ascii: "i"))

    private static func text(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }

    private static func append(_ m: OpaquePointer, _ args: [String]) {
        var it = DBusMessageIter()
        dbus_message_iter_init_append(m, &it)
        for a in args {
            a.withCString { p in
                var q: UnsafePointer<CChar>? = p
                _ = dbus_message_iter_append_basic(&it, typeString, &q)
            }
        }
    }

    /// The first argument of `m` when it is a string.
    static func firstString(_ m: OpaquePointer) -> String? {
        var it = DBusMessageIter()
        guard dbus_message_iter_init(m, &it) != 0, dbus_message_iter_get_arg_type(&it) == typeString else { return nil }
        var p: UnsafePointer<CChar>?
        dbus_message_iter_get_basic(&it, &p)
        return p.map { String(cString: $0) }
    }

    /// The first argument of `reply` when it is an integer; releases the reply.
    private static func firstInt(_ reply: OpaquePointer) -> Int? {
        defer { dbus_message_unref(reply) }
        var it = DBusMessageIter()
        guard dbus_message_iter_init(reply, &it) != 0 else { return nil }
        switch dbus_message_iter_get_arg_type(&it) {
        case typeInt32:
            var v: Int32 = 0
            dbus_message_iter_get_basic(&it, &v)
            return Int(v)
        default: return nil
        }
    }
}

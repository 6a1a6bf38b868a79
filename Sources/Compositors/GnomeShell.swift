#if canImport(Glibc)
import Glibc
#endif
import ScanHost

public struct GnomeShellError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// SwitchScan's GNOME Shell extension (packaging/gnome-shell), reached over the session bus:
/// GNOME tells an ordinary program neither where windows are nor lets it draw above them,
/// so the extension does both for SwitchScan. A connection of its own for calls (under a
/// lock); with `listen`, a second one that the extension sends its signals to (the windows
/// changed, a scene painted), read on a thread of its own, which also hears the extension
/// leave the bus and come back (GNOME Shell restarted, a login) and says hello again.
public final class GnomeShell: @unchecked Sendable {
    public static let busName = "org.switchscan.Shell"
    static let objectPath = "/org/switchscan/Shell"
    static let interface = "org.switchscan.Shell1"
    /// The extension's UUID: its folder's name under gnome-shell/extensions.
    public static let uuid = "switchscan@switchscan.org"
    /// What this SwitchScan and the extension speak; the extension says its own at hello.
    public static let protocolVersion: UInt32 = 1

    /// The extension's version (its metadata's `version-name`).
    public let version: String
    private let lock = Lock()
    private let caller: SessionBus             // under `lock`
    private var thread: pthread_t?             // under `lock`
    private var listener: SessionBus?          // read on the thread only
    private var stopped = false                // under `lock`
    private var closed = false                 // under `lock`

    /// Connects, and checks the extension answers and speaks this SwitchScan's protocol;
    /// fails saying what is missing and what to do.
    public init() throws(GnomeShellError) {
        caller = try Self.open()
        do { version = try Self.hello(caller) } catch {
            caller.close()
            throw error
        }
    }

    deinit { close() }

    private static func open() throws(GnomeShellError) -> SessionBus {
        do { return try SessionBus() } catch { throw GnomeShellError("\(error.description), so GNOME Shell cannot be asked where windows are") }
    }

    /// The extension's version, once its protocol is checked.
    private static func hello(_ bus: SessionBus) throws(GnomeShellError) -> String {
        let answer = try call(bus, "Hello")
        let version = answer.first?.string ?? "", proto = answer.dropFirst().first?.uint32 ?? 0
        guard proto == protocolVersion else {
            throw GnomeShellError("SwitchScan's GNOME Shell extension answering is version \(version.isEmpty ? "unknown" : version) and speaks protocol \(proto); "
                                  + "this SwitchScan speaks protocol \(protocolVersion). Install the extension of this version (the package's), "
                                  + "then log out and in again: GNOME Shell loads an extension at login")
        }
        return version
    }

    /// A call to the extension that waits for its answer; a failure says what to do.
    @discardableResult
    private static func call(_ bus: SessionBus, _ method: String, _ args: [SessionBus.Arg] = []) throws(GnomeShellError) -> [SessionBus.Value] {
        do { return try bus.call(busName, objectPath, interface, method, args) } catch {
            if error.noOwner {
                throw GnomeShellError("SwitchScan's GNOME Shell extension is not answering (nothing owns \(busName) on the session bus). "
                                      + "Enable it with `switchscan autostart enable` or `gnome-extensions enable \(uuid)`, then log out and in again: "
                                      + "GNOME Shell loads an extension at login")
            }
            if error.timedOut {
                throw GnomeShellError("SwitchScan's GNOME Shell extension did not answer \(method) in time (GNOME Shell is busy or stuck)")
            }
            throw GnomeShellError("SwitchScan's GNOME Shell extension refused \(method): \(error.description)")
        }
    }

    /// The windows on the active workspace, as the extension reports them.
    public func windows() throws(GnomeShellError) -> [WindowReport.Window] {
        let text = try calling { () throws(GnomeShellError) in try Self.call(caller, "GetWindows").first?.string ?? "" }
        do { return try WindowReport.parse(Array(text.utf8)) } catch { throw GnomeShellError("GNOME Shell's \(error.description)") }
    }

    /// Asks the extension to act on a window (`activate`, `close`, `minimize`, `maximize`,
    /// `restore`); false when it has no such window.
    public func perform(_ command: String, window id: String) throws(GnomeShellError) -> Bool {
        try calling { () throws(GnomeShellError) in try Self.call(caller, "Perform", [.string(command), .string(id)]).first?.bool ?? false }
    }

    /// `body` under the lock, unless the connection is closed.
    private func calling<T>(_ body: () throws(GnomeShellError) -> T) throws(GnomeShellError) -> T {
        let r: Result<T, GnomeShellError> = lock.withLock {
            guard !closed else { return .failure(GnomeShellError("SwitchScan has let go of GNOME Shell")) }
            return Result { () throws(GnomeShellError) in try body() }
        }
        return try r.get()
    }

    /// Commits `text` to the focused field through GNOME Shell's input method, as its
    /// on-screen keyboard does; false when no field takes text that way (or the extension
    /// cannot be asked): keys are sent instead.
    public func commit(_ text: String) -> Bool {
        (try? calling { () throws(GnomeShellError) in try Self.call(caller, "CommitText", [.string(text)]).first?.bool ?? false }) ?? false
    }

    /// The scene to draw (`SceneDrawing`'s layers as the extension reads them); sent without
    /// waiting: the extension says `painted(serial)` once it is on the screen.
    public func show(_ scene: String, serial: UInt32) -> Bool {
        lock.withLock { !closed && caller.send(Self.busName, Self.objectPath, Self.interface, "Show", [.string(scene), .uint32(serial)]) }
    }

    /// Takes the scene down.
    public func hide() {
        _ = lock.withLock { !closed && caller.send(Self.busName, Self.objectPath, Self.interface, "Hide") }
    }

    /// What the listening thread hears.
    public struct Events: Sendable {
        /// The windows changed: the extension's whole report.
        public var windows: @Sendable ([UInt8]) -> Void = { _ in }
        /// A scene sent with this serial is on the screen.
        public var painted: @Sendable (UInt32) -> Void = { _ in }
        /// The extension left the bus (false: GNOME Shell ended or restarts) or came back
        /// and answered hello again (true).
        public var present: @Sendable (Bool) -> Void = { _ in }
        public init() {}
    }

    /// Starts listening: the extension sends its signals to a second connection, read on a
    /// thread of its own.
    public func listen(_ events: Events, thread name: String) throws(GnomeShellError) {
        let bus = try Self.open()
        do {
            _ = try Self.hello(bus)
            try Self.call(bus, "Listen")
        } catch {
            bus.close()
            throw error
        }
        bus.addMatch("type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Self.busName)'")
        let failed: String? = lock.withLock {
            guard thread == nil, !closed else { return "it is closed" }
            listener = bus
            do {
                thread = try spawnThread(name: name) { [self] in loop(bus, events) }
                return nil
            } catch {
                listener = nil
                return "\(error)"
            }
        }
        if let failed {
            bus.close()
            throw GnomeShellError("no thread could be started to hear GNOME Shell: \(failed)")
        }
    }

    private func loop(_ bus: SessionBus, _ events: Events) {
        while !lock.withLock({ stopped }) {
            // Reads for at most 100 ms, so that `close` is heard soon.
            let connected = bus.read(milliseconds: 100) { interface, member, args in
                switch (interface, member) {
                case ("org.freedesktop.DBus", "NameOwnerChanged"):
                    guard args.count == 3, args[0].string == Self.busName else { return }
                    if args[2].string?.isEmpty != false {
                        events.present(false)
                    } else if (try? Self.hello(bus)) != nil, (try? Self.call(bus, "Listen")) != nil {
                        events.present(true)
                    }
                case (Self.interface, "WindowsChanged"):
                    if let text = args.first?.string { events.windows(Array(text.utf8)) }
                case (Self.interface, "Painted"):
                    if let serial = args.first?.uint32 { events.painted(serial) }
                default:
                    break
                }
            }
            guard connected else { return }
        }
    }

    /// Stops listening and closes the connections. Idempotent; not from the listening
    /// thread's callbacks.
    public func close() {
        let (first, t, l): (Bool, pthread_t?, SessionBus?) = lock.withLock {
            guard !closed else { return (false, nil, nil) }
            closed = true
            stopped = true
            defer { thread = nil; listener = nil }
            return (true, thread, listener)
        }
        guard first else { return }
        if let t { pthread_join(t, nil) }
        l?.close()
        caller.close()
    }
}

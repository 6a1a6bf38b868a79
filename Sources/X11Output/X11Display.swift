#if canImport(Glibc)
import Glibc
#endif
import CX11
import ScanHost

/// An X11 failure, said as what was attempted and what to do.
public struct X11Error: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// One protocol error the server reported (BadWindow, BadValue, …): recorded, never fatal.
public struct X11ProtocolError: Hashable, Sendable, CustomStringConvertible {
    public var errorCode: UInt8
    public var requestCode: UInt8
    public var minorCode: UInt8
    public var resource: UInt
    public var description: String {
        "X error \(errorCode) on request \(requestCode).\(minorCode) (resource 0x\(String(resource, radix: 16)))"
    }
}

/// Xlib's process-wide setup, done once before the first connection. XInitThreads makes
/// Xlib lock each Display (our calls stay on one queue anyway, but the error upcalls and
/// the XTest pointer's connection live on other threads). Xlib's default handlers call
/// exit(): ours record and return. A lost connection also needs the per-display exit
/// handler (set in `X11Display.init`), since the default one exits too.
private let xlibSetup: Void = {
    XInitThreads()
    _ = XSetErrorHandler { display, event in
        if let display, let event { X11ErrorLog.shared.record(display, event.pointee) }
        return 0
    }
    _ = XSetIOErrorHandler { display in
        if let display { X11ErrorLog.shared.markLost(display) }
        return 0
    }
}()

/// What the error handlers saw, by connection. The handlers are C function pointers without
/// context, hence this one shared, locked table.
final class X11ErrorLog: @unchecked Sendable {
    static let shared = X11ErrorLog()

    struct Entry {
        var errors: [X11ProtocolError] = []
        /// Every error ever recorded (`errors` keeps the last few).
        var total = 0
        var dropped = 0
        var lost = false
    }

    private let lock = Lock()
    private var entries: [UInt: Entry] = [:]
    /// Kept per connection; older ones are counted, not kept (a loop of failing requests
    /// must not grow memory).
    static let kept = 32

    private init() {}

    private func locked<T>(_ body: (inout [UInt: Entry]) -> T) -> T {
        lock.withLock { body(&entries) }
    }

    private static func key(_ d: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(d))) }

    func record(_ d: OpaquePointer, _ e: XErrorEvent) {
        let error = X11ProtocolError(errorCode: e.error_code, requestCode: e.request_code,
                                     minorCode: e.minor_code, resource: UInt(e.resourceid))
        locked { table in
            var entry = table[Self.key(d)] ?? Entry()
            if entry.errors.count >= Self.kept { entry.errors.removeFirst(); entry.dropped += 1 }
            entry.errors.append(error)
            entry.total += 1
            table[Self.key(d)] = entry
        }
    }

    func markLost(_ d: OpaquePointer) {
        locked { table in table[Self.key(d), default: Entry()].lost = true }
    }

    func isLost(_ d: OpaquePointer) -> Bool { locked { $0[Self.key(d)]?.lost ?? false } }

    func errors(_ d: OpaquePointer) -> [X11ProtocolError] { locked { $0[Self.key(d)]?.errors ?? [] } }

    func errorCount(_ d: OpaquePointer) -> Int { locked { $0[Self.key(d)]?.total ?? 0 } }

    func forget(_ d: OpaquePointer) { locked { _ = $0.removeValue(forKey: Self.key(d)) } }
}

/// One connection to an X server. Not thread-safe by itself: its owner confines it (the
/// presenter to its queue, the pointer to its lock).
final class X11Display {
    let pointer: OpaquePointer
    /// The display's name as Xlib resolved it (":99").
    let name: String
    let screen: Int32
    let root: Window
    let width: Int
    let height: Int
    private var closed = false

    init(_ requested: String?) throws {
        _ = xlibSetup
        guard let d = XOpenDisplay(requested) else {
            let env = getenv("DISPLAY").map { String(cString: $0) }
            let which = requested.map { "'\($0)'" } ?? env.map { "'\($0)' (from DISPLAY)" } ?? "(DISPLAY is not set)"
            throw X11Error("cannot open X display \(which). Hint: run inside an X session, or point DISPLAY at a running X server (e.g. Xvfb :99).")
        }
        XSetIOErrorExitHandler(d, { display, _ in
            if let display { X11ErrorLog.shared.markLost(display) }
        }, nil)
        pointer = d
        name = XDisplayString(d).map { String(cString: $0) } ?? requested ?? ""
        screen = cx11_default_screen(d)
        root = cx11_root_window(d, screen)
        width = Int(cx11_display_width(d, screen))
        height = Int(cx11_display_height(d, screen))
    }

    /// The server closed the connection (or died): nothing more can be done with it.
    var isLost: Bool { X11ErrorLog.shared.isLost(pointer) }

    var errors: [X11ProtocolError] { X11ErrorLog.shared.errors(pointer) }

    /// How many protocol errors the connection has had in all.
    var errorCount: Int { X11ErrorLog.shared.errorCount(pointer) }

    /// Waits until the server has processed every request sent, then drops the events that
    /// came with the reply (we select none, but MappingNotify and the like come regardless,
    /// and an undrained queue would only grow).
    func sync() {
        guard !isLost else { return }
        XSync(pointer, 0)
        var event = XEvent()
        while !isLost, XPending(pointer) > 0 { XNextEvent(pointer, &event) }
    }

    func close() {
        guard !closed else { return }
        closed = true
        XCloseDisplay(pointer)
        X11ErrorLog.shared.forget(pointer)
    }

    deinit { close() }
}

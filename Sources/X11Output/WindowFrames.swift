#if canImport(Glibc)
import Glibc
#endif
import CX11
import ScanCore
import ScanHost

/// Where an application's top-level window is on the screen, found among the window
/// manager's clients (EWMH `_NET_CLIENT_LIST`) by its process id (`_NET_WM_PID`) and title.
/// GTK 4 gives its widgets' extents relative to the window; this is the window. Any thread
/// (one connection of its own, behind a lock).
public final class WindowFrames: @unchecked Sendable {
    private let x: X11Display
    private let lock = Lock()
    private let clientList, pid, netName, wmName: Atom

    public init(display: String? = nil) throws {
        x = try X11Display(display)
        clientList = XInternAtom(x.pointer, "_NET_CLIENT_LIST", 0)
        pid = XInternAtom(x.pointer, "_NET_WM_PID", 0)
        netName = XInternAtom(x.pointer, "_NET_WM_NAME", 0)
        wmName = XInternAtom(x.pointer, "WM_NAME", 0)
    }

    /// The screen rectangle of the window of process `processID` called `title` (any of
    /// its windows when `title` is empty, the first listed); nil when there is none.
    public func frame(processID: Int32, title: String) -> Rect? {
        lock.withLock {
            guard !x.isLost else { return nil }
            let d = x.pointer
            for raw in DesktopWindows.numbers(x, x.root, clientList) {
                let w = Window(raw)
                guard DesktopWindows.numbers(x, w, pid, limit: 1).first == UInt(processID) else { continue }
                if !title.isEmpty, (DesktopWindows.text(x, w, netName) ?? DesktopWindows.text(x, w, wmName)) != title { continue }
                var attributes = XWindowAttributes()
                guard XGetWindowAttributes(d, w, &attributes) != 0 else { continue }
                var sx: Int32 = 0, sy: Int32 = 0
                var child: Window = 0
                guard XTranslateCoordinates(d, w, x.root, 0, 0, &sx, &sy, &child) != 0 else { continue }
                x.sync()
                return Rect(x: Double(sx), y: Double(sy), width: Double(attributes.width), height: Double(attributes.height))
            }
            x.sync()
            return nil
        }
    }

    /// Closes the connection. Idempotent.
    public func close() { lock.withLock { x.close() } }
}

#if canImport(Glibc)
import Glibc
#endif
import CX11
import ScanCore
import ScanHost

/// Where the X server's windows are: the window manager's clients (EWMH `_NET_CLIENT_LIST`)
/// with their process ids (`_NET_WM_PID`), titles and screen rectangles. An X11 client's
/// AT-SPI frames are on the screen already, except GTK 4's, which are relative to its window:
/// the window inside the X window's client-side decorations (`_GTK_FRAME_EXTENTS`). Any
/// thread: one connection of its own, behind a lock; each read is one round of requests.
public final class X11Places: WindowPlaceSource, @unchecked Sendable {
    private let x: X11Display
    private let lock = Lock()
    private let clientList, activeWindow, pid, netName, wmName, frameExtents: Atom
    public let name = "the X server"
    public let native = WindowPlace.Client.x11

    public init(display: String? = nil) throws {
        x = try X11Display(display)
        clientList = XInternAtom(x.pointer, "_NET_CLIENT_LIST", 0)
        activeWindow = XInternAtom(x.pointer, "_NET_ACTIVE_WINDOW", 0)
        pid = XInternAtom(x.pointer, "_NET_WM_PID", 0)
        netName = XInternAtom(x.pointer, "_NET_WM_NAME", 0)
        wmName = XInternAtom(x.pointer, "WM_NAME", 0)
        frameExtents = XInternAtom(x.pointer, "_GTK_FRAME_EXTENTS", 0)
    }

    /// The window manager's clients that have a process id; always read afresh (X has no
    /// cache to keep up to date, and a read is quick).
    public func places(fresh: Bool) -> [WindowPlace] {
        lock.withLock {
            guard !x.isLost else { return [] }
            let d = x.pointer
            let active = DesktopWindows.numbers(x, x.root, activeWindow, limit: 1).first
            var out: [WindowPlace] = []
            for raw in DesktopWindows.numbers(x, x.root, clientList) {
                let w = Window(raw)
                guard let process = DesktopWindows.numbers(x, w, pid, limit: 1).first else { continue }
                var attributes = XWindowAttributes()
                guard XGetWindowAttributes(d, w, &attributes) != 0 else { continue }
                var sx: Int32 = 0, sy: Int32 = 0
                var child: Window = 0
                guard XTranslateCoordinates(d, w, x.root, 0, 0, &sx, &sy, &child) != 0 else { continue }
                let buffer = Rect(x: Double(sx), y: Double(sy), width: Double(attributes.width), height: Double(attributes.height))
                // left, right, top, bottom: the shadow or resize border GTK draws around its window.
                var geometry = buffer
                let e = DesktopWindows.numbers(x, w, frameExtents, limit: 4).map(Double.init)
                if e.count == 4, e[0] + e[1] < buffer.width, e[2] + e[3] < buffer.height {
                    geometry = Rect(x: buffer.x + e[0], y: buffer.y + e[2], width: buffer.width - e[0] - e[1], height: buffer.height - e[2] - e[3])
                }
                let title = DesktopWindows.text(x, w, netName) ?? DesktopWindows.text(x, w, wmName) ?? ""
                out.append(WindowPlace(id: "0x" + String(raw, radix: 16), pid: Int32(truncatingIfNeeded: process), title: title,
                                       client: .x11, geometry: geometry, buffer: buffer, active: raw == active))
            }
            x.sync()
            return out
        }
    }

    /// Not followed: an X11 client's frames are on the screen already, and a GTK 4 window's
    /// place is read again with each read of the desktop (a move alone does not start one).
    public func follow(_ onChange: @escaping @Sendable () -> Void) {}

    /// Closes the connection. Idempotent.
    public func close() { lock.withLock { x.close() } }
}

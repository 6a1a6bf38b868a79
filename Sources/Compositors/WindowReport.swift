import JSONTape
import ScanCore

/// The list of windows a compositor's own script reports (a KWin script, SwitchScan's GNOME
/// Shell extension): {"windows": [{id, pid, title, app, x11, frame, buffer, active,
/// minimized, fullScreen, maximized, listed}]}, rectangles as [x, y, width, height]. Pure.
public enum WindowReport {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// One window as reported.
    public struct Window: Hashable, Sendable {
        public var place: WindowPlace
        public var minimized: Bool
        public var maximized: Bool
        /// A window the task bar would list (a normal window or a dialog): the Windows page's.
        public var listed: Bool
    }

    /// Every window of the report, in its order; a window without an id or a frame is left out.
    public static func parse(_ bytes: [UInt8]) throws(Failure) -> [Window] {
        let document: JSONDocument
        do { document = try JSONDocument.parse(bytes) } catch { throw Failure(description: "window list is not JSON: \(error)") }
        guard let list = document.root.object?.member("windows")?.value.array else {
            throw Failure(description: "window list has no \"windows\" list")
        }
        var out: [Window] = []
        for item in list {
            guard let o = item.object, let id = o.member("id")?.value.string, let frame = rect(o.member("frame")?.value) else { continue }
            let pid = o.member("pid")?.value.number.flatMap { Int32(exactly: $0) }
            out.append(Window(
                place: WindowPlace(id: id, pid: pid.flatMap { $0 > 0 ? $0 : nil }, appID: o.member("app")?.value.string ?? "",
                                   title: o.member("title")?.value.string ?? "",
                                   client: o.member("x11")?.value.bool == true ? .x11 : .wayland, geometry: frame,
                                   buffer: rect(o.member("buffer")?.value), active: o.member("active")?.value.bool ?? false),
                minimized: o.member("minimized")?.value.bool ?? false,
                maximized: (o.member("maximized")?.value.bool ?? false) || (o.member("fullScreen")?.value.bool ?? false),
                listed: o.member("listed")?.value.bool ?? true))
        }
        return out
    }

    private static func rect(_ v: JSONValue?) -> Rect? {
        guard let a = v?.array else { return nil }
        let n = a.compactMap { $0.number }
        guard n.count == 4, n[2] >= 0, n[3] >= 0 else { return nil }
        return Rect(x: n[0], y: n[1], width: n[2], height: n[3])
    }
}

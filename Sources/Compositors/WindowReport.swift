import JSONTape
import ScanCore
import ScanHost

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

/// The windows a compositor's script or extension last reported, as the places and the
/// Windows page read them; what follows them is told of a change that matters to it. Any
/// thread.
final class ReportedWindows: @unchecked Sendable {
    private let lock = Lock()
    private var known: [WindowReport.Window] = []                   // under `lock`
    private var reported = false                                    // under `lock`
    private var onPlaces: (@Sendable () -> Void)?                   // under `lock`
    private var listed: [ManagedWindow]?                            // under `lock`
    private var onList: (@Sendable ([ManagedWindow]) -> Void)?      // under `lock`

    /// A new report; true when it was the first.
    @discardableResult
    func set(_ windows: [WindowReport.Window]) -> Bool {
        let list = windows.filter(\.listed).map {
            ManagedWindow(id: $0.place.id, title: $0.place.title, active: $0.place.active, maximized: $0.maximized, minimized: $0.minimized)
        }
        let (first, places, listChanged) = lock.withLock { () -> (Bool, (@Sendable () -> Void)?, (@Sendable ([ManagedWindow]) -> Void)?) in
            let moved = Self.placement(known.map(\.place)) != Self.placement(windows.map(\.place))
            let first = !reported
            reported = true
            known = windows
            let listChanged = list != listed
            listed = list
            return (first, moved ? onPlaces : nil, listChanged ? onList : nil)
        }
        places?()
        listChanged?(list)
        return first
    }

    /// The windows on the screen: a minimised one is nowhere to be outlined or clicked, and
    /// would only compete with its application's other windows in the matching.
    var places: [WindowPlace] { lock.withLock { known.filter { !$0.minimized }.map(\.place) } }

    private var stopped = false                                     // under `lock`

    /// The title of a window as last listed (its id when not listed); nil once stopped.
    func title(of id: String) -> String? { lock.withLock { stopped ? nil : listed?.first { $0.id == id }?.title ?? id } }

    /// Nothing is followed any more, and no command is carried out.
    func stop() { lock.withLock { stopped = true; onList = nil; onPlaces = nil } }

    /// Called when a window comes, goes or moves (not when a title or the focus changes).
    func followPlaces(_ f: (@Sendable () -> Void)?) { lock.withLock { onPlaces = f } }

    /// Called with the Windows page's list when it changes.
    func followList(_ f: (@Sendable ([ManagedWindow]) -> Void)?) { lock.withLock { onList = f } }

    /// What decides where a window's frames go: a title or the focus changing does not.
    private static func placement(_ places: [WindowPlace]) -> [[String]] {
        places.map { [$0.id, "\($0.pid ?? -1)", "\($0.client)", "\($0.geometry)", "\($0.buffer.map { "\($0)" } ?? "")"] }
    }
}

/// A window as the display server or compositor places it: what a platform's window source
/// (X11, sway's IPC, a KWin script, a GNOME Shell extension) reports, in screen pixels.
public struct WindowPlace: Hashable, Sendable {
    /// How the window's application draws: where its AT-SPI frames are measured from.
    public enum Client: Hashable, Sendable {
        /// An X11 client (on X11 or through XWayland): AT-SPI frames are already on screen.
        case x11
        /// A native Wayland client: AT-SPI frames are relative to its own surface.
        case wayland
    }

    /// The compositor's name for the window (an X window id "0x1a00003", a sway container
    /// id), for asking it of the compositor again.
    public var id: String
    public var pid: Int32?
    /// The Wayland app id or the X11 class; empty when unknown.
    public var appID: String
    public var title: String
    public var client: Client
    /// The window's geometry: what the user sees as the window, without client-side shadows
    /// (xdg-surface geometry; sway's `rect` + `window_rect` for a window without borders).
    public var geometry: Rect
    /// The whole buffer of its surface, client-side shadows included, where the compositor
    /// tells it (KWin's bufferGeometry, Mutter's buffer rect); sway does not.
    public var buffer: Rect?
    /// With server-side decorations: the content, below the compositor's title bar (sway's
    /// `rect` + `window_rect`), where the application draws.
    public var content: Rect?
    public var active: Bool

    public init(id: String = "", pid: Int32? = nil, appID: String = "", title: String, client: Client, geometry: Rect,
                buffer: Rect? = nil, content: Rect? = nil, active: Bool = false) {
        self.id = id; self.pid = pid; self.appID = appID; self.title = title; self.client = client
        self.geometry = geometry; self.buffer = buffer; self.content = content; self.active = active
    }
}

/// Where an application's AT-SPI frames are measured from, and so what to add to put them on
/// the screen. A native Wayland client reports frames relative to its surface, and toolkits
/// differ in which surface rectangle that is:
/// - GTK 3 measures from its buffer, client-side shadow included: the window's frame is the
///   buffer's size, and its first showing child sits at the shadow's offset;
/// - GTK 4 measures from the window geometry (no shadow): the frame is the geometry's size;
/// - a window with server-side decorations (Qt, galculator under sway) measures from its
///   content, below the compositor's title bar;
/// - an X11 client, through XWayland too, reports frames already on the screen.
/// The rule compares the size of the application window's AT-SPI frame with the rectangles
/// the compositor gives, so it needs no knowledge of the toolkit.
public enum FrameOrigin: Hashable, Sendable {
    /// Frames are on the screen already.
    case screen
    /// Add this point: the origin of the rectangle the frames are measured from; the frames
    /// first multiplied by `scale`, where the application measures in its own pixels and
    /// the compositor in the screen's (a window on a monitor GNOME scales 200 %).
    case offset(Point, from: Source, scale: Double = 1)
    /// The window's place cannot be told from what the compositor gives; `why` says what is missing.
    case unknown(why: String)

    public enum Source: String, Hashable, Sendable {
        case buffer, geometry, content
        /// The buffer's origin worked out from the geometry and the first showing child's
        /// offset (the client-side shadow), where the compositor does not give the buffer.
        case shadowOffset = "geometry less the shadow"
        /// The buffer less an even margin all round, where the buffer is given but not what
        /// its decorations hold (GTK 4 on an X server, without `_GTK_FRAME_EXTENTS`).
        case bufferLessMargin = "buffer less its margin"
        /// A popup (a menu, a combo box's list) no compositor lists: GTK gives its place
        /// inside the window it belongs to, its children measured from its buffer.
        case parentWindow = "its window's, less its shadow"
    }

    /// A native popup's origin: its window's `parent` offset, less where the popup's own
    /// children begin inside it (`firstChild`, from its frame's corner: the shadow GTK draws
    /// around a menu). GTK 3 gives the popup's frame at its place in its window (the
    /// compositor places it there, unless it has to move it to keep it on the screen).
    public static func ofPopup(parent: Point, firstChild near: Point, scale: Double = 1) -> FrameOrigin {
        .offset(Point(x: parent.x - near.x * scale, y: parent.y - near.y * scale), from: .parentWindow, scale: scale)
    }

    /// How far apart two sizes may be and still be the same: toolkits and compositors round
    /// scaled sizes differently.
    public static let sizeTolerance = 1.0
    /// How much wider a client-side shadow may be on one side than on the other.
    public static let shadowAsymmetry = 16.0
    /// The scales a compositor gives a window's surface beside 1: GNOME's and KWin's whole
    /// ones (a fractional scale gives GTK 3 a whole one too, the buffer scaled down after).
    public static let scales = [2.0, 3.0]

    /// The origin for a window whose application window reports `frame` through AT-SPI (its
    /// size is what counts; a native client's origin is 0,0), placed by the compositor at
    /// `place`. `firstChild` is the offset of the window's first showing child in the same
    /// frame, when known: it is the shadow a GTK 3 window draws around itself.
    /// `windowRelative` says whether the application measures from its window at all: every
    /// native Wayland client does, and GTK 4 does on X11 too.
    public static func of(frame: Rect, place: WindowPlace, firstChild: Point? = nil, windowRelative: Bool? = nil) -> FrameOrigin {
        guard windowRelative ?? (place.client == .wayland) else { return .screen }
        func same(_ a: Rect, _ b: Rect) -> Bool {
            abs(a.width - b.width) <= sizeTolerance && abs(a.height - b.height) <= sizeTolerance
        }
        // At each scale, the first at 1: the application's pixels the screen's.
        for scale in [1.0] + scales {
            let f = Rect(x: 0, y: 0, width: frame.width * scale, height: frame.height * scale)
            if let buffer = place.buffer, same(f, buffer), !same(buffer, place.geometry) {
                return .offset(Point(x: buffer.x, y: buffer.y), from: .buffer, scale: scale)
            }
            if same(f, place.geometry) {
                return .offset(Point(x: place.geometry.x, y: place.geometry.y), from: .geometry, scale: scale)
            }
            if let content = place.content, same(f, content) {
                return .offset(Point(x: content.x, y: content.y), from: .content, scale: scale)
            }
        }
        // Larger than the geometry by a shadow on each side: the buffer, as GTK 3 draws it,
        // where the compositor does not say where the buffer is. The first child's offset is
        // the near side's shadow; the far side's is about as wide (GTK 3's: 23 px above, 29
        // below), not a window of another size.
        if place.buffer == nil, let near = firstChild, near.x >= 0, near.y >= 0 {
            let farX = frame.width - place.geometry.width - near.x
            let farY = frame.height - place.geometry.height - near.y
            if farX >= -sizeTolerance, farY >= -sizeTolerance,
               abs(farX - near.x) <= shadowAsymmetry, abs(farY - near.y) <= shadowAsymmetry {
                return .offset(Point(x: place.geometry.x - near.x, y: place.geometry.y - near.y), from: .shadowOffset)
            }
        }
        // Inside an X window, the same margin on opposite sides (rounded down): GTK 4's window
        // inside its decorations, where the X server does not tell them apart.
        if place.client == .x11, let buffer = place.buffer, same(buffer, place.geometry), frame.width <= buffer.width, frame.height <= buffer.height {
            return .offset(Point(x: buffer.x + ((buffer.width - frame.width) / 2).rounded(.down),
                                 y: buffer.y + ((buffer.height - frame.height) / 2).rounded(.down)), from: .bufferLessMargin)
        }
        let sizes = [("geometry", Optional(place.geometry)), ("buffer", place.buffer), ("content", place.content)]
            .compactMap { name, r in r.map { "\(name) \(Int($0.width))×\(Int($0.height))" } }
        return .unknown(why: "its AT-SPI frame is \(Int(frame.width))×\(Int(frame.height)), none of the compositor's sizes (\(sizes.joined(separator: ", ")))"
                        + (place.buffer == nil && firstChild == nil ? ", and no child shows where the shadow ends" : ""))
    }

    /// A frame the application reported, on the screen.
    public func place(_ r: Rect) -> Rect? {
        switch self {
        case .screen: return r
        case .offset(let p, _, let s): return Rect(x: r.x * s + p.x, y: r.y * s + p.y, width: r.width * s, height: r.height * s)
        case .unknown: return nil
        }
    }
}

/// Where a platform's windows are: the X server, sway's IPC, a KWin script, the GNOME Shell
/// extension. Asked on the desktop's thread, so an implementation answers from what it
/// already knows, or with one short round trip.
public protocol WindowPlaceSource: AnyObject, Sendable {
    /// Where the places come from, as the user is told ("sway's IPC").
    var name: String { get }
    /// The platform's own kind of client (X11 clients on a Wayland compositor come through
    /// XWayland).
    var native: WindowPlace.Client { get }
    /// The windows as last known; `fresh` asks the compositor first (a window it has not
    /// said anything about yet). Empty when the compositor went away.
    func places(fresh: Bool) -> [WindowPlace]
    /// Calls `onChange` (on a thread of the source's) whenever a window's place may have
    /// changed in a way its application does not tell (a move): once, for the whole session.
    func follow(_ onChange: @escaping @Sendable () -> Void)
    /// Stops following and lets go of the compositor. Idempotent.
    func close()
}

extension WindowPlace {
    /// The place of an application's window, matched by process id, then title: among the
    /// windows of process `pid`, the only one, the one titled `title`, or, for a window AT-SPI
    /// gives no title (`title` empty), the active one (none when none is: another window's
    /// place would put its clicks elsewhere). Without a window of that process (a
    /// sandboxed application sees other process ids), the only window titled `title`.
    public static func matching(pid: Int32, title: String, in places: [WindowPlace]) -> WindowPlace? {
        let own = places.filter { $0.pid == pid }
        if own.count == 1 { return own[0] }
        if !own.isEmpty {
            if !title.isEmpty { return own.first { $0.title == title } }
            return own.first(where: \.active)
        }
        guard !title.isEmpty else { return nil }
        let titled = places.filter { $0.title == title }
        return titled.count == 1 ? titled[0] : nil
    }
}

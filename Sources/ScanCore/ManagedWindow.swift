/// A top-level window of the desktop as the window manager lists it, for the screen menu's
/// Windows page. The runtime reads them and hands the engine finished values; the engine
/// only offers them and asks for commands by `id`.
public struct ManagedWindow: Hashable, Sendable {
    /// The window manager's name for the window (an X window id such as "0x1a00003").
    public var id: String
    public var title: String
    /// The window that has the focus: the Windows page acts on it.
    public var active: Bool
    public var maximized: Bool
    public var minimized: Bool

    public init(id: String, title: String, active: Bool = false, maximized: Bool = false, minimized: Bool = false) {
        self.id = id
        self.title = title
        self.active = active
        self.maximized = maximized
        self.minimized = minimized
    }
}

/// What the Windows page asks of the window manager.
public enum WindowCommand: String, CaseIterable, Sendable {
    /// Raise and focus the window (un-minimising it).
    case activate
    /// Ask the window to close, as its title bar's close button does (it may ask to save).
    case close
    case minimize
    case maximize
    /// Back from maximised to the size it had.
    case restore
}

/// The desktop's windows for the Windows page: the X window manager's list, or a Wayland
/// compositor's. Lists come on the source's own thread; commands return at once (a failure is
/// reported, as a sentence, to whom made it).
public protocol WindowList: AnyObject, Sendable {
    /// Starts following the windows: `onChange` gets the first list and every new one.
    func start(onChange: @escaping @Sendable ([ManagedWindow]) -> Void)
    /// Asks for `command` on the window with `id`.
    func perform(_ command: WindowCommand, window id: String)
    /// Stops following and lets go of the connection. Idempotent; not from `onChange`.
    func stop()
}

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

import CAtspi
import ScanCore

/// Why the live desktop cannot be scanned, with the fix.
public struct DesktopError: Error, CustomStringConvertible {
    public var description: String

    static let noBus = DesktopError(description: """
        Error: the accessibility bus (AT-SPI) cannot be reached, so no application can be scanned. \
        Install it (Debian: sudo apt-get install at-spi2-core) and run SwitchScan inside a desktop session \
        (DISPLAY and DBUS_SESSION_BUS_ADDRESS set).
        """)

    static let stopped = DesktopError(description: "Error: the desktop is no longer followed (it was stopped).")

    static func noApplication(_ name: String?, known: [String]) -> DesktopError {
        let list = known.isEmpty ? "none" : known.map { "'\($0)'" }.joined(separator: ", ")
        if let name {
            return DesktopError(description: """
                Error: no application named '\(name)' with a showing window is on the accessibility bus \
                (applications there: \(list)). Run 'switchscan desktop' to see their names.
                """)
        }
        return DesktopError(description: """
            Error: no application with a showing window is on the accessibility bus (applications there: \(list)). \
            Turn toolkit accessibility on: 'gsettings set org.gnome.desktop.interface toolkit-accessibility true' \
            (GNOME), QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 for Qt applications; GTK 3 and GTK 4 need nothing, \
            unless NO_AT_BRIDGE=1 or GTK_A11Y=none is set.
            """)
    }
}

/// A window on the accessibility bus.
public struct DesktopWindow: Sendable, Equatable {
    public var id: String
    public var title: String
    public var role: String
    public var active: Bool
    public var modal: Bool
    public var frame: Rect?
}

/// An application on the accessibility bus and its showing windows.
public struct DesktopApplication: Sendable, Equatable {
    public var name: String
    public var processID: Int32
    public var toolkit: String
    public var windows: [DesktopWindow]
}

/// A window read once: the element tree the engine scans (frames in screen coordinates).
public struct DesktopSnapshot: Sendable {
    public var tree: ElementTree
    public var application: String
    public var window: DesktopWindow
    /// Nodes read, before elements and containers were chosen.
    public var nodeCount: Int
    /// The walk stopped at its node or depth limit.
    public var truncated: Bool
}

/// Which window would be scanned, and why.
public struct WindowChoice: Sendable {
    public var application: String
    public var window: DesktopWindow
    public var reason: String
}

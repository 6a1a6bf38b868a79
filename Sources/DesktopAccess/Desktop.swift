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

    /// Nothing to scan. `unread`: why the applications that could not be read were not
    /// (slow to answer, going away): accessibility is on for them, so the message says that,
    /// not how to turn it on.
    static func noApplication(_ name: String?, known: [String], unread: [AtspiCallError] = []) -> DesktopError {
        let list = known.isEmpty ? "none" : known.map { "'\($0)'" }.joined(separator: ", ")
        let slow = unread.filter { $0.kind != .gone }
        if !slow.isEmpty {
            let count = slow.count == 1 ? "1 more application" : "\(slow.count) more applications"
            return DesktopError(description: """
                Error: no \(name.map { "application named '\($0)' with a " } ?? "")showing window could be read \
                (applications there: \(list); \(count) did not answer in time: slow or busy, and a big window \
                takes a while to read the first time). Try again in a moment; 'switchscan desktop' lists them.
                """)
        }
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

    /// A window that could not be read whole: slow to answer (how much was read), gone, or
    /// a call that failed.
    static func unreadWindow(_ title: String, of app: String, _ error: AtspiCallError) -> DesktopError {
        switch error.kind {
        case .timeout:
            return DesktopError(description: "Error: '\(app)' is slow to answer: reading its window '\(title)' stopped, \(error). Try again in a moment.")
        case .gone:
            return DesktopError(description: "Error: '\(app)' went away while its window '\(title)' was read (\(error.message)).")
        case .failed:
            return DesktopError(description: "Error: reading the window '\(title)' of '\(app)' failed: \(error).")
        }
    }
}

/// A window on the accessibility bus.
public struct DesktopWindow: Sendable, Equatable {
    public var id: String
    public var title: String
    public var role: String
    public var active: Bool
    public var modal: Bool
    /// On the screen; relative to the window itself where its application measures from it
    /// and its place is unknown (`place` says so).
    public var frame: Rect?
    /// Where its place on the screen came from, for a window whose application measures from
    /// it; nil where its frames are on the screen already.
    public var place: String? = nil
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
    /// How many times its application stopped answering while the window was read, and the
    /// window was read again (`DesktopAccess.snapshot`).
    public var readAgain = 0
}

/// Which window would be scanned, and why.
public struct WindowChoice: Sendable {
    public var application: String
    public var window: DesktopWindow
    public var reason: String
}

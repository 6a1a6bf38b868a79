import ScanCore

/// What a DesktopAccess is given once, when it connects: where the platform's windows are,
/// the screen, and whom it calls. None of it changes while it runs; each callback is called
/// on the AT-SPI thread.
public struct DesktopHooks: Sendable {
    /// Where the platform's windows are (the X server, the compositor): windows whose
    /// applications measure their frames from themselves (native Wayland clients, GTK 4) are
    /// put on the screen from it. Without it, or for a window it does not list, such frames
    /// stay window-relative and nothing is clicked in them. Closed by `stop`.
    public var places: (any WindowPlaceSource)?
    /// The desktop is a Wayland session: a window at 0,0 that `places` does not place is a
    /// native one, measured from itself, and is not clicked.
    public var wayland: Bool
    /// The screen's size where the caller knows it (from the display); otherwise it is
    /// taken from the accessibility registry and the windows.
    public var screen: (width: Double, height: Double)?
    /// Changes coalesced before the window is read again.
    public var coalesceMilliseconds: UInt32
    /// Where a failed action is reported.
    public var report: (@Sendable (String) -> Void)?
    /// Clicks at a screen point for activations without an AT-SPI action and point-mode
    /// taps; returns whether it was done. Nil: the accessibility registry's injector (X11).
    public var click: (@Sendable (Point) -> Bool)?
    /// The Gestures page's gestures made with the pointer (a right click at the point, a
    /// drag to the second point, …); returns whether it was done. Nil: only scrolls that
    /// AT-SPI can make are made.
    public var gesture: (@Sendable (Gesture, Point, Point?) -> Bool)?
    /// The text before the caret of the field being typed into (`followField`), each time
    /// it changes or the caret moves.
    public var onFieldText: (@Sendable (String) -> Void)?
    /// The focus moved from the field followed to another element (a Tab, a click): the
    /// keyboard typing into the field must not type into that one unseen (the field is no
    /// longer followed).
    public var onFieldLeft: (@Sendable () -> Void)?

    public init(places: (any WindowPlaceSource)? = nil, wayland: Bool = false, screen: (width: Double, height: Double)? = nil,
                coalesceMilliseconds: UInt32 = 30, report: (@Sendable (String) -> Void)? = nil,
                click: (@Sendable (Point) -> Bool)? = nil, gesture: (@Sendable (Gesture, Point, Point?) -> Bool)? = nil,
                onFieldText: (@Sendable (String) -> Void)? = nil, onFieldLeft: (@Sendable () -> Void)? = nil) {
        self.places = places; self.wayland = wayland; self.screen = screen; self.coalesceMilliseconds = coalesceMilliseconds
        self.report = report; self.click = click; self.gesture = gesture; self.onFieldText = onFieldText; self.onFieldLeft = onFieldLeft
    }
}

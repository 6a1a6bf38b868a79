import ScreenScene

/// What a Wayland compositor offers, asked of its registry (one connection, two round trips,
/// a millisecond or so): the interface names of its globals, and where its outputs are.
public enum WaylandGlobals {
    public static func offered(display name: String? = nil) throws(WaylandError) -> Set<String> {
        let w = try WaylandDisplay(name: name)
        return Set(w.globals.map(\.interface))
    }

    /// The compositor's layout: every output's rectangle together, in logical pixels; nil
    /// without an output.
    public static func layout(display name: String? = nil) throws(WaylandError) -> PixelRect? {
        try WaylandDisplay(name: name).layout
    }
}

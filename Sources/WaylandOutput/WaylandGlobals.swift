/// What a Wayland compositor offers, asked of its registry (one connection, two round trips,
/// a millisecond or so): the interface names of its globals.
public enum WaylandGlobals {
    public static func offered(display name: String? = nil) throws(WaylandError) -> Set<String> {
        let w = try WaylandDisplay(name: name)
        return Set(w.globals.map(\.interface))
    }
}

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

    /// The compositor's layout, and the scale of the output at its bottom right corner (1
    /// where the compositor gives none); nil without an output.
    public static func layoutAndCornerScale(display name: String? = nil) throws(WaylandError) -> (layout: PixelRect, scale: Int)? {
        let w = try WaylandDisplay(name: name)
        guard let layout = w.layout else { return nil }
        let (x, y) = (layout.maxX - 1, layout.maxY - 1)
        let corner = w.outputs.first { o in (o.rect.x..<o.rect.maxX).contains(x) && (o.rect.y..<o.rect.maxY).contains(y) }
        return (layout, corner?.scale ?? 1)
    }
}

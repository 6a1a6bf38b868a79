import Compositors
import ScanCore
import WaylandOutput
import X11Output

/// The source of window places a plan names, opened.
public enum WindowPlaces {
    /// The source, or nil with what the user is told: under Wayland, a note that native
    /// windows cannot be placed (X11 needs none: only GTK 4's windows ask it, and they say
    /// so when they are tapped).
    public static func open(_ source: PlaceSource, compositor: Compositor, environment: [String: String]) -> (source: (any WindowPlaceSource)?, note: String?) {
        switch source {
        case .x11:
            return ((try? X11Places()), nil)
        case .sway(let socket):
            do { return (try SwayPlaces(socket: socket), nil) } catch {
                return (nil, "Warning: \(error); where native Wayland windows are is not known, so their elements are neither outlined nor clicked where they are.")
            }
        case .kwin:
            do { return (try KWinPlaces(environment: environment), nil) } catch {
                return (nil, "Warning: \(error); where native Wayland windows are is not known, so their elements are neither outlined nor clicked where they are.")
            }
        case .gnome:
            do { return (try GnomePlaces(), nil) } catch {
                return (nil, "Note: \(error). Until then native Wayland windows are scanned and acted on through AT-SPI alone: "
                        + "item mode works, point mode cannot tap where windows are, and nothing is outlined on them.")
            }
        case .none(let why):
            guard compositor.isWayland else { return (nil, nil) }
            return (nil, "Note: \(why); native Wayland windows are scanned and acted on through AT-SPI alone, without point mode or clicks.")
        }
    }

    /// The source for the environment `env`.
    public static func open(environment env: [String: String]) -> (source: (any WindowPlaceSource)?, note: String?) {
        let compositor = Compositor(env)
        return open(PlaceSource(compositor, env), compositor: compositor, environment: env)
    }

    /// The Windows page's list a plan names, opened; fails saying why it is not offered.
    public static func list(_ source: WindowListSource, environment: [String: String], report: @escaping @Sendable (String) -> Void) throws -> any WindowList {
        switch source {
        case .kwin: return try KWinWindows(environment: environment, report: report)
        case .x11: return try DesktopWindows(report: report)
        case .sway(let socket): return try SwayWindows(socket: socket, report: report)
        case .gnome: return try GnomeWindows(report: report)
        }
    }
}

extension WaylandInterface {
    /// The interfaces the compositor offers (its registry's globals): the one `WAYLAND_DISPLAY`
    /// of `environment` names.
    public static func offered(environment: [String: String]) throws -> Set<String> {
        try WaylandGlobals.offered(display: environment["WAYLAND_DISPLAY"].flatMap { $0.isEmpty ? nil : $0 })
    }
}

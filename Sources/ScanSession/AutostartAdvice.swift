/// What a Wayland session needs for SwitchScan started at login to reach it, said when
/// autostart is enabled or asked about. Pure: the login session's environment and, for the
/// systemd unit, the user manager's (`systemctl --user show-environment`) in; sentences out.
public enum AutostartAdvice {
    /// The variables a run started by the user manager must find there: the display, and the
    /// compositor's own socket where it has one (sway's places come from it).
    public static func needed(in session: [String: String]) -> [String] {
        let compositor = Compositor(session)
        guard compositor.isWayland else { return [] }
        var names = ["WAYLAND_DISPLAY", "XDG_CURRENT_DESKTOP"]
        if compositor == .sway { names.append("SWAYSOCK") }
        return names
    }

    /// For the systemd unit: the names it needs that the manager lacks, with how to give them.
    /// `manager` is asked only where something is needed (a Wayland session).
    public static func forUnit(session: [String: String], manager: () -> [String: String]) -> String? {
        guard !needed(in: session).isEmpty else { return nil }
        return forUnit(session: session, manager: manager())
    }

    public static func forUnit(session: [String: String], manager: [String: String]) -> String? {
        let missing = needed(in: session).filter { (manager[$0] ?? "").isEmpty && !(session[$0] ?? "").isEmpty }
        guard !missing.isEmpty else { return nil }
        let names = missing.joined(separator: " ")
        let how = Compositor(session) == .sway
            ? "add 'exec systemctl --user import-environment \(names)' to your sway config (before anything starts graphical-session.target)"
            : "have the session run 'systemctl --user import-environment \(names)' as it starts"
        return "Note: systemd's user manager does not know \(missing.joined(separator: ", ")) of this Wayland session, so the unit would start without "
            + (missing.contains("WAYLAND_DISPLAY") ? "the display" : "what it needs of the compositor") + ": \(how)."
    }

    /// For the autostart entry: sway starts no XDG autostart entries by itself.
    public static func forEntry(session: [String: String], command: String) -> String? {
        guard Compositor(session) == .sway else { return nil }
        return "Note: sway does not start autostart entries by itself: add 'exec \(command)' to your sway config (~/.config/sway/config), or start them with a helper such as dex."
    }
}

import Foundation
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

    /// Under KWin: nil where one of `entries` (the texts of the applications' .desktop files
    /// the session's data folders hold) gives `executable` KWin's fake input; else how to
    /// give it one. KWin compares the canonical path of `Exec=`'s first word with the
    /// program's: `resolve` gives a path's canonical form (links followed).
    public static func forKWin(session: [String: String], executable: String, entries: [String],
                               resolve: (String) -> String = { $0 }) -> String? {
        guard Compositor(session) == .kwin else { return nil }
        let own = resolve(executable)
        if entries.contains(where: { entry in allowsFakeInput(entry).map { resolve($0) == own } ?? false }) { return nil }
        return "Note: KWin gives its fake input (taps and keys) only to a program an applications entry names, and none names \(executable) "
            + "(the package's names /usr/bin/switchscan): save these lines as ~/.local/share/applications/switchscan-kwin.desktop, then log out and in:\n"
            + "[Desktop Entry]\nType=Application\nName=SwitchScan\nExec=\(executable)\nNoDisplay=true\nX-KDE-Wayland-Interfaces=org_kde_kwin_fake_input"
    }

    /// The program a .desktop file's main group gives KWin's fake input (`Exec=`'s first
    /// word, where `X-KDE-Wayland-Interfaces` lists it); nil where it gives none.
    static func allowsFakeInput(_ entry: String) -> String? {
        var inMain = false, exec: String?, allowed = false
        for raw in entry.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") { inMain = line == "[Desktop Entry]"; continue }
            guard inMain, let eq = line.firstIndex(of: "=") else { continue }
            let key = line[..<eq].trimmingCharacters(in: .whitespaces), value = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            if key == "Exec" {
                // The first word, unquoted where the spec's double quotes hold it.
                if value.hasPrefix("\""), let end = value.dropFirst().firstIndex(of: "\"") {
                    exec = String(value[value.index(after: value.startIndex)..<end])
                } else {
                    exec = value.split(separator: " ").first.map(String.init)
                }
            } else if key == "X-KDE-Wayland-Interfaces" {
                allowed = value.split(whereSeparator: { $0 == "," || $0 == ";" }).contains { $0.trimmingCharacters(in: .whitespaces) == "org_kde_kwin_fake_input" }
            }
        }
        return allowed ? exec : nil
    }
}

import ScanSession
import Testing

/// What autostart says a Wayland session needs so that SwitchScan started at login reaches it.
@Suite struct AutostartAdviceTests {
    static let sway = ["WAYLAND_DISPLAY": "wayland-1", "SWAYSOCK": "/run/user/1000/sway-ipc.1000.42.sock", "XDG_CURRENT_DESKTOP": "sway"]
    static let kde = ["WAYLAND_DISPLAY": "wayland-0", "XDG_CURRENT_DESKTOP": "KDE", "DISPLAY": ":1"]

    /// The unit starts with the user manager's environment: what it lacks of the session is named,
    /// with the line that gives it.
    @Test func theUnitNeedsTheDisplayInTheUserManager() throws {
        let bare = try #require(AutostartAdvice.forUnit(session: Self.sway, manager: ["PATH": "/usr/bin"]))
        #expect(bare.contains("WAYLAND_DISPLAY, XDG_CURRENT_DESKTOP, SWAYSOCK") && bare.contains("without the display"), "\(bare)")
        #expect(bare.contains("exec systemctl --user import-environment WAYLAND_DISPLAY XDG_CURRENT_DESKTOP SWAYSOCK"), "\(bare)")
        // Only sway's socket missing: the display is there, the places are not.
        let socket = try #require(AutostartAdvice.forUnit(session: Self.sway, manager: ["WAYLAND_DISPLAY": "wayland-1", "XDG_CURRENT_DESKTOP": "sway"]))
        #expect(socket.contains("SWAYSOCK") && !socket.contains("WAYLAND_DISPLAY") && socket.contains("what it needs of the compositor"), "\(socket)")
        #expect(AutostartAdvice.forUnit(session: Self.sway, manager: Self.sway) == nil)
        // KDE Plasma imports them itself; said only where it did not.
        #expect(AutostartAdvice.forUnit(session: Self.kde, manager: Self.kde) == nil)
        let plasma = try #require(AutostartAdvice.forUnit(session: Self.kde, manager: [:]))
        #expect(plasma.contains("have the session run 'systemctl --user import-environment WAYLAND_DISPLAY XDG_CURRENT_DESKTOP'"), "\(plasma)")
        // X11 needs nothing of this.
        #expect(AutostartAdvice.forUnit(session: ["DISPLAY": ":0"], manager: [:]) == nil)
    }

    /// sway starts no XDG autostart entries: the line for its config instead.
    @Test func swayStartsNoAutostartEntries() throws {
        let note = try #require(AutostartAdvice.forEntry(session: Self.sway, command: "/usr/bin/switchscan run --desktop"))
        #expect(note.contains("exec /usr/bin/switchscan run --desktop") && note.contains("~/.config/sway/config"), "\(note)")
        #expect(AutostartAdvice.forEntry(session: Self.kde, command: "switchscan run --desktop") == nil)
        #expect(AutostartAdvice.forEntry(session: ["DISPLAY": ":0"], command: "switchscan run --desktop") == nil)
    }
}

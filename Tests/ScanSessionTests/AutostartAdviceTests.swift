import Foundation
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

    /// KWin offers its fake input only to a program an applications entry names: the
    /// package's names /usr/bin/switchscan; a build elsewhere is told the lines to save.
    @Test func underKWinAProgramNoEntryNamesIsToldHowToBeNamed() throws {
        let package = "[Desktop Entry]\nType=Application\nName=SwitchScan\nExec=/usr/bin/switchscan run --desktop\nX-KDE-Wayland-Interfaces=org_kde_kwin_fake_input\n"
        #expect(AutostartAdvice.forKWin(session: Self.kde, executable: "/usr/bin/switchscan", entries: [package]) == nil)
        // Through a link: KWin follows it, and so does the check.
        #expect(AutostartAdvice.forKWin(session: Self.kde, executable: "/usr/bin/switchscan", entries: [package.replacingOccurrences(of: "Exec=/usr/bin/", with: "Exec=/bin/")],
                                        resolve: { $0.replacingOccurrences(of: "/bin/", with: "/usr/bin/").replacingOccurrences(of: "/usr/usr/", with: "/usr/") }) == nil)
        let built = "/home/ada/switchscan/.build/release/switchscan"
        let note = try #require(AutostartAdvice.forKWin(session: Self.kde, executable: built, entries: [package]))
        #expect(note.contains("none names \(built)") && note.contains("~/.local/share/applications/switchscan-kwin.desktop"), "\(note)")
        #expect(note.contains("\nExec=\(built)\n") && note.hasSuffix("X-KDE-Wayland-Interfaces=org_kde_kwin_fake_input"), "\(note)")
        // Quoted, in a list of interfaces: named. Another group's keys, or no interface: not.
        let quoted = "[Desktop Entry]\nExec=\"\(built)\" run\nX-KDE-Wayland-Interfaces=org_kde_plasma_window_management,org_kde_kwin_fake_input\n"
        #expect(AutostartAdvice.forKWin(session: Self.kde, executable: built, entries: [quoted]) == nil)
        let otherGroup = "[Desktop Entry]\nExec=\(built)\n[Desktop Action x]\nX-KDE-Wayland-Interfaces=org_kde_kwin_fake_input\n"
        let none = "[Desktop Entry]\nExec=\(built)\nX-KDE-Wayland-Interfaces=org_kde_plasma_window_management\n"
        #expect(AutostartAdvice.forKWin(session: Self.kde, executable: built, entries: [otherGroup, none]) != nil)
        // Not KWin: nothing to say.
        #expect(AutostartAdvice.forKWin(session: Self.sway, executable: built, entries: []) == nil)
    }
}

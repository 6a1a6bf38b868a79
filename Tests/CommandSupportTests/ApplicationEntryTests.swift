import CommandSupport
import Testing

/// The applications menu's entry, which the package installs.
@Suite struct ApplicationEntryTests {
    /// KWin offers its fake input only to the program whose entry names it in Exec and lists
    /// the interface.
    @Test func theEntryGivesTheExecutableKWinsFakeInput() {
        let entry = AutostartFiles.applicationEntry(executable: "/usr/bin/switchscan")
        let lines = entry.split(separator: "\n").map(String.init)
        #expect(lines.first == "[Desktop Entry]")
        #expect(lines.contains { $0.hasPrefix("Exec=/usr/bin/switchscan ") })
        #expect(lines.contains("X-KDE-Wayland-Interfaces=org_kde_kwin_fake_input"))
    }
}

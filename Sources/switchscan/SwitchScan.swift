import ArgumentParser
import CommandSupport
import ScanSession

@main
struct SwitchScan: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "switchscan",
        abstract: "Switch Control scanning for Linux: item mode, point mode, headless simulation.",
        discussion: """
        Exit status: 0 on success, 2 when a layout, settings or events file is invalid \
        (every problem is printed on stderr with its file and place), 64 for a bad command line.
        """,
        version: switchScanVersion,
        subcommands: [Run.self, Setup.self, Autostart.self, Simulate.self, Validate.self, Cost.self, Report.self, SettingsCommand.self, Words.self, Phrases.self, Devices.self,
                      Desktop.self, Snapshot.self, Record.self, Replay.self]
    )

    static func main() { runCommand(SwitchScan.self) }
}

import ArgumentParser
import CommandSupport
import ScanSession

/// The benchmarks' command line; `switchscan-bench` runs it.
public struct SwitchScanBench: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "switchscan-bench",
        abstract: "Measure SwitchScan's speed (benchmarks, not tests).",
        subcommands: [BenchLayout.self, BenchTiming.self, BenchInput.self, BenchDesktop.self, BenchScreen.self, BenchTyping.self, BenchPlaces.self, BenchTap.self, BenchSpeak.self, BenchAdapt.self]
    )

    public init() {}

    public static func main() { runCommand(SwitchScanBench.self) }
}

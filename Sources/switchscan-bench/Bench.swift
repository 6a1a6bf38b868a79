import ArgumentParser
import CommandSupport
import ScanSession

@main
struct SwitchScanBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "switchscan-bench",
        abstract: "Measure SwitchScan's speed (benchmarks, not tests).",
        subcommands: [BenchLayout.self, BenchTiming.self, BenchInput.self, BenchDesktop.self, BenchScreen.self, BenchTyping.self]
    )

    static func main() { runCommand(SwitchScanBench.self) }
}

import ArgumentParser

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure SwitchScan's speed (benchmarks, not tests).",
        subcommands: [BenchLayout.self, BenchTiming.self, BenchInput.self, BenchDesktop.self, BenchScreen.self, BenchTyping.self]
    )
}

// swift-tools-version:6.0
import Foundation
import PackageDescription

// libFuzzer targets for every loader, built apart from the main package because they need
// `-sanitize=fuzzer` and `-parse-as-library` on every module they link (see run.sh).
// A package at a path is named after its folder, whatever the checkout is called.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

func fuzzTarget(_ name: String, _ products: [String]) -> Target {
    .executableTarget(name: name, dependencies: ["CFuzzMain"] + products.map { .product(name: $0, package: root) })
}

let package = Package(
    name: "SwitchScanFuzz",
    dependencies: [.package(path: "..")],
    targets: [
        .target(name: "CFuzzMain"),
        fuzzTarget("FuzzLayout", ["ScanCore", "ScanFormats"]),
        fuzzTarget("FuzzSettings", ["ScanCore", "ScanFormats"]),
        fuzzTarget("FuzzEvents", ["ScanCore", "ScanFormats"]),
        fuzzTarget("FuzzEvemu", ["ScanCore", "ScanFormats", "SwitchInput"]),
        fuzzTarget("FuzzProfile", ["ScanCore", "ScanFormats", "SwitchInput"]),
        fuzzTarget("FuzzWords", ["WordPrediction"]),
        fuzzTarget("FuzzTerminalText", ["ScanCore", "ScanFormats"]),
        fuzzTarget("FuzzSettingsWriter", ["ScanCore", "ScanFormats"]),
    ]
)

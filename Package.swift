// swift-tools-version:6.0
import PackageDescription

// Dependencies point inward: ScanCore and WordPrediction depend on nothing; only SwitchInput lists the
// libevdev and libudev modules, only DesktopAccess libatspi (CSys, plain system calls,
// serves the runtime, the input layer and the command line). The layering is enforced
// here, not by convention.
let package = Package(
    name: "SwitchScan",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "switchscan", targets: ["switchscan"]),
        .executable(name: "switchscan-bench", targets: ["switchscan-bench"]),
        .library(name: "ScanSession", targets: ["ScanSession"]),
        .library(name: "ScanCore", targets: ["ScanCore"]),
        // For the fuzz targets in Fuzz/, a package of their own.
        .library(name: "ScanFormats", targets: ["ScanFormats"]),
        .library(name: "SwitchInput", targets: ["SwitchInput"]),
        .library(name: "WordPrediction", targets: ["WordPrediction"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .target(name: "ScanCore"),
        // Word lists and next-word prediction: pure, handed bytes and strings.
        .target(name: "WordPrediction"),
        // Small wrappers for system calls Swift cannot import (variadic, macros).
        .target(name: "CSys"),
        // The JSON tape parser: the only unsafe code of the loaders.
        .target(name: "JSONTape"),
        .target(name: "ScanFormats", dependencies: ["ScanCore", "JSONTape", "WordPrediction"]),
        // The scanning keyboard: a screen the engine scans, its keys' rules, and what typing
        // a text costs. Pure, like the core.
        .target(name: "Typing", dependencies: ["ScanCore", "WordPrediction"]),
        .systemLibrary(name: "CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(name: "CUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        // The only module that talks to libevdev and libudev.
        .target(name: "SwitchInput", dependencies: ["ScanCore", "ScanHost", "ScanFormats", "CEvdev", "CUdev", "CSys"]),
        // `switchscan setup` as a pure state machine: presses and the time in, prompts and files to write out.
        .target(name: "SwitchSetup", dependencies: ["ScanCore", "ScanFormats", "JSONTape"]),
        // Host concurrency, the counterpart of NIOConcurrencyHelpers: the one lock, the serial
        // thread executor every adapter runs on, confinement checks, the clock and the
        // presenter protocol. Glibc only, so that every adapter module can use it.
        .target(name: "ScanHost", dependencies: ["ScanCore", "CSys"]),
        // ScanFormats: a setting change leaves in effect JSON as a settings file writes it.
        .target(name: "ScanRuntime", dependencies: ["ScanCore", "ScanHost", "ScanFormats", "JSONTape", "CSys"]),
        .systemLibrary(name: "CAtspi", pkgConfig: "atspi-2", providers: [.apt(["libatspi2.0-dev"])]),
        // The only module that talks to libatspi, GLib and D-Bus: the live desktop.
        .target(name: "DesktopAccess", dependencies: ["ScanCore", "ScanHost", "CAtspi"]),
        .systemLibrary(name: "CX11", pkgConfig: "x11", providers: [.apt(["libx11-dev", "libxext-dev", "libxtst-dev"])]),
        // The only module that talks to X11: the on-screen overlay and XTest pointer clicks.
        .target(name: "X11Output", dependencies: ["ScanCore", "ScanHost", "CX11"]),
        // The compositors' own interfaces for where windows are (sway's IPC): sockets and
        // JSON only, no display library.
        .target(name: "Compositors", dependencies: ["ScanCore", "ScanHost", "JSONTape"]),
        .systemLibrary(name: "CSpeechd", pkgConfig: "speech-dispatcher", providers: [.apt(["libspeechd-dev"])]),
        // The only module that talks to speech-dispatcher: spoken highlights and sounds.
        .target(name: "SpeechOutput", dependencies: ["ScanCore", "ScanHost", "CSpeechd"]),
        // A scanning session as a library: its configuration, the choice of presenters and
        // injectors, the runtime pieces that join the engine to the devices, the desktop and
        // the outputs, and one start and one shutdown.
        .target(
            name: "ScanSession",
            dependencies: ["ScanCore", "ScanHost", "ScanFormats", "ScanRuntime", "SwitchInput", "DesktopAccess", "X11Output", "Compositors", "SpeechOutput",
                           "WordPrediction", "Typing"]
        ),
        // What the command-line tools share: checked output, argument types, signals.
        .target(
            name: "CommandSupport",
            dependencies: ["ScanCore", "ScanHost", "ScanFormats", "ScanSession", "DesktopAccess", "WordPrediction", "CSys",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "switchscan",
            dependencies: [
                "ScanCore", "ScanHost", "JSONTape", "ScanFormats", "ScanRuntime", "ScanSession", "CommandSupport", "SwitchInput", "DesktopAccess",
                "CSys", "WordPrediction", "Typing",
                "SwitchSetup", "SpeechOutput",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The benchmarks, apart from the user's command: a library, and its tool.
        .target(
            name: "ScanBenchmarks",
            dependencies: [
                "ScanCore", "ScanHost", "JSONTape", "ScanFormats", "ScanRuntime", "ScanSession", "CommandSupport", "SwitchInput", "DesktopAccess",
                "X11Output", "SpeechOutput", "CSys", "WordPrediction", "Typing",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "switchscan-bench", dependencies: ["ScanBenchmarks"]),
        .testTarget(name: "ScanCoreTests", dependencies: ["ScanCore"]),
        .testTarget(name: "CompositorsTests", dependencies: ["Compositors", "ScanCore"]),
        .testTarget(name: "ScanHostTests", dependencies: ["ScanCore", "ScanHost"]),
        .testTarget(name: "ScanFormatsTests", dependencies: ["ScanCore", "ScanFormats", "JSONTape", "WordPrediction"]),
        // ScanCore's scan list and scanning cost on screens written as layout files; presses
        // replayed through ScanRuntime's ManualDriver.
        .testTarget(name: "ScanCoreLayoutTests", dependencies: ["ScanCore", "ScanFormats", "ScanRuntime"]),
        .testTarget(name: "WordPredictionTests", dependencies: ["WordPrediction"]),
        .testTarget(name: "TypingTests", dependencies: ["ScanCore", "Typing", "WordPrediction", "ScanFormats", "ScanRuntime"]),
        .testTarget(name: "ScanRuntimeTests", dependencies: ["ScanCore", "ScanHost", "ScanFormats", "JSONTape", "ScanRuntime", "Typing", "WordPrediction"]),
        .testTarget(name: "SwitchInputTests", dependencies: ["ScanCore", "ScanFormats", "SwitchInput"]),
        .testTarget(name: "CommandSupportTests", dependencies: ["CommandSupport", "ScanFormats"]),
        .testTarget(name: "SwitchSetupTests", dependencies: ["ScanCore", "ScanFormats", "SwitchSetup"]),
        .testTarget(name: "ScanSessionTests", dependencies: ["ScanCore", "ScanHost", "ScanSession", "ScanRuntime", "WordPrediction"]),
        .testTarget(name: "SwitchScanCLITests", dependencies: ["switchscan", "switchscan-bench", "JSONTape"]),
        // The desktop's policy, role mapping and ids, without a display or a bus.
        .testTarget(name: "DesktopAccessTests", dependencies: ["DesktopAccess", "ScanCore", "CAtspi"]),
        // Real applications on a private X server and accessibility bus, started by the tests.
        .testTarget(name: "DesktopTests", dependencies: ["switchscan", "switchscan-bench", "CommandSupport", "DesktopAccess", "ScanCore", "CAtspi", "SpeechTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "X11OutputTests", dependencies: ["ScanCore", "ScanHost", "X11Output", "CX11", "switchscan"]),
        // A private speech-dispatcher for the tests that speak: SpeechOutputTests and the
        // desktop's failure unit in DesktopTests. A regular target, as a test target cannot
        // depend on another; no product has it.
        .target(name: "SpeechTestSupport", path: "Tests/SpeechTestSupport"),
        .testTarget(name: "SpeechOutputTests", dependencies: ["ScanCore", "ScanHost", "ScanRuntime", "SpeechOutput", "SpeechTestSupport", "switchscan", "switchscan-bench"]),
    ]
)

import ArgumentParser
import CSys
import Foundation
import ScanCore
import ScanFormats
import ScanHost
import ScanSession
import WordPrediction

public func fail(_ message: String) -> ExitCode {
    writeErr(message.hasSuffix("\n") ? message : message + "\n")
    return ExitCode(2)
}

/// Seconds as a person writes them: "12", "12.5". Not "0x10", "1e3", "inf" or "nan", which
/// Double's parser would take.
public struct Seconds {
    public var value: Double
    public init?(argument: String) {
        let parts = argument.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              parts.count == 1 || !parts[1].isEmpty, let v = Double(argument) else { return nil }
        value = v
    }
}

extension ScanStyle: ExpressibleByArgument {}
extension ScanMode: ExpressibleByArgument {}
extension TextEntryKind: ExpressibleByArgument {}

/// The live desktop as what a command scans (`run`, `cost`): its active window, or an
/// application's; without `--desktop`, the command's layout.
public struct DesktopTarget: ParsableArguments {
    public init() {}

    @Flag(help: "Scan the live desktop's active window through the accessibility bus, instead of a layout.")
    public var desktop = false

    @Option(help: "With --desktop: this application's window (its name as 'switchscan desktop' lists it).")
    public var app: String?

    public func validate() throws {
        if app != nil && !desktop { throw ValidationError("--app goes with --desktop, e.g. --desktop --app gtk3-widget-factory") }
    }

    /// Refuses a layout given beside `--desktop`: one or the other is scanned.
    public func check(layout: String?, given: String) throws {
        if desktop && layout != nil { throw ValidationError("--desktop scans the live desktop; leave out \(given), or leave out --desktop to scan the layout.") }
    }

    /// What is scanned: the desktop, else `layout`.
    public func target(layout: String) -> RunConfiguration.Target { desktop ? .desktop(app: app) : .layout(layout) }
}

/// The options every scanning command shares.
public struct ScanOptions: ParsableArguments {
    public init() {}

    @Option(help: "A settings file (JSON) with the timing and behaviour preferences.")
    public var settings: String?

    @Option(help: "Scanning style: auto, manual, step or hold (overrides the settings file).")
    public var style: ScanStyle?

    @Option(help: "Start in item or point mode (overrides the settings file).")
    public var mode: ScanMode?

    /// The layout and the settings, each problem added to `problems` (all are reported).
    public func load(layout: String, problems: inout [String]) -> (LayoutDocument?, ScanSettings) {
        var document: LayoutDocument?
        do { document = try loadLayout(layout) } catch { problems.append(error.message) }
        return (document, loadScanSettings(problems: &problems))
    }

    /// The settings alone (the live desktop has no layout file).
    public func loadScanSettings(problems: inout [String]) -> ScanSettings {
        var scanSettings = ScanSettings()
        if let settings {
            do { scanSettings = try loadSettings(settings) } catch { problems.append(error.message) }
        }
        if let style { scanSettings.style = style }
        if let mode { scanSettings.mode = mode }
        return scanSettings
    }
}


/// "16.7ms", "1ms", "250us", "1s", "0.5s" (a bare number is milliseconds).
public struct Interval: ExpressibleByArgument {
    public var duration: ScanDuration
    public var text: String

    public init?(argument: String) {
        guard let ns = Self.nanoseconds(argument, defaultFactor: 1e6), ns > 0, ns >= 100_000, ns <= 10e9 else { return nil }
        duration = ScanDuration(nanoseconds: Int64(ns.rounded()))
        text = argument
    }

    /// "16.7ms", "50us", "1s", or a bare number in units of `defaultFactor` nanoseconds.
    public static func nanoseconds(_ argument: String, defaultFactor: Double) -> Double? {
        let s = argument.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Double)] = [("ms", 1e6), ("us", 1e3), ("µs", 1e3), ("ns", 1), ("s", 1e9)]
        var value: Double?
        var factor = defaultFactor
        for (suffix, f) in units where s.hasSuffix(suffix) {
            value = Double(s.dropLast(suffix.count))
            factor = f
            break
        }
        if value == nil { value = Double(s) }
        guard let v = value, v.isFinite, v >= 0 else { return nil }
        return v * factor
    }

    public var milliseconds: Double { Double(duration.nanoseconds) / 1e6 }
}

/// How long before a timer's deadline the timing thread wakes and spins (0 to 1 ms):
/// `RealTimeQueue.Options.spinMargin`.
public struct SpinMargin: ExpressibleByArgument {
    public var duration: ScanDuration

    public init?(argument: String) {
        guard let ns = Interval.nanoseconds(argument, defaultFactor: 1e3), ns <= 1e6 else { return nil }
        duration = ScanDuration(nanoseconds: Int64(ns.rounded()))
    }

    public init(_ duration: ScanDuration) { self.duration = duration }

    public var defaultValueDescription: String { "\(duration.nanoseconds / 1000)us" }
}


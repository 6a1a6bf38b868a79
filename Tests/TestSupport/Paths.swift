import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where the tests find the checkout and the programs SwiftPM built.
public enum TestPaths {
    /// The package root: Tests/TestSupport/Paths.swift → ../../
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// How much longer the tests wait for the programs they start: SWITCHSCAN_TEST_TIME_SCALE,
    /// set where the programs are built with a sanitizer and run several times slower.
    public static let timeScale: Double = ProcessInfo.processInfo.environment["SWITCHSCAN_TEST_TIME_SCALE"].flatMap(Double.init).map { max(1, $0) } ?? 1

    /// A program SwiftPM built beside the test bundle (on Linux the bundle is an executable
    /// `*.xctest` in the products folder; on macOS a bundle in it), else the newest
    /// `.build*/…/debug|release/NAME`. With `chosen`, `SWITCHSCAN_EXECUTABLE` names it (the
    /// desktop tests time a release build with it, as users run it).
    public static func executable(named name: String, chosen byEnvironment: Bool = false) -> URL? {
        let fm = FileManager.default
        if byEnvironment, let chosen = ProcessInfo.processInfo.environment["SWITCHSCAN_EXECUTABLE"], !chosen.isEmpty {
            let url = URL(fileURLWithPath: chosen)
            return isExecutableFile(url) ? url : nil
        }
        var starts: [URL] = []
        if let exe = Bundle.main.executableURL { starts.append(exe.resolvingSymlinksInPath().deletingLastPathComponent()) }
        starts.append(Bundle.main.bundleURL)
        if let arg0 = CommandLine.arguments.first, !arg0.isEmpty {
            starts.append(URL(fileURLWithPath: arg0).resolvingSymlinksInPath().deletingLastPathComponent())
        }
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            starts.append(bundle.bundleURL.deletingLastPathComponent())
        }
        for start in starts {
            var dir = start
            for _ in 0..<4 {
                let candidate = dir.appendingPathComponent(name)
                if isExecutableFile(candidate) { return candidate }
                dir = dir.deletingLastPathComponent()
            }
        }
        var found: [(URL, Date)] = []
        for entry in (try? fm.contentsOfDirectory(atPath: packageRoot.path)) ?? [] where entry.hasPrefix(".build") {
            let build = packageRoot.appendingPathComponent(entry)
            var candidates = [build.appendingPathComponent("debug/\(name)"), build.appendingPathComponent("release/\(name)")]
            for sub in (try? fm.contentsOfDirectory(atPath: build.path)) ?? [] {
                candidates.append(build.appendingPathComponent(sub).appendingPathComponent("debug/\(name)"))
            }
            for c in candidates where isExecutableFile(c) {
                found.append((c, (try? fm.attributesOfItem(atPath: c.path)[.modificationDate] as? Date) ?? .distantPast))
            }
        }
        return found.max { $0.1 < $1.1 }?.0
    }

    static func isExecutableFile(_ url: URL) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir) && !isDir.boolValue && access(url.path, X_OK) == 0
    }
}

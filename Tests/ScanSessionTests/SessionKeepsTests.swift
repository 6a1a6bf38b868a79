import Foundation
@testable import ScanCore
import ScanFormats
import ScanHost
@testable import ScanSession
import Testing

/// What a run keeps for the person's later sessions and for their carer: an interval that
/// adaptation changed goes to their settings file, and their usage counts to the usage log,
/// readable by them alone. A session as `run` makes it, its press handed to the engine.
@Suite struct SessionKeepsTests {
    @Test func anAdaptedIntervalAndTheUsageAreKept() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("session-keeps-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let settings = folder.appendingPathComponent("settings.json").path
        // Long highlights: the press below lands on the one it was timed from.
        try #"{"style": "auto", "autoScanInterval": 2, "adaptTiming": "on", "adaptAnnounce": false}"#
            .write(toFile: settings, atomically: true, encoding: .utf8)
        let usage = folder.appendingPathComponent("data/switchscan/usage.log").path
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        var c = SessionTests().configuration("Layouts/switch-control.uikit.json", output: fds[1])
        c.settingsFile = settings
        c.settingsKeptIn = settings
        c.usageLog = usage
        let dayBefore = UsageLog.day(of: Int(time(nil)))
        let ended = OneShot<Void>()
        let session = ScanSession(c, log: { _ in }) { _ in ended.set(()) }
        try session.start()
        _ = SessionTests().read(fds[0], until: "\"highlight\"")
        let scanner = try #require(session.liveScanner)
        // A press 50 ms after the highlight came, which no one makes in answer to it: it was
        // meant for the item before, and the scan slows by 10 %.
        let shown = try #require(try scanner.inspect { $0.adaptation.shown.last })
        scanner.submit(SwitchEvent(.select, down: true, at: shown + .milliseconds(50)))
        scanner.submit(SwitchEvent(.select, down: false, at: shown + .milliseconds(120)))
        let text = SessionTests().read(fds[0], until: "\"settingChanged\"")
        #expect(text.contains(#""name":"autoScanInterval","value":2.2"#), "\(text)")
        session.shutdown(.finished)
        #expect(ended.wait(until: MonotonicClock.now() + .seconds(10)) != nil)

        let kept = try loadSettings(settings)
        #expect(kept.autoScanInterval == .milliseconds(2200))
        #expect(kept.adaptTiming == .on, "the rest of the file is kept")
        let log = try UsageLog.load(usage)
        #expect(log.problems.isEmpty)
        let today = try #require(log.days.last)
        // Today's line (the day it began or, past midnight, the next).
        #expect(log.days.count == 1 && [dayBefore, UsageLog.day(of: Int(time(nil)))].contains(today.day), "\(log.days)")
        #expect(today.usage.presses == 1 && today.usage.selections == 1, "\(today.usage)")
        #expect(today.usage.intervalSelections == 1 && abs(today.usage.intervalSum - 2) < 1e-9)
        #expect(today.usage.runningSeconds > 0)
        var st = stat()
        #expect(stat(usage, &st) == 0 && st.st_mode & 0o777 == 0o600)
    }
}

import CommandSupport
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Back after a crash, for real: systemd's user manager runs the session's units, `switchscan
/// autostart enable` installs the user unit, the desktop's session target starts it with
/// graphical-session.target as a login does, and the scanner it runs highlights the window
/// within 2 s. Killed with SIGSEGV, it is restarted and highlights again within 2 s; the third
/// crash within a minute ends the restarts, and the failure unit (only then) says so in the
/// journal and, with the real `spd-say`, through a private speech-dispatcher.
///
/// "Highlighting" is seen from outside the process: the overlay's outline window mapped on
/// the X server. The figures (milliseconds) are printed as `autostart-figures:` lines.
@Suite("Restart after a crash under systemd's user manager", .serialized, .timeLimit(.minutes(2)))
struct CrashRestartTests {
    static let unit = AutostartFiles.unitName
    static let failureUnit = AutostartFiles.failureUnitName
    /// What a desktop's own session unit does (GNOME's, Plasma's): binds graphical-session.target.
    static let sessionTarget = "switchscan-test-session.target"
    static let sessionTargetText = """
        [Unit]
        Description=The test's desktop session (as a desktop's session unit, it brings up graphical-session.target)
        BindsTo=graphical-session.target
        Before=graphical-session.target

        """
    static let limitMilliseconds = 2000.0

    @Test func restartedWithinTwoSecondsUntilThreeCrashesInAMinute() throws {
        try SpeechRequirement.say.require()
        let session = try DesktopSession()
        defer { session.stop() }
        // Speech: the failure unit's `spd-say` talks to a private speech-dispatcher whose
        // `textlog` module writes each text it is given as a line (no sound here).
        let speech = try SpeechDaemon(module: .textlog)
        defer { speech.stop() }
        let manager = try UserManagerSession(session: session)
        defer { manager.stop() }
        try manager.setEnvironment(["SPEECHD_ADDRESS": "unix_socket:" + speech.socket])
        let clock = ContinuousClock()

        /// The failure unit's line in the journal.
        func told() -> [String] {
            manager.journalEntries().map(\.message).filter { $0.hasPrefix(AutostartFiles.failureMessage) }
        }
        func saidAloud() -> [String] { speech.spoken() }

        // The login: the display and the bus handed to the manager, then the desktop's session target.
        try Self.sessionTargetText.write(to: manager.unitFolder.appendingPathComponent(Self.sessionTarget), atomically: true, encoding: .utf8)
        try manager.systemctl(["daemon-reload"])
        try manager.importDisplay()
        let started = try manager.systemctl(["start", Self.sessionTarget])
        try #require(started.status == 0, "\(started)\n\(manager.logs)")
        try #require(try manager.systemctl(["is-active", "graphical-session.target"]).status == 0, "\(manager.logs)")

        // `autostart enable` where the user manager runs the graphical session: the unit, not the entry.
        let config = try #require(session.environment["XDG_CONFIG_HOME"])
        let enabled = try session.runSwitchscan(["autostart", "enable"])
        #expect(enabled.status == 0, "\(enabled)")
        #expect(enabled.stdout.hasPrefix("Enabled: SwitchScan starts with your graphical session, from the systemd user unit \(config)/systemd/user/\(Self.unit)"), "\(enabled)")
        #expect(!FileManager.default.fileExists(atPath: config + "/autostart/" + AutostartFiles.entryName), "never both")
        let isEnabled = try manager.systemctl(["is-enabled", Self.unit])
        try #require(isEnabled.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "enabled", "\(isEnabled)")

        let fixture = try session.startFixture()
        func outlineShown() throws -> Bool { try !session.windowIDs(named: "^switchscan outline$").isEmpty }
        /// Polls `condition` until it holds or `timeout` seconds passed; the milliseconds from `since`.
        func waitFor(_ what: String, since start: ContinuousClock.Instant, timeout: Double, _ condition: () throws -> Bool) throws -> Double {
            guard try TestTime.poll(timeout: timeout, until: condition) else {
                let status = (try? manager.systemctl(["status", Self.unit, Self.failureUnit]).stdout) ?? ""
                throw DesktopError("Waiting for \(what): not within \(timeout) s.\n\(status)\n\(manager.logs)")
            }
            return DesktopSession.milliseconds(clock.now - start)
        }

        // Log in three times: the session target starts graphical-session.target, which starts
        // the unit; from then to the first highlight (the bus and the window are already up).
        var logins: [Double] = []
        for _ in 0..<3 {
            try manager.systemctl(["stop", Self.sessionTarget])
            _ = try waitFor("the unit stopped with the session", since: clock.now, timeout: 10) {
                try manager.show(Self.unit, ["ActiveState"])["ActiveState"] == "inactive"
            }
            _ = try waitFor("the outline gone with the scanner", since: clock.now, timeout: 5) { try !outlineShown() }
            try manager.systemctl(["reset-failed", Self.unit])  // each login starts the unit's count afresh
            let login = clock.now
            let start = try manager.systemctl(["start", Self.sessionTarget])
            try #require(start.status == 0, "\(start)\n\(manager.logs)")
            logins.append(try waitFor("the first highlight after login", since: login, timeout: 10, outlineShown))
        }

        let unitPath = "\(config)/systemd/user/\(Self.unit)"
        let status = try session.runSwitchscan(["autostart", "status"])
        #expect(status.stdout == "On: the systemd user unit \(unitPath) (enabled, running now).\n", "\(status)")

        // Three crashes: the first two are restarted and scan again; the third ends it.
        var restarts: [Double] = []
        for crash in 1...AutostartFiles.burst {
            let before = try manager.show(Self.unit, ["MainPID", "ActiveState"])
            let pid = try #require(pid_t(before["MainPID"] ?? ""), "\(before)")
            try #require(pid > 0 && before["ActiveState"] == "active", "crash \(crash): the unit is not running: \(before)\n\(manager.logs)")
            let crashed = clock.now
            kill(pid, SIGSEGV)
            // Its outline goes with it, before any restart (RestartSec is 0.5 s).
            _ = try waitFor("the crashed scanner's outline gone", since: crashed, timeout: 1) { try !outlineShown() }
            if crash < AutostartFiles.burst {
                var now: [String: String] = [:]
                restarts.append(try waitFor("crash \(crash): a new scanner highlighting", since: crashed, timeout: 10) {
                    now = try manager.show(Self.unit, ["MainPID", "ActiveState", "NRestarts"])
                    guard let p = pid_t(now["MainPID"] ?? ""), p != 0, p != pid, now["ActiveState"] == "active" else { return false }
                    return try outlineShown()
                })
                #expect(now["NRestarts"] == String(crash), "\(now)")
                // A crash that is restarted is not a failure to tell.
                #expect(told().isEmpty && saidAloud().isEmpty,
                        "the failure unit ran on crash \(crash), which was restarted.\n\(manager.logs)")
            } else {
                _ = try waitFor("the unit failed after the third crash", since: crashed, timeout: 10) {
                    try manager.show(Self.unit, ["ActiveState"])["ActiveState"] == "failed"
                }
                _ = try waitFor("the failure unit's message", since: crashed, timeout: 10) {
                    !told().isEmpty && !saidAloud().isEmpty
                }
                // `spd-say --wait` returned once it was said: the unit ends well within its TimeoutStartSec.
                var failure: [String: String] = [:]
                _ = try waitFor("the failure unit done", since: crashed, timeout: 10) {
                    failure = try manager.show(Self.failureUnit, ["ActiveState", "Result"])
                    return failure["ActiveState"] != "activating"
                }
                #expect(failure == ["ActiveState": "inactive", "Result": "success"], "\(failure)\n--- speech-dispatcher ---\n\(speech.log)\n\(manager.logs)")
            }
        }
        #expect(restarts.allSatisfy { $0 <= Self.limitMilliseconds }, "crash to scanning again (ms): \(restarts)")
        #expect(logins.allSatisfy { $0 <= Self.limitMilliseconds }, "login to the first highlight (ms): \(logins)")

        // Given up: no restart after twice RestartSec, the start limit said, the message once.
        let restarted = try TestTime.poll(timeout: Double(2 * AutostartFiles.restartMilliseconds + 500) / 1000, every: 0.1) {
            try manager.show(Self.unit, ["ActiveState"])["ActiveState"] != "failed" || outlineShown()
        }
        let state = try manager.show(Self.unit, ["ActiveState", "MainPID"])
        #expect(!restarted && state["ActiveState"] == "failed" && state["MainPID"] == "0", "restarted after the third crash: \(state)")
        #expect(try !outlineShown(), "a scanner highlights after the third crash")
        let managerSaid = manager.journalEntries().filter { $0.source == "systemd" }.map(\.message)
        #expect(managerSaid.contains("\(Self.unit): Start request repeated too quickly. (\(Self.unit))"), "\(manager.logs)")
        #expect(managerSaid.filter { $0.hasPrefix("\(Self.unit): Triggering OnFailure= dependencies.") }.count == 1, "\(manager.logs)")
        #expect(told().count == 1, "in the journal: \(told())\n\(manager.logs)")
        #expect(saidAloud() == [AutostartFiles.failureMessage], "spoken: \(saidAloud())\n--- speech-dispatcher ---\n\(speech.log)")
        #expect(fixture.isRunning)

        let disabled = try session.runSwitchscan(["autostart", "disable"])
        #expect(disabled.stdout == "Disabled: removed the systemd user unit \(unitPath).\n", "\(disabled)")
        #expect(try manager.systemctl(["is-enabled", Self.unit]).status != 0, "the unit is still known after disable")

        print("autostart-figures: unit login to first highlight ms \(Self.figures(logins)); crash to scanning again ms \(Self.figures(restarts))")
    }

    static func figures(_ values: [Double]) -> String {
        let sorted = values.sorted()
        let p50 = sorted.isEmpty ? 0 : sorted[(sorted.count - 1) / 2]
        return "[\(values.map { String(Int($0.rounded())) }.joined(separator: ", "))] p50 \(Int(p50.rounded())) max \(Int((sorted.last ?? 0).rounded()))"
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import ScanCore
import ScanHost

/// Where KWin's windows are, from a script SwitchScan loads into KWin (`KWinScript.places`):
/// it reports every window's frame and buffer rectangles at the start and again whenever a
/// window comes, goes, moves or is resized, so `places` answers from memory. Any thread.
public final class KWinPlaces: WindowPlaceSource, @unchecked Sendable {
    public let name = "a KWin script"
    public let native = WindowPlace.Client.wayland
    /// How long the start waits for the script's first report.
    static let firstReportSeconds = 3.0
    private let scripting: KWinScripting
    private let scriptName = KWinScripting.scriptNames(pid: getpid()).places
    private let reported = ReportedWindows()
    private let first = DispatchSemaphore(value: 0)

    /// Loads the script and waits for its first report; fails saying why (no KWin on the
    /// session bus, scripting refused, no report).
    public init(environment: [String: String]) throws(KWinError) {
        scripting = try KWinScripting(environment: environment)
        let box = WeakBox()
        box.places = self
        try scripting.listen(thread: "switchscan.kwin-places") { bytes in box.places?.take(bytes) }
        do { try scripting.run(KWinScript.places(service: scripting.service, path: KWinScripting.objectPath), name: scriptName) } catch {
            scripting.close()
            throw error
        }
        guard first.wait(timeout: .now() + Self.firstReportSeconds) == .success else {
            scripting.close()
            throw KWinError("KWin ran SwitchScan's window script but it reported nothing within \(Self.firstReportSeconds) s; KWin's log says why (kwin_scripting)")
        }
    }

    private final class WeakBox: @unchecked Sendable { weak var places: KWinPlaces? }

    deinit { scripting.close() }

    /// A report from the script; on the listening thread.
    private func take(_ bytes: [UInt8]) {
        guard let windows = try? KWinScript.report(bytes) else { return }
        if reported.set(windows) { first.signal() }
    }

    public func places(fresh: Bool) -> [WindowPlace] { reported.places }

    public func follow(_ onChange: @escaping @Sendable () -> Void) { reported.followPlaces(onChange) }

    public func close() {
        reported.followPlaces(nil)
        scripting.close()
    }
}

/// The Windows page on KWin: the windows a task bar would list, from a script of its own
/// (as `KWinPlaces`), and its commands carried out by a short script each (KWin has no other
/// way to be asked): activate, close, minimise, maximise and restore. Commands run on a
/// queue of their own, so a slow KWin never holds the caller.
public final class KWinWindows: WindowList, @unchecked Sendable {
    private let scripting: KWinScripting
    private let report: @Sendable (String) -> Void
    private let queue = DispatchQueue(label: "switchscan.kwin-windows")
    private let scriptName = KWinScripting.scriptNames(pid: getpid()).windows
    private let commandName = KWinScripting.scriptNames(pid: getpid()).command
    private let reported = ReportedWindows()

    public init(environment: [String: String], report: @escaping @Sendable (String) -> Void) throws(KWinError) {
        scripting = try KWinScripting(environment: environment)
        self.report = report
    }

    deinit { scripting.close() }

    public func start(onChange: @escaping @Sendable ([ManagedWindow]) -> Void) {
        reported.followList(onChange)
        let box = WeakBox()
        box.windows = self
        do {
            try scripting.listen(thread: "switchscan.kwin-windows-signals") { bytes in box.windows?.take(bytes) }
            try scripting.run(KWinScript.places(service: scripting.service, path: KWinScripting.objectPath), name: scriptName)
        } catch {
            report("The Windows page cannot follow KWin's windows: \(error)")
        }
    }

    private final class WeakBox: @unchecked Sendable { weak var windows: KWinWindows? }

    private func take(_ bytes: [UInt8]) {
        guard let all = try? KWinScript.report(bytes) else { return }
        reported.set(all)
    }

    public func perform(_ command: WindowCommand, window id: String) {
        queue.async { [weak self] in
            guard let self, let title = reported.title(of: id) else { return }
            do {
                try scripting.run(KWinScript.perform(command, window: id), name: commandName)
            } catch {
                report("KWin could not be asked to \(command.verb) '\(title)': \(error)")
            }
        }
    }

    public func stop() {
        reported.stop()
        queue.sync {}
        scripting.close()
    }
}

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
    private let lock = Lock()
    private var known: [KWinScript.Window] = []          // under `lock`
    private var onChange: (@Sendable () -> Void)?        // under `lock`
    private let first = DispatchSemaphore(value: 0)

    /// Loads the script and waits for its first report; fails saying why (no KWin on the
    /// session bus, scripting refused, no report).
    public init(environment: [String: String]) throws(KWinError) {
        scripting = try KWinScripting(environment: environment)
        let box = WeakBox()
        box.places = self
        try scripting.listen { bytes in box.places?.take(bytes) }
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
        let (changed, call, wasFirst) = lock.withLock { () -> (Bool, (@Sendable () -> Void)?, Bool) in
            let before = Self.placement(known.map(\.place))
            let wasFirst = !reported
            reported = true
            known = windows
            return (before != Self.placement(windows.map(\.place)), onChange, wasFirst)
        }
        if wasFirst { first.signal() }
        if changed { call?() }
    }
    private var reported = false  // under `lock`

    /// The windows on the screen: a minimised one is nowhere to be outlined or clicked, and
    /// would only compete with its application's other windows in the matching.
    public func places(fresh: Bool) -> [WindowPlace] {
        lock.withLock { known.filter { !$0.minimized }.map(\.place) }
    }

    /// What decides where a window's frames go: a title or the focus changing does not.
    private static func placement(_ places: [WindowPlace]) -> [[String]] {
        places.map { [$0.id, "\($0.pid ?? -1)", "\($0.client)", "\($0.geometry)", "\($0.buffer.map { "\($0)" } ?? "")"] }
    }

    public func follow(_ onChange: @escaping @Sendable () -> Void) {
        lock.withLock { self.onChange = onChange }
    }

    public func close() {
        lock.withLock { onChange = nil }
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
    private let lock = Lock()
    private var last: [ManagedWindow]?                        // under `lock`
    private var onChange: (@Sendable ([ManagedWindow]) -> Void)?  // under `lock`
    private var stopped = false                               // under `lock`

    public init(environment: [String: String], report: @escaping @Sendable (String) -> Void) throws(KWinError) {
        scripting = try KWinScripting(environment: environment)
        self.report = report
    }

    deinit { scripting.close() }

    public func start(onChange: @escaping @Sendable ([ManagedWindow]) -> Void) {
        lock.withLock { self.onChange = onChange }
        let box = WeakBox()
        box.windows = self
        do {
            try scripting.listen { bytes in box.windows?.take(bytes) }
            try scripting.run(KWinScript.places(service: scripting.service, path: KWinScripting.objectPath), name: scriptName)
        } catch {
            report("The Windows page cannot follow KWin's windows: \(error)")
        }
    }

    private final class WeakBox: @unchecked Sendable { weak var windows: KWinWindows? }

    private func take(_ bytes: [UInt8]) {
        guard let all = try? KWinScript.report(bytes) else { return }
        let list = all.filter(\.listed).map {
            ManagedWindow(id: $0.place.id, title: $0.place.title, active: $0.place.active, maximized: $0.maximized, minimized: $0.minimized)
        }
        let call: (@Sendable ([ManagedWindow]) -> Void)? = lock.withLock {
            guard list != last else { return nil }
            last = list
            return onChange
        }
        call?(list)
    }

    public func perform(_ command: WindowCommand, window id: String) {
        queue.async { [weak self] in
            guard let self, let title = lock.withLock({ stopped ? nil : last?.first { $0.id == id }?.title ?? id }) else { return }
            do {
                try scripting.run(KWinScript.perform(command, window: id), name: commandName)
            } catch {
                report("KWin could not be asked to \(command.verb) '\(title)': \(error)")
            }
        }
    }

    public func stop() {
        lock.withLock { onChange = nil; stopped = true }
        queue.sync {}
        scripting.close()
    }
}

import Dispatch
import ScanCore
import ScanHost

/// The Windows page on sway: its windows (native and XWayland alike) from its IPC, followed
/// on its window and workspace events, and its commands carried out as sway commands on the
/// window's container — focus, kill, the scratchpad for minimise (focusing a window there
/// shows it again), full screen for maximise. Requests run on a queue of their own, so a
/// slow sway never holds the caller.
public final class SwayWindows: WindowList, @unchecked Sendable {
    private let path: String
    private let report: @Sendable (String) -> Void
    private let queue = DispatchQueue(label: "switchscan.sway-windows")
    private let watcher: SwayWatcher
    private var query: SwayConnection?    // on `queue`
    private var last: [ManagedWindow]?    // on `queue`
    private var stopped = false           // on `queue`

    /// Connects to the socket at `path` (`$SWAYSOCK`); fails, saying why, when sway does
    /// not answer.
    public init(socket path: String, report: @escaping @Sendable (String) -> Void) throws(SwayError) {
        self.path = path
        self.report = report
        query = try SwayConnection(path: path, timeout: SwayPlaces.timeout)
        watcher = SwayWatcher(path: path, events: #"["window","workspace"]"#)
    }

    // Not `stop()`: the last reference may go on `queue` or on the watcher's thread. The
    // watcher ends with its connection; the query connection closes itself.
    deinit { watcher.stop() }

    public func start(onChange: @escaping @Sendable ([ManagedWindow]) -> Void) {
        watcher.start(thread: "switchscan.sway-windows-events", changed: { [weak self] _ in
            guard let self else { return false }
            let (go, changed): (Bool, [ManagedWindow]?) = queue.sync {
                guard !stopped else { return (false, nil) }
                guard let list = try? SwayTree.windows(request(SwayConnection.getTree)), list != last else { return (true, nil) }
                last = list
                return (true, list)
            }
            // Outside the queue: a consumer may ask for a command from here.
            if let changed { onChange(changed) }
            return go
        }, ended: {})
    }

    public func perform(_ command: WindowCommand, window id: String) {
        guard Int(id) != nil else { return report("There is no window '\(id)' on sway.") }
        queue.async { [weak self] in
            guard let self, !stopped else { return }
            let title = last?.first { $0.id == id }?.title ?? id
            do {
                let answer = try request(SwayConnection.runCommand, "[con_id=\(id)] \(Self.command(command))")
                if !SwayTree.succeeded(answer) {
                    report("sway did not \(command.verb) '\(title)': \(String(decoding: answer, as: UTF8.self))")
                }
            } catch {
                report("sway could not be asked to \(command.verb) '\(title)': \(error)")
            }
        }
    }

    /// sway's command for each of the page's.
    static func command(_ c: WindowCommand) -> String {
        switch c {
        case .activate: return "focus"
        case .close: return "kill"
        case .minimize: return "move scratchpad"
        case .maximize: return "fullscreen enable"
        case .restore: return "fullscreen disable"
        }
    }

    /// One request on the query connection, connecting again after a failed one; on `queue`.
    private func request(_ type: UInt32, _ payload: String = "") throws(SwayError) -> [UInt8] {
        do {
            if query == nil { query = try SwayConnection(path: path, timeout: SwayPlaces.timeout) }
            return try query!.request(type, payload)
        } catch {
            // A late answer would be taken for the next request's.
            query?.close()
            query = nil
            throw error
        }
    }

    /// Not from `onChange` (its thread is the one this waits for).
    public func stop() {
        watcher.stop()
        queue.sync {
            stopped = true
            query?.close()
            query = nil
        }
    }
}

extension WindowCommand {
    /// What the user is told was asked: "sway did not \(verb) 'Mail'".
    var verb: String {
        switch self {
        case .activate: return "switch to"
        case .close: return "close"
        case .minimize: return "minimise"
        case .maximize: return "maximise"
        case .restore: return "restore"
        }
    }
}

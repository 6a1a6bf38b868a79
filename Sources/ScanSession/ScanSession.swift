import DesktopAccess
import Dispatch
import Foundation
import ScanCore
import ScanFormats
import ScanHost
import Compositors
import ScanRuntime
import ScreenScene
import SpeechOutput
import SwitchInput
import Typing
import WordPrediction
import WaylandOutput
import X11Output

/// Why a session could not start, and the exit status a command gives it: 2 for the user's
/// files and arguments, 1 for what the system refused (the accessibility bus, a display).
public struct SessionError: Error, CustomStringConvertible {
    public var message: String
    public var status: Int32
    public init(_ message: String, status: Int32) { self.message = message; self.status = status }
    public var description: String { message }
}

/// How a session ends.
public enum EndReason: Sendable, Equatable {
    /// The user quit (q, the end of the terminal's input) or the duration ran out.
    case finished
    /// A termination signal: the status is 128 + the signal, and the process should die of it.
    case signal(Int32)
    /// Something the scan cannot go on without failed after it started.
    case failed(String, status: Int32)
}

/// What the host is told once a session has ended and put everything back.
public struct SessionEnd: Sendable {
    public var reason: EndReason
    /// Messages shown on the drawn screen while it ran, to repeat on stderr now that the
    /// terminal is back (so they stay in the scrollback).
    public var notes: [String]
    public init(reason: EndReason, notes: [String]) { self.reason = reason; self.notes = notes }
    public var status: Int32 {
        switch reason {
        case .finished: 0
        case .signal(let sig): 128 + sig
        case .failed(_, let status): status
        }
    }
}

/// A scanning session: what `switchscan run` does, as a library. `start()` reads the inputs,
/// builds the presenters and injectors its configuration asks for, starts the engine on its
/// real-time thread and then the inputs (devices, the terminal's keys); `shutdown` ends it
/// once, in one order (inputs, the desktop, the engine, the presenters, the terminal), and
/// then calls `onEnd`.
public final class ScanSession: @unchecked Sendable {
    public let configuration: RunConfiguration
    /// One line per message (warnings, notes), without a newline.
    let log: @Sendable (String) -> Void
    let onEnd: @Sendable (SessionEnd) -> Void

    let presentQueue = DispatchQueue(label: "switchscan.present")
    /// Where a session ends.
    let control = DispatchQueue(label: "switchscan.control")
    let lock = Lock()
    private var ending = false
    private var later: [String] = []

    // Set while starting, before anything can end the session; read once it ends.
    var rt: RealTimeQueue?
    var presenter: EffectPresenter?
    var scanner: LiveScanner?     // set under `lock`
    /// The scanner once it is made, for the desktop's and the actions' reports (their
    /// threads' own).
    var liveScanner: LiveScanner? { lock.withLock { scanner } }
    var keyboard: KeyboardInput?
    var devices: SwitchDevices?
    var desktop: DesktopAccess?
    var windows: (any WindowList)?
    var phrasesWatcher: PhrasesWatcher?
    var usageKeeper: UsageKeeper?
    /// Under GNOME without its extension answering: what the user is told, once on the log
    /// at the start and once through the scan (said aloud where speech is on).
    var extensionNotice: String?

    /// - Parameters:
    ///   - log: where messages go that are not effects (stderr for the command line).
    ///   - onEnd: called once, on the session's own queue, after everything is put back.
    public init(_ configuration: RunConfiguration, log: @escaping @Sendable (String) -> Void,
                onEnd: @escaping @Sendable (SessionEnd) -> Void) {
        self.configuration = configuration
        self.log = log
        self.onEnd = onEnd
    }

    /// Ends the session once, whichever way it ends: stop the inputs, the desktop and the
    /// timing thread, let the presenters finish (the terminal restored), then `onEnd`.
    public func shutdown(_ reason: EndReason) {
        lock.lock()
        if ending { lock.unlock(); return }
        ending = true
        lock.unlock()
        control.async { [self] in
            keyboard?.stop()
            devices?.closeAll()
            desktop?.stop()
            windows?.stop()
            phrasesWatcher?.stop()
            // The last counts are taken from the engine before its thread stops.
            usageKeeper?.finish()
            rt?.stop()
            presentQueue.sync { presenter?.finish() }
            TerminalState.restore()
            onEnd(SessionEnd(reason: reason, notes: lock.withLock { later }))
        }
    }

    /// A session that failed while starting puts back what it had begun.
    func undoStart() {
        desktop?.stop()
        rt?.stop()
        TerminalState.restore()
    }

    func noteForLater(_ text: String) {
        lock.withLock {
            later.append(text)
            // A long run with devices coming and going: the last messages are the ones that count.
            if later.count > 50 { later.removeFirst(later.count - 50) }
        }
    }

}

/// The accessibility bus, reached within a time limit. The bus is found and started through
/// D-Bus activation, which can hang on a broken session: after the limit the caller is told
/// what to check rather than left waiting with the user.
public enum DesktopConnection {
    /// `hooks`: what the connection is given (its `places` from `WindowPlaces.open`),
    /// closed again when it fails.
    public static func connect(within seconds: Double = 10, hooks: DesktopHooks = DesktopHooks()) throws(SessionError) -> DesktopAccess {
        let result = OneShot<Result<DesktopAccess, DesktopError>>()
        do {
            // Detached: after the time limit it is abandoned, not joined.
            pthread_detach(try spawnThread(name: "switchscan.connect") {
                result.set(Result { () throws(DesktopError) in try DesktopAccess.connect(hooks) })
            })
        } catch {
            throw SessionError("Error: \(error).", status: 1)
        }
        guard let outcome = result.wait(until: MonotonicClock.now() + .seconds(seconds)) else {
            hooks.places?.close()
            throw SessionError("""
                Error: the accessibility bus did not answer within \(formatFixed(seconds, decimals: 0)) s. Check that the session's D-Bus works \
                (DBUS_SESSION_BUS_ADDRESS) and that at-spi2-core is installed; 'busctl --user status' tests the bus.
                """, status: 1)
        }
        switch outcome {
        case .success(let access):
            return access
        case .failure(let error):
            hooks.places?.close()
            throw SessionError(error.description, status: 1)
        }
    }
}

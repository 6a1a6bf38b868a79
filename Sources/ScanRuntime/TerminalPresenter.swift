#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import ScanCore
import ScanHost

/// Draws the screen in the terminal (`TerminalScene`): the boxes laid out on the window, the
/// highlight, the scanner menu and the point-mode crosshair (sampled at 30 frames a second
/// while a sweep moves, since its position is a function of time), and a status line.
public final class TerminalPresenter: EffectPresenter, @unchecked Sendable {
    /// What is shown; drawing it is a pure function of the effects, the size and the time.
    var scene = TerminalScene()
    let queue: DispatchQueue
    let clock: () -> ScanInstant
    /// Once the terminal is restored nothing more is drawn (a late message or resize would
    /// draw a frame into the user's normal screen).
    var finished = false
    var frameTimer: DispatchSourceTimer?
    /// The terminal's size changes (SIGWINCH): the screen is drawn again at the new size.
    var resize: DispatchSourceSignal?
    var failed: PresenterError?
    public var onFailure: ((PresenterError) -> Void)?

    /// Draws nothing until the engine shows its first screen (`Effect.screen`).
    public init(queue: DispatchQueue, clock: @escaping () -> ScanInstant = MonotonicClock.now) {
        self.queue = queue
        self.clock = clock
        TerminalState.takeScreen()
        signal(SIGWINCH, SIG_IGN)
        let resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: queue)
        resize.setEventHandler { [weak self] in
            guard let self, !self.finished else { return }
            try? self.render()
        }
        resize.activate()
        self.resize = resize
    }

    public func present(_ effects: [TimedEffect]) throws {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !finished else { return }
        for e in effects { scene.apply(e) }
        try render()
        updateFrameTimer()
    }

    public func finish() {
        finished = true
        frameTimer?.cancel()
        frameTimer = nil
        resize?.cancel()
        resize = nil
        TerminalState.restore()
    }

    func updateFrameTimer() {
        if scene.isSweeping && frameTimer == nil {
            let t = DispatchSource.makeTimerSource(queue: queue)
            t.schedule(deadline: .now(), repeating: .milliseconds(33))
            t.setEventHandler { [weak self] in
                guard let self else { return }
                do { try self.render() } catch let e as PresenterError { self.fail(e) } catch {}
            }
            t.activate()
            frameTimer = t
        } else if !scene.isSweeping, let t = frameTimer {
            t.cancel()
            frameTimer = nil
        }
    }

    func fail(_ e: PresenterError) {
        guard failed == nil else { return }
        failed = e
        frameTimer?.cancel()
        onFailure?(e)
    }

    // MARK: drawing

    func render() throws {
        guard !finished else { return }
        let (rows, cols) = TerminalState.size()
        try writeAll(1, scene.draw(rows: rows, columns: cols, at: clock()).escaped)
    }
}

#if canImport(Glibc)
import Glibc
#endif
import CSys
import ScanCore
import ScanHost

/// The terminal's settings as found, restored on every way out: quit, a signal, an error,
/// and (as a last resort) process exit. Raw mode keeps ISIG, so Ctrl-C still raises SIGINT,
/// which the command handles like any other quit.
public enum TerminalState {
    nonisolated(unsafe) static var saved: termios?
    nonisolated(unsafe) static var screenTaken = false
    nonisolated(unsafe) static var exitHookInstalled = false

    public static var inputIsTerminal: Bool { isatty(0) == 1 }
    public static var outputIsTerminal: Bool { isatty(1) == 1 }

    /// Character-at-a-time input without echo.
    public static func enterRawInput() throws {
        guard inputIsTerminal, saved == nil else { return }
        var t = termios()
        guard tcgetattr(0, &t) == 0 else {
            throw PresenterError(description: "While reading the terminal settings: \(errnoName(errno))")
        }
        saved = t
        installExitHook()
        var raw = t
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(0, TCSANOW, &raw) == 0 else {
            throw PresenterError(description: "While setting the terminal to raw input: \(errnoName(errno))")
        }
    }

    /// The alternate screen, cursor hidden (for the drawing presenter).
    public static func takeScreen() {
        guard outputIsTerminal, !screenTaken else { return }
        screenTaken = true
        installExitHook()
        emit("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")
    }

    /// Idempotent; safe from a signal handler's follow-up and from atexit.
    public static func restore() {
        if screenTaken {
            screenTaken = false
            emit("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        }
        if var t = saved {
            _ = tcsetattr(0, TCSANOW, &t)
            saved = nil
        }
    }

    static func installExitHook() {
        guard !exitHookInstalled else { return }
        exitHookInstalled = true
        atexit { TerminalState.restore() }
    }

    static func emit(_ s: String) {
        var bytes = Array(s.utf8)
        _ = bytes.withUnsafeMutableBytes { write(1, $0.baseAddress, $0.count) }
    }

    /// Rows and columns of the output terminal (80 × 24 when unknown).
    public static func size() -> (rows: Int, columns: Int) {
        var r: UInt16 = 0, c: UInt16 = 0
        if csys_winsize(1, &r, &c) == 0, r > 0, c > 0 { return (Int(r), Int(c)) }
        return (24, 80)
    }
}

/// The terminal's keyboard as switches, read on a thread of its own blocked in poll() (a
/// SerialThread with a PollWaiter, whose eventfd stops it). Keys: space or Enter select,
/// Tab next, Shift-Tab previous, m menu, Esc exit, t toggle mode, p pause, q quit; arrows
/// move too.
public final class KeyboardInput: @unchecked Sendable {
    public enum Key: Equatable, Sendable { case action(SwitchAction), quit, endOfInput }

    let fd: Int32
    let handler: (Key, ScanInstant) -> Void
    private let waiter: PollWaiter
    private var thread: SerialThread?
    // The reader thread's own.
    private var buffer = [UInt8](repeating: 0, count: 256)

    public init(fd: Int32 = 0, handler: @escaping (Key, ScanInstant) -> Void) throws {
        self.fd = fd
        self.handler = handler
        do { waiter = try PollWaiter() } catch { throw PresenterError(description: "While reading the keyboard: \(error)") }
    }

    public func start() throws {
        guard thread == nil else { return }
        let t: SerialThread
        do { t = try SerialThread(name: "switchscan.terminal", body: .waiter(waiter)) } catch {
            throw PresenterError(description: "While reading the keyboard: \(error)")
        }
        thread = t
        // The reader holds the object until `stop`.
        t.async { [self, waiter, fd] in waiter.addReader(fd) { [self] fd in read(fd) } }
    }

    /// Ends reading; from the reader's own handler too.
    public func stop() {
        guard let thread else { return }
        thread.async { [waiter, fd] in waiter.removeReader(fd) }
        thread.stop()
    }

    private func read(_ fd: Int32) {
        thread?.preconditionOnThread()
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        let now = MonotonicClock.now()
        if n < 0 && (errno == EINTR || errno == EAGAIN) { return }
        if n <= 0 {
            waiter.removeReader(fd)
            handler(.endOfInput, now)
            return
        }
        for key in Self.parse(Array(buffer[0..<n])) { handler(key, now) }
    }

    /// Bytes of one read into keys. An Esc alone is the exit key; Esc [ … is a sequence.
    public static func parse(_ bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            i += 1
            switch b {
            case 0x20, 0x0D, 0x0A: keys.append(.action(.select))
            case 0x09: keys.append(.action(.next))
            case UInt8(ascii: "m"), UInt8(ascii: "M"): keys.append(.action(.menu))
            case UInt8(ascii: "t"), UInt8(ascii: "T"): keys.append(.action(.toggleMode))
            case UInt8(ascii: "p"), UInt8(ascii: "P"): keys.append(.action(.pause))
            case UInt8(ascii: "q"), UInt8(ascii: "Q"), 0x04: keys.append(.quit)
            case 0x1B:
                guard i < bytes.count, bytes[i] == UInt8(ascii: "[") || bytes[i] == UInt8(ascii: "O") else {
                    keys.append(.action(.exit))
                    continue
                }
                i += 1
                var final: UInt8 = 0
                while i < bytes.count {
                    let c = bytes[i]
                    i += 1
                    if (0x40...0x7E).contains(c) { final = c; break }
                }
                switch final {
                case UInt8(ascii: "Z"), UInt8(ascii: "A"), UInt8(ascii: "D"): keys.append(.action(.previous))
                case UInt8(ascii: "B"), UInt8(ascii: "C"): keys.append(.action(.next))
                default: break
                }
            default:
                break
            }
        }
        return keys
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import ScanCore

/// Shows or forwards effects. Called on one serial Dispatch queue, which confines its state
/// (hence Sendable by that convention): presenting is not time-critical, since the engine
/// has already decided everything by timestamp.
public protocol EffectPresenter: AnyObject, Sendable {
    func present(_ effects: [TimedEffect]) throws
    /// Leaves the output as it was found (the terminal restored, sockets closed).
    func finish()
}

public struct PresenterError: Error, CustomStringConvertible {
    public var description: String
}

/// Writes all of a buffer to a file descriptor, retrying short writes and EINTR.
func writeAll(_ fd: Int32, _ text: String) throws {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if n < 0 {
            if errno == EINTR || errno == EAGAIN { continue }
            throw PresenterError(description: "writing to fd \(fd): \(errnoName(errno))")
        }
        offset += n
    }
    bytes.removeAll()
}

/// JSON lines on a file descriptor, usually stdout.
public final class JSONLinesPresenter: EffectPresenter, @unchecked Sendable {
    let fd: Int32
    let origin: ScanInstant
    /// Times are printed relative to `origin` (the run's start).
    public init(fd: Int32 = 1, origin: ScanInstant = .zero) { self.fd = fd; self.origin = origin }

    public func present(_ effects: [TimedEffect]) throws {
        var text = ""
        for e in effects { text += EffectJSON.line(e, origin: origin); text += "\n" }
        try writeAll(fd, text)
    }

    public func finish() {}
}

/// JSON lines to every front end connected to a Unix socket (SOCK_STREAM). A client that
/// goes away is dropped; the engine never waits for one.
public final class SocketPresenter: EffectPresenter, @unchecked Sendable {
    let path: String
    let listener: Int32
    var clients: [Int32] = []
    let lock = NSLockLike()
    var acceptSource: DispatchSourceRead?

    let origin: ScanInstant

    public init(path: String, queue: DispatchQueue, origin: ScanInstant = .zero) throws {
        self.path = path
        self.origin = origin
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw PresenterError(description: "While creating socket \(path): \(errnoName(errno))") }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
            close(fd)
            throw PresenterError(description: "Socket path \(path) is too long (\(bytes.count) bytes; at most 107).")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0, listen(fd, 8) == 0 else {
            let e = errno
            close(fd)
            throw PresenterError(description: "While listening on \(path): \(errnoName(e)). Hint: choose a path in a writable directory.")
        }
        listener = fd
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [weak self] in
            guard let self else { return }
            let client = accept(fd, nil, nil)
            if client >= 0 { self.lock.locked { self.clients.append(client) } }
        }
        source.activate()
        acceptSource = source
    }

    public func present(_ effects: [TimedEffect]) throws {
        var text = ""
        for e in effects { text += EffectJSON.line(e, origin: origin); text += "\n" }
        lock.locked {
            clients = clients.filter { fd in
                // MSG_NOSIGNAL: a vanished client must not kill us with SIGPIPE.
                let ok = text.utf8CString.withUnsafeBufferPointer { buf in
                    send(fd, buf.baseAddress, buf.count - 1, Int32(MSG_NOSIGNAL)) == buf.count - 1
                }
                if !ok { close(fd) }
                return ok
            }
        }
    }

    /// Front ends connected now.
    public var clientCount: Int { lock.locked { clients.count } }

    public func finish() {
        acceptSource?.cancel()
        lock.locked {
            for c in clients { close(c) }
            clients.removeAll()
        }
        close(listener)
        unlink(path)
    }
}

/// Several presenters as one.
public final class FanOutPresenter: EffectPresenter, @unchecked Sendable {
    let presenters: [EffectPresenter]
    public init(_ presenters: [EffectPresenter]) { self.presenters = presenters }
    public func present(_ effects: [TimedEffect]) throws { for p in presenters { try p.present(effects) } }
    public func finish() { for p in presenters { p.finish() } }
}

/// A pthread mutex with a closure helper (Foundation's NSLock without Foundation).
final class NSLockLike: @unchecked Sendable {
    private var m = pthread_mutex_t()
    init() { pthread_mutex_init(&m, nil) }
    deinit { pthread_mutex_destroy(&m) }
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(&m)
        defer { pthread_mutex_unlock(&m) }
        return try body()
    }
}

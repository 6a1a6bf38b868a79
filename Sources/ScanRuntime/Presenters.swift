#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import ScanCore
import ScanHost

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
    /// Presenters are called on one queue: the encoder is touched by one at a time.
    var json = EffectJSON()
    /// Times are printed relative to `origin` (the run's start).
    public init(fd: Int32 = 1, origin: ScanInstant = .zero) { self.fd = fd; self.origin = origin }

    public func present(_ effects: [TimedEffect]) throws {
        let text = json.lines(effects, origin: origin)
        try writeAll(fd, text)
    }

    public func finish() {}
}

/// JSON lines to every front end connected to a Unix socket (SOCK_STREAM). Sends never
/// block: each client has a bounded buffer of what it has not read yet, and a client that
/// falls that far behind, or goes away, is dropped with a message (`warn`). So neither the
/// engine nor the shutdown ever waits for a client.
public final class SocketPresenter: EffectPresenter, @unchecked Sendable {
    /// What a client may fall behind by before it is dropped: minutes of effects.
    public static let maxPending = 1 << 20

    struct Client {
        let fd: Int32
        var pending = Backlog()
    }

    /// What a client has not read yet: the batches themselves, shared by every client
    /// (each batch is encoded once), and how far into the first one the socket has taken.
    /// Adding a batch and sending from the front cost O(1), however far behind it is.
    struct Backlog {
        private var batches: [[UInt8]] = []
        private var head = 0
        private var offset = 0
        private(set) var count = 0

        var isEmpty: Bool { count == 0 }

        mutating func append(_ bytes: [UInt8]) {
            guard !bytes.isEmpty else { return }
            batches.append(bytes)
            count += bytes.count
        }

        /// Hands the unsent part of the first batch to `send` (which returns how much it
        /// took, or a negative number) and drops what went; `send`'s answer.
        mutating func sendFront(_ send: (UnsafeRawBufferPointer) -> Int) -> Int {
            guard head < batches.count else { return 0 }
            let n = batches[head].withUnsafeBytes { send(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            guard n > 0 else { return n }
            offset += n
            count -= n
            if offset == batches[head].count {
                head += 1
                offset = 0
                // Sent batches are let go now and then, not one by one.
                if head >= 64 && head * 2 >= batches.count {
                    batches.removeFirst(head)
                    head = 0
                }
            }
            return n
        }
    }

    let path: String
    let listener: Int32
    var clients: [Client] = []
    let lock = Lock()
    var acceptSource: DispatchSourceRead?
    let warn: @Sendable (String) -> Void
    let origin: ScanInstant
    var json = EffectJSON()

    /// Refuses a path where something other than a socket exists; a socket left by an
    /// earlier run is replaced, one another process still listens on is refused.
    public init(path: String, queue: DispatchQueue, origin: ScanInstant = .zero,
                warn: @escaping @Sendable (String) -> Void = { _ in }) throws {
        self.path = path
        self.origin = origin
        self.warn = warn
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
            throw PresenterError(description: "Socket path \(path) is too long (\(bytes.count) bytes; at most 107).")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        func withAddress<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
            withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        }
        var st = stat()
        if lstat(path, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFSOCK else {
                throw PresenterError(description: "\(path) exists and is not a socket; choose another path for --socket, or remove the file.")
            }
            let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            let inUse = probe >= 0 && withAddress { connect(probe, $0, $1) } == 0
            if probe >= 0 { close(probe) }
            if inUse { throw PresenterError(description: "\(path) is in use by another program; choose another path for --socket.") }
            unlink(path)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw PresenterError(description: "While creating socket \(path): \(errnoName(errno))") }
        guard withAddress({ bind(fd, $0, $1) }) == 0, listen(fd, 8) == 0 else {
            let e = errno
            close(fd)
            throw PresenterError(description: "While listening on \(path): \(errnoName(e)). Hint: choose a path in a writable directory.")
        }
        listener = fd
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [weak self] in
            guard let self else { return }
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            self.lock.withLock { self.clients.append(Client(fd: client)) }
        }
        source.activate()
        acceptSource = source
    }

    public func present(_ effects: [TimedEffect]) throws {
        // Encoded once for every client, on the presenters' one queue.
        let text = json.lines(effects, origin: origin)
        guard !text.isEmpty else { return }
        let bytes = Array(text.utf8)
        var dropped: [String] = []
        lock.withLock {
            // In place: a copy of a client would copy its backlog with it.
            var k = 0
            while k < clients.count {
                clients[k].pending.append(bytes)
                switch flush(&clients[k]) {
                case .ok:
                    k += 1
                    continue
                case .gone:
                    break
                case .behind:
                    dropped.append("A front end on \(path) fell more than \(Self.maxPending >> 10) KiB behind; it was disconnected.")
                }
                close(clients[k].fd)
                clients.remove(at: k)
            }
        }
        for message in dropped { warn(message) }
    }

    enum FlushResult { case ok, gone, behind }

    /// Sends what the socket takes now, keeping the rest.
    func flush(_ c: inout Client) -> FlushResult {
        let fd = c.fd
        while !c.pending.isEmpty {
            // MSG_NOSIGNAL: a vanished client must not kill us with SIGPIPE.
            let n = c.pending.sendFront { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n > 0 { continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
            return .gone
        }
        return c.pending.count > Self.maxPending ? .behind : .ok
    }

    /// Front ends connected now.
    public var clientCount: Int { lock.withLock { clients.count } }

    public func finish() {
        acceptSource?.cancel()
        lock.withLock {
            for c in clients { close(c.fd) }
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

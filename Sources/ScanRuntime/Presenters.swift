#if canImport(Glibc)
import Glibc
#endif
import CSys
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
///
/// What is highlighted and typed is the user's alone: the socket is made with mode 0600
/// whatever the umask, and a peer running as another user (root included, unless the
/// scanner runs as root) is closed at once, with a message.
public final class SocketPresenter: EffectPresenter, @unchecked Sendable {
    /// What a client may fall behind by before it is dropped: minutes of effects.
    public static let maxPending = 1 << 20
    /// How long no connection is taken after the process ran out of file descriptors.
    public static let acceptRetry = ScanDuration.milliseconds(250)

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
    /// Takes a connection off the listening socket: accept(2), or the tests' stand-in.
    let takeConnection: (Int32) -> Int32
    /// The socket's file, as made: only that is removed at the end.
    let made: (device: UInt, inode: UInt)
    var clients: [Client] = []
    let lock = Lock()
    let queue: DispatchQueue
    // Under `lock`.
    var acceptSource: DispatchSourceRead?
    var acceptPaused = false
    var finished = false
    var saidOutOfDescriptors = false
    var refusedUsers: Set<UInt32> = []
    let warn: @Sendable (String) -> Void
    let origin: ScanInstant
    var json = EffectJSON()

    /// Refuses a path where something other than a socket exists; a socket left by an
    /// earlier run is replaced, one another process still listens on is refused.
    /// With `accepting` false, connections wait in the socket's queue until `startAccepting()`:
    /// a session takes front ends in once it has opened all it needs, so that front ends
    /// connecting at once cannot leave it without a descriptor for its own parts.
    public convenience init(path: String, queue: DispatchQueue, origin: ScanInstant = .zero, accepting: Bool = true,
                            warn: @escaping @Sendable (String) -> Void = { _ in }) throws {
        try self.init(path: path, queue: queue, origin: origin, accepting: accepting, warn: warn, accept: { accept($0, nil, nil) })
    }

    /// `accept` takes a connection off the listening socket (the tests' stand-in for the
    /// system call).
    init(path: String, queue: DispatchQueue, origin: ScanInstant = .zero, accepting: Bool = true,
         warn: @escaping @Sendable (String) -> Void, accept: @escaping (Int32) -> Int32) throws {
        self.path = path
        self.origin = origin
        self.warn = warn
        self.queue = queue
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
        // Front ends may take every descriptor; the retry after that is a timer, which needs one.
        DispatchTimers.prepare()
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw PresenterError(description: "While creating socket \(path): \(errnoName(errno))") }
        do {
            made = try Self.listenPrivately(fd, at: path)
        } catch {
            close(fd)
            throw error
        }
        listener = fd
        takeConnection = accept
        if accepting { startAccepting() }
    }

    /// Takes in the front ends that connected and those that connect from now on (see init).
    public func startAccepting() {
        let fd = listener
        let accept = takeConnection
        lock.withLock {
            guard !finished, acceptSource == nil else { return }
            let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
            source.setEventHandler { [weak self] in
                guard let self else { return }
                // Every connection waiting, a few dozen at most a turn (the queue has other work).
                for _ in 0..<32 {
                    let client = accept(fd)
                    guard client >= 0 else {
                        let e = errno
                        if e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM { self.pauseAccepting(e) }
                        return
                    }
                    _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                    _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
                    guard self.admits(client) else { close(client); continue }
                    self.lock.withLock { self.clients.append(Client(fd: client)) }
                }
            }
            acceptSource = source
            source.activate()
        }
    }

    /// Binds and listens on `fd` at `path`, mode 0600 whatever the umask, and reachable by
    /// no other user at any moment: the socket is made in a new folder of its own (0700)
    /// beside `path`, given its mode there (a socket's mode is its file's: fchmod on the
    /// socket would not change it), and only then linked at `path`, which fails if
    /// anything took the path meanwhile. Returns the file's device and inode.
    static func listenPrivately(_ fd: Int32, at path: String) throws -> (device: UInt, inode: UInt) {
        func failure(_ what: String, _ e: Int32) -> PresenterError {
            PresenterError(description: "While listening on \(path): \(what): \(errnoName(e)). Hint: choose a path in a writable directory.")
        }
        let slash = path.lastIndex(of: "/")
        let parent = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        var template = Array((parent == "/" ? "" : parent).utf8CString.dropLast()) + Array("/.switchscan-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { throw failure("making a private folder in \(parent)", errno) }
        let folder = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { rmdir(folder) }
        let temporary = folder + "/socket"
        defer { unlink(temporary) }
        // bind takes at most 107 bytes of path: a long folder name is reached through its
        // descriptor instead.
        var bindPath = temporary
        var folderFD: Int32 = -1
        defer { if folderFD >= 0 { close(folderFD) } }
        if temporary.utf8.count > 107 {
            folderFD = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            bindPath = "/proc/self/fd/\(folderFD)/socket"
        }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bindPath.utf8.prefix(raw.count - 1).enumerated() { raw[i] = b }
        }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw failure("bind", errno) }
        guard chmod(temporary, 0o600) == 0 else { throw failure("chmod", errno) }
        guard listen(fd, 8) == 0 else { throw failure("listen", errno) }
        guard link(temporary, path) == 0 else {
            let e = errno
            if e == EEXIST {
                throw PresenterError(description: "\(path) was taken by another program while SwitchScan made its socket; choose another path for --socket.")
            }
            throw failure("link", e)
        }
        var st = stat()
        guard lstat(path, &st) == 0 else { throw failure("lstat", errno) }
        return (UInt(st.st_dev), UInt(st.st_ino))
    }

    /// Whether a front end that connected runs as the scanner's own user; another is
    /// refused, with one message for each such user.
    func admits(_ client: Int32) -> Bool {
        var uid: UInt32 = 0
        let rc = csys_peer_uid(client, &uid)
        let own = UInt32(geteuid())
        if rc == 0 && uid == own { return true }
        let key = rc == 0 ? uid : UInt32.max
        guard lock.withLock({ refusedUsers.insert(key).inserted }) else { return false }
        let who = rc == 0 ? "of user \(uid)" : "whose user could not be known (\(errnoName(rc)))"
        warn("A program \(who) connected to \(path) and was turned away: only user \(own)'s own programs may read what is scanned.")
        return false
    }

    /// Out of file descriptors (or kernel memory), the connection stays queued and the
    /// socket readable: accepting again at once would spin. No connection is taken for
    /// `acceptRetry`; the first time, it is said.
    func pauseAccepting(_ code: Int32) {
        let first: Bool? = lock.withLock {
            guard !finished, !acceptPaused, let source = acceptSource else { return nil }
            acceptPaused = true
            source.suspend()
            defer { saidOutOfDescriptors = true }
            return !saidOutOfDescriptors
        }
        guard let first else { return }
        if first {
            warn("Front ends connecting to \(path) have to wait: SwitchScan has no file descriptor left (\(errnoName(code))). They are taken in once one is free.")
        }
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(Self.acceptRetry.nanoseconds))) { [weak self] in
            guard let self else { return }
            self.lock.withLock {
                guard self.acceptPaused else { return }
                self.acceptPaused = false
                self.acceptSource?.resume()
            }
        }
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
        let source: DispatchSourceRead? = lock.withLock {
            finished = true
            // A suspended source must be resumed before it goes.
            if acceptPaused { acceptPaused = false; acceptSource?.resume() }
            return acceptSource
        }
        // The listener is closed once its source lets go of it (libdispatch's rule), or at once
        // when no source was ever made.
        if let source {
            let fd = listener
            source.setCancelHandler { close(fd) }
            source.cancel()
        } else {
            close(listener)
        }
        lock.withLock {
            for c in clients { close(c.fd) }
            clients.removeAll()
        }
        // Only the socket made here: not what another program put at the path since.
        var st = stat()
        if lstat(path, &st) == 0 && UInt(st.st_dev) == made.device && UInt(st.st_ino) == made.inode { unlink(path) }
    }
}

/// Several presenters as one.
public final class FanOutPresenter: EffectPresenter, @unchecked Sendable {
    let presenters: [EffectPresenter]
    public init(_ presenters: [EffectPresenter]) { self.presenters = presenters }
    public func present(_ effects: [TimedEffect]) throws { for p in presenters { try p.present(effects) } }
    public func finish() { for p in presenters { p.finish() } }
}

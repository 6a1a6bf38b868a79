#if canImport(Glibc)
import Glibc
#endif
import ScanHost

/// Why sway's IPC could not be used, as a sentence.
public struct SwayError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// One connection to sway's IPC socket (`$SWAYSOCK`), i3's protocol: each message is the
/// magic "i3-ipc", the payload's length and the message type (32 bits each, in the
/// machine's order), then a JSON payload. Not thread-safe: its owner serialises it.
final class SwayConnection {
    static let magic = Array("i3-ipc".utf8)
    static let runCommand: UInt32 = 0, subscribe: UInt32 = 2, getTree: UInt32 = 4
    /// Events carry this bit in their type.
    static let eventBit: UInt32 = 0x8000_0000
    /// A tree larger than this is not sway's.
    static let maxPayload = 64 << 20

    private(set) var fd: Int32

    /// `timeout`: how long a request waits for its answer (0: without end, for the events
    /// connection, which waits for the next event).
    init(path: String, timeout: Double) throws(SwayError) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw SwayError("sway's IPC socket '\(path)' is not a usable socket path")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard s >= 0 else { throw SwayError("no socket for sway's IPC: \(errnoName(errno))") }
        if timeout > 0 {
            var t = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
            setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &t, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &t, socklen_t(MemoryLayout<timeval>.size))
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let e = errno
            Glibc.close(s)
            throw SwayError("sway's IPC socket '\(path)' does not answer (\(errnoName(e))): is sway still running?")
        }
        fd = s
    }

    deinit { close() }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// From now on `receive` waits for the next message without end (an events connection).
    func waitWithoutEnd() {
        var t = timeval(tv_sec: 0, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &t, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Whether another message has (begun to) come already.
    var hasMoreToRead: Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) > 0 && p.revents & Int16(POLLIN) != 0
    }

    /// Wakes a `receive` waiting on another thread (it then fails).
    func interrupt() { if fd >= 0 { shutdown(fd, Int32(SHUT_RDWR)) } }

    /// A request and its answer.
    func request(_ type: UInt32, _ payload: String = "") throws(SwayError) -> [UInt8] {
        try send(type, payload)
        while true {
            let (t, body) = try receive()
            // An event that came first on a subscribed connection is not the answer.
            if t & Self.eventBit == 0 {
                guard t == type else { throw SwayError("sway answered a request of type \(type) with type \(t)") }
                return body
            }
        }
    }

    func send(_ type: UInt32, _ payload: String) throws(SwayError) {
        let body = Array(payload.utf8)
        var message = Self.magic
        withUnsafeBytes(of: UInt32(body.count)) { message += $0 }
        withUnsafeBytes(of: type) { message += $0 }
        message += body
        var sent = 0
        while sent < message.count {
            let n = message.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, message.count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw SwayError("sway's IPC could not be written to (\(errnoName(errno))): sway went away?") }
            sent += n
        }
    }

    /// The next message: its type and payload.
    func receive() throws(SwayError) -> (UInt32, [UInt8]) {
        let header = try read(Self.magic.count + 8)
        guard Array(header.prefix(Self.magic.count)) == Self.magic else { throw SwayError("sway's IPC sent something that is not i3's protocol") }
        let length = header.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: 6, as: UInt32.self)) }
        let type = header.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 10, as: UInt32.self) }
        guard length <= Self.maxPayload else { throw SwayError("sway's IPC sent a message of \(length) bytes, more than any answer of sway's") }
        return (type, try read(length))
    }

    private func read(_ count: Int) throws(SwayError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = out.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress! + got, count - got, 0) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { throw SwayError("sway did not answer in time") }
            guard n > 0 else { throw SwayError(n == 0 ? "sway closed its IPC connection: it went away" : "sway's IPC could not be read (\(errnoName(errno)))") }
            got += n
        }
        return out
    }
}

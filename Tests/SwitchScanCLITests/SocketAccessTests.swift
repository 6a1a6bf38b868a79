import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `run --socket PATH` streams what is highlighted and typed: only the user's own programs
/// may read it, and front ends that use up the process's file descriptors cannot make it spin.
@Suite("Socket access")
struct SocketAccessTests {
    /// Waits (at most 10 s) until something exists at `path`; its mode then, or nil.
    static func waitForSocket(_ path: String) -> mode_t? {
        for _ in 0..<2000 {
            var st = stat()
            if lstat(path, &st) == 0 { return st.st_mode }
            _ = poll(nil, 0, 5)
        }
        return nil
    }

    /// Reads from a connected front end until `enough` says it has what it waits for, the
    /// peer closes, or `timeout` seconds pass; what came.
    static func read(_ fd: Int32, timeout: Double, until enough: ([UInt8]) -> Bool) -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let deadline = Date().addingTimeInterval(timeout)
        while !enough(received) {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { break }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, Int32(left * 1000) + 1) == 1 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        return received
    }

    /// The socket's address at `path`.
    static func address(_ path: String) -> sockaddr_un {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        return addr
    }

    /// More front ends than the process can take: connecting until it has taken all it can
    /// and its backlog is full (connect then says EAGAIN), for at most 3 s. Their descriptors.
    static func flood(_ path: String) -> [Int32] {
        var addr = address(path)
        var flood: [Int32] = []
        let deadline = Date().addingTimeInterval(3)
        var refused = 0
        while flood.count < 150 && refused < 100 && Date() < deadline {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            let rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if rc == 0 { flood.append(fd); refused = 0 } else {
                close(fd)
                refused += 1
                _ = poll(nil, 0, 5)
            }
        }
        return flood
    }

    static let run = ["run", "--layout", "Layouts/mail-inbox.json", "--no-devices", "--output", "quiet",
                      "--rt-priority", "0", "--no-mlock"]

    /// Whatever the umask, the socket is made the user's alone (0600), and nothing else is
    /// left in its folder once the run ends.
    @Test func theSocketIsTheUsersAloneWhateverTheUmask() throws {
        try withTempDir { dir in
            let path = dir.url.appendingPathComponent("effects.sock").path
            var mode: mode_t?
            let r = try OutputFailureTests.run(Self.run + ["--socket", path, "--duration", "2"],
                                               stdout: .file("/dev/null"), stderr: .file(""), shellPrefix: "umask 000; ") {
                mode = Self.waitForSocket(path)
            }
            #expect(r.status == 0, "\(r)")
            let m = try #require(mode, "no socket at \(path)")
            #expect(m & S_IFMT == S_IFSOCK)
            #expect(m & 0o7777 == 0o600, "mode \(String(m & 0o7777, radix: 8))")
            #expect((try? FileManager.default.contentsOfDirectory(atPath: dir.url.path)) == [], "left behind")
        }
    }

    /// A front end run by another user is closed at once, before anything is sent, even
    /// where the socket's mode would let it in (here opened up to everyone); the user's own
    /// front end is served. As root, the other user is `nobody` (setpriv, util-linux).
    @Test func aFrontEndOfAnotherUserIsClosedAtOnce() throws {
        try #require(geteuid() == 0, "this test needs root, to run a front end as another user")
        let setpriv = try #require(["/usr/bin/setpriv", "/bin/setpriv"].first { (path: String) in access(path, X_OK) == 0 }, "setpriv (util-linux) is not installed")
        let python = try #require(["/usr/bin/python3", "/bin/python3"].first { (path: String) in access(path, X_OK) == 0 }, "python3 is not installed")
        try withTempDir { dir in
            // The folder must let `nobody` reach the socket.
            chmod(dir.url.path, 0o755)
            let path = dir.url.appendingPathComponent("effects.sock").path
            let settings = try dir.write("fast.json", #"{"autoScanInterval": 0.1, "loops": 100}"#)
            var own: [UInt8] = []
            var other = ""
            let r = try OutputFailureTests.run(Self.run + ["--socket", path, "--duration", "6", "--settings", settings],
                                               stdout: .file("/dev/null"), stderr: .file("")) {
                guard Self.waitForSocket(path) != nil else { return }
                chmod(path, 0o666)
                let fd = HostileInputTests.connectClient(path)
                guard fd >= 0 else { return }
                defer { close(fd) }
                // Connects, then reads for up to 3 s: "closed N" when the server closed it
                // after N bytes, "open N" when it was still open, "refused ERRNO".
                let script = """
                import socket, sys
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                try:
                    s.connect(sys.argv[1])
                except OSError as e:
                    print("refused", e.errno); sys.exit(0)
                s.settimeout(3)
                got = 0
                try:
                    while True:
                        d = s.recv(65536)
                        if not d:
                            print("closed", got); break
                        got += len(d)
                except socket.timeout:
                    print("open", got)
                """
                let p = Process()
                p.executableURL = URL(fileURLWithPath: setpriv)
                p.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", python, "-c", script, path]
                let out = Pipe()
                p.standardOutput = out
                p.standardError = out
                do { try p.run() } catch { other = "\(error)"; return }
                other = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                p.waitUntilExit()
                own = Self.read(fd, timeout: 5) { $0.contains(UInt8(ascii: "\n")) }
            }
            #expect(other.hasPrefix("closed 0"), "the other user's front end: \(other)")
            #expect(own.contains(UInt8(ascii: "\n")), "the user's own front end got \(own.count) bytes")
            #expect(r.stderr.contains("user 65534"), "\(r.stderr)")
        }
    }

    /// Front ends that use up the process's file descriptors (here 64) do not make it spin
    /// on accept(): it says so once and waits; once they go, a front end is served again.
    /// The wait is a timer, set when no descriptor is left: it works all the same (no
    /// --duration here, whose timer would be set before).
    @Test func frontEndsThatUseUpTheFileDescriptorsAreOutlived() throws {
        try withTempDir { dir in
            let path = dir.url.appendingPathComponent("effects.sock").path
            let settings = try dir.write("fast.json", #"{"autoScanInterval": 0.1, "loops": 100}"#)
            var flood: [Int32] = []
            var served: [UInt8] = []
            // The run ends with its input, after 10 s: long enough for the flood, the second
            // it is held and the front end after it, on a busy machine.
            let r = try OutputFailureTests.run(Self.run + ["--socket", path, "--settings", settings],
                                               stdout: .file("/dev/null"), stderr: .file(""),
                                               shellPrefix: "ulimit -n 64; sleep 10 | ") {
                guard Self.waitForSocket(path) != nil else { return }
                flood = Self.flood(path)
                var addr = Self.address(path)
                // While they are held, the scan goes on (a second of it).
                _ = Self.read(flood.last ?? -1, timeout: 1) { _ in false }
                for fd in flood { close(fd) }
                // Connected once there is room in the socket's queue, within 4 s.
                var fd: Int32 = -1
                let connectBy = Date().addingTimeInterval(4)
                while fd < 0 && Date() < connectBy {
                    let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
                    let rc = withUnsafePointer(to: &addr) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
                    }
                    if rc == 0 { fd = s } else { close(s); _ = poll(nil, 0, 20) }
                }
                guard fd >= 0 else { return }
                defer { close(fd) }
                served = Self.read(fd, timeout: 4) { $0.contains(UInt8(ascii: "\n")) }
            }
            #expect(flood.count > 20, "\(flood.count) front ends connected")
            #expect(r.status == 0, "\(r)")
            #expect(r.stderr.components(separatedBy: "file descriptor").count - 1 == 1, "said once: \(r.stderr)")
            #expect(served.contains(UInt8(ascii: "\n")), "a front end after them got \(served.count) bytes")
        }
    }

    /// Front ends that hold every descriptor to the end do not keep the run from ending at
    /// --duration (its timer is set though none is left).
    @Test func aRunEndsAtItsDurationWhileFrontEndsHoldEveryDescriptor() throws {
        try withTempDir { dir in
            let path = dir.url.appendingPathComponent("effects.sock").path
            let settings = try dir.write("fast.json", #"{"autoScanInterval": 0.1}"#)
            var flood: [Int32] = []
            defer { for fd in flood { close(fd) } }
            let r = try OutputFailureTests.run(Self.run + ["--socket", path, "--duration", "3", "--settings", settings],
                                               stdout: .file("/dev/null"), stderr: .file(""), shellPrefix: "ulimit -n 64; ") {
                guard Self.waitForSocket(path) != nil else { return }
                flood = Self.flood(path)
            }
            #expect(flood.count > 20, "\(flood.count) front ends connected")
            #expect(r.status == 0, "ended by its duration: \(r)")
            #expect(r.stderr.contains("file descriptor"), "it ran out of them: \(r.stderr)")
        }
    }
}

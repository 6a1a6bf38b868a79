import Foundation
import ScanCore
import ScanHost
import ScanRuntime
import Testing
import TestSupport

/// The real thread, briefly and tolerantly: these tests assert order and delivery, never
/// speed (speed is `switchscan-bench timing`'s job).
@Suite("Real-time queue (smoke)", .serialized)
struct RealTimeQueueTests {
    @Test func runsJobsInOrderAndTimersAfterTheirDeadline() {
        let q = RealTimeQueue(options: .init(priority: 0, lockMemory: false))
        defer { q.stop() }
        let log = Log()
        for k in 0..<5 { q.async { log.add("job\(k)") } }
        let start = MonotonicClock.now()
        let fired = DispatchSemaphore(value: 0)
        var firedAt = ScanInstant.zero
        q.schedule(at: start + .milliseconds(30)) { firedAt = MonotonicClock.now(); log.add("late"); fired.signal() }
        q.schedule(at: start + .milliseconds(10)) { log.add("early") }
        #expect(fired.wait(timeout: .now() + 5) == .success, "the timer must fire (generous timeout)")
        #expect(log.items == ["job0", "job1", "job2", "job3", "job4", "early", "late"])
        #expect(firedAt >= start + .milliseconds(30), "a timer never fires before its deadline")
    }

    @Test func cancelledTimersDoNotRun() {
        let q = RealTimeQueue(options: .init(priority: 0, lockMemory: false))
        defer { q.stop() }
        let log = Log()
        let token = q.schedule(at: MonotonicClock.now() + .milliseconds(5)) { log.add("cancelled") }
        q.cancel(token)
        let done = DispatchSemaphore(value: 0)
        q.schedule(at: MonotonicClock.now() + .milliseconds(20)) { done.signal() }
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(log.items.isEmpty)
    }

    @Test func readersRunOnTheQueueWhenTheirFdIsReadable() throws {
        let q = RealTimeQueue(options: .init(priority: 0, lockMemory: false))
        defer { q.stop() }
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        let got = DispatchSemaphore(value: 0)
        let log = Log()
        q.addReader(fds[0]) { fd in
            var b: UInt8 = 0
            while read(fd, &b, 1) == 1 { log.add(String(UnicodeScalar(b))) }
            #expect(q.isCurrent)
            if log.items.count == 3 { got.signal() }
        }
        var bytes: [UInt8] = Array("abc".utf8)
        _ = write(fds[1], &bytes, 3)
        #expect(got.wait(timeout: .now() + 5) == .success)
        #expect(log.items == ["a", "b", "c"])
    }

    @Test func timersWokenEarlySpinAndNeverRunBeforeTheirDeadline() {
        // The timerfd fires a margin early and the rest is spun: every timer must still run
        // at or after its own deadline, with margins both larger and smaller than the gaps.
        for margin in [ScanDuration(nanoseconds: 0), ScanDuration(nanoseconds: 50_000), .milliseconds(3)] {
            let q = RealTimeQueue(options: .init(priority: 0, lockMemory: false, wakeupLatency: nil, spinMargin: margin))
            defer { q.stop() }
            let lock = NSLock()
            var ranAt: [Int: ScanInstant] = [:]
            let done = DispatchSemaphore(value: 0)
            let start = MonotonicClock.now() + .milliseconds(2)
            let deadlines = (0..<12).map { start + ScanDuration(nanoseconds: Int64($0) * 1_500_000) }
            for (k, d) in deadlines.enumerated() {
                q.schedule(at: d) {
                    let now = MonotonicClock.now()
                    lock.lock(); ranAt[k] = now; let n = ranAt.count; lock.unlock()
                    if n == deadlines.count { done.signal() }
                }
            }
            #expect(done.wait(timeout: .now() + 5) == .success, "every timer must fire (generous timeout)")
            lock.lock(); defer { lock.unlock() }
            for (k, d) in deadlines.enumerated() {
                #expect(ranAt[k].map { $0 >= d } == true, "timer \(k) ran before its deadline with margin \(margin)")
            }
        }
    }

    @Test func priorityZeroAsksForNothingAndWarnsOfNothing() throws {
        // Priority 0 asks for no real-time scheduling: no warning, normal scheduling, and
        // the queue runs. (A refusal is tested end to end as an ordinary user: RunTests.)
        let q = RealTimeQueue(options: .init(priority: 0, lockMemory: false, wakeupLatency: nil))
        defer { q.stop() }
        #expect(q.status.warning == nil)
        #expect(!q.status.realTime)
        #expect(!q.status.wakeupRequestHeld)
        #expect(try q.sync { 41 + 1 } == 42)
    }

    @Test func syncAfterStopThrowsInsteadOfHanging() throws {
        let q = RealTimeQueue(options: .init(priority: 0, lockMemory: false, wakeupLatency: nil))
        #expect(try q.sync { 1 } == 1)
        q.stop()
        #expect(throws: ThreadStopped.self) { try q.sync { 2 } }
        q.stop()  // stopping twice is harmless
    }

    @Test func wakeupLatencyRequestIsHeldOrExplained() throws {
        // As root the kernel takes it; as a user without access it is refused, and the
        // queue says so in its warning and keeps working.
        let q = RealTimeQueue(options: .init(priority: 0, lockMemory: false, wakeupLatency: 0))
        defer { q.stop() }
        if q.status.wakeupRequestHeld {
            #expect(q.status.warning == nil)
        } else {
            #expect(q.status.warning?.contains("/dev/cpu_dma_latency") == true)
            #expect(q.status.warning?.contains("--allow-deep-idle") == true)
        }
        #expect(try q.sync { 6 * 7 } == 42)
        let r = WakeupLatencyRequest(microseconds: 0)
        #expect(r.held == (r.problem == nil))
        r.release()
        #expect(!r.held)
        r.release()  // releasing twice is harmless
    }
}

extension RealTimeQueueTests {
    /// The calling thread's stack: its lowest address and its size.
    static func currentStack() -> (low: UInt, size: Int) { currentThreadStack() }

    /// Pages of [start, start + length) that are resident now (mincore).
    static func residentPages(_ start: UnsafeMutableRawPointer, _ length: Int) -> Int {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let low = Int(bitPattern: start) & ~(page - 1)
        let count = (Int(bitPattern: start) + length - low + page - 1) / page
        var flags = [UInt8](repeating: 0, count: count)
        guard mincore(UnsafeMutableRawPointer(bitPattern: low), count * page, &flags) == 0 else { return -1 }
        return flags.filter { $0 & 1 != 0 }.count
    }

    /// The VmFlags of the mapping that holds `address` (/proc/self/smaps), e.g. "rd wr mr mw me ac lo".
    static func mappingFlags(_ address: UnsafeMutableRawPointer) -> [Substring] {
        // Read to its end: a /proc file has no size to go by.
        let fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let a = UInt(bitPattern: Int(bitPattern: address))
        var inside = false
        for line in text.split(separator: "\n") {
            if let dash = line.firstIndex(of: "-"), let space = line.firstIndex(of: " "), dash < space,
               let low = UInt(line[..<dash], radix: 16), let high = UInt(line[line.index(after: dash)..<space], radix: 16) {
                inside = low <= a && a < high
            } else if inside && line.hasPrefix("VmFlags:") {
                return line.dropFirst("VmFlags:".count).split(separator: " ")
            }
        }
        return []
    }

    /// Locked memory is locked as it is used (MCL_ONFAULT): memory mapped before the queue
    /// started, or while it runs, is not read in ahead (a run would otherwise hold every
    /// library and reservation resident: 124 MB instead of 27). The real-time thread's own
    /// stack is resident and locked from the start, so that it never waits for a page.
    /// Needs the right to lock memory (root, CAP_IPC_LOCK, or an unlimited memlock limit).
    @Test func memoryIsLockedAsItIsUsedAndTheRealTimeStackAhead() throws {
        let length = 16 << 20
        let none = UnsafeMutableRawPointer(bitPattern: -1)
        let before = try #require(mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0).flatMap { $0 == none ? nil : $0 })
        defer { munmap(before, length) }
        let q = RealTimeQueue(options: .init(priority: 0, lockMemory: true))
        defer { q.stop() }
        try #require(q.status.memoryLocked, "this test needs the right to lock memory (root, CAP_IPC_LOCK or an unlimited memlock limit): \(q.status.warning ?? "")")
        let after = try #require(mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0).flatMap { $0 == none ? nil : $0 })
        defer { munmap(after, length) }
        #expect(Self.residentPages(before, length) == 0, "a mapping made before the queue started was read in")
        #expect(Self.residentPages(after, length) == 0, "a mapping made while it runs was read in")
        // Used, a page is locked.
        after.storeBytes(of: 1, as: UInt8.self)
        #expect(Self.residentPages(after, length) == 1)
        #expect(Self.mappingFlags(after).contains("lo"))

        let stack = try q.sync { Self.currentStack() }
        let low = try #require(UnsafeMutableRawPointer(bitPattern: stack.low))
        let pages = stack.size / Int(sysconf(Int32(_SC_PAGESIZE)))
        #expect(pages > 0 && Self.residentPages(low, stack.size) == pages, "the real-time stack: \(Self.residentPages(low, stack.size)) of \(pages) pages resident")
        #expect(Self.mappingFlags(low + stack.size / 2).contains("lo"), "the real-time stack is locked")
    }
}

@Suite("Live scanner (smoke)", .serialized)
struct LiveScannerTests {
    @Test func scansInRealTimeAndSelectsByTimestamp() throws {
        var settings = ScanSettings()
        settings.autoScanInterval = .milliseconds(50)
        settings.loops = 100
        let q = RealTimeQueue(options: .init(priority: 0, lockMemory: false))
        defer { q.stop() }
        let log = Log()
        let entered = DispatchSemaphore(value: 0)
        let moved = DispatchSemaphore(value: 0)
        let scanner = LiveScanner(engine: ScanEngine(tree: try loadLayout("switch-control.uikit.json"), settings: settings), queue: q) { effects in
            for e in effects {
                switch e.effect {
                case .highlight(let item, _, _, _, _, _):
                    log.add(item)
                    if log.items.count == 2 { moved.signal() }
                case .enterGroup(let g): log.add("enter \(g)"); entered.signal()
                default: break
                }
            }
        }
        let start = MonotonicClock.now()
        scanner.start()
        // Once the scan has moved past the first item, a press stamped at 10 ms arrives late.
        #expect(moved.wait(timeout: .now() + 5) == .success)
        scanner.submit(SwitchEvent(.select, down: true, at: start + .milliseconds(10)))
        #expect(entered.wait(timeout: .now() + 5) == .success)
        #expect(log.items.first == "testWrap")
        #expect(log.items.contains("enter testWrap"), "the press at 10 ms selects the group highlighted then: \(log.items)")
    }
}

final class Log: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    func add(_ s: String) { lock.lock(); storage.append(s); lock.unlock() }
    var items: [String] { lock.lock(); defer { lock.unlock() }; return storage }
}

@Suite("Terminal keys")
struct KeyboardParseTests {
    @Test(arguments: [
        (" ", [KeyboardInput.Key.action(.select)]),
        ("\t", [.action(.next)]),
        ("\u{1B}[Z", [.action(.previous)]),
        ("m", [.action(.menu)]),
        ("\u{1B}", [.action(.exit)]),
        ("q", [.quit]),
        ("t p", [.action(.toggleMode), .action(.select), .action(.pause)]),
        ("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D", [.action(.previous), .action(.next), .action(.next), .action(.previous)]),
        ("x\r", [.action(.select)]),
    ])
    func keysMapToSwitchActions(_ text: String, _ keys: [KeyboardInput.Key]) {
        #expect(KeyboardInput.parse(Array(text.utf8)) == keys)
    }
}

@Suite("Socket presenter")
struct SocketPresenterTests {
    @Test func frontEndsReceiveJSONLinesAndAVanishedOneIsDropped() throws {
        let path = "/tmp/switchscan-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let queue = DispatchQueue(label: "test.present")
        let presenter = try SocketPresenter(path: path, queue: queue, origin: .seconds(10))
        defer { queue.sync { presenter.finish() } }
        let client = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #expect(client >= 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(rc == 0)
        // The accept runs on the presenter's queue: present only once the client is known.
        var accepted = false
        for _ in 0..<500 where !accepted {
            queue.sync { accepted = presenter.clientCount > 0 }
            if !accepted { _ = poll(nil, 0, 2) }
        }
        #expect(accepted)
        try queue.sync { try presenter.present([TimedEffect(.seconds(11.5), .scanStarted)]) }
        var buffer = [UInt8](repeating: 0, count: 256)
        var pfd = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
        #expect(poll(&pfd, 1, 5000) == 1)
        let n = read(client, &buffer, buffer.count)
        #expect(String(decoding: buffer[0..<max(0, n)], as: UTF8.self) == #"{"t":1.500,"effect":"scanStarted"}"# + "\n")
        close(client)
        // A client that went away is dropped without a SIGPIPE.
        try queue.sync { try presenter.present([TimedEffect(.seconds(12), .scanStarted)]) }
        try queue.sync { try presenter.present([TimedEffect(.seconds(12), .scanStarted)]) }
        queue.sync { #expect(presenter.clientCount == 0) }
    }

    static func connectClient(_ path: String) -> Int32 {
        let client = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return rc == 0 ? client : -1
    }

    static func waitForClients(_ presenter: SocketPresenter, on queue: DispatchQueue, count: Int) -> Bool {
        for _ in 0..<2500 {
            var n = 0
            queue.sync { n = presenter.clientCount }
            if n >= count { return true }
            _ = poll(nil, 0, 2)
        }
        return false
    }

    /// A front end that connects and never reads cannot hold up the engine: sends never
    /// block, and once it is a megabyte behind it is dropped with a message.
    @Test func aClientThatNeverReadsIsDroppedNotWaitedFor() throws {
        let path = "/tmp/switchscan-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let queue = DispatchQueue(label: "test.present")
        let warnings = Warnings()
        let presenter = try SocketPresenter(path: path, queue: queue, warn: { warnings.add($0) })
        defer { queue.sync { presenter.finish() } }
        let idle = Self.connectClient(path)
        let reader = Self.connectClient(path)
        defer { close(idle); close(reader) }
        #expect(idle >= 0 && reader >= 0)
        #expect(Self.waitForClients(presenter, on: queue, count: 2))
        // About 4 MB of effects, far past what the socket buffers and the presenter keeps.
        let batch = (0..<1000).map { TimedEffect(.seconds(Double($0)), .announce(String(repeating: "x", count: 100))) }
        var received = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        for _ in 0..<30 {
            try queue.sync { try presenter.present(batch) }
            // The reading client keeps up.
            while true {
                let n = recv(reader, &chunk, chunk.count, Int32(MSG_DONTWAIT))
                if n <= 0 { break }
                received += n
            }
        }
        queue.sync { #expect(presenter.clientCount == 1, "the idle client is dropped, the reader kept") }
        #expect(warnings.all.count == 1)
        #expect(warnings.all.first?.contains("fell more than 1024 KiB behind") == true)
        #expect(received > 1 << 20)
    }

    @Test func aPathThatIsNotASocketIsRefusedAndKept() throws {
        let path = "/tmp/switchscan-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).txt"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        #expect(write(fd, "keep me", 7) == 7)
        close(fd)
        defer { unlink(path) }
        let queue = DispatchQueue(label: "test.present")
        do {
            let p = try SocketPresenter(path: path, queue: queue)
            p.finish()
            Issue.record("a regular file was taken as the socket path")
        } catch {
            #expect("\(error)".contains("exists and is not a socket"))
        }
        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_size == 7, "the file is untouched")
    }

    @Test func aSocketLeftByAnEarlierRunIsReplacedOneInUseIsRefused() throws {
        let path = "/tmp/switchscan-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let queue = DispatchQueue(label: "test.present")
        let first = try SocketPresenter(path: path, queue: queue)
        do {
            _ = try SocketPresenter(path: path, queue: queue)
            Issue.record("a socket in use was taken over")
        } catch {
            #expect("\(error)".contains("in use"))
        }
        queue.sync { first.finish() }
        // A socket file whose listener is gone, as a crashed run leaves it.
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(rc == 0)
        close(stale)
        let second = try SocketPresenter(path: path, queue: queue)
        queue.sync { second.finish() }
    }
}

/// Warnings collected from another queue.
final class Warnings: @unchecked Sendable {
    private var list: [String] = []
    private let lock = NSLock()
    func add(_ s: String) { lock.lock(); list.append(s); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return list }
}

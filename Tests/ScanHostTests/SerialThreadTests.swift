import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import ScanCore
import ScanHost
import Testing
import TestSupport

/// The executor's tests wait on the executor itself (`sync`, or a one-shot it sets), each
/// wait bounded, so a broken executor fails a test instead of hanging the run.
@Suite struct SerialThreadTests {
    static let bound = ScanDuration.seconds(5)

    /// The system knows each thread by its name after "switchscan.", as Linux keeps it (15
    /// bytes): `top -H` and a debugger tell the threads apart.
    @Test func theSystemKnowsAThreadByItsName() throws {
        let thread = try SerialThread(name: "switchscan.a-long-thread-name")
        defer { _ = thread.stop() }
        // What `top -H` reads.
        let name = try thread.sync { () -> String in
            let fd = open("/proc/thread-self/comm", O_RDONLY)
            guard fd >= 0 else { return "" }
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 32)
            let n = read(fd, &buffer, buffer.count)
            return String(decoding: buffer.prefix(max(0, n)), as: UTF8.self)
        }
        #expect(name == "a-long-thread-n\n")
    }

    static func bodies() throws -> [(String, SerialThread.Body)] {
        [("condition", .waiter(ConditionWaiter())), ("poll", .waiter(try PollWaiter()))]
    }

    @Test(arguments: ["condition", "poll"])
    func jobsRunInOrderOnTheThread(_ kind: String) throws {
        let body = try Self.bodies().first { $0.0 == kind }!.1
        let thread = try SerialThread(name: "test.order", body: body)
        defer { thread.stop() }
        let seen = Locked<[Int]>([])
        let onThread = Locked(true)
        for i in 0..<100 {
            thread.async {
                if !thread.isCurrent { onThread.set(false) }
                seen.withLock { $0.append(i) }
            }
        }
        let done = OneShot<Void>()
        thread.async { done.set(()) }
        #expect(done.wait(until: MonotonicClock.now() + Self.bound) != nil)
        #expect(seen.get() == Array(0..<100))
        #expect(onThread.get())
        #expect(!thread.isCurrent)
    }

    @Test(arguments: ["condition", "poll"])
    func syncReturnsTheResult(_ kind: String) throws {
        let body = try Self.bodies().first { $0.0 == kind }!.1
        let thread = try SerialThread(name: "test.sync", body: body)
        defer { thread.stop() }
        #expect(try thread.sync { 6 * 7 } == 42)
        #expect(try thread.sync { thread.isCurrent })
    }

    @Test(arguments: ["condition", "poll"])
    func timersRunByDeadlineNotByOrderOfScheduling(_ kind: String) throws {
        let body = try Self.bodies().first { $0.0 == kind }!.1
        let thread = try SerialThread(name: "test.after", body: body)
        defer { thread.stop() }
        let seen = Locked<[String]>([])
        let done = OneShot<Void>()
        let start = MonotonicClock.now()
        thread.after(milliseconds: 20) { seen.withLock { $0.append("late") }; done.set(()) }
        thread.after(milliseconds: 5) { seen.withLock { $0.append("early") } }
        let cancelled = thread.after(milliseconds: 10) { seen.withLock { $0.append("cancelled") } }
        thread.cancel(cancelled)
        thread.async { seen.withLock { $0.append("job") } }
        #expect(done.wait(until: MonotonicClock.now() + Self.bound) != nil)
        #expect(seen.get() == ["job", "early", "late"])
        #expect(MonotonicClock.now() - start >= .milliseconds(20), "not before its deadline")
    }

    @Test(arguments: ["condition", "poll"])
    func syncAfterStopThrowsInsteadOfHanging(_ kind: String) throws {
        let body = try Self.bodies().first { $0.0 == kind }!.1
        let thread = try SerialThread(name: "test.stop", body: body)
        let ran = Locked(false)
        thread.async { ran.set(true) }
        #expect(thread.stop())
        #expect(ran.get(), "what was queued before stop runs")
        #expect(throws: ThreadStopped.self) { try thread.sync { 1 } }
        #expect(!thread.async {}, "dropped")
        #expect(!thread.stop(), "stopped once")
    }

    /// A foreign loop (GLib's) gets its own sources in between passes: a timer that falls
    /// due while a pass runs waits for the next pass.
    @Test func aForeignLoopRunsATimerThatFallsDueDuringAPassInTheNextOne() throws {
        let loop = PassCountingLoop()
        let thread = try SerialThread(name: "test.passes", body: .foreign(loop))
        defer { thread.stop() }
        let passes = Locked<[String: Int]>([:])
        let done = OneShot<Void>()
        thread.async {
            passes.withLock { $0["job"] = loop.passes.get() }
            thread.schedule(at: MonotonicClock.now()) {
                passes.withLock { $0["timer"] = loop.passes.get() }
                done.set(())
            }
        }
        #expect(done.wait(until: MonotonicClock.now() + Self.bound) != nil)
        let seen = passes.get()
        #expect((seen["timer"] ?? 0) > (seen["job"] ?? 0), "\(seen)")
    }

    @Test func stopFromTheThreadItselfEndsIt() throws {
        let thread = try SerialThread(name: "test.self")
        let ended = OneShot<Void>()
        thread.async {
            thread.stop()
            ended.set(())
        }
        #expect(ended.wait(until: MonotonicClock.now() + Self.bound) != nil)
        // The thread finishes the queue and ends; then work is refused.
        let deadline = MonotonicClock.now() + Self.bound
        while thread.async({}) && MonotonicClock.now() < deadline { sched_yield() }
        #expect(throws: ThreadStopped.self) { try thread.sync { 1 } }
    }

    @Test func theSetUpRunsOnTheThreadBeforeInitReturns() throws {
        let setUpThread = Locked<pthread_t?>(nil)
        let thread = try SerialThread(name: "test.setup") { setUpThread.set(pthread_self()) }
        defer { thread.stop() }
        let id = try #require(setUpThread.get())
        #expect(try thread.sync { pthread_equal(pthread_self(), id) != 0 })
    }

    @Test func pollWaiterRunsReadersOnTheThread() throws {
        let waiter = try PollWaiter()
        let thread = try SerialThread(name: "test.reader", body: .waiter(waiter))
        defer { thread.stop() }
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let got = OneShot<(UInt8, Bool)>()
        try thread.sync {
            waiter.addReader(fds[0]) { fd in
                var byte: UInt8 = 0
                _ = read(fd, &byte, 1)
                waiter.removeReader(fd)
                got.set((byte, thread.isCurrent))
            }
        }
        var byte: UInt8 = 7
        #expect(write(fds[1], &byte, 1) == 1)
        let result = try #require(got.wait(until: MonotonicClock.now() + Self.bound))
        #expect(result.0 == 7)
        #expect(result.1)
    }

    @Test func threadBoundValueIsReadOnItsThread() throws {
        let thread = try SerialThread(name: "test.bound")
        defer { thread.stop() }
        let box = ThreadBound(1, on: thread)
        #expect(try thread.sync { box.value += 1; return box.value } == 2)
    }

    @Test func confinementIsCheckedOffTheThread() async {
        await #expect(processExitsWith: .failure) {
            let thread = try SerialThread(name: "test.confined")
            let box = ThreadBound(1, on: thread)
            _ = box.value
        }
        await #expect(processExitsWith: .failure) {
            let thread = try SerialThread(name: "test.confined")
            thread.preconditionOnThread()
        }
    }
}

/// A foreign loop that counts its passes (each `runDue`), waiting between them, as GLib's
/// does, until the next timer or a wake.
final class PassCountingLoop: ForeignLoop, @unchecked Sendable {
    let passes = Locked(0)
    private let woken = DispatchSemaphore(value: 0)

    func run(_ thread: SerialThread) {
        while true {
            let due = thread.due()
            guard due.now else {
                let left = due.next.map { max(0, $0.nanoseconds - MonotonicClock.now().nanoseconds) }
                _ = woken.wait(timeout: left.map { .now() + .nanoseconds(Int($0)) } ?? .distantFuture)
                continue
            }
            passes.withLock { $0 += 1 }
            if !thread.runDue() { return }
        }
    }

    func wake() { woken.signal() }
}

extension SerialThreadTests {
    /// The calling thread's stack: its lowest address and its size.
    static func currentStack() -> (low: UInt, size: Int) { currentThreadStack() }

    /// The stack a thread of the program's own was given, and its name, as the thread sees them.
    /// The program's own threads reserve a small stack, not the process's stack limit
    /// (8 MiB), which a locked-memory limit counts whole. (glibc may hand a thread a stack
    /// it kept from an ended one, up to four times the size asked for.)
    @Test func threadsHaveASmallStack() throws {
        #expect(threadStackSize == 1 << 20)
        let thread = try SerialThread(name: "test.stack")
        defer { thread.stop() }
        let size = try thread.sync { Self.currentStack().size }
        #expect(size >= threadStackSize && size <= 4 * threadStackSize, "stack: \(size) bytes")
        let spawned = OneShot<Int>()
        pthread_join(try spawnThread(name: "test-stack") { spawned.set(Self.currentStack().size) }, nil)
        let other = try #require(spawned.wait(until: MonotonicClock.now() + Self.bound))
        #expect(other >= threadStackSize && other <= 4 * threadStackSize, "stack: \(other) bytes")
    }
}

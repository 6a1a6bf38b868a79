#if canImport(Glibc)
import Glibc
#endif
import CSys
import ScanCore

/// A thread could not be started, or what it needs could not be made.
public struct ThreadError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A `sync` after `stop`: the work was not run.
public struct ThreadStopped: Error, CustomStringConvertible {
    public init() {}
    public var description: String { "the thread has stopped" }
}

/// How a SerialThread sleeps while it has nothing to run.
public protocol ThreadWaiter: AnyObject, Sendable {
    /// On the thread, with no job queued: sleeps until `wake` or `deadline` (nil: none). It
    /// may run work of its own before it returns (the poll waiter's fd readers).
    func wait(until deadline: ScanInstant?, on thread: SerialThread)
    /// From any thread: ends the current or the next `wait` early.
    func wake()
}

/// A loop that is not the executor's own (GLib's main loop) but runs its jobs: on the
/// thread, `run` calls `thread.runDue()` whenever `thread.due()` says so, and returns once
/// `runDue` returns false.
public protocol ForeignLoop: AnyObject, Sendable {
    func run(_ thread: SerialThread)
    /// From any thread: makes `run` look at `thread.due()` again.
    func wake()
}

/// A serial executor on a thread of its own: jobs (`async`, `sync`) run in order, timers
/// (`schedule`, `after`) at absolute CLOCK_MONOTONIC deadlines, between them the thread
/// sleeps in its body: a condition variable by default, poll() on fds (PollWaiter), or a
/// foreign loop such as GLib's. Every thread of the runtime is one of these, so stopping,
/// `sync` after a stop and confinement work the same everywhere.
///
/// The thread holds the executor until it ends: an owner calls `stop`.
public final class SerialThread: @unchecked Sendable {
    public typealias Work = () -> Void

    public enum Body: Sendable {
        case waiter(any ThreadWaiter)
        case foreign(any ForeignLoop)
    }

    struct Timer {
        var deadline: ScanInstant
        var token: Int
        var work: Work
    }

    public let name: String
    private let body: Body
    private let lock = Lock()
    // Under `lock`.
    private var jobs: [Work] = []
    private var timers: [Timer] = []   // sorted by deadline, then token
    private var nextToken = 1
    private var stopping = false
    private var finished = false
    // Set by the thread itself before `init` returns; read-only afterwards.
    private var id = pthread_t()
    private var handle = pthread_t()

    /// Starts the thread with a stack of `stackSize` bytes; `setUp` runs on it first
    /// (scheduling, signal masks), and `init` returns once it has.
    public init(name: String, body: Body = .waiter(ConditionWaiter()), stackSize: Int = threadStackSize,
                setUp: @escaping () -> Void = {}) throws(ThreadError) {
        self.name = name
        self.body = body
        let started = OneShot<Void>()
        handle = try spawnThread(name: name, stackSize: stackSize) { [self] in
            id = pthread_self()
            setUp()
            started.set(())
            switch self.body {
            case .waiter(let waiter): loop(waiter)
            case .foreign(let foreign): foreign.run(self)
            }
        }
        started.wait()
    }

    /// Whether the caller runs on this thread.
    public var isCurrent: Bool { pthread_equal(pthread_self(), id) != 0 }

    /// Stops the program when called off this thread: asserted where a type confined to
    /// the thread is entered (one pthread_self and a compare).
    public func preconditionOnThread(file: StaticString = #fileID, line: UInt = #line) {
        precondition(isCurrent, "\(name): called off its thread", file: file, line: line)
    }

    /// Runs `work` on the thread after the work already queued. False (and `work` dropped)
    /// once the thread has ended.
    @discardableResult
    public func async(_ work: @escaping Work) -> Bool {
        lock.lock()
        if finished { lock.unlock(); return false }
        jobs.append(work)
        lock.unlock()
        if !isCurrent { wake() }
        return true
    }

    /// Runs `work` on the thread and waits for its result; throws, without running it, once
    /// the thread has stopped (never waits for ever). Not from the thread itself.
    public func sync<T>(_ work: @escaping () -> T) throws(ThreadStopped) -> T {
        precondition(!isCurrent, "\(name): sync on its own thread would deadlock")
        let done = OneShot<T>()
        // Once queued, a job runs: the thread ends only with an empty queue.
        guard async({ done.set(work()) }) else { throw ThreadStopped() }
        return done.wait()
    }

    /// Runs `work` at `deadline` (CLOCK_MONOTONIC); returns a token for `cancel` (0 when
    /// stopping: it never runs).
    @discardableResult
    public func schedule(at deadline: ScanInstant, _ work: @escaping Work) -> Int {
        lock.lock()
        if stopping || finished { lock.unlock(); return 0 }
        let token = nextToken
        nextToken += 1
        let i = timers.firstIndex { $0.deadline > deadline } ?? timers.count
        timers.insert(Timer(deadline: deadline, token: token, work: work), at: i)
        lock.unlock()
        // The thread computes its sleep before it sleeps; another thread must wake it.
        if i == 0 && !isCurrent { wake() }
        return token
    }

    /// Runs `work` once `milliseconds` have passed.
    @discardableResult
    public func after(milliseconds: UInt32, _ work: @escaping Work) -> Int {
        schedule(at: MonotonicClock.now() + .milliseconds(Int64(milliseconds)), work)
    }

    public func cancel(_ token: Int) {
        lock.lock()
        let i = timers.firstIndex { $0.token == token }
        // Released after the lock: its captures' deinits may call back in.
        let removed = i.map { timers.remove(at: $0) }
        lock.unlock()
        withExtendedLifetime(removed) {}
    }

    /// Runs the jobs queued (timers are dropped) and ends the thread; joins it unless called
    /// on it. Later `async`s are dropped and `sync`s throw. False when it was stopped before.
    @discardableResult
    public func stop() -> Bool {
        lock.lock()
        let first = !stopping
        stopping = true
        let dropped = timers
        timers.removeAll()
        lock.unlock()
        withExtendedLifetime(dropped) {}
        guard first else { return false }
        if isCurrent {
            pthread_detach(pthread_self())
        } else {
            wake()
            pthread_join(handle, nil)
        }
        return true
    }

    /// The first timer's deadline when no job is queued (for a waiter that spins to it).
    public func idleDeadline() -> ScanInstant? {
        lock.withLock { jobs.isEmpty ? timers.first?.deadline : nil }
    }

    private func wake() {
        switch body {
        case .waiter(let waiter): waiter.wake()
        case .foreign(let foreign): foreign.wake()
        }
    }

    // MARK: - on the thread

    private func loop(_ waiter: any ThreadWaiter) {
        while true {
            lock.lock()
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            if stopping && batch.isEmpty {
                finished = true
                lock.unlock()
                return
            }
            lock.unlock()
            for job in batch { job() }
            if !batch.isEmpty { continue }
            if runDueTimers() { continue }
            lock.lock()
            let earliest = timers.first?.deadline
            let pending = !jobs.isEmpty || stopping
            lock.unlock()
            if pending { continue }
            waiter.wait(until: earliest, on: self)
        }
    }

    /// Due timers, one at a time (a timer's work may schedule or cancel others); with
    /// `dueBy`, only those due by then.
    private func runDueTimers(dueBy: ScanInstant? = nil) -> Bool {
        var ran = false
        while true {
            lock.lock()
            guard let first = timers.first, first.deadline <= (dueBy ?? MonotonicClock.now()) else {
                lock.unlock()
                return ran
            }
            timers.removeFirst()
            lock.unlock()
            first.work()
            ran = true
        }
    }

    /// For a ForeignLoop: whether `runDue` has something to do now; otherwise when the next
    /// timer is due (nil: none).
    public func due() -> (now: Bool, next: ScanInstant?) {
        lock.withLock {
            if finished { return (false, nil) }
            if !jobs.isEmpty || stopping { return (true, nil) }
            guard let first = timers.first else { return (false, nil) }
            return (first.deadline <= MonotonicClock.now(), first.deadline)
        }
    }

    /// For a ForeignLoop, on the thread: runs the jobs queued and the timers due. False once
    /// the thread has stopped: the loop must then return.
    public func runDue() -> Bool {
        preconditionOnThread()
        let start = MonotonicClock.now()
        lock.lock()
        let batch = jobs
        jobs.removeAll(keepingCapacity: true)
        if stopping && batch.isEmpty {
            finished = true
            lock.unlock()
            return false
        }
        lock.unlock()
        for job in batch { job() }
        // Timers that fall due after the pass began wait for the loop's next pass, so that
        // the loop's own sources (events that came meanwhile) are not held back by them.
        _ = runDueTimers(dueBy: start)
        return true
    }
}

/// A value confined to one SerialThread: read and written only there, which is checked.
public final class ThreadBound<Value>: @unchecked Sendable {
    public let thread: SerialThread
    private var stored: Value

    public init(_ value: Value, on thread: SerialThread) {
        self.thread = thread
        stored = value
    }

    public var value: Value {
        get { thread.preconditionOnThread(); return stored }
        set { thread.preconditionOnThread(); stored = newValue }
    }
}

/// Sleeps on a condition variable: the body of a thread that only runs jobs and timers.
public final class ConditionWaiter: ThreadWaiter, @unchecked Sendable {
    private let lock = Lock()
    private let condition = Condition()
    private var woken = false

    public init() {}

    public func wait(until deadline: ScanInstant?, on thread: SerialThread) {
        lock.withLock {
            while !woken {
                if let deadline {
                    if !condition.wait(lock, until: deadline) { break }
                } else {
                    condition.wait(lock)
                }
            }
            woken = false
        }
    }

    public func wake() {
        lock.withLock {
            woken = true
            condition.signal()
        }
    }
}

final class ThreadStart {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}

/// The stack of the program's own threads unless one asks for another. Their work is
/// shallow: the deepest measured, the accessibility thread reading a window of 6 000
/// widgets in a debug build, used about 100 KiB. Left to glibc, each would reserve the
/// process's stack limit (8 MiB), which a locked-memory limit counts whole.
public let threadStackSize = 1 << 20

/// Starts a joinable pthread running `body` on a stack of `stackSize` bytes: the one
/// trampoline of the program. `name` ("switchscan.atspi") is the thread's in docs and
/// messages; the system's (`top -H`, a debugger) is the part after "switchscan.", cut to the
/// 15 bytes Linux keeps.
public func spawnThread(name: String, stackSize: Int = threadStackSize, _ body: @escaping () -> Void) throws(ThreadError) -> pthread_t {
    let short = name.hasPrefix("switchscan.") ? String(name.dropFirst("switchscan.".count)) : name
    var systemName = ""
    for c in short {
        guard systemName.utf8.count + String(c).utf8.count <= 15 else { break }
        systemName.append(c)
    }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    let sized = pthread_attr_setstacksize(&attributes, stackSize)
    guard sized == 0 else { throw ThreadError("could not give a thread a stack of \(stackSize) bytes: \(errnoName(sized))") }
    var tid = pthread_t()
    let box = Unmanaged.passRetained(ThreadStart {
        _ = csys_set_thread_name(systemName)
        body()
    }).toOpaque()
    let rc = pthread_create(&tid, &attributes, { raw in
        Unmanaged<ThreadStart>.fromOpaque(raw!).takeRetainedValue().body()
        return nil
    }, box)
    guard rc == 0 else {
        Unmanaged<ThreadStart>.fromOpaque(box).release()
        throw ThreadError("could not start a thread: \(errnoName(rc))")
    }
    return tid
}

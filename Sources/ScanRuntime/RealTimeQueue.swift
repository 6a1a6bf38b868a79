#if canImport(Glibc)
import Glibc
#endif
import CSys
import ScanCore

/// A serial queue on one dedicated thread that sleeps until absolute CLOCK_MONOTONIC
/// deadlines, with the shape of a DispatchQueue (`async`, `schedule(at:)`).
///
/// Why not Dispatch: on Linux its QoS is only a nice value, and its timers wake two threads
/// (measured: p99 lateness 0.3–7.7 ms under load, against 26–52 µs for a SCHED_FIFO thread;
/// shared/reference/swift-timing.md). This thread asks for SCHED_FIFO, 1 ns timer slack and
/// locked memory; where the system refuses, it says so once and keeps working.
public final class RealTimeQueue: @unchecked Sendable {
    public struct Options: Sendable {
        /// SCHED_FIFO priority (1–99); 0 keeps the normal scheduler.
        public var priority: Int32 = 20
        /// mlockall(MCL_CURRENT|MCL_FUTURE), so a page fault never delays a tick.
        public var lockMemory = true
        public init(priority: Int32 = 20, lockMemory: Bool = true) {
            self.priority = priority; self.lockMemory = lockMemory
        }
    }

    /// What the system granted; `warning` is set when something was refused.
    public struct Status: Sendable {
        public var realTime: Bool
        public var priority: Int32
        public var memoryLocked: Bool
        public var warning: String?
    }

    public typealias Work = () -> Void

    struct Timer {
        var deadline: ScanInstant
        var token: Int
        var work: Work
    }

    private var mutex = pthread_mutex_t()
    private var cond = pthread_cond_t()
    private var jobs: [Work] = []
    private var timers: [Timer] = []   // sorted by deadline, then token
    private var nextToken = 1
    private var stopping = false
    private var finished = false
    private var thread = pthread_t()
    private var threadID: pthread_t?
    public private(set) var status = Status(realTime: false, priority: 0, memoryLocked: false, warning: nil)

    public init(label: String = "switchscan.realtime", options: Options = Options()) {
        pthread_mutex_init(&mutex, nil)
        _ = csys_cond_init_monotonic(&cond)
        var memoryLocked = false
        var problems: [String] = []
        if options.lockMemory {
            let rc = csys_mlockall()
            memoryLocked = rc == 0
            if rc != 0 { problems.append("mlockall: \(errnoName(rc))") }
        }
        let started = Semaphore()
        let box = Unmanaged.passRetained(ThreadStart { [unowned self] in
            _ = csys_set_timerslack(1)
            var rt = false
            if options.priority > 0 {
                let rc = csys_set_self_sched(SCHED_FIFO, options.priority)
                rt = rc == 0
                if rc != 0 { problems.append("SCHED_FIFO priority \(options.priority): \(errnoName(rc))") }
            }
            var warning: String?
            if !problems.isEmpty {
                warning = "Real-time scheduling was refused (\(problems.joined(separator: "; "))); "
                    + "scanning goes on with normal scheduling, so highlights may be late under load. "
                    + "Hint: allow it with 'setcap cap_sys_nice,cap_ipc_lock+ep' on the binary, or "
                    + "'@input - rtprio 50' and '@input - memlock unlimited' in /etc/security/limits.conf."
            }
            self.status = Status(realTime: rt, priority: rt ? options.priority : 0, memoryLocked: memoryLocked, warning: warning)
            started.signal()
            self.loop()
        }).toOpaque()
        let rc = pthread_create(&thread, nil, { raw in
            Unmanaged<ThreadStart>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, box)
        precondition(rc == 0, "pthread_create failed: \(errnoName(rc))")
        threadID = thread
        started.wait()
    }

    deinit {
        stop()
        pthread_cond_destroy(&cond)
        pthread_mutex_destroy(&mutex)
    }

    /// Runs `work` on the queue's thread, after the work already queued.
    public func async(_ work: @escaping Work) {
        pthread_mutex_lock(&mutex)
        jobs.append(work)
        pthread_cond_signal(&cond)
        pthread_mutex_unlock(&mutex)
    }

    /// Runs `work` at `deadline` (CLOCK_MONOTONIC); returns a token for `cancel`.
    @discardableResult
    public func schedule(at deadline: ScanInstant, _ work: @escaping Work) -> Int {
        pthread_mutex_lock(&mutex)
        let token = nextToken
        nextToken += 1
        let t = Timer(deadline: deadline, token: token, work: work)
        let i = timers.firstIndex { $0.deadline > deadline } ?? timers.count
        timers.insert(t, at: i)
        if i == 0 { pthread_cond_signal(&cond) }
        pthread_mutex_unlock(&mutex)
        return token
    }

    public func cancel(_ token: Int) {
        pthread_mutex_lock(&mutex)
        timers.removeAll { $0.token == token }
        pthread_mutex_unlock(&mutex)
    }

    /// Runs `work` on the queue and waits for it (not from the queue itself).
    public func sync<T>(_ work: @escaping () -> T) -> T {
        precondition(!isCurrent, "RealTimeQueue.sync called on its own thread would deadlock")
        var result: T?
        let done = Semaphore()
        async { result = work(); done.signal() }
        done.wait()
        return result!
    }

    public var isCurrent: Bool {
        guard let id = threadID else { return false }
        return pthread_equal(pthread_self(), id) != 0
    }

    /// Finishes the queued jobs (timers are dropped) and ends the thread.
    public func stop() {
        pthread_mutex_lock(&mutex)
        if finished { pthread_mutex_unlock(&mutex); return }
        stopping = true
        timers.removeAll()
        pthread_cond_signal(&cond)
        pthread_mutex_unlock(&mutex)
        if !isCurrent { pthread_join(thread, nil) }
        pthread_mutex_lock(&mutex)
        finished = true
        pthread_mutex_unlock(&mutex)
        if status.memoryLocked { _ = csys_munlockall() }
    }

    private func loop() {
        pthread_mutex_lock(&mutex)
        while true {
            if !jobs.isEmpty {
                let batch = jobs
                jobs.removeAll(keepingCapacity: true)
                pthread_mutex_unlock(&mutex)
                for job in batch { job() }
                pthread_mutex_lock(&mutex)
                continue
            }
            if stopping { break }
            if let first = timers.first {
                if first.deadline <= MonotonicClock.now() {
                    timers.removeFirst()
                    pthread_mutex_unlock(&mutex)
                    first.work()
                    pthread_mutex_lock(&mutex)
                    continue
                }
                var ts = timespec(tv_sec: Int(first.deadline.nanoseconds / 1_000_000_000),
                                  tv_nsec: Int(first.deadline.nanoseconds % 1_000_000_000))
                // Absolute deadline: no drift, whatever time the loop itself took.
                _ = pthread_cond_timedwait(&cond, &mutex, &ts)
            } else {
                pthread_cond_wait(&cond, &mutex)
            }
        }
        pthread_mutex_unlock(&mutex)
    }
}

final class ThreadStart {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}

/// A counting semaphore on a mutex and condition (no Foundation, no Dispatch).
final class Semaphore: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var cond = pthread_cond_t()
    private var count = 0

    init() {
        pthread_mutex_init(&mutex, nil)
        _ = csys_cond_init_monotonic(&cond)
    }

    deinit {
        pthread_cond_destroy(&cond)
        pthread_mutex_destroy(&mutex)
    }

    func signal() {
        pthread_mutex_lock(&mutex)
        count += 1
        pthread_cond_signal(&cond)
        pthread_mutex_unlock(&mutex)
    }

    func wait() {
        pthread_mutex_lock(&mutex)
        while count == 0 { pthread_cond_wait(&cond, &mutex) }
        count -= 1
        pthread_mutex_unlock(&mutex)
    }
}

/// "EPERM (Operation not permitted)" for an errno value.
public func errnoName(_ code: Int32) -> String {
    let names: [Int32: String] = [EPERM: "EPERM", ENOENT: "ENOENT", EACCES: "EACCES", EBUSY: "EBUSY",
                                  ENOMEM: "ENOMEM", EINVAL: "EINVAL", EAGAIN: "EAGAIN", EINTR: "EINTR",
                                  ENODEV: "ENODEV", ENOTTY: "ENOTTY", EBADF: "EBADF", EIO: "EIO"]
    let text = strerror(code).map { String(cString: $0) } ?? "error \(code)"
    return "\(text) (\(names[code] ?? "errno \(code)"))"
}

#if canImport(Glibc)
import Glibc
#endif
import CSys
import ScanCore

/// A serial queue on one dedicated thread, with the shape of a DispatchQueue: `async`
/// jobs, timers at absolute CLOCK_MONOTONIC deadlines (`schedule(at:)`) and read sources on
/// file descriptors (`addReader`), all run by one poll() loop, so an input event and the
/// engine meet on one thread wake-up.
///
/// Why not Dispatch: on Linux its QoS is only a nice value, and its timers and read sources
/// wake two threads (measured: p99 lateness 0.3–7.7 ms under load, against 26–52 µs for a
/// SCHED_FIFO thread). This thread asks for SCHED_FIFO,
/// 1 ns timer slack and locked memory; where the system refuses, it says so once and keeps
/// working. Timers use a timerfd armed at the absolute deadline (less a short spin margin):
/// no drift, no poll slack.
public final class RealTimeQueue: @unchecked Sendable {
    public struct Options: Sendable {
        /// SCHED_FIFO priority (1–99); 0 keeps the normal scheduler.
        public var priority: Int32 = 20
        /// mlockall(MCL_CURRENT|MCL_FUTURE), so a page fault never delays a tick.
        public var lockMemory = true
        /// A PM QoS request held while the queue runs (/dev/cpu_dma_latency, in µs): idle
        /// CPUs stay in shallow idle states, so a press or a tick wakes the engine without a
        /// deep-idle exit (on a virtual machine, input-to-effect p50 fell from about 140 to
        /// 40 µs with it).
        /// It costs power on idle CPUs; nil (the default here; `switchscan run` asks for 0)
        /// leaves the platform's default.
        public var wakeupLatency: Int32?
        /// The thread's timer fires this much before a deadline, and the rest is waited on
        /// the CPU: a kernel wake-up takes tens of µs (more in a VM), a spin does not. With
        /// 50 µs the engine's median lateness on a virtual machine fell from 44–92 to 2–40 µs,
        /// at up to 50 µs of CPU per tick. Zero (off) by default here, as it costs CPU;
        /// `switchscan run` asks for 50 µs. At most 1 ms is used.
        public var spinMargin = ScanDuration.zero
        public init(priority: Int32 = 20, lockMemory: Bool = true, wakeupLatency: Int32? = nil,
                    spinMargin: ScanDuration = .zero) {
            self.priority = priority; self.lockMemory = lockMemory; self.wakeupLatency = wakeupLatency
            self.spinMargin = spinMargin
        }
    }

    /// What the system granted; `warning` is set when something was refused.
    public struct Status: Sendable {
        public var realTime: Bool
        public var priority: Int32
        public var memoryLocked: Bool
        /// Whether the wake-up latency request (Options.wakeupLatency) was taken at start.
        public var wakeupRequestHeld = false
        public var warning: String?
    }

    public typealias Work = () -> Void

    struct Timer {
        var deadline: ScanInstant
        var token: Int
        var work: Work
    }

    private var mutex = pthread_mutex_t()
    private var jobs: [Work] = []
    private var timers: [Timer] = []   // sorted by deadline, then token
    private var nextToken = 1
    private var stopping = false
    private var finished = false
    private var thread = pthread_t()
    private var threadID: pthread_t?
    private let wakeFD: Int32
    private let wakeupRequest: WakeupLatencyRequest?
    private let spinMargin: ScanDuration
    private let timerFD: Int32
    private var armed: ScanInstant?
    // Touched only on the queue's thread.
    private var readers: [(fd: Int32, handler: (Int32) -> Void)] = []
    public private(set) var status = Status(realTime: false, priority: 0, memoryLocked: false, warning: nil)

    public init(label: String = "switchscan.realtime", options: Options = Options()) {
        pthread_mutex_init(&mutex, nil)
        let w = csys_eventfd(1)
        let t = csys_timerfd()
        precondition(w >= 0 && t >= 0, "eventfd/timerfd failed: \(errnoName(-min(w, t)))")
        wakeFD = w
        timerFD = t
        var memoryLocked = false
        var problems: [String] = []
        if options.lockMemory {
            let rc = csys_mlockall()
            memoryLocked = rc == 0
            if rc != 0 { problems.append("mlockall: \(errnoName(rc))") }
        }
        spinMargin = ScanDuration(nanoseconds: min(max(0, options.spinMargin.nanoseconds), 1_000_000))
        let request = options.wakeupLatency.map { WakeupLatencyRequest(microseconds: $0) }
        wakeupRequest = request
        let held = request?.held ?? false
        let wakeupProblem = request?.problem
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
            if let wakeupProblem {
                warning = (warning.map { $0 + " " } ?? "")
                    + "The low-latency wake-up request was refused (\(wakeupProblem)); idle CPUs may take longer "
                    + "to wake for a press. Hint: a udev rule such as KERNEL==\"cpu_dma_latency\", GROUP=\"input\", "
                    + "MODE=\"0660\" allows it; --allow-deep-idle stops asking."
            }
            self.status = Status(realTime: rt, priority: rt ? options.priority : 0, memoryLocked: memoryLocked,
                                 wakeupRequestHeld: held, warning: warning)
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
        close(wakeFD)
        close(timerFD)
        pthread_mutex_destroy(&mutex)
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    /// Runs `work` on the queue's thread, after the work already queued.
    public func async(_ work: @escaping Work) {
        pthread_mutex_lock(&mutex)
        jobs.append(work)
        pthread_mutex_unlock(&mutex)
        if !isCurrent { wake() }
    }

    /// Runs `work` at `deadline` (CLOCK_MONOTONIC); returns a token for `cancel`.
    @discardableResult
    public func schedule(at deadline: ScanInstant, _ work: @escaping Work) -> Int {
        pthread_mutex_lock(&mutex)
        let token = nextToken
        nextToken += 1
        let i = timers.firstIndex { $0.deadline > deadline } ?? timers.count
        timers.insert(Timer(deadline: deadline, token: token, work: work), at: i)
        pthread_mutex_unlock(&mutex)
        // The loop re-arms its timerfd before it sleeps; another thread must wake it.
        if i == 0 && !isCurrent { wake() }
        return token
    }

    public func cancel(_ token: Int) {
        pthread_mutex_lock(&mutex)
        timers.removeAll { $0.token == token }
        pthread_mutex_unlock(&mutex)
    }

    /// Calls `handler(fd)` on the queue whenever `fd` is readable (it must read what is
    /// there). The fd stays the caller's to close, after `removeReader`.
    public func addReader(_ fd: Int32, _ handler: @escaping (Int32) -> Void) {
        if isCurrent { readers.append((fd, handler)) } else { async { [self] in readers.append((fd, handler)) } }
    }

    /// Stops polling `fd`; on the queue's own thread, at once (so the fd may be closed next).
    public func removeReader(_ fd: Int32) {
        if isCurrent { readers.removeAll { $0.fd == fd } } else { async { [self] in readers.removeAll { $0.fd == fd } } }
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
        if finished || stopping { pthread_mutex_unlock(&mutex); return }
        stopping = true
        timers.removeAll()
        pthread_mutex_unlock(&mutex)
        wake()
        if !isCurrent { pthread_join(thread, nil) }
        pthread_mutex_lock(&mutex)
        finished = true
        pthread_mutex_unlock(&mutex)
        if status.memoryLocked { _ = csys_munlockall() }
        wakeupRequest?.release()
    }

    private func loop() {
        var fds: [pollfd] = []
        var drain: UInt64 = 0
        while true {
            pthread_mutex_lock(&mutex)
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            let quit = stopping && batch.isEmpty
            pthread_mutex_unlock(&mutex)
            if quit { break }
            for job in batch { job() }
            if !batch.isEmpty { continue }
            // Due timers, one at a time (a timer's work may schedule or cancel others).
            var ranTimer = false
            while true {
                pthread_mutex_lock(&mutex)
                guard let first = timers.first, first.deadline <= MonotonicClock.now() else {
                    pthread_mutex_unlock(&mutex)
                    break
                }
                timers.removeFirst()
                pthread_mutex_unlock(&mutex)
                first.work()
                ranTimer = true
            }
            if ranTimer { continue }
            pthread_mutex_lock(&mutex)
            let earliest = timers.first?.deadline
            let pending = !jobs.isEmpty
            pthread_mutex_unlock(&mutex)
            if pending { continue }
            if earliest != armed {
                armed = earliest
                _ = csys_timerfd_set_abs(timerFD, earliest.map { max(1, $0.nanoseconds - spinMargin.nanoseconds) } ?? 0)
            }
            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0))
            fds.append(pollfd(fd: timerFD, events: Int16(POLLIN), revents: 0))
            for r in readers { fds.append(pollfd(fd: r.fd, events: Int16(POLLIN), revents: 0)) }
            let rc = poll(&fds, nfds_t(fds.count), -1)
            if rc < 0 { continue }  // EINTR
            if fds[0].revents != 0 { _ = read(wakeFD, &drain, 8) }
            if fds[1].revents != 0 {
                _ = read(timerFD, &drain, 8)
                armed = nil
                // The timer fires a margin early. If nothing else woke the thread (no job, no
                // input: both were just polled), wait out the rest on the CPU. One spin per
                // poll, at most the margin long, so jobs and readers wait no longer than that.
                if spinMargin.nanoseconds > 0 && !fds.contains(where: { $0.fd != timerFD && $0.revents != 0 }) {
                    pthread_mutex_lock(&mutex)
                    let due = jobs.isEmpty ? timers.first?.deadline : nil
                    pthread_mutex_unlock(&mutex)
                    if let due, due - MonotonicClock.now() <= spinMargin {
                        while MonotonicClock.now() < due {}
                    }
                }
            }
            let current = readers
            for (k, r) in current.enumerated() where fds[k + 2].revents != 0 {
                // A handler may have removed (and closed) another reader this round.
                guard readers.contains(where: { $0.fd == r.fd }) else { continue }
                r.handler(r.fd)
            }
        }
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

/// "Operation not permitted (EPERM)" for an errno value.
public func errnoName(_ code: Int32) -> String { String(cString: csys_errno_description(code)) }

/// Starts a joinable pthread running `body` (for benchmarks and reader threads).
public func spawnThread(_ body: @escaping () -> Void) -> pthread_t {
    var tid = pthread_t()
    let box = Unmanaged.passRetained(ThreadStart(body)).toOpaque()
    let rc = pthread_create(&tid, nil, { raw in
        Unmanaged<ThreadStart>.fromOpaque(raw!).takeRetainedValue().body()
        return nil
    }, box)
    precondition(rc == 0, "pthread_create failed: \(errnoName(rc))")
    return tid
}

/// Sleeps the calling thread until an absolute CLOCK_MONOTONIC instant.
public func sleepUntil(_ t: ScanInstant) {
    var ts = timespec(tv_sec: Int(t.nanoseconds / 1_000_000_000), tv_nsec: Int(t.nanoseconds % 1_000_000_000))
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
}

/// Gives the calling thread the real-time setup of RealTimeQueue's thread; returns whether
/// SCHED_FIFO was granted.
@discardableResult
public func makeCurrentThreadRealTime(priority: Int32) -> Bool {
    _ = csys_set_timerslack(1)
    return priority > 0 && csys_set_self_sched(SCHED_FIFO, priority) == 0
}

/// CPU time of the calling thread.
public func threadCPUTime() -> ScanDuration { ScanDuration(nanoseconds: csys_cputime_ns(0)) }

/// A PM QoS CPU latency request (/dev/cpu_dma_latency), held until released: idle CPUs then
/// stay in idle states that wake within `microseconds`, so a timer or an input event wakes
/// the engine promptly (cyclictest and tuned's latency-performance profile do the same). The
/// kernel withdraws it when the file is closed, including when the process dies.
public final class WakeupLatencyRequest: @unchecked Sendable {
    /// Why it was refused (e.g. "/dev/cpu_dma_latency: EACCES"); nil when it was taken.
    public let problem: String?
    private var fd: Int32
    private let lock = NSLockLike()

    public init(microseconds: Int32) {
        var value = max(microseconds, 0)
        let f = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC)
        let written = f >= 0 ? write(f, &value, 4) : -1
        if written == 4 {
            fd = f; problem = nil
        } else {
            let err = f < 0 || written < 0 ? errno : EIO
            problem = "/dev/cpu_dma_latency: \(errnoName(err))"
            if f >= 0 { close(f) }
            fd = -1
        }
    }

    /// Whether the request is in force (taken, and not yet released).
    public var held: Bool { lock.locked { fd >= 0 } }

    public func release() {
        lock.locked {
            if fd >= 0 { close(fd); fd = -1 }
        }
    }

    deinit { release() }
}

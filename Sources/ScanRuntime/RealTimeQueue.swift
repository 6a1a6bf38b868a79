#if canImport(Glibc)
import Glibc
#endif
import CSys
import ScanCore
import ScanHost

/// A serial queue on one dedicated thread, with the shape of a DispatchQueue: `async`
/// jobs, timers at absolute CLOCK_MONOTONIC deadlines (`schedule(at:)`) and read sources on
/// file descriptors (`addReader`), all run by one poll() loop, so an input event and the
/// engine meet on one thread wake-up.
///
/// Why not Dispatch: on Linux its QoS is only a nice value, and its timers and read sources
/// wake two threads, so under load a tick is late by milliseconds where a SCHED_FIFO thread
/// is late by microseconds (docs/PERFORMANCE.md, "Tick lateness"). This thread (a
/// SerialThread sleeping in a PollWaiter) asks for SCHED_FIFO, 1 ns timer slack and locked
/// memory (its own stack read in ahead, the rest locked as it is used); where the system
/// refuses, it says so once and keeps working. Timers use a
/// timerfd armed at the absolute deadline (less a short spin margin): no drift, no poll
/// slack.
public final class RealTimeQueue: @unchecked Sendable {
    public struct Options: Sendable {
        /// SCHED_FIFO priority (1–99); 0 keeps the normal scheduler.
        public var priority: Int32 = 20
        /// Pages stay in memory once used (mlockall with MCL_ONFAULT), and the thread's own
        /// stack is read in and locked from the start, so a page fault never delays a tick.
        /// Locking ahead instead would read in every library and reservation the process
        /// maps (a run held 124 MB resident instead of 27), most of it never used.
        public var lockMemory = true
        /// A PM QoS request held while the queue runs (/dev/cpu_dma_latency, in µs): idle
        /// CPUs stay in shallow idle states, so a press or a tick wakes the engine without a
        /// deep-idle exit (docs/PERFORMANCE.md, "Input to effect"). It costs power on idle
        /// CPUs; nil (the default here; `switchscan run` asks for 0) leaves the platform's
        /// default.
        public var wakeupLatency: Int32?
        /// The thread's timer fires this much before a deadline, and the rest is waited on
        /// the CPU: a kernel wake-up is slow after a long sleep, a spin is not
        /// (docs/PERFORMANCE.md, "Tick lateness"). It costs up to the margin in CPU per
        /// tick, so it is zero (off) by default here; `switchscan run` asks for 50 µs. At
        /// most 1 ms is used.
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

    private let thread: SerialThread
    private let waiter: PollWaiter
    private let wakeupRequest: WakeupLatencyRequest?
    private let lockedMemory: Bool
    public private(set) var status = Status(realTime: false, priority: 0, memoryLocked: false, warning: nil)

    /// The thread's stack, all of it locked in memory: the engine's deepest recursion (a
    /// layout nested 200 levels deep) used 750 KiB of it in a debug build, 40 KiB in a
    /// release build.
    public static let stackSize = 2 << 20

    public init(label: String = "switchscan.realtime", options: Options = Options()) {
        var memoryLocked = false
        var problems: [String] = []
        lockedMemory = options.lockMemory
        if options.lockMemory {
            let rc = csys_mlockall_onfault()
            memoryLocked = rc == 0
            if rc == EINVAL {
                problems.append("mlockall: \(errnoName(rc)): locking memory as it is used needs Linux 4.4")
            } else if rc != 0 {
                problems.append("mlockall: \(errnoName(rc))")
            }
        }
        let request = options.wakeupLatency.map { WakeupLatencyRequest(microseconds: $0) }
        wakeupRequest = request
        let held = request?.held ?? false
        let wakeupProblem = request?.problem
        do {
            waiter = try PollWaiter(spinMargin: options.spinMargin)
        } catch {
            preconditionFailure("RealTimeQueue: \(error)")
        }
        // Set on the thread before SerialThread's init returns.
        let granted = Locked(Status(realTime: false, priority: 0, memoryLocked: false, warning: nil))
        do {
            thread = try SerialThread(name: label, body: .waiter(waiter), stackSize: Self.stackSize) {
                _ = csys_set_timerslack(1)
                // Even where mlockall is refused, the stack alone may fit the limit.
                if options.lockMemory {
                    let rc = csys_lock_own_stack(nil)
                    if rc != 0 { problems.append("locking the thread's stack: \(errnoName(rc))") }
                }
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
                granted.set(Status(realTime: rt, priority: rt ? options.priority : 0, memoryLocked: memoryLocked,
                                   wakeupRequestHeld: held, warning: warning))
            }
        } catch {
            // Without its thread there is no scanning at all.
            preconditionFailure("RealTimeQueue: \(error)")
        }
        status = granted.get()
    }

    deinit { stop() }

    /// Runs `work` on the queue's thread, after the work already queued.
    public func async(_ work: @escaping Work) {
        thread.async(work)
    }

    /// Runs `work` at `deadline` (CLOCK_MONOTONIC); returns a token for `cancel`.
    @discardableResult
    public func schedule(at deadline: ScanInstant, _ work: @escaping Work) -> Int {
        thread.schedule(at: deadline, work)
    }

    public func cancel(_ token: Int) { thread.cancel(token) }

    /// Calls `handler(fd)` on the queue whenever `fd` is readable (it must read what is
    /// there). The fd stays the caller's to close, after `removeReader`.
    public func addReader(_ fd: Int32, _ handler: @escaping (Int32) -> Void) {
        if isCurrent { waiter.addReader(fd, handler) } else { async { [waiter] in waiter.addReader(fd, handler) } }
    }

    /// Stops polling `fd`; on the queue's own thread, at once (so the fd may be closed next).
    public func removeReader(_ fd: Int32) {
        if isCurrent { waiter.removeReader(fd) } else { async { [waiter] in waiter.removeReader(fd) } }
    }

    /// Runs `work` on the queue and waits for it (not from the queue itself); throws once
    /// the queue has stopped.
    public func sync<T>(_ work: @escaping () -> T) throws(ThreadStopped) -> T {
        try thread.sync(work)
    }

    public var isCurrent: Bool { thread.isCurrent }

    /// Stops the program when called off the queue's thread (for what the queue confines).
    public func preconditionOnQueue(file: StaticString = #fileID, line: UInt = #line) {
        thread.preconditionOnThread(file: file, line: line)
    }

    /// Finishes the queued jobs (timers are dropped) and ends the thread.
    public func stop() {
        guard thread.stop() else { return }
        if lockedMemory { _ = csys_munlockall() }
        wakeupRequest?.release()
    }
}

/// Gives the calling thread the real-time setup of RealTimeQueue's thread; returns whether
/// SCHED_FIFO was granted.
@discardableResult
public func makeCurrentThreadRealTime(priority: Int32) -> Bool {
    _ = csys_set_timerslack(1)
    return priority > 0 && csys_set_self_sched(SCHED_FIFO, priority) == 0
}

/// A PM QoS CPU latency request (/dev/cpu_dma_latency), held until released: idle CPUs then
/// stay in idle states that wake within `microseconds`, so a timer or an input event wakes
/// the engine promptly (cyclictest and tuned's latency-performance profile do the same). The
/// kernel withdraws it when the file is closed, including when the process dies.
public final class WakeupLatencyRequest: @unchecked Sendable {
    /// Why it was refused (e.g. "/dev/cpu_dma_latency: EACCES"); nil when it was taken.
    public let problem: String?
    private var fd: Int32
    private let lock = Lock()

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
    public var held: Bool { lock.withLock { fd >= 0 } }

    public func release() {
        lock.withLock {
            if fd >= 0 { close(fd); fd = -1 }
        }
    }

    deinit { release() }
}

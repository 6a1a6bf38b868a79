#if canImport(Glibc)
import Glibc
#endif
import CSys
import ScanCore

/// Sleeps in poll() on an eventfd (wake-ups), a timerfd armed at the next deadline, and
/// read sources on fds whose handlers run on the thread: input and timers meet on one
/// wake-up. With a spin margin, the timer fires that much early and the rest is waited on
/// the CPU (a kernel wake-up takes tens of µs, a spin does not).
public final class PollWaiter: ThreadWaiter, @unchecked Sendable {
    private let wakeFD: Int32
    private let timerFD: Int32
    private let spinMargin: ScanDuration
    // The thread's own.
    private var armed: ScanInstant?
    private var readers: [(fd: Int32, handler: (Int32) -> Void)] = []
    private var fds: [pollfd] = []

    /// `spinMargin` is capped at 1 ms.
    public init(spinMargin: ScanDuration = .zero) throws(ThreadError) {
        let w = csys_eventfd(1)
        guard w >= 0 else { throw ThreadError("cannot create an eventfd: \(errnoName(-w))") }
        let t = csys_timerfd()
        guard t >= 0 else {
            close(w)
            throw ThreadError("cannot create a timerfd: \(errnoName(-t))")
        }
        wakeFD = w
        timerFD = t
        self.spinMargin = ScanDuration(nanoseconds: min(max(0, spinMargin.nanoseconds), 1_000_000))
    }

    deinit {
        close(wakeFD)
        close(timerFD)
    }

    /// Calls `handler(fd)` on the thread whenever `fd` is readable (it must read what is
    /// there). On the thread only; the fd stays the caller's to close, after `removeReader`.
    public func addReader(_ fd: Int32, _ handler: @escaping (Int32) -> Void) {
        readers.append((fd, handler))
    }

    /// Stops polling `fd` at once (so it may be closed next). On the thread only.
    public func removeReader(_ fd: Int32) {
        readers.removeAll { $0.fd == fd }
    }

    public func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    public func wait(until deadline: ScanInstant?, on thread: SerialThread) {
        if deadline != armed {
            armed = deadline
            _ = csys_timerfd_set_abs(timerFD, deadline.map { max(1, $0.nanoseconds - spinMargin.nanoseconds) } ?? 0)
        }
        fds.removeAll(keepingCapacity: true)
        fds.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0))
        fds.append(pollfd(fd: timerFD, events: Int16(POLLIN), revents: 0))
        for r in readers { fds.append(pollfd(fd: r.fd, events: Int16(POLLIN), revents: 0)) }
        let rc = poll(&fds, nfds_t(fds.count), -1)
        if rc < 0 { return }  // EINTR
        var drain: UInt64 = 0
        if fds[0].revents != 0 { _ = read(wakeFD, &drain, 8) }
        if fds[1].revents != 0 {
            _ = read(timerFD, &drain, 8)
            armed = nil
            // If nothing else woke the thread (no job, no input: both were just polled), wait
            // out the rest on the CPU. One spin per poll, at most the margin long, so jobs and
            // readers wait no longer than that.
            if spinMargin.nanoseconds > 0 && !fds.contains(where: { $0.fd != timerFD && $0.revents != 0 }) {
                if let due = thread.idleDeadline(), due - MonotonicClock.now() <= spinMargin {
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

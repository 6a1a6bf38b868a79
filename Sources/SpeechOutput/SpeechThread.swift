#if canImport(Glibc)
import Glibc
#endif
import ScanCore
import ScanRuntime

/// The presenter's own thread, where every libspeechd call runs: opening may take a quarter
/// of a second (longer when the server is started), and a stuck server blocks a call
/// forever, so neither may happen on the caller's queue. SIGPIPE is blocked here: libspeechd
/// writes with write(2), and a server that went away would otherwise end the process (the
/// signal stays pending on this thread and dies with it).
final class SpeechThread: @unchecked Sendable {
    enum Job {
        case open
        case say(Utterance)
        case close
    }

    private let lock = SpeechLock()
    private let wake = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var jobs: [Job] = []
    private var exited = false
    private var stopped = false
    private let perform: (Job) -> Bool

    /// `perform` runs each job on the thread; when it returns false (no speech-dispatcher,
    /// or it went away) the thread drops everything and ends.
    init(perform: @escaping (Job) -> Bool) {
        self.perform = perform
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(wake, &attributes)
        pthread_condattr_destroy(&attributes)
        let thread = spawnThread { [self] in run() }
        pthread_detach(thread)
    }

    deinit {
        pthread_cond_destroy(wake)
        wake.deallocate()
    }

    /// Whether jobs are still taken (false once speech-dispatcher failed or after close).
    var isRunning: Bool { lock.locked { !stopped } }

    /// Queues a job. A highlight replaces highlights not yet sent: speech-dispatcher would
    /// cancel them anyway, and a slow server must not make the queue grow.
    func submit(_ job: Job) {
        lock.locked {
            guard !stopped else { return }
            if case .say(let u) = job, u.isHighlight {
                jobs.removeAll { if case .say(let old) = $0 { return old.isHighlight } else { return false } }
            }
            if case .close = job { stopped = true }
            jobs.append(job)
            pthread_cond_broadcast(wake)
        }
    }

    /// Closes after the queued jobs; waits for that at most `timeout` (a hung server must not
    /// hang the caller). Returns whether the thread ended in time.
    @discardableResult
    func close(timeout: ScanDuration) -> Bool {
        submit(.close)
        let deadline = MonotonicClock.now() + timeout
        var ts = timespec(tv_sec: Int(deadline.nanoseconds / 1_000_000_000), tv_nsec: Int(deadline.nanoseconds % 1_000_000_000))
        return lock.locked {
            while !exited {
                if pthread_cond_timedwait(wake, lock.pointer, &ts) == ETIMEDOUT { return exited }
            }
            return true
        }
    }

    private func run() {
        var pipe = sigset_t()
        sigemptyset(&pipe)
        sigaddset(&pipe, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipe, nil)
        while true {
            let job: Job = lock.locked {
                while jobs.isEmpty { pthread_cond_wait(wake, lock.pointer) }
                return jobs.removeFirst()
            }
            let goOn = perform(job)
            var closing = false
            if case .close = job { closing = true }
            if closing || !goOn {
                lock.locked {
                    stopped = true
                    jobs.removeAll()
                    exited = true
                    pthread_cond_broadcast(wake)
                }
                return
            }
        }
    }
}

/// A pthread mutex around a closure (Foundation's NSLock without Foundation). Allocated,
/// so that the mutex never moves.
final class SpeechLock: @unchecked Sendable {
    let pointer = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    init() { pthread_mutex_init(pointer, nil) }
    deinit { pthread_mutex_destroy(pointer); pointer.deallocate() }
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(pointer)
        defer { pthread_mutex_unlock(pointer) }
        return try body()
    }
}

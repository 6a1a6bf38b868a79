#if canImport(Glibc)
import Glibc
#endif
import ScanCore
import ScanHost

/// The presenter's own thread, where every libspeechd call runs: opening may take a quarter
/// of a second (longer when the server is started), and a stuck server blocks a call
/// forever, so neither may happen on the caller's queue. SIGPIPE is blocked here: libspeechd
/// writes with write(2), and a server that went away would otherwise end the process (the
/// signal stays pending on this thread and dies with it).
final class SpeechThread: @unchecked Sendable {
    enum Job {
        /// Connect the public voice, or the cue voice.
        case open(isPublic: Bool)
        case say(Utterance)
        case close
    }

    private let thread: SerialThread?
    private let lock = Lock()
    // Under `lock`: the jobs not yet taken, so that a new highlight can replace older ones.
    private var jobs: [Job] = []
    private var stopped = false
    private let exited = OneShot<Void>()
    private let perform: (Job) -> Bool
    /// Called on the thread with a job that failed and the jobs dropped after it.
    var onDrop: ((Job) -> Void)?

    /// `perform` runs each job on the thread; when it returns false (no speech-dispatcher,
    /// or it went away) the thread drops everything and ends.
    init(perform: @escaping (Job) -> Bool) {
        self.perform = perform
        thread = try? SerialThread(name: "switchscan.speech") {
            var pipe = sigset_t()
            sigemptyset(&pipe)
            sigaddset(&pipe, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipe, nil)
        }
        if thread == nil {
            stopped = true
            exited.set(())
        }
    }

    /// Whether jobs are still taken (false once speech-dispatcher failed or after close).
    var isRunning: Bool { lock.withLock { !stopped } }

    /// Queues a job. A highlight replaces highlights not yet sent: speech-dispatcher would
    /// cancel them anyway, and a slow server must not make the queue grow.
    func submit(_ job: Job) {
        let queued: Bool = lock.withLock {
            guard !stopped else { return false }
            if case .say(let u) = job, u.isHighlight {
                jobs.removeAll { if case .say(let old) = $0 { return old.isHighlight } else { return false } }
            }
            if case .close = job { stopped = true }
            jobs.append(job)
            return true
        }
        // One run per job submitted; a run finds fewer jobs when some were replaced.
        if queued { thread?.async { [self] in runNext() } }
    }

    /// Closes after the queued jobs; waits for that at most `timeout` (a hung server must not
    /// hang the caller). Returns whether the thread ended in time.
    @discardableResult
    func close(timeout: ScanDuration) -> Bool {
        submit(.close)
        return waitClosed(until: MonotonicClock.now() + timeout)
    }

    /// Whether the thread ended by `deadline` (after `submit(.close)`, or a failure).
    func waitClosed(until deadline: ScanInstant) -> Bool {
        exited.wait(until: deadline) != nil
    }

    private func runNext() {
        thread?.preconditionOnThread()
        let job: Job? = lock.withLock { jobs.isEmpty ? nil : jobs.removeFirst() }
        guard let job else { return }
        let goOn = perform(job)
        var closing = false
        if case .close = job { closing = true }
        if closing || !goOn {
            let dropped: [Job] = lock.withLock {
                stopped = true
                defer { jobs.removeAll() }
                return jobs
            }
            // What failed and what will never be sent: highlights waiting for their labels
            // (scanning by ear) are told.
            if !goOn { ([job] + dropped).forEach { onDrop?($0) } }
            // Not joined: the caller may have given up on a hung server already.
            thread?.stop()
            exited.set(())
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
import CAtspi

/// The one thread that calls libatspi. libatspi is not thread-safe and delivers its events
/// on GLib's default main context, so one thread runs that context's loop and every call
/// is sent to it as a job. Nothing here is real-time: the scanning engine runs elsewhere and
/// receives finished trees.
final class AtspiThread: @unchecked Sendable {
    private var thread = pthread_t()

    /// A closure carried through a C callback's user data.
    private final class Job {
        let work: () -> Void
        init(_ work: @escaping () -> Void) { self.work = work }
    }

    /// Called after `atspi_init` succeeded. libatspi trusts its cache (names, roles, states,
    /// children kept current by events) only while its own event loop runs.
    init() {
        let box = Unmanaged.passRetained(Job { atspi_event_main() }).toOpaque()
        pthread_create(&thread, nil, { raw in
            let job = Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue()
            job.work()
            return nil
        }, box)
        // Returns once the loop runs, so that every job runs on it and `stop` can end it.
        sync {}
    }

    /// Runs `work` on the thread, after what was sent before. An idle source, never
    /// `g_main_context_invoke`: that runs the job at once on the calling thread whenever
    /// the loop's thread does not hold the context at that moment.
    func async(_ work: @escaping () -> Void) {
        let box = Unmanaged.passRetained(Job(work)).toOpaque()
        g_idle_add_full(0 /* G_PRIORITY_DEFAULT */, { raw in
            Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue().work()
            return catspi_source_remove()
        }, box, nil)
    }

    /// Runs `work` on the thread once `milliseconds` have passed.
    func after(milliseconds: UInt32, _ work: @escaping () -> Void) {
        let box = Unmanaged.passRetained(Job(work)).toOpaque()
        g_timeout_add_full(0, milliseconds, { raw in
            Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue().work()
            return catspi_source_remove()
        }, box, nil)
    }

    /// Runs `body` on the thread and waits for its result. Never called from the thread
    /// itself, nor from the engine's real-time thread.
    func sync<T>(_ body: @escaping () -> T) -> T {
        let done = Completion<T>()
        async { done.set(body()) }
        return done.wait()
    }

    func stop() {
        atspi_event_quit()
        pthread_join(thread, nil)
    }
}

/// A value handed from one thread to another, waited for.
final class Completion<T>: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var cond = pthread_cond_t()
    private var value: T?

    init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&cond, nil)
    }

    deinit {
        pthread_cond_destroy(&cond)
        pthread_mutex_destroy(&mutex)
    }

    func set(_ v: T) {
        pthread_mutex_lock(&mutex)
        value = v
        pthread_cond_broadcast(&cond)
        pthread_mutex_unlock(&mutex)
    }

    func wait() -> T {
        pthread_mutex_lock(&mutex)
        while value == nil { pthread_cond_wait(&cond, &mutex) }
        let v = value!
        pthread_mutex_unlock(&mutex)
        return v
    }
}

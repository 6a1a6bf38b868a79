#if canImport(Glibc)
import Glibc
#endif
import ScanCore

/// A pthread mutex. Its storage is allocated, so the mutex never moves: Swift does not
/// promise a stable address for a stored `pthread_mutex_t`, and a mutex that moves is
/// undefined behaviour. Debug builds make it error-checking (a relock or a foreign unlock
/// stops the program); every return code is checked.
public final class Lock: @unchecked Sendable {
    let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        #if DEBUG
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        #endif
        let rc = pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        precondition(rc == 0, "pthread_mutex_init failed: \(rc)")
    }

    deinit {
        let rc = pthread_mutex_destroy(mutex)
        precondition(rc == 0, "pthread_mutex_destroy failed: \(rc)")
        mutex.deallocate()
    }

    public func lock() {
        let rc = pthread_mutex_lock(mutex)
        precondition(rc == 0, "pthread_mutex_lock failed: \(rc)")
    }

    public func unlock() {
        let rc = pthread_mutex_unlock(mutex)
        precondition(rc == 0, "pthread_mutex_unlock failed: \(rc)")
    }

    /// Runs `body` holding the lock.
    @inlinable
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A value behind its own lock, read and changed from several threads.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = Lock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    /// Runs `body` on the value, holding the lock.
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try lock.withLock { try body(&value) }
    }

    public func get() -> Value { lock.withLock { value } }

    public func set(_ newValue: Value) { lock.withLock { value = newValue } }
}

/// A condition variable, allocated like `Lock`'s mutex. Timed waits take CLOCK_MONOTONIC
/// deadlines, the clock of the whole runtime.
public final class Condition: @unchecked Sendable {
    let cond: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        cond = .allocate(capacity: 1)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        let rc = pthread_cond_init(cond, &attributes)
        pthread_condattr_destroy(&attributes)
        precondition(rc == 0, "pthread_cond_init failed: \(rc)")
    }

    deinit {
        pthread_cond_destroy(cond)
        cond.deallocate()
    }

    /// Waits, with `lock` held, until signalled (or spuriously woken: wait in a loop).
    public func wait(_ lock: Lock) {
        let rc = pthread_cond_wait(cond, lock.mutex)
        precondition(rc == 0, "pthread_cond_wait failed: \(rc)")
    }

    /// As `wait`, at most until `deadline`; false when the deadline passed.
    public func wait(_ lock: Lock, until deadline: ScanInstant) -> Bool {
        let ns = max(0, deadline.nanoseconds)
        var ts = timespec(tv_sec: Int(ns / 1_000_000_000), tv_nsec: Int(ns % 1_000_000_000))
        let rc = pthread_cond_timedwait(cond, lock.mutex, &ts)
        precondition(rc == 0 || rc == ETIMEDOUT, "pthread_cond_timedwait failed: \(rc)")
        return rc == 0
    }

    public func signal() { pthread_cond_signal(cond) }
    public func broadcast() { pthread_cond_broadcast(cond) }
}

/// A value set once by one thread and waited for by others.
public final class OneShot<Value>: @unchecked Sendable {
    private let lock = Lock()
    private let condition = Condition()
    private var value: Value?

    public init() {}

    /// Sets the value (the first time only) and wakes the waiters.
    public func set(_ v: Value) {
        lock.withLock {
            guard value == nil else { return }
            value = v
            condition.broadcast()
        }
    }

    public func wait() -> Value {
        lock.withLock {
            while value == nil { condition.wait(lock) }
            return value!
        }
    }

    /// The value, or nil when it was not set by `deadline`.
    public func wait(until deadline: ScanInstant) -> Value? {
        lock.withLock {
            while value == nil { if !condition.wait(lock, until: deadline) { break } }
            return value
        }
    }
}

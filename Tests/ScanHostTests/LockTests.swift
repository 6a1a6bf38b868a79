#if canImport(Glibc)
import Glibc
#endif
import ScanCore
import ScanHost
import Testing

@Suite struct LockTests {
    @Test func lockSerialisesThreads() throws {
        let counter = Locked(0)
        var threads: [pthread_t] = []
        for _ in 0..<4 {
            threads.append(try spawnThread(name: "test-lock") { for _ in 0..<10_000 { counter.withLock { $0 += 1 } } })
        }
        for t in threads { pthread_join(t, nil) }
        #expect(counter.get() == 40_000)
    }

    @Test func withLockReturnsAndRethrows() {
        let lock = Lock()
        #expect(lock.withLock { 6 * 7 } == 42)
        struct Oops: Error {}
        #expect(throws: Oops.self) { try lock.withLock { throw Oops() } }
        // Released after the throw: taking it again does not block.
        #expect(lock.withLock { true })
    }

    @Test func conditionTimesOutAtItsDeadline() {
        let lock = Lock()
        let condition = Condition()
        let signalled = lock.withLock { condition.wait(lock, until: MonotonicClock.now() + .milliseconds(5)) }
        #expect(!signalled)
    }

    @Test func oneShotHandsOverAValue() throws {
        let shot = OneShot<Int>()
        let t = try spawnThread(name: "test-shot") { shot.set(42) }
        #expect(shot.wait() == 42)
        pthread_join(t, nil)
        shot.set(7)
        #expect(shot.wait() == 42, "set once")
    }

    @Test func oneShotWaitEndsAtItsDeadline() {
        let shot = OneShot<Int>()
        #expect(shot.wait(until: MonotonicClock.now() + .milliseconds(5)) == nil)
    }

    @Test func theClockIsMonotonic() {
        let a = MonotonicClock.now()
        let b = MonotonicClock.now()
        #expect(b >= a)
        #expect(a.nanoseconds > 0)
    }
}

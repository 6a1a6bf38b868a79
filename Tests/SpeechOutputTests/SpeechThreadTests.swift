import ScanCore
import ScanHost
@testable import SpeechOutput
import Testing

/// The speech thread with a stand-in for libspeechd: jobs in order, a newer highlight
/// replacing one not yet sent, and an end that never waits past its limit. (Without a
/// server, these also run under ThreadSanitizer, which cannot follow libspeechd's own
/// event thread: it is cancelled with pthread_cancel.)
@Suite("Speech thread")
struct SpeechThreadTests {
    static func say(_ text: String, highlight: Bool = true) -> SpeechThread.Job {
        .say(Utterance(priority: highlight ? .text : .message, text: text, icon: nil, effectTime: nil, received: nil))
    }

    static func said(_ jobs: [SpeechThread.Job]) -> [String] {
        jobs.map {
            switch $0 {
            case .open: "open"
            case .close: "close"
            case .say(let u): u.text ?? ""
            }
        }
    }

    @Test func jobsRunInOrderAndAWaitingHighlightIsReplaced() {
        let done = Locked<[SpeechThread.Job]>([])
        let gate = OneShot<Void>()
        let thread = SpeechThread { job in
            // The first job holds the thread until every other job is queued.
            if case .open = job { _ = gate.wait(until: MonotonicClock.now() + .seconds(5)) }
            done.withLock { $0.append(job) }
            return true
        }
        thread.submit(.open(isPublic: false))
        thread.submit(Self.say("first"))
        thread.submit(Self.say("announced", highlight: false))
        thread.submit(Self.say("second"))
        gate.set(())
        #expect(thread.close(timeout: .seconds(5)))
        #expect(Self.said(done.get()) == ["open", "announced", "second", "close"])
        #expect(!thread.isRunning)
    }

    @Test func aFailedJobEndsTheThreadAndLaterJobsAreDropped() {
        let done = Locked<[SpeechThread.Job]>([])
        let thread = SpeechThread { job in
            done.withLock { $0.append(job) }
            if case .open = job { return false }
            return true
        }
        thread.submit(.open(isPublic: false))
        #expect(thread.close(timeout: .seconds(5)), "ended at the failure")
        thread.submit(Self.say("late"))
        #expect(Self.said(done.get()) == ["open"])
        #expect(!thread.isRunning)
    }

    @Test func closeWaitsNoLongerThanItsLimit() {
        let release = OneShot<Void>()
        let thread = SpeechThread { _ in
            // A server that does not answer.
            _ = release.wait(until: MonotonicClock.now() + .seconds(5))
            return true
        }
        thread.submit(.open(isPublic: false))
        let start = MonotonicClock.now()
        #expect(!thread.close(timeout: .milliseconds(20)))
        #expect(MonotonicClock.now() - start < .seconds(2))
        release.set(())
    }
}

import ArgumentParser
import CommandSupport
import Foundation
import ScanCore
import ScanHost
import ScanRuntime
import SpeechOutput
import Typing
import WordPrediction

/// `switchscan-bench speak`: the press on the message screen's Speak to speech-dispatcher
/// beginning to say the message (its BEGIN event), through the real engine on its real-time
/// thread and the speech presenter, as `run --messages` has them.
struct BenchSpeak: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "speak",
        abstract: "Time a press on the message screen's Speak to speech-dispatcher beginning to say the message.",
        discussion: """
        Needs speech-dispatcher (the user's, started if it is not running, or SPEECHD_ADDRESS) \
        with a voice. Each round selects the message's keys, then Speak, and waits for the \
        message to be said before the next.
        """
    )

    @Option(help: "Presses on Speak to time.")
    var presses = 50

    @Option(help: "The message said.")
    var message = "Hi"

    @Option(help: ArgumentHelp("Seconds to wait after each BEGIN for the message to end.", valueName: "seconds"))
    var gap = 0.6

    func validate() throws {
        guard (1...10_000).contains(presses) else { throw ValidationError("--presses takes 1 to 10000") }
        guard !message.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--message takes words to say") }
        guard (0...10).contains(gap) else { throw ValidationError("--gap takes 0 to 10 seconds") }
    }

    func run() throws {
        var settings = ScanSettings()
        settings.style = .manual
        settings.feedback.speech = false
        settings.feedback.sound = false
        let warnings = Warnings()
        let speech = SpeechPresenter(feedback: settings.feedback, speaksForTheUser: true) { warnings.add($0) }
        let begins = Begins()
        speech.onSpeechBegin = { begins.add($0) }
        let engine = MessageSession.engine(layout: KeyboardLayout(settings.typing.keyboardLayout), predictor: WordPredictor(system: WordList()),
                                           settings: settings, phrases: [], message: message)
        let lit = Lit()
        let queue = DispatchQueue(label: "switchscan.present")
        let rt = RealTimeQueue(options: RealTimeQueue.Options())
        let scanner = LiveScanner(engine: engine, queue: rt) { effects in
            for e in effects { if case .highlight(let item, _, _, _, _, _) = e.effect { lit.set(item) } }
            queue.async { try? speech.present(effects) }
        }
        scanner.start()
        defer { speech.finish() }
        func press() -> ScanInstant {
            let t = MonotonicClock.now()
            scanner.submit(SwitchEvent(.select, down: true, at: t))
            scanner.submit(SwitchEvent(.select, down: false, at: t + .milliseconds(50)))
            return t
        }
        // The connection is made as the screen shows: waited for, so the first round is not its.
        guard lit.wait(for: "messageKeys", timeout: 5) else { throw fail("Error: the message screen did not start.") }
        usleep(500_000)
        if let w = warnings.first { throw fail("Error: \(w)") }
        var samples: [Int64] = []
        var missed = 0
        for k in 0..<presses {
            guard lit.wait(for: "messageKeys", timeout: 5) else { throw fail("Error: the message's keys were not lit again.") }
            _ = press()
            guard lit.wait(for: "speak", timeout: 5) else { throw fail("Error: Speak was not lit.") }
            let heard = begins.count
            let t0 = press()
            if let began = begins.wait(after: heard, timeout: 5) { samples.append((began - t0).nanoseconds) } else { missed += 1 }
            if k % 10 == 9 { progress("speak: \(k + 1)/\(presses) presses") }
            usleep(UInt32(gap * 1_000_000))
        }
        endProgress()
        if let w = warnings.first { throw fail("Error: \(w)") }
        let s = Summary(samples)
        print("bench speak: \"\(message)\", \(presses) presses on Speak")
        print(String(format: "press on Speak → speech-dispatcher's BEGIN: p50 %.2f ms, p99 %.2f ms, max %.2f ms (%d of %d; %d without a BEGIN within 5 s)",
                     s.p50 / 1000, s.p99 / 1000, s.max / 1000, s.count, presses, missed))
    }
}

private final class Warnings: @unchecked Sendable {
    private let lock = Lock()
    private var list: [String] = []
    func add(_ w: String) { lock.withLock { list.append(w) } }
    var first: String? { lock.withLock { list.first } }
}

/// The item lit last, waited for.
private final class Lit: @unchecked Sendable {
    private let lock = Lock()
    private let cond = Condition()
    private var item = ""
    func set(_ i: String) { lock.withLock { item = i; cond.broadcast() } }
    func wait(for wanted: String, timeout: Double) -> Bool {
        let deadline = MonotonicClock.now() + .seconds(timeout)
        return lock.withLock {
            while item != wanted {
                guard cond.wait(lock, until: deadline) || item == wanted else { return false }
            }
            return true
        }
    }
}

/// Each BEGIN's time, waited for.
private final class Begins: @unchecked Sendable {
    private let lock = Lock()
    private let cond = Condition()
    private var times: [ScanInstant] = []
    var count: Int { lock.withLock { times.count } }
    func add(_ b: SpeechBegin) { lock.withLock { times.append(b.began); cond.broadcast() } }
    func wait(after n: Int, timeout: Double) -> ScanInstant? {
        let deadline = MonotonicClock.now() + .seconds(timeout)
        return lock.withLock {
            while times.count <= n {
                guard cond.wait(lock, until: deadline) || times.count > n else { return nil }
            }
            return times[n]
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
import ScanCore
import ScanHost

/// What `onSpeechBegin` reports: a highlight's speech (or its click) began to sound.
public struct SpeechBegin: Sendable, Hashable {
    /// What was said.
    public var text: String
    /// The highlight's time in the engine.
    public var effectTime: ScanInstant
    /// When `present` received it.
    public var received: ScanInstant
    /// When libspeechd delivered speech-dispatcher's BEGIN event.
    public var began: ScanInstant
    /// Highlight received → speech began.
    public var latency: ScanDuration { began - received }
}

/// One presenter's BEGIN bookkeeping: the highlight whose speech is awaited, and who hears
/// of it.
final class BeginSink: @unchecked Sendable {
    private let lock = Lock()
    private var handler: (@Sendable (SpeechBegin) -> Void)?
    private var awaited: (text: String, effectTime: ScanInstant, received: ScanInstant, after: Int)?

    var onBegin: (@Sendable (SpeechBegin) -> Void)? {
        get { lock.withLock { handler } }
        set { lock.withLock { handler = newValue } }
    }

    /// Called before the highlight is sent: a BEGIN for a message id above `after` (ids of
    /// earlier messages) is its.
    func expect(text: String, effectTime: ScanInstant, received: ScanInstant, after: Int) {
        lock.withLock { awaited = (text, effectTime, received, after) }
    }

    // Under `lock`, for scanning by ear: the highlight whose label's end is awaited (its
    // message id and when the engine showed it), the highest message id that ended or was
    // cancelled, and who hears of a label said.
    private var awaitedEnd: (messageID: Int, shownAt: ScanInstant)?
    private var highestEnded = 0, highestBegan = 0
    private var labelHandler: (@Sendable (ScanInstant) -> Void)?
    private var beganHandler: (@Sendable (ScanInstant) -> Void)?

    var onLabelBegan: (@Sendable (ScanInstant) -> Void)? {
        get { lock.withLock { beganHandler } }
        set { lock.withLock { beganHandler = newValue } }
    }

    var onLabelSaid: (@Sendable (ScanInstant) -> Void)? {
        get { lock.withLock { labelHandler } }
        set { lock.withLock { labelHandler = newValue } }
    }

    /// Whether a label sent is still being said (or waiting to be).
    var labelPending: Bool { lock.withLock { awaitedEnd != nil } }

    /// A highlight's label was sent as `messageID`: its end is reported.
    func awaitEnd(messageID: Int, shownAt: ScanInstant) {
        let (began, ended): ((@Sendable (ScanInstant) -> Void)?, (@Sendable (ScanInstant) -> Void)?) = lock.withLock {
            awaitedEnd = (messageID, shownAt)
            // Begun or ended already (a short label, a busy thread here): reported at once.
            let began = highestBegan >= messageID ? beganHandler : nil
            guard highestEnded >= messageID else { return (began, nil) }
            awaitedEnd = nil
            return (began, labelHandler)
        }
        began?(shownAt)
        ended?(shownAt)
    }

    /// The label of the highlight shown at `shownAt` will not be said (speech-dispatcher is
    /// gone, or the label was never sent).
    func notSaid(shownAt: ScanInstant) {
        let handler: (@Sendable (ScanInstant) -> Void)? = lock.withLock {
            if awaitedEnd?.shownAt == shownAt { awaitedEnd = nil }
            return labelHandler
        }
        handler?(shownAt)
    }

    /// speech-dispatcher's END or CANCEL for `messageID`.
    func ended(messageID: Int) {
        let report: (ScanInstant, @Sendable (ScanInstant) -> Void)? = lock.withLock {
            highestEnded = max(highestEnded, messageID)
            guard let a = awaitedEnd, messageID >= a.messageID else { return nil }
            awaitedEnd = nil
            return labelHandler.map { (a.shownAt, $0) }
        }
        if let (shownAt, handler) = report { handler(shownAt) }
    }

    func began(messageID: Int, at now: ScanInstant) {
        let label: (ScanInstant, @Sendable (ScanInstant) -> Void)? = lock.withLock {
            highestBegan = max(highestBegan, messageID)
            guard let a = awaitedEnd, messageID >= a.messageID, let beganHandler else { return nil }
            return (a.shownAt, beganHandler)
        }
        if let (shownAt, handler) = label { handler(shownAt) }
        let report: (SpeechBegin, @Sendable (SpeechBegin) -> Void)? = lock.withLock {
            guard let a = awaited, messageID > a.after else { return nil }
            awaited = nil
            guard let handler else { return nil }
            return (SpeechBegin(text: a.text, effectTime: a.effectTime, received: a.received, began: now), handler)
        }
        if let (begin, handler) = report { handler(begin) }
    }
}

/// libspeechd's callbacks are C function pointers without a context argument: they find
/// their presenter here, by the client id each event carries.
final class BeginRegistry: @unchecked Sendable {
    /// The cue voices' connections, and the public voices': client ids are counted by each
    /// speech-dispatcher, and the two voices may talk to two.
    static let cue = BeginRegistry()
    static let voice = BeginRegistry()
    private let lock = Lock()
    private var sinks: [Int: BeginSink] = [:]

    func add(_ sink: BeginSink, client: Int) { lock.withLock { sinks[client] = sink } }
    func remove(client: Int) { lock.withLock { sinks[client] = nil } }
    func sink(client: Int) -> BeginSink? { lock.withLock { sinks[client] } }
}

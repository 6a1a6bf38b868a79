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

    func began(messageID: Int, at now: ScanInstant) {
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
    static let shared = BeginRegistry()
    private let lock = Lock()
    private var sinks: [Int: BeginSink] = [:]

    func add(_ sink: BeginSink, client: Int) { lock.withLock { sinks[client] = sink } }
    func remove(client: Int) { lock.withLock { sinks[client] = nil } }
    func sink(client: Int) -> BeginSink? { lock.withLock { sinks[client] } }
}

import ScanCore

/// The connection's state, confined to the speech thread.
final class SpeechSession {
    let client: String
    let address: SpeechDispatcherAddress?
    let rate: Int
    let volume: Int
    let sink: BeginSink
    let warn: (String) -> Void
    /// Said once speech-dispatcher answers (one warning at a time).
    let soundProblem: String?
    /// What is said when speech-dispatcher cannot be reached.
    let unavailable: String
    var connection: SpeechConnection?

    init(client: String, address: SpeechDispatcherAddress?, rate: Int, volume: Int, sink: BeginSink,
         warn: @escaping (String) -> Void, soundProblem: String?, unavailable: String = SpeechPresenter.unavailableWarning) {
        self.client = client; self.address = address; self.rate = rate; self.volume = volume
        self.sink = sink; self.warn = warn; self.soundProblem = soundProblem; self.unavailable = unavailable
    }

    /// False ends the thread: speech-dispatcher is missing or went away (said once).
    func perform(_ job: SpeechThread.Job) -> Bool {
        switch job {
        case .open:
            do {
                let c = try SpeechConnection.open(client: client, address: address, rate: rate, volume: volume)
                BeginRegistry.shared.add(sink, client: c.clientID)
                connection = c
            } catch {
                warn(unavailable + (error.reason.isEmpty ? "" : " (\(error.reason))"))
                return false
            }
            if let soundProblem { warn(soundProblem) }
            return true
        case .say(let u):
            guard let c = connection else { return false }
            if let text = u.text, let effectTime = u.effectTime, let received = u.received {
                sink.expect(text: text, effectTime: effectTime, received: received, after: c.lastMessageID)
            }
            guard c.send(u) else {
                warn("speech-dispatcher stopped answering; scanning goes on without speech")
                shutDown()
                return false
            }
            return true
        case .close:
            shutDown()
            return true
        }
    }

    private func shutDown() {
        guard let c = connection else { return }
        BeginRegistry.shared.remove(client: c.clientID)
        c.close()
        connection = nil
    }
}

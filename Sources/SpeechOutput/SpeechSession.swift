import ScanCore

/// The connection's state, confined to the speech thread.
final class SpeechSession {
    let client: String
    let address: SpeechDispatcherAddress?
    let voice: VoiceSettings
    /// "The cue voice", "The public voice": named in what is said of its settings.
    let voiceName: String
    let isPublic: Bool
    var registry: BeginRegistry { isPublic ? .voice : .cue }
    let sink: BeginSink
    let warn: (String) -> Void
    /// Said once speech-dispatcher answers (one warning at a time).
    let soundProblem: String?
    /// What is said when speech-dispatcher cannot be reached.
    let unavailable: String
    var connection: SpeechConnection?

    init(client: String, address: SpeechDispatcherAddress?, voice: VoiceSettings, voiceName: String, isPublic: Bool, sink: BeginSink,
         warn: @escaping (String) -> Void, soundProblem: String?, unavailable: String = SpeechPresenter.unavailableWarning) {
        self.client = client; self.address = address; self.voice = voice; self.voiceName = voiceName; self.isPublic = isPublic
        self.sink = sink; self.warn = warn; self.soundProblem = soundProblem; self.unavailable = unavailable
    }

    /// Connects; false when speech-dispatcher cannot be reached (said once).
    func open() -> Bool {
        do {
            let c = try SpeechConnection.open(client: client, address: address, voice: voice, isPublic: isPublic) { [warn, voiceName] in
                warn("\(voiceName): " + $0)
            }
            registry.add(sink, client: c.clientID)
            connection = c
        } catch {
            warn(unavailable + (error.reason.isEmpty ? "" : " (\(error.reason))"))
            return false
        }
        if let soundProblem { warn(soundProblem) }
        return true
    }

    /// Sends one utterance; false when there is no connection or it broke (said once).
    func say(_ u: Utterance) -> Bool {
        guard let c = connection else { return false }
        if let text = u.text, let effectTime = u.effectTime, let received = u.received {
            sink.expect(text: text, effectTime: effectTime, received: received, after: c.lastMessageID)
        }
        guard c.send(u) else {
            warn("speech-dispatcher stopped answering; scanning goes on without speech")
            shutDown()
            return false
        }
        if u.isHighlight, u.text != nil, let shownAt = u.effectTime { sink.awaitEnd(messageID: c.lastMessageID, shownAt: shownAt) }
        return true
    }

    func shutDown() {
        guard let c = connection else { return }
        registry.remove(client: c.clientID)
        c.close()
        connection = nil
    }
}

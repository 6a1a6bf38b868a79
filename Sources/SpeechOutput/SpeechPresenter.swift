#if canImport(Glibc)
import Glibc
#endif
import ScanCore
import ScanHost

/// The sounds, as speech-dispatcher sound icons: file names in the folder its output module
/// plays them from (Debian's `sound-icons` package; the espeak-ng and generic modules read
/// /usr/share/sounds/sound-icons/ unless configured otherwise).
public struct SoundIcons: Sendable, Hashable {
    /// Each move (35 ms tick): short, since the highlight's words wait for it.
    public var move = "percussion-10.wav"
    /// Each select (120 ms plucked note).
    public var select = "cembalo-10.wav"
    /// The message screen's Attention key: a trumpet call, before the word.
    public var attention = "trumpet-12.wav"
    /// `positionTones`: the first item of each cycle (a short rising whistle) and the Exit
    /// item (a chord).
    public var first = "pisk-up.wav"
    public var exit = "chord-7.wav"
    /// Scanning by ear: a label cut off at `speechPacingLimit` (a short knock).
    public var cut = "percussion-12.wav"
    /// Where they are looked for before use: a module speaks a missing icon's name instead.
    public var folder = "/usr/share/sounds/sound-icons"

    public init() {}
    public init(move: String, select: String, folder: String) {
        self.move = move; self.select = select; self.folder = folder
    }
}

/// Speaks highlights and announcements through speech-dispatcher, as Switch Control does,
/// and plays a click on each move and another on select.
///
/// - Highlights are said as label (which the engine composes with value and state), then the
///   first trait word where the label does not say it ("Btn 1, button", "Volume, 50,
///   adjustable"); groups as their label and "group"; menu entries and exit items as their
///   label. Priority `text`: each highlight cancels the one before, spoken or waiting.
/// - Announcements have priority `message`: they cut a highlight being read, and a highlight
///   that follows waits until they are said.
/// - A move's click and the words go out as one SSIP block, so they are cancelled together
///   and never cut each other; a select (activate, custom action, adjust, entering a group,
///   tap) plays its sound in place of the next move click; a select with nothing said after
///   it plays at priority `notification` (dropped if something is being said).
/// - Two voices, each on a connection and a thread of its own: the cue voice says what
///   scanning says, the public voice the person's words (`speak`, `attention`). Each has its
///   own rate, volume, pitch, voice and module, and may be another speech-dispatcher (one
///   playing to headphones, say), so that a label and a message never share a queue.
/// - Everything that talks to speech-dispatcher runs on the voices' threads: `present`
///   only queues, and never blocks or throws. Without speech-dispatcher, `warn` is called
///   once per voice (from its thread) and that voice goes quiet.
public final class SpeechPresenter: EffectPresenter, @unchecked Sendable {
    /// The warning when speech-dispatcher cannot be reached (the reason follows it).
    public static let unavailableWarning = "speech-dispatcher is not running or not installed (Debian: sudo apt-get install speech-dispatcher); scanning goes on without speech"
    /// The same, where the message screen speaks for the person: their words are not heard.
    public static let unavailableForMessages = "speech-dispatcher is not running or not installed (Debian: sudo apt-get install speech-dispatcher): the messages written are shown but not said aloud"

    private var plan: UtterancePlan
    /// The sound icons, when they are installed: the scanner menu's Sound toggle uses them.
    private let icons: (move: String, select: String)?
    /// Element traits for role words; touched only on the presenting queue.
    private var tree: ElementTree?
    /// The cue voice's connection and the public voice's, each with its BEGIN bookkeeping.
    private let cueSink = BeginSink(), voiceSink = BeginSink()
    /// Scanning's speech and sounds: connected at once where scanning speaks or sounds.
    private let cueThread: SpeechThread
    private var cueOpened = false
    /// The person's words: connected when the message screen shows or something is first
    /// said, so that a run that never speaks for the person starts no speech-dispatcher. The
    /// cue voice's thread where both talk to one speech-dispatcher, so that the two keep the
    /// order they were given in (a label after a message waits for it); its own otherwise.
    private let voiceThread: SpeechThread
    private var voiceOpened = false

    /// Scanning by ear: the engine moves on when a label has been said (or at its limit).
    private let pacing: Bool

    /// Scanning by ear (`speechPacing`): called with the engine time of the highlight whose
    /// label has been said or cut off, or will not be said (no label, no speech-dispatcher),
    /// on libspeechd's event thread or the presenting queue.
    public var onLabelSaid: (@Sendable (ScanInstant) -> Void)? {
        get { cueSink.onLabelSaid }
        set { cueSink.onLabelSaid = newValue }
    }

    /// Scanning by ear: called with the engine time of the highlight whose label began to be
    /// said (speech-dispatcher's BEGIN), on libspeechd's event thread.
    public var onLabelBegan: (@Sendable (ScanInstant) -> Void)? {
        get { cueSink.onLabelBegan }
        set { cueSink.onLabelBegan = newValue }
    }

    /// Called when a highlight's or a message's speech begins (speech-dispatcher's BEGIN
    /// event), on libspeechd's event thread: keep it short. For latency measurements.
    public var onSpeechBegin: (@Sendable (SpeechBegin) -> Void)? {
        get { cueSink.onBegin ?? voiceSink.onBegin }
        set {
            cueSink.onBegin = newValue
            voiceSink.onBegin = newValue
        }
    }

    /// - Parameters:
    ///   - address: where speech-dispatcher listens, for a voice without an `address` of its
    ///     own; nil: SPEECHD_ADDRESS or the user's default, starting the server if it is not
    ///     running (as libspeechd's autospawn). An explicit address is never autospawned.
    ///   - warn: one sentence per problem (no speech-dispatcher; no sound icons; a module or
    ///     voice it does not have), called on a voice's thread.
    ///   - speaksForTheUser: the message screen is used: its words are said even with the
    ///     scanning's speech and sounds off.
    ///   - pacing: scanning by ear (`speechPacing`): labels' beginnings and ends are reported
    ///     (`onLabelBegan`, `onLabelSaid`), and a label cut at the limit (`labelCut`) is
    ///     marked by a knock.
    public init(feedback: FeedbackSettings, client: String = "switchscan", speaksForTheUser: Bool = false,
                pacing: Bool = false, address: SpeechDispatcherAddress? = nil, sounds: SoundIcons = SoundIcons(),
                warn: @escaping (String) -> Void) {
        var plan = UtterancePlan(speech: feedback.speech, moveSound: nil, selectSound: nil)
        func installed(_ icon: String) -> String? { access(sounds.folder + "/" + icon, R_OK) == 0 ? icon : nil }
        plan.attentionSound = installed(sounds.attention)
        self.pacing = pacing
        if pacing { plan.cutTone = installed(sounds.cut) }
        var soundProblem: String?
        // A missing icon would be spoken by name: check once, here, where it is cheap.
        let missing = [sounds.move, sounds.select].filter { access(sounds.folder + "/" + $0, R_OK) != 0 }
        icons = missing.isEmpty ? (sounds.move, sounds.select) : nil
        if feedback.sound {
            if let icons {
                plan.moveSound = icons.move
                plan.selectSound = icons.select
            } else {
                soundProblem = "The sound icons \(missing.joined(separator: " and ")) are not in \(sounds.folder) (Debian: sudo apt-get install sound-icons); scanning goes on without sounds"
            }
        }
        if feedback.positionTones {
            plan.firstTone = installed(sounds.first)
            plan.exitTone = installed(sounds.exit)
            let lacking = [sounds.first, sounds.exit].filter { installed($0) == nil }
            if !lacking.isEmpty {
                plan.firstTone = nil
                soundProblem = (soundProblem.map { $0 + ". " } ?? "")
                    + "The sound icons \(lacking.joined(separator: " and ")) are not in \(sounds.folder) (Debian: sudo apt-get install sound-icons); scanning goes on without position tones"
            }
        }
        self.plan = plan
        func target(_ v: VoiceSettings) -> SpeechDispatcherAddress? { SpeechDispatcherAddress(v.address) ?? address }
        let scanningSpeaks = feedback.speech || feedback.sound || plan.firstTone != nil
        let shared = target(feedback.cueVoice) == target(feedback.publicVoice)
        // Where the two share a thread, a server that cannot be reached ends both: the one
        // warning then says that the person's words are not heard either.
        let cue = SpeechSession(client: client, address: target(feedback.cueVoice), voice: feedback.cueVoice, voiceName: "The cue voice",
                                isPublic: false, sink: cueSink, warn: warn, soundProblem: soundProblem,
                                unavailable: shared && speaksForTheUser ? Self.unavailableForMessages : Self.unavailableWarning)
        let voice = SpeechSession(client: client + "-voice", address: target(feedback.publicVoice), voice: feedback.publicVoice,
                                  voiceName: "The public voice", isPublic: true, sink: voiceSink, warn: warn, soundProblem: nil,
                                  unavailable: speaksForTheUser ? Self.unavailableForMessages : Self.unavailableWarning)
        if shared {
            cueThread = SpeechThread { Self.perform($0, cue: cue, voice: voice) }
            voiceThread = cueThread
        } else {
            cueThread = SpeechThread { Self.perform($0, cue: cue, voice: nil) }
            voiceThread = SpeechThread { Self.perform($0, cue: nil, voice: voice) }
        }
        // Scanning by ear: a label that will never be said holds nothing up.
        cueThread.onDrop = { [cueSink] job in
            if case .say(let u) = job, u.isHighlight, let shownAt = u.effectTime { cueSink.notSaid(shownAt: shownAt) }
        }
        // Where scanning speaks or sounds, connected at once; else when it first does (the
        // menu's Speech or Sound turned on).
        if scanningSpeaks {
            cueThread.submit(.open(isPublic: false))
            cueOpened = true
        }
    }

    /// One job on a voice's thread; false ends the thread (speech-dispatcher is missing or
    /// went away).
    private static func perform(_ job: SpeechThread.Job, cue: SpeechSession?, voice: SpeechSession?) -> Bool {
        switch job {
        case .open(let isPublic): return (isPublic ? voice : cue)?.open() ?? false
        case .say(let u): return (u.isPublic ? voice : cue)?.say(u) ?? false
        case .close:
            cue?.shutDown()
            voice?.shutDown()
            return true
        }
    }

    deinit {
        cueThread.close(timeout: .zero)
        if voiceThread !== cueThread { voiceThread.close(timeout: .zero) }
    }

    public func present(_ effects: [TimedEffect]) throws {
        let received = MonotonicClock.now()
        // The scanner menu's toggles take effect at once.
        for e in effects {
            switch e.effect {
            case .settingChanged(.speech(let on)): plan.speech = on
            case .settingChanged(.sound(let on)): plan.moveSound = on ? icons?.move : nil; plan.selectSound = on ? icons?.select : nil
            default: break
            }
        }
        let utterances = plan.utterances(effects, received: received, screen: &tree)
        if pacing { reportUnsaidLabels(effects, utterances) }
        if !voiceOpened, utterances.contains(where: \.isPublic) || effects.contains(where: { Self.opensTheVoice($0.effect) }) {
            voiceThread.submit(.open(isPublic: true))
            voiceOpened = true
        }
        if !cueOpened, utterances.contains(where: { !$0.isPublic }) {
            cueThread.submit(.open(isPublic: false))
            cueOpened = true
        }
        for u in utterances {
            let thread = u.isPublic ? voiceThread : cueThread
            guard thread.isRunning else { continue }
            thread.submit(.say(u))
        }
    }

    /// Scanning by ear: a highlight whose label will not be said (it has none, or
    /// speech-dispatcher is gone) holds nothing up.
    private func reportUnsaidLabels(_ effects: [TimedEffect], _ utterances: [Utterance]) {
        guard let report = cueSink.onLabelSaid else { return }
        let speaking = cueThread.isRunning
        for e in effects {
            guard case .highlight = e.effect else { continue }
            if !speaking || !utterances.contains(where: { $0.isHighlight && $0.text != nil && $0.effectTime == e.time }) {
                report(e.time)
            }
        }
    }

    /// The message screen shown: its words will be said soon, the connection is made now.
    static func opensTheVoice(_ e: Effect) -> Bool {
        if case .keyboard(let keys) = e { return keys.contains { $0.id == KeyboardKey.messageID } }
        return false
    }

    /// Closes the connections once what is queued has been sent (waiting at most 2 s for a
    /// server that stopped answering).
    public func finish() {
        let deadline = MonotonicClock.now() + .seconds(2)
        let threads = voiceThread === cueThread ? [cueThread] : [cueThread, voiceThread]
        for thread in threads { thread.submit(.close) }
        for thread in threads { _ = thread.waitClosed(until: deadline) }
    }
}

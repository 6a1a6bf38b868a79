import Foundation
import ScanCore
import Testing
@testable import SpeechOutput
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The elements the highlights below point at: a button and an adjustable.
private let tree: ElementTree = {
    var root = ElementNode(id: "root")
    root.children = [1, 2]
    var button = ElementNode(id: "b1")
    button.label = "Btn 1"
    button.traits = TraitSet([.button])
    button.parent = 0
    var volume = ElementNode(id: "vol")
    volume.label = "Volume"
    volume.traits = TraitSet([.adjustable])
    volume.parent = 0
    return ElementTree(screenID: "test", size: (width: 400, height: 300), nodes: [root, button, volume])
}()

private func at(_ ms: Int64, _ effect: Effect) -> TimedEffect { TimedEffect(.seconds(Double(ms) / 1000), effect) }

private func element(_ id: String, _ label: String) -> Effect {
    .highlight(item: id, kind: .element, frame: nil, label: label, context: nil)
}

private func monotonicMilliseconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) * 1e3 + Double(ts.tv_nsec) / 1e6
}

private func feedback(speech: Bool = true, sound: Bool = false, rate: Int = 0, volume: Int = 0) -> FeedbackSettings {
    var f = FeedbackSettings()
    f.speech = speech
    f.sound = sound
    f.speechRate = rate
    f.speechVolume = volume
    return f
}

/// A real speech-dispatcher, started by each test with a private configuration (never a
/// mock); one at a time, since the interruption tests time half-second utterances.
@Suite("Speech through speech-dispatcher", .serialized)
struct SpeechPresenterTests {
    @Test func highlightsAndAnnouncementsAreSpokenAsSwitchControlSaysThem() throws {
        let daemon = try SpeechDaemon(module: .textlog)
        defer { daemon.stop() }
        let warnings = Collected<String>()
        let speech = SpeechPresenter(feedback: feedback(), address: daemon.address) { warnings.append($0) }
        let batches: [([Effect], String)] = [
            // The role words come from the screen the engine shows, in the same batch.
            ([.screen(ShownScreen(tree, serial: 1)), element("b1", "Btn 1")], "Btn 1, button"),
            ([.highlight(item: "g1", kind: .group, frame: nil, label: "Btn 5, Btn 6", context: nil)], "Btn 5, Btn 6, group"),
            ([.enterGroup("g1"), element("vol", "Volume, 50")], "Volume, 50, adjustable"),
            ([.menuOpen(element: "b1", entries: ["tap"], titles: ["Tap"]),
              .highlight(item: "tap", kind: .menuEntry, frame: nil, label: "Tap", context: "b1")], "Tap"),
            ([.highlight(item: "exit", kind: .exit, frame: nil, label: "Exit group", context: "g1")], "Exit group"),
            // An element the tree does not know: its label alone.
            ([element("new", "Check me, selected")], "Check me, selected"),
            ([.announce("Screen changed")], "Screen changed"),
        ]
        var expected: [String] = []
        for (i, (effects, text)) in batches.enumerated() {
            // One at a time: a highlight cancels the one before it, by design.
            try speech.present(effects.map { at(Int64(i) * 1000, $0) })
            expected.append(text)
            let count = expected.count
            daemon.waitForSpoken { $0.count >= count }
        }
        speech.finish()
        #expect(daemon.waitForSpoken(timeout: 0.2) { _ in false } == expected)
        #expect(warnings.all.isEmpty)
    }

    @Test func eachHighlightCutsTheOneBeingSaid() throws {
        let daemon = try SpeechDaemon(module: .slowlog)
        defer { daemon.stop() }
        let speech = SpeechPresenter(feedback: feedback(), address: daemon.address) { _ in }
        for (i, label) in ["Btn 1", "Btn 2", "Btn 3"].enumerated() {
            try speech.present([at(Int64(i) * 150, element("b\(i + 1)", label))])
            // The next one once this one is being said (a loaded machine may take longer to
            // start the module).
            daemon.waitForSpoken { $0.contains("start \(label)") }
        }
        // Once Btn 3 is said whole, one more: an "end" of a cut one would come before it.
        daemon.waitForSpoken { $0.contains("end Btn 3") }
        try speech.present([at(450, element("b4", "Btn 4"))])
        speech.finish()
        daemon.waitForSpoken { $0.contains("end Btn 4") }
        #expect(daemon.spoken() == ["start Btn 1", "start Btn 2", "start Btn 3", "end Btn 3", "start Btn 4", "end Btn 4"])
    }

    /// An announcement is said whole, and the highlight that follows it in the same batch
    /// after it (the highlight waits; it does not cut).
    @Test func anAnnouncementIsNotCutByTheHighlightAfterIt() throws {
        let daemon = try SpeechDaemon(module: .slowlog)
        defer { daemon.stop() }
        let speech = SpeechPresenter(feedback: feedback(), address: daemon.address) { _ in }
        try speech.present([at(0, .announce("New window")), at(0, element("b1", "Btn 1"))])
        speech.finish()
        let lines = daemon.waitForSpoken { $0.contains("end Btn 1") }
        #expect(lines == ["start New window", "end New window", "start Btn 1", "end Btn 1"])
    }

    /// Highlights that come while an announcement is said wait, and only the last is said.
    @Test func highlightsWaitingBehindAnAnnouncementReplaceEachOther() throws {
        let daemon = try SpeechDaemon(module: .slowlog)
        defer { daemon.stop() }
        let speech = SpeechPresenter(feedback: feedback(), address: daemon.address) { _ in }
        try speech.present([at(0, .announce("New window")), at(0, element("b1", "Btn 1"))])
        daemon.waitForSpoken { $0.contains("start New window") }
        try speech.present([at(150, element("b2", "Btn 2"))])
        // Once Btn 2 is said, one more: anything said of Btn 1 would come before it.
        daemon.waitForSpoken { $0.contains("end Btn 2") }
        try speech.present([at(300, element("b3", "Btn 3"))])
        speech.finish()
        daemon.waitForSpoken { $0.contains("end Btn 3") }
        #expect(daemon.spoken() == ["start New window", "end New window", "start Btn 2", "end Btn 2", "start Btn 3", "end Btn 3"])
    }

    @Test func withoutSpeechDispatcherOneWarningAndNothingElse() throws {
        let directory = NSTemporaryDirectory() + "speechtest-missing-\(getpid())"
        let warnings = Collected<String>()
        let start = Date()
        let speech = SpeechPresenter(feedback: feedback(sound: true), address: .unixSocket(directory + "/none.sock")) {
            warnings.append($0)
        }
        try speech.present([at(0, element("b1", "Btn 1"))])
        try speech.present([at(100, .activate(element: "b1", point: Point(x: 1, y: 1), target: "b1")),
                            at(100, element("b2", "Btn 2"))])
        speech.finish()
        try speech.present([at(200, .announce("Screen changed"))])
        // A hang guard, not a speed test.
        #expect(Date().timeIntervalSince(start) < 1)
        #expect(warnings.all.count == 1)
        let warning = try #require(warnings.all.first)
        #expect(warning.hasPrefix(SpeechPresenter.unavailableWarning))
        #expect(warning.contains("none.sock"))
    }

    @Test func withSpeechAndSoundOffNothingIsOpened() throws {
        let warnings = Collected<String>()
        let speech = SpeechPresenter(feedback: feedback(speech: false), address: .unixSocket("/nonexistent/none.sock")) {
            warnings.append($0)
        }
        try speech.present([at(0, element("b1", "Btn 1"))])
        speech.finish()
        #expect(warnings.all.isEmpty)
    }

    /// The message screen's words are said with scanning's speech and sounds off: the
    /// connection is made when that screen shows (not before: a run that never speaks
    /// starts nothing), and a highlight after a message waits for it, never cuts it.
    @Test func aMessageIsSaidWithScanningsSpeechOffAndNotCutByTheNextHighlight() throws {
        let daemon = try SpeechDaemon(module: .slowlog)
        defer { daemon.stop() }
        let warnings = Collected<String>()
        let speech = SpeechPresenter(feedback: feedback(speech: false), speaksForTheUser: true, address: daemon.address) {
            warnings.append($0)
        }
        try speech.present([at(0, element("b1", "Btn 1"))])
        let shown = Effect.keyboard([KeyboardKey(id: KeyboardKey.messageID, label: "", frame: Rect(x: 0, y: 0, width: 10, height: 10))])
        try speech.present([at(100, shown)])
        try speech.present([at(200, .speak("Help me please", voice: .public, from: .message)), at(200, element("speak", "Speak"))])
        try speech.present([at(300, .speak("Yes", voice: .public, from: .answer))])
        speech.finish()
        let lines = daemon.waitForSpoken { $0.contains("end Yes") }
        // Scanning's own labels stay silent (its speech is off); the message is said whole.
        #expect(lines == ["start Help me please", "end Help me please", "start Yes", "end Yes"])
        #expect(warnings.all.isEmpty)
    }

    /// With scanning's speech on, a label that comes while a message is said waits for it;
    /// the call for attention does not wait behind a message.
    @Test func aLabelWaitsForAMessageAndAttentionDoesNot() throws {
        let daemon = try SpeechDaemon(module: .slowlog)
        defer { daemon.stop() }
        let speech = SpeechPresenter(feedback: feedback(), speaksForTheUser: true, address: daemon.address) { _ in }
        try speech.present([at(0, .speak("Help me please", voice: .public, from: .message)), at(0, element("b1", "Btn 1"))])
        daemon.waitForSpoken { $0.contains("end Btn 1") }
        try speech.present([at(1000, .speak("I am cold", voice: .public, from: .message))])
        daemon.waitForSpoken { $0.contains("start I am cold") }
        try speech.present([at(1100, .attention)])
        speech.finish()
        let lines = daemon.waitForSpoken { $0.contains("end Attention") }
        #expect(Array(lines.prefix(4)) == ["start Help me please", "end Help me please", "start Btn 1", "end Btn 1"])
        let started = lines.firstIndex(of: "start Attention"), ended = lines.firstIndex(of: "end I am cold")
        #expect(started != nil && (ended == nil || started! < ended!), "Attention did not wait for the message: \(lines)")
    }

    @Test func aRunThatNeverShowsTheMessageScreenOpensNothing() throws {
        let warnings = Collected<String>()
        let speech = SpeechPresenter(feedback: feedback(speech: false), speaksForTheUser: true,
                                     address: .unixSocket("/nonexistent/none.sock")) { warnings.append($0) }
        try speech.present([at(0, element("b1", "Btn 1")), at(0, .announce("Mail"))])
        speech.finish()
        #expect(warnings.all.isEmpty, "nothing was asked of speech-dispatcher")
        let asked = SpeechPresenter(feedback: feedback(speech: false), speaksForTheUser: true,
                                    address: .unixSocket("/nonexistent/none.sock")) { warnings.append($0) }
        try asked.present([at(0, .attention)])
        asked.finish()
        #expect(warnings.all.count == 1 && warnings.all.first?.hasPrefix(SpeechPresenter.unavailableForMessages) == true, "the person is told their words are not heard")
    }

    /// Rate and volume are set when not 0; at 0 the server's (the user's) settings stay.
    @Test func rateAndVolumeReachTheServer() throws {
        let daemon = try SpeechDaemon(module: .paramlog, settings: ["DefaultRate 20", "DefaultVolume 60"])
        defer { daemon.stop() }
        let set = SpeechPresenter(feedback: feedback(rate: 40, volume: -30), address: daemon.address) { _ in }
        try set.present([at(0, element("b1", "Btn 1"))])
        set.finish()
        daemon.waitForSpoken { $0.count >= 1 }
        let kept = SpeechPresenter(feedback: feedback(), address: daemon.address) { _ in }
        try kept.present([at(0, element("b2", "Btn 2"))])
        kept.finish()
        let lines = daemon.waitForSpoken { $0.count >= 2 }
        #expect(lines == ["rate=40.00 volume=-30.00 pitch=0.00 Btn 1", "rate=20.00 volume=60.00 pitch=0.00 Btn 2"])
    }

    /// The two voices, each on its connection: the labels in the cue voice's rate and pitch,
    /// the person's words in the public voice's, through the module and voice it names.
    @Test func eachVoiceHasItsOwnRatePitchModuleAndVoice() throws {
        let daemon = try SpeechDaemon(module: .paramlog, also: [.otherlog])
        defer { daemon.stop() }
        var f = feedback()
        f.cueVoice.rate = -20
        f.cueVoice.pitch = 15
        f.publicVoice.rate = 50
        f.publicVoice.module = "otherlog"
        f.publicVoice.voice = "en-gb"
        let warnings = Collected<String>()
        let speech = SpeechPresenter(feedback: f, speaksForTheUser: true, address: daemon.address) { warnings.append($0) }
        try speech.present([at(0, element("b1", "Btn 1"))])
        daemon.waitForSpoken { $0.count >= 1 }
        try speech.present([at(100, .speak("Help me please", voice: .public, from: .message))])
        daemon.waitForSpoken { $0.count >= 2 }
        try speech.present([at(200, element("b2", "Btn 2"))])
        daemon.waitForSpoken { $0.count >= 3 }
        try speech.present([at(300, .speak("Yes", voice: .public, from: .answer))])
        speech.finish()
        let lines = daemon.waitForSpoken { $0.count >= 4 }
        #expect(lines == ["rate=-20.00 volume=0.00 pitch=15.00 Btn 1", "other voice=en-gb rate=50.00 Help me please",
                          "rate=-20.00 volume=0.00 pitch=15.00 Btn 2", "other voice=en-gb rate=50.00 Yes"])
        #expect(warnings.all.isEmpty, "\(warnings.all)")
    }

    /// A voice may be another speech-dispatcher (one playing to headphones, say): the labels
    /// go to the one, the message to the other, and a label said meanwhile neither waits for
    /// the message nor cuts it.
    @Test func aVoiceCanBeAnotherSpeechDispatcher() throws {
        let speaker = try SpeechDaemon(module: .slowlog)
        defer { speaker.stop() }
        let headphones = try SpeechDaemon(module: .textlog)
        defer { headphones.stop() }
        var f = feedback()
        f.cueVoice.address = "unix_socket:" + headphones.socket
        f.publicVoice.address = "unix_socket:" + speaker.socket
        let speech = SpeechPresenter(feedback: f, speaksForTheUser: true) { _ in }
        try speech.present([at(0, .speak("Help me please", voice: .public, from: .message))])
        speaker.waitForSpoken { $0.contains("start Help me please") }
        try speech.present([at(100, element("b1", "Btn 1"))])
        let labels = headphones.waitForSpoken { $0.contains("Btn 1") }
        // The label was said while the message was still being said (it takes half a second).
        let message = speaker.spoken()
        speech.finish()
        #expect(labels == ["Btn 1"])
        #expect(!message.contains("end Help me please"), "the label waited for the message: \(message)")
        #expect(speaker.waitForSpoken { $0.contains("end Help me please") } == ["start Help me please", "end Help me please"])
    }

    /// Scanning by ear: the end of each label is reported with its highlight's time, after
    /// the label has been said; a highlight with no label, or with no speech-dispatcher to
    /// say it, is reported at once.
    @Test func scanningByEarReportsWhenEachLabelHasBeenSaid() throws {
        let daemon = try SpeechDaemon(module: .slowlog)
        defer { daemon.stop() }
        let said = Collected<ScanInstant>()
        let speech = SpeechPresenter(feedback: feedback(), pacing: true, address: daemon.address) { _ in }
        speech.onLabelSaid = { said.append($0) }
        try speech.present([at(1000, element("b1", "Btn 1"))])
        let spoken = daemon.waitForSpoken { $0.contains("end Btn 1") }
        _ = TestTime.poll(timeout: 5) { !said.all.isEmpty }
        #expect(spoken == ["start Btn 1", "end Btn 1"])
        #expect(said.all == [.seconds(1)])
        try speech.present([at(2000, .highlight(item: "m", kind: .menuEntry, frame: nil, label: nil, context: nil))])
        #expect(said.all == [.seconds(1), .seconds(2)], "no label: reported as it is presented")
        speech.finish()

        let gone = SpeechPresenter(feedback: feedback(), pacing: true, address: .unixSocket("/nonexistent/none.sock")) { _ in }
        let unsaid = Collected<ScanInstant>()
        gone.onLabelSaid = { unsaid.append($0) }
        try gone.present([at(3000, element("b1", "Btn 1"))])
        _ = TestTime.poll(timeout: 5) { !unsaid.all.isEmpty }
        #expect(unsaid.all == [.seconds(3)], "no speech-dispatcher: nothing is held for a label")
        gone.finish()
    }

    /// A module or voice speech-dispatcher does not have is said, naming the voice, and its
    /// default speaks instead.
    @Test func aModuleItDoesNotHaveIsSaid() throws {
        let daemon = try SpeechDaemon(module: .textlog)
        defer { daemon.stop() }
        var f = feedback()
        f.publicVoice.module = "nosuchmodule"
        f.cueVoice.voice = "nosuchvoice"
        let warnings = Collected<String>()
        let speech = SpeechPresenter(feedback: f, speaksForTheUser: true, address: daemon.address) { warnings.append($0) }
        try speech.present([at(0, .speak("Thank you", voice: .public, from: .phrase))])
        speech.finish()
        #expect(daemon.waitForSpoken { $0.count >= 1 } == ["Thank you"])
        // One speech-dispatcher: the two voices share a thread, the cue voice connected first.
        #expect(warnings.all == [
            "The cue voice: speech-dispatcher's module has no voice \"nosuchvoice\" (spd-say -L lists them); its default voice speaks instead",
            "The public voice: speech-dispatcher has no output module \"nosuchmodule\" (it has textlog; spd-say -O lists them); its default module speaks instead",
        ])
    }

    /// A select with nothing said after it plays alone, the move click comes before the
    /// words, and the select sound replaces the next move click.
    @Test func soundsForMovesAndSelects() throws {
        try SpeechRequirement.soundIcons.require()
        let move = SoundIcons().move, select = SoundIcons().select
        let expected = ["icon \(select)", "icon \(move)", "Btn 1, button", "icon \(select)", "Volume, 50, adjustable"]
        // The stand-in module (sd_generic) now and then refuses a text that comes right
        // after a sound icon ("301 ERROR CANT SPEAK": it still counts itself speaking); that
        // is the module's race, said in its log, so only such a run is tried again.
        for attempt in 1...3 {
            let daemon = try SpeechDaemon(module: .textlog)
            defer { daemon.stop() }
            let warnings = Collected<String>()
            let speech = SpeechPresenter(feedback: feedback(sound: true), address: daemon.address) { warnings.append($0) }
            try speech.present([at(0, .screen(ShownScreen(tree, serial: 1)))])
            // The lone select first: it is dropped while anything is being said, and when the
            // server counts a spoken line as ended is not something a test can see.
            try speech.present([at(0, .tap(Point(x: 9, y: 9), element: nil))])
            daemon.waitForSpoken { $0.count >= 1 }
            try speech.present([at(1000, element("b1", "Btn 1"))])
            daemon.waitForSpoken { $0.count >= 3 }
            try speech.present([at(2000, .activate(element: "b1", point: Point(x: 5, y: 5), target: "b1")),
                                at(2000, element("vol", "Volume, 50"))])
            daemon.waitForSpoken { $0.count >= 5 }
            speech.finish()
            let spoken = daemon.waitForSpoken(timeout: 0.2) { _ in false }
            if spoken != expected && daemon.log.contains("CANT SPEAK") && attempt < 3 { continue }
            #expect(spoken == expected, "--- speech-dispatcher's log ---\n\(daemon.log)")
            #expect(warnings.all.isEmpty)
            return
        }
    }

    /// A select with nothing said after it does not cut the highlight being said (it is
    /// dropped instead).
    @Test func aLoneSelectSoundDoesNotCutSpeech() throws {
        try SpeechRequirement.soundIcons.require()
        let daemon = try SpeechDaemon(module: .slowlog)
        defer { daemon.stop() }
        let speech = SpeechPresenter(feedback: feedback(sound: true), address: daemon.address) { _ in }
        try speech.present([at(0, element("b1", "Btn 1"))])
        // The select must come while the highlight is being said: a loaded machine starts
        // the server's first speech late.
        try #require(daemon.waitForSpoken(timeout: 30) { $0.contains("start Btn 1") }.contains("start Btn 1"),
                     "--- speech-dispatcher's log ---\n\(daemon.log)")
        try speech.present([at(100, .tap(Point(x: 9, y: 9), element: nil))])
        // Once Btn 1 is said whole, one more: a select sound dropped late would come before it.
        daemon.waitForSpoken { $0.contains("end Btn 1") }
        try speech.present([at(200, element("b2", "Btn 2"))])
        speech.finish()
        daemon.waitForSpoken { $0.contains("end Btn 2") }
        let move = "icon \(SoundIcons().move)"
        #expect(daemon.spoken() == [move, "start Btn 1", "end Btn 1", move, "start Btn 2", "end Btn 2"])
    }

    /// A server that goes away mid-session: one warning, no crash (libspeechd writes with
    /// write(2): SIGPIPE), and the presenter goes quiet.
    @Test func whenTheServerGoesAwayOneWarning() throws {
        let daemon = try SpeechDaemon(module: .textlog)
        let warnings = Collected<String>()
        let speech = SpeechPresenter(feedback: feedback(), address: daemon.address) { warnings.append($0) }
        try speech.present([at(0, element("b1", "Btn 1"))])
        daemon.waitForSpoken { $0.count >= 1 }
        daemon.stop()
        for i in 1...3 { try speech.present([at(Int64(i) * 100, element("b1", "Btn 1"))]) }
        // Ends the speech thread once it has done what it was given.
        speech.finish()
        #expect(warnings.all == ["speech-dispatcher stopped answering; scanning goes on without speech"])
    }

    /// Sounds alone when speech is off: clicks, no words, no announcements.
    @Test func soundsWithoutSpeech() throws {
        try SpeechRequirement.soundIcons.require()
        let daemon = try SpeechDaemon(module: .textlog)
        defer { daemon.stop() }
        let speech = SpeechPresenter(feedback: feedback(speech: false, sound: true), address: daemon.address) { _ in }
        try speech.present([at(0, element("b1", "Btn 1"))])
        daemon.waitForSpoken { $0.count >= 1 }
        try speech.present([at(1000, .announce("Screen changed")), at(1000, .enterGroup("g1")), at(1000, element("b2", "Btn 2"))])
        daemon.waitForSpoken { $0.count >= 2 }
        speech.finish()
        #expect(daemon.waitForSpoken(timeout: 0.2) { _ in false } == ["icon \(SoundIcons().move)", "icon \(SoundIcons().select)"])
    }

    /// Highlight → BEGIN with espeak-ng rendering into the ALSA file sink. Printed, not
    /// asserted (tests never assert speed); that BEGIN comes at all is asserted.
    @Test func beginLatencyWithEspeak() throws {
        let daemon = try SpeechDaemon(module: .espeak)
        defer { daemon.stop() }
        let begins = Collected<SpeechBegin>()
        let speech = SpeechPresenter(feedback: feedback(), address: daemon.address) { _ in }
        try speech.present([at(0, .screen(ShownScreen(tree, serial: 1)))])
        speech.onSpeechBegin = { begins.append($0) }
        let runs = 30
        var presentTimes: [Double] = []
        for i in 0..<runs {
            let before = monotonicMilliseconds()
            try speech.present([at(Int64(i) * 100, element("b1", "Btn \(i)"))])
            presentTimes.append(monotonicMilliseconds() - before)
            // Its BEGIN before the next highlight (which may then cut its label short, as a
            // quick scan does).
            begins.wait(forMoreThan: i, timeout: 2)
        }
        speech.finish()
        // Each BEGIN was paired with its own highlight: distinct, in order.
        let numbers = begins.all.compactMap { Int($0.text.dropFirst(4).prefix { $0.isNumber }) }
        #expect(numbers.count == begins.all.count && numbers == numbers.sorted() && Set(numbers).count == numbers.count,
                "\(begins.all.map(\.text))")
        #expect(begins.all.allSatisfy { $0.text.hasSuffix(", button") })
        let latencies = begins.all.map { Double($0.latency.nanoseconds) / 1e6 }.sorted()
        #expect(latencies.count >= runs / 2, "BEGIN for \(latencies.count) of \(runs) highlights")
        func p(_ values: [Double], _ q: Double) -> Double {
            let v = values.sorted()
            return v.isEmpty ? .nan : v[min(v.count - 1, Int(Double(v.count) * q))]
        }
        print(String(format: "highlight → BEGIN (espeak-ng, ALSA file sink): n=%d p50=%.2f ms p90=%.2f ms max=%.2f ms; present() p50=%.3f ms max=%.3f ms",
                     latencies.count, p(latencies, 0.5), p(latencies, 0.9), latencies.last ?? .nan,
                     p(presentTimes, 0.5), presentTimes.max() ?? .nan))
        // The module writes its sound after BEGIN, in its own time: waited for, up to 10 s.
        func audio() -> Int { (try? FileManager.default.attributesOfItem(atPath: daemon.audioFile)[.size] as? Int) ?? 0 }
        _ = waitForFiles(in: (daemon.audioFile as NSString).deletingLastPathComponent, timeout: 10) { audio() > 0 }
        #expect(audio() > 0, "espeak-ng wrote no audio to \(daemon.audioFile) within 10 s")
    }
}

/// What is said, without a server (the pure part).
@Suite("Spoken text")
struct SpokenTextTests {
    @Test(arguments: [
        (HighlightKind.element, "Btn 1", TraitSet([.button]), "Btn 1, button"),
        (.element, "OK button", TraitSet([.button]), "OK button"),
        (.element, "Buttons", TraitSet([.button]), "Buttons, button"),
        (.element, "Volume, 50", TraitSet([.adjustable, .button]), "Volume, 50, adjustable"),
        (.element, "Zoom slider, 2", TraitSet([.adjustable]), "Zoom slider, 2"),
        (.element, "Docs", TraitSet([.link, .button]), "Docs, link"),
        (.element, "Search", TraitSet([.searchField]), "Search"),
        (.element, "Title", TraitSet([.staticText]), "Title"),
        (.element, "", TraitSet([.button]), "button"),
        (.group, "Btn 5, Btn 6", TraitSet(), "Btn 5, Btn 6, group"),
        (.group, "Toolbar group", TraitSet(), "Toolbar group"),
        (.menuEntry, "Tap", TraitSet([.button]), "Tap"),
        (.exit, "Exit group", TraitSet(), "Exit group"),
    ] as [(HighlightKind, String, TraitSet, String)])
    func highlight(_ kind: HighlightKind, _ label: String, _ traits: TraitSet, _ said: String) {
        #expect(UtterancePlan.highlightText(kind: kind, label: label, traits: traits) == said)
    }

    @Test func nothingToSay() {
        #expect(UtterancePlan.highlightText(kind: .element, label: nil, traits: TraitSet([.staticText])) == nil)
        #expect(UtterancePlan.highlightText(kind: .element, label: "", traits: nil) == nil)
    }
}

/// Scanning by ear (`speechPacing`, docs/LISTENING.md): a highlight lasts until its label has
/// been said, and never less than the interval; a label still being said at
/// `speechPacingLimit` is cut and the scan moves on. Live, the speech presenter reports the
/// end of each label (`labelSaid`); where nothing reports it (virtual time, `cost`, a run
/// without speech-dispatcher) the time a label takes is estimated from its length.
extension ScanEngine {
    /// The highlight being paced: when it was shown, the earliest it may move (the
    /// interval's end), and whether its label has been said.
    struct PacedHighlight: Hashable, Sendable {
        var shownAt: ScanInstant
        var earliest: ScanInstant
        /// When speech-dispatcher began to say it (live): the limit counts from there, since
        /// a label may wait behind a message being said.
        var began: ScanInstant?
        var said = false
    }

    /// Live, the longest a label may wait to begin (behind the person's message, say) before
    /// the scan moves on anyway: a speech-dispatcher that stopped answering holds no more.
    static let labelBeginWait = ScanDuration.seconds(10)

    /// Pacing applies to auto scanning with speech on.
    var pacesBySpeech: Bool { settings.speechPacing && settings.feedback.speech && settings.style == .auto }

    /// The time a label takes to say, estimated: a word is six characters (five and a
    /// space) said at `rate` words a minute, and 0.45 s more for the voice to begin and the
    /// pause at the end. Fitted to espeak-ng at speech-dispatcher's rate 0 (docs/LISTENING.md).
    /// Zero for no label.
    public static func labelSeconds(_ label: String, rate: Double) -> Double {
        let characters = label.unicodeScalars.count
        guard characters > 0, rate > 0 else { return 0 }
        return labelStart + Double(characters) / 6 / (rate / 60)
    }

    public static let labelStart = 0.45

    /// The move's deadline for the highlight shown at `base`, given the interval's end.
    mutating func pacedDeadline(from base: ScanInstant, earliest: ScanInstant) -> ScanInstant {
        guard pacesBySpeech else {
            paced = nil
            return earliest
        }
        paced = PacedHighlight(shownAt: base, earliest: earliest)
        // Reported live: the deadline is the interval's, and the label holds it (below).
        if labelsReported { return earliest }
        let estimate = min(settings.speechPacingLimit.seconds, Self.labelSeconds(pacedLabel, rate: settings.speakingRate))
        return max(earliest, base + .seconds(estimate))
    }

    /// At the move's deadline: whether the highlight stays, its label not said yet (live:
    /// until it is, or until the limit).
    mutating func holdsForLabel(at d: ScanInstant) -> Bool {
        guard labelsReported, let p = paced, !p.said else { return false }
        let limit = p.began.map { $0 + settings.speechPacingLimit } ?? p.shownAt + max(settings.speechPacingLimit, Self.labelBeginWait)
        guard d < limit else { return false }
        timers[.move] = limit
        return true
    }

    /// The label of the highlight shown at `shownAt` began to be said: from now it has
    /// `speechPacingLimit`. (A report for an earlier showing of the same item, re-sent with
    /// a new label, counts too: nothing else was highlighted since.)
    public mutating func labelBegan(shownAt: ScanInstant, at t: ScanInstant) -> [TimedEffect] {
        begin(t)
        guard var p = paced, shownAt >= p.shownAt, p.began == nil, !p.said else { return finish() }
        p.began = now
        paced = p
        // Held past the interval, waiting for it to begin: the limit now counts from here.
        if timers[.move] != nil, now >= p.earliest { timers[.move] = now + settings.speechPacingLimit }
        return finish()
    }

    /// At the move's deadline, the highlight moving on: whether its label was cut (still
    /// being said at the limit, or in virtual time estimated longer than it).
    func cutsLabel() -> Bool {
        guard let p = paced, !p.said, pacesBySpeech else { return false }
        if labelsReported { return true }
        return Self.labelSeconds(pacedLabel, rate: settings.speakingRate) > settings.speechPacingLimit.seconds
    }

    /// Whether the speech presenter reports the end of each label (a live run that speaks;
    /// where speech-dispatcher is missing or went away it reports each label as said at
    /// once, so nothing is held).
    public mutating func setLabelsReported(_ on: Bool) {
        labelsReported = on
    }

    /// The label of the highlight shown at `shownAt` (or shown again since) has been said
    /// (speech-dispatcher's END, or it was cancelled): a highlight held for it moves on now.
    public mutating func labelSaid(shownAt: ScanInstant, at t: ScanInstant) -> [TimedEffect] {
        begin(t)
        guard var p = paced, shownAt >= p.shownAt, !p.said else { return finish() }
        p.said = true
        paced = p
        if timers[.move] != nil, now >= p.earliest {
            timers[.move] = nil
            autoStep(at: now)
        }
        return finish()
    }
}

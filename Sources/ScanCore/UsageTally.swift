/// What a person did while scanning, as counts only (never what they wrote): the figures
/// `switchscan report` shows a carer or therapist, day by day. The engine keeps them when
/// asked (`ScanEngine.tallies`), and the runtime takes them now and then and adds them to
/// the day's line of the usage log.
public struct Usage: Hashable, Sendable {
    /// Switch presses the engine acted on (a bounce or a tremor the filter dropped is none).
    public var presses = 0
    /// `select` presses in item scanning: an item, a group, a menu entry, a key chosen.
    public var selections = 0
    /// Selections taken back by the next one (a group left by its Exit item, a menu closed
    /// unanswered, a key taken back by Backspace): a late or a wrong press.
    public var undone = 0
    /// Reaction times of the selections not undone, in auto scanning: how long after their
    /// highlight came the press was (only those within the plain interval: a long first
    /// item's or a long label's are not the person's usual timing).
    public var reactions = 0
    public var reactionSum = 0.0
    public var reactionSquares = 0.0
    /// The auto-scan interval summed over the selections made with it: its mean is the day's.
    public var intervalSelections = 0
    public var intervalSum = 0.0
    /// Words begun on the keyboard (a password field's are not counted).
    public var words = 0
    /// Seconds spent writing: the time between keys typed, leaving out pauses of
    /// `UsageTally.writingPause` or more.
    public var writingSeconds = 0.0
    /// Seconds the scanner ran.
    public var runningSeconds = 0.0

    public init() {}

    public var isEmpty: Bool { self == Usage() }

    /// Both days' (or both sessions') counts together.
    public mutating func add(_ o: Usage) {
        presses += o.presses
        selections += o.selections
        undone += o.undone
        reactions += o.reactions
        reactionSum += o.reactionSum
        reactionSquares += o.reactionSquares
        intervalSelections += o.intervalSelections
        intervalSum += o.intervalSum
        words += o.words
        writingSeconds += o.writingSeconds
        runningSeconds += o.runningSeconds
    }

    public var meanReaction: Double? { reactions > 0 ? reactionSum / Double(reactions) : nil }

    /// The reactions' standard deviation (of the sample); nil for fewer than two.
    public var reactionSpread: Double? {
        guard reactions > 1, let mean = meanReaction else { return nil }
        let n = Double(reactions)
        return max(0, (reactionSquares - n * mean * mean) / (n - 1)).squareRoot()
    }

    public var meanInterval: Double? { intervalSelections > 0 ? intervalSum / Double(intervalSelections) : nil }

    /// The share of selections undone; nil without selections.
    public var undoneRate: Double? { selections > 0 ? Double(undone) / Double(selections) : nil }

    /// Words a minute of writing; nil with under 10 seconds of it.
    public var wordsPerMinute: Double? { writingSeconds >= 10 ? Double(words) / (writingSeconds / 60) : nil }
}

/// The engine's running count: `Usage` and what it needs to tell what comes next (the
/// selection the next may undo, the last key typed).
struct UsageTally: Hashable, Sendable {
    var counts = Usage()
    /// The last selection, with its reaction time while the next may still undo it.
    var pending: (kind: TimingAdapter.Selection, reaction: Double?)?
    var lastTyped: ScanInstant?
    var inWord = false

    /// A pause in writing this long or longer is not writing time.
    static let writingPause = 30.0

    static func == (a: UsageTally, b: UsageTally) -> Bool {
        a.counts == b.counts && a.pending?.kind == b.pending?.kind && a.pending?.reaction == b.pending?.reaction
            && a.lastTyped == b.lastTyped && a.inWord == b.inWord
    }

    func hash(into h: inout Hasher) { h.combine(counts) }

    /// A selection: what it did, its press's latency (auto scanning) and the interval it was
    /// made at (nil: not auto scanning).
    mutating func selected(_ kind: TimingAdapter.Selection, latency: Double?, interval: Double?) {
        counts.selections += 1
        if let p = pending {
            if TimingAdapter.undoes(kind, p.kind) {
                counts.undone += 1
                pending = nil
                return
            }
            if let r = p.reaction { reacted(r) }
        }
        if let interval {
            counts.intervalSelections += 1
            counts.intervalSum += interval
        }
        // Sooner than anyone reacts: meant for the item before. Later than the plain
        // interval: a longer highlight's.
        let usual = latency.flatMap { l in interval.flatMap { l >= TimingAdapter.tooSoon && l <= $0 ? l : nil } }
        pending = (kind, usual)
    }

    mutating func reacted(_ r: Double) {
        counts.reactions += 1
        counts.reactionSum += r
        counts.reactionSquares += r * r
    }

    /// Text typed at `t` (into a password field: `secret`, whose letters are not looked at):
    /// words begun, and the time writing.
    mutating func typed(_ text: String, secret: Bool = false, at t: ScanInstant) {
        wrote(at: t)
        guard !secret else { inWord = false; return }
        for c in text.unicodeScalars {
            let letter = c.properties.isAlphabetic || c.properties.numericType != nil
            if letter && !inWord { counts.words += 1 }
            inWord = letter || (inWord && (c == "'" || c == "\u{2019}" || c == "-"))
        }
    }

    /// Text deleted at `t`: a word mended, or a prediction replacing what was typed of it,
    /// is still the word begun.
    mutating func deleted(at t: ScanInstant) { wrote(at: t) }

    /// A key that ends a word (Enter, Tab, an arrow, a shortcut) at `t`.
    mutating func brokeWord(at t: ScanInstant) {
        wrote(at: t)
        inWord = false
    }

    mutating func wrote(at t: ScanInstant) {
        if let last = lastTyped {
            let gap = (t - last).seconds
            if gap < Self.writingPause { counts.writingSeconds += gap }
        }
        lastTyped = t
    }

    /// At the end: the last selection, which nothing can undo any more, counts.
    mutating func settle() {
        if let r = pending?.reaction { reacted(r) }
        pending = nil
    }
}

extension ScanEngine {
    /// The counts kept since the last take (`tallies` on), and a fresh start for the next;
    /// the selection the next may still undo stays pending, unless this is the `last` take.
    public mutating func takeUsage(last: Bool = false) -> Usage {
        if last { usage.settle() }
        let taken = usage.counts
        usage.counts = Usage()
        return taken
    }

    /// Reads a selection's effects for the tally.
    mutating func tally(_ kind: TimingAdapter.Selection, latency: Double?, effects: ArraySlice<TimedEffect>) {
        usage.selected(kind, latency: latency, interval: settings.style == .auto ? interval.seconds : nil)
        for e in effects {
            switch e.effect {
            case .typeText(let text, let secret): usage.typed(text, secret: secret, at: e.time)
            case .deleteText: usage.deleted(at: e.time)
            case .key, .shortcut: usage.brokeWord(at: e.time)
            default: break
            }
        }
    }
}

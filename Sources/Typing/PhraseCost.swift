import ScanCore
import WordPrediction

/// What saying a prepared phrase costs on the message screen: from the screen's start, its
/// Phrases key, More past the pages before the phrase's, then the row and the phrase,
/// with the presses of `cost`'s modelled user (`ScanCost.reach`). The costs come from the
/// engine and the screen themselves, in virtual time: the press times, given to
/// `simulate --messages` with the same phrases as `select` presses, say the phrase at
/// exactly `seconds`.
public struct PhraseCost: Hashable, Sendable {
    public var phrase: String
    /// Until the phrase is said (its `speak` effect).
    public var seconds: Double
    /// The presses: in auto and step scanning each a selection (a group, a key); in manual
    /// scanning the `next` presses too.
    public var presses: Int
    public var pressTimes: [ScanInstant]
    /// Manual scanning's `next` presses.
    public var nextTimes: [ScanInstant]
    /// Hold scanning: when each `select` press is let go.
    public var releaseTimes: [ScanInstant] = []

    public enum Problem: Error, CustomStringConvertible, Sendable {
        /// A key on the way could not be reached (the scan stopped, or the settings hide it).
        case unreachable(key: String, phrase: String)
        /// Settings no modelled user could work with (`ScanCost.check`).
        case settings(ScanCost.Problem)

        public var description: String {
            switch self {
            case .settings(let p): p.description
            case let .unreachable(key, phrase): "the key \(key) could not be reached on the way to the phrase \"\(phrase.count > 60 ? phrase.prefix(60) + "…" : phrase)\""
            }
        }
    }

    /// The cost of each phrase, each from the message screen's start.
    public static func compute(_ phrases: [String], layout: KeyboardLayout, predictor: WordPredictor,
                               settings: ScanSettings) throws(Problem) -> [PhraseCost] {
        // The message screen is scanned item by item, whatever mode the settings start in.
        var settings = settings
        settings.mode = .item
        do { try ScanCost.check(settings) } catch { throw .settings(error) }
        var out: [PhraseCost] = []
        for k in phrases.indices {
            var engine = MessageSession.engine(layout: layout, predictor: predictor, settings: settings, phrases: phrases)
            let start = engine.start(at: .zero)
            guard var shown = start.last(where: { if case .highlight = $0.effect { true } else { false } })?.time else {
                throw .unreachable(key: "messageKeys", phrase: phrases[k])
            }
            let page = k / (MessageScreen.phrasesPerRow * MessageScreen.phraseRows)
            let keys = ["phrases"] + Array(repeating: "more", count: page) + ["phrase\(k + 1)"]
            var selects: [ScanInstant] = [], nexts: [ScanInstant] = [], releases: [ScanInstant] = []
            var said: ScanInstant?
            for key in keys {
                guard let r = ScanCost.reach(&engine, element: key, shownAt: shown, lastPress: selects.last) else {
                    throw .unreachable(key: key, phrase: phrases[k])
                }
                selects += r.selectTimes
                nexts += r.nextTimes
                releases += r.releaseTimes
                said = r.effects.first(where: { if case .speak = $0.effect { true } else { false } })?.time
                guard let last = r.effects.last(where: { if case .highlight = $0.effect { true } else { false } }) else { break }
                shown = last.time
            }
            guard let said else { throw .unreachable(key: "phrase\(k + 1)", phrase: phrases[k]) }
            var cost = PhraseCost(phrase: phrases[k], seconds: said.seconds, presses: selects.count + nexts.count,
                                  pressTimes: selects, nextTimes: nexts)
            cost.releaseTimes = releases
            out.append(cost)
        }
        return out
    }
}

import ScanCore
import WordPrediction

/// What typing a text costs a switch user on the scanning keyboard. The modelled user of
/// `cost` (a press `reactionTime` after the wanted key is highlighted, 50 ms long) types
/// into an empty field of a kind (prose unless told: `TextEntryKind`), choosing a
/// prediction as soon as one offers the word being typed, else the next character (going
/// to the other page for a symbol). A capital the keyboard does not offer costs Shift
/// first; a small letter where it offers a capital is taken as it comes. A space the
/// keyboard's rules put where the text has none ("note. txt" in prose) is taken back with
/// Backspace. The costs come from the engine and the keyboard themselves, in virtual time,
/// so feeding `pressTimes` to `simulate --keyboard` as `select` presses types the text, its
/// last `typeText` at exactly `seconds`. Nothing is learned, unless asked
/// (`computeLearning`).
public struct TextCost: Hashable, Sendable {
    public var text: String
    public var seconds: Double
    public var pressTimes: [ScanInstant]
    /// Manual scanning's `next` presses.
    public var nextTimes: [ScanInstant]
    /// Hold scanning: when each `select` press is let go.
    public var releaseTimes: [ScanInstant] = []
    public var presses: Int { pressTimes.count + nextTimes.count }
    /// What a late person (`reactionSpread`) takes on average: each wrong key taken back
    /// with Backspace, each group or menu they did not want left (docs/COST.md).
    public var expectedSeconds: Double
    public var wrongSelections = 0.0
    public var expectedSelections: Double

    public init(text: String, seconds: Double, pressTimes: [ScanInstant], nextTimes: [ScanInstant]) {
        self.text = text; self.seconds = seconds; self.pressTimes = pressTimes; self.nextTimes = nextTimes
        expectedSeconds = seconds
        expectedSelections = Double(pressTimes.count + nextTimes.count)
    }

    public enum Problem: Error, CustomStringConvertible, Sendable {
        case settings(ScanCost.Problem)
        /// No key types this character, at `offset` (0-based) in the text as typed (lower case).
        case noKey(Character, text: String, offset: Int)
        /// The keyboard could not bring the field to the text (the text's spacing differs
        /// from the keyboard's punctuation rules), or a key could not be reached.
        case stuck(text: String, typed: String)

        /// Texts are quoted as excerpts: a text may be a megabyte long.
        public var description: String {
            switch self {
            case .settings(let p): return p.description
            case let .noKey(c, text, offset):
                return "no key of the keyboard types \(TerminalText.excerpt(String(c), limit: 8).debugDescription) "
                    + "(character \(offset + 1) of \(TerminalText.excerpt(text, around: offset).debugDescription))"
            case let .stuck(text, typed):
                let tail = typed.count > 40 ? "…" + TerminalText.excerpt(typed.suffix(40), limit: 40) : TerminalText.excerpt(typed, limit: 40)
                return "the modelled user could not type \(TerminalText.excerpt(text, limit: 40).debugDescription): the field ends in \(tail.debugDescription) "
                    + "(a space goes after . , ? ! : ; and not before them)"
            }
        }
    }

    /// The cost of each text, each from an empty field.
    public static func compute(_ texts: [String], layout: KeyboardLayout, predictor: WordPredictor,
                               settings: ScanSettings, field: TextEntryKind = .text) throws(Problem) -> [TextCost] {
        var results: [TextCost] = []
        for text in texts { results.append(try compute(text, layout: layout, predictor: predictor, settings: settings, field: field)) }
        return results
    }

    /// The cost of one text, in time linear in its length: what is typed is compared with
    /// the text as it grows (the length of their common start is kept), never again whole.
    public static func compute(_ text: String, layout: KeyboardLayout, predictor: WordPredictor,
                               settings: ScanSettings, field kind: TextEntryKind = .text, memo: LateMemo? = nil) throws(Problem) -> TextCost {
        var predictor = predictor
        return try compute(text, layout: layout, predictor: &predictor, learns: false, settings: settings, field: kind, memo: memo)
    }

    /// The cost of one text, typed by a user whose keyboard learns as `run`'s does: each
    /// word as it is finished, the last one when the text is done (a person sends it or
    /// moves on), and none in fields that learn nothing. `predictor` comes back with them,
    /// for the next text: `cost --learn`, a model of days of use.
    public static func computeLearning(_ text: String, layout: KeyboardLayout, predictor: inout WordPredictor,
                                       settings: ScanSettings, field kind: TextEntryKind = .text, memo: LateMemo? = nil) throws(Problem) -> TextCost {
        try compute(text, layout: layout, predictor: &predictor, learns: kind.learnsWords && settings.typing.learnWords,
                    settings: settings, field: kind, memo: memo)
    }

    static func compute(_ text: String, layout: KeyboardLayout, predictor: inout WordPredictor, learns: Bool,
                        settings: ScanSettings, field kind: TextEntryKind, memo: LateMemo? = nil) throws(Problem) -> TextCost {
        // What mistakes cost, by where they are made: kept for the whole text at least.
        let memo = memo ?? LateMemo()
        var settings = settings
        settings.mode = .item
        if (settings.style == .auto || settings.style == .hold) && settings.reactionTime >= settings.autoScanInterval {
            throw .settings(.reactionTooSlow(than: "autoScanInterval"))
        }
        if settings.style == .step && settings.reactionTime >= settings.stepSelectDelay { throw .settings(.reactionTooSlow(than: "stepSelectDelay")) }
        let target = Array(text)
        // A character no key types is said before anything is typed, with its place.
        for (i, c) in target.enumerated() where layout.key(typing: Self.unshifted(c)) == nil {
            throw .noKey(Self.unshifted(c), text: String(text.lowercased()), offset: i)
        }
        let words = WordSpans(target)
        var wanted = target.count
        while wanted > 0 && target[wanted - 1] == " " { wanted -= 1 }
        var engine = KeyboardSession.engine(layout: layout, predictor: predictor, settings: settings, field: kind, learns: learns)
        let start = engine.start(at: .zero)
        var shown = start.last { if case .highlight = $0.effect { return true } else { return false } }?.time ?? .zero
        var field = Field(target: target)
        var cost = TextCost(text: text, seconds: 0, pressTimes: [], nextTimes: [])
        var lateSeconds = 0.0, lateSelections = 0.0
        var steps = 0
        // Done when the field holds the text, spaces at the end aside.
        while !(field.typed.count - field.trailingSpaces == wanted && field.matched >= wanted) {
            steps += 1
            // Where the text goes on: after what is typed, or before the space a prediction
            // added where punctuation follows (its key takes the space back).
            var pos = field.typed.count
            var correct = false
            if field.matched == pos {
            } else if field.typed.last == " ", pos - 1 < target.count, ".,?!:;".contains(target[pos - 1]), field.matched >= pos - 1 {
                pos -= 1
            } else if field.typed.last == " ", field.matched == pos - 1 {
                // A space the text does not have (after a full stop in "note.txt"): taken back.
                correct = true
            } else {
                throw .stuck(text: text, typed: String(field.typed))
            }
            guard steps <= 6 * target.count + 16, let keyboard = engine.presentedLogic as? Keyboard else {
                throw .stuck(text: text, typed: String(field.typed))
            }
            // A space a prediction or comma left to come is typed with the next word, free.
            if !correct, keyboard.pendingSpace, pos + 1 < target.count, target[pos] == " ",
               target[pos + 1].isLetter || target[pos + 1].isNumber {
                pos += 1
            }
            let key = correct ? "backspace" : try wantedKey(target, at: pos, words, keyboard)
            let lastPress = [cost.pressTimes.last, cost.nextTimes.last].compactMap { $0 }.max()
            guard let reached = ScanCost.reach(&engine, element: key, shownAt: shown, lastPress: lastPress) else {
                throw .stuck(text: text, typed: String(field.typed))
            }
            cost.pressTimes += reached.selectTimes
            cost.nextTimes += reached.nextTimes
            cost.releaseTimes += reached.releaseTimes
            if settings.reactionSpread > .zero {
                let late = reached.lateCosts(settings, memo: memo)
                lateSeconds += late.seconds
                cost.wrongSelections += late.wrong
                lateSelections += late.selections
            }
            for e in reached.effects {
                switch e.effect {
                case .typeText(let s, _):
                    field.append(s)
                    cost.seconds = e.time.seconds
                case .deleteText(let n):
                    field.removeLast(n)
                case .key(.enter):
                    field.append("\n")
                    cost.seconds = e.time.seconds
                default:
                    break
                }
            }
            shown = reached.effects.last { if case .highlight = $0.effect { return true } else { return false } }?.time ?? reached.activatedAt
        }
        cost.expectedSeconds = cost.seconds + lateSeconds
        cost.expectedSelections = Double(cost.presses) + lateSelections
        if learns, var keyboard = engine.presentedLogic as? Keyboard {
            var effects: [Effect] = []
            keyboard.learn(keyboard.partialWord, after: keyboard.previousWord, &effects)
            if let learned = keyboard.predictor { predictor = learned }
        }
        return cost
    }

    /// The field as the modelled user sees it: what is typed, how much of its start is the
    /// text's (`matched`), and how many spaces end it; each kept up to date as it changes.
    struct Field {
        let target: [Character]
        var typed: [Character] = []
        var matched = 0
        var trailingSpaces = 0

        mutating func append(_ s: String) {
            for c in s {
                if matched == typed.count && matched < target.count && TextCost.typed(c, as: target[matched]) { matched += 1 }
                typed.append(c)
                trailingSpaces = c == " " ? trailingSpaces + 1 : 0
            }
        }

        mutating func removeLast(_ n: Int) {
            typed.removeLast(min(n, typed.count))
            matched = min(matched, typed.count)
            // Only punctuation taking back a space deletes: the spaces before are few.
            trailingSpaces = 0
            while trailingSpaces < typed.count && typed[typed.count - 1 - trailingSpaces] == " " { trailingSpaces += 1 }
        }
    }

    /// Where the word around each place of a text starts and ends, found once.
    struct WordSpans {
        var starts: [Int]
        var ends: [Int]

        init(_ target: [Character]) {
            let n = target.count
            starts = Array(repeating: 0, count: n + 1)
            ends = Array(repeating: n, count: n + 1)
            for i in 0...n { starts[i] = i > 0 && Keyboard.isWordCharacter(target[i - 1]) ? starts[i - 1] : i }
            for i in stride(from: n, through: 0, by: -1) { ends[i] = i < n && Keyboard.isWordCharacter(target[i]) ? ends[i + 1] : i }
        }
    }

    /// The key the modelled user wants next: a prediction that offers the word being
    /// typed (when a space or punctuation follows it in the text), else the key of the next
    /// character, else the key to the page that has it.
    static func wantedKey(_ target: [Character], at pos: Int, _ words: WordSpans, _ keyboard: Keyboard) throws(Problem) -> String {
        let start = words.starts[pos], end = words.ends[pos]
        // A word longer than any in a word list is never predicted (nor copied at each step).
        // (Not once the word is typed whole: outside prose a prediction then adds nothing.)
        if end > start, pos < end, end - start <= WordList.maxWordLength, end == target.count || " .,?!:;".contains(target[end]) {
            let word = target[start..<end]
            if let k = keyboard.predictions.firstIndex(where: { p in p.count == word.count && zip(p, word).allSatisfy { typed($0, as: $1) } }) {
                return "prediction\(k + 1)"
            }
        }
        let c = target[pos]
        guard let (page, id) = keyboard.layout.key(typing: unshifted(c), preferring: keyboard.page) else {
            throw .noKey(unshifted(c), text: String(String(target).lowercased()), offset: pos)
        }
        guard page == keyboard.page else { return page == .symbols ? "symbols" : "letters" }
        // A capital the keyboard does not offer: Shift first.
        if c.isUppercase && !keyboard.capital { return "shift" }
        return id
    }

    /// The character a key types without Shift ("S" is the s key's).
    static func unshifted(_ c: Character) -> Character { c.isUppercase ? Character(c.lowercased()) : c }

    /// Whether `c`, typed, is the text's `wanted`: itself, or its capital where a small letter
    /// is wanted (the keyboard offered a capital, and the modelled user took it).
    static func typed(_ c: Character, as wanted: Character) -> Bool {
        c == wanted || (wanted.isLowercase && Character(c.lowercased()) == wanted)
    }

    public struct Summary: Hashable, Sendable {
        public var texts: Int
        public var characters: Int
        public var seconds: Double
        public var presses: Int
        public var wordsPerMinute: Double
        public var pressesPerCharacter: Double
        /// The late person's (`reactionSpread`): seconds, words a minute, and wrong
        /// selections per selection made.
        public var expectedSeconds = 0.0
        public var expectedWordsPerMinute = 0.0
        public var wrongSelections = 0.0
        public var expectedSelections = 0.0
        public var errorRate: Double { expectedSelections > 0 ? wrongSelections / expectedSelections : 0 }

        /// Nothing costed yet; `add` each text as it is costed (the summary needs no list).
        public init() {
            texts = 0; characters = 0; seconds = 0; presses = 0; wordsPerMinute = 0; pressesPerCharacter = 0
        }

        public init(_ costs: [TextCost]) {
            self.init()
            for c in costs { add(c) }
        }

        public mutating func add(_ c: TextCost) {
            texts += 1
            characters += c.text.count
            seconds += c.seconds
            presses += c.presses
            wordsPerMinute = seconds > 0 ? (Double(characters) / 5) / (seconds / 60) : 0
            pressesPerCharacter = characters > 0 ? Double(presses) / Double(characters) : 0
            expectedSeconds += c.expectedSeconds
            wrongSelections += c.wrongSelections
            expectedSelections += c.expectedSelections
            expectedWordsPerMinute = expectedSeconds > 0 && expectedSeconds.isFinite ? (Double(characters) / 5) / (expectedSeconds / 60) : 0
        }
    }
}

/// An engine showing the keyboard over an empty screen, as `simulate --keyboard` and
/// `cost --text` start it: an empty field, learning nothing unless `learns`.
public enum KeyboardSession {
    public static func engine(layout: KeyboardLayout, predictor: WordPredictor, settings: ScanSettings, field: TextEntryKind = .text,
                              learns: Bool = false) -> ScanEngine {
        // As `run` opens it over such a field (KeyboardMaker), learning nothing unless asked.
        var typing = settings.typing
        if !field.isProse { typing.autoCapitalize = false }
        var keyboard = Keyboard(layout: layout, predictor: predictor, settings: typing, learns: learns, secret: field.isSecret,
                                predicts: field.predictsWords, field: field)
        let opened = keyboard.opened()
        var root = ElementNode(id: "screen")
        root.frame = Rect(x: 0, y: 0, width: Keyboard.size.width, height: Keyboard.size.height)
        let empty = ElementTree(screenID: "empty", size: Keyboard.size, nodes: [root])
        var engine = ScanEngine(tree: empty, settings: settings)
        _ = engine.present(keyboard.tree, logic: keyboard, effects: opened, at: .zero)
        return engine
    }
}

import ScanCore
import WordPrediction

/// What typing a text costs a switch user on the scanning keyboard. The modelled user of
/// `cost` (a press `reactionTime` after the wanted key is highlighted, 50 ms long) types
/// into an empty field, choosing a prediction as soon as one offers the word being typed,
/// else the next character (going to the other page for a symbol). The costs come from
/// the engine and the keyboard themselves, in virtual time, so feeding `pressTimes` to
/// `simulate --keyboard` as `select` presses types the text, its last `typeText` at
/// exactly `seconds`. Nothing is learned.
public struct TextCost: Hashable, Sendable {
    public var text: String
    public var seconds: Double
    public var pressTimes: [ScanInstant]
    /// Manual scanning's `next` presses.
    public var nextTimes: [ScanInstant]
    public var presses: Int { pressTimes.count + nextTimes.count }

    public init(text: String, seconds: Double, pressTimes: [ScanInstant], nextTimes: [ScanInstant]) {
        self.text = text; self.seconds = seconds; self.pressTimes = pressTimes; self.nextTimes = nextTimes
    }

    public enum Problem: Error, CustomStringConvertible, Sendable {
        case settings(ScanCost.Problem)
        /// No key types this character.
        case noKey(Character, text: String)
        /// The keyboard could not bring the field to the text (the text's spacing differs
        /// from the keyboard's punctuation rules), or a key could not be reached.
        case stuck(text: String, typed: String)

        public var description: String {
            switch self {
            case .settings(let p): return p.description
            case let .noKey(c, text): return "no key of the keyboard types \(c.debugDescription) (in \(text.debugDescription))"
            case let .stuck(text, typed):
                return "the modelled user could not type \(text.debugDescription): the field holds \(typed.debugDescription) "
                    + "(a space goes after . , ? ! : ; and not before them)"
            }
        }
    }

    /// The cost of each text, each from an empty field.
    public static func compute(_ texts: [String], layout: KeyboardLayout, predictor: WordPredictor,
                               settings: ScanSettings) throws(Problem) -> [TextCost] {
        var results: [TextCost] = []
        for text in texts { results.append(try compute(text, layout: layout, predictor: predictor, settings: settings)) }
        return results
    }

    public static func compute(_ text: String, layout: KeyboardLayout, predictor: WordPredictor,
                               settings: ScanSettings) throws(Problem) -> TextCost {
        var settings = settings
        settings.mode = .item
        if settings.style == .auto && settings.reactionTime >= settings.autoScanInterval { throw .settings(.reactionTooSlow(than: "autoScanInterval")) }
        if settings.style == .step && settings.reactionTime >= settings.stepSelectDelay { throw .settings(.reactionTooSlow(than: "stepSelectDelay")) }
        let target = Array(text.lowercased())
        var engine = KeyboardSession.engine(layout: layout, predictor: predictor, settings: settings)
        let start = engine.start(at: .zero)
        var shown = start.last { if case .highlight = $0.effect { return true } else { return false } }?.time ?? .zero
        var typed: [Character] = []
        var cost = TextCost(text: text, seconds: 0, pressTimes: [], nextTimes: [])
        func done() -> Bool {
            var t = typed
            while t.last == " " { t.removeLast() }
            var want = target
            while want.last == " " { want.removeLast() }
            return t == want
        }
        var steps = 0
        while !done() {
            steps += 1
            // Where the text goes on: after what is typed, or before the space a prediction
            // added where punctuation follows (its key takes the space back).
            var pos = typed.count
            if pos <= target.count, Array(target.prefix(pos)) == typed {
            } else if typed.last == " ", pos - 1 < target.count, ".,?!:;".contains(target[pos - 1]),
                      Array(target.prefix(pos - 1)) == typed.dropLast() {
                pos -= 1
            } else {
                throw .stuck(text: text, typed: String(typed))
            }
            guard steps <= 4 * target.count + 16, let keyboard = engine.presentedLogic as? Keyboard else {
                throw .stuck(text: text, typed: String(typed))
            }
            let key = try wantedKey(target, at: pos, keyboard)
            let lastPress = [cost.pressTimes.last, cost.nextTimes.last].compactMap { $0 }.max()
            guard let reached = ScanCost.reach(&engine, element: key, shownAt: shown, lastPress: lastPress) else {
                throw .stuck(text: text, typed: String(typed))
            }
            cost.pressTimes += reached.selectTimes
            cost.nextTimes += reached.nextTimes
            for e in reached.effects {
                switch e.effect {
                case .typeText(let s, _):
                    typed += Array(s.lowercased())
                    cost.seconds = e.time.seconds
                case .deleteText(let n):
                    typed.removeLast(min(n, typed.count))
                case .key(.enter):
                    typed.append("\n")
                    cost.seconds = e.time.seconds
                default:
                    break
                }
            }
            shown = reached.effects.last { if case .highlight = $0.effect { return true } else { return false } }?.time ?? reached.activatedAt
        }
        return cost
    }

    /// The key the modelled user wants next: a prediction that offers the word being
    /// typed (when a space or punctuation follows it in the text), else the key of the next
    /// character, else the key to the page that has it.
    static func wantedKey(_ target: [Character], at pos: Int, _ keyboard: Keyboard) throws(Problem) -> String {
        var start = pos, end = pos
        while start > 0, Keyboard.isWordCharacter(target[start - 1]) { start -= 1 }
        while end < target.count, Keyboard.isWordCharacter(target[end]) { end += 1 }
        if end > start, end == target.count || " .,?!:;".contains(target[end]) {
            let word = String(target[start..<end])
            if let k = keyboard.predictions.firstIndex(where: { $0.lowercased() == word }) { return "prediction\(k + 1)" }
        }
        let c = target[pos]
        guard let (page, id) = keyboard.layout.key(typing: c, preferring: keyboard.page) else { throw .noKey(c, text: String(target)) }
        return page == keyboard.page ? id : page == .symbols ? "symbols" : "letters"
    }

    public struct Summary: Hashable, Sendable {
        public var texts: Int
        public var characters: Int
        public var seconds: Double
        public var presses: Int
        public var wordsPerMinute: Double
        public var pressesPerCharacter: Double

        public init(_ costs: [TextCost]) {
            texts = costs.count
            characters = costs.reduce(0) { $0 + $1.text.count }
            seconds = costs.reduce(0) { $0 + $1.seconds }
            presses = costs.reduce(0) { $0 + $1.presses }
            wordsPerMinute = seconds > 0 ? (Double(characters) / 5) / (seconds / 60) : 0
            pressesPerCharacter = characters > 0 ? Double(presses) / Double(characters) : 0
        }
    }
}

/// An engine showing the keyboard over an empty screen, as `simulate --keyboard` and
/// `cost --text` start it: an empty field, nothing learned.
public enum KeyboardSession {
    public static func engine(layout: KeyboardLayout, predictor: WordPredictor, settings: ScanSettings) -> ScanEngine {
        var keyboard = Keyboard(layout: layout, predictor: predictor, settings: settings.typing)
        let opened = keyboard.opened()
        var root = ElementNode(id: "screen")
        root.frame = Rect(x: 0, y: 0, width: Keyboard.size.width, height: Keyboard.size.height)
        let empty = ElementTree(screenID: "empty", size: Keyboard.size, nodes: [root])
        var engine = ScanEngine(tree: empty, settings: settings)
        _ = engine.present(keyboard.tree, logic: keyboard, effects: opened, at: .zero)
        return engine
    }
}

import ScanCore
import WordPrediction

/// The message screen (docs/MESSAGES.md): the scanning keyboard writing into SwitchScan's own
/// message, shown large at the top, with keys that say it (`Speak`), clear it, offer the
/// phrases ready to say (`Phrases`), answer `Yes` or `No` at once and call someone
/// (`Attention`). A person who cannot speak writes and is heard with one switch.
///
/// After `Speak` the message stays shown (Speak again says it again); the next key that
/// writes (a letter, a word, a space, Backspace) starts a new message, so no one has to
/// clear a message before the next. `Clear` empties it at once.
public struct MessageScreen: ScreenLogic {
    public static let screenID = "message"
    /// The history kept: the last messages spoken, newest first.
    public static let historyLimit = 50
    /// The message's longest: a message is said in one breath of the voice, not a letter.
    public static let maxMessage = 2000
    /// Phrases shown on one page of `Phrases` (rows of `phrasesPerRow`); `More` goes on.
    public static let phrasesPerRow = 4, phraseRows = 6

    public enum Page: Equatable, Sendable {
        case write
        /// The phrases and the history, from this page on.
        case phrases(Int)
    }

    public private(set) var keyboard: Keyboard
    /// The message as shown.
    public private(set) var message = ""
    /// The message shown was spoken: the next key that writes starts a new one.
    public private(set) var spoken = false
    public private(set) var page = Page.write
    public private(set) var phrases: [String]
    /// The end of a message, as much as the keyboard keeps, from a word's start (a word cut
    /// in two would be taken back in two).
    static func knownEnd(of message: String) -> String {
        guard message.count > Keyboard.textKept else { return message }
        let end = message.suffix(Keyboard.textKept)
        guard let space = end.firstIndex(where: { $0 == " " || $0 == "\n" }) else { return String(end) }
        return String(end[end.index(after: space)...])
    }

    /// Keys that write into the message or take from it.
    static func writes(_ action: KeyAction) -> Bool {
        switch action {
        case .character, .space, .backspace, .deleteWord, .enter, .prediction: return true
        default: return false
        }
    }

    /// Messages spoken, newest first.
    public private(set) var history: [String]
    /// `Hide` goes back to the application beneath (`--desktop`); without one, there is no
    /// Hide key.
    public let canHide: Bool
    public let screen: Rect
    /// Where the message is shown, the row of the message's keys, and the keyboard.
    let display: Rect, actions: Rect
    var reported: [KeyboardKey] = []

    /// The message's own keys, in their row: the order a person reaches them in.
    static let actionKeys: [(id: String, label: String)] = [
        ("speak", "Speak"), ("phrases", "Phrases"), ("yes", "Yes"), ("no", "No"), ("clear", "Clear"), ("attention", "Attention"),
    ]
    /// Keys of the keyboard that mean nothing here: its editing page (the caret is always
    /// at the message's end) and, without an application beneath, Hide.
    var leftOut: Set<String> { canHide ? ["edit"] : ["edit", "hide"] }

    public init(layout: KeyboardLayout, words: Keyboard.Words, settings: TypingSettings, learns: Bool, phrases: [String],
                history: [String], screen: Rect, canHide: Bool, message: String = "") {
        self.phrases = phrases
        self.history = Array(history.prefix(Self.historyLimit))
        self.canHide = canHide
        self.screen = screen
        display = Rect(x: screen.x, y: screen.y, width: screen.width, height: screen.height * 0.2)
        actions = Rect(x: screen.x, y: display.maxY, width: screen.width, height: screen.height * 0.1)
        let board = Rect(x: screen.x, y: actions.maxY, width: screen.width, height: screen.maxY - actions.maxY)
        self.message = String(message.prefix(Self.maxMessage))
        keyboard = Keyboard(layout: layout, words: words, settings: settings, text: Self.knownEnd(of: self.message), learns: learns, field: .text,
                            panel: board, screen: screen)
    }

    /// The same screen on a screen of another size (the display changed while it was hidden).
    public func placed(on other: Rect) -> MessageScreen {
        var m = MessageScreen(layout: keyboard.layout, words: keyboard.words, settings: keyboard.settings, learns: keyboard.learns,
                              phrases: phrases, history: history, screen: other, canHide: canHide, message: spoken ? "" : message)
        if spoken { m.message = message; m.spoken = true }
        m.page = page
        return m
    }

    // MARK: - the screen

    public var tree: ElementTree {
        var nodes: [ElementNode] = []
        var root = ElementNode(id: Self.screenID)
        root.label = "Message"
        root.frame = screen
        nodes.append(root)
        func row(_ id: String, _ label: String?, _ frame: Rect, _ keys: [(id: String, label: String)]) {
            let r = nodes.count
            var container = ElementNode(id: id)
            container.label = label
            container.parent = 0
            container.navigationStyle = .combined
            container.frame = frame
            nodes[0].children.append(r)
            nodes.append(container)
            let width = frame.width / Double(max(keys.count, 1))
            for (c, k) in keys.enumerated() {
                var key = ElementNode(id: k.id)
                key.isAccessibilityElement = true
                key.label = k.label
                key.traits = TraitSet([.keyboardKey])
                key.frame = Rect(x: frame.x + Double(c) * width, y: frame.y, width: width, height: frame.height)
                key.activationPoint = key.frame.center
                key.parent = r
                nodes[r].children.append(nodes.count)
                nodes.append(key)
            }
        }
        switch page {
        case .write:
            row("messageKeys", nil, actions, Self.actionKeys)
            graft(keyboard.tree, into: &nodes)
        case .phrases(let p):
            let all = phraseRows
            let shown = Array(all.dropFirst(p * Self.phraseRows).prefix(Self.phraseRows))
            let area = Rect(x: screen.x, y: display.maxY, width: screen.width, height: screen.maxY - display.maxY)
            let h = area.height / Double(shown.count + 1)
            for (r, items) in shown.enumerated() {
                row("phraseRow\(p * Self.phraseRows + r + 1)", items.first!.fromHistory ? "Recent" : "Phrases",
                    Rect(x: area.x, y: area.y + Double(r) * h, width: area.width, height: h), items.map { ($0.id, $0.text) })
            }
            var last: [(id: String, label: String)] = [("back", "Back")]
            if (p + 1) * Self.phraseRows < all.count { last.insert(("more", "More"), at: 0) }
            row("phraseKeys", nil, Rect(x: area.x, y: area.y + Double(shown.count) * h, width: area.width, height: h), last)
        }
        var tree = ElementTree(screenID: Self.screenID, size: (screen.width, screen.height), nodes: nodes)
        tree.screenSize = screen
        return tree
    }

    /// The keyboard's rows under this screen's root, but for the keys left out here.
    func graft(_ board: ElementTree, into nodes: inout [ElementNode]) {
        for row in board[0].children {
            let r = nodes.count
            var container = board[row]
            container.parent = 0
            container.children = []
            nodes[0].children.append(r)
            nodes.append(container)
            for k in board[row].children where !leftOut.contains(board[k].id) {
                var key = board[k]
                key.parent = r
                nodes[r].children.append(nodes.count)
                nodes.append(key)
            }
            if nodes[r].children.isEmpty { nodes.removeLast(); nodes[0].children.removeLast() }
        }
    }

    /// The phrases, then the history (what is not a phrase already), as keys.
    var offered: [(id: String, text: String, fromHistory: Bool)] {
        let known = Set(phrases)
        return phrases.enumerated().map { ("phrase\($0.offset + 1)", $0.element, false) }
            + history.filter { !known.contains($0) }.enumerated().map { ("recent\($0.offset + 1)", $0.element, true) }
    }

    /// The phrases, then the history, `phrasesPerRow` to a row; a row holds one or the other.
    var phraseRows: [[(id: String, text: String, fromHistory: Bool)]] {
        let all = offered
        func rows(_ items: [(id: String, text: String, fromHistory: Bool)]) -> [[(id: String, text: String, fromHistory: Bool)]] {
            stride(from: 0, to: items.count, by: Self.phrasesPerRow).map { Array(items[$0..<min(items.count, $0 + Self.phrasesPerRow)]) }
        }
        return rows(all.filter { !$0.fromHistory }) + rows(all.filter(\.fromHistory))
    }

    /// The keys as a front end draws them: the message first (shown, not scanned), then
    /// the screen's.
    public var keys: [KeyboardKey] {
        let shown = KeyboardKey(id: KeyboardKey.messageID, label: message, frame: display)
        guard page == .write else {
            let t = tree
            return [shown] + (0..<t.count).filter { t[$0].isAccessibilityElement }.map {
                KeyboardKey(id: t[$0].id, label: t[$0].label ?? "", frame: t[$0].frame)
            }
        }
        let width = actions.width / Double(Self.actionKeys.count)
        let own = Self.actionKeys.enumerated().map { c, k in
            KeyboardKey(id: k.id, label: k.label, frame: Rect(x: actions.x + Double(c) * width, y: actions.y, width: width, height: actions.height))
        }
        return [shown] + own + keyboard.keys.filter { !leftOut.contains($0.id) }
    }

    /// The keys to report when the screen opens.
    public mutating func opened() -> [Effect] {
        _ = keyboard.opened()
        reported = keys
        return [.keyboard(reported)]
    }

    // MARK: - keys

    public mutating func activate(_ id: String) -> ScreenChange {
        switch (page, id) {
        case (.write, "speak"):
            // The space a word left after it, a line break at the end: not words to say.
            let said = String(message.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
            guard !said.isEmpty else { return changed([.announce("Nothing to say yet")]) }
            history.removeAll { $0 == said }
            history.insert(said, at: 0)
            if history.count > Self.historyLimit { history.removeLast(history.count - Self.historyLimit) }
            // Its last word is learned as a space after it would have learned it.
            let learned = spoken ? [] : keyboard.finishWord()
            spoken = true
            // The next message starts afresh: a capital, predictions for a first word.
            keyboard.startOver()
            return changed([.speak(said, voice: .public, from: .message)] + learned)
        case (.write, "clear"):
            message = ""
            spoken = false
            keyboard.startOver()
            return changed([.announce("Cleared")])
        case (.write, "yes"):
            return changed([.speak("Yes", voice: .public, from: .answer)])
        case (.write, "no"):
            return changed([.speak("No", voice: .public, from: .answer)])
        case (.write, "attention"):
            return changed([.attention])
        case (.write, "phrases"):
            guard !offered.isEmpty else {
                return changed([.announce("No phrases yet: add them with switchscan phrases add")])
            }
            page = .phrases(0)
            return changed([.announce("Phrases")])
        case (.write, _):
            return write(id)
        case (.phrases, "back"):
            page = .write
            return changed([.announce("Message")])
        case (.phrases(let p), "more"):
            page = .phrases((p + 1) * Self.phraseRows < phraseRows.count ? p + 1 : 0)
            return changed([])
        case (.phrases, _):
            guard let chosen = offered.first(where: { $0.id == id }) else { return ScreenChange() }
            page = .write
            return changed([.speak(chosen.text, voice: .public, from: chosen.fromHistory ? .history : .phrase)])
        }
    }

    /// A key of the keyboard: what it writes goes into the message; nothing goes to an
    /// application.
    mutating func write(_ id: String) -> ScreenChange {
        // After speaking, a key that writes (or takes back) starts a new message.
        if spoken, let action = keyboard.rows.joined().first(where: { $0.id == id })?.action, Self.writes(action) {
            message = ""
            spoken = false
        }
        let change = keyboard.activate(id)
        if change.closed { return change }
        var effects: [Effect] = []
        var edits: [Effect] = []
        for e in change.effects {
            switch e {
            case .typeText, .deleteText, .key(.enter): edits.append(e)
            case .keyboard, .shortcut, .key: continue
            default: effects.append(e)
            }
        }
        for e in edits {
            switch e {
            case .typeText(let s, _): message += s
            case .deleteText(let n): message.removeLast(min(n, message.count))
            case .key(.enter): message += "\n"
            default: break
            }
        }
        if message.count > Self.maxMessage {
            // Said rather than typed on: the keyboard's text goes back to what it was.
            message = String(message.prefix(Self.maxMessage))
            keyboard.startOver(text: Self.knownEnd(of: message))
            effects.append(.announce("The message is full: speak it or clear it"))
        } else if keyboard.text.isEmpty && !message.isEmpty {
            // Taken back past what the keyboard keeps of a long message: it knows the rest again.
            keyboard.startOver(text: Self.knownEnd(of: message))
        }
        return changed(effects)
    }

    /// After a key: the keys reported if they changed, and the screen's next version.
    mutating func changed(_ effects: [Effect]) -> ScreenChange {
        let now = keys
        guard now != reported else { return ScreenChange(effects: effects, tree: tree) }
        reported = now
        return ScreenChange(effects: effects + [.keyboard(now)], tree: tree)
    }

    /// The message screen writes into no application: nothing comes from one.
    public mutating func fieldChanged(textBefore: String) -> ScreenChange { ScreenChange() }

    /// New phrases (the file changed): a page of them shown is redrawn, on the same page
    /// where it still has phrases, else the last.
    public mutating func phrasesChanged(_ phrases: [String]) -> ScreenChange {
        guard phrases != self.phrases else { return ScreenChange() }
        self.phrases = phrases
        guard case .phrases(let p) = page else { return ScreenChange() }
        let pages = max(1, (phraseRows.count + Self.phraseRows - 1) / Self.phraseRows)
        page = .phrases(min(p, pages - 1))
        return changed([])
    }

    public mutating func wordsMade(_ made: MadeWords) -> ScreenChange {
        let change = keyboard.wordsMade(made)
        guard page == .write, change.tree != nil || !change.effects.isEmpty else { return ScreenChange() }
        var out = changed([])
        out.startsOver = change.startsOver
        return out
    }
}

/// Makes the message screen the screen menu's Message entry opens over a window: one screen,
/// kept as it was while hidden (its message, its page, what it learned).
public struct MessageMaker: MessageScreenProvider {
    public let layout: KeyboardLayout
    public let settings: TypingSettings
    public let words: Keyboard.Words
    public private(set) var phrases: [String]
    let history: [String]
    /// Whether its screen has a Hide key (false: it is the whole run's screen).
    public let canHide: Bool
    var kept: MessageScreen?

    public init(layout: KeyboardLayout, words: Keyboard.Words, settings: TypingSettings, phrases: [String], history: [String],
                canHide: Bool = true) {
        self.layout = layout; self.words = words; self.settings = settings; self.phrases = phrases; self.history = history
        self.canHide = canHide
    }

    public mutating func messageScreen(on screen: Rect) -> (tree: ElementTree, logic: any ScreenLogic, effects: [Effect]) {
        var m = kept.map { $0.screen == screen ? $0 : $0.placed(on: screen) }
            ?? MessageScreen(layout: layout, words: words, settings: settings, learns: settings.learnWords, phrases: phrases,
                             history: history, screen: screen, canHide: canHide)
        let effects = m.opened()
        return (m.tree, m, effects)
    }

    public mutating func closed(_ logic: any ScreenLogic) {
        if let m = logic as? MessageScreen { kept = m }
    }

    public mutating func phrasesChanged(_ phrases: [String]) {
        self.phrases = phrases
        _ = kept?.phrasesChanged(phrases)
    }
}

/// An engine showing the message screen over an empty screen, as `simulate --messages`
/// starts it.
public enum MessageSession {
    public static func engine(layout: KeyboardLayout, predictor: WordPredictor, settings: ScanSettings, phrases: [String],
                              history: [String] = [], learns: Bool = false, message: String = "") -> ScanEngine {
        let screen = Rect(x: 0, y: 0, width: Keyboard.size.width, height: Keyboard.size.height / 0.7)
        var messages = MessageScreen(layout: layout, words: .inline(predictor), settings: settings.typing, learns: learns,
                                     phrases: phrases, history: history, screen: screen, canHide: false, message: message)
        let opened = messages.opened()
        var root = ElementNode(id: "screen")
        root.frame = screen
        let empty = ElementTree(screenID: "empty", size: (screen.width, screen.height), nodes: [root])
        var engine = ScanEngine(tree: empty, settings: settings)
        _ = engine.present(messages.tree, logic: messages, effects: opened, at: .zero)
        return engine
    }
}

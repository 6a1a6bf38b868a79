import ScanCore
import WordPrediction

/// The scanning keyboard: a screen the engine scans like any other (rows as groups, keys as
/// elements), whose keys answer here. It keeps what it knows of the field (the text before
/// the caret), Shift and Caps lock, the page shown and the predictions, and turns each key
/// into what to do to the field: `typeText`, `deleteText`, an Enter key, `keyboardClose`.
///
/// Rules a switch user expects: choosing a prediction types the rest of the word and a
/// space; a space before `. , ? ! : ;` is taken back and one put after (not between
/// digits); a capital at the start of the field and of each sentence (`autoCapitalize`).
public struct Keyboard: ScreenLogic {
    public static let screenID = "keyboard"
    public static let predictionCount = 5
    /// The keyboard's own size, in the points its keys are laid out in; `panel` places it.
    public static let size = (width: 1000.0, height: 420.0)
    /// The prediction keys' ids: this and their place, from 1.
    static let predictionID = "prediction"
    /// Enough of the field for the predictor's context and for Delete word.
    public static let textKept = 512

    public let layout: KeyboardLayout
    /// Where the predictions come from: made here, at once (`simulate`, `cost`: the same
    /// presses always type the same), or asked of a source that makes them on another
    /// thread (`run`: however many words a user has taught it, the engine's thread never
    /// computes them).
    public private(set) var words: Words
    public let settings: TypingSettings
    /// Whether committed words are learned: in `run` with `learnWords`, never in password
    /// fields or terminals, never in simulation, in cost only with `--learn`.
    public var learns: Bool
    /// The field's text before the caret, as far as the keyboard knows it.
    public private(set) var text: String
    public private(set) var page = KeyboardPage.letters
    public private(set) var shiftOnce = false
    public private(set) var capsLock = false
    /// The user turned off the capital that autoCapitalize offered here.
    var autoCapitalCancelled = false
    /// The prediction row's words, spelled as they would be typed.
    public private(set) var predictions: [String] = []
    var shown: [KeySpec] = []
    /// The keys last reported, to report them again only when they change.
    var reported: [KeyboardKey] = []
    /// Ctrl and Alt, held for the next key.
    public private(set) var modifiers: [KeyChord.Modifier] = []
    /// A key was chosen on this keyboard.
    var keyChosen = false
    /// The words a source made last (`Words.source`), shown while they fit the text.
    var made: MadeWords?
    /// The field's texts the keyboard's own keys made lately, newest last.
    var recent: [String] = []
    /// Where the keyboard is drawn, and the screen it is drawn on (what point mode sweeps).
    public let panel: Rect
    public let screen: Rect
    /// A password field, a terminal (a password prompt is common there) or a field the
    /// keyboard cannot see: no word said back, the text never shown or printed, and the keys
    /// chosen named in no stream that leaves the screen (the tree is `isSecret`).
    public let secret: Bool
    /// Whether the prediction row offers words (never in a password field).
    public let predicts: Bool
    /// The field's kind, whose text rules the keys follow (`TextEntryKind`).
    public let field: TextEntryKind
    /// Outside prose, a prediction or a comma types no space after it: one goes before the
    /// next word, if one comes (a search box's "hello" stays "hello" when Enter follows).
    var pendingSpace = false
    /// Outside prose, the word before the caret was typed whole by a prediction (and learned
    /// and said then).
    var predictedWord = false

    public enum Words: Sendable {
        /// Predictions made at once by this predictor, which also learns.
        case inline(WordPredictor)
        /// Predictions asked of a source, shown once it has made them.
        case source(any PredictionSource)
    }

    /// The predictor, when predictions are made here.
    public var predictor: WordPredictor? {
        if case .inline(let p) = words { p } else { nil }
    }

    public init(layout: KeyboardLayout, predictor: WordPredictor, settings: TypingSettings, text: String = "", learns: Bool = false,
                secret: Bool = false, predicts: Bool = true, field: TextEntryKind = .text, panel: Rect? = nil, screen: Rect? = nil) {
        self.init(layout: layout, words: .inline(predictor), settings: settings, text: text, learns: learns, secret: secret,
                  predicts: predicts, field: field, panel: panel, screen: screen)
    }

    public init(layout: KeyboardLayout, words: Words, settings: TypingSettings, text: String = "", learns: Bool = false,
                secret: Bool = false, predicts: Bool = true, field: TextEntryKind = .text, panel: Rect? = nil, screen: Rect? = nil) {
        self.layout = layout
        self.words = words
        self.settings = settings
        self.learns = learns
        self.secret = secret
        self.predicts = predicts
        self.field = field
        // A number's keys are the digits.
        if field == .number { page = .symbols }
        self.text = String(text.suffix(Self.textKept))
        // A read of the field as it was when the keyboard opened, answered late (a slow
        // application), is no news once a key has been typed.
        recent = [self.text]
        let own = Rect(x: 0, y: 0, width: Self.size.width, height: Self.size.height)
        self.panel = panel ?? own
        self.screen = screen ?? panel ?? own
        refresh()
    }

    /// Where the keyboard goes on a screen: across its whole width, as tall as its shape
    /// asks (at most 45 % of the screen), at the bottom, or at the top when the field is
    /// more in the way there. Where the field would still be covered (a tall editor), the
    /// keyboard shrinks into the larger free space above or below it, down to a quarter of
    /// the screen: the text being written stays in view.
    public static func panel(on screen: Rect, avoiding field: Rect?) -> Rect {
        let height = min(screen.width * size.height / size.width, screen.height * 0.45)
        let bottom = Rect(x: screen.x, y: screen.maxY - height, width: screen.width, height: height)
        let top = Rect(x: screen.x, y: screen.y, width: screen.width, height: height)
        guard let field, field.width > 0, field.height > 0 else { return bottom }
        func overlap(_ a: Rect, _ b: Rect) -> Double {
            max(0, min(a.maxX, b.maxX) - max(a.minX, b.minX)) * max(0, min(a.maxY, b.maxY) - max(a.minY, b.minY))
        }
        let better = overlap(top, field) < overlap(bottom, field) ? top : bottom
        guard overlap(better, field) > 0 else { return better }
        let above = max(0, field.minY - screen.minY), below = max(0, screen.maxY - field.maxY)
        let free = min(max(above, below), height)
        guard free >= screen.height * 0.25 else { return better }
        return above > below ? Rect(x: screen.x, y: field.minY - free, width: screen.width, height: free)
            : Rect(x: screen.x, y: field.maxY, width: screen.width, height: free)
    }

    // MARK: - the screen

    /// The keyboard as a screen: the prediction row first, then the page's rows.
    public var tree: ElementTree {
        var nodes: [ElementNode] = []
        var root = ElementNode(id: "keyboard")
        root.label = "Keyboard"
        root.frame = panel
        nodes.append(root)
        // From the keyboard's own points to the panel's place on the screen.
        let sx = panel.width / Self.size.width, sy = panel.height / Self.size.height
        func place(_ r: Rect) -> Rect { Rect(x: panel.x + r.x * sx, y: panel.y + r.y * sy, width: r.width * sx, height: r.height * sy) }
        for (r, row) in rows.enumerated() where !row.isEmpty {
            let rowIndex = nodes.count
            var container = ElementNode(id: r == 0 ? "predictions" : "row\(r)")
            container.parent = 0
            container.navigationStyle = .combined
            container.frame = place(Rect(x: 0, y: Double(r) * rowHeight, width: Self.size.width, height: rowHeight))
            nodes[0].children.append(rowIndex)
            nodes.append(container)
            let width = Self.size.width / Double(max(row.count, r == 0 ? Self.predictionCount : 1))
            for (c, spec) in row.enumerated() {
                var key = ElementNode(id: spec.id)
                key.isAccessibilityElement = true
                key.label = label(spec)
                key.traits = TraitSet([.keyboardKey])
                if (spec.action == .shift && capital && !capsLock) || (spec.action == .capsLock && capsLock)
                    || { if case .modifier(let m) = spec.action { return modifiers.contains(m) } else { return false } }() {
                    key.traits.insert(.selected)
                }
                key.frame = place(Rect(x: Double(c) * width, y: Double(r) * rowHeight, width: width, height: rowHeight))
                key.activationPoint = key.frame.center
                key.parent = rowIndex
                nodes[rowIndex].children.append(nodes.count)
                nodes.append(key)
            }
        }
        var tree = ElementTree(screenID: Self.screenID, size: (screen.width, screen.height), nodes: nodes)
        tree.screenSize = screen
        tree.isSecret = secret
        return tree
    }

    /// The keys as a front end draws them.
    public var keys: [KeyboardKey] {
        let t = tree
        // Shift and Caps lock, whatever their ids: held, they tell a letter's case.
        let caseKeys = Set(rows.joined().filter { $0.action == .shift || $0.action == .capsLock }.map(\.id))
        return (0..<t.count).filter { t[$0].isAccessibilityElement }.map { i in
            let label = t[i].label ?? ""
            // Secret: a prediction says what was typed, a letter's case that Shift was chosen.
            var shown: String?
            if secret, t[i].id.hasPrefix(Self.predictionID) {
                shown = "•"
            } else if secret, label.count == 1, label.first!.isLetter, label != label.lowercased() {
                shown = label.lowercased()
            }
            let held = t[i].traits.contains(.selected)
            let tellsCase = caseKeys.contains(t[i].id)
            return KeyboardKey(id: t[i].id, label: label, frame: t[i].frame, streamLabel: shown,
                               held: held, heldInStream: held && !(secret && tellsCase))
        }
    }

    /// The rows shown: predictions (row 0, maybe empty), then the page.
    var rows: [[KeySpec]] {
        let words = predictions.enumerated().map { KeySpec(id: "\(Self.predictionID)\($0.offset + 1)", action: .prediction($0.offset), label: $0.element) }
        return [words] + layout.rows(page)
    }

    var rowHeight: Double { Self.size.height / Double(1 + layout.rows(page).count) }

    func label(_ spec: KeySpec) -> String {
        if case .character(let c) = spec.action, c.isLetter { return capital ? c.uppercased() : String(c) }
        return spec.label
    }

    /// The next letter is a capital: Caps lock, Shift, or the start of a sentence.
    public var capital: Bool {
        capsLock || shiftOnce || (settings.autoCapitalize && !autoCapitalCancelled && partialWord.isEmpty && atSentenceStart)
    }

    /// The field is empty, or its text (spaces and opening quotes or brackets aside) ends a
    /// sentence or a line.
    var atSentenceStart: Bool {
        guard let last = text.last(where: { !" '\"(“‘[".contains($0) }) else { return true }
        return last == "." || last == "?" || last == "!" || last == "\n"
    }

    /// The word being typed and the one before it, as the predictor sees them (one
    /// definition of a word for both).
    var context: WordContext { WordContext(textBefore: String(text.suffix(200)) + (pendingSpace ? " " : "")) }

    /// The word being typed: what the predictor completes, at the end of the text.
    var partialWord: String {
        let partial = context.partial
        return text.hasSuffix(partial) ? partial : ""
    }

    /// The word before the one being typed, in the same sentence: the context of a pair.
    var previousWord: String? { context.previous }

    static func isWordCharacter(_ c: Character) -> Bool {
        c.isLetter || c.isNumber || c == "'" || c == "’" || c == "-"
    }

    // MARK: - keys

    public mutating func activate(_ id: String) -> ScreenChange {
        guard let spec = rows.joined().first(where: { $0.id == id }) else { return ScreenChange() }
        keyChosen = true
        var effects: [Effect] = []
        var echo: String?
        // Ctrl or Alt held: a letter or an editing key is a shortcut (Ctrl+S), not text.
        if !modifiers.isEmpty {
            var chords: [KeyChord]?
            switch spec.action {
            case .character(let c): chords = [KeyChord(String(c), modifiers)]
            case .chords(let list): chords = list.map { KeyChord($0.key, Array(Set($0.modifiers + modifiers)).sorted { $0.rawValue < $1.rawValue }) }
            case .space: chords = [KeyChord("space", modifiers)]
            case .enter: chords = [KeyChord("Return", modifiers)]
            case .backspace: chords = [KeyChord("BackSpace", modifiers)]
            default: break
            }
            if var chords {
                // Shift chosen before: Ctrl+Shift+letter.
                if shiftOnce { chords = chords.map { KeyChord($0.key, Array(Set($0.modifiers + [.shift])).sorted { $0.rawValue < $1.rawValue }) } }
                modifiers = []
                shiftOnce = false
                return changed(chords.map { .shortcut($0) })
            }
        }
        // The space a prediction or comma left to come goes before a word, and nowhere else;
        // keys that type nothing (Shift, a page, Ctrl) keep it for the key after them.
        let typesNothing: Bool = {
            switch spec.action {
            case .shift, .capsLock, .page, .modifier, .hide: return true
            default: return false
            }
        }()
        // The word a prediction typed was learned and said then: not again when a space,
        // Enter or punctuation follows it.
        let predicted = predictedWord
        if !typesNothing {
            predictedWord = false
            if pendingSpace {
                pendingSpace = false
                // Shift chosen before it is for the word's first letter, not for the space.
                let (shift, cancelled) = (shiftOnce, autoCapitalCancelled)
                switch spec.action {
                case .character(let c) where c.isLetter || c.isNumber: type(" ", &effects)
                case .prediction: type(" ", &effects)
                default: break
                }
                (shiftOnce, autoCapitalCancelled) = (shift, cancelled)
            }
        }
        switch spec.action {
        case .character(let c) where ".,?!:;".contains(c) && !field.isProse:
            // Outside prose every character is as chosen ("note.txt", "www.example.org");
            // in a one-line field a comma after a word is followed by a space once the next
            // word comes ("Paris, France").
            if !predicted { commitWord(&echo, &effects) }
            let afterWord = text.last?.isLetter ?? false
            type(String(c), &effects)
            if field == .line && ",;:".contains(c) && afterWord { pendingSpace = true }
        case .character(let c) where ".,?!:;".contains(c):
            if !predicted { commitWord(&echo, &effects) }
            // "word ." → "word. ": the space before goes, one comes after (not in 3.5 or 1,000).
            let beforeSpace = text.dropLast().last
            if text.last == " ", let b = beforeSpace, b != " ", b != "\n" {
                effects.append(.deleteText(characters: 1))
                deleteBack(1)
            }
            let afterWord = text.last.map { $0.isLetter || $0 == ")" || $0 == "\"" || $0 == "'" } ?? false
            type(String(c) + (afterWord ? " " : ""), &effects)
            // A sentence goes on in letters.
            if afterWord { page = .letters }
        case .character(let c):
            type(c.isLetter && capital ? c.uppercased() : String(c), &effects)
        case .space:
            if !predicted { commitWord(&echo, &effects) }
            type(" ", &effects)
            page = .letters
        case .backspace:
            effects.append(.deleteText(characters: 1))
            deleteBack(1)
            autoCapitalCancelled = false
        case .deleteWord:
            // The spaces, then punctuation after the word ("word. "), then the word.
            var n = 0
            while let last = text.last, last == " " { deleteBack(1); n += 1 }
            while let last = text.last, !Self.isWordCharacter(last), !last.isWhitespace { deleteBack(1); n += 1 }
            while let last = text.last, Self.isWordCharacter(last) { deleteBack(1); n += 1 }
            autoCapitalCancelled = false
            // Text the keyboard does not know (it types into whatever has the focus): the
            // application's own Ctrl+Backspace.
            effects.append(n > 0 ? .deleteText(characters: n) : .shortcut(KeyChord("BackSpace", [.control])))
        case .enter:
            if !predicted { commitWord(&echo, &effects) }
            effects.append(.key(.enter))
            text += "\n"
            recent.append(text)
            page = .letters
            autoCapitalCancelled = false
        case .shift:
            if capsLock { capsLock = false; shiftOnce = false }
            else if capital && !shiftOnce { autoCapitalCancelled = true }
            else { shiftOnce.toggle() }
        case .capsLock:
            capsLock.toggle()
            shiftOnce = false
        case .page(let p):
            page = p
        case .hide:
            return ScreenChange(closed: true)
        case .chords(let list):
            // The caret moved or the text changed where the keyboard cannot see: the
            // application's reports (fieldChanged) say where it is now.
            effects += list.map { .shortcut($0) }
        case .modifier(let m):
            if let k = modifiers.firstIndex(of: m) { modifiers.remove(at: k) } else { modifiers.append(m) }
        case .prediction(let k):
            // Shown while newer ones were made: still the word the person chose.
            guard k < predictions.count else { return ScreenChange() }
            let word = predictions[k]
            let partial = String(partialWord)
            let previous = previousWord
            // Prose: the word and a space. A one-line field or a file name: the word, and a
            // space only before a next word. An address or a number: the word alone.
            let space = field.isProse ? " " : ""
            if word.hasPrefix(partial) {
                type(String(word.dropFirst(partial.count)) + space, &effects)
            } else {
                effects.append(.deleteText(characters: partial.count))
                deleteBack(partial.count)
                type(word + space, &effects)
            }
            if field == .line || field == .fileName { pendingSpace = true }
            predictedWord = !field.isProse
            echo = word
            learn(word, after: previous, &effects)
        }
        if let echo, !secret { effects.append(.announce(echo)) }
        if text.count > Self.textKept { text.removeFirst(text.count - Self.textKept) }
        if recent.count > 64 { recent.removeFirst(recent.count - 64) }
        return changed(effects)
    }

    /// Starts afresh on `text` (the message screen, once its message was spoken or
    /// cleared): Shift, Ctrl and Alt, the page and the spaces to come are forgotten; the
    /// words learned are kept.
    public mutating func startOver(text: String = "") {
        self.text = String(text.suffix(Self.textKept))
        recent = [self.text]
        page = .letters
        (shiftOnce, capsLock, autoCapitalCancelled, pendingSpace, predictedWord) = (false, false, false, false, false)
        modifiers = []
        refresh()
    }

    /// After a key: the predictions for the new text, the keys reported if their labels
    /// changed, and the screen's next version.
    mutating func changed(_ effects: [Effect]) -> ScreenChange {
        refresh()
        let now = keys
        guard now != reported else { return ScreenChange(effects: effects, tree: tree) }
        reported = now
        return ScreenChange(effects: effects + [.keyboard(now)], tree: tree)
    }

    /// The keys to report when the keyboard opens.
    public mutating func opened() -> [Effect] {
        reported = keys
        return [.keyboard(reported)]
    }

    /// The field's text before the caret, read from the application: predictions and
    /// capitals follow what is really there (a click elsewhere, text typed by other means).
    /// A read that shows what the keyboard itself typed a moment ago (the application
    /// reports each key after it came), or the text it opened on, is not news and changes
    /// nothing.
    public mutating func fieldChanged(textBefore: String) -> ScreenChange {
        let read = String(textBefore.suffix(Self.textKept))
        guard read != text, !recent.contains(read) else { return ScreenChange() }
        text = read
        pendingSpace = false
        predictedWord = false
        autoCapitalCancelled = false
        refresh()
        let now = keys
        guard now != reported else { return ScreenChange() }
        reported = now
        return ScreenChange(effects: [.keyboard(now)], tree: tree)
    }

    /// The source made predictions (for the text as it is, or with the language's words
    /// once they are read): they are shown now; words made for a text that has moved on
    /// are not. The first to come to a keyboard that opened without any start its scan
    /// over, at them.
    public mutating func wordsMade(_ words: MadeWords) -> ScreenChange {
        guard case .source = self.words, fits(words) else { return ScreenChange() }
        made = words
        let hadNone = predictions.isEmpty
        refresh()
        let now = keys
        guard now != reported else { return ScreenChange() }
        reported = now
        var change = ScreenChange(effects: [.keyboard(now)], tree: tree)
        if hadNone && !predictions.isEmpty && !keyChosen { change.startsOver = true }
        return change
    }

    /// Whether words were made for the text as it is now.
    func fits(_ words: MadeWords) -> Bool {
        let now = context
        return words.partial == now.partial && words.previous == now.previous
    }

    mutating func type(_ s: String, _ effects: inout [Effect]) {
        effects.append(.typeText(s, secret: secret))
        for c in s { text.append(c); recent.append(text) }
        shiftOnce = false
        autoCapitalCancelled = false
    }

    /// Takes `n` characters back from the known text, as the application will, one by one.
    mutating func deleteBack(_ n: Int) {
        for _ in 0..<n where !text.isEmpty { text.removeLast(); recent.append(text) }
    }

    /// The text is finished where it stands (the message screen's Speak): the word being
    /// written is learned as a space after it would learn it; what that makes.
    public mutating func finishWord() -> [Effect] {
        var echo: String?
        var effects: [Effect] = []
        if !predictedWord { commitWord(&echo, &effects) }
        return effects
    }

    /// The word before the caret ends (a space, punctuation, Enter): learned, and said
    /// once the key has typed.
    mutating func commitWord(_ echo: inout String?, _ effects: inout [Effect]) {
        let word = String(partialWord)
        guard !word.isEmpty else { return }
        echo = word
        learn(word, after: previousWord, &effects)
    }

    mutating func learn(_ word: String, after previous: String?, _ effects: inout [Effect]) {
        guard learns, word.contains(where: \.isLetter) else { return }
        switch words {
        case .inline(var predictor):
            predictor.learn(word, after: previous)
            words = .inline(predictor)
        case .source(let source):
            source.learn(word, after: previous)
            made = nil     // asked again, so that the word just learned counts
        }
        effects.append(.learnWord(word, after: previous))
    }

    /// Predictions for the caret, spelled as they would be typed: the typed letters kept,
    /// a capital where one is due, all capitals under Caps lock. The language's words join
    /// here once they are read.
    mutating func refresh() {
        guard predicts else { return }
        let list: [String]
        switch words {
        case .inline(let predictor):
            list = predictor.predictions(for: context, count: Self.predictionCount * 2)
        case .source(let source):
            // Not made yet: the words shown stay until they are (they come as `wordsMade`).
            guard let words = self.made, fits(words) else {
                source.ask(context, count: Self.predictionCount * 2)
                return
            }
            list = words.words
        }
        let partial = String(partialWord)
        var seen = Set<String>()
        predictions = []
        for w in list {
            var word = w
            if capsLock {
                word = w.uppercased()
            } else if !partial.isEmpty, w.lowercased().hasPrefix(partial.lowercased()) {
                // What was typed stays as typed ("Lon" + "don"), unless the word has capitals
                // of its own ("london" typed, "London" offered).
                if partial.count > 1 && partial == partial.uppercased() && partial != partial.lowercased() {
                    word = w.uppercased()   // typed in capitals: the word too
                } else if partial.first!.isUppercase || w == w.lowercased() {
                    word = partial + w.dropFirst(partial.count)
                }
            } else if partial.isEmpty && capital, let first = w.first {
                word = first.uppercased() + w.dropFirst()
            }
            guard seen.insert(word.lowercased()).inserted else { continue }
            predictions.append(word)
            if predictions.count == Self.predictionCount { break }
        }
    }
}

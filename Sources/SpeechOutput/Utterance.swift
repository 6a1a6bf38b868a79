import ScanCore

/// One request to speech-dispatcher: a text, a sound icon, or both as one block (the sound
/// first). A block is one message in speech-dispatcher's priority model, so a highlight's
/// click and its words are cancelled together by the next highlight, and neither cuts the
/// other.
struct Utterance: Equatable {
    /// SSIP priorities used here (names as sent in `SET SELF PRIORITY`).
    enum Priority: String {
        /// The message screen's call for attention: said at once, cutting whatever is said.
        case important = "IMPORTANT"
        /// Announcements: never cut by highlights (they wait for it); cut only by
        /// `important` messages of other clients.
        case message = "MESSAGE"
        /// Highlights: each cancels the one before, spoken or waiting.
        case text = "TEXT"
        /// A select sound with nothing said after it: dropped rather than cutting speech.
        case notification = "NOTIFICATION"
    }

    var priority: Priority
    /// Said in the public voice (the person's words), else in the cue voice.
    var isPublic = false
    var text: String?
    /// Sound icons played before the text, in order.
    var icons: [String] = []
    /// For highlights: when the engine emitted it and when `present` received it (BEGIN
    /// latency is measured from the latter).
    var effectTime: ScanInstant?
    var received: ScanInstant?

    init(priority: Priority, isPublic: Bool = false, text: String?, icon: String?, effectTime: ScanInstant? = nil, received: ScanInstant? = nil) {
        self.init(priority: priority, isPublic: isPublic, text: text, icons: icon.map { [$0] } ?? [], effectTime: effectTime, received: received)
    }

    init(priority: Priority, isPublic: Bool = false, text: String?, icons: [String], effectTime: ScanInstant?, received: ScanInstant?) {
        self.priority = priority; self.isPublic = isPublic; self.text = text; self.icons = icons
        self.effectTime = effectTime; self.received = received
    }

    /// Highlights still waiting to be sent are dropped when a newer one comes: speech-
    /// dispatcher would cancel them anyway.
    var isHighlight: Bool { priority == .text }
}

/// What a batch of effects says and sounds like (pure: no I/O, no clock).
struct UtterancePlan {
    var speech: Bool
    /// Sound icon names, or nil when sounds are off.
    var moveSound: String?
    var selectSound: String?
    /// The message screen's Attention sound, nil where it is not installed (the word is
    /// said alone).
    var attentionSound: String?
    /// `positionTones`: the first item of a cycle and the Exit item; nil when off.
    var firstTone: String?
    var exitTone: String?
    /// Scanning by ear: the highlight before was cut at the limit (`labelCut`), its label not
    /// said whole: the next label begins with it.
    var cutTone: String?
    /// For the first-item tone, per scope (the top level, each group entered, an open
    /// menu): the first item highlighted in it since it began.
    private var firstItems: [String?] = [nil]
    private var inMenu = false
    /// The top level's first item of each screen shown before (back from the keyboard, the
    /// scan goes on in the window at the field, not at its first item).
    private var firstByScreen: [String: String] = [:]

    init(speech: Bool, moveSound: String?, selectSound: String?) {
        self.speech = speech; self.moveSound = moveSound; self.selectSound = selectSound
    }

    /// Highlights speak (Switch Control's order: label, value, then the first trait word),
    /// announcements speak, selecting plays the select sound in place of the next move
    /// click. `screen`: the elements shown, for role words; each `.screen` effect replaces it.
    mutating func utterances(_ effects: [TimedEffect], received: ScanInstant,
                             screen: inout ElementTree?) -> [Utterance] {
        func traits(_ id: String) -> TraitSet? { screen.flatMap { t in t.index(of: id).map { t[$0].traits } } }
        var out: [Utterance] = []
        var selected = false
        var cut = false
        for e in effects {
            switch e.effect {
            case .screen(let shown):
                // Another screen (a window, the keyboard over it): its first item as it was
                // when last shown there, else found anew.
                if shown.tree.screenID != screen?.screenID {
                    if let id = screen?.screenID, let first = firstItems[0], firstByScreen.count < 64 { firstByScreen[id] = first }
                    firstItems = [firstByScreen[shown.tree.screenID]]
                    inMenu = false
                }
                screen = shown.tree
            case .scanStarted where firstTone != nil:
                // Scanning starts again (after it stopped, or a pause) at the top level, whose
                // first item stays what it was.
                firstItems = [firstItems[0]]
                inMenu = false
            case .enterGroup where firstTone != nil:
                firstItems.append(nil)
                if selectSound != nil { selected = true }
            case .menuOpen where firstTone != nil && !inMenu:
                // A menu shown again with new entries is the same menu.
                firstItems.append(nil)
                inMenu = true
            case .exitGroup where firstTone != nil:
                if firstItems.count > 1 { firstItems.removeLast() }
            case .menuClose where firstTone != nil && inMenu:
                if firstItems.count > 1 { firstItems.removeLast() }
                inMenu = false
            case .highlight(let item, let kind, _, let label, _, _):
                let text = speech ? Self.highlightText(kind: kind, label: label, traits: kind == .element ? traits(item) : nil) : nil
                var icons: [String] = []
                if selected, let selectSound { icons.append(selectSound) }
                if cut, let cutTone { icons.append(cutTone) }
                if let tone = positionTone(item: item, kind: kind) { icons.append(tone) }
                if icons.isEmpty, let moveSound { icons.append(moveSound) }
                selected = false
                cut = false
                if text != nil || !icons.isEmpty {
                    out.append(Utterance(priority: .text, text: text, icons: icons,
                                         effectTime: text == nil ? nil : e.time, received: text == nil ? nil : received))
                }
            case .announce(let text):
                guard speech, !text.isEmpty else { continue }
                out.append(Utterance(priority: .message, text: text, icon: selected ? selectSound : nil))
                selected = false
            case .speak(let text, _, _):
                // Words said for the person: whatever the scanning's own speech is set to,
                // and never cut by the labels that follow (they wait for it).
                guard !text.isEmpty else { continue }
                out.append(Utterance(priority: .message, isPublic: true, text: text, icon: nil, effectTime: e.time, received: received))
                selected = false
            case .labelCut:
                cut = cutTone != nil
            case .attention:
                // A call for help does not wait behind a long message.
                out.append(Utterance(priority: .important, isPublic: true, text: "Attention", icon: attentionSound))
                selected = false
            case .activate, .customAction, .adjust, .enterGroup, .tap, .gesture, .window(_, _, _, chosen: true):
                if selectSound != nil { selected = true }
            default:
                // Not said (EffectSpec.table says which kinds speech acts on).
                break
            }
        }
        if selected, let selectSound {
            out.append(Utterance(priority: .notification, text: nil, icon: selectSound))
        }
        // A cut with no highlight after it (the scan stopped): the knock alone.
        if cut, let cutTone { out.append(Utterance(priority: .text, text: nil, icon: cutTone)) }
        return out
    }

    /// The tone of an Exit item, or of the first item of its scope (each time the cycle
    /// comes back to it).
    private mutating func positionTone(item: String, kind: HighlightKind) -> String? {
        guard let firstTone else { return nil }
        if kind == .exit { return exitTone }
        if firstItems[firstItems.count - 1] == nil { firstItems[firstItems.count - 1] = item }
        return firstItems[firstItems.count - 1] == item ? firstTone : nil
    }

    /// "Btn 1, button", "Volume, 50, adjustable", "Btn 5, Btn 6, group", "Tap". The engine's
    /// label already holds value and state words; a role word is added only where the label
    /// does not say it already. Nil when there is nothing to say.
    static func highlightText(kind: HighlightKind, label: String?, traits: TraitSet?) -> String? {
        let label = label ?? ""
        let role: (word: String, synonyms: [String])?
        switch kind {
        case .element: role = traits.flatMap(roleWord)
        case .group: role = ("group", [])
        case .exit, .menuEntry: role = nil
        }
        guard let role, !says(label, role.word), !role.synonyms.contains(where: { says(label, $0) }) else {
            return label.isEmpty ? nil : label
        }
        return label.isEmpty ? role.word : label + ", " + role.word
    }

    /// The first trait word, most telling first (what a switch user can do with it).
    static func roleWord(_ traits: TraitSet) -> (word: String, synonyms: [String])? {
        if traits.contains(.adjustable) { return ("adjustable", ["slider", "spin button"]) }
        if traits.contains(.link) { return ("link", []) }
        if traits.contains(.searchField) { return ("search field", ["search"]) }
        if traits.contains(.button) { return ("button", []) }
        if traits.contains(.header) { return ("heading", ["header"]) }
        if traits.contains(.image) { return ("image", ["icon"]) }
        return nil
    }

    /// Whether `text` has `phrase` as whole words ("OK button" says "button"; "Buttons" does not).
    static func says(_ text: String, _ phrase: String) -> Bool {
        let words = self.words(text), target = self.words(phrase)
        guard !target.isEmpty, words.count >= target.count else { return false }
        for start in 0...(words.count - target.count) where Array(words[start..<start + target.count]) == target {
            return true
        }
        return false
    }

    static func words(_ text: String) -> [String] {
        text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
    }
}

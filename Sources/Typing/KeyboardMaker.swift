import ScanCore
import WordPrediction

/// The keyboards the engine opens over text fields: placed clear of the field, knowing
/// its text, predicting and learning as the field allows (a password field: no predictions
/// and no learning; a terminal, or a keyboard for whatever has the focus: no learning; all
/// three secret: nothing typed is said back or named in the effects' streams), with the
/// text rules of the field's kind (`TextEntryKind`).
/// What one keyboard learned, the next knows.
public struct KeyboardMaker: KeyboardProvider {
    public let layout: KeyboardLayout
    public let settings: TypingSettings
    /// The keyboards' words: a predictor whose learning the maker takes back from each
    /// keyboard that closes, or a source that keeps them itself.
    public private(set) var words: Keyboard.Words

    /// Keyboards predicting at once (simulation, benchmarks).
    public init(layout: KeyboardLayout, predictor: WordPredictor, settings: TypingSettings) {
        self.init(layout: layout, words: .inline(predictor), settings: settings)
    }

    public init(layout: KeyboardLayout, words: Keyboard.Words, settings: TypingSettings) {
        self.layout = layout
        self.settings = settings
        self.words = words
    }

    public func keyboard(for field: ElementNode?, screen: Rect) -> (tree: ElementTree, logic: any ScreenLogic, effects: [Effect]) {
        let kind = field?.textEntry ?? .text
        // Capitals at sentences' starts only where sentences are written: a terminal's first
        // letter is a command's, a password's, a file name's or an address's is as typed, and
        // whatever has the focus, unknown, may be any of them.
        var settings = settings
        if !kind.isProse || field == nil { settings.autoCapitalize = false }
        var keyboard = Keyboard(layout: layout, words: words, settings: settings,
                                text: kind == .password ? "" : field?.value ?? "",
                                // A terminal often asks for a password (sudo, ssh), and whatever
                                // has the focus, unknown, may be one: learned, said and shown as one.
                                learns: settings.learnWords && kind.learnsWords && field != nil,
                                secret: kind.isSecret || field == nil, predicts: kind.predictsWords,
                                field: kind,
                                panel: Keyboard.panel(on: screen, avoiding: field?.frame), screen: screen)
        let effects = keyboard.opened()
        return (keyboard.tree, keyboard, effects)
    }

    public mutating func closed(_ logic: any ScreenLogic) {
        if let keyboard = logic as? Keyboard, case .inline = keyboard.words { words = keyboard.words }
    }
}

import ScanCore
import WordPrediction

/// The keyboards the engine opens over text fields: placed clear of the field, knowing
/// its text, predicting and learning as the field allows (a password field: no predictions
/// and no learning; a terminal, or a keyboard for whatever has the focus: no learning; all
/// three secret: nothing typed is said back or named in the effects' streams; a password
/// or a terminal: no automatic capitals).
/// What one keyboard learned, the next knows.
///
/// The user's words are kept here, apart from the language's: a keyboard opens at once,
/// with the user's words alone while the language's are still being read, and takes the
/// language's at its first update after they are (nothing it learned is lost).
public struct KeyboardMaker: KeyboardProvider {
    public let layout: KeyboardLayout
    public let settings: TypingSettings
    /// The user's words: those the session started with and what its keyboards learned.
    public private(set) var user: WordList
    /// The language's words, nil until they are read; asked without waiting.
    private let system: @Sendable () -> WordPredictor?

    /// The predictor the next keyboard starts from: the user's words, with the language's
    /// if they are read.
    public var predictor: WordPredictor { predictor(system()) }

    public init(layout: KeyboardLayout, predictor: WordPredictor, settings: TypingSettings) {
        self.init(layout: layout, settings: settings, user: predictor.user, system: { predictor })
    }

    /// With the language's words read on another thread, so that scanning starts without
    /// waiting for a big list: `system` answers at once, nil until they are read (its
    /// predictor's user list is not used). A list that is never read leaves the keyboards
    /// predicting from the user's words.
    public init(layout: KeyboardLayout, settings: TypingSettings, user: WordList = WordList(),
                system: @escaping @Sendable () -> WordPredictor?) {
        self.layout = layout
        self.settings = settings
        self.user = user
        self.system = system
    }

    public func keyboard(for field: ElementNode?, screen: Rect) -> (tree: ElementTree, logic: any ScreenLogic, effects: [Effect]) {
        let kind = field?.textEntry ?? .text
        let read = system()
        // A terminal's first letter is a command's, not a sentence's; a password's is as typed.
        var settings = settings
        if kind != .text { settings.autoCapitalize = false }
        var keyboard = Keyboard(layout: layout, predictor: predictor(read), settings: settings,
                                text: kind == .password ? "" : field?.value ?? "",
                                // A terminal often asks for a password (sudo, ssh), and whatever
                                // has the focus, unknown, may be one: learned, said and shown as one.
                                learns: settings.learnWords && kind == .text && field != nil,
                                secret: kind != .text || field == nil, predicts: kind != .password,
                                panel: Keyboard.panel(on: screen, avoiding: field?.frame), screen: screen,
                                pendingSystem: read == nil ? system : nil)
        let effects = keyboard.opened()
        return (keyboard.tree, keyboard, effects)
    }

    public mutating func closed(_ logic: any ScreenLogic) {
        if let keyboard = logic as? Keyboard { user = keyboard.predictor.user }
    }

    private func predictor(_ system: WordPredictor?) -> WordPredictor {
        system?.replacingUser(user) ?? WordPredictor(system: WordList(), user: user)
    }
}

import ScanCore
import WordPrediction

/// The keyboards the engine opens over text fields: placed clear of the field, knowing
/// its text, predicting and learning as the field allows (a password field: no predictions
/// and no learning; a terminal, or a keyboard for whatever has the focus: no learning).
/// What one keyboard learned, the next knows.
public struct KeyboardMaker: KeyboardProvider {
    public let layout: KeyboardLayout
    public let settings: TypingSettings
    /// What the last keyboard left (its learned words); before any, `first`.
    private var learned: WordPredictor?
    private let first: @Sendable () -> WordPredictor

    /// The predictor the next keyboard starts from.
    public var predictor: WordPredictor { learned ?? first() }

    public init(layout: KeyboardLayout, predictor: WordPredictor, settings: TypingSettings) {
        self.init(layout: layout, settings: settings, predictor: { predictor })
    }

    /// With a predictor made when the first keyboard opens: `predictor` may wait for words
    /// read on another thread, so that scanning starts without waiting for a big word list.
    public init(layout: KeyboardLayout, settings: TypingSettings, predictor: @escaping @Sendable () -> WordPredictor) {
        self.layout = layout
        self.settings = settings
        self.first = predictor
    }

    public func keyboard(for field: ElementNode?, screen: Rect) -> (tree: ElementTree, logic: any ScreenLogic, effects: [Effect]) {
        let kind = field?.textEntry ?? .text
        var keyboard = Keyboard(layout: layout, predictor: predictor, settings: settings,
                                text: kind == .password ? "" : field?.value ?? "",
                                // Typing into whatever has the focus, unknown: it may be a password.
                                learns: settings.learnWords && kind == .text && field != nil, secret: kind == .password,
                                panel: Keyboard.panel(on: screen, avoiding: field?.frame), screen: screen)
        let effects = keyboard.opened()
        return (keyboard.tree, keyboard, effects)
    }

    public mutating func closed(_ logic: any ScreenLogic) {
        if let keyboard = logic as? Keyboard { learned = keyboard.predictor }
    }
}

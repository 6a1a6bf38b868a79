/// A screen that answers its own activations: the scanning keyboard. The engine scans it
/// like any screen; when one of its elements is activated, the engine hands the element's
/// id to the logic, emits what the logic returns and swaps in the screen's next version
/// (new labels: predictions, Shift) before it highlights anything again, so nothing stale
/// is shown or spoken.
public protocol ScreenLogic: Sendable {
    /// The element `id` of the screen was activated.
    mutating func activate(_ id: String) -> ScreenChange
    /// The field typed into has this text before its caret, as the application reports it.
    mutating func fieldChanged(textBefore: String) -> ScreenChange
    /// Words made for it on another thread arrived (an input of the engine, as a switch
    /// is): the screen as it is now.
    mutating func wordsMade(_ made: MadeWords) -> ScreenChange
    /// The phrases file changed while it runs (the message screen offers them).
    mutating func phrasesChanged(_ phrases: [String]) -> ScreenChange
}

extension ScreenLogic {
    public mutating func wordsMade(_ made: MadeWords) -> ScreenChange { ScreenChange() }
    public mutating func phrasesChanged(_ phrases: [String]) -> ScreenChange { ScreenChange() }
}

/// The keyboard's predictions, made away from the engine (`run`: on a thread of their own)
/// for the text before the caret as it was when they were asked for: a keyboard whose
/// text has moved on since takes none of them.
public struct MadeWords: Hashable, Sendable {
    /// The partial word before the caret, and the word before it in the sentence.
    public var partial: String
    public var previous: String?
    public var words: [String]

    public init(partial: String, previous: String?, words: [String]) {
        self.partial = partial; self.previous = previous; self.words = words
    }
}

public struct ScreenChange: Sendable {
    public var effects: [Effect]
    /// The screen's next version (the same screen id); nil: unchanged.
    public var tree: ElementTree?
    /// The screen closed itself: the engine says so (`keyboardClose`) and goes back to the
    /// screen beneath it.
    public var closed: Bool
    /// The screen gained what is scanned first, before the person chose anything on it
    /// (the keyboard's predictions, made elsewhere, arriving just after it opened): the
    /// scan starts over at the top rather than keep its place below.
    public var startsOver = false

    public init(effects: [Effect] = [], tree: ElementTree? = nil, closed: Bool = false) {
        self.effects = effects; self.tree = tree; self.closed = closed
    }
}

/// Makes the keyboard for a text field: given to the engine by the host, which has the
/// words. Pure: the same field gives the same keyboard.
public protocol KeyboardProvider: Sendable {
    /// The keyboard for typing into `field` (nil: into whatever has the focus), drawn on a
    /// screen of `screen`'s size: its screen, its logic and the effects that announce it.
    func keyboard(for field: ElementNode?, screen: Rect) -> (tree: ElementTree, logic: any ScreenLogic, effects: [Effect])
    /// A keyboard it made closed: what it learned is there for the next one.
    mutating func closed(_ logic: any ScreenLogic)
}

/// Makes the message screen (docs/MESSAGES.md) that the screen menu's Message entry shows over the
/// window: the same one each time, its message and history as they were when it was hidden.
public protocol MessageScreenProvider: Sendable {
    /// The message screen on a screen of `screen`'s size: its screen, its logic and the
    /// effects that announce it.
    mutating func messageScreen(on screen: Rect) -> (tree: ElementTree, logic: any ScreenLogic, effects: [Effect])
    /// A screen it made was hidden (its Hide key, the host): kept for the next time.
    mutating func closed(_ logic: any ScreenLogic)
    /// The phrases file changed while it runs: the screen offers the new phrases, hidden or not.
    mutating func phrasesChanged(_ phrases: [String])
}

/// A screen shown over another (the keyboard over a window): its logic, and what lies
/// beneath, kept up to date while it is open and scanned again when it closes.
struct PresentedScreen: Sendable {
    var logic: any ScreenLogic
    var beneath: ElementTree
    /// The element of the screen beneath to come back to (the text field).
    var returnTo: String?
    /// The highlight moved, by a switch or by time, since it was shown: what arrives later
    /// never moves it for the person (`ScreenChange.startsOver`).
    var moved = false
}

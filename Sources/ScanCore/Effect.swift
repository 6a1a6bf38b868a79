public enum HighlightKind: String, Sendable { case element, group, exit, menuEntry }
/// A step up or down, small (the element's step) or a page (a tenth of its range).
public enum AdjustDirection: String, Sendable {
    case increment, decrement, pageIncrement, pageDecrement
    /// +1 up, -1 down.
    public var sign: Int { self == .increment || self == .pageIncrement ? 1 : -1 }
    public var isPage: Bool { self == .pageIncrement || self == .pageDecrement }
    /// The menu's title for it.
    public var title: String {
        switch self {
        case .increment: return "Increment"
        case .decrement: return "Decrement"
        case .pageIncrement: return "Page increment"
        case .pageDecrement: return "Page decrement"
        }
    }
}
/// What the element menu's Gestures page does with the pointer, where a tap is not enough:
/// scrolling, the other clicks, a press held, a drag to a point chosen in point mode.
public enum Gesture: String, CaseIterable, Sendable {
    case scrollUp, scrollDown, scrollLeft, scrollRight, rightClick, doubleClick, longPress, drag
    public var isScroll: Bool { self == .scrollUp || self == .scrollDown || self == .scrollLeft || self == .scrollRight }
    /// The Gestures page's title for it.
    public var title: String {
        switch self {
        case .scrollUp: return "Scroll up"
        case .scrollDown: return "Scroll down"
        case .scrollLeft: return "Scroll left"
        case .scrollRight: return "Scroll right"
        case .rightClick: return "Right click"
        case .doubleClick: return "Double click"
        case .longPress: return "Long press"
        case .drag: return "Drag"
        }
    }
}
/// Keys the scanner menu sends to the focused application, for applications whose
/// accessibility tree does not offer everything.
public enum SpecialKey: String, CaseIterable, Sendable { case escape, enter, tab, up, down, left, right }
public enum StopReason: String, Sendable {
    /// `loops` cycles passed without a selection at the top level.
    case loopsExhausted
    /// The user paused scanning with the `pause` switch.
    case paused
    /// Nothing on the screen can be scanned.
    case nothingToScan
    /// The scan waits after a selection (`pauseAfterSelection`).
    case afterSelection
}

/// What the engine asks the outside world to show or do. Most cases name that, as a verb or
/// a noun (`highlight`, `tap`, `typeText`, `menuOpen`); a past participle marks a change the
/// engine has already made, which presenters only reflect (`scanStarted`, `modeChanged`,
/// `pointSelected`, `settingChanged`).
public enum Effect: Hashable, Sendable {
    /// The screen scanned from now on (the start, a new snapshot of the window, a dialog, the
    /// keyboard over a field), before any highlight on it: presenters that draw the screen
    /// or name roles take the elements from here and from nowhere else.
    case screen(ShownScreen)
    case scanStarted
    case scanStopped(StopReason)
    /// `context` names the enclosing group for exit items and the element for menu entries.
    /// `outline`: for a group (and its exit item) whose frame would hold other items, the
    /// rectangles whose union is drawn instead (docs/BEHAVIOUR.md, "Groups a person can see"); nil: the frame is the outline.
    case highlight(item: String, kind: HighlightKind, frame: Rect?, label: String?, context: String?, outline: [Rect]? = nil)
    case enterGroup(String)
    case exitGroup(String)
    /// `entries` are names (stable, for programs), `titles` what the user sees and hears.
    case menuOpen(element: String?, entries: [String], titles: [String])
    case menuClose(element: String?)
    /// A tap at the element's activation point; `target` is the node the tap reached.
    case activate(element: String, point: Point, target: String?)
    case customAction(element: String, action: String, succeeded: Bool)
    case adjust(element: String, direction: AdjustDirection, value: String)
    case modeChanged(ScanMode)
    case sweep(Sweep)
    case pointSelected(Point)
    case tap(Point, element: String?)
    /// A gesture at `at` (the element's activation point, or a chosen point); a drag's drop
    /// is `to`. `element` is the element it was chosen on, if any.
    case gesture(Gesture, element: String?, at: Point, to: Point?)
    case announce(String)
    /// A message from the host for whoever watches the screen (a device in use, a warning):
    /// shown on a status line, not spoken, not part of the JSON lines (stderr has it).
    case notice(String)
    /// A setting the scanner menu changed, already applied, for the runtime to keep.
    case settingChanged(SettingChange)
    /// A key to send to the focused application (the screen menu's Keys page).
    case key(SpecialKey)
    /// A command to the window manager (the screen menu's Windows page); `title` is the
    /// window's, for messages.
    case window(WindowCommand, window: String, title: String)
    /// A host event declared by the layout (`{"emit": …}`), raised by `element`'s handler.
    case emit(name: String, element: String, data: String?)
    /// The scanning keyboard opened, or its keys' labels changed (predictions, Shift).
    case keyboard([KeyboardKey])
    /// Text inserted at the caret of the focused field; `secret` in a password field, a
    /// terminal, or a field the keyboard cannot see (the text is then never shown, spoken or
    /// printed: only typed, as keys).
    case typeText(String, secret: Bool)
    /// Characters (user-perceived) deleted before the caret.
    case deleteText(characters: Int)
    /// The scanning keyboard closed.
    case keyboardClose
    /// A key with modifiers sent to the focused application (the keyboard's editing page:
    /// caret moves, selection, the clipboard, undo; one-shot Ctrl and Alt).
    case shortcut(KeyChord)
    /// The keyboard learned a word the user committed (after `after` in the sentence), for
    /// the runtime to keep (never in a password field or a terminal).
    case learnWord(String, after: String?)
}

/// A key and the modifiers held while it is pressed. `key` is the key's X keysym name
/// ("Left", "Home", "a", "F4"), which GTK and Qt use too.
public struct KeyChord: Hashable, Sendable {
    public enum Modifier: String, CaseIterable, Sendable { case control, alt, shift }
    public var key: String
    public var modifiers: [Modifier]
    public init(_ key: String, _ modifiers: [Modifier] = []) { self.key = key; self.modifiers = modifiers }
}

/// A key of the scanning keyboard as the overlay draws it and a front end shows it.
public struct KeyboardKey: Hashable, Sendable {
    public var id: String
    public var label: String
    public var frame: Rect
    /// What streams that leave the screen (JSON lines, the socket) show in place of the
    /// label, when it would tell what is typed in a secret keyboard: a prediction made from
    /// the text, a letter in the case Shift gave it. nil: the label.
    public var streamLabel: String?
    /// A modifier or lock that is on: Ctrl or Alt held for the next key, Shift for the next
    /// letter, Caps lock. Drawn apart, so that the person sees what the next key will do.
    public var held: Bool
    /// Whether streams that leave the screen say it is held: not a secret keyboard's Shift
    /// or Caps lock, which would tell a letter's case.
    public var heldInStream: Bool
    public init(id: String, label: String, frame: Rect, streamLabel: String? = nil, held: Bool = false, heldInStream: Bool? = nil) {
        self.id = id
        self.label = label
        self.frame = frame
        self.streamLabel = streamLabel
        self.held = held
        self.heldInStream = heldInStream ?? held
    }
}

/// A screen as the engine shows it. A reference, so that an effect stays small; two are
/// equal when they are the same showing (the engine numbers each one) of the same screen.
public final class ShownScreen: Hashable, Sendable, CustomStringConvertible {
    public let tree: ElementTree
    /// Counts the screens one engine has shown, from 1.
    public let serial: Int
    public init(_ tree: ElementTree, serial: Int) { self.tree = tree; self.serial = serial }
    public static func == (a: ShownScreen, b: ShownScreen) -> Bool { a.serial == b.serial && a.tree.screenID == b.tree.screenID }
    public func hash(into h: inout Hasher) { h.combine(serial); h.combine(tree.screenID) }
    public var description: String { "\(tree.screenID) #\(serial)" }
}

public struct TimedEffect: Hashable, Sendable {
    public var time: ScanInstant
    public var effect: Effect
    public init(_ time: ScanInstant, _ effect: Effect) { self.time = time; self.effect = effect }
}

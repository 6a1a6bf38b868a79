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
    /// A command to the window manager; `title` is the window's, for messages. `chosen`: by
    /// the person on the screen menu's Windows page; else the window `run --app` scans,
    /// raised when the window manager first lists it behind another.
    case window(WindowCommand, window: String, title: String, chosen: Bool = true)
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
    /// Words said for the person (the message screen): their message, a phrase, a quick
    /// answer, in `voice`.
    case speak(String, voice: Voice, from: SpokenFrom)
    /// A sound to call someone (the message screen's Attention key).
    case attention
    /// Scanning by ear: the label of the highlight before was still being said at
    /// `speechPacingLimit`, and the scan moved on (speech marks the next label).
    case labelCut
}

/// Whose speech: the public voice says what the person says to the people around them
/// (scanning's own labels and prompts are `highlight` and `announce`).
public enum Voice: String, CaseIterable, Sendable { case `public` }

/// Where spoken words came from: a message written and spoken is kept in the history.
public enum SpokenFrom: String, CaseIterable, Sendable { case message, phrase, history, answer }

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
    /// The id of the message screen's message: drawn as a key, never scanned.
    public static let messageID = "message"
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

// MARK: - The effects as a protocol

extension Effect {
    /// An effect's kind: its name in the JSON lines and in `EffectSpec.table`.
    public enum Kind: String, CaseIterable, Sendable {
        case screen, scanStarted, scanStopped, highlight, enterGroup, exitGroup, menuOpen, menuClose, activate, customAction,
             adjust, modeChanged, sweep, pointSelected, tap, gesture, announce, notice, settingChanged, key, window, emit,
             keyboard, typeText, deleteText, keyboardClose, shortcut, learnWord, speak, attention, labelCut
    }

    public var kind: Kind {
        switch self {
        case .screen: .screen
        case .scanStarted: .scanStarted
        case .scanStopped: .scanStopped
        case .highlight: .highlight
        case .enterGroup: .enterGroup
        case .exitGroup: .exitGroup
        case .menuOpen: .menuOpen
        case .menuClose: .menuClose
        case .activate: .activate
        case .customAction: .customAction
        case .adjust: .adjust
        case .modeChanged: .modeChanged
        case .sweep: .sweep
        case .pointSelected: .pointSelected
        case .tap: .tap
        case .gesture: .gesture
        case .announce: .announce
        case .notice: .notice
        case .settingChanged: .settingChanged
        case .key: .key
        case .window: .window
        case .emit: .emit
        case .keyboard: .keyboard
        case .typeText: .typeText
        case .deleteText: .deleteText
        case .keyboardClose: .keyboardClose
        case .shortcut: .shortcut
        case .learnWord: .learnWord
        case .speak: .speak
        case .attention: .attention
        case .labelCut: .labelCut
        }
    }
}

/// One kind of effect as the engine's outputs see it: its JSON fields, who acts on it, what
/// it means, and an example. `table` is the one list: the JSON lines' check, docs/EFFECTS.md
/// and each presenter's check read it; a new kind is a case above, a line here, its JSON in
/// EffectJSON, the engine that makes it and whoever acts on it.
public struct EffectSpec: Sendable {
    /// Who acts on an effect.
    public enum Consumer: String, CaseIterable, Sendable {
        /// The JSON lines (standard output, `--socket`): front ends and `simulate`.
        case stream
        /// The painters of the screen (the X11 overlay, the layer-shell overlay, GNOME Shell's
        /// extension), through `OverlayScene`.
        case overlay
        /// The terminal UI (`TerminalScene`).
        case terminal
        /// Speech and sounds.
        case speech
        /// The live desktop (AT-SPI actions, scrolling into view, the field typed into).
        case desktop
        /// The key injector: text and keys into the focused application.
        case keys
        /// The pointer: point-mode taps and gestures of a layout run.
        case pointer
        /// The window manager (the Windows page).
        case windows
        /// The session itself: the settings file, the learned words, the status line.
        case session
    }

    public let kind: Effect.Kind
    /// The JSON fields after `t` and `effect`, in order; a name ending in `?` is not always
    /// there. Empty for a kind the stream does not carry.
    public let fields: [String]
    public let consumers: Set<Consumer>
    public let meaning: String
    public let example: Effect
    /// What comes before the example in a stream, where it needs something (a menu open
    /// for it to close).
    public let after: [Effect]

    init(_ kind: Effect.Kind, _ fields: [String], _ consumers: Set<Consumer>, _ meaning: String, _ example: Effect, after: [Effect] = []) {
        self.kind = kind; self.fields = fields; self.consumers = consumers; self.meaning = meaning; self.example = example; self.after = after
    }

    public static func of(_ kind: Effect.Kind) -> EffectSpec { table.first { $0.kind == kind }! }

    /// The example in a stream, a second apart: a screen shown and an element lit (but
    /// before a screen), what the example needs, then the example.
    public var exampleStream: [TimedEffect] {
        let tree = ElementTree(screenID: "s", size: (375, 667), nodes: [ElementNode(id: "root")])
        let start: [Effect] = kind == .screen ? [] : [
            .screen(ShownScreen(tree, serial: 1)), .scanStarted,
            .highlight(item: "btn1", kind: .element, frame: Rect(x: 10, y: 10, width: 100, height: 40), label: "Btn 1", context: nil),
        ]
        return (start + after + [example]).enumerated().map { TimedEffect(.seconds(Double($0.offset)), $0.element) }
    }

    /// Every kind, in the order of `Effect.Kind`.
    public static let table: [EffectSpec] = {
        let frame = Rect(x: 88, y: 200, width: 200, height: 44)
        let example = ElementTree(screenID: "example", size: (375, 667), nodes: [ElementNode(id: "root")])
        let menu = Effect.menuOpen(element: "btn5", entries: ["tap", "exit"], titles: ["Tap", "Exit menu"])
        let keyboard = Effect.keyboard([KeyboardKey(id: "key_e", label: "e", frame: Rect(x: 0, y: 500, width: 40, height: 40))])
        return [
            .init(.screen, [], [.terminal, .speech],
                  "The screen scanned from now on (the start, a new snapshot of the window, a dialog, the keyboard over a field); not in the stream: a front end has the layout or the window's snapshot.",
                  .screen(ShownScreen(example, serial: 1))),
            .init(.scanStarted, [], [.stream, .terminal], "Scanning started (or started again after a stop).", .scanStarted,
                  after: [.scanStopped(.paused)]),
            .init(.scanStopped, ["reason"], [.stream, .overlay, .terminal],
                  "Scanning stopped: `loopsExhausted`, `paused`, `nothingToScan`, `afterSelection` (it waits, its place still lit).",
                  .scanStopped(.loopsExhausted)),
            .init(.highlight, ["item", "kind", "group?", "element?", "frame?", "outline?", "label?", "secret?"],
                  [.stream, .overlay, .terminal, .speech],
                  "An item lit: `kind` element, group, exit or menuEntry; its `frame` and the spoken `label`; an exit item's `group`, a menu entry's `element`; a group whose frame would hold other items has `outline`, the rectangles whose union is drawn.",
                  .highlight(item: "btn1", kind: .element, frame: frame, label: "Btn 1", context: nil)),
            .init(.enterGroup, ["group"], [.stream, .speech, .desktop],
                  "A group entered: its items are scanned next (the desktop scrolls it into view).", .enterGroup("thirdGroup")),
            .init(.exitGroup, ["group"], [.stream], "A group left.", .exitGroup("thirdGroup")),
            .init(.menuOpen, ["element", "entries", "titles"], [.stream, .overlay, .terminal, .desktop],
                  "The scanner menu opened (for `element`, or the screen menu: null): `entries` by name, `titles` as shown and spoken.",
                  menu),
            .init(.menuClose, ["element"], [.stream, .overlay, .terminal], "The scanner menu closed.", .menuClose(element: "btn5"), after: [menu]),
            .init(.activate, ["element", "point?", "target?", "secret?"], [.stream, .terminal, .speech, .desktop],
                  "A tap on an element at its activation `point`; `target` is the node the tap reached.",
                  .activate(element: "btn5", point: Point(x: 188, y: 438), target: "btn5")),
            .init(.customAction, ["element", "action", "failed?"], [.stream, .terminal, .speech, .desktop],
                  "One of the element's own actions.", .customAction(element: "msg1", action: "Delete", succeeded: true)),
            .init(.adjust, ["element", "direction", "value"], [.stream, .terminal, .speech, .desktop],
                  "An adjustable element moved by a step or a page (`increment`, `decrement`, `pageIncrement`, `pageDecrement`); its new `value`.",
                  .adjust(element: "volume", direction: .increment, value: "60")),
            .init(.modeChanged, ["mode"], [.stream, .overlay, .terminal], "Item or point mode from now on.", .modeChanged(.point)),
            .init(.sweep, ["axis", "phase", "from?", "speed?", "bounds?", "width?", "passes?", "secret?"], [.stream, .overlay, .terminal],
                  "A point-mode line (or band, of `width`) starts gliding along `axis` from `from` at `speed` points a second between `bounds`, for `passes` edge-to-edge passes.",
                  .sweep(Sweep(axis: .x, phase: .line, start: .zero, lo: 0, hi: 375, speed: 100, passes: 2))),
            .init(.pointSelected, ["x?", "y?", "secret?"], [.stream, .overlay, .terminal], "Point mode's point, fixed.",
                  .pointSelected(Point(x: 188, y: 330)), after: [.modeChanged(.point)]),
            .init(.tap, ["x?", "y?", "element?", "secret?"], [.stream, .terminal, .speech, .desktop, .pointer],
                  "A tap at a point (point mode), on the `element` under it if any.", .tap(Point(x: 188, y: 330), element: "btn3")),
            .init(.gesture, ["gesture", "element?", "point?", "to?", "secret?"], [.stream, .terminal, .speech, .desktop, .pointer],
                  "A gesture of the Gestures page (`scrollUp`, `scrollDown`, `scrollLeft`, `scrollRight`, `rightClick`, `doubleClick`, `longPress`, `drag`) chosen on `element`, made at `point`; a drag's drop point `to`.",
                  .gesture(.scrollDown, element: "list", at: Point(x: 188, y: 330), to: nil)),
            .init(.announce, ["text"], [.stream, .terminal, .speech], "A text to show and say (a screen's name, a change an action made, a refusal).",
                  .announce("Mail inbox")),
            .init(.notice, [], [.terminal],
                  "A message from the host for whoever watches the screen (a device in use, a warning): on a status line, not spoken; not in the stream (standard error has it).",
                  .notice("Using X-Keys")),
            .init(.settingChanged, ["name", "value"], [.stream, .session],
                  "A setting the scanner menu changed, already applied: `name` and `value` as in a settings file; the session keeps it in the file.",
                  .settingChanged(.autoScanInterval(.seconds(0.9)))),
            .init(.key, ["key"], [.stream, .terminal, .keys], "A key for the focused application (the Keys page, the keyboard's Enter, or a handler's `{\"key\": …}` such as a menu's Close): escape, enter, tab, up, down, left, right.",
                  .key(.escape)),
            .init(.window, ["action", "window", "title", "automatic?"], [.stream, .terminal, .speech, .windows],
                  "A command for the window manager: `activate`, `close`, `minimize`, `maximize`, `restore` the `window` (its id) of that `title`, chosen on the Windows page; `\"automatic\": true` when SwitchScan raises the window `run --app` scans, which another covered.",
                  .window(.activate, window: "0x2a00003", title: "Untitled 1 - Mousepad")),
            .init(.emit, ["name", "element", "data?"], [.stream, .terminal], "A host event the layout declares (`{\"emit\": …}`), raised by `element`'s handler.",
                  .emit(name: "btn5.tapped", element: "btn5", data: nil)),
            .init(.keyboard, ["keys"], [.stream, .overlay, .terminal, .desktop],
                  "The scanning keyboard opened, or its keys changed (predictions, Shift): `keys`, each `id`, `label`, `frame`, and `\"held\": true` for a modifier or lock that is on.",
                  keyboard),
            .init(.typeText, ["text", "secret?"], [.stream, .terminal, .keys],
                  "Text typed at the caret; in a password field, a terminal or for an unknown focus `\"secret\": true` and the text as bullets.",
                  .typeText("see ", secret: false)),
            .init(.deleteText, ["characters"], [.stream, .terminal, .keys], "Characters deleted before the caret.", .deleteText(characters: 1),
                  after: [keyboard, .typeText("see ", secret: false)]),
            .init(.keyboardClose, [], [.stream, .overlay, .terminal, .desktop], "The scanning keyboard closed.", .keyboardClose, after: [keyboard]),
            .init(.shortcut, ["key?", "modifiers?", "secret?"], [.stream, .terminal, .keys],
                  "A key with modifiers for the focused application (the keyboard's editing page); its X keysym name.",
                  .shortcut(KeyChord("s", [.control]))),
            .init(.learnWord, ["word", "after"], [.stream, .session], "A word the user typed, learned for the predictions (with the word before it); the session keeps it.",
                  .learnWord("soon", after: "you")),
            .init(.speak, ["text", "voice", "from"], [.stream, .terminal, .speech, .session],
                  "Words said for the person in a `voice` (`public`: to the people around them), `from` their `message` (the session keeps it in the history), a `phrase`, the `history` or an `answer` (Yes, No).",
                  .speak("Help me please", voice: .public, from: .message)),
            .init(.attention, [], [.stream, .terminal, .speech], "A sound loud enough to call someone (the message screen's Attention key).",
                  .attention),
            .init(.labelCut, [], [.stream, .speech],
                  "Scanning by ear: the label before was still being said at `speechPacingLimit` and the scan moved on; speech marks the next label with a knock.",
                  .labelCut),
        ]
    }()
}

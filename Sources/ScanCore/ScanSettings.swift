/// How the scan moves: by itself (`auto`), by a `next` switch (`manual`), a press a step
/// with resting selecting (`step`), or while the switch is held, selecting when it is let
/// go (`hold`, "inverse scanning").
public enum ScanStyle: String, CaseIterable, Sendable { case auto, manual, step, hold }
public enum ScanMode: String, CaseIterable, Sendable { case item, point }
public enum TapBehavior: String, CaseIterable, Sendable { case menu, autoTap, alwaysTap }
public enum FocusAfterTap: String, CaseIterable, Sendable { case first, same }
public enum ItemScope: String, CaseIterable, Sendable { case interactive, all }
/// Whether a switch acts when it goes down or when it comes back up.
public enum ActOn: String, CaseIterable, Sendable { case press, release }
/// How item mode groups what it scans: the layout's own groups, none, rows of the screen,
/// or groups built to minimise the expected time to reach an element (ScanCost.swift).
public enum Grouping: String, CaseIterable, Sendable { case layout, linear, rowColumn, optimal }
/// The order of what is scanned where the screen does not say it: a live window's
/// elements in screen order (rows top to bottom, each left to right, or right to left for
/// a right-to-left language), or in the order the application's toolkit gives them. The
/// direction also orders the rows of layouts in geometric order and of `rowColumn` and
/// `optimal` grouping.
public enum ScanOrder: String, CaseIterable, Sendable { case screen, screenRightToLeft, application }
/// Where scanning resumes after an escape or after a group's loops run out: where it was
/// (the element, the group in its parent), or at the first top-level item.
public enum ResumeAt: String, CaseIterable, Sendable { case same, first }
/// Whether the scan interval follows the person during `run` (TimingAdapter.swift).
public enum AdaptTiming: String, CaseIterable, Sendable { case off, on }
/// After an activation, the scan can wait before it moves on: a time, or until a press
/// (which only resumes, it does not select).
public enum PauseAfterSelection: Hashable, Sendable {
    case off
    case seconds(ScanDuration)
    case untilPress
}

/// Every user preference of the settings file, with its defaults. What each one does, the
/// values it takes and its key in the file: its line in `ScanSettings.table`. Durations that
/// can be off and are not zero when on are optional. Hardware debounce is not here: it
/// belongs to device profiles.
public struct ScanSettings: Hashable, Sendable {
    public var style = ScanStyle.auto
    public var mode = ScanMode.item
    public var autoScanInterval = ScanDuration.seconds(1.0)
    public var pauseOnFirstItem = ScanDuration.zero
    public var loops = 2
    public var moveRepeat: ScanDuration?
    public var holdDuration: ScanDuration?
    public var ignoreRepeat: ScanDuration?
    public var longPress: ScanDuration?
    public var longPressAction = SwitchAction.menu
    public var actOn = ActOn.press
    public var autoTapTime = ScanDuration.seconds(0.75)
    public var stepSelectDelay = ScanDuration.seconds(1.5)
    public var glideSpeed = 100.0
    public var tapBehavior = TapBehavior.menu
    public var focusAfterTap = FocusAfterTap.first
    public var groupItems = true
    public var itemScope = ItemScope.interactive
    public var precise = false
    public var bandFraction = 0.2
    public var fineSpeedFactor = 0.5
    public var grouping = Grouping.layout
    public var resumeAt = ResumeAt.same
    public var order = ScanOrder.screen
    public var pauseAfterSelection = PauseAfterSelection.off
    /// By element id; elements not named weigh 1.
    public var weights: [String: Double] = [:]
    public var reactionTime = ScanDuration.seconds(0.3)
    /// The standard deviation of the modelled user's reaction time: `cost`'s late presses.
    public var reactionSpread = ScanDuration.zero
    /// The interval follows the person's presses and corrections, within the bounds.
    public var adaptTiming = AdaptTiming.off
    public var adaptMinimum = ScanDuration.seconds(0.4)
    public var adaptMaximum = ScanDuration.seconds(3)
    /// A change of the interval by adaptation is said.
    public var adaptAnnounce = true
    public var announceChanges = true
    /// The message screen's Attention is called again every `attentionInterval` until the
    /// next press.
    public var attentionRepeats = false
    public static let attentionInterval = ScanDuration.seconds(5)
    /// Scanning by ear (docs/LISTENING.md): a highlight lasts until its label is said.
    public var speechPacing = false
    /// The longest a label holds the highlight; a longer one is cut (a short tone).
    public var speechPacingLimit = ScanDuration.seconds(3)
    /// How fast labels are said, for the time a label takes where speech-dispatcher does not
    /// tell it (`simulate`, `cost`, no speech-dispatcher).
    public var speakingRate = 190.0

    /// How the scan is shown and heard on a real screen (the engine does not read these).
    public var feedback = FeedbackSettings()
    /// The scanning keyboard: its letters' arrangement, capitals, learning.
    public var typing = TypingSettings()

    public init() {}

    /// Allowed range of the interval (the Settings page's Faster and Slower stay in it).
    public static let autoScanIntervalRange = 0.1...10.0
    /// Allowed range of the glide speed, points per second.
    public static let glideSpeedRange = 5.0...5000.0

    /// Every setting of the settings file, in the order the schema lists them. The loader,
    /// the settings schema and the check of docs/SETTINGS.md read this list; a new setting is a
    /// property above and a line here.
    public static let table: [SettingSpec] = [
        .init("style", .choice(\.style),
              "auto: one switch, the highlight moves by itself; manual: next and previous move, select selects; step: each press moves, resting stepSelectDelay selects; hold (inverse scanning): the highlight moves every autoScanInterval while select is held, and letting go selects."),
        .init("mode", .choice(\.mode), "Start in item or point mode."),
        .init("autoScanInterval", .seconds(\.autoScanInterval, autoScanIntervalRange), menu: true, "Time on each item."),
        .init("pauseOnFirstItem", .seconds(\.pauseOnFirstItem, 0...10, canBeOff: true), "Extra time on the first item of every cycle."),
        .init("loops", .integer(\.loops, 1...100),
              "Unanswered cycles before a group is left, a menu closed, or (top level) scanning stops; the next press restarts and never selects."),
        .init("moveRepeat", .optionalSeconds(\.moveRepeat, 0.05...5), "Holding next or previous repeats the move every this many seconds."),
        .init("holdDuration", .optionalSeconds(\.holdDuration, 0.01...5), "A press counts only once held this long."),
        .init("ignoreRepeat", .optionalSeconds(\.ignoreRepeat, 0.01...5), "Presses within this many seconds after an accepted press are ignored."),
        .init("longPress", .optionalSeconds(\.longPress, 0.2...5, whenTrue: .seconds(1)),
              "Held this long, a press does longPressAction instead (true: 1 second)."),
        .init("longPressAction", .choice(\.longPressAction), "What a long press does: any switch action."),
        .init("actOn", .choice(\.actOn), "release: a switch acts when let go, about the item highlighted then."),
        .init("autoTapTime", .seconds(\.autoTapTime, 0.2...5), "autoTap: the wait before tapping; a second press in it opens the menu."),
        .init("stepSelectDelay", .seconds(\.stepSelectDelay, 0.3...10), "step style: resting this long selects."),
        .init("glideSpeed", .number(\.glideSpeed, glideSpeedRange, unit: " points per second"), menu: true,
              "Point mode: the sweeping line's speed, points per second."),
        .init("tapBehavior", .choice(\.tapBehavior),
              "menu: selecting opens the scanner menu; autoTap: tap after autoTapTime unless pressed again; alwaysTap: tap at once, the menu is an extra item ending each cycle."),
        .init("focusAfterTap", .choice(\.focusAfterTap), "After a tap, restart at the first top-level item, or stay (same)."),
        .init("groupItems", .flag(\.groupItems), "Automatic containers with two or more members become groups."),
        .init("itemScope", .choice(\.itemScope),
              "Scan only what can be acted on (interactive), or all accessible elements."),
        .init("precise", .flag(\.precise), "Point mode: a band first, then a fine line inside it."),
        .init("bandFraction", .number(\.bandFraction, 0.02...0.5, unit: " of the screen"),
              "Point mode: the band's width, as a fraction of the screen's extent along the swept axis."),
        .init("fineSpeedFactor", .number(\.fineSpeedFactor, 0.05...1, unit: " of glideSpeed"),
              "Point mode: the fine line's speed, relative to glideSpeed."),
        .init("speech", .flag(\.feedback.speech), menu: true, "Speak each highlighted item (speech-dispatcher)."),
        .init("speechRate", .integer(\.feedback.speechRate, -100...100, unit: " (0 is the voice's default)"),
              "The cue voice's rate (cueVoice's rate); 0 is the voice's default."),
        .init("speechVolume", .integer(\.feedback.speechVolume, -100...100, unit: " (0 is the voice's default)"),
              "The cue voice's volume (cueVoice's volume); 0 is the voice's default."),
        .init("cueVoice", .voice(\.feedback.cueVoice),
              "The voice of scanning's labels and prompts: rate, volume, pitch (-100 to 100, 0 the user's default), voice, module, and address (another speech-dispatcher, such as one playing to headphones)."),
        .init("publicVoice", .voice(\.feedback.publicVoice),
              "The voice of the person's words (the message screen's message, phrases, Yes, No, Attention): the same members as cueVoice, on a connection of its own."),
        .init("sound", .flag(\.feedback.sound), menu: true, "A click on each move, another on select."),
        .init("highlightColor", .colour(\.feedback.highlightColor),
              "The on-screen outline's colour, drawn with a thin dark edge on both sides so that it shows on light and dark backgrounds."),
        .init("highlightWidth", .integer(\.feedback.highlightWidth, FeedbackSettings.highlightWidthRange, unit: " pixels"),
              "The on-screen outline's width in pixels."),
        .init("grouping", .choice(\.grouping),
              "layout: the layout's groups; linear: none; rowColumn: rows of the screen; optimal: groups that minimise the expected time to reach an element."),
        .init("weights", .weights(\.weights, 0...1e6), "Element id to relative frequency of use, for optimal grouping and for cost."),
        .init("reactionTime", .seconds(\.reactionTime, 0.06...5), "The modelled user of cost presses this long after the wanted item is highlighted."),
        .init("reactionSpread", .seconds(\.reactionSpread, 0...2, canBeOff: true),
              "The spread (standard deviation) of the modelled user's reaction time: cost's expectedSeconds and errorRate count the presses that come too late."),
        .init("adaptTiming", .choice(\.adaptTiming),
              "on: during run the interval follows the person, slower after late presses and selections undone at once, faster after a run of early right ones, at most 10 % a step, kept in the settings file."),
        .init("adaptMinimum", .seconds(\.adaptMinimum, autoScanIntervalRange),
              "adaptTiming: the shortest interval it goes to (not above adaptMaximum)."),
        .init("adaptMaximum", .seconds(\.adaptMaximum, autoScanIntervalRange),
              "adaptTiming: the longest interval it goes to."),
        .init("adaptAnnounce", .flag(\.adaptAnnounce), "adaptTiming: a change of the interval is said, briefly."),
        .init("pauseAfterSelection", .pause(\.pauseAfterSelection, 0.1...60),
              "After an activation the scan waits, its place highlighted, this many seconds or until a press (which only resumes)."),
        .init("resumeAt", .choice(\.resumeAt),
              "After an escape, when a group's loops run out, or when a menu closes unanswered: stay (the element; the group in its parent), or go to the first top-level item."),
        .init("order", .choice(\.order),
              "A live window is scanned in screen order: rows top to bottom, each left to right (screen) or right to left (screenRightToLeft, also for layouts and rowColumn and optimal rows); application: in the order the application gives."),
        .init("announceChanges", .flag(\.announceChanges),
              "After an action, a text of the window that changed (a calculator's display, a status line) is announced, once per action."),
        .init("attentionRepeats", .flag(\.attentionRepeats),
              "The message screen's Attention is called again every 5 seconds until the next press the switch filter takes."),
        .init("speechPacing", .flag(\.speechPacing),
              "Scanning by ear: with speech on, a highlight lasts until its label has been said, and never less than autoScanInterval; groups are announced by a short name."),
        .init("speechPacingLimit", .seconds(\.speechPacingLimit, 1...10),
              "speechPacing: a label still being said this long after it began is cut, the scan moves on, and the next label begins with a short knock."),
        .init("speakingRate", .number(\.speakingRate, 60...600, unit: " words a minute"),
              "speechPacing: how fast labels are said, for the time a label takes where speech-dispatcher does not report it (simulate, cost)."),
        .init("positionTones", .flag(\.feedback.positionTones),
              "A rising tone on the first item of each cycle and a chord on the Exit item, for a person who cannot see the screen."),
        .init("keyboardLayout", .choice(\.typing.keyboardLayout),
              "The scanning keyboard's letters: frequency (the commonest nearest the start), qwerty, alphabetical."),
        .init("autoCapitalize", .flag(\.typing.autoCapitalize), "A capital at the start of a field and after . ? !"),
        .init("learnWords", .flag(\.typing.learnWords),
              "The words typed are learned for the predictions (never in password fields or terminals)."),
    ]
}

/// One setting of the settings file: its key, the values it takes and where it lives in
/// `ScanSettings`, whether the scanner menu's Settings page changes it, and what it does.
public struct SettingSpec: Sendable {
    public let key: String
    public let kind: SettingKind
    /// The Settings page changes it (a `SettingChange` case).
    public let menu: Bool
    /// One line, for the schema and for people.
    public let doc: String

    init(_ key: String, _ kind: SettingKind, menu: Bool = false, _ doc: String) {
        self.key = key; self.kind = kind; self.menu = menu; self.doc = doc
    }
}

/// What values a setting takes, and the property that holds it.
public enum SettingKind: Sendable {
    /// Seconds within the range; `canBeOff`: off too, held as zero.
    case seconds(WritableKeyPath<ScanSettings, ScanDuration> & Sendable, ClosedRange<Double>, canBeOff: Bool = false)
    /// Seconds within the range, or off (nil); `whenTrue`: what on without a time means, if
    /// it means anything.
    case optionalSeconds(WritableKeyPath<ScanSettings, ScanDuration?> & Sendable, ClosedRange<Double>, whenTrue: ScanDuration? = nil)
    /// A number within the range; `unit` follows the range in messages.
    case number(WritableKeyPath<ScanSettings, Double> & Sendable, ClosedRange<Double>, unit: String = "")
    case integer(WritableKeyPath<ScanSettings, Int> & Sendable, ClosedRange<Int>, unit: String = "")
    case flag(WritableKeyPath<ScanSettings, Bool> & Sendable)
    /// One of the names of an enumeration.
    case choice(SettingChoice)
    case colour(WritableKeyPath<ScanSettings, RGBColor> & Sendable)
    /// Element ids to numbers within the range.
    case weights(WritableKeyPath<ScanSettings, [String: Double]> & Sendable, ClosedRange<Double>)
    /// A speech-dispatcher voice: an object of `VoiceSettings.members`.
    case voice(WritableKeyPath<ScanSettings, VoiceSettings> & Sendable)
    /// Off, seconds within the range, or until a press.
    case pause(WritableKeyPath<ScanSettings, PauseAfterSelection> & Sendable, ClosedRange<Double>)

    static func choice<E: RawRepresentable & CaseIterable & Sendable>(_ path: WritableKeyPath<ScanSettings, E> & Sendable) -> SettingKind
    where E.RawValue == String {
        .choice(SettingChoice(values: E.allCases.map(\.rawValue),
                              get: { $0[keyPath: path].rawValue },
                              set: { s, name in
                                  guard let v = E(rawValue: name) else { return false }
                                  s[keyPath: path] = v
                                  return true
                              }))
    }
}

/// An enumeration's setting, by its names.
public struct SettingChoice: Sendable {
    /// The names, in the enumeration's order.
    public let values: [String]
    public let get: @Sendable (ScanSettings) -> String
    /// Sets the value of that name; false for a name that is not one of `values`.
    public let set: @Sendable (inout ScanSettings, String) -> Bool
}

/// A setting the scanner menu's Settings page changed, with its new value: the engine has
/// applied it, the runtime keeps it, presenters may follow it.
public enum SettingChange: Hashable, Sendable {
    case autoScanInterval(ScanDuration)
    case glideSpeed(Double)
    case speech(Bool)
    case sound(Bool)

    /// Its key in `ScanSettings.table` and in the settings file.
    public var key: String {
        switch self {
        case .autoScanInterval: "autoScanInterval"
        case .glideSpeed: "glideSpeed"
        case .speech: "speech"
        case .sound: "sound"
        }
    }

    public func apply(to s: inout ScanSettings) {
        switch self {
        case .autoScanInterval(let d): s.autoScanInterval = d
        case .glideSpeed(let v): s.glideSpeed = v
        case .speech(let on): s.feedback.speech = on
        case .sound(let on): s.feedback.sound = on
        }
    }
}

/// The order of the scanning keyboard's letters. A new order is a case and its rows here,
/// and its line in the `keyboardLayout` setting's description.
public enum KeyboardLayoutName: String, CaseIterable, Sendable {
    /// The most frequent letters nearest the start of the scan.
    case frequency
    case qwerty
    case alphabetical

    /// The letter page's rows: letters and common punctuation, and a space where the order
    /// places one (else the page's controls have it).
    public var letterRows: [[Character]] {
        switch self {
        case .frequency:
            // Most frequent first, placed by diagonals of a 5 × 6 grid: a cell costs its
            // row plus its column in scan steps, so the cheapest cells get the commonest
            // characters (English letter frequencies).
            let order: [Character] = ["e", "t", "a", "o", "i", " ", "n", "s", "h", "r", "d", "l", "u", "c", "m",
                                      "w", "f", "g", "y", "p", "b", ".", "v", "k", ",", "j", "x", "'", "q", "z"]
            var grid = [[Character?]](repeating: [Character?](repeating: nil, count: 6), count: 5)
            var k = 0
            for d in 0..<10 {
                for r in 0..<5 where d - r >= 0 && d - r < 6 {
                    grid[r][d - r] = order[k]
                    k += 1
                }
            }
            return grid.map { $0.compactMap { $0 } }
        case .qwerty:
            return ["qwertyuiop", "asdfghjkl'", "zxcvbnm,.?"].map(Array.init)
        case .alphabetical:
            return ["abcdef", "ghijkl", "mnopqr", "stuvwx", "yz.,'?"].map(Array.init)
        }
    }
}

/// The scanning keyboard's settings.
public struct TypingSettings: Hashable, Sendable {
    public var keyboardLayout = KeyboardLayoutName.frequency
    public var autoCapitalize = true
    public var learnWords = true
    public init() {}
}

/// An sRGB colour, 8 bits a channel.
public struct RGBColor: Hashable, Sendable {
    public var red: UInt8, green: UInt8, blue: UInt8
    public init(red: UInt8, green: UInt8, blue: UInt8) { self.red = red; self.green = green; self.blue = blue }

    /// "#rrggbb" (case-insensitive), or nil.
    public init?(hex: String) {
        let u = Array(hex.utf8)
        guard u.count == 7, u[0] == UInt8(ascii: "#") else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var v: [UInt8] = []
        for i in stride(from: 1, to: 7, by: 2) {
            guard let hi = nibble(u[i]), let lo = nibble(u[i + 1]) else { return nil }
            v.append(hi << 4 | lo)
        }
        self.init(red: v[0], green: v[1], blue: v[2])
    }

    public var hex: String {
        let digits = Array("0123456789abcdef")
        return "#" + [red, green, blue].map { "\(digits[Int($0 >> 4)])\(digits[Int($0 & 15)])" }.joined()
    }
}

/// Feedback on a real screen: the on-screen outline, speech and sounds.
public struct FeedbackSettings: Hashable, Sendable {
    public var highlightColor = RGBColor(red: 0xff, green: 0x8c, blue: 0x00)
    public var highlightWidth = 4
    public var speech = false
    /// The scanning's own speech: labels, prompts, announcements.
    public var cueVoice = VoiceSettings()
    /// The person's words: the message, phrases, answers and the call for attention.
    public var publicVoice = VoiceSettings()
    public var sound = false
    /// Tones that mark the first item of a cycle and the Exit item (sound icons).
    public var positionTones = false

    /// The cue voice's rate and volume, by their older keys.
    public var speechRate: Int {
        get { cueVoice.rate }
        set { cueVoice.rate = newValue }
    }
    public var speechVolume: Int {
        get { cueVoice.volume }
        set { cueVoice.volume = newValue }
    }

    public init() {}

    public static let highlightWidthRange = 1...32
}

/// One speech-dispatcher voice, on a connection of its own. 0 and "" keep what the user set
/// up in speech-dispatcher.
public struct VoiceSettings: Hashable, Sendable {
    /// -100…100 each.
    public var rate = 0
    public var volume = 0
    public var pitch = 0
    /// A voice of the output module, as `spd-say -o MODULE -L` lists them.
    public var voice = ""
    /// An output module, as `spd-say -O` lists them.
    public var module = ""
    /// Another speech-dispatcher (`unix_socket:/path` or `inet_socket:host:port`): one set up
    /// to play on another device, such as headphones. Empty: the user's own.
    public var address = ""

    public init() {}

    /// The settings file's members of a voice, in the order they are written.
    public static let members = ["rate", "volume", "pitch", "voice", "module", "address"]
    public static let levelRange = -100...100

    /// Whether `text` is an address speech-dispatcher can be reached at: an absolute
    /// `unix_socket:` path, or `inet_socket:` a host and a port.
    public static func isAddress(_ text: String) -> Bool {
        if text.hasPrefix("unix_socket:/") { return text.count > "unix_socket:/".count }
        guard text.hasPrefix("inet_socket:") else { return false }
        let rest = text.dropFirst("inet_socket:".count)
        guard let colon = rest.lastIndex(of: ":"), colon != rest.startIndex,
              let port = Int(rest[rest.index(after: colon)...]) else { return false }
        return (1...65535).contains(port)
    }
}

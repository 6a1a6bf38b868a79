public enum ScanStyle: String, CaseIterable, Sendable { case auto, manual, step }
public enum ScanMode: String, CaseIterable, Sendable { case item, point }
public enum TapBehavior: String, CaseIterable, Sendable { case menu, autoTap, alwaysTap }
public enum FocusAfterTap: String, CaseIterable, Sendable { case first, same }
public enum ItemScope: String, CaseIterable, Sendable { case interactive, all }
/// Whether a switch acts when it goes down or when it comes back up.
public enum ActOn: String, CaseIterable, Sendable { case press, release }
/// How item mode groups what it scans: the layout's own groups, none, rows of the screen,
/// or groups built to minimise the expected time to reach an element (ScanCost.swift).
public enum Grouping: String, CaseIterable, Sendable { case layout, linear, rowColumn, optimal }
/// Where scanning resumes after an escape or after a group's loops run out: where it was
/// (the element, the group in its parent), or at the first top-level item.
public enum ResumeAt: String, CaseIterable, Sendable { case same, first }
/// After an activation, the scan can wait before it moves on: a time, or until a press
/// (which only resumes, it does not select).
public enum PauseAfterSelection: Hashable, Sendable {
    case off
    case seconds(ScanDuration)
    case untilPress
}

/// Every user preference of the settings file, with its defaults. Durations that can be "off" are
/// optional. Hardware debounce is not here: it belongs to device profiles.
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
    /// What a long press does.
    public var longPressAction = SwitchAction.menu
    /// `release`: a switch acts when let go, about the item highlighted then (for users who
    /// control letting go better than pressing).
    public var actOn = ActOn.press
    public var autoTapTime = ScanDuration.seconds(0.75)
    public var stepSelectDelay = ScanDuration.seconds(1.5)
    public var glideSpeed = 100.0
    public var tapBehavior = TapBehavior.menu
    public var focusAfterTap = FocusAfterTap.first
    public var groupItems = true
    public var itemScope = ItemScope.interactive
    /// Point mode: band first, then a fine line inside it.
    public var precise = false
    /// Band width as a fraction of the screen's extent along the swept axis.
    public var bandFraction = 0.2
    /// Speed of the fine line relative to `glideSpeed`.
    public var fineSpeedFactor = 0.5
    public var grouping = Grouping.layout
    public var resumeAt = ResumeAt.same
    public var pauseAfterSelection = PauseAfterSelection.off
    /// Relative frequency of use by element id, for `optimal` grouping and for `cost`
    /// (elements not named weigh 1).
    public var weights: [String: Double] = [:]
    /// The modelled user of `cost` presses this long after the wanted item is highlighted.
    public var reactionTime = ScanDuration.seconds(0.3)

    /// How the scan is shown and heard on a real screen (the engine does not read these).
    public var feedback = FeedbackSettings()
    /// The scanning keyboard: its letters' arrangement, capitals, learning.
    public var typing = TypingSettings()

    public init() {}

    /// Allowed range of the interval.
    public static let autoScanIntervalRange = 0.1...10.0
    /// Allowed range of the glide speed, points per second.
    public static let glideSpeedRange = 5.0...5000.0
}

/// The order of the scanning keyboard's letters.
public enum KeyboardLayoutName: String, CaseIterable, Sendable {
    /// The most frequent letters nearest the start of the scan.
    case frequency
    case qwerty
    case alphabetical
}

/// The scanning keyboard's settings.
public struct TypingSettings: Hashable, Sendable {
    public var keyboardLayout = KeyboardLayoutName.frequency
    /// A capital at the start of a field and after `. ? !`.
    public var autoCapitalize = true
    /// The user's words are learned as they are committed (never in password fields or
    /// terminals).
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
    /// The outline around the highlighted item: a bright colour, drawn with a thin dark
    /// edge on both sides so that it shows on light and dark backgrounds alike.
    public var highlightColor = RGBColor(red: 0xff, green: 0x8c, blue: 0x00)
    /// Outline width in pixels.
    public var highlightWidth = 4
    /// Speak each highlighted item (speech-dispatcher).
    public var speech = false
    /// speech-dispatcher's rate and volume, -100 to 100 (0: the user's default).
    public var speechRate = 0
    public var speechVolume = 0
    /// A click on each move, another on select.
    public var sound = false

    public init() {}

    public static let highlightWidthRange = 1...32
}

public enum ScanStyle: String, CaseIterable, Sendable { case auto, manual, step }
public enum ScanMode: String, CaseIterable, Sendable { case item, point }
public enum TapBehavior: String, CaseIterable, Sendable { case menu, autoTap, alwaysTap }
public enum FocusAfterTap: String, CaseIterable, Sendable { case first, same }
public enum ItemScope: String, CaseIterable, Sendable { case interactive, all }
/// Whether a switch acts when it goes down or when it comes back up.
public enum ActOn: String, CaseIterable, Sendable { case press, release }

/// Every user preference of SPEC §5, with its defaults. Durations that can be "off" are
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
    /// What a long press does (SPEC §5: "a second, assignable action").
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

    public init() {}

    /// Allowed range of the interval (SPEC §5).
    public static let autoScanIntervalRange = 0.1...10.0
}

/// What a switch does, once mapped from hardware by a device profile.
public enum SwitchAction: String, CaseIterable, Sendable {
    case select, next, previous, menu, exit, toggleMode, pause
}

/// A switch going down or up, with the time it happened (the kernel's timestamp for real
/// input). `source` tells switches apart when two are mapped to the same action.
public struct SwitchEvent: Hashable, Sendable {
    public var action: SwitchAction
    public var isDown: Bool
    public var timestamp: ScanInstant
    public var source: Int
    /// The hardware's bounce time (a device profile's `debounce`), if it has one.
    public var debounce: ScanDuration?

    public init(_ action: SwitchAction, down isDown: Bool, at timestamp: ScanInstant, source: Int = 0,
                debounce: ScanDuration? = nil) {
        self.action = action; self.isDown = isDown; self.timestamp = timestamp; self.source = source
        self.debounce = debounce
    }
}

/// Per-switch timing filters: hardware debounce, hold duration, ignore repeat,
/// long press (a second action) and move repeat. Raw switch transitions go in; logical
/// commands come out, each stamped with the moment the switch went down, which is what a
/// press selects by.
///
/// ```
/// debounce      down ─┐┌┐┌──────┐        transitions within `debounce` of the last
///                     └┘└┘      └──      accepted one are bounce: ignored
/// holdDuration  down ───────────────┐    the command fires once the switch has been
///                     |<- hold ->|  │    held `hold`; a shorter press does nothing
///                               fire
/// ignoreRepeat  press  press(ignored)  press   presses within `ignore` of the last
///               |<-- ignore -->|        fire    accepted press are dropped whole
/// longPress     short: released before `long` → primary action, at release
///               long:  still down at `long`   → the long-press action, at `long`
/// moveRepeat    next held: fires at press, then every `repeat` until release
/// actOn release down ──────────┐         the action fires when the switch comes up, about
///                              └ fire    what is highlighted then
/// ```
public struct SwitchFilter: Sendable {
    public struct Configuration: Hashable, Sendable {
        public var debounce: ScanDuration?
        public var holdDuration: ScanDuration?
        public var ignoreRepeat: ScanDuration?
        public var longPress: ScanDuration?
        public var longPressAction: SwitchAction
        public var moveRepeat: ScanDuration?
        public var actOnRelease: Bool

        public init(debounce: ScanDuration? = nil, holdDuration: ScanDuration? = nil,
                    ignoreRepeat: ScanDuration? = nil, longPress: ScanDuration? = nil,
                    longPressAction: SwitchAction = .menu, moveRepeat: ScanDuration? = nil, actOnRelease: Bool = false) {
            self.debounce = debounce; self.holdDuration = holdDuration; self.ignoreRepeat = ignoreRepeat
            self.longPress = longPress; self.longPressAction = longPressAction; self.moveRepeat = moveRepeat
            self.actOnRelease = actOnRelease
        }

        public init(_ s: ScanSettings, debounce: ScanDuration? = nil) {
            // Hold scanning: holding is how the scan moves, and letting go selects; a long
            // press has no meaning there.
            let hold = s.style == .hold
            self.init(debounce: debounce, holdDuration: s.holdDuration, ignoreRepeat: s.ignoreRepeat,
                      longPress: hold ? nil : s.longPress, longPressAction: s.longPressAction, moveRepeat: s.moveRepeat,
                      actOnRelease: s.actOn == .release || hold)
        }
    }

    /// A logical press: `action` performed, about the moment `pressedAt`.
    public struct Command: Hashable, Sendable {
        public var action: SwitchAction
        public var pressedAt: ScanInstant
        public var firedAt: ScanInstant
        public var isRepeat: Bool
    }

    struct Key: Hashable { var action: SwitchAction; var source: Int }

    struct State {
        var isDown = false
        var lastChange: ScanInstant?
        var downAt = ScanInstant.zero
        var rejected = false      // ignored by ignoreRepeat: swallow until release
        var recognized = false    // hold passed (or none)
        var fired = false         // the primary or long action already went out
        var holdAt: ScanInstant?
        var longAt: ScanInstant?
        var repeatAt: ScanInstant?
        /// Debounce: a change seen inside the bounce window, applied when the window ends
        /// if the switch is still that way (so a bounce cannot leave a switch stuck down).
        var settleAt: ScanInstant?
        var settleDown = false
        var debounce: ScanDuration?
    }

    public var configuration: Configuration
    var states: [Key: State] = [:]
    var lastAcceptedPress: ScanInstant?

    public init(_ configuration: Configuration) { self.configuration = configuration }

    /// The earliest timer of any switch. Kept up to date by the two mutating entry points,
    /// so that reading it, on every tick, walks nothing.
    public private(set) var nextDeadline: ScanInstant?

    private mutating func refreshDeadline() {
        var best: ScanInstant?
        for s in states.values {
            best = earliest(earliest(earliest(earliest(best, s.holdAt), s.longAt), s.repeatAt), s.settleAt)
        }
        nextDeadline = best
    }

    /// Whether any switch is held now (grabs wait for none).
    public var anyDown: Bool { states.values.contains { $0.isDown } }

    /// Whether a switch of `action` is held and counts (past `holdDuration`, not dropped by
    /// `ignoreRepeat`): hold scanning moves while it is.
    public func held(_ action: SwitchAction) -> Bool {
        states.contains { $0.key.action == action && $0.value.isDown && $0.value.recognized && !$0.value.rejected }
    }

    public mutating func handle(_ e: SwitchEvent) -> [Command] {
        let key = Key(action: e.action, source: e.source)
        var s = states[key] ?? State()
        defer { states[key] = s; refreshDeadline() }
        let debounce = e.debounce ?? configuration.debounce
        s.debounce = debounce
        if let db = debounce, let last = s.lastChange, e.timestamp - last < db {
            // Inside the bounce window: remember where the switch ends up, decide later.
            s.settleAt = last + db
            s.settleDown = e.isDown
            return []
        }
        s.settleAt = nil
        return transition(&s, key: key, down: e.isDown, at: e.timestamp)
    }

    mutating func transition(_ s: inout State, key: Key, down isDown: Bool, at t: ScanInstant) -> [Command] {
        // Same logical state again (a repeat, or a bounce already collapsed): nothing new.
        if isDown == s.isDown { return [] }
        let e = (isDown: isDown, timestamp: t)
        s.lastChange = e.timestamp
        var out: [Command] = []
        if e.isDown {
            let debounce = s.debounce
            s = State(isDown: true, lastChange: e.timestamp, downAt: e.timestamp)
            s.debounce = debounce
            if let ir = configuration.ignoreRepeat, let last = lastAcceptedPress, e.timestamp - last < ir {
                s.rejected = true
                return []
            }
            lastAcceptedPress = e.timestamp
            if let hold = configuration.holdDuration, hold > .zero {
                s.holdAt = e.timestamp + hold
            } else {
                recognize(&s, key: key, at: e.timestamp, into: &out)
            }
        } else {
            s.isDown = false
            if !s.rejected && s.recognized && !s.fired {
                // A short press under longPress: the primary action, about the press moment;
                // acting on release: about the moment of letting go.
                let about = configuration.actOnRelease ? e.timestamp : s.downAt
                out.append(Command(action: key.action, pressedAt: about, firedAt: e.timestamp, isRepeat: false))
            }
            s.holdAt = nil; s.longAt = nil; s.repeatAt = nil
            s.recognized = false; s.fired = false; s.rejected = false
        }
        return out
    }

    public mutating func handleDeadline(at now: ScanInstant) -> [Command] {
        var out: [Command] = []
        defer { refreshDeadline() }
        // Deterministic order whatever the dictionary's: by deadline, then action name.
        let due = states.compactMap { (k, s) -> (ScanInstant, Key)? in
            let d = [s.holdAt, s.longAt, s.repeatAt, s.settleAt].compactMap { $0 }.min()
            guard let d, d <= now else { return nil }
            return (d, k)
        }.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : ($0.1.action.rawValue, $0.1.source) < ($1.1.action.rawValue, $1.1.source) }
        for (_, key) in due {
            var s = states[key]!
            while true {
                let d = [s.holdAt, s.longAt, s.repeatAt, s.settleAt].compactMap { $0 }.min()
                guard let d, d <= now else { break }
                if s.settleAt == d {
                    s.settleAt = nil
                    out += transition(&s, key: key, down: s.settleDown, at: d)
                } else if s.holdAt == d {
                    s.holdAt = nil
                    recognize(&s, key: key, at: d, into: &out)
                } else if s.longAt == d {
                    s.longAt = nil
                    s.fired = true
                    out.append(Command(action: configuration.longPressAction, pressedAt: s.downAt, firedAt: d, isRepeat: false))
                } else if s.repeatAt == d, let r = configuration.moveRepeat {
                    s.repeatAt = d + r
                    out.append(Command(action: key.action, pressedAt: d, firedAt: d, isRepeat: true))
                }
            }
            states[key] = s
        }
        return out
    }

    private func recognize(_ s: inout State, key: Key, at t: ScanInstant, into out: inout [Command]) {
        s.recognized = true
        if configuration.actOnRelease && configuration.longPress == nil { return }  // fires at release
        if let long = configuration.longPress, long > .zero {
            s.longAt = s.downAt + long
            if s.longAt! <= t { s.longAt = t }
            return
        }
        s.fired = true
        out.append(Command(action: key.action, pressedAt: s.downAt, firedAt: t, isRepeat: false))
        if let r = configuration.moveRepeat, r > .zero, key.action == .next || key.action == .previous {
            s.repeatAt = t + r
        }
    }
}

import JSONTape
import ScanCore

/// A switch given an action.
public struct Assignment: Hashable, Sendable {
    public var heard: HeardSwitch
    public var action: SwitchAction
    public init(_ heard: HeardSwitch, _ action: SwitchAction) { self.heard = heard; self.action = action }
}

/// One setting as the settings file says it: its key and its value as JSON text.
public struct SettingLine: Hashable, Sendable {
    public var key: String
    public var json: String
    public init(_ key: String, _ json: String) { self.key = key; self.json = json }
}

/// What setup asks to be done: said (shown, and spoken where speech is available), a
/// question's choices with one highlighted, files written, the end.
public enum SetupOutput: Hashable, Sendable {
    case say(String)
    case choices([String], highlighted: Int)
    /// The practice's target `number` of `count`, lit (press now) or not (wait).
    case target(Int, of: Int, lit: Bool)
    /// The trial's row of `items`, the star at `star`, `highlighted` lit (all from 0).
    case trial(items: Int, star: Int, highlighted: Int)
    case saveProfile([Assignment])
    case saveSettings([SettingLine])
    /// A short practice run on the example screen, once setup has finished.
    case practice
    case finished
    case failed(String)
}

/// `switchscan setup` as a state machine, like the engine: switch changes, terminal keys and
/// the time go in, what to say and what to write come out. No clock, no I/O.
///
/// The flow: the switch for select (pressed, then pressed again to confirm); optionally a
/// second switch for next; any further switches, each then given an action by a question;
/// the profile is saved; a scanning style and speed are proposed and, once accepted, saved.
/// Questions scan their own choices: each is highlighted in turn and the select switch
/// takes the one highlighted at the press's timestamp (a terminal's y, n or a digit answers
/// too), so that the person with the switch can answer alone. Until the select switch is
/// known nothing can be answered, so the first step asks for nothing but a press.
public struct SetupFlow: Sendable {
    public struct Options: Sendable {
        /// How long each choice of a question stays highlighted.
        public var choiceInterval = ScanDuration.seconds(2)
        /// The auto-scan speed proposed first (seconds per item).
        public var proposedInterval = 1.5
        /// A second press of the same switch sooner than this after its release is contact
        /// bounce, not a confirmation.
        public var bounce = ScanDuration.milliseconds(100)
        /// Presses this soon after a question appears are ignored: a press meant for the
        /// step before must not answer it.
        public var questionGuard = ScanDuration.milliseconds(300)
        /// A key down at the start is said to be held once it has stayed down this long.
        public var heldNotice = ScanDuration.seconds(1)
        /// Whether a practice run is offered at the end (where it can be shown: a terminal).
        public var offerPractice = false
        /// Whether one-switch setup measures the person before it proposes a speed.
        public var measure = true
        /// How many targets the practice lights.
        public var targets = 10
        /// Seconds from one target to the next, drawn afresh each time: the person cannot
        /// press by rhythm. The first comes a little later, after the instructions.
        public var targetGaps = 1.5...3.5
        public var firstTarget = 3.0...4.5
        /// A target unanswered this long is missed: as long as the slowest interval offered,
        /// so that a slow person's presses are all measured.
        public var targetTimeout = ScanDuration.seconds(5)
        /// A press this soon after a target lit was made before it was seen.
        public var tooSoon = ScanDuration.milliseconds(100)
        /// The trial: rounds, the items in its row, and the pause before a round's first item.
        public var trialRounds = 3
        public var trialItems = 5
        public var trialPause = ScanDuration.seconds(1)
        /// Draws the targets' moments and the star's places.
        public var seed: UInt64 = 1
        /// The settings file's `adaptMinimum`…`adaptMaximum`: an interval accepted outside
        /// them widens them, or adaptation would pull it back in at once.
        public var adaptBounds = 0.4...3.0
        public init() {}
    }

    /// The three kinds of request for a press.
    public enum Step: Hashable, Sendable { case select, next, more }

    public enum Question: Hashable, Sendable {
        /// What a newly pressed switch does (nil: nothing).
        case action(HeardSwitch, [SwitchAction?])
        /// A scanning style, with the auto-scan interval in seconds.
        case style(ScanStyle, Double)
        /// A practice run now?
        case practice
        /// The measured timing: auto scanning at this interval, with adaptation on.
        case timing(Double)
    }

    public enum Phase: Hashable, Sendable {
        case listening(Step)
        case confirming(Step, HeardSwitch, releasedAt: ScanInstant?)
        case asking(Question, since: ScanInstant, shown: Int)
        /// The practice: target `target` (from 0), lit since `litAt`, or to light at `nextAt`.
        case measuring(target: Int, litAt: ScanInstant?, nextAt: ScanInstant)
        /// The trial's `round` (from 0) at `interval`: the row highlighted in turn from
        /// `since`, `shown` moves made (-1: not begun), the star at `star`.
        case trying(interval: Double, round: Int, since: ScanInstant, shown: Int, star: Int)
        case done
        case failed
    }

    /// A press heard, with its timestamp.
    public struct Press: Hashable, Sendable {
        public var heard: HeardSwitch
        public var time: ScanInstant
    }

    public let options: Options
    public private(set) var phase: Phase = .listening(.select)
    public private(set) var assignments: [Assignment] = []
    public private(set) var presses: [Press] = []
    public private(set) var profileSaved = false
    /// Devices still there, by node.
    public private(set) var devices: [String: SetupDevice]
    /// Switches held down (at the start, or repeating): ignored until let go.
    var held: Set<HeardSwitch> = []
    /// Keys down at the start, said only if still down `heldNotice` later: the Enter that
    /// started setup is usually still on its way up.
    var heldAtStart: [HeardSwitch: ScanInstant] = [:]
    /// The practice's presses so far, and what it measured once done.
    var reactions: [Double] = []
    var misses = 0
    var early = 0
    public private(set) var measured: ReactionMeasure?
    var trialHits = 0
    var random: SplitMix64

    public init(devices: [SetupDevice], options: Options = Options()) {
        self.options = options
        random = SplitMix64(seed: options.seed)
        var byNode: [String: SetupDevice] = [:]
        for d in devices { byNode[d.node] = d }
        self.devices = byNode
    }

    public var selectSwitch: HeardSwitch? { assignments.first { $0.action == .select }?.heard }

    public static let prompts: [Step: String] = [
        .select: "Press the switch you want to use to select.",
        .next: "Press a second switch for next (two-switch scanning), or press your select switch to go on with one switch.",
        .more: "Press a switch for another action (menu, exit, pause…), or press your select switch to finish.",
    ]

    public mutating func start() -> [SetupOutput] {
        [.say(Self.prompts[.select]!)]
    }

    // MARK: Inputs

    public mutating func handle(_ change: SwitchChange, at t: ScanInstant) -> [SetupOutput] {
        switch change {
        case .heldAtStart(let s):
            held.insert(s)
            heldAtStart[s] = t
            return []
        case .repeating(let s):
            if heldAtStart[s] != nil { return sayHeld(s) }
            guard held.insert(s).inserted else { return [] }
            if case .confirming(let step, let candidate, _) = phase, candidate == s {
                phase = .listening(step)
                return [.say("\(s.label) is repeating: it is being held down, so it cannot be used. Let it go. " + Self.prompts[step]!)]
            }
            return [.say("\(s.label) is repeating (held down): it is ignored until it is let go.")]
        case .up(let s):
            heldAtStart[s] = nil
            if held.remove(s) != nil { return [] }
            if case .confirming(let step, let candidate, nil) = phase, candidate == s {
                phase = .confirming(step, s, releasedAt: t)
            }
            return []
        case .down(let s):
            guard !held.contains(s) else { return [] }
            presses.append(Press(heard: s, time: t))
            return pressed(s, at: t)
        }
    }

    /// A key typed on the terminal: y, n, or a choice's number, while a question is asked.
    /// (A key that is also the select switch must not answer twice: the guard after a
    /// question appears holds for keys too.)
    public mutating func handleKey(_ key: Character, at t: ScanInstant) -> [SetupOutput] {
        // A carer at the terminal can skip the practice: a speed is then chosen by hand.
        if key.lowercased() == "s", isPractising { return [.say("The practice is skipped.")] + askStyle(.auto, options.proposedInterval, at: t) }
        guard case .asking(let q, let since, _) = phase, t >= since + options.questionGuard else { return [] }
        let labels = Self.labels(q)
        let wanted: Int?
        switch key.lowercased() {
        case "y": wanted = labels.firstIndex(of: "Yes")
        case "n": wanted = labels.firstIndex(of: "No")
        default: wanted = key.wholeNumberValue.flatMap { (1...labels.count).contains($0) ? $0 - 1 : nil }
        }
        guard let wanted else { return [] }
        return answer(q, wanted, at: t)
    }

    public var nextDeadline: ScanInstant? {
        let notice = heldAtStart.values.min().map { $0 + options.heldNotice }
        let next: ScanInstant
        switch phase {
        case .asking(_, let since, let shown): next = since + options.choiceInterval * Int64(shown + 1)
        case .measuring(_, let litAt, let nextAt): next = litAt.map { $0 + options.targetTimeout } ?? nextAt
        case .trying(let interval, _, let since, let shown, _): next = since + ScanDuration.seconds(interval) * Int64(shown + 1)
        default: return notice
        }
        return notice.map { min($0, next) } ?? next
    }

    var isPractising: Bool {
        switch phase {
        case .measuring, .trying: true
        default: false
        }
    }

    mutating func sayHeld(_ s: HeardSwitch) -> [SetupOutput] {
        guard heldAtStart.removeValue(forKey: s) != nil else { return [] }
        return [.say("\(s.label) is held down: it is ignored until it is let go.")]
    }

    /// Keys held since the start are said; the next choice of a question is highlighted.
    public mutating func handleDeadline(at t: ScanInstant) -> [SetupOutput] {
        var out: [SetupOutput] = []
        for (s, since) in heldAtStart.sorted(by: { $0.key.label < $1.key.label }) where since + options.heldNotice <= t {
            out += sayHeld(s)
        }
        switch phase {
        case .measuring(let k, let litAt, let nextAt):
            if let litAt {
                guard t >= litAt + options.targetTimeout else { return out }
                misses += 1
                return out + [.target(k + 1, of: options.targets, lit: false)] + nextTarget(after: k, at: t)
            }
            guard t >= nextAt else { return out }
            phase = .measuring(target: k, litAt: t, nextAt: nextAt)
            return out + [.target(k + 1, of: options.targets, lit: true)]
        case .trying(let interval, let round, let since, var shown, let star):
            let step = ScanDuration.seconds(interval)
            var moved = false
            while since + step * Int64(shown + 1) <= t { shown += 1; moved = true }
            guard moved else { return out }
            guard shown < 2 * options.trialItems else {
                return out + [.say("The star went by twice.")] + nextRound(after: round, interval, at: t)
            }
            phase = .trying(interval: interval, round: round, since: since, shown: shown, star: star)
            return out + [.trial(items: options.trialItems, star: star, highlighted: shown % options.trialItems)]
        default:
            break
        }
        guard case .asking(let q, let since, var shown) = phase else { return out }
        var moved = false
        while since + options.choiceInterval * Int64(shown + 1) <= t { shown += 1; moved = true }
        guard moved else { return out }
        phase = .asking(q, since: since, shown: shown)
        let labels = Self.labels(q)
        return out + [.choices(labels, highlighted: shown % labels.count)]
    }

    /// A device plugged in during setup: its switches count from now on.
    public mutating func deviceAdded(_ device: SetupDevice) -> [SetupOutput] {
        guard devices.updateValue(device, forKey: device.node) == nil, phase != .done, phase != .failed else { return [] }
        return [.say("\(device.name) (\(device.node)) is connected: its switches can be pressed now.")]
    }

    /// A device went away (unplugged, or its node vanished).
    public mutating func deviceGone(_ node: String, at t: ScanInstant) -> [SetupOutput] {
        guard let device = devices.removeValue(forKey: node) else { return [] }
        held = held.filter { $0.device.node != node }
        if phase == .done || phase == .failed { return [] }
        let name = "\(device.name) (\(node))"
        let inUse: Bool
        switch phase {
        case .confirming(_, let c, _) where c.device.node == node: inUse = true
        case .asking(.action(let c, _), _, _) where c.device.node == node: inUse = true
        default: inUse = assignments.contains { $0.heard.device.node == node }
        }
        if inUse {
            phase = .failed
            return [.failed(profileSaved
                ? "\(name) was unplugged during setup. The switches were saved; the scanning style was not changed. Plug it back in and run 'switchscan setup' again to choose it."
                : "\(name) was unplugged during setup; nothing was written. Plug it back in and run 'switchscan setup' again.")]
        }
        if devices.isEmpty {
            phase = .failed
            return [.failed("\(name) was unplugged, and no input device is left; nothing was written. Plug in the switch and run 'switchscan setup' again.")]
        }
        return [.say("\(name) was unplugged; setup goes on with the other devices.")]
    }

    // MARK: Transitions

    mutating func pressed(_ s: HeardSwitch, at t: ScanInstant) -> [SetupOutput] {
        switch phase {
        case .listening(let step):
            if step != .select, s == selectSwitch { return skip(step, at: t) }
            if let a = assignments.first(where: { $0.heard == s }) {
                return [.say("\(s.label) is already \(Self.label(a.action)). " + Self.prompts[step]!)]
            }
            phase = .confirming(step, s, releasedAt: nil)
            return [.say("Heard \(s.label). Press it again to confirm.")]
        case .confirming(let step, let candidate, let released):
            if s == candidate {
                guard let released, t - released >= options.bounce else { return [] }
                return confirmed(step, s, at: t)
            }
            if step != .select, s == selectSwitch { return skip(step, at: t) }
            if let a = assignments.first(where: { $0.heard == s }) {
                return [.say("\(s.label) is already \(Self.label(a.action)). Press \(candidate.label) again to confirm it, or another switch.")]
            }
            phase = .confirming(step, s, releasedAt: nil)
            return [.say("Heard \(s.label) (not \(candidate.code.name)). Press it again to confirm.")]
        case .asking(let q, let since, _):
            guard s == selectSwitch, t >= since + options.questionGuard else { return [] }
            let count = Self.labels(q).count
            let index = Int((t - since).nanoseconds / options.choiceInterval.nanoseconds) % count
            return answer(q, index, at: t)
        case .measuring(let k, let litAt, let nextAt):
            guard s == selectSwitch else { return [] }
            if let litAt, t >= litAt + options.tooSoon {
                reactions.append((t - litAt).seconds)
                return [.target(k + 1, of: options.targets, lit: false)] + nextTarget(after: k, at: t)
            }
            early += 1
            // A press while waiting puts the next target off: pressing at random does not
            // catch one.
            if litAt == nil { phase = .measuring(target: k, litAt: nil, nextAt: max(nextAt, t + .seconds(1))) }
            return []
        case .trying(let interval, let round, let since, let shown, let star):
            guard s == selectSwitch, shown >= 0, t >= since else { return [] }
            // What the scan would select: the item lit at the press's time.
            let item = Int((t - since).nanoseconds / ScanDuration.seconds(interval).nanoseconds) % options.trialItems
            let said: SetupOutput
            if item == star {
                trialHits += 1
                said = .say("The star.")
            } else {
                said = .say("That was \(item + 1); the star is \(star + 1).")
            }
            return [said] + nextRound(after: round, interval, at: t)
        case .done, .failed:
            return []
        }
    }

    mutating func confirmed(_ step: Step, _ s: HeardSwitch, at t: ScanInstant) -> [SetupOutput] {
        switch step {
        case .select:
            assignments.append(Assignment(s, .select))
            phase = .listening(.next)
            return [.say("\(s.label) selects."), .say(Self.prompts[.next]!)]
        case .next:
            assignments.append(Assignment(s, .next))
            phase = .listening(.more)
            return [.say("\(s.label) moves to the next item."), .say(Self.prompts[.more]!)]
        case .more:
            let taken = Set(assignments.map(\.action))
            let actions: [SwitchAction?] = SwitchAction.allCases.filter { !taken.contains($0) } + [nil]
            return ask(.action(s, actions), "What should \(s.label) do?", at: t)
        }
    }

    mutating func skip(_ step: Step, at t: ScanInstant) -> [SetupOutput] {
        switch step {
        case .select:
            return []
        case .next:
            phase = .listening(.more)
            return [.say("One switch, then. " + Self.prompts[.more]!)]
        case .more:
            profileSaved = true
            let twoSwitch = assignments.contains { $0.action == .next }
            var out: [SetupOutput] = [.saveProfile(assignments)]
            if !twoSwitch && options.measure {
                out += beginMeasuring(at: t)
            } else {
                out += askStyle(twoSwitch ? .manual : .auto, options.proposedInterval, at: t)
            }
            return out
        }
    }

    mutating func ask(_ q: Question, _ text: String, at t: ScanInstant) -> [SetupOutput] {
        phase = .asking(q, since: t, shown: 0)
        return [.say(text), .choices(Self.labels(q), highlighted: 0)]
    }

    mutating func askStyle(_ style: ScanStyle, _ interval: Double, at t: ScanInstant) -> [SetupOutput] {
        let text = style == .manual
            ? "Scan with two switches: next moves the highlight, select selects. Use this?"
            : "Scan automatically, one item every \(jsonNumber(interval)) s; your switch selects. Use this?"
        return ask(.style(style, interval), text, at: t)
    }

    mutating func answer(_ q: Question, _ index: Int, at t: ScanInstant) -> [SetupOutput] {
        let choice = Self.labels(q)[index]
        switch q {
        case .action(let s, let actions):
            phase = .listening(.more)
            guard let action = actions[index] else {
                return [.say("\(s.label) is not used."), .say(Self.prompts[.more]!)]
            }
            assignments.append(Assignment(s, action))
            return [.say("\(s.label): \(Self.label(action))."), .say(Self.prompts[.more]!)]
        case .style(let style, let interval):
            switch choice {
            case "Slower":
                return askStyle(style, min(Self.intervalRange.upperBound, interval + 0.25), at: t)
            case "Faster":
                return askStyle(style, max(Self.intervalRange.lowerBound, interval - 0.25), at: t)
            case "Yes":
                var lines = [SettingLine("style", jsonString(style.rawValue))]
                if style == .auto { lines.append(SettingLine("autoScanInterval", jsonNumber(interval))) }
                return [.saveSettings(lines)] + end(at: t, "Setup is done.")
            default:
                return end(at: t, "Your settings were left as they are. Setup is done.")
            }
        case .timing(let interval):
            switch choice {
            case "Slower":
                return askTiming(min(Self.intervalRange.upperBound, ((interval + 0.1) * 100).rounded() / 100), at: t)
            case "Faster":
                // Never as short as the reaction time measured: every press would come late.
                let floor = max(Self.intervalRange.lowerBound, measured.map { (($0.mean + 0.05) * 20).rounded(.up) / 20 } ?? 0)
                return askTiming(max(floor, ((interval - 0.1) * 100).rounded() / 100), at: t)
            case "Try it":
                trialHits = 0
                return [.say("A trial at one item every \(jsonNumber(interval)) s: select the star.")] + beginRound(0, interval, at: t)
            case "Yes":
                var lines = [SettingLine("style", jsonString(ScanStyle.auto.rawValue)), SettingLine("autoScanInterval", jsonNumber(interval))]
                if let m = measured {
                    // Within what the settings take (a target waits at most 5 s).
                    lines.append(SettingLine("reactionTime", jsonNumber(min(5, (m.mean * 100).rounded() / 100))))
                    lines.append(SettingLine("reactionSpread", jsonNumber(min(2, (m.spread * 100).rounded() / 100))))
                }
                lines.append(SettingLine("adaptTiming", jsonString(AdaptTiming.on.rawValue)))
                if interval > options.adaptBounds.upperBound {
                    lines.append(SettingLine("adaptMaximum", jsonNumber(min(10, (interval * 15).rounded(.up) / 10))))
                }
                if interval < options.adaptBounds.lowerBound { lines.append(SettingLine("adaptMinimum", jsonNumber(interval))) }
                return [.saveSettings(lines)] + end(at: t, "Setup is done. The speed follows you as you scan: slower after late presses, faster after quick ones.")
            default:
                return end(at: t, "Your settings were left as they are. Setup is done.")
            }
        case .practice:
            phase = .done
            return index == 0 ? [.say("A practice run on the example screen, for a minute: q ends it."), .practice, .finished]
                              : [.say("Start scanning with: switchscan run"), .finished]
        }
    }

    // MARK: The practice

    mutating func draw(_ r: ClosedRange<Double>) -> Double { r.lowerBound + random.uniform() * (r.upperBound - r.lowerBound) }

    mutating func beginMeasuring(at t: ScanInstant) -> [SetupOutput] {
        reactions = []
        misses = 0
        early = 0
        phase = .measuring(target: 0, litAt: nil, nextAt: t + .seconds(draw(options.firstTarget)))
        return [.say("Now a practice, to fit the speed to you: press your switch each time the target lights up. "
                     + "\(options.targets) targets, then a short trial."), .target(1, of: options.targets, lit: false)]
    }

    mutating func nextTarget(after k: Int, at t: ScanInstant) -> [SetupOutput] {
        guard k + 1 < options.targets else { return measuredAll(at: t) }
        phase = .measuring(target: k + 1, litAt: nil, nextAt: t + .seconds(draw(options.targetGaps)))
        return []
    }

    /// The practice's figures said, then the trial at the interval they propose; too few
    /// answers, and the speed is chosen by hand as without the practice.
    mutating func measuredAll(at t: ScanInstant) -> [SetupOutput] {
        guard let m = ReactionMeasure(reactions: reactions, misses: misses, early: early) else {
            return [.say("Only \(reactions.count) of \(options.targets) targets were answered, too few to measure. Choose a speed instead.")]
                + askStyle(.auto, options.proposedInterval, at: t)
        }
        measured = m
        let interval = m.proposedInterval(within: Self.intervalRange)
        var text = "Your reaction time is \(formatFixed(m.mean, decimals: 2)) s, give or take \(formatFixed(m.spread, decimals: 2)) s"
        if m.misses > 0 { text += "; \(m.misses) of \(options.targets) missed" }
        if m.early > 0 { text += "; \(m.early == 1 ? "1 press" : "\(m.early) presses") with no target to press" }
        text += ". Now a trial at one item every \(jsonNumber(interval)) s: select the star when it lights up."
        trialHits = 0
        return [.say(text)] + beginRound(0, interval, at: t)
    }

    /// A round of the trial: the row shown, its first item lit after a pause. The star is
    /// never first, so that it is waited for as an item is in the scan.
    mutating func beginRound(_ round: Int, _ interval: Double, at t: ScanInstant) -> [SetupOutput] {
        let star = 1 + Int(random.next() % UInt64(max(1, options.trialItems - 1)))
        phase = .trying(interval: interval, round: round, since: t + options.trialPause, shown: -1, star: star)
        return [.trial(items: options.trialItems, star: star, highlighted: -1)]
    }

    mutating func nextRound(after round: Int, _ interval: Double, at t: ScanInstant) -> [SetupOutput] {
        guard round + 1 < options.trialRounds else {
            return [.say("The trial: \(trialHits) of \(options.trialRounds) stars selected.")] + askTiming(interval, at: t)
        }
        return beginRound(round + 1, interval, at: t)
    }

    mutating func askTiming(_ interval: Double, at t: ScanInstant) -> [SetupOutput] {
        ask(.timing(interval), "Scan automatically, one item every \(jsonNumber(interval)) s, the speed then following you as you scan. Use this?", at: t)
    }

    mutating func end(at t: ScanInstant, _ text: String) -> [SetupOutput] {
        guard options.offerPractice else {
            phase = .done
            return [.say(text + " Start scanning with: switchscan run"), .finished]
        }
        return [.say(text)] + ask(.practice, "Practise now on an example screen?", at: t)
    }

    /// The auto-scan speeds setup offers, seconds per item.
    public static let intervalRange = 0.5...5.0

    public static func labels(_ q: Question) -> [String] {
        switch q {
        case .action(_, let actions): actions.map { $0.map(label) ?? "Nothing" }
        case .style(.auto, _): ["Yes", "Slower", "Faster", "No"]
        case .timing: ["Yes", "Slower", "Faster", "Try it", "No"]
        case .style, .practice: ["Yes", "No"]
        }
    }

    public static func label(_ a: SwitchAction) -> String {
        switch a {
        case .select: "select"
        case .next: "next"
        case .previous: "previous"
        case .menu: "menu"
        case .exit: "exit"
        case .toggleMode: "point mode"
        case .pause: "pause"
        }
    }
}

import JSONTape
import ScanCore
import Testing
@testable import SwitchSetup

/// Setup's practice with one switch, in virtual time: targets light at moments the person
/// cannot foresee, their presses give a reaction time and a spread, a trial runs at the
/// interval proposed, and the person (or carer) takes it, changes it or tries it again by
/// the switch alone.
@Suite("switchscan setup's reaction-time practice")
struct ReactionPracticeTests {
    /// A flow with its select switch confirmed and one switch chosen, at 4.05 s: the
    /// practice has begun.
    static func begun(seed: UInt64 = 9) -> (SetupFlow, [SetupOutput]) {
        var o = SetupFlow.Options()
        o.seed = seed
        var flow = SetupFlow(devices: [box], options: o)
        _ = flow.start()
        _ = press(&flow, sw(btn0), 1); _ = press(&flow, sw(btn0), 2); _ = press(&flow, sw(btn0), 3)
        let out = press(&flow, sw(btn0), 4)
        return (flow, out)
    }

    /// What the person does: given what was shown (a target lit, the trial's star lit) and
    /// which one it is, how long after it they press (nil: they do not).
    struct Person {
        var target: (Int) -> Double?
        var star: (Int) -> Double? = { _ in 0.4 }
    }

    /// Runs the flow from `t` until it asks a question (or ends), pressing as `person` does;
    /// everything it put out, with its time.
    static func drive(_ flow: inout SetupFlow, from start: Double, _ person: Person) -> [(at: Double, out: SetupOutput)] {
        var log: [(Double, SetupOutput)] = []
        var t = start
        var pressAt: Double?
        var stars = 0
        for _ in 0..<2000 {
            if case .asking = flow.phase { break }
            if flow.phase == .done || flow.phase == .failed { break }
            let deadline = flow.nextDeadline?.seconds
            let out: [SetupOutput]
            if let p = pressAt, deadline.map({ p < $0 }) ?? true {
                t = p
                pressAt = nil
                out = press(&flow, sw(btn0), p)
            } else if let d = deadline {
                t = d
                out = flow.handleDeadline(at: at(d))
            } else {
                break
            }
            for o in out {
                log.append((t, o))
                switch o {
                case .target(let n, _, lit: true):
                    pressAt = person.target(n).map { t + $0 }
                case .trial(_, let star, let h) where h == star:
                    if pressAt == nil { pressAt = person.star(stars).map { t + $0 } }
                    stars += 1
                default: break
                }
            }
        }
        return log
    }

    static func reactionSeed(_ seed: UInt64, mean: Double, spread: Double) -> (Int) -> Double? {
        var r = SplitMix64(seed: seed)
        let draws = (0..<20).map { _ in mean + spread * r.normal() }
        return { draws[$0] }
    }

    @Test func aPersonIsMeasuredAndATimingProposedWithinAMinute() throws {
        var (flow, start) = Self.begun()
        #expect(start.first == .saveProfile([Assignment(sw(btn0), .select)]))
        #expect(said(start) == ["Now a practice, to fit the speed to you: press your switch each time the target lights up. 10 targets, then a short trial."])
        let log = Self.drive(&flow, from: 4.05, Person(target: Self.reactionSeed(4, mean: 0.45, spread: 0.06)))
        let m = try #require(flow.measured)
        #expect(m.reactions.count == 10 && m.misses == 0 && m.early == 0)
        // Ten presses of a person drawn at 0.45 ± 0.06 s.
        #expect(abs(m.mean - 0.45) < 0.06, "\(m.mean)")
        #expect(m.spread > 0.02 && m.spread < 0.12, "\(m)")
        let interval = m.proposedInterval(within: SetupFlow.intervalRange)
        #expect(abs(interval - (m.mean + 2.5 * m.spread)) <= 0.05 && interval >= m.mean + 2.5 * m.spread)
        let text = try #require(said(log.map(\.out)).first { $0.hasPrefix("Your reaction time is") })
        #expect(text == "Your reaction time is \(formatFixed(m.mean, decimals: 2)) s, give or take \(formatFixed(m.spread, decimals: 2)) s. "
                + "Now a trial at one item every \(jsonNumber(interval)) s: select the star when it lights up.")
        #expect(said(log.map(\.out)).filter { $0 == "The star." }.count == 3)
        #expect(said(log.map(\.out)).dropLast().last == "The trial: 3 of 3 stars selected.")
        guard case .asking(.timing(interval), _, _) = flow.phase else { Issue.record("\(flow.phase)"); return }
        // Under a minute from the first instruction to the question.
        let asked = try #require(log.last?.at)
        #expect(asked - 4.05 < 60, "\(asked - 4.05) s")
        // Yes, by the switch while it is highlighted first: the timing is saved, adaptation on.
        let yes = press(&flow, sw(btn0), asked + 0.5)
        #expect(yes.first == .saveSettings([
            SettingLine("style", "\"auto\""), SettingLine("autoScanInterval", jsonNumber(interval)),
            SettingLine("reactionTime", jsonNumber((m.mean * 100).rounded() / 100)),
            SettingLine("reactionSpread", jsonNumber((m.spread * 100).rounded() / 100)),
            SettingLine("adaptTiming", "\"on\""),
        ]))
        #expect(yes.last == .finished)
    }

    /// The targets come at moments that cannot be foreseen: no two gaps alike, none shorter
    /// than the shortest allowed.
    @Test func targetsComeAtUnforeseeableMoments() {
        var (flow, _) = Self.begun(seed: 21)
        let log = Self.drive(&flow, from: 4.05, Person(target: { _ in 0.5 }))
        let lit = log.compactMap { e -> Double? in if case .target(_, _, lit: true) = e.out { e.at } else { nil } }
        #expect(lit.count == 10)
        #expect(lit[0] - 4 >= 3.0 && lit[0] - 4 <= 4.5)
        let gaps = zip(lit.dropFirst(), lit).map { $0 - $1 - 0.5 }
        #expect(gaps.allSatisfy { $0 >= 1.5 - 1e-9 && $0 <= 3.5 + 1e-9 }, "\(gaps)")
        #expect(Set(gaps.map { ($0 * 1000).rounded() }).count == gaps.count, "\(gaps)")
    }

    /// A look away (one press far later than the others) is trimmed; missed targets and
    /// presses with no target lit are counted and said.
    @Test func outliersAreTrimmedAndMissesAndEarlyPressesCounted() throws {
        var (flow, _) = Self.begun()
        let times: [Double?] = [0.42, 0.40, nil, 0.44, 2.3, 0.38, nil, 0.41, 0.43, 0.39]
        // One press while nothing is lit, just before the practice's first target.
        var log = [(at: Double, out: SetupOutput)]()
        let first = try #require(flow.nextDeadline).seconds
        #expect(press(&flow, sw(btn0), first - 0.5).isEmpty)
        // The target it was waiting for is put off a second.
        #expect(try #require(flow.nextDeadline).seconds >= first - 0.5 + 1)
        log = Self.drive(&flow, from: first - 0.45, Person(target: { times[$0 - 1] }))
        let m = try #require(flow.measured)
        #expect(m.misses == 2 && m.early == 1)
        #expect(m.reactions.count == 8 && m.kept.count == 7 && !m.kept.contains(2.3))
        #expect(abs(m.mean - 0.41) < 1e-9)
        let text = try #require(said(log.map(\.out)).first { $0.hasPrefix("Your reaction time is") })
        #expect(text.hasPrefix("Your reaction time is 0.41 s, give or take 0.02 s; 2 of 10 missed; 1 press with no target to press. Now a trial at one item every 0.5 s"), "\(text)")
    }

    @Test func tooFewAnswersFallBackToChoosingASpeed() {
        var (flow, _) = Self.begun()
        let log = Self.drive(&flow, from: 4.05, Person(target: { $0 <= 4 ? 0.6 : nil }))
        #expect(flow.measured == nil)
        #expect(said(log.map(\.out)).contains("Only 4 of 10 targets were answered, too few to measure. Choose a speed instead."))
        guard case .asking(.style(.auto, 1.5), _, _) = flow.phase else { Issue.record("\(flow.phase)"); return }
    }

    /// In the trial a press on the wrong item is said, and the star counted only when hit;
    /// the star going by twice unanswered ends its round.
    @Test func theTrialCountsTheStarsHit() {
        var (flow, _) = Self.begun()
        // Late for the star in the first round (the item after it), no press while it goes by
        // twice in the second, on time in the third.
        let log = Self.drive(&flow, from: 4.05, Person(target: { _ in 0.45 }, star: { $0 == 0 ? 0.6 : ($0 <= 2 ? nil : 0.3) }))
        let says = said(log.map(\.out))
        #expect(says.contains { $0.hasPrefix("That was ") && $0.contains("; the star is ") })
        #expect(says.contains("The star went by twice."))
        #expect(says.dropLast().last == "The trial: 1 of 3 stars selected.")
    }

    /// Slower and Faster change the proposal by 0.1 s and ask again; Try it runs the trial
    /// again; all by the switch, each answer highlighted in turn.
    @Test func theTimingIsChangedAndTriedAgainByTheSwitch() throws {
        var (flow, _) = Self.begun()
        var log = Self.drive(&flow, from: 4.05, Person(target: { _ in 0.45 }))
        guard case .asking(.timing(let interval), let since, _) = flow.phase else { Issue.record("\(flow.phase)"); return }
        #expect(SetupFlow.labels(.timing(interval)) == ["Yes", "Slower", "Faster", "Try it", "No"])
        // Slower is highlighted from 2 s to 4 s.
        _ = flow.handleDeadline(at: since + .seconds(2))
        let slower = press(&flow, sw(btn0), (since + .seconds(2.5)).seconds)
        let longer = ((interval + 0.1) * 100).rounded() / 100
        #expect(said(slower) == ["Scan automatically, one item every \(jsonNumber(longer)) s, the speed then following you as you scan. Use this?"])
        guard case .asking(.timing(longer), let again, _) = flow.phase else { Issue.record("\(flow.phase)"); return }
        // Try it: the fourth answer, from 6 s to 8 s.
        _ = flow.handleDeadline(at: again + .seconds(6))
        let tryIt = press(&flow, sw(btn0), (again + .seconds(6.5)).seconds)
        #expect(said(tryIt) == ["A trial at one item every \(jsonNumber(longer)) s: select the star."])
        log = Self.drive(&flow, from: (again + .seconds(6.55)).seconds, Person(target: { _ in 0.45 }))
        #expect(said(log.map(\.out)).dropLast().last == "The trial: 3 of 3 stars selected.")
        guard case .asking(.timing(longer), _, _) = flow.phase else { Issue.record("\(flow.phase)"); return }
        // No, from the terminal: nothing written.
        let t = try #require(log.last?.at) + 0.5
        #expect(flow.handleKey("n", at: at(t)) == [.say("Your settings were left as they are. Setup is done. Start scanning with: switchscan run"), .finished])
    }

    /// A slow person's timing is above adaptation's usual maximum: Yes widens it, or the
    /// interval would be pulled back at once.
    @Test func aSlowPersonsTimingWidensAdaptationsBounds() throws {
        var (flow, _) = Self.begun()
        let log = Self.drive(&flow, from: 4.05, Person(target: { _ in 3.0 }))
        let m = try #require(flow.measured)
        #expect(m.reactions.count == 10 && m.misses == 0, "every press within the 5 s a target stays lit")
        guard case .asking(.timing(3.05), _, _) = flow.phase else { Issue.record("\(flow.phase)"); return }
        let yes = press(&flow, sw(btn0), try #require(log.last?.at) + 0.5)
        guard case .saveSettings(let lines) = yes.first else { Issue.record("\(yes)"); return }
        #expect(lines.contains(SettingLine("autoScanInterval", "3.05")))
        #expect(lines.contains(SettingLine("adaptMaximum", "4.6")))
        #expect(!lines.contains { $0.key == "adaptMinimum" })
    }

    /// A person whose presses scatter widely still gets settings the file takes: the spread
    /// is written as at most 2 s, the interval as at most 5 s.
    @Test func aWideSpreadIsWrittenWithinTheSettingsRange() throws {
        var (flow, _) = Self.begun()
        let log = Self.drive(&flow, from: 4.05, Person(target: { $0 % 2 == 0 ? 0.3 : 4.8 }, star: { _ in 0.4 }))
        let m = try #require(flow.measured)
        #expect(m.spread > 2, "\(m)")
        guard case .asking(.timing(5.0), _, _) = flow.phase else { Issue.record("\(flow.phase)"); return }
        let yes = press(&flow, sw(btn0), try #require(log.last?.at) + 0.5)
        guard case .saveSettings(let lines) = yes.first else { Issue.record("\(yes)"); return }
        #expect(lines.contains(SettingLine("reactionSpread", "2")))
        #expect(lines.contains(SettingLine("autoScanInterval", "5")))
        #expect(lines.contains(SettingLine("adaptMaximum", "7.5")))
    }

    /// Faster never goes to the reaction time measured or below: every press would be late.
    @Test func fasterStopsAboveTheReactionTime() throws {
        var (flow, _) = Self.begun()
        let log = Self.drive(&flow, from: 4.05, Person(target: { _ in 0.6 }))
        guard case .asking(.timing(0.65), _, _) = flow.phase else { Issue.record("\(flow.phase)"); return }
        // Faster: the third answer, from 4 s to 6 s; the terminal's 3 answers it too.
        let faster = flow.handleKey("3", at: at(try #require(log.last?.at) + 0.5))
        #expect(said(faster) == ["Scan automatically, one item every 0.65 s, the speed then following you as you scan. Use this?"])
    }

    /// The terminal's s skips the practice: the speed is chosen as without it.
    @Test func aCarerCanSkipThePractice() {
        var (flow, _) = Self.begun()
        _ = flow.handleDeadline(at: flow.nextDeadline!)
        let out = flow.handleKey("s", at: at(9))
        #expect(said(out) == ["The practice is skipped.", "Scan automatically, one item every 1.5 s; your switch selects. Use this?"])
        guard case .asking(.style(.auto, 1.5), _, _) = flow.phase else { Issue.record("\(flow.phase)"); return }
        #expect(flow.handleKey("s", at: at(10)).isEmpty)
    }

    /// Two switches need no timing: no practice.
    @Test func twoSwitchesAreNotMeasured() {
        var flow = SetupFlow(devices: [box])
        _ = flow.start()
        _ = press(&flow, sw(btn0), 1); _ = press(&flow, sw(btn0), 2)
        _ = press(&flow, sw(btn1), 3); _ = press(&flow, sw(btn1), 4)
        let out = press(&flow, sw(btn0), 5)
        #expect(said(out) == ["Scan with two switches: next moves the highlight, select selects. Use this?"])
    }

    @Test func theProposalIsTheAimWithinTheRange() throws {
        let fast = try #require(ReactionMeasure(reactions: [0.25, 0.26, 0.24, 0.27, 0.25, 0.23], misses: 0, early: 0))
        #expect(fast.proposedInterval(within: SetupFlow.intervalRange) == 0.5)
        let slow = try #require(ReactionMeasure(reactions: [1.9, 2.1, 2.0, 2.2, 1.8], misses: 0, early: 0))
        // 2.0 + 2.5 × 0.158 = 2.395: up to 2.4.
        #expect(slow.proposedInterval(within: SetupFlow.intervalRange) == 2.4)
        let steady = try #require(ReactionMeasure(reactions: [0.6, 0.6, 0.6, 0.6, 0.6], misses: 0, early: 0))
        // Ten presses cannot show a spread under 0.02 s: 0.6 + 0.05.
        #expect(steady.proposedInterval(within: SetupFlow.intervalRange) == 0.65)
        #expect(ReactionMeasure(reactions: [0.5, 0.5, 0.5, 0.5], misses: 6, early: 0) == nil)
    }
}

@testable import DesktopAccess
import ScanCore
import Testing

/// The desktop's policy in virtual time: which events count, when the window is read
/// (whole or an element alone), what is handed on, the re-reads while nothing can be
/// scanned, the back-off from an application that does not answer, and the flood guard.
@Suite struct DesktopFollowerTests {
    static let app = ":1.5"
    static let window = "a1.5:1"
    static let button = "a1.5:2"
    static let slider = "a1.5:3"
    typealias H = FollowerHarness

    static func started(timing: DesktopFollower.Timing = .init()) -> FollowerHarness {
        var h = FollowerHarness(.window(bus: app, id: window, elements: [button, slider], version: 0), timing: timing)
        h.feed(.start)
        return h
    }

    /// The window whose first element's value is `version`.
    static func showing(_ version: Int) -> FollowerHarness.Desktop {
        .window(bus: app, id: window, elements: [button, slider], version: version)
    }

    static func gaps(_ times: [ScanInstant]) -> [ScanDuration] {
        zip(times.dropFirst(), times).map { $0 - $1 }
    }

    // MARK: - Coalescing

    @Test func theFirstReadIsHandedOnAtOnceAndNothingMoreIsAskedFor() {
        let h = Self.started()
        #expect(h.reads.map(\.read) == [.window])
        #expect(h.deliveryTimes == [h.now])
        #expect(h.wake == nil)
    }

    @Test func aBurstIsReadOnceAndReadsStartAtLeast30msApart() {
        var h = Self.started()
        h.advance(H.ms(100))
        let t0 = h.now
        h.desktop = Self.showing(1)
        h.event("object:children-changed:add", id: Self.window)
        #expect(h.wake == t0 + H.ms(2))
        h.advance(to: t0 + .milliseconds(1))
        h.event("object:children-changed:remove", id: Self.window)
        h.advance(H.ms(3))
        #expect(h.windowReads.suffix(1) == [t0 + H.ms(2)])
        #expect(h.delivered.count == 2)
        // Another change right after that read waits for 30 ms after its start.
        h.event("object:children-changed:add", id: Self.window)
        #expect(h.wake == t0 + H.ms(32))
        h.advance(H.ms(200))
        #expect(h.windowReads.dropFirst() == [t0 + H.ms(2), t0 + H.ms(32)])
        // Unchanged: read, not handed on.
        #expect(h.delivered.count == 2)
        #expect(h.wake == nil)
    }

    @Test func aChangeOfOneElementReadsThatElementAlone() {
        var h = Self.started()
        h.advance(H.ms(100))
        h.desktop = Self.showing(1)
        h.event("object:property-change:accessible-name", id: Self.button)
        h.event("object:value-changed", id: Self.slider)
        h.advance(H.ms(100))
        #expect(h.reads.last?.read == .elements([Self.button, Self.slider]))
        #expect(h.delivered.count == 2)
        #expect(h.delivered.last?.snapshot.tree.nodes[1].value == "1")

        // Nothing changed: nothing handed on.
        h.event("object:state-changed:checked", id: Self.button)
        h.advance(H.ms(100))
        #expect(h.reads.last?.read == .elements([Self.button]))
        #expect(h.delivered.count == 2)

        // With a structural change in the same burst, the window is read whole.
        h.event("object:state-changed:checked", id: Self.button)
        h.event("object:children-changed:add", id: Self.window)
        h.advance(H.ms(100))
        #expect(h.reads.last?.read == .window)

        // Of an object that is not an element (a label that was empty): the whole window.
        h.event("object:property-change:accessible-name", id: "a1.5:99")
        h.advance(H.ms(100))
        #expect(h.reads.last?.read == .window)
    }

    @Test func anElementThatCannotBeReadAloneHasTheWindowReadAtOnce() {
        var h = Self.started()
        h.advance(H.ms(100))
        h.elementReadsFail = true
        h.desktop = Self.showing(1)
        h.event("object:property-change:accessible-name", id: Self.button)
        h.advance(H.ms(100))
        let last = h.reads.suffix(2)
        #expect(last.map(\.read) == [.elements([Self.button]), .window])
        #expect(last.first?.at == last.last?.at)
        #expect(h.delivered.count == 2)
    }

    @Test func eventsThatChangeNothingScannedAreLeftOut() {
        var h = Self.started()
        h.advance(H.ms(100))
        // Another application's objects, focus moving, the caret, an unchanged or unscanned
        // bounds change.
        h.event("object:children-changed:add", bus: ":1.9", id: "a1.9:4")
        h.event("object:state-changed:focused", id: Self.button)
        h.event("object:text-caret-moved", id: Self.button)
        h.event("object:bounds-changed", id: "a1.5:77", rect: Rect(x: 1, y: 1, width: 5, height: 5))
        #expect(h.wake == nil)
        let r = Rect(x: 0, y: 0, width: 10, height: 10)
        h.event("object:bounds-changed", id: Self.button, rect: r)
        #expect(h.wake != nil)
        h.advance(H.ms(100))
        let reads = h.reads.count
        h.event("object:bounds-changed", id: Self.button, rect: r)
        h.advance(H.ms(100))
        #expect(h.reads.count == reads)
        // Windows and applications coming and going count from any application.
        for type in ["window:activate", "object:state-changed:active", "object:children-changed:add"] {
            h.event(type, bus: ":1.9", id: "a1.9:root")
            h.advance(H.ms(100))
        }
        #expect(h.reads.count == reads + 3)
    }

    @Test func anActionHasTheWindowReadWhole() {
        var h = Self.started()
        h.advance(H.ms(100))
        h.feed(.acted)
        h.advance(H.ms(2))
        #expect(h.reads.map(\.read) == [.window, .window])
    }

    /// What an action opens may come with no event, or after the read that follows the
    /// action (a dialog run from a menu item): the window is chosen and read again 100 and
    /// 250 ms after the action.
    @Test func afterAnActionTheWindowIsChosenAgainAt100And250ms() {
        var h = Self.started()
        h.advance(H.ms(100))
        let acted = h.now
        h.feed(.acted)
        h.advance(H.ms(150))
        // A dialog shows, and nothing says so.
        h.desktop = .window(bus: Self.app, id: "a1.5:9", elements: ["a1.5:10"], version: 0)
        h.advance(.seconds(2))
        #expect(h.windowReads.filter { $0 > acted }.map { $0 - acted } == [H.ms(2), H.ms(100), H.ms(250)])
        #expect(h.delivered.last?.snapshot.window.id == "a1.5:9")
        #expect(h.delivered.last?.at == acted + H.ms(250))
        #expect(h.follower.nextDeadline == nil, "nothing more after the last check")
    }

    /// A second action starts the checks again from its own time.
    @Test func anotherActionStartsTheChecksAgain() {
        var h = Self.started()
        h.advance(H.ms(100))
        let first = h.now
        h.feed(.acted)
        h.advance(H.ms(150))
        let second = h.now
        h.feed(.acted)
        h.advance(.seconds(2))
        #expect(h.windowReads.filter { $0 > first }.map { $0 - first }
                == [H.ms(2), H.ms(100), H.ms(152), H.ms(250), H.ms(400)], "\(second)")
    }

    @Test func afterStopNothingIsRead() {
        var h = Self.started()
        h.advance(H.ms(100))
        h.event("object:children-changed:add", id: Self.window)
        h.feed(.stop)
        h.event("object:children-changed:add", id: Self.window)
        h.feed(.acted)
        h.advance(.seconds(5))
        #expect(h.reads.count == 1)
        #expect(h.follower.nextDeadline == nil)
    }

    // MARK: - Re-read while nothing can be scanned

    @Test func nothingToScanIsLookedAtAgainQuicklyThenOnceASecond() {
        var h = Self.started()
        h.advance(H.ms(100))
        h.desktop = .nothing
        h.event("window:destroy", id: "a1.5:root")
        h.advance(.seconds(12))
        // The empty screen is handed on once.
        #expect(h.delivered.count == 2)
        #expect(h.delivered.last?.snapshot.window.id == "none")
        let gaps = Self.gaps(h.windowReads.dropFirst().map { $0 })
        #expect(Array(gaps.prefix(9)) == Array(repeating: H.ms(252), count: 8) + [H.ms(1002)])
        #expect(gaps.dropFirst(8).allSatisfy { $0 == H.ms(1002) })
        // A window appears without saying so: the next look finds it, and the looks stop.
        h.desktop = Self.showing(0)
        h.advance(.seconds(2))
        #expect(h.delivered.last?.snapshot.window.id == Self.window)
        #expect(h.wake == nil)
        let reads = h.reads.count
        h.advance(.seconds(5))
        #expect(h.reads.count == reads)
    }

    @Test func aWindowWithNoElementIsLookedAtAgainToo() {
        var h = FollowerHarness(.window(bus: Self.app, id: Self.window, elements: [], version: 0))
        h.feed(.start)
        #expect(h.wake == h.now + H.ms(250))
    }

    // MARK: - Back-off from an application that does not answer

    @Test func anApplicationThatDoesNotAnswerIsPassedOverFor3Seconds() {
        var h = Self.started()
        h.advance(H.ms(100))
        let t0 = h.now
        h.desktop = .hung(bus: Self.app)
        h.event("object:children-changed:add", id: Self.window)
        h.advance(H.ms(2))
        #expect(h.follower.isPassedOver(Self.app, at: t0 + H.ms(2)))
        #expect(h.follower.isPassedOver(Self.app, at: t0 + H.ms(3001)))
        #expect(!h.follower.isPassedOver(Self.app, at: t0 + H.ms(3002)))
        #expect(!h.follower.isPassedOver(":1.9", at: t0 + H.ms(2)))
        #expect(h.wake == t0 + H.ms(3002))
        // Meanwhile an event finds it passed over: looked at again 10 ms after the 3 s.
        h.event("object:children-changed:add", id: Self.window)
        h.advance(H.ms(100))
        #expect(h.wake == t0 + H.ms(3002))
        // It answers again: its window is read and handed on.
        h.desktop = Self.showing(1)
        h.advance(to: t0 + H.ms(3100))
        #expect(h.windowReads.last == t0 + H.ms(3004))
        #expect(h.delivered.last?.at == t0 + H.ms(3004))
        // Scanning went on with what it showed last: nothing was handed on meanwhile.
        #expect(h.delivered.count == 2)
    }

    /// The scanner follows the focused window or says why not: an application that does
    /// not answer is said so once, and again only after it answered in between.
    @Test func anApplicationThatDoesNotAnswerIsSaidSoOnceUntilItAnswers() {
        var h = Self.started()
        h.advance(H.ms(100))
        let t0 = h.now
        h.desktop = .hung(bus: Self.app)
        h.feed(.acted)
        h.advance(.seconds(7))
        #expect(h.toldNotAnswering.map(\.bus) == [Self.app])
        #expect(h.toldNotAnswering.first?.at == t0 + H.ms(2), "at the first read that found it so")
        h.desktop = Self.showing(1)
        h.advance(.seconds(4))
        h.desktop = .hung(bus: Self.app)
        h.feed(.acted)
        h.advance(H.ms(10))
        #expect(h.toldNotAnswering.count == 2)
        // A window that went as it was read is no application that does not answer.
        h.desktop = .gone(bus: ":1.9")
        h.event("window:destroy", bus: ":1.9", id: "a1.9:root")
        h.advance(.seconds(1))
        #expect(h.toldNotAnswering.count == 2)
    }

    @Test func aWindowThatWentAsItWasReadIsLookedAtAgainAfter250ms() {
        var h = Self.started()
        h.advance(H.ms(100))
        let t0 = h.now
        h.desktop = .gone(bus: Self.app)
        h.event("window:destroy", id: "a1.5:root")
        h.advance(H.ms(2))
        #expect(!h.follower.isPassedOver(Self.app, at: h.now))
        #expect(h.wake == t0 + H.ms(252))
    }

    // MARK: - The flood guard

    /// A label changed every millisecond for 2 s (`changes` ms, then quiet for a second).
    static func flood(_ timing: DesktopFollower.Timing = .init(), ms changes: Int = 2000) -> FollowerHarness {
        var h = started(timing: timing)
        h.advance(H.ms(100))
        for k in 1...changes {
            h.desktop = showing(k)
            h.event("object:property-change:accessible-name", id: button)
            h.advance(H.ms(1))
        }
        h.advance(.seconds(1))
        return h
    }

    @Test func aLabelChangingEveryMillisecondIsReadAtMostFiveTimesASecond() {
        let h = Self.flood()
        let t0 = ScanInstant.seconds(100) + H.ms(100)
        let reads = h.readTimes.dropFirst()
        // Before the flood is recognised (200 events), reads are 30 ms apart; then 200 ms.
        #expect(reads.count <= 17, "\(reads.count) reads")
        let secondSecond = reads.filter { $0 >= t0 + .seconds(1) && $0 < t0 + .seconds(2) }
        #expect(secondSecond.count <= 5, "\(secondSecond.count) reads in the flood's second second")
        #expect(Self.gaps(Array(secondSecond)).allSatisfy { $0 >= H.ms(200) })
        // Never more snapshots than the screen shows frames (60 a second).
        #expect(Self.gaps(h.deliveryTimes).allSatisfy { $0 >= .seconds(1.0 / 60) })
        // The last change is not lost: it is read once the flood is over.
        #expect(h.delivered.last?.snapshot.tree.nodes[1].value == "2000")
    }

    /// The same flood without the guard: a read every 30 ms, each one a new snapshot (the
    /// highlight redrawn 33 times a second). The bound above fails here.
    @Test func withoutTheFloodGuardTheLabelIsReadEvery30ms() {
        var timing = DesktopFollower.Timing()
        timing.floodEvents = 0
        let h = Self.flood(timing)
        #expect(h.readTimes.count > 60)
        #expect(h.delivered.count > 60)
    }

    /// A dialog built with hundreds of events (a file chooser) floods; the window's
    /// activation is still read at once: reads 30 ms apart, not 200.
    @Test func aWindowActivatedDuringAFloodIsReadAtOnce() {
        var h = Self.started()
        h.advance(H.ms(100))
        for _ in 1...400 {
            h.event("object:children-changed:add", id: Self.window)
            h.advance(H.ms(1))
        }
        #expect(h.follower.isFlooded(at: h.now))
        let lastRead = h.readTimes.last!
        // Just after a read: the flood would hold the next one back 200 ms.
        h.advance(to: lastRead + H.ms(5))
        let t = h.now
        h.desktop = Self.showing(1)
        h.event("window:activate", id: "a1.5:9")
        h.advance(H.ms(40))
        let next = h.readTimes.first { $0 > lastRead }
        #expect(next.map { $0 - t <= H.ms(25) } == true, "read \(next.map { "\($0 - t)" } ?? "never") after the activation")
        #expect(h.delivered.last?.snapshot.tree.nodes[1].value == "1")
    }

    @Test func theFloodEndsASecondAfterItsEventsFallBelow200() {
        var h = Self.flood(ms: 500)
        #expect(!h.follower.isFlooded(at: h.now))
        // One change now is read as quickly as ever.
        let t = h.now
        h.desktop = Self.showing(9999)
        h.event("object:property-change:accessible-name", id: Self.button)
        h.advance(H.ms(100))
        #expect(h.readTimes.last == t + H.ms(2))
    }

    @Test func aSliderDraggedAt50HzIsNoFlood() {
        var h = Self.started()
        h.advance(H.ms(100))
        let t0 = h.now
        // Each move says so three times (value-changed, accessible-value, text-changed).
        for k in 1...100 {
            h.desktop = Self.showing(k)
            h.event("object:value-changed", id: Self.slider)
            h.event("object:property-change:accessible-value", id: Self.slider)
            h.event("object:text-changed:insert", id: Self.slider)
            #expect(!h.follower.isFlooded(at: h.now))
            h.advance(H.ms(20))
        }
        let reads = h.readTimes.filter { $0 >= t0 + .seconds(1) && $0 < t0 + .seconds(2) }
        #expect(reads.count >= 30)
    }

    @Test func anActionDuringAFloodIsReadWithoutWaitingForIt() {
        var h = Self.started()
        h.advance(H.ms(100))
        for k in 1...400 {
            h.desktop = Self.showing(k)
            h.event("object:property-change:accessible-name", id: Self.button)
            h.advance(H.ms(1))
        }
        #expect(h.follower.isFlooded(at: h.now))
        let last = h.readTimes.last!
        h.feed(.acted)
        let asked = h.now
        h.advance(H.ms(60))
        let next = h.windowReads.first { $0 > asked }
        #expect(next != nil && next! <= max(asked + H.ms(2), last + H.ms(30)), "\(String(describing: next)) after \(asked)")
    }

    @Test func oneApplicationsFloodIsCountedApartFromAnothers() {
        var h = Self.started()
        h.advance(H.ms(100))
        // 150 events a second from each of two applications: neither floods.
        for _ in 1...300 {
            h.event("window:activate", bus: ":1.9", id: "a1.9:root")
            h.event("object:children-changed:add", id: Self.window)
            h.advance(H.ms(7))
            #expect(!h.follower.isFlooded(at: h.now))
        }
    }
}

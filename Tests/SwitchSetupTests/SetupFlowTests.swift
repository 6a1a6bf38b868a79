import ScanCore
import ScanFormats
import Testing
@testable import SwitchSetup

let box = SetupDevice(node: "/dev/input/event5", name: "X-Keys Switch Interface", bus: "usb", vendor: 0x05f3, product: 0x0232)
let pad = SetupDevice(node: "/dev/input/event7", name: "Gamepad", bus: "usb", vendor: 0x045e, product: 0x028e)
let btn0 = EventCode(type: 1, code: 0x100, name: "BTN_0")
let btn1 = EventCode(type: 1, code: 0x101, name: "BTN_1")
let keyZ = EventCode(type: 1, code: 44, name: "KEY_Z")
let absX = EventCode(type: 3, code: 0, name: "ABS_X")

func at(_ s: Double) -> ScanInstant { .seconds(s) }
func sw(_ code: EventCode, _ device: SetupDevice = box) -> HeardSwitch { HeardSwitch(device: device, code: code) }

/// Presses (down, up 50 ms later) at the given times.
func press(_ flow: inout SetupFlow, _ s: HeardSwitch, _ t: Double) -> [SetupOutput] {
    flow.handle(.down(s), at: at(t)) + flow.handle(.up(s), at: at(t + 0.05))
}

/// Setup without the reaction-time practice: one switch goes straight to the speed question.
func unmeasured() -> SetupFlow.Options {
    var o = SetupFlow.Options()
    o.measure = false
    return o
}

func said(_ out: [SetupOutput]) -> [String] { out.compactMap { if case .say(let s) = $0 { s } else { nil } } }

@Suite("switchscan setup's flow")
struct SetupFlowTests {
    @Test func aPressIsHeardThenConfirmedBySecondPress() {
        var flow = SetupFlow(devices: [box])
        #expect(said(flow.start()) == ["Press the switch you want to use to select."])
        #expect(said(press(&flow, sw(btn0), 1)) == ["Heard BTN_0 on X-Keys Switch Interface. Press it again to confirm."])
        #expect(flow.assignments.isEmpty)
        let out = press(&flow, sw(btn0), 2)
        #expect(said(out).first == "BTN_0 on X-Keys Switch Interface selects.")
        #expect(flow.assignments == [Assignment(sw(btn0), .select)])
        #expect(flow.phase == .listening(.next))
        #expect(flow.presses.map(\.time) == [at(1), at(2)])
    }

    @Test func anotherSwitchDuringConfirmationBecomesTheCandidate() {
        var flow = SetupFlow(devices: [box])
        _ = flow.start()
        _ = press(&flow, sw(btn0), 1)
        #expect(said(press(&flow, sw(btn1), 2)) == ["Heard BTN_1 on X-Keys Switch Interface (not BTN_0). Press it again to confirm."])
        _ = press(&flow, sw(btn1), 3)
        #expect(flow.selectSwitch == sw(btn1))
    }

    @Test func contactBounceDoesNotConfirm() {
        var flow = SetupFlow(devices: [box])
        _ = flow.start()
        _ = flow.handle(.down(sw(btn0)), at: at(1))
        _ = flow.handle(.up(sw(btn0)), at: at(1.01))
        #expect(flow.handle(.down(sw(btn0)), at: at(1.03)).isEmpty)
        #expect(flow.assignments.isEmpty)
    }

    @Test func aKeyHeldAtTheStartIsRefusedUntilLetGo() {
        var flow = SetupFlow(devices: [box])
        _ = flow.start()
        // Said once it has stayed down a second (a repeat says it at once), and once only.
        #expect(flow.handle(.heldAtStart(sw(keyZ)), at: at(0)).isEmpty)
        #expect(flow.nextDeadline == at(1))
        #expect(said(flow.handleDeadline(at: at(1))) == ["KEY_Z on X-Keys Switch Interface is held down: it is ignored until it is let go."])
        #expect(flow.nextDeadline == nil)
        #expect(flow.handle(.repeating(sw(keyZ)), at: at(1.5)).isEmpty)
        #expect(flow.handle(.up(sw(keyZ)), at: at(2)).isEmpty)
        #expect(flow.phase == .listening(.select))
        // Let go, it is an ordinary key again.
        #expect(said(press(&flow, sw(keyZ), 2)).first?.hasPrefix("Heard KEY_Z") == true)
    }

    @Test func theEnterThatStartedSetupIsNotSaidToBeHeld() {
        var flow = SetupFlow(devices: [box])
        _ = flow.start()
        let enter = sw(EventCode(type: 1, code: 28, name: "KEY_ENTER"))
        _ = flow.handle(.heldAtStart(enter), at: at(0))
        _ = flow.handle(.up(enter), at: at(0.1))
        #expect(flow.nextDeadline == nil)
        #expect(flow.handleDeadline(at: at(2)).isEmpty)
    }

    @Test func aKeyThatIsAlsoTheSelectSwitchDoesNotAnswerTwice() {
        var flow = SetupFlow(devices: [box], options: unmeasured())
        _ = flow.start()
        _ = press(&flow, sw(btn0), 1); _ = press(&flow, sw(btn0), 2); _ = press(&flow, sw(btn0), 3); _ = press(&flow, sw(btn0), 4)
        _ = press(&flow, sw(btn0), 6.1)  // Slower: asked again at 6.1
        #expect(flow.handleKey("1", at: at(6.11)).isEmpty)
        guard case .asking(.style(.auto, 1.75), _, _) = flow.phase else { Issue.record("\(flow.phase)"); return }
    }

    @Test func aRepeatingKeyIsRefused() {
        var flow = SetupFlow(devices: [box])
        _ = flow.start()
        _ = flow.handle(.down(sw(keyZ)), at: at(1))
        let out = flow.handle(.repeating(sw(keyZ)), at: at(1.5))
        #expect(said(out) == ["KEY_Z on X-Keys Switch Interface is repeating: it is being held down, so it cannot be used. Let it go. Press the switch you want to use to select."])
        #expect(flow.phase == .listening(.select))
        #expect(flow.handle(.repeating(sw(keyZ)), at: at(1.53)).isEmpty)  // said once a hold
        _ = flow.handle(.up(sw(keyZ)), at: at(2))
        // Its release confirms nothing, and a repeat of a key never confirmed says so once.
        #expect(flow.assignments.isEmpty)
        #expect(said(flow.handle(.repeating(sw(btn1)), at: at(3))) == ["BTN_1 on X-Keys Switch Interface is repeating (held down): it is ignored until it is let go."])
    }

    @Test func aSecondSwitchForNextThenFinishingWithSelect() {
        var flow = SetupFlow(devices: [box])
        _ = flow.start()
        _ = press(&flow, sw(btn0), 1); _ = press(&flow, sw(btn0), 2)
        _ = press(&flow, sw(btn1), 3)
        #expect(said(press(&flow, sw(btn1), 4)) == ["BTN_1 on X-Keys Switch Interface moves to the next item.", SetupFlow.prompts[.more]!])
        let out = press(&flow, sw(btn0), 5)
        #expect(out.first == .saveProfile([Assignment(sw(btn0), .select), Assignment(sw(btn1), .next)]))
        #expect(out.contains(.say("Scan with two switches: next moves the highlight, select selects. Use this?")))
        #expect(out.contains(.choices(["Yes", "No"], highlighted: 0)))
        #expect(flow.profileSaved)
    }

    @Test func oneSwitchIsProposedAutoScanningAndASpeed() {
        var flow = SetupFlow(devices: [box], options: unmeasured())
        _ = flow.start()
        _ = press(&flow, sw(btn0), 1); _ = press(&flow, sw(btn0), 2)
        #expect(said(press(&flow, sw(btn0), 3)) == ["One switch, then. " + SetupFlow.prompts[.more]!])
        let out = press(&flow, sw(btn0), 4)
        #expect(out.first == .saveProfile([Assignment(sw(btn0), .select)]))
        #expect(said(out) == ["Scan automatically, one item every 1.5 s; your switch selects. Use this?"])
        // The choices are highlighted in turn, every 2 s: Yes, Slower, Faster, No.
        #expect(flow.nextDeadline == at(6))
        #expect(flow.handleDeadline(at: at(6)) == [.choices(["Yes", "Slower", "Faster", "No"], highlighted: 1)])
        // A press while Slower is highlighted: asked again, 0.25 s slower.
        #expect(said(press(&flow, sw(btn0), 7)) == ["Scan automatically, one item every 1.75 s; your switch selects. Use this?"])
        // Yes, right away (after the guard): saved.
        let yes = press(&flow, sw(btn0), 7.5)
        #expect(yes.first == .saveSettings([SettingLine("style", "\"auto\""), SettingLine("autoScanInterval", "1.75")]))
        #expect(yes.last == .finished)
        #expect(flow.phase == .done)
    }

    @Test func aPressRightAfterAQuestionAppearsDoesNotAnswerIt() {
        var flow = SetupFlow(devices: [box], options: unmeasured())
        _ = flow.start()
        _ = press(&flow, sw(btn0), 1); _ = press(&flow, sw(btn0), 2); _ = press(&flow, sw(btn0), 3); _ = press(&flow, sw(btn0), 4)
        #expect(press(&flow, sw(btn0), 4.1).isEmpty)
        guard case .asking = flow.phase else { Issue.record("\(flow.phase)"); return }
    }

    @Test func theTerminalAnswersWithYNOrANumber() {
        var flow = SetupFlow(devices: [box], options: unmeasured())
        _ = flow.start()
        _ = press(&flow, sw(btn0), 1); _ = press(&flow, sw(btn0), 2); _ = press(&flow, sw(btn0), 3); _ = press(&flow, sw(btn0), 4)
        #expect(flow.handleKey("x", at: at(5)).isEmpty)
        let no = flow.handleKey("n", at: at(5))
        #expect(no == [.say("Your settings were left as they are. Setup is done. Start scanning with: switchscan run"), .finished])
    }

    @Test func aFurtherSwitchIsGivenAnActionByAQuestion() {
        var flow = SetupFlow(devices: [box, pad])
        _ = flow.start()
        _ = press(&flow, sw(btn0), 1); _ = press(&flow, sw(btn0), 2)
        _ = press(&flow, sw(btn1), 3); _ = press(&flow, sw(btn1), 4)
        let south = sw(EventCode(type: 1, code: 0x130, name: "BTN_SOUTH"), pad)
        _ = press(&flow, south, 5)
        let asked = press(&flow, south, 6)
        #expect(asked.contains(.say("What should BTN_SOUTH on Gamepad do?")))
        #expect(asked.contains(.choices(["previous", "menu", "exit", "point mode", "pause", "Nothing"], highlighted: 0)))
        // Already assigned switches are said so.
        _ = flow.handleKey("2", at: at(7))
        #expect(flow.assignments.last == Assignment(south, .menu))
        #expect(said(press(&flow, sw(btn1), 8)) == ["BTN_1 on X-Keys Switch Interface is already next. " + SetupFlow.prompts[.more]!])
    }

    @Test func anAxisSideIsASwitch() {
        var tracker = SwitchTracker(device: pad, heldKeys: [], axes: [0: (-32768...32767, 0), 2: (0...255, 0)])
        #expect(tracker.handle(absX, value: 10000).isEmpty)
        #expect(tracker.handle(absX, value: 20000) == [.down(HeardSwitch(device: pad, code: absX, side: .high))])
        #expect(tracker.handle(absX, value: 14000).isEmpty)  // hysteresis
        #expect(tracker.handle(absX, value: 3000) == [.up(HeardSwitch(device: pad, code: absX, side: .high))])
        #expect(tracker.handle(absX, value: -30000) == [.down(HeardSwitch(device: pad, code: absX, side: .low))])
        // A trigger resting at its end is held, silently: only pushing it to the other end presses.
        let z = EventCode(type: 3, code: 2, name: "ABS_Z")
        #expect(tracker.handle(z, value: 10).isEmpty)
        #expect(tracker.handle(z, value: 250) == [.up(HeardSwitch(device: pad, code: z, side: .low)), .down(HeardSwitch(device: pad, code: z, side: .high))])
    }

    @Test func keysDownAtTheStartAndRepeatsAreReported() {
        var tracker = SwitchTracker(device: box, heldKeys: [keyZ], axes: nil)
        #expect(tracker.start() == [.heldAtStart(sw(keyZ))])
        #expect(tracker.handle(keyZ, value: 1).isEmpty)
        #expect(tracker.handle(keyZ, value: 2) == [.repeating(sw(keyZ))])
        #expect(tracker.handle(keyZ, value: 0) == [.up(sw(keyZ))])
        #expect(tracker.handle(btn0, value: 1) == [.down(sw(btn0))])
        #expect(tracker.handle(EventCode(type: 1, code: 0x14a, name: "BTN_TOUCH"), value: 1).isEmpty)
        #expect(tracker.handle(absX, value: 100).isEmpty)  // not a joystick: axes are not switches
    }

    @Test func aDevicePluggedInMidSetupCounts() {
        var flow = SetupFlow(devices: [box])
        _ = flow.start()
        #expect(said(flow.deviceAdded(pad)) == ["Gamepad (/dev/input/event7) is connected: its switches can be pressed now."])
        #expect(flow.deviceAdded(pad).isEmpty)
        #expect(flow.devices.count == 2)
    }

    @Test func theSelectSwitchUnpluggedAfterTheProfileIsSaved() {
        var flow = SetupFlow(devices: [box])
        _ = flow.start()
        _ = press(&flow, sw(btn0), 1); _ = press(&flow, sw(btn0), 2); _ = press(&flow, sw(btn0), 3); _ = press(&flow, sw(btn0), 4)
        #expect(flow.deviceGone(box.node, at: at(5)) == [.failed("X-Keys Switch Interface (/dev/input/event5) was unplugged during setup. The switches were saved; the scanning style was not changed. Plug it back in and run 'switchscan setup' again to choose it.")])
    }

    @Test func aDeviceUnpluggedMidSetup() {
        var flow = SetupFlow(devices: [box, pad])
        _ = flow.start()
        #expect(said(flow.deviceGone(pad.node, at: at(1))) == ["Gamepad (/dev/input/event7) was unplugged; setup goes on with the other devices."])
        _ = press(&flow, sw(btn0), 2)
        #expect(flow.deviceGone(box.node, at: at(3)) == [.failed("X-Keys Switch Interface (/dev/input/event5) was unplugged during setup; nothing was written. Plug it back in and run 'switchscan setup' again.")])
        #expect(flow.phase == .failed)
        #expect(press(&flow, sw(btn0), 4).isEmpty)
    }
}

@Suite("switchscan setup's practice run")
struct SetupPracticeTests {
    @Test func aPracticeRunIsOfferedAtTheEndWhereItCanBeShown() {
        var options = unmeasured()
        options.offerPractice = true
        var flow = SetupFlow(devices: [box], options: options)
        _ = flow.start()
        _ = press(&flow, sw(btn0), 1); _ = press(&flow, sw(btn0), 2); _ = press(&flow, sw(btn0), 3); _ = press(&flow, sw(btn0), 4)
        let yes = press(&flow, sw(btn0), 4.5)
        #expect(said(yes) == ["Setup is done.", "Practise now on an example screen?"])
        #expect(flow.phase != .done)
        #expect(flow.handleKey("y", at: at(5)) == [.say("A practice run on the example screen, for a minute: q ends it."), .practice, .finished])
        #expect(flow.phase == .done)
    }
}

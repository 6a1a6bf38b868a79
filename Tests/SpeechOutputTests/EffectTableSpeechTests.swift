import ScanCore
import Testing
@testable import SpeechOutput

/// Speech and sounds act on the kinds of `EffectSpec.table` marked `speech`, and on no
/// other: with speech and sounds on, the example says or sounds something, or (a screen)
/// gives the role words of what follows.
@Suite struct EffectTableSpeechTests {
    @Test func speechActsOnTheKindsOfTheTable() {
        var plan = UtterancePlan(speech: true, moveSound: "move", selectSound: "select")
        plan.cutTone = "cut"
        for spec in EffectSpec.table {
            let stream = spec.exampleStream
            var screen: ElementTree?
            _ = plan.utterances(Array(stream.dropLast()), received: .zero, screen: &screen)
            let before = screen?.screenID
            let said = plan.utterances([stream.last!], received: .zero, screen: &screen)
            let acted = !said.isEmpty || screen?.screenID != before
            #expect(acted == spec.consumers.contains(.speech), "\(spec.kind): speech \(acted ? "acted" : "did not act"): \(said)")
        }
    }

    /// The `--app` window raised at the start is no selection: no select sound.
    @Test func aWindowRaisedAtTheStartSoundsNothing() {
        var plan = UtterancePlan(speech: true, moveSound: "move", selectSound: "select")
        var screen: ElementTree?
        let raise = TimedEffect(.zero, .window(.activate, window: "0x200", title: "Notes", chosen: false))
        #expect(plan.utterances([raise], received: .zero, screen: &screen).isEmpty)
    }
}

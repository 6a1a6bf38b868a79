import ScanCore
import ScreenScene
import Testing

/// The painters act on the kinds of `EffectSpec.table` marked `overlay`, and on no other:
/// what they draw (`OverlayScene`'s shapes) changes for those alone.
@Suite struct EffectTableOverlayTests {
    @Test func thePaintersActOnTheKindsOfTheTable() {
        let screen = PixelRect(x: 0, y: 0, width: 1280, height: 800)
        for spec in EffectSpec.table {
            let stream = spec.exampleStream
            var scene = OverlayScene()
            for e in stream.dropLast() { scene.apply(e) }
            let now = stream.last!.time
            let was = scene.shapes(at: now, thickness: 6, lineWidth: 4, screen: screen)
            scene.apply(stream.last!)
            let acted = scene.shapes(at: now, thickness: 6, lineWidth: 4, screen: screen) != was
            #expect(acted == spec.consumers.contains(.overlay), "\(spec.kind): the painters' scene \(acted ? "changed" : "did not change")")
        }
    }
}

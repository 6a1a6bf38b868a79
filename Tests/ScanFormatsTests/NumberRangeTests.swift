import ScanCore
import ScanFormats
import Testing

/// Numbers out of their stated range are refused where they enter, with their place; what
/// `validate` accepts can always be scanned, in both modes, at the very edges of the ranges.
@Suite("Numbers in layouts")
struct NumberRangeTests {
    @Test(arguments: [
        (#"{"width": 1e12, "height": 667}"#, "$.screen.size.width", "E16"),
        (#"{"width": 375, "height": 0}"#, "$.screen.size.height", "E16"),
    ])
    func screenSizesOutOfRange(_ size: String, _ path: String, _ code: String) throws {
        let json = layout(button("b")).replacingOccurrences(of: #"{"width": 375, "height": 667}"#, with: size)
        let e = try #require(errors(json).first)
        #expect(e.code == code && e.path == path, "\(e)")
    }

    @Test(arguments: [
        (#", "adjustable": {"min": 0, "max": 1e20, "value": 9.9e19}"#, "$.root.children[0].adjustable.max", "must be between -1000000000000 and 1000000000000, got 1e+20"),
        (#", "adjustable": {"min": -1e13, "max": 1}"#, "$.root.children[0].adjustable.min", "must be between -1000000000000 and 1000000000000, got -10000000000000"),
        (#", "adjustable": {"min": 0, "max": 1, "step": 1e-12}"#, "$.root.children[0].adjustable.step", "must be between 1e-09 and 2000000000000, got 1e-12"),
    ])
    func adjustableNumbersOutOfRange(_ spec: String, _ path: String, _ message: String) throws {
        let json = layout(#"{"id": "a", "label": "Volume", "traits": ["adjustable"], "frame": {"x": 0, "y": 0, "width": 100, "height": 44}\#(spec)}"#)
        let e = try #require(errors(json).first)
        #expect(e.code == "E10" && e.path == path && e.message == message, "\(e)")
    }

    @Test func framesAndPointsOutOfRange() throws {
        let far = layout(button("b", x: 1e20))
        #expect(errors(far).map(\.path) == ["$.root.children[0].frame.x"])
        let wide = layout(#"{"id": "w", "label": "W", "frame": {"x": 0, "y": 0, "width": 2e7, "height": 1}}"#)
        #expect(errors(wide).map { "\($0.code) \($0.path)" } == ["E06 $.root.children[0].frame.width"])
        let point = layout(button("b", #", "activationPoint": {"x": 5, "y": -1e300}"#))
        #expect(errors(point).map(\.path) == ["$.root.children[0].activationPoint.y"])
    }

    /// A screen and controls at the edges of every range: item mode steps through and
    /// adjusts, point mode sweeps the whole screen, and nothing traps.
    @Test func aLayoutAtTheLimitsScansInBothModes() throws {
        let json = """
            {"schemaVersion": 1, "screen": {"id": "huge", "size": {"width": 1e7, "height": 1e7}},
             "root": {"id": "root", "isAccessibilityElement": false, "frame": {"x": -1e7, "y": -1e7, "width": 1e7, "height": 1e7},
              "children": [
               {"id": "big", "label": "Big", "traits": ["adjustable"], "frame": {"x": 0, "y": 0, "width": 1e7, "height": 1e7},
                "adjustable": {"min": -1e12, "max": 1e12, "step": 2e12, "value": 1e12, "decimals": 9}},
               {"id": "tiny", "label": "Tiny", "traits": ["adjustable"], "frame": {"x": 1e7, "y": 1e7, "width": 0, "height": 0},
                "activationPointOutsideFrame": true, "activationPoint": {"x": -1e7, "y": 1e7},
                "adjustable": {"min": 0, "max": 1e-6, "step": 1e-9, "decimals": 9}}]}}
            """
        let doc = try load(json)
        #expect(doc.tree[1].currentValue == "1000000000000.000000000")
        for mode in [ScanMode.item, .point] {
            var s = ScanSettings()
            s.mode = mode
            s.glideSpeed = 5  // the slowest sweep: the longest times
            var engine = ScanEngine(tree: doc.tree, settings: s)
            var effects = engine.start(at: .zero)
            var t = ScanInstant.zero
            for k in 0..<40 {
                if k % 3 == 2 {
                    t = t + .milliseconds(10)
                    effects += engine.handle(SwitchEvent(.select, down: true, at: t), at: t)
                    effects += engine.handle(SwitchEvent(.select, down: false, at: t + .milliseconds(50)), at: t + .milliseconds(50))
                }
                guard let d = engine.nextDeadline else { break }
                t = max(t + .milliseconds(60), d)
                effects += engine.handleDeadline(at: t)
            }
            #expect(!effects.isEmpty, "\(mode)")
        }
    }
}

import ScanCore
import ScanRuntime
import Testing

/// One effect, or a stream of them, encoded from the start of a stream.
func jsonLine(_ e: TimedEffect) -> String? {
    var json = EffectJSON()
    return json.line(e)
}

func jsonLines(_ effects: [TimedEffect]) -> String {
    var json = EffectJSON()
    return json.lines(effects)
}

/// A setting change leaves as JSON only here: its key and its value as a settings file
/// says it.
@Suite("Effect JSON: setting changes")
struct EffectJSONSettingTests {
    @Test(arguments: [(SettingChange.autoScanInterval(.seconds(0.9)), #""name":"autoScanInterval","value":0.9"#),
                      (.autoScanInterval(.seconds(1)), #""name":"autoScanInterval","value":1.0"#),
                      (.glideSpeed(110), #""name":"glideSpeed","value":110"#),
                      (.speech(true), #""name":"speech","value":true"#),
                      (.sound(false), #""name":"sound","value":false"#)])
    func aSettingChangeIsItsKeyAndFileValue(_ change: SettingChange, _ fields: String) throws {
        let line = try #require(jsonLine(TimedEffect(.seconds(1.5), .settingChanged(change))))
        #expect(line == #"{"t":1.500,"effect":"settingChanged","# + fields + "}")
    }

    /// The screen is for presenters in the process; JSON front ends have the layout or the
    /// window's snapshot.
    @Test func theScreenShownIsNotPrinted() {
        let tree = ElementTree(screenID: "s", size: (10, 10), nodes: [ElementNode(id: "root")])
        let screen = TimedEffect(.zero, .screen(ShownScreen(tree, serial: 1)))
        #expect(jsonLine(screen) == nil)
        #expect(jsonLines([screen, TimedEffect(.zero, .scanStarted)]) == #"{"t":0.000,"effect":"scanStarted"}"# + "\n")
    }
}

/// A group whose frame would hold other items carries its outline (the rule of groups a person can see, docs/BEHAVIOUR.md); otherwise
/// the frame is the outline and no `outline` is printed.
@Suite("Effect JSON: outlines")
struct EffectJSONOutlineTests {
    @Test func aGroupsOutlineFollowsItsFrame() throws {
        let frame = Rect(x: 10, y: 188, width: 316, height: 84)
        let outline = [Rect(x: 10, y: 188, width: 252, height: 40), Rect(x: 266, y: 188, width: 60, height: 84)]
        let line = try #require(jsonLine(TimedEffect(.seconds(2), .highlight(item: "group:1", kind: .group, frame: frame,
                                                                                   label: "1, 2, 3 and 2 more", context: nil, outline: outline))))
        #expect(line == #"{"t":2.000,"effect":"highlight","item":"group:1","kind":"group","frame":[10.0,188.0,316.0,84.0],"#
                + #""outline":[[10.0,188.0,252.0,40.0],[266.0,188.0,60.0,84.0]],"label":"1, 2, 3 and 2 more"}"#)
        let plain = try #require(jsonLine(TimedEffect(.seconds(2), .highlight(item: "row", kind: .group, frame: frame,
                                                                                    label: nil, context: nil))))
        #expect(!plain.contains("outline"))
    }
}

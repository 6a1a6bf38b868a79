import ScanCore
import ScanRuntime
import Testing

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
        let line = try #require(EffectJSON.line(TimedEffect(.seconds(1.5), .settingChanged(change))))
        #expect(line == #"{"t":1.500,"effect":"settingChanged","# + fields + "}")
    }

    /// The screen is for presenters in the process; JSON front ends have the layout or the
    /// window's snapshot.
    @Test func theScreenShownIsNotPrinted() {
        let tree = ElementTree(screenID: "s", size: (10, 10), nodes: [ElementNode(id: "root")])
        let screen = TimedEffect(.zero, .screen(ShownScreen(tree, serial: 1)))
        #expect(EffectJSON.line(screen) == nil)
        #expect(EffectJSON.lines([screen, TimedEffect(.zero, .scanStarted)]) == #"{"t":0.000,"effect":"scanStarted"}"# + "\n")
    }
}

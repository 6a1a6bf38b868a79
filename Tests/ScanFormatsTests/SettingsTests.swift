import ScanCore
import ScanFormats
import Testing

/// Settings files: every key, durations in seconds, off values, ranges, types,
/// unknown keys, and every error of a file at once.
@Suite("Settings files")
struct SettingsTests {
    func settingsFile(_ json: String) throws -> ScanSettings {
        try SettingsLoader.load(bytes: bytes(json), file: "settings.json")
    }

    func settingsErrors(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) -> [Diagnostic] {
        do {
            let s = try SettingsLoader.load(bytes: bytes(json), file: "settings.json")
            Issue.record("expected \(json) to be rejected, got \(s)", sourceLocation: sourceLocation)
            return []
        } catch {
            #expect(error.file == "settings.json", sourceLocation: sourceLocation)
            return error.errors
        }
    }

    func onlySettingsError(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Diagnostic {
        let errs = settingsErrors(json, sourceLocation: sourceLocation)
        #expect(errs.count == 1, "\(errs.map(\.description))", sourceLocation: sourceLocation)
        return try #require(errs.first, sourceLocation: sourceLocation)
    }

    @Test func emptyObjectGivesTheDefaults() throws {
        let s = try settingsFile("{}")
        #expect(s == ScanSettings())
        // The defaults of the settings.
        #expect(s.style == .auto)
        #expect(s.mode == .item)
        #expect(s.autoScanInterval == .seconds(1.0))
        #expect(s.pauseOnFirstItem == .zero)
        #expect(s.loops == 2)
        #expect(s.moveRepeat == nil)
        #expect(s.holdDuration == nil)
        #expect(s.ignoreRepeat == nil)
        #expect(s.longPress == nil)
        #expect(s.autoTapTime == .milliseconds(750))
        #expect(s.stepSelectDelay == .milliseconds(1500))
        #expect(s.glideSpeed == 100)
        #expect(s.tapBehavior == .menu)
        #expect(s.focusAfterTap == .first)
        #expect(s.groupItems == true)
        #expect(s.itemScope == .interactive)
    }

    @Test func everyKeyIsRead() throws {
        let s = try settingsFile("""
            {"autoScanInterval": 0.5, "pauseOnFirstItem": 1.25, "moveRepeat": 0.3, "holdDuration": 0.1,
             "ignoreRepeat": 0.2, "longPress": 2, "autoTapTime": 1, "stepSelectDelay": 2.5,
             "style": "step", "mode": "point", "loops": 5, "longPressAction": "exit", "glideSpeed": 250,
             "tapBehavior": "autoTap", "focusAfterTap": "same", "groupItems": false, "itemScope": "all",
             "precise": true, "bandFraction": 0.1, "fineSpeedFactor": 0.25}
            """)
        #expect(s.autoScanInterval == .milliseconds(500))
        #expect(s.pauseOnFirstItem == .milliseconds(1250))
        #expect(s.moveRepeat == .milliseconds(300))
        #expect(s.holdDuration == .milliseconds(100))
        #expect(s.ignoreRepeat == .milliseconds(200))
        #expect(s.longPress == .seconds(2))
        #expect(s.autoTapTime == .seconds(1))
        #expect(s.stepSelectDelay == .milliseconds(2500))
        #expect(s.style == .step)
        #expect(s.mode == .point)
        #expect(s.loops == 5)
        #expect(s.longPressAction == .exit)
        #expect(s.glideSpeed == 250)
        #expect(s.tapBehavior == .autoTap)
        #expect(s.focusAfterTap == .same)
        #expect(s.groupItems == false)
        #expect(s.itemScope == .all)
        #expect(s.precise == true)
        #expect(s.bandFraction == 0.1)
        #expect(s.fineSpeedFactor == 0.25)
    }

    @Test func feedbackSettingsAreRead() throws {
        #expect(ScanSettings().feedback.highlightWidth == 4 && ScanSettings().feedback.highlightColor.hex == "#ff8c00")
        #expect(!ScanSettings().feedback.speech && !ScanSettings().feedback.sound)
        let s = try settingsFile("""
            {"speech": true, "speechRate": -20, "speechVolume": 50, "sound": true, "highlightColor": "#00FFcc", "highlightWidth": 8}
            """)
        #expect(s.feedback.speech && s.feedback.sound)
        #expect(s.feedback.speechRate == -20 && s.feedback.speechVolume == 50)
        #expect(s.feedback.highlightColor == RGBColor(red: 0, green: 0xff, blue: 0xcc) && s.feedback.highlightColor.hex == "#00ffcc")
        #expect(s.feedback.highlightWidth == 8)
    }

    @Test func badFeedbackSettingsSayWhatIsAllowed() throws {
        let errs = settingsErrors("""
            {"speechRate": 150, "highlightColor": "orange", "highlightWidth": 0, "speech": "yes"}
            """)
        #expect(errs.map(\.path) == ["$.speechRate", "$.highlightColor", "$.highlightWidth", "$.speech"], "in file order: \(errs.map(\.description))")
        #expect(errs.map(\.message).contains("must be between -100 and 100 (0 is the voice's default), got 150"))
        #expect(errs.map(\.message).contains("must be a colour \"#rrggbb\", e.g. \"#ff8c00\", got \"orange\""))
        #expect(errs.map(\.message).contains("must be between 1 and 32 pixels, got 0"))
        for bad in ["#12345", "#1234567", "#gg0000", "123456"] { #expect(RGBColor(hex: bad) == nil, "\(bad)") }
    }

    @Test func theTwoVoicesAreRead() throws {
        let s = try settingsFile("""
            {"cueVoice": {"rate": 40, "volume": -20}, "speechRate": 30,
             "publicVoice": {"pitch": -15, "voice": "en-gb", "module": "espeak-ng", "address": "inet_socket:127.0.0.1:6560"}}
            """)
        // speechRate is the cue voice's rate: the later of the two in the file holds.
        #expect(s.feedback.cueVoice.rate == 30 && s.feedback.cueVoice.volume == -20 && s.feedback.speechVolume == -20)
        // A voice given after speechRate keeps the rate it does not name.
        let later = try settingsFile(#"{"speechRate": 40, "cueVoice": {"address": "unix_socket:/run/cues.sock"}}"#)
        #expect(later.feedback.cueVoice.rate == 40 && later.feedback.cueVoice.address == "unix_socket:/run/cues.sock")
        var expected = VoiceSettings()
        expected.pitch = -15
        expected.voice = "en-gb"
        expected.module = "espeak-ng"
        expected.address = "inet_socket:127.0.0.1:6560"
        #expect(s.feedback.publicVoice == expected)
        #expect(try settingsFile(#"{"publicVoice": {}}"#).feedback.publicVoice == VoiceSettings())
    }

    @Test func aBadVoiceSaysWhichMemberAndWhatIsAllowed() throws {
        let errs = settingsErrors("""
            {"cueVoice": {"rate": 150, "pitch": 1.5, "speed": 3, "voice": 7},
             "publicVoice": {"address": "/run/speech.sock"}, "speechRate": 10}
            """)
        #expect(errs.map(\.path) == ["$.cueVoice.rate", "$.cueVoice.pitch", "$.cueVoice.speed", "$.cueVoice.voice", "$.publicVoice.address"],
                "\(errs.map(\.description))")
        #expect(errs[0].message == "must be a whole number from -100 to 100 (0 is the voice's default), got 150")
        #expect(errs[1].message == "must be a whole number from -100 to 100 (0 is the voice's default), got 1.5")
        #expect(errs[2].message == "is not a member of a voice; a voice has rate, volume, pitch, voice, module, address")
        #expect(errs[3].message == "must be a text on one line, got a number")
        #expect(errs[4].message == "must be where a speech-dispatcher listens, \"unix_socket:/path\" or \"inet_socket:host:port\", got \"/run/speech.sock\"")
        #expect(settingsErrors(#"{"publicVoice": "loud"}"#).map(\.message) == [
            "must be an object of rate, volume, pitch, voice, module, address, e.g. {\"rate\": 20, \"pitch\": -10}, got a string"])
        for good in ["unix_socket:/run/a.sock", "inet_socket:localhost:6560", "inet_socket:::1:6560"] { #expect(VoiceSettings.isAddress(good), "\(good)") }
        for bad in ["unix_socket:", "unix_socket:rel.sock", "inet_socket:host", "inet_socket::6560", "inet_socket:h:0", "tcp:h:1"] {
            #expect(!VoiceSettings.isAddress(bad), "\(bad)")
        }
    }

    @Test func durationsAreExactNanoseconds() throws {
        // 0.1 s must be exactly 100 ms, not 99.999… (k × interval stays exact).
        let s = try settingsFile(#"{"autoScanInterval": 0.1}"#)
        #expect(s.autoScanInterval.nanoseconds == 100_000_000)
    }

    @Test func falseAndZeroMeanOff() throws {
        let off = try settingsFile(#"{"pauseOnFirstItem": false, "moveRepeat": false, "holdDuration": 0, "ignoreRepeat": null, "longPress": false}"#)
        #expect(off.pauseOnFirstItem == .zero)
        #expect(off.moveRepeat == nil)
        #expect(off.holdDuration == nil)
        #expect(off.ignoreRepeat == nil)
        #expect(off.longPress == nil)
        let zero = try settingsFile(#"{"pauseOnFirstItem": 0, "moveRepeat": 0, "ignoreRepeat": 0, "longPress": 0}"#)
        #expect(zero.pauseOnFirstItem == .zero)
        #expect(zero.moveRepeat == nil)
        #expect(zero.ignoreRepeat == nil)
        #expect(zero.longPress == nil)
    }

    @Test func theTimingSettingsAreRead() throws {
        let s = try settingsFile(#"{"reactionSpread": 0.15, "adaptTiming": "on", "adaptMinimum": 0.5, "adaptMaximum": 2, "adaptAnnounce": false}"#)
        #expect(s.reactionSpread == .seconds(0.15))
        #expect(s.adaptTiming == .on)
        #expect(s.adaptMinimum == .seconds(0.5))
        #expect(s.adaptMaximum == .seconds(2))
        #expect(s.adaptAnnounce == false)
        let d = ScanSettings()
        #expect(d.reactionSpread == .zero && d.adaptTiming == .off && d.adaptAnnounce)
    }

    @Test func aNegativeSpreadIsRefusedWithItsKey() throws {
        let e = try onlySettingsError(#"{"reactionSpread": -0.1}"#)
        #expect(e.code == "E04")
        #expect(e.path == "$.reactionSpread")
        #expect(e.message == "must be between 0 and 2 seconds (or false for off), got -0.1")
    }

    /// Bounds that cross are said at the minimum, with both values; either given alone
    /// against the other's default is checked too.
    @Test func anAdaptationMinimumAboveTheMaximumIsRefusedWithItsPlace() throws {
        let e = try onlySettingsError(#"{"adaptMaximum": 1, "adaptMinimum": 2}"#)
        #expect(e.code == "E04")
        #expect(e.path == "$.adaptMinimum")
        #expect(e.message == "adaptMinimum (2 s) must not be above adaptMaximum (1 s)")
        #expect((e.line, e.column) == (1, 37))
        let alone = try onlySettingsError(#"{"adaptMaximum": 0.2}"#)
        #expect(alone.path == "$.adaptMaximum")
        #expect(alone.message == "adaptMinimum (0.4 s) must not be above adaptMaximum (0.2 s)")
        #expect(try settingsFile(#"{"adaptMinimum": 1, "adaptMaximum": 1}"#).adaptMinimum == .seconds(1))
    }

    @Test func adaptTimingTakesOnOrOff() throws {
        let e = try onlySettingsError(#"{"adaptTiming": true}"#)
        #expect(e.path == "$.adaptTiming")
    }

    @Test func longPressTrueIsOneSecond() throws {
        #expect(try settingsFile(#"{"longPress": true}"#).longPress == .seconds(1.0))
    }

    @Test func trueIsNotADurationElsewhere() throws {
        let e = try onlySettingsError(#"{"holdDuration": true}"#)
        #expect(e.code == "E04")
        #expect(e.path == "$.holdDuration")
        #expect(e.message == "must be a number of seconds or false for off, got a boolean")
    }

    @Test(arguments: [("autoScanInterval", "20", "must be between 0.1 and 10 seconds, got 20"),
                      ("autoScanInterval", "0.05", "must be between 0.1 and 10 seconds, got 0.05"),
                      ("autoScanInterval", "0", "must be between 0.1 and 10 seconds, got 0"),
                      ("autoTapTime", "0", "must be between 0.2 and 5 seconds, got 0"),
                      ("holdDuration", "-1", "must be between 0.01 and 5 seconds (or false for off), got -1"),
                      ("loops", "0", "must be between 1 and 100, got 0"),
                      ("loops", "101", "must be between 1 and 100, got 101"),
                      ("glideSpeed", "0", "must be between 5 and 5000 points per second, got 0")])
    func outOfRange(_ key: String, _ value: String, _ message: String) throws {
        let e = try onlySettingsError(#"{"\#(key)": \#(value)}"#)
        #expect(e.code == "E04")
        #expect(e.path == "$.\(key)")
        #expect(e.element == nil)
        #expect(e.message == message)
        #expect((e.line, e.column) == (1, key.count + 6))
    }

    @Test func requiredDurationsCannotBeOff() throws {
        for key in ["autoScanInterval", "autoTapTime", "stepSelectDelay"] {
            let e = try onlySettingsError(#"{"\#(key)": false}"#)
            #expect(e.code == "E04")
            #expect(e.path == "$.\(key)")
            #expect(e.message.hasPrefix("cannot be off"))
        }
    }

    @Test(arguments: [("style", "3", "must be a string, got a number"),
                      ("groupItems", "\"yes\"", "must be true or false, got a string"),
                      ("autoScanInterval", "\"1s\"", "must be a number of seconds, got a string"),
                      ("glideSpeed", "\"fast\"", "must be a number, got a string"),
                      ("loops", "2.5", "must be a whole number, got 2.5"),
                      ("loops", "[2]", "must be a number, got an array")])
    func wrongType(_ key: String, _ value: String, _ message: String) throws {
        let e = try onlySettingsError(#"{"\#(key)": \#(value)}"#)
        #expect(e.code == "E04")
        #expect(e.path == "$.\(key)")
        #expect(e.message == message)
    }

    @Test func badEnumValueSuggests() throws {
        let e = try onlySettingsError(#"{"tapBehavior": "autotap"}"#)
        #expect(e.code == "E04")
        #expect(e.path == "$.tapBehavior")
        #expect(e.message == #"unknown value "autotap"; allowed: menu, autoTap, alwaysTap; did you mean "autoTap"?"#)
    }

    @Test func unknownKeySuggests() throws {
        let e = try onlySettingsError(#"{"autoscanInterval": 2}"#)
        #expect(e.code == "E03")
        #expect(e.path == "$.autoscanInterval")
        #expect(e.message == #"unknown field "autoscanInterval"; did you mean "autoScanInterval"?"#)
        #expect(e.description == #"settings.json:1:2: error E03: $.autoscanInterval: unknown field "autoscanInterval"; did you mean "autoScanInterval"?"#)
    }

    @Test func aDeviceSettingSaysWhereItBelongs() throws {
        let e = try onlySettingsError(#"{"debounce": 0.05}"#)
        #expect(e.code == "E03")
        #expect(e.path == "$.debounce")
        #expect(e.message == #"unknown field "debounce"; debounce is set per switch device, in its profile's section (see Devices/README.md)"#)
    }

    @Test func allErrorsAreReportedInOrder() throws {
        let errs = settingsErrors("""
            {
              "autoScanInterval": 20,
              "loops": 0,
              "style": "fast",
              "groupItem": true
            }
            """)
        #expect(errs.map(\.code) == ["E04", "E04", "E04", "E03"])
        #expect(errs.map(\.path) == ["$.autoScanInterval", "$.loops", "$.style", "$.groupItem"])
        #expect(errs.map(\.line) == [2, 3, 4, 5])
        #expect(errs.map(\.column) == [23, 12, 12, 3])
        #expect(errs.last?.message.contains(#"did you mean "groupItems"?"#) == true)
    }

    @Test func notAnObjectAndMalformed() throws {
        let e = try onlySettingsError("[]")
        #expect(e.code == "E04")
        #expect(e.path == "$")
        let m = try onlySettingsError(#"{"loops": 2,}"#)
        #expect(m.code == "E01")
        #expect(m.message.contains("trailing comma"))
        let d = try onlySettingsError(#"{"loops": 2, "loops": 3}"#)
        #expect(d.code == "E01")
        #expect(d.message.contains(#"duplicate key "loops""#))
    }
}

/// `validate` parses a file once to tell a layout from settings, then loads that parse: the
/// result must be exactly what loading the bytes gives, diagnostics included.
@Suite("Files parsed once")
struct ParsedOnceTests {
    @Test func layoutFromTheParseEqualsLayoutFromBytes() throws {
        let text = layout(button("a") + "," + button("b", x: 120, ", \"hint\": \"double tap to save\""))
        let parsed = try ParsedDataFile(bytes: bytes(text), file: "l.json")
        #expect(parsed.hasTopLevelKey(["schemaVersion", "root", "screen"]))
        let once = try LayoutLoader.load(parsed)
        let twice = try LayoutLoader.load(bytes: bytes(text), file: "l.json")
        #expect(once.tree.nodes.map(\.id) == ["root", "a", "b"])
        #expect(once.tree.nodes.map(\.id) == twice.tree.nodes.map(\.id))
        #expect(once.warnings.map(\.description) == twice.warnings.map(\.description))
        #expect(!once.warnings.isEmpty)
    }

    @Test func settingsFromTheParseEqualSettingsFromBytes() throws {
        let text = #"{"autoScanInterval": 0.5, "loops": 3}"#
        let parsed = try ParsedDataFile(bytes: bytes(text), file: "s.json")
        #expect(!parsed.hasTopLevelKey(["schemaVersion", "root", "screen"]))
        let s = try SettingsLoader.load(parsed)
        #expect(s.autoScanInterval == .milliseconds(500))
        #expect(s.loops == 3)
    }

    @Test func errorsFromTheParseEqualErrorsFromBytes() throws {
        let bad = #"{"autoScanInterval": 20, "stlye": "manual"}"#
        let parsed = try ParsedDataFile(bytes: bytes(bad), file: "s.json")
        let once = try #require(throws: DataFileError.self) { try SettingsLoader.load(parsed) }
        let twice = try #require(throws: DataFileError.self) { try SettingsLoader.load(bytes: bytes(bad), file: "s.json") }
        #expect(once.description == twice.description)
        #expect(once.diagnostics.count == 2)
        // A syntax error is found by the parse itself, with its place.
        let broken = try #require(throws: DataFileError.self) { try ParsedDataFile(bytes: bytes("{\"loops\": 3,}"), file: "b.json") }
        #expect(broken.description.contains("b.json:1:"))
        #expect(broken.description.contains("malformed JSON"))
    }

    @Test func pauseAfterSelectionAndResumeAt() throws {
        func read(_ json: String) throws(DataFileError) -> ScanSettings { try SettingsLoader.load(bytes: Array(json.utf8), file: "s.json") }
        #expect(try read(#"{"pauseAfterSelection": 2.5}"#).pauseAfterSelection == .seconds(.seconds(2.5)))
        #expect(try read(#"{"pauseAfterSelection": "untilPress"}"#).pauseAfterSelection == .untilPress)
        #expect(try read(#"{"pauseAfterSelection": false}"#).pauseAfterSelection == .off)
        #expect(try read(#"{"resumeAt": "first"}"#).resumeAt == .first)
        #expect(try read("{}").resumeAt == .same && read("{}").pauseAfterSelection == .off)
        for bad in [#"{"pauseAfterSelection": 61}"#, #"{"pauseAfterSelection": "always"}"#, #"{"pauseAfterSelection": true}"#] {
            do throws(DataFileError) {
                _ = try read(bad)
                Issue.record("\(bad) accepted")
            } catch {
                #expect(error.errors.first?.path == "$.pauseAfterSelection", "\(error)")
                #expect(error.errors.first?.message.contains("untilPress") == true)
            }
        }
    }
}

import Testing

/// The scenario format: what the parser refuses, and how a menu with an ellipsis matches.
@Suite("Scenario format")
struct ScenarioFormatTests {
    static let valid = """
        layout: switch-control.uikit.json
        until: 2
        events:
        0.2 menu
        expect:
        0 scanStarted
        """

    /// The parser's message for `text`, which must be refused.
    func refusal(_ text: String) -> String {
        do {
            _ = try Scenario.parse(text, name: "bad.scan")
            Issue.record("accepted:\n\(text)")
            return ""
        } catch {
            return error.description
        }
    }

    @Test func aValidScenarioParses() throws {
        let s = try Scenario.parse(Self.valid, name: "good.scan")
        #expect(s.layout == "switch-control.uikit.json")
        #expect(s.until == 2)
        #expect(s.events.count == 2, "a press is a down and an up")
        #expect(s.sections.count == 1 && s.sections[0].before == nil)
    }

    @Test(arguments: [
        ("layuot: switch-control.uikit.json", "bad.scan:1: unknown header \"layuot\"; known: layout, keyboard"),
        ("until: soon", "bad.scan:1: until is \"soon\"; give the seconds to run"),
        ("until: -1", "bad.scan:1: until is \"-1\""),
        ("debounce: 3", "bad.scan:1: debounce is \"3\"; give seconds from 0 to 1"),
        ("typing: yes", "bad.scan:1: typing is \"yes\"; write true or false"),
        ("windows: Editor (active, huge)", "bad.scan:1: window state \"huge\" is not one of active, maximized, minimized"),
        ("windows: A (active); B (active)", "bad.scan:1: more than one window is active"),
        ("settings: {\"style\": \"sideways\"}", "bad.scan:1: settings:"),
        ("just words", "bad.scan:1: \"just words\" is not a header"),
        ("until: 2", "bad.scan:3: \"until\" is given twice"),
    ])
    func aBadHeaderIsRefusedWithItsLine(_ header: String, _ message: String) {
        let text = header + "\n" + Self.valid
        #expect(refusal(text).contains(message), "\(refusal(text))")
    }

    @Test func aScenarioWithoutALayoutOrExpectationsIsRefused() {
        #expect(refusal("until: 2\nexpect:\n0 scanStarted").contains("no layout; give \"layout: FILE.json\", \"keyboard: true\" or \"messages: FILE\""))
        #expect(refusal("layout: a.json\nevents:\n0.2 menu").contains("no expectations"))
        #expect(refusal("layout: a.json\nexpect:\nevents:\n0.2 menu\nexpect:\n0.3 scanStarted").contains("bad.scan:2: this expect: section is empty"))
    }

    @Test(arguments: [
        ("0 scanStartd", "bad.scan:7: \"scanStartd\" is not an effect"),
        ("soon scanStarted", "bad.scan:7: \"soon\" is not a time"),
        ("0.50 scanStarted", "bad.scan:7: time \"0.50\" would never match; effects print it as 0.5"),
        ("0.2 menuOpen - tap,...,exit", "write the ellipsis as … (one character)"),
        ("0.2 menuOpen - tap,…,…,exit", "a menu may have one ellipsis, as an item of its own"),
        ("0.2 menuOpen - tap…,exit", "a menu may have one ellipsis, as an item of its own"),
    ])
    func aBadExpectationIsRefusedWithItsLine(_ line: String, _ message: String) {
        let text = Self.valid + "\n" + line
        #expect(refusal(text).contains(message), "\(refusal(text))")
    }

    @Test func anExpectationMustComeBeforeTheEventThatEndsItsSection() {
        let text = """
            layout: switch-control.uikit.json
            expect:
            0 scanStarted
            1.5 highlight element btn1
            events:
            1.3 select
            expect:
            1.3 highlight element btn1
            1.2 highlight element btn2
            """
        let message = refusal(text)
        #expect(message.contains("bad.scan:4: expected at 1.5, not before the event at 1.3 that ends this section; move it below that event"))
        #expect(message.contains("bad.scan:9: expected at 1.2, before the expectation above it (1.3)"))
    }

    @Test func aBadEventNamesTheFilesLine() {
        let message = refusal(Self.valid + "\nevents:\n0.5 selcet")
        #expect(message.contains("bad.scan:8: \"selcet\" is not a switch action"), "\(message)")
    }

    @Test func sectionsEndAtTheFirstEventAfterThem() throws {
        let s = try Scenario.parse("""
            layout: switch-control.uikit.json
            until: 3
            expect:
            0 scanStarted
            events:
            0.5 next
            1 next
            expect:
            0.5 highlight element btn1
            """, name: "timing.scan")
        #expect(s.sections.map(\.before) == [0.5, nil])
        #expect(s.sections.map { $0.lines.map(\.line) } == [[4], [9]])
    }

    // MARK: - ellipsis

    @Test(arguments: [
        ("1 menuOpen btn1 tap,…,exit", "1 menuOpen btn1 tap,pointMode,screenMenu,exit", true),
        ("1 menuOpen btn1 tap,…,exit", "1 menuOpen btn1 tap,exit", true),
        ("1 menuOpen btn1 tap,pointMode,…,exit", "1 menuOpen btn1 tap,pointMode,screenMenu,exit", true),
        ("1 menuOpen btn1 …,exit", "1 menuOpen btn1 tap,exit", true),
        ("1 menuOpen btn1 tap,…", "1 menuOpen btn1 tap,exit", true),
        ("1 menuOpen btn1 …", "1 menuOpen btn1 tap,exit", true),
        ("1 menuOpen btn1 tap,…,exit", "1 menuOpen btn1 pointMode,screenMenu,exit", false),
        ("1 menuOpen btn1 tap,…,exit", "1 menuOpen btn1 tap,pointMode,screenMenu", false),
        ("1 menuOpen btn1 tap,…,exit", "1 menuOpen btn2 tap,pointMode,exit", false),
        ("1 menuOpen btn1 tap,…,exit", "2 menuOpen btn1 tap,pointMode,exit", false),
        ("1 menuOpen btn1 tap,…,tap", "1 menuOpen btn1 tap", false),
        ("1 menuOpen btn1 tap,exit", "1 menuOpen btn1 tap,pointMode,exit", false),
        ("1 announce Loading…", "1 announce Loading…", true),
        ("1 announce Loading…", "1 announce Loading more", false),
    ])
    func aMenuWithAnEllipsisMatchesItsFirstAndLastItems(_ expected: String, _ actual: String, _ match: Bool) {
        #expect(Scenario.matches(expected, actual) == match)
    }

    @Test func aWrongFirstOrLastItemFailsTheScenario() throws {
        let good = """
            layout: switch-control.uikit.json
            until: 0.3
            expect:
            0 scanStarted
            0 highlight group testWrap
            events:
            0.2 menu
            expect:
            0.2 menuOpen - pointMode,…,exit
            0.2 highlight menuEntry pointMode
            """
        let ran = try Scenario.parse(good, name: "menu.scan").run()
        #expect(ran.count == 2)
        #expect(zip(ran[1], ["0.2 menuOpen - pointMode,…,exit", "0.2 highlight menuEntry pointMode"]).allSatisfy { Scenario.matches($1, $0) })
        for wrong in ["0.2 menuOpen - settings,…,exit", "0.2 menuOpen - pointMode,…,done"] {
            #expect(!Scenario.matches(wrong, ran[1][0]), "\(wrong) against \(ran[1][0])")
        }
    }
}

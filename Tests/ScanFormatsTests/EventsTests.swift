import ScanCore
import ScanFormats
import Testing

/// Simulation events files: `SECONDS ACTION [down|up]`, `#` comments, presses
/// expanded to down + up 50 ms later, and errors with line numbers.
@Suite("Events files")
struct EventsTests {
    func events(_ text: String) throws -> [SwitchEvent] {
        Array(try EventsLoader.load(text: text, file: "events.txt"))
    }

    /// Compact rendering: "1.000 select down".
    func render(_ list: some Sequence<SwitchEvent>) -> [String] {
        list.map { "\($0.timestamp) \($0.action.rawValue) \($0.isDown ? "down" : "up")" }
    }

    func problems(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [(line: Int, message: String)] {
        do {
            let list = try EventsLoader.load(text: text, file: "events.txt")
            Issue.record("expected an error, got \(render(list))", sourceLocation: sourceLocation)
            return []
        } catch {
            #expect(error.file == "events.txt", sourceLocation: sourceLocation)
            return error.problems
        }
    }

    func onlyProblem(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> (line: Int, message: String) {
        let p = problems(text, sourceLocation: sourceLocation)
        #expect(p.count == 1, "\(p)", sourceLocation: sourceLocation)
        return try #require(p.first, sourceLocation: sourceLocation)
    }

    @Test func pressIsDownThenUpFiftyMillisecondsLater() throws {
        let list = try events("1.0 select")
        #expect(render(list) == ["1.000 select down", "1.050 select up"])
        #expect(list[1].timestamp - list[0].timestamp == EventsLoader.pressLength)
        #expect(EventsLoader.pressLength == .milliseconds(50))
        #expect(list[0].timestamp == ScanInstant(nanoseconds: 1_000_000_000))
    }

    @Test func pressReleasesMergeInTimeOrderWithLaterLines() throws {
        let list = try events("1.0 select\n1.02 next\n1.05 menu down\n1.2 menu up")
        #expect(render(list) == ["1.000 select down", "1.020 next down", "1.050 select up",
                                 "1.050 menu down", "1.070 next up", "1.200 menu up"])
    }

    @Test func explicitDownAndUp() throws {
        let list = try events("0.5 select down\n2.25 select up")
        #expect(render(list) == ["0.500 select down", "2.250 select up"])
        #expect(list.allSatisfy { $0.source == 0 })
    }

    @Test func sameTimeKeepsFileOrder() throws {
        let list = try events("1 next down\n1 select down\n1 select up\n1 next up")
        #expect(render(list) == ["1.000 next down", "1.000 select down", "1.000 select up", "1.000 next up"])
    }

    @Test func commentsAndBlankLines() throws {
        let text = """
            # a scenario

              1 select      # first press
            \t
            2 next down # hold next
            # 2.5 select
            3 next up\r
            """
        let list = try events(text)
        #expect(render(list) == ["1.000 select down", "1.050 select up", "2.000 next down", "3.000 next up"])
        #expect(try events("").isEmpty)
        #expect(try events("# nothing\n\n").isEmpty)
    }

    @Test func everyActionIsAccepted() throws {
        let text = SwitchAction.allCases.enumerated().map { "\($0.offset) \($0.element.rawValue)" }.joined(separator: "\n")
        let list = try events(text)
        #expect(list.count == 2 * SwitchAction.allCases.count)
        #expect(list.filter(\.isDown).map(\.action) == SwitchAction.allCases)
    }

    @Test func unknownActionSuggests() throws {
        let p = try onlyProblem("# header\n1 selct")
        #expect(p.line == 2)
        #expect(p.message == #""selct" is not a switch action; allowed: select, next, previous, menu, exit, toggleMode, pause; did you mean "select"?"#)
    }

    @Test(arguments: ["abc", "-1", "1,5", "inf", "nan", "1e9", "0x10", "1e1", "1.2.3", "+1", "."])
    func badTime(_ time: String) throws {
        let p = try onlyProblem("\n\(time) select")
        #expect(p.line == 2)
        #expect(p.message == #""\#(time)" is not a time; give seconds from 0 to 86400 from the start, e.g. 1.25"#)
    }

    @Test func timeGoingBackwards() throws {
        let p = try onlyProblem("2 select\n1.5 next")
        #expect(p.line == 2)
        #expect(p.message == "time 1.5 is before the previous event's (2); list events in time order")
    }

    @Test func downTwice() throws {
        let p = try onlyProblem("1 select down\n2 select down")
        #expect(p.line == 2)
        #expect(p.message.hasPrefix("select is already down (since line 1)"))
    }

    @Test func pressWhileHeld() throws {
        let p = try onlyProblem("1 next down\n\n2 next")
        #expect(p.line == 3)
        #expect(p.message.hasPrefix("next is held down (since line 1)"))
    }

    @Test func upWithoutDown() throws {
        let p = try onlyProblem("1 select down\n2 select up\n3 select up")
        #expect(p.line == 3)
        #expect(p.message == "select goes up without going down first")
    }

    @Test(arguments: ["1", "1 select down now", "select"])
    func wrongWordCount(_ line: String) throws {
        let p = try onlyProblem("0 next\n\(line)")
        #expect(p.line == 2)
        #expect(p.message.hasPrefix(#"expected "SECONDS ACTION" or "SECONDS ACTION down|up""#))
    }

    @Test func badDirectionWord() throws {
        let p = try onlyProblem("1 select press")
        #expect(p.line == 1)
        #expect(p.message == #""press" must be "down" or "up" (or nothing, for a press)"#)
    }

    @Test func allProblemsAreReportedWithLineNumbers() throws {
        let text = "1 selct\n2 select\nx next\n1 next\n3 menu up\n"
        let p = problems(text)
        #expect(p.map(\.line) == [1, 3, 4, 5])
        do {
            _ = try EventsLoader.load(text: text, file: "events.txt")
        } catch {
            let lines = error.description.split(separator: "\n")
            #expect(lines.first?.hasPrefix("events.txt:1: \"selct\" is not a switch action") == true)
            #expect(lines.last == "events.txt: 4 errors; nothing was simulated.")
        }
    }

    /// The loader's own rule: "a switch cannot go down twice without going up". A press is a
    /// down and an up 50 ms later, so a second press of the same switch (or an explicit
    /// down) inside those 50 ms must be rejected, or at least yield a consistent stream.
    @Test(arguments: ["1.0 select\n1.02 select", "1.0 select\n1.02 select down\n2 select up"])
    func overlappingPressOfOneSwitch(_ text: String) throws {
        do {
            let list = try EventsLoader.load(text: text, file: "events.txt")
            Issue.record("expected an error, got \(render(list))")
        } catch {
            #expect(error.description.hasPrefix("events.txt:2: select is still down from the press on line 1"), "\(error)")
        }
    }

    @Test func pressesOfDifferentSwitchesMayOverlap() throws {
        let list = try events("1.0 select\n1.01 next")
        #expect(render(list) == ["1.000 select down", "1.010 next down", "1.050 select up", "1.060 next up"])
    }

    /// Releases wait for the first later line whose time reaches them, in their own order.
    @Test func releasesAtTheSameInstantAsLaterLinesComeFirst() throws {
        let list = try events("1.0 select\n1.0 next\n1.05 menu\n1.05 exit down\n1.1 exit up")
        #expect(render(list) == ["1.000 select down", "1.000 next down", "1.050 select up", "1.050 next up",
                                 "1.050 menu down", "1.050 exit down", "1.100 menu up", "1.100 exit up"])
    }

    /// Events are held in 16 bytes each between their check and their replay (a
    /// SwitchEvent takes 40, with its source and debounce): millions of presses from a
    /// 64 MiB file take tens of megabytes, not gigabytes.
    @Test func anEventIsHeldInSixteenBytes() throws {
        #expect(SwitchEventList.bytesPerEvent <= 16)
        let list = try EventsLoader.load(text: "0.5 pause down\n2.25 pause up\n3 toggleMode", file: "events.txt")
        #expect(render(list) == ["0.500 pause down", "2.250 pause up", "3.000 toggleMode down", "3.050 toggleMode up"])
        #expect(list.allSatisfy { $0.source == 0 && $0.debounce == nil })
    }
}

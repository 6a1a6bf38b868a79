import Foundation
import Testing

/// A one-switch user's web search in Firefox, offline (Fixtures/web/search.html and
/// results.html): a query typed with the scanning keyboard into a search field inside its
/// label, Enter submits it and the keyboard closes as the results page replaces the form,
/// and Gestures > Scroll down pressed twice on a result scrolls the long page both times
/// (the second at the first's place, the result having scrolled away with the page).
@Suite("Live typing: a web search", .serialized, .timeLimit(.minutes(4)))
struct WebSearchTaskTests {
    @Test func aQueryIsTypedSubmittedAndItsResultsScrolledAgainAndAgain() throws {
        let browser = WebTests.Browser.firefox
        try browser.tool.require()
        let session = try DesktopSession()
        defer { session.stop() }
        // Firefox publishes its windows' contents only with the bus's IsEnabled on, which any
        // switchscan command turns on: before it starts.
        _ = try session.runSwitchscan(["desktop"])
        let page = DesktopSession.fixturesDirectory.appendingPathComponent("web/search.html")
        let app = try WebTests.launch(browser, in: session, page: page, title: "Search")
        _ = try session.waitForApplication(named: browser.applicationName, timeout: 40)
        _ = try WebTests.pageSnapshot(session, browser, labels: ["Search the site"])
        TaskTests.waitUntilQuiet(session, command: "firefox", timeout: 20)
        let settings = session.directory.appendingPathComponent("search-settings.json")
        try #"{"groupItems": false}"#.write(to: settings, atomically: true, encoding: .utf8)
        let scan = try ScanDriver(session, ["--app", browser.applicationName, "--settings", settings.path])
        defer { scan.stop() }

        // The field in its label opens the keyboard; a search field: no capital by itself.
        try scan.go(to: "Search the site", limit: 60)
        let opening = scan.seen.count
        try scan.select(expecting: "the keyboard") { $0.effect == "keyboard" }
        let keys = LiveTypingTests.Keys(scan: scan)
        try keys.waitForTheLanguagesWords(since: opening)
        try keys.press("key_h", expecting: "h typed") { $0.effect == "typeText" && $0.text == "h" }
        try keys.press("key_i", expecting: "i typed") { $0.effect == "typeText" && $0.text == "i" }
        let submitted = scan.seen.count
        try keys.press("enter", expecting: "Enter") { $0.effect == "key" && $0.fields["key"] as? String == "enter" }

        // The results replace the form: the keyboard closes by itself, and the page is scanned.
        let heading = try session.findAccessible(app: browser.applicationName, role: "heading", name: "Results for hi", timeout: 20)
        try scan.find(since: submitted, "the keyboard closed with its field gone", timeout: 15) { $0.effect == "keyboardClose" }
        try scan.go(to: "First result", limit: 60)

        // Scroll down, twice, from the result's Gestures page: the page moves each time.
        func headingTop() throws -> Int {
            try #require(session.findAccessible(app: browser.applicationName, role: "heading", name: "Results for hi").y)
        }
        let top0 = try #require(heading.y)
        try GestureTests.gestures(scan, "Scroll down")
        var made: [[Double]] = []
        var tops = [top0]
        for press in 1...2 {
            let gesture = try scan.select(expecting: "scroll \(press)") { $0.effect == "gesture" && $0.fields["gesture"] as? String == "scrollDown" }
            made.append((gesture.fields["point"] as? [NSNumber] ?? []).map(\.doubleValue))
            // The page has moved once the heading's place stops changing.
            var last = try headingTop(), same = 0
            for _ in 0..<40 where same < 3 {
                scan.settle(0.15)
                let now = try headingTop()
                same = now == last && now != tops.last! ? same + 1 : 0
                last = now
            }
            tops.append(last)
            #expect(last < tops[press - 1] - 100, "scroll \(press) did not move the page: the heading's top went \(tops)")
        }
        #expect(made.count == 2 && made[0] == made[1], "both scrolls at the first's place: \(made)")
        #expect(made.first.map { $0.count == 2 && $0[1] >= 0 && $0[1] < Double(session.screenHeight) } == true, "\(made)")
        _ = app
    }
}

import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// A web page in Firefox ESR and in Chromium, offline (Fixtures/web/page.html): every link,
/// field and button is an item of its own wherever it stands (in a paragraph, a label, a list
/// item, a table cell), a button is a button, headings and landmarks make groups, a link
/// and a group below the viewport are scrolled into view when selected or entered (not when
/// the highlight passes them), and SwitchScan
/// itself turns the bus's IsEnabled on, since the session's bus starts with it off.
@Suite("Web pages", .serialized, .timeLimit(.minutes(4)))
struct WebTests {
    enum Browser: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case firefox, chromium
        var testDescription: String { rawValue }
        var tool: DesktopTool {
            switch self {
            case .firefox: DesktopTool(path: "/usr/bin/firefox-esr", package: "firefox-esr")
            case .chromium: DesktopTool(path: "/usr/bin/chromium", package: "chromium")
            }
        }
        /// Its name on the AT-SPI desktop.
        var applicationName: String { self == .firefox ? "Firefox" : "Chromium" }
    }

    static let page = DesktopSession.fixturesDirectory.appendingPathComponent("web/page.html")

    /// The bus launcher's IsEnabled, read with dbus-send (not through the code under test).
    static func isEnabled(_ session: DesktopSession) throws -> Bool {
        let r = try session.runX(.dbusSend, ["--session", "--dest=org.a11y.Bus", "--print-reply", "/org/a11y/bus",
                                             "org.freedesktop.DBus.Properties.Get", "string:org.a11y.Status", "string:IsEnabled"])
        guard r.status == 0 else { throw DesktopError("Reading IsEnabled failed.\n\(r)") }
        return r.stdout.contains("boolean true")
    }

    /// Starts the browser on a fixture page (`page` by default, titled `title`), offline,
    /// with nothing shown on first start.
    static func launch(_ browser: Browser, in session: DesktopSession, page: URL = page, title: String = "Web fixture") throws -> FixtureProcess {
        let profile = session.directory.appendingPathComponent("\(browser.rawValue)-profile")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        let url = page.absoluteURL.absoluteString
        switch browser {
        case .firefox:
            let prefs = [
                "browser.shell.checkDefaultBrowser": "false", "browser.aboutwelcome.enabled": "false",
                "browser.startup.homepage_override.mstone": "\"ignore\"", "datareporting.policy.dataSubmissionEnabled": "false",
                "toolkit.telemetry.reportingpolicy.firstRun": "false", "browser.sessionstore.resume_from_crash": "false",
                "app.update.disabledForTesting": "true", "network.captive-portal-service.enabled": "false",
                "browser.newtabpage.enabled": "false", "extensions.update.enabled": "false",
            ]
            try prefs.map { "user_pref(\"\($0.key)\", \($0.value));" }.joined(separator: "\n")
                .write(to: profile.appendingPathComponent("user.js"), atomically: true, encoding: .utf8)
            return try session.launchApplication(browser.tool.path, ["--no-remote", "--profile", profile.path, url],
                                                 applicationName: browser.applicationName, title: "\(title) — Mozilla Firefox")
        case .chromium:
            // Debian's Chromium publishes its windows' contents on the bus only with this flag.
            var args = ["--user-data-dir=\(profile.path)", "--no-first-run", "--no-default-browser-check", "--test-type",
                        "--password-store=basic", "--disable-gpu", "--force-renderer-accessibility", url]
            if getuid() == 0 { args.insert("--no-sandbox", at: 0) }
            return try session.launchApplication(browser.tool.path, args, applicationName: browser.applicationName,
                                                 title: "\(title) - Chromium")
        }
    }

    /// A node of a snapshot's layout.
    struct Node {
        var id: String
        var separate: Bool
        var label: String
        var traits: [String]
        var frame: [Double]?
        var textEntry: Bool
        var children: [Node]

        init(_ json: [String: Any]) {
            id = json["id"] as? String ?? ""
            separate = json["navigationStyle"] as? String == "separate"
            label = json["label"] as? String ?? ""
            traits = json["traits"] as? [String] ?? []
            frame = (json["frame"] as? [String: Any]).map { f in ["x", "y", "width", "height"].map { (f[$0] as? NSNumber)?.doubleValue ?? 0 } }
            textEntry = json["textEntry"] != nil
            children = (json["children"] as? [[String: Any]] ?? []).map(Node.init)
        }

        var all: [Node] { [self] + children.flatMap(\.all) }
        func first(_ label: String, where p: (Node) -> Bool = { _ in true }) -> Node? { all.first { $0.label == label && p($0) } }

        /// The ids of the groups from here down to the one called `label` (see-through
        /// containers left out), that one last.
        func groupPath(to label: String) -> [String]? {
            if label == self.label && !children.isEmpty { return [id] }
            for c in children {
                if let rest = c.groupPath(to: label) { return (separate ? [] : [id]) + rest }
            }
            return nil
        }
    }

    /// The labels of the page's items and groups.
    static let pageLabels: Set<String> = ["Site", "Home", "News", "First link", "Second link", "Form", "Name", "I agree", "Press me",
                                          "Item link", "Cell link", "Cell button", "Far away", "Far link", "Far button"]

    /// Snapshots the browser's window until the whole page is in it, or fails.
    static func pageSnapshot(_ session: DesktopSession, _ browser: Browser, labels: Set<String> = pageLabels,
                             until done: (Node) -> Bool = { _ in true }) throws -> Node {
        let file = session.directory.appendingPathComponent("\(browser.rawValue).json")
        var last = "", found: Node?
        // A browser publishes a page's nodes as it lays them out: wait for them all.
        _ = try TestTime.poll(timeout: 40, every: 0.3) {
            let r = try session.runSwitchscan(["snapshot", "--app", browser.applicationName, "-o", file.path], timeout: 30)
            last = "\(r)"
            guard r.status == 0, let layout = try? JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any],
                  let root = layout["root"] as? [String: Any] else { return false }
            let tree = Node(root)
            if labels.isSubset(of: Set(tree.all.map(\.label))) && done(tree) { found = tree; return true }
            last = tree.all.map(\.label).joined(separator: " | ")
            return false
        }
        if let found { return found }
        throw DesktopError("The page never showed in \(browser.applicationName)'s snapshot. Last: \(last)")
    }

    /// Settings with every element an item of its own, the default tap behaviour (a
    /// select opens the element's menu).
    static func ungrouped(_ session: DesktopSession) throws -> URL {
        let url = session.directory.appendingPathComponent("web-ungrouped.json")
        try #"{"groupItems": false}"#.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test(arguments: Browser.allCases)
    func theWholePageIsScanned(_ browser: Browser) throws {
        try browser.tool.require()
        let session = try DesktopSession()
        defer { session.stop() }

        // The session's bus starts with accessibility off; any switchscan command turns it on.
        #expect(try !Self.isEnabled(session), "the test bus must start with IsEnabled off")
        let first = try session.runSwitchscan(["desktop"])
        #expect(try Self.isEnabled(session), "switchscan did not turn IsEnabled on")
        #expect(first.stderr.contains("SwitchScan turned it on"), "\(first)")
        let again = try session.runSwitchscan(["desktop"])
        #expect(!again.stderr.contains("turned it on"), "\(again)")

        let app = try Self.launch(browser, in: session)
        _ = try session.waitForApplication(named: browser.applicationName, timeout: 40)
        let tree = try Self.pageSnapshot(session, browser)
        let screenHeight = Double(session.screenHeight)

        // Links in a paragraph, a list item and a table cell, each an item of its own.
        for link in ["First link", "Second link", "Item link", "Cell link", "Far link", "Home", "News"] {
            let n = tree.first(link, where: { $0.children.isEmpty })
            #expect(n?.traits.contains("link") == true, "\(link): \(String(describing: n?.traits))")
        }
        // Buttons are buttons, not links; the field and the check box in labels are items.
        for button in ["Press me", "Cell button"] {
            let n = tree.first(button, where: { $0.children.isEmpty })
            #expect(n?.traits.contains("button") == true && n?.traits.contains("link") == false, "\(button): \(String(describing: n?.traits))")
        }
        #expect(tree.first("Name", where: { $0.textEntry }) != nil, "the field in its label")
        #expect(tree.first("I agree", where: { $0.traits.contains("button") }) != nil, "the check box in its label")
        // Headings and landmarks make groups.
        let form = try #require(tree.first("Form", where: { !$0.children.isEmpty }), "no group for the heading Form")
        #expect(form.first("Press me") != nil && form.first("First link") == nil)
        let site = try #require(tree.first("Site", where: { !$0.children.isEmpty }), "no group for the navigation landmark")
        #expect(site.first("Home") != nil && site.first("News") != nil && site.first("Press me") == nil)
        // A menu that is not up (nothing in it shows, nothing is drawn) is no item.
        #expect(!tree.all.contains { $0.label == "menu" }, "\(tree.all.map(\.label))")
        // The far link is below the viewport.
        let far = try #require(tree.first("Far link")?.frame)
        #expect(far[1] > screenHeight, "\(far)")

        // A button pressed through the scan: the page's script renames it and the document.
        let settings = session.directory.appendingPathComponent("web-settings.json")
        try #"{"groupItems": false, "tapBehavior": "alwaysTap"}"#.write(to: settings, atomically: true, encoding: .utf8)
        let scan = try ScanDriver(session, ["--app", browser.applicationName, "--settings", settings.path])
        defer { scan.stop() }
        try scan.go(to: "Press me", limit: 120)
        #expect(scan.current?.frame.map { $0[1] < screenHeight } == true)
        let mark = scan.seen.count
        try scan.process.send(" ")
        try scan.find(since: mark, "the tap") { $0.effect == "activate" }
        let pressed = try session.findAccessible(app: browser.applicationName, role: "push button", name: "Pressed", timeout: 10)
        #expect(pressed.name == "Pressed")
        scan.stop()

        // The far link: highlighted below the viewport, the page stays where it is (a long
        // page can be read while the scan passes); selected, it is scrolled into view and
        // its menu drawn where it now is.
        let reading = try ScanDriver(session, ["--app", browser.applicationName, "--settings", Self.ungrouped(session).path])
        defer { reading.stop() }
        try reading.go(to: "Far link", limit: 120)
        reading.settle(1.5)
        #expect(try !session.findAccessible(app: browser.applicationName, role: "link", name: "Far link").states.contains("showing"),
                "highlighting the far link scrolled the page to it")
        #expect(reading.current?.frame.map { $0[1] > screenHeight } == true, "\(String(describing: reading.current))")
        try reading.select(expecting: "the far link's menu") { $0.effect == "menuOpen" }
        var link = try session.findAccessible(app: browser.applicationName, role: "link", name: "Far link")
        _ = try TestTime.poll(timeout: 10, every: 0.2) {
            link = try session.findAccessible(app: browser.applicationName, role: "link", name: "Far link")
            return link.states.contains("showing")
        }
        #expect(link.states.contains("showing"), "selected, the far link was not scrolled into view: \(link)")
        reading.stop()

        // A group wholly below the viewport: highlighted, the page stays; entered, it is
        // scrolled to the top of the view. The page is scrolled back to its top first: its
        // Home link goes to "#top".
        try session.doAction(app: browser.applicationName, role: "link", name: "Home", action: "jump")
        let top = try Self.pageSnapshot(session, browser, labels: Self.pageLabels.subtracting(["Press me"])) { tree in
            (tree.first("Far away", where: { !$0.children.isEmpty })?.frame?[1] ?? 0) > screenHeight
        }
        let path = try #require(top.groupPath(to: "Far away"), "no group for the heading Far away")
        let farBand = try #require(top.first("Far away", where: { !$0.children.isEmpty })?.frame)
        #expect(farBand[1] > screenHeight, "\(farBand)")
        let grouped = try ScanDriver(session, ["--app", browser.applicationName])
        defer { grouped.stop() }
        for id in path.dropFirst().dropLast() {
            try grouped.go(toItem: id, limit: 60)
            try grouped.select(expecting: "entering the group \(id)") { $0.effect == "enterGroup" }
        }
        try grouped.go(toItem: path.last!, limit: 60)
        grouped.settle(1.5)
        #expect(grouped.current?.kind == "group" && grouped.current?.frame.map { $0[1] > screenHeight } == true,
                "highlighted, the group stays below the view: \(String(describing: grouped.current))")
        let entered = grouped.seen.count
        try grouped.select(expecting: "entering the Far away group") { $0.effect == "enterGroup" && $0.fields["group"] as? String == path.last! }
        let inside = try grouped.find(since: entered, "the Far away group's first item in view", timeout: 10) {
            $0.effect == "highlight" && $0.kind == "element" && ($0.frame.map { $0[1] >= 0 && $0[1] + $0[3] <= screenHeight } ?? false)
        }
        #expect(inside.label == "Far link" || inside.label == "Far button", "\(inside)")
        _ = app
    }
}

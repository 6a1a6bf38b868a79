import ScanSession
import Testing

/// The choice of output, injection, overlay and Windows page from the configuration and
/// the environment: every case without a display.
@Suite struct SessionPlanTests {
    func config(_ target: RunConfiguration.Target, _ env: [String: String]) -> RunConfiguration {
        RunConfiguration(target: target, wordList: "Words/en.words", environment: env)
    }

    static let x11 = ["DISPLAY": ":0", "XDG_SESSION_TYPE": "x11"]
    static let wayland = ["DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"]
    static let waylandByType = ["DISPLAY": ":1", "XDG_SESSION_TYPE": "wayland"]
    static let console: [String: String] = [:]
    static let emptyDisplay = ["DISPLAY": ""]

    @Test func theDesktopOnX11ClicksThroughXTestAndOffersTheOverlayAndWindows() {
        let plan = SessionPlan(config(.desktop(app: nil), Self.x11), outputIsTerminal: true)
        #expect(plan.injection == .xtest)
        #expect(!plan.injectionAsked)
        #expect(plan.overlay)
        #expect(plan.windowsPage)
        #expect(plan.output == .terminal)
        #expect(plan.screenFromDisplay)
    }

    /// XWayland's DISPLAY would take XTest clicks that reach X clients only.
    @Test(arguments: [wayland, waylandByType])
    func theDesktopUnderWaylandUsesUinputEvenWithXWayland(_ env: [String: String]) {
        let plan = SessionPlan(config(.desktop(app: "gedit"), env), outputIsTerminal: false)
        #expect(plan.injection == .uinput)
        #expect(plan.output == .json)
    }

    @Test(arguments: [console, emptyDisplay])
    func theConsoleHasUinputAndNoOverlayNorWindowsPage(_ env: [String: String]) {
        let plan = SessionPlan(config(.desktop(app: nil), env), outputIsTerminal: true)
        #expect(plan.injection == .uinput)
        #expect(!plan.overlay)
        #expect(!plan.windowsPage)
        #expect(!plan.screenFromDisplay)
    }

    @Test func aLayoutRunInjectsNothingAndHasNoWindowsPage() {
        let plan = SessionPlan(config(.layout("Layouts/mail-inbox.json"), Self.x11), outputIsTerminal: true)
        #expect(plan.injection == RunConfiguration.Injection.none)
        #expect(plan.overlay)
        #expect(!plan.windowsPage)
    }

    @Test func whatIsAskedForWinsAndIsMarkedAsAsked() {
        var c = config(.layout("Layouts/mail-inbox.json"), Self.wayland)
        c.injection = .xtest
        c.output = .terminal
        c.overlay = false
        c.screenSize = (800, 600)
        let plan = SessionPlan(c, outputIsTerminal: false)
        #expect(plan.injection == .xtest)
        #expect(plan.injectionAsked)
        #expect(plan.output == .terminal)
        #expect(!plan.overlay)
        #expect(!plan.screenFromDisplay)
    }
}

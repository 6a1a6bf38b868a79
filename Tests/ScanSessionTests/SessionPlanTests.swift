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
        #expect(plan.windowsPage == .x11)
        #expect(plan.output == .terminal)
        #expect(plan.screenFromDisplay)
    }

    /// XWayland's DISPLAY would take XTest clicks that reach X clients only: the compositor's
    /// own pointer (wlroots' virtual pointer, KWin's fake input, Mutter's remote desktop, or
    /// one that may be: an unnamed compositor).
    @Test(arguments: [wayland, waylandByType])
    func theDesktopUnderWaylandNeverUsesXTest(_ env: [String: String]) {
        let plan = SessionPlan(config(.desktop(app: "gedit"), env), outputIsTerminal: false)
        #expect(plan.injection == .wayland)
        #expect(plan.output == .json)
        #expect(SessionPlan(config(.desktop(app: nil), Self.sway), outputIsTerminal: false).injection == .wayland)
        #expect(SessionPlan(config(.desktop(app: nil), env.merging(["XDG_CURRENT_DESKTOP": "KDE"]) { $1 }), outputIsTerminal: false).injection == .wayland)
        #expect(SessionPlan(config(.desktop(app: nil), env.merging(["XDG_CURRENT_DESKTOP": "GNOME"]) { $1 }), outputIsTerminal: false).injection == .wayland)
    }

    @Test(arguments: [console, emptyDisplay])
    func theConsoleHasUinputAndNoOverlayNorWindowsPage(_ env: [String: String]) {
        let plan = SessionPlan(config(.desktop(app: nil), env), outputIsTerminal: true)
        #expect(plan.injection == .uinput)
        #expect(!plan.overlay)
        #expect(plan.windowsPage == nil)
        #expect(!plan.screenFromDisplay)
    }

    @Test func aLayoutRunInjectsNothingAndHasNoWindowsPage() {
        let plan = SessionPlan(config(.layout("Layouts/mail-inbox.json"), Self.x11), outputIsTerminal: true)
        #expect(plan.injection == RunConfiguration.Injection.none)
        #expect(plan.overlay)
        #expect(plan.windowsPage == nil)
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

    static let sway = ["WAYLAND_DISPLAY": "wayland-1", "SWAYSOCK": "/run/user/1000/sway-ipc.1000.42.sock", "DISPLAY": ":0"]

    @Test func theCompositorIsToldFromTheEnvironment() {
        #expect(Compositor(Self.x11) == .x11)
        #expect(Compositor(Self.console) == .console)
        #expect(Compositor(Self.sway) == .sway)
        #expect(Compositor(["WAYLAND_DISPLAY": "wayland-0", "XDG_CURRENT_DESKTOP": "sway"]) == .sway)
        #expect(Compositor(["WAYLAND_DISPLAY": "wayland-0", "XDG_CURRENT_DESKTOP": "KDE"]) == .kwin)
        #expect(Compositor(["XDG_SESSION_TYPE": "wayland", "XDG_CURRENT_DESKTOP": "ubuntu:GNOME"]) == .gnome)
        #expect(Compositor(["WAYLAND_DISPLAY": "wayland-0", "XDG_CURRENT_DESKTOP": "Hyprland"]) == .otherWayland("Hyprland"))
        #expect(Compositor(["WAYLAND_DISPLAY": "wayland-0"]) == .otherWayland(""))
        // An X11 session of a desktop that also has a Wayland one.
        #expect(Compositor(["DISPLAY": ":0", "XDG_SESSION_TYPE": "x11", "XDG_CURRENT_DESKTOP": "KDE"]) == .x11)
    }

    @Test func windowPlacesComeFromTheXServerSwaysIPCAKWinScriptOrTheGnomeShellExtension() {
        #expect(SessionPlan(config(.desktop(app: nil), Self.x11), outputIsTerminal: false).places == .x11)
        #expect(SessionPlan(config(.desktop(app: nil), Self.sway), outputIsTerminal: false).places
                == .sway(socket: "/run/user/1000/sway-ipc.1000.42.sock"))
        guard case .none(let why) = SessionPlan(config(.desktop(app: nil), ["WAYLAND_DISPLAY": "w", "XDG_CURRENT_DESKTOP": "sway"]),
                                                outputIsTerminal: false).places else {
            Issue.record("sway without its socket has places")
            return
        }
        #expect(why.contains("SWAYSOCK"))
        let kde = SessionPlan(config(.desktop(app: nil), ["WAYLAND_DISPLAY": "w", "XDG_CURRENT_DESKTOP": "KDE"]), outputIsTerminal: false)
        #expect(kde.places == .kwin && kde.windowsPage == .kwin)
        let gnome = SessionPlan(config(.desktop(app: nil), ["WAYLAND_DISPLAY": "w", "XDG_CURRENT_DESKTOP": "GNOME"]), outputIsTerminal: false)
        #expect(gnome.places == .gnome && gnome.windowsPage == .gnome && gnome.shellOverlay)
        #expect(!SessionPlan(config(.desktop(app: nil), Self.sway), outputIsTerminal: false).shellOverlay)
    }

    /// Through XWayland the X11 overlay would be an opaque ring that takes the clicks under
    /// it on wlroots; Mutter shows it as drawn (the session draws with it there when the
    /// GNOME Shell extension does not answer).
    @Test func theX11OverlayIsDrawnUnderWaylandOnlyOnGnome() {
        #expect(!SessionPlan(config(.desktop(app: nil), Self.sway), outputIsTerminal: false).overlay)
        #expect(!SessionPlan(config(.desktop(app: nil), ["WAYLAND_DISPLAY": "w", "DISPLAY": ":0", "XDG_CURRENT_DESKTOP": "KDE"]),
                             outputIsTerminal: false).overlay)
        #expect(SessionPlan(config(.desktop(app: nil), ["WAYLAND_DISPLAY": "w", "DISPLAY": ":0", "XDG_CURRENT_DESKTOP": "GNOME"]),
                            outputIsTerminal: false).overlay)
        // The X window manager's list holds only X clients there: the compositor's own.
        #expect(SessionPlan(config(.desktop(app: nil), Self.sway), outputIsTerminal: false).windowsPage == .sway(socket: Self.sway["SWAYSOCK"]!))
        #expect(SessionPlan(config(.desktop(app: nil), ["WAYLAND_DISPLAY": "w", "DISPLAY": ":0", "XDG_CURRENT_DESKTOP": "KDE"]),
                            outputIsTerminal: false).windowsPage == .kwin)
        #expect(SessionPlan(config(.desktop(app: nil), ["WAYLAND_DISPLAY": "w", "DISPLAY": ":0", "XDG_CURRENT_DESKTOP": "GNOME"]),
                            outputIsTerminal: false).windowsPage == .gnome)
        // The layer shell instead, but on GNOME (which has none) and X11.
        #expect(SessionPlan(config(.desktop(app: nil), Self.sway), outputIsTerminal: false).layerOverlay)
        #expect(!SessionPlan(config(.desktop(app: nil), ["WAYLAND_DISPLAY": "w", "XDG_CURRENT_DESKTOP": "GNOME"]), outputIsTerminal: false).layerOverlay)
        #expect(!SessionPlan(config(.desktop(app: nil), Self.x11), outputIsTerminal: false).layerOverlay)
    }

    /// What the compositor's registry offers decides over its name: a sway without the
    /// virtual pointer clicks through uinput, an unnamed compositor with KWin's fake input
    /// through it, and no layer shell means no layer-shell overlay tried. KWin shows its fake
    /// input only to a program it allows: its own is always tried there (and a refusal said).
    @Test func theRegistryOfGlobalsDecidesOverTheName() {
        let all: Set<String> = [WaylandInterface.layerShell, WaylandInterface.virtualPointer, WaylandInterface.virtualKeyboard, "wl_seat"]
        let kde = ["WAYLAND_DISPLAY": "wayland-0", "XDG_CURRENT_DESKTOP": "KDE"]
        #expect(SessionPlan(config(.desktop(app: nil), Self.sway), outputIsTerminal: false, globals: all).injection == .wayland)
        #expect(SessionPlan(config(.desktop(app: nil), Self.sway), outputIsTerminal: false, globals: [WaylandInterface.layerShell]).injection == .uinput)
        #expect(SessionPlan(config(.desktop(app: nil), kde), outputIsTerminal: false).injection == .wayland)
        #expect(SessionPlan(config(.desktop(app: nil), kde), outputIsTerminal: false, globals: [WaylandInterface.layerShell]).injection == .wayland)
        #expect(SessionPlan(config(.desktop(app: nil), ["WAYLAND_DISPLAY": "w"]), outputIsTerminal: false,
                            globals: [WaylandInterface.fakeInput]).injection == .wayland)
        #expect(SessionPlan(config(.desktop(app: nil), ["WAYLAND_DISPLAY": "w", "XDG_CURRENT_DESKTOP": "Hyprland"]), outputIsTerminal: false,
                            globals: ["wl_seat"]).injection == .uinput)
        #expect(!SessionPlan(config(.desktop(app: nil), Self.sway), outputIsTerminal: false, globals: [WaylandInterface.virtualPointer]).layerOverlay)
        #expect(SessionPlan(config(.desktop(app: nil), Self.sway), outputIsTerminal: false, globals: all).layerOverlay)
        // Asked for by name, it is what is used.
        var asked = config(.desktop(app: nil), Self.sway)
        asked.injection = .wayland
        #expect(SessionPlan(asked, outputIsTerminal: false, globals: []).injection == .wayland)
        // On X11 the registry says nothing.
        #expect(SessionPlan(config(.desktop(app: nil), Self.x11), outputIsTerminal: false, globals: []).injection == .xtest)
    }

    @Test func whatTheCompositorOffersIsSaid() {
        #expect(WaylandInterface.describe([WaylandInterface.layerShell, WaylandInterface.virtualPointer, WaylandInterface.virtualKeyboard])
                == "The compositor offers the layer shell (the outline, the menu and the keyboard drawn), a virtual pointer (taps) and a virtual keyboard (keys).")
        #expect(WaylandInterface.describe([WaylandInterface.layerShell])
                == "The compositor offers the layer shell (the outline, the menu and the keyboard drawn); not a virtual pointer (taps) nor a virtual keyboard (keys).")
        #expect(WaylandInterface.describe([]).hasPrefix("The compositor offers none of what SwitchScan draws and types with: not the layer shell"))
        // KWin's fake input in place of wlroots' devices, which KWin never has.
        #expect(WaylandInterface.describe([WaylandInterface.layerShell, WaylandInterface.fakeInput], compositor: .kwin)
                == "The compositor offers the layer shell (the outline, the menu and the keyboard drawn) and its fake input (taps and keys).")
        #expect(WaylandInterface.describe([WaylandInterface.layerShell], compositor: .kwin)
                == "The compositor offers the layer shell (the outline, the menu and the keyboard drawn); not its fake input (taps and keys).")
    }
}

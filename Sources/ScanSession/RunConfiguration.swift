import ScanCore
import ScanRuntime

/// Everything a scanning session is asked to do, decided before it starts: the command
/// line fills it in, a test or another front end can build one directly.
public struct RunConfiguration: Sendable {
    /// What is scanned.
    public enum Target: Sendable, Equatable {
        /// A layout file.
        case layout(String)
        /// The live desktop's active window, or a named application's.
        case desktop(app: String?)
        /// The message screen alone (docs/MESSAGES.md): the person's own message, to be said.
        case messages
    }

    /// How the scan is shown on standard output.
    public enum Output: String, Sendable, CaseIterable {
        /// The screen drawn in the terminal, keys read from it.
        case terminal
        /// Effects as JSON lines.
        case json
        /// Nothing on standard output: a run the desktop session started, whose output would
        /// fill the session's log.
        case quiet
    }

    /// How taps and keys reach the screen.
    public enum Injection: String, Sendable, CaseIterable {
        /// X11's XTest extension.
        case xtest
        /// A virtual pointer and keyboard of SwitchScan's own (Wayland, the console).
        case uinput
        /// The compositor's own virtual pointer and keyboard (wlroots' protocols: sway and
        /// other wlroots compositors; KWin's fake input); uinput where the compositor has none.
        case wayland
        /// None: a layout run's taps stay in its effects.
        case none
    }

    public var target: Target
    /// The settings file read at the start (nil: the defaults).
    public var settingsFile: String?
    /// Where the scanner menu's setting changes are kept (nil: nowhere).
    public var settingsKeptIn: String?
    /// Overrides of the settings file's style and mode.
    public var style: ScanStyle?
    public var mode: ScanMode?
    /// nil: the terminal when standard output is one, JSON lines otherwise.
    public var output: Output?
    /// Where JSON lines are written (standard output for the command line).
    public var jsonOutput: Int32 = 1
    /// Read the terminal's keys (switches when no device is in use, q to quit). A front end
    /// of its own turns this off and ends the session itself.
    public var terminalKeys = true
    /// With the live desktop: how long to wait for the X display and the accessibility bus
    /// (a run started with the session may come before them); 0: not at all.
    public var waitForDesktop: Double = 0
    /// Draw the highlight over the screen where a display can be opened.
    public var overlay = true
    /// nil: chosen from the environment (`SessionPlan`).
    public var injection: Injection?
    /// The screen's size for a uinput pointer (nil: the display's, else the scanned screen's).
    public var screenSize: (width: Int, height: Int)?
    /// Speak highlights even when the settings do not ask for it.
    public var speech = false
    /// A Unix socket where front ends receive the effects as JSON lines.
    public var socket: String?
    public var realTime = RealTimeQueue.Options()
    /// Ends the session after this many seconds (nil: when the user quits).
    public var duration: Double?
    /// Read switch devices (false: the terminal keyboard only).
    public var useDevices = true
    /// Only these device nodes (empty: every switch device found, and those plugged in later).
    public var devices: [String] = []
    /// Take switch devices exclusively while scanning.
    public var grab = false
    /// Folders of device profiles, read in order.
    public var profileFolders: [String] = []
    /// The keyboard's word list.
    public var wordList: String
    /// The message screen's phrases (nil: none) and where the messages said are kept
    /// (nil: nowhere).
    public var phrasesFile: String?
    public var historyFile: String?
    /// Where the person's usage counts are kept for `switchscan report` (nil: nowhere).
    public var usageLog: String?
    /// The user's learned words (nil: none kept).
    public var learnedWords: String?
    /// The process environment the session's choices read (DISPLAY, WAYLAND_DISPLAY,
    /// XDG_SESSION_TYPE).
    public var environment: [String: String]

    public init(target: Target, wordList: String, environment: [String: String]) {
        self.target = target
        self.wordList = wordList
        self.environment = environment
    }

    public var isDesktop: Bool { if case .desktop = target { true } else { false } }
}

/// What a session uses of the machine it runs on, chosen from its configuration and the
/// environment alone (no display is opened here): a pure function, so that every case is
/// tested without the display or the session it describes.
public struct SessionPlan: Equatable, Sendable {
    public var output: RunConfiguration.Output
    /// How clicks and keys reach the screen.
    public var injection: RunConfiguration.Injection
    /// Whether the injection was asked for by name (its failure then ends the run).
    public var injectionAsked: Bool
    /// Whether the X11 overlay is tried (an X display is named, it would show as drawn, and
    /// the user did not refuse it).
    public var overlay: Bool
    /// Whether the layer-shell overlay is tried (a Wayland compositor that may offer it).
    public var layerOverlay: Bool
    /// Whether GNOME Shell draws the scene, through SwitchScan's extension.
    public var shellOverlay: Bool
    /// Where the screen menu's Windows page gets its windows, when it is offered (the
    /// desktop on an X display, or on sway).
    public var windowsPage: WindowListSource?
    /// Whether a uinput pointer takes its size from the X display.
    public var screenFromDisplay: Bool
    /// The desktop session.
    public var compositor: Compositor
    /// Where windows' places come from.
    public var places: PlaceSource

    /// `globals`: the interfaces the Wayland compositor offers, where its registry was asked
    /// (nil: not asked, or no Wayland; the environment alone decides).
    public init(_ c: RunConfiguration, outputIsTerminal: Bool, globals: Set<String>? = nil) {
        let env = c.environment
        let display = !(env["DISPLAY"] ?? "").isEmpty
        compositor = Compositor(env)
        places = PlaceSource(compositor, env)
        // Under Wayland DISPLAY may name XWayland, whose XTest clicks reach only X clients.
        let wayland = compositor.isWayland
        output = c.output ?? (outputIsTerminal ? .terminal : .json)
        injectionAsked = c.injection != nil
        // The live desktop gets XTest on X11 and uinput elsewhere; a layout run injects
        // nothing unless asked.
        // Under Wayland the compositor's virtual pointer where it may offer one (wlroots,
        // KWin, Mutter's remote desktop; uinput is tried when it does not), uinput elsewhere.
        // What the registry says wins over the compositor's name, but for KWin, which shows
        // its fake input only to a program it allows (and says why when it does not).
        let own: RunConfiguration.Injection = switch (compositor, globals) {
        case (.kwin, _), (.gnome, _): .wayland
        case (_, .some(let offered)) where wayland:
            offered.contains(WaylandInterface.virtualPointer) || offered.contains(WaylandInterface.fakeInput) ? .wayland : .uinput
        case (.sway, _), (.otherWayland, _): .wayland
        default: .uinput
        }
        injection = c.injection ?? (c.isDesktop ? (display && !wayland ? .xtest : own) : .none)
        // Through XWayland, only Mutter shows the X11 overlay as it is drawn: under a wlroots
        // compositor or KWin it is an opaque ring above every window that takes their clicks.
        // On GNOME the extension draws above every window; the X11 overlay (for XWayland's
        // windows) only when the extension is not there (`ScanSession` decides).
        overlay = c.overlay && display && (!wayland || compositor == .gnome)
        // wlroots compositors and KWin offer the layer shell; GNOME does not.
        layerOverlay = c.overlay && wayland && compositor != .gnome && (globals?.contains(WaylandInterface.layerShell) ?? true)
        shellOverlay = c.overlay && compositor == .gnome
        // The X window manager's list under XWayland holds X clients alone: the compositor's.
        windowsPage = switch (c.isDesktop, places) {
        case (false, _): nil
        case (true, .sway(let socket)): .sway(socket: socket)
        case (true, .kwin): .kwin
        case (true, .gnome): .gnome
        case (true, _): display && !wayland ? .x11 : nil
        }
        screenFromDisplay = c.screenSize == nil && display
    }
}

/// The desktop session SwitchScan runs in, as its environment tells: what draws the screen
/// and so what can say where windows are and draw above them.
public enum Compositor: Equatable, Sendable {
    /// No display: a text console.
    case console
    /// An X11 session.
    case x11
    /// sway (and its IPC socket, `SWAYSOCK`).
    case sway
    /// KDE Plasma's KWin.
    case kwin
    /// GNOME's Mutter (GNOME Shell).
    case gnome
    /// Another Wayland compositor, named by `XDG_CURRENT_DESKTOP` ("" when unset).
    case otherWayland(String)

    public init(_ env: [String: String]) {
        let wayland = !(env["WAYLAND_DISPLAY"] ?? "").isEmpty || env["XDG_SESSION_TYPE"] == "wayland"
        // "ubuntu:GNOME", "KDE", "sway": a list, any case.
        let desktops = (env["XDG_CURRENT_DESKTOP"] ?? "").split(separator: ":").map { $0.lowercased() }
        if !wayland {
            self = (env["DISPLAY"] ?? "").isEmpty ? .console : .x11
        } else if !(env["SWAYSOCK"] ?? "").isEmpty || desktops.contains("sway") {
            self = .sway
        } else if desktops.contains("kde") {
            self = .kwin
        } else if desktops.contains("gnome") {
            self = .gnome
        } else {
            self = .otherWayland(env["XDG_CURRENT_DESKTOP"] ?? "")
        }
    }

    public var isWayland: Bool {
        switch self {
        case .console, .x11: return false
        default: return true
        }
    }

    /// As the user is told.
    public var name: String {
        switch self {
        case .console: return "a text console (no display)"
        case .x11: return "an X11 session"
        case .sway: return "sway (Wayland)"
        case .kwin: return "KDE Plasma's KWin (Wayland)"
        case .gnome: return "GNOME (Wayland)"
        case .otherWayland(let name): return name.isEmpty ? "an unnamed Wayland compositor" : "\(name) (Wayland)"
        }
    }
}

/// Where the Windows page's list of windows comes from.
public enum WindowListSource: Equatable, Sendable {
    /// The X window manager (EWMH).
    case x11
    /// sway's IPC socket.
    case sway(socket: String)
    /// A KWin script.
    case kwin
    /// SwitchScan's GNOME Shell extension.
    case gnome
}

/// Where the places of windows come from, or why nowhere.
public enum PlaceSource: Equatable, Sendable {
    /// The X server (X11 clients, GTK 4's windows).
    case x11
    /// sway's IPC socket.
    case sway(socket: String)
    /// A KWin script, loaded over the session bus.
    case kwin
    /// SwitchScan's GNOME Shell extension, over the session bus.
    case gnome
    case none(why: String)

    public init(_ compositor: Compositor, _ env: [String: String]) {
        switch compositor {
        case .x11: self = .x11
        case .console: self = .none(why: "there is no display")
        case .sway:
            let socket = env["SWAYSOCK"] ?? ""
            self = socket.isEmpty ? .none(why: "SWAYSOCK is not set, so sway's IPC cannot be reached") : .sway(socket: socket)
        case .kwin: self = .kwin
        case .gnome: self = .gnome
        case .otherWayland:
            self = .none(why: "\(compositor.name) does not tell SwitchScan where native Wayland windows are yet")
        }
    }
}

/// The Wayland interfaces SwitchScan uses, by their registry names.
public enum WaylandInterface {
    public static let layerShell = "zwlr_layer_shell_v1"
    public static let virtualPointer = "zwlr_virtual_pointer_manager_v1"
    public static let virtualKeyboard = "zwp_virtual_keyboard_manager_v1"
    /// KWin's fake input: a pointer and keys (shown only to a program KWin allows).
    public static let fakeInput = "org_kde_kwin_fake_input"

    /// What the compositor offers of them and what each is for, as a sentence for `desktop`.
    /// Under KWin, its fake input takes the place of wlroots' pointer and keyboard.
    public static func describe(_ offered: Set<String>, compositor: Compositor = .otherWayland("")) -> String {
        let uses = [(layerShell, "the layer shell (the outline, the menu and the keyboard drawn)")]
            + (compositor == .kwin ? [(fakeInput, "its fake input (taps and keys)")]
                : [(virtualPointer, "a virtual pointer (taps)"), (virtualKeyboard, "a virtual keyboard (keys)")])
        let has = uses.filter { offered.contains($0.0) }.map(\.1), lacks = uses.filter { !offered.contains($0.0) }.map(\.1)
        func list(_ items: [String], _ last: String) -> String {
            items.count < 2 ? items.joined() : items.dropLast().joined(separator: ", ") + " \(last) " + items[items.count - 1]
        }
        if lacks.isEmpty { return "The compositor offers \(list(has, "and"))." }
        if has.isEmpty { return "The compositor offers none of what SwitchScan draws and types with: not \(list(lacks, "nor"))." }
        return "The compositor offers \(list(has, "and")); not \(list(lacks, "nor"))."
    }
}

import ArgumentParser
import CommandSupport
import Foundation
import ScanCore
import ScanFormats
import ScanRuntime
import ScanSession
import SwitchInput

extension RunConfiguration.Output: ExpressibleByArgument {}
extension RunConfiguration.Injection: ExpressibleByArgument {}

/// "1920x1080".
struct ScreenSize: ExpressibleByArgument {
    var width: Int
    var height: Int
    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (1...65_535).contains(w), (1...65_535).contains(h) else { return nil }
        width = w; height = h
    }
}

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Scan a layout, or the live desktop, in real time with switches or the terminal's keyboard.",
        discussion: """
        With --desktop, the active window of the desktop is scanned through the accessibility bus \
        (AT-SPI), followed as it changes, and activations act on the real widgets. Keys: space or Enter select, Tab next, Shift-Tab previous, m menu, Esc exit, \
        t toggle point mode, p pause, q quit (Ctrl-C works too). The terminal is restored \
        on every way out. Real-time scheduling (SCHED_FIFO, locked memory) is requested; \
        where refused, a warning says how to allow it and scanning goes on.
        """
    )

    @Option(help: "The layout file (default: the bundled Layouts/switch-control.uikit.json).")
    var layout: String?

    @OptionGroup var target: DesktopTarget

    @Flag(help: "Start on the message screen: write a message with the scanning keyboard and have it said, say a phrase (~/.config/switchscan/phrases.txt), answer yes or no, call for attention.")
    var messages = false

    @OptionGroup var options: ScanOptions

    @Option(help: "terminal (draw the screen), json (effects as JSON lines) or quiet (nothing; for a run the session starts). Default: terminal when stdout is a terminal.")
    var output: RunConfiguration.Output?

    @Option(name: .customLong("wait-for-desktop"), help: ArgumentHelp("With --desktop: wait up to this many seconds for the X display, the accessibility bus and a window (a run started with the session comes before them); with no window by then, scan the first that shows.", valueName: "seconds"))
    var waitForDesktop: String?

    @Flag(name: .customLong("no-terminal-keys"), help: "Do not read keys from the terminal (for a run the session starts, which has none); a signal ends the run.")
    var noTerminalKeys = false

    @Flag(name: .customLong("no-overlay"), help: "Do not draw the highlight over the screen (it is drawn whenever an X display can be opened).")
    var noOverlay = false

    @Option(help: "How taps reach the screen: xtest (X11), wayland (the compositor's virtual pointer: sway and other wlroots compositors), uinput (a virtual pointer of SwitchScan's own: other Wayland compositors, the console) or none. Default: with --desktop xtest on X11, wayland on a wlroots compositor (uinput where it has none), else uinput; with a layout none.")
    var pointer: RunConfiguration.Injection?

    @Option(help: "The screen's size in pixels for --pointer uinput, e.g. 1920x1080 (default: the display's, else the layout's).")
    var screen: ScreenSize?

    @Flag(help: "Speak each highlighted item through speech-dispatcher (the setting 'speech').")
    var speech = false

    @Option(help: "Also stream JSON lines to front ends connecting to this Unix socket.")
    var socket: String?

    @Option(name: .customLong("rt-priority"), help: "SCHED_FIFO priority of the timing thread (1-99); 0 for none.")
    var rtPriority: Int32 = 20

    @Flag(name: .customLong("no-mlock"), help: "Do not lock memory (mlockall).")
    var noMlock = false

    @Flag(name: .customLong("allow-deep-idle"), help: "Do not ask the kernel to keep idle CPUs quick to wake (/dev/cpu_dma_latency); saves power, and a press may reach the engine later.")
    var allowDeepIdle = false

    @Option(name: .customLong("spin-margin"), help: "Wake this long before each timer deadline and spin the rest (0 to 1ms; a bare number is in µs): the wake-up's cold path runs before the deadline, not after it, for at most this much CPU per tick. 0 turns it off.")
    var spinMargin = SpinMargin(ScanDuration(nanoseconds: 50_000))

    @Option(help: "Stop after this many seconds (for demos and tests).")
    var duration: String?
    /// Seconds as a person writes them (not "0x3", "1e0", "inf").
    var durationSeconds: Double? { duration.flatMap { Seconds(argument: $0)?.value } }

    @Option(help: "Use only this input device (repeatable), e.g. /dev/input/event5.")
    var device: [String] = []

    @Flag(help: "Take switch devices exclusively (only while no switch is held), so their keys do not also type elsewhere.")
    var grab = false

    @Flag(name: .customLong("no-devices"), help: "Ignore input devices; use the terminal keyboard only.")
    var noDevices = false

    @Option(name: .customLong("profiles"), help: "A folder of device profiles (default: Devices/ and ~/.config/switchscan/devices/).")
    var profilesFolder: [String] = []

    func validate() throws {
        try target.check(layout: layout, given: "--layout")
        if messages && (target.desktop || layout != nil) {
            throw ValidationError("--messages scans the message screen alone; leave out \(layout != nil ? "--layout" : "--desktop")")
        }
        guard (0...99).contains(rtPriority) else { throw ValidationError("--rt-priority takes 0 (none) to 99, e.g. --rt-priority 20") }
        if let waitForDesktop {
            guard target.desktop else { throw ValidationError("--wait-for-desktop goes with --desktop, e.g. switchscan run --desktop --wait-for-desktop 60") }
            guard let s = Seconds(argument: waitForDesktop), s.value <= 3600 else {
                throw ValidationError("--wait-for-desktop takes seconds from 0 to 3600, e.g. --wait-for-desktop 60")
            }
        }
        if let duration, Seconds(argument: duration).map({ $0.value > 0 && $0.value <= 86_400 }) != true {
            throw ValidationError("--duration takes seconds between 0 and 86400, got \"\(excerpt(duration))\"; e.g. --duration 30")
        }
    }

    /// The run as a session's configuration: defaults resolved here, the rest is the
    /// session's.
    func configuration(environment: [String: String]) -> RunConfiguration {
        var c = RunConfiguration(target: messages ? .messages : target.target(layout: layout ?? BundledData.file("Layouts/switch-control.uikit.json")),
                                 wordList: BundledData.wordList(language: "en"), environment: environment)
        c.phrasesFile = PhrasesFile.userPath(environment: environment)
        c.historyFile = MessageHistoryFile.userPath(environment: environment)
        c.usageLog = UsageLog.userPath(environment: environment)
        // Without --settings, the user's own settings file, where the scanner menu's
        // Settings keep their changes.
        let userSettings = SettingsFile.userPath(environment: environment)
        c.settingsFile = options.settings ?? userSettings.flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }
        c.settingsKeptIn = options.settings ?? userSettings
        c.style = options.style
        c.mode = options.mode
        c.output = output
        c.waitForDesktop = waitForDesktop.flatMap { Seconds(argument: $0)?.value } ?? 0
        c.terminalKeys = !noTerminalKeys
        c.overlay = !noOverlay
        c.injection = pointer
        c.screenSize = screen.map { ($0.width, $0.height) }
        c.speech = speech
        c.socket = socket
        c.realTime = .init(priority: rtPriority, lockMemory: !noMlock, wakeupLatency: allowDeepIdle ? nil : 0, spinMargin: spinMargin.duration)
        c.duration = durationSeconds
        c.useDevices = !noDevices
        c.devices = device
        c.grab = grab
        c.profileFolders = profilesFolder.isEmpty ? ProfileLibrary.defaultFolders(devices: BundledData.file("Devices")) : profilesFolder
        c.learnedWords = WordsFile.userPath(environment: environment)
        return c
    }

    func run() throws {
        // Before any thread exists, so that every thread inherits the block; a signal during
        // setup ends the process at once, one after it ends the run through the session.
        TerminationSignals.watch(early: { TerminalState.restore() })
        let session = ScanSession(configuration(environment: ProcessInfo.processInfo.environment),
                                  log: { writeErr($0 + "\n") }) { end in
            for text in end.notes { writeErr(text + "\n") }
            if case .failed(let message, _) = end.reason { writeErr(message + "\n") }
            // Dying of the signal that ended it, so that the shell or a supervisor sees what
            // ended it (Ctrl-\ still dumps core where that is enabled).
            if case .signal(let sig) = end.reason { TerminationSignals.dieOf(sig) }
            endProcess(finishOutput(end.status))
        }
        do { try session.start() } catch {
            writeErr(error.message + "\n")
            throw ExitCode(error.status)
        }
        // Ctrl-C, Ctrl-\, SIGTERM and a closed terminal end the run cleanly: devices
        // released, terminal restored. The signals are taken on their own thread; the main
        // thread only waits.
        TerminationSignals.handle { sig in session.shutdown(.signal(sig)) }
        while true { pause() }
    }
}

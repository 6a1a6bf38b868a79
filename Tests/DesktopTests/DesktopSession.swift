import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A private desktop for one test: Xvfb on a free display, a private session bus from which
/// the accessibility bus is D-Bus-activated, and (by default) openbox as window manager; the
/// fixture applications and `switchscan` processes the test starts run in it.
/// (docs/DESKTOP.md describes the pieces.)
///
/// Everything runs with `environment`, built from scratch: DISPLAY, a bus address at
/// `$XDG_RUNTIME_DIR/bus` (so nothing ever autolaunches another bus, P3), HOME and
/// XDG_RUNTIME_DIR (0700) in a private temporary directory, GSETTINGS_BACKEND=memory,
/// LANG=C.UTF-8, GTK_THEME=Adwaita, and no NO_AT_BRIDGE.
///
/// `stop()` (also run by deinit, so a failing test tears down too) ends every process it
/// started, by process group, plus any process still carrying this desktop's marker in its
/// environment (the D-Bus-activated services), and removes the temporary directory.
final class DesktopSession: @unchecked Sendable {
    /// The X display, e.g. ":3".
    let display: String
    /// The environment every process of the session gets.
    let environment: [String: String]
    /// The session's private temporary directory (HOME, XDG_RUNTIME_DIR, logs).
    let directory: URL
    /// The accessibility bus address the session bus handed out (inside XDG_RUNTIME_DIR).
    let accessibilityBusAddress: String
    let screenWidth = 1280
    let screenHeight = 800
    let windowManager: Bool
    /// How long each start-up step took, in milliseconds, in order.
    private(set) var startupSteps: [(step: String, milliseconds: Double)] = []
    /// The whole start-up, in milliseconds.
    private(set) var startupMilliseconds: Double = 0

    /// The environment variable every process of a session carries: "<test pid>:<uuid>".
    static let markerVariable = "SWITCHSCAN_DESKTOP_SESSION"
    let marker: String

    static let packageRoot = TestPaths.packageRoot
    static let fixturesDirectory: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let fixtureScript = fixturesDirectory.appendingPathComponent("fixture.py")
    static let atspiQueryScript = fixturesDirectory.appendingPathComponent("atspi-query.py")
    /// What openbox's --startup command prints.
    static let openboxUp = "openbox is up"

    private let lock = NSLock()
    /// Held from the start to `stop()`: no GNOME Shell session runs meanwhile.
    private let slot: DesktopSlot.Hold
    private var services: [ChildProcess] = []        // Xvfb, dbus-daemon, openbox
    private var children: [ChildProcess] = []        // fixtures and switchscan processes
    private var stopped = false
    private let scratch: URL
    private let serverLog: URL

    /// Starts the desktop; returns once the accessibility bus answers and (with
    /// `windowManager`) openbox manages the screen. Throws, naming the Debian package, when a
    /// program is missing: a desktop test fails then, it never skips.
    init(windowManager: Bool = true) throws {
        self.windowManager = windowManager
        slot = DesktopSlot.shared()
        for tool in [DesktopTool.xvfb, .dbusDaemon, .dbusSend, .atspiBusLauncher, .xprop, .python3] { try tool.require() }
        if windowManager { try DesktopTool.openbox.require() }
        signal(SIGPIPE, SIG_IGN)  // a write to a child that died must be an error, not our death
        Self.cleanUpAfterDeadRuns()

        let fm = FileManager.default
        let id = UUID().uuidString.prefix(8).lowercased()
        let marker = "\(getpid()):\(id)"
        let directory = fm.temporaryDirectory.appendingPathComponent("switchscan-desktop-\(getpid())-\(id)", isDirectory: true)
        let home = directory.appendingPathComponent("home")
        let runtime = directory.appendingPathComponent("run")
        let scratch = directory.appendingPathComponent("scratch")
        for dir in [home, home.appendingPathComponent(".config"), home.appendingPathComponent(".cache"), scratch] {
            try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        }
        try fm.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let serverLog = directory.appendingPathComponent("services.log")
        _ = fm.createFile(atPath: serverLog.path, contents: nil)
        self.marker = marker
        self.directory = directory
        self.scratch = scratch
        self.serverLog = serverLog

        var env: [String: String] = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin",
            "HOME": home.path,
            "XDG_RUNTIME_DIR": runtime.path,
            "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path,
            "XDG_CACHE_HOME": home.appendingPathComponent(".cache").path,
            "XDG_DATA_HOME": home.appendingPathComponent(".local/share").path,
            "GSETTINGS_BACKEND": "memory",
            "LANG": "C.UTF-8",
            "GTK_THEME": "Adwaita",
            "GDK_BACKEND": "x11",
            "GSK_RENDERER": "cairo",  // GTK 4 under Xvfb: software GL is far slower than cairo
            "PYTHONDONTWRITEBYTECODE": "1",
            Self.markerVariable: marker,
        ]
        if let ld = ProcessInfo.processInfo.environment["LD_LIBRARY_PATH"] { env["LD_LIBRARY_PATH"] = ld }
        // A sanitizer run's options reach the switchscan children built with it.
        if let asan = ProcessInfo.processInfo.environment["ASAN_OPTIONS"] { env["ASAN_OPTIONS"] = asan }

        let clock = ContinuousClock()
        let began = clock.now
        var last = began
        var steps: [(String, Double)] = []
        func step(_ name: String) {
            let now = clock.now
            steps.append((name, Self.milliseconds(now - last)))
            last = now
        }
        var started: [ChildProcess] = []
        var displayName = ""
        var a11yAddress = ""
        let logHandle = try FileHandle(forWritingTo: serverLog)
        defer { try? logHandle.close() }

        do {
            // Xvfb picks a free display itself and writes its number on -displayfd once it
            // accepts connections.
            let xvfb = try ChildProcess.startPiped(DesktopTool.xvfb.path,
                                                   ["-displayfd", "1", "-screen", "0", "\(screenWidth)x\(screenHeight)x24", "-nolisten", "tcp", "-noreset"],
                                                   environment: env, stderr: logHandle)
            started.append(xvfb.process)
            let xLines = LineCollector(reading: xvfb.output)
            let number = try xLines.waitForLine("Xvfb's display number on -displayfd", timeout: 10, context: { Self.read(serverLog) }) { !$0.isEmpty }
            displayName = ":" + number.trimmingCharacters(in: .whitespaces)
            env["DISPLAY"] = displayName
            step("Xvfb \(displayName)")

            // The session bus listens at $XDG_RUNTIME_DIR/bus, where libdbus and GDBus look
            // when DBUS_SESSION_BUS_ADDRESS is missing; it is set everywhere anyway.
            let busAddress = "unix:path=\(runtime.path)/bus"
            env["DBUS_SESSION_BUS_ADDRESS"] = busAddress
            let bus = try ChildProcess.startPiped(DesktopTool.dbusDaemon.path,
                                                  ["--session", "--nofork", "--nopidfile", "--address=\(busAddress)", "--print-address=1"],
                                                  environment: env, stderr: logHandle)
            started.append(bus.process)
            let busLines = LineCollector(reading: bus.output)
            _ = try busLines.waitForLine("the session bus address", timeout: 10, context: { Self.read(serverLog) }) { $0.hasPrefix("unix:") }
            step("session bus")

            var openbox: (process: ChildProcess, output: LineCollector)?
            if windowManager {
                // openbox runs its --startup command once it is fully up (the screen taken,
                // its configuration loaded, just before its event loop): the command's line,
                // on a pipe, is there to read however late the wait begins. openbox's own
                // messages go to the services log.
                let wm = try ChildProcess.startPiped(DesktopTool.openbox.path,
                                                     ["--sm-disable", "--startup", "\(DesktopTool.echo.path) \(Self.openboxUp)"],
                                                     environment: env, stderr: logHandle)
                started.append(wm.process)
                openbox = (wm.process, LineCollector(reading: wm.output))
            }

            // Nothing starts the accessibility bus by hand: asking for its address activates
            // at-spi-bus-launcher from the session bus (the registry follows on first use).
            let reply = try ChildProcess.run(DesktopTool.dbusSend.path,
                                             ["--session", "--dest=org.a11y.Bus", "--print-reply", "/org/a11y/bus", "org.a11y.Bus.GetAddress"],
                                             environment: env, scratch: scratch, timeout: 10)
            guard reply.status == 0, let line = reply.stdoutLines.first(where: { $0.contains("string \"") }),
                  let address = line.split(separator: "\"").dropFirst().first.map(String.init)
            else { throw DesktopError("The accessibility bus was not D-Bus-activated from the session bus.\n\(reply)\n--- services log ---\n\(Self.read(serverLog))") }
            guard address.contains(runtime.path) else {
                throw DesktopError("The accessibility bus \(address) is not inside this desktop's XDG_RUNTIME_DIR \(runtime.path) (another bus hijacked it? P2/P3)")
            }
            a11yAddress = address
            step("accessibility bus activated")

            if let openbox {
                do {
                    _ = try openbox.output.waitForLine("openbox's --startup line \"\(Self.openboxUp)\"", timeout: 10,
                                                       context: { Self.read(serverLog) }) { $0 == Self.openboxUp }
                    // It set this before the startup command ran: a check that it manages this
                    // display, not another one.
                    let check = try ChildProcess.run(DesktopTool.xprop.path, ["-root", "_NET_SUPPORTING_WM_CHECK"],
                                                     environment: env, scratch: scratch, timeout: 10)
                    guard check.status == 0, check.stdout.contains("window id") else {
                        throw DesktopError("openbox said it was up, but \(displayName) has no _NET_SUPPORTING_WM_CHECK on its root.\n\(check)\n\(Self.read(serverLog))")
                    }
                } catch {
                    let exit = openbox.process.exitStatus.map { " (it exited with status \($0))" } ?? ""
                    throw DesktopError("openbox did not come up on \(displayName)\(exit): \(error)")
                }
                step("openbox")
            }
        } catch {
            ChildProcess.stop(started, grace: 1)
            Self.killMarked(marker)
            try? fm.removeItem(at: directory)
            throw error
        }
        display = displayName
        accessibilityBusAddress = a11yAddress
        environment = env
        services = started
        startupSteps = steps
        startupMilliseconds = Self.milliseconds(clock.now - began)
    }

    deinit { stop() }

    /// Ends everything the session started and removes its directory. Idempotent.
    func stop() {
        lock.lock()
        guard !stopped else { lock.unlock(); return }
        stopped = true
        let all = children + services
        lock.unlock()
        ChildProcess.stop(all, grace: 2)
        Self.killMarked(marker)
        try? FileManager.default.removeItem(at: directory)
        slot.release()
    }

    private func register(_ process: ChildProcess) throws {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else {
            ChildProcess.stop([process], grace: 0.5)
            throw DesktopError("the desktop session was already stopped")
        }
        children.append(process)
    }

    // MARK: Fixture applications

    /// Starts `Fixtures/fixture.py` (with `/usr/bin/python3`) in the session. `args` are its
    /// flags (`--title`, `--app-name`, `--move X Y`, `--quit-after S`). Returns at once; wait
    /// for `ready` and for `waitForApplication(named: fixture.applicationName)`.
    func launchFixture(args: [String] = []) throws -> FixtureProcess {
        try launchApplication(DesktopTool.python3.path, [Self.fixtureScript.path] + args,
                              applicationName: Self.flag("--app-name", in: args) ?? "switchscan-fixture",
                              title: Self.flag("--title", in: args) ?? "SwitchScan Fixture")
    }

    /// Starts any application in the session, its stdout collected line by line; it runs in
    /// `folder` (the package root unless given).
    func launchApplication(_ path: String, _ arguments: [String], applicationName: String, title: String,
                           extraEnvironment: [String: String] = [:], in folder: URL? = nil) throws -> FixtureProcess {
        let errURL = directory.appendingPathComponent("app-\(UUID().uuidString.prefix(8)).stderr")
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let errHandle = try FileHandle(forWritingTo: errURL)
        defer { try? errHandle.close() }
        let child = try ChildProcess.startPiped(path, arguments, environment: environment.merging(extraEnvironment) { $1 },
                                                directory: folder ?? Self.packageRoot, stderr: errHandle)
        try register(child.process)
        return FixtureProcess(process: child.process, output: LineCollector(reading: child.output), stderrURL: errURL,
                              applicationName: applicationName, title: title)
    }

    /// A fixture that is ready: launched, printed `ready`, and registered on the AT-SPI desktop.
    func startFixture(args: [String] = [], timeout: Double = 10) throws -> FixtureProcess {
        let fixture = try launchFixture(args: args)
        try fixture.waitForLine(matching: "ready", timeout: timeout)
        try waitForApplication(named: fixture.applicationName, timeout: timeout)
        return fixture
    }

    // MARK: AT-SPI (through /usr/bin/python3 and gi's Atspi, outside the code under test)

    /// Runs `Fixtures/atspi-query.py ARGS…` in the session.
    func atspiQuery(_ arguments: [String], timeout: Double = 10) throws -> ToolResult {
        let result = try ChildProcess.run(DesktopTool.python3.path, [Self.atspiQueryScript.path] + arguments,
                                          environment: environment, scratch: scratch, timeout: timeout)
        if result.timedOut { throw DesktopError("AT-SPI query timed out.\n\(result)") }
        return result
    }

    private func atspiQueryOrThrow(_ arguments: [String], timeout: Double = 10) throws -> ToolResult {
        let result = try atspiQuery(arguments, timeout: timeout)
        guard result.status == 0 else { throw DesktopError("AT-SPI query failed.\n\(result)\(packageHints(forStderr: result.stderr))") }
        return result
    }

    /// A watcher of windows activated and created on the AT-SPI desktop, listening when this
    /// returns: its lines say when each window's event arrived (CLOCK_MONOTONIC), as the
    /// scanner gets it (`atspi-query.py watch-windows`).
    func watchWindows() throws -> FixtureProcess {
        let watcher = try launchApplication(DesktopTool.python3.path, [Self.atspiQueryScript.path, "watch-windows"],
                                            applicationName: "", title: "")
        try watcher.waitForLine(matching: "watching", timeout: 10)
        return watcher
    }

    /// The names of the applications on the AT-SPI desktop.
    func applicationNames() throws -> [String] {
        try atspiQueryOrThrow(["apps"]).stdoutLines
    }

    /// Polls the AT-SPI desktop until an application called `name` is registered; returns
    /// how long the poll waited, in milliseconds.
    @discardableResult
    func waitForApplication(named name: String, timeout: Double = 10) throws -> Double {
        let result = try atspiQuery(["wait-app", name, String(timeout)], timeout: timeout + 10)
        guard result.status == 0, let line = result.stdoutLines.last, line.hasPrefix("found ") else {
            throw DesktopError("Waiting for application \"\(name)\" on the AT-SPI desktop.\n\(result)\(packageHints(forStderr: result.stderr))")
        }
        return Double(line.split(separator: " ").last ?? "") ?? 0
    }

    /// The first accessible of `role` named `name` in application `app` (showing ones
    /// first), waiting up to `timeout` seconds for it to appear.
    func findAccessible(app: String, role: String, name: String, timeout: Double = 0) throws -> AccessibleInfo {
        let result = try atspiQuery(["find", app, role, name, String(timeout)], timeout: timeout + 10)
        guard result.status == 0, let json = result.stdoutLines.last else {
            let tree = (try? atspiQuery(["tree", app]).stdout) ?? ""
            throw DesktopError("Finding \(role) \"\(name)\" in \(app) over AT-SPI.\n\(result)\(packageHints(forStderr: result.stderr))\n--- tree of \(app) ---\n\(tree)")
        }
        do { return try JSONDecoder().decode(AccessibleInfo.self, from: Data(json.utf8)) } catch {
            throw DesktopError("Cannot read the AT-SPI answer \(json): \(error)")
        }
    }

    /// The showing accessible of `role` in `app` whose extents hold the point (screen
    /// coordinates): one of many widgets of the same name, such as a window's check boxes.
    func findAccessible(app: String, role: String, at point: (Double, Double)) throws -> AccessibleInfo {
        let result = try atspiQuery(["find-at", app, role, String(point.0), String(point.1)])
        guard result.status == 0, let json = result.stdoutLines.last else {
            let tree = (try? atspiQuery(["tree", app]).stdout) ?? ""
            throw DesktopError("Finding the \(role) at \(point) in \(app) over AT-SPI.\n\(result)\n--- tree of \(app) ---\n\(tree)")
        }
        do { return try JSONDecoder().decode(AccessibleInfo.self, from: Data(json.utf8)) } catch {
            throw DesktopError("Cannot read the AT-SPI answer \(json): \(error)")
        }
    }

    /// The whole accessible tree of `app`, one node a line (for failure messages).
    func accessibleTree(app: String) throws -> String {
        try atspiQueryOrThrow(["tree", app]).stdout
    }

    /// Performs the AT-SPI action called `action` on the first `role` named `name`.
    func doAction(app: String, role: String, name: String, action: String) throws {
        _ = try atspiQueryOrThrow(["action", app, role, name, action])
    }

    /// Value.set_current_value on the first `role` named `name`.
    func setValue(app: String, role: String, name: String, to value: Double) throws {
        _ = try atspiQueryOrThrow(["set-value", app, role, name, String(value)])
    }

    /// The X CLIPBOARD's text now (read by GTK 3 through /usr/bin/python3); "" when no
    /// client holds text there.
    func clipboardText() throws -> String {
        let script = "import gi; gi.require_version('Gtk', '3.0'); from gi.repository import Gtk, Gdk; "
            + "print(Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD).wait_for_text() or '', end='')"
        let result = try ChildProcess.run(DesktopTool.python3.path, ["-c", script], environment: environment, scratch: scratch, timeout: 10)
        guard result.status == 0, !result.timedOut else {
            throw DesktopError("Reading the clipboard failed.\n\(result)\(packageHints(forStderr: result.stderr))")
        }
        return result.stdout
    }

    // MARK: switchscan

    /// The built `switchscan` next to the test bundle (or the newest under .build*).
    func switchscanBinary() throws -> URL {
        guard let binary = SwitchscanBinary.url else {
            throw DesktopError("the switchscan executable was not found (SWITCHSCAN_EXECUTABLE, next to the test bundle, or under .build*/debug)")
        }
        return binary
    }

    /// Runs `switchscan ARGS…` to its end in the session (package root as current directory),
    /// stdout and stderr through files. A run longer than `timeout` is killed and recorded
    /// as a test failure (with what it printed).
    func runSwitchscan(_ args: [String], stdin: String? = nil, timeout: Double = 20,
                       sourceLocation: SourceLocation = #_sourceLocation) throws -> ToolResult {
        // `switchscan-bench ARGS…`: the benchmarks' tool, built beside switchscan.
        var tool = try switchscanBinary(), args = args
        if args.first == "switchscan-bench" {
            tool = tool.deletingLastPathComponent().appendingPathComponent("switchscan-bench")
            args.removeFirst()
        }
        let result = try ChildProcess.run(tool.path, args, environment: environment, scratch: scratch,
                                          directory: Self.packageRoot, stdin: stdin, timeout: timeout)
        if result.timedOut {
            Issue.record("switchscan \(args.joined(separator: " ")) did not finish within \(timeout) s; killed.\n\(result)", sourceLocation: sourceLocation)
        }
        return result
    }

    /// Runs `switchscan ARGS…` in the session through `sh -c SCRIPT` ("$0" is the binary, "$@"
    /// the arguments), for what only a shell sets up (a closed standard stream).
    func runSwitchscan(shell script: String, _ args: [String], timeout: Double = 20) throws -> ToolResult {
        try ChildProcess.run("/bin/sh", ["-c", script, try switchscanBinary().path] + args, environment: environment, scratch: scratch,
                             directory: Self.packageRoot, timeout: timeout)
    }

    /// Starts a long-running `switchscan ARGS…` in the session with a pipe on its stdin.
    func startSwitchscan(_ args: [String], extraEnvironment: [String: String] = [:]) throws -> LiveProcess {
        let errURL = directory.appendingPathComponent("switchscan-\(UUID().uuidString.prefix(8)).stderr")
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let errHandle = try FileHandle(forWritingTo: errURL)
        defer { try? errHandle.close() }
        let child = try ChildProcess.startPiped(try switchscanBinary().path, args,
                                                environment: environment.merging(extraEnvironment) { $1 },
                                                directory: Self.packageRoot, stdinPipe: true, stderr: errHandle)
        try register(child.process)
        return LiveProcess(arguments: args, process: child.process, input: child.input!,
                           output: LineCollector(reading: child.output), stderrURL: errURL)
    }

    // MARK: X11: windows, pointer, keys, screen

    /// Runs an X client (xdotool, xprop, xwininfo, …) in the session.
    func runX(_ tool: DesktopTool, _ arguments: [String], timeout: Double = 10) throws -> ToolResult {
        try tool.require()
        let result = try ChildProcess.run(tool.path, arguments, environment: environment, scratch: scratch, timeout: timeout)
        if result.timedOut { throw DesktopError("timed out.\n\(result)") }
        return result
    }

    /// X window ids (decimal, as xdotool prints them) of the windows whose title matches the
    /// regular expression `name`; only mapped ones unless `onlyVisible` is false.
    func windowIDs(named name: String, onlyVisible: Bool = true) throws -> [String] {
        let result = try runX(.xdotool, ["search"] + (onlyVisible ? ["--onlyvisible"] : []) + ["--name", name])
        return result.stdoutLines
    }

    /// Waits for a mapped window whose title is exactly `title`; returns its id.
    @discardableResult
    func waitForWindow(titled title: String, timeout: Double = 5) throws -> String {
        let pattern = "^" + NSRegularExpression.escapedPattern(for: title) + "$"
        // --sync: xdotool itself waits until such a window is there.
        let found = try runX(.xdotool, ["search", "--sync", "--onlyvisible", "--name", pattern], timeout: timeout)
        if let id = found.stdoutLines.first, !found.timedOut { return id }
        let all = try runX(.xwininfo, ["-root", "-tree"]).stdout
        throw DesktopError("No mapped window titled \"\(title)\" after \(timeout) s.\n--- xwininfo -root -tree ---\n\(all)")
    }

    /// Activates (raises and focuses, through the window manager) the window titled `title`.
    func activateWindow(titled title: String, timeout: Double = 5) throws {
        let id = try waitForWindow(titled: title, timeout: timeout)
        let result = try runX(.xdotool, ["windowactivate", "--sync", id], timeout: timeout)
        guard result.status == 0 else { throw DesktopError("Activating \"\(title)\" failed.\n\(result)") }
    }

    /// The title of the active window (needs the window manager).
    func activeWindowTitle() throws -> String {
        try runX(.xdotool, ["getactivewindow", "getwindowname"]).stdout.trimmingCharacters(in: .newlines)
    }

    /// The window's client area on the screen (xwininfo's absolute position, without the
    /// window manager's frame; `xdotool getwindowgeometry` is off under openbox).
    func windowFrame(id: String) throws -> ScreenRect {
        let result = try runX(.xwininfo, ["-id", id])
        func value(_ key: String) -> Int? {
            result.stdoutLines.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(key) }
                .flatMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") }
        }
        guard let x = value("Absolute upper-left X"), let y = value("Absolute upper-left Y"),
              let w = value("Width"), let h = value("Height")
        else { throw DesktopError("Cannot read the geometry of window \(id).\n\(result)") }
        return ScreenRect(x: x, y: y, width: w, height: h)
    }

    /// A real pointer click (XTest, through xdotool) at screen point (x, y).
    func click(x: Int, y: Int, button: Int = 1) throws {
        let result = try runX(.xdotool, ["mousemove", "--sync", String(x), String(y), "click", String(button)])
        guard result.status == 0 else { throw DesktopError("Clicking at \(x),\(y) failed.\n\(result)") }
    }

    /// A real pointer click at the centre of an accessible's screen extents.
    func click(_ accessible: AccessibleInfo) throws {
        guard let frame = accessible.frame, frame.x != Int(Int32.min), frame.width > 0, frame.height > 0 else {
            throw DesktopError("Cannot click \(accessible): it has no extents on the screen")
        }
        try click(x: frame.center.x, y: frame.center.y)
    }

    /// Real key presses (XTest, through xdotool), e.g. `key("Tab")`, `key("ctrl+a")`.
    func key(_ keys: String...) throws {
        let result = try runX(.xdotool, ["key"] + keys)
        guard result.status == 0 else { throw DesktopError("xdotool key \(keys) failed.\n\(result)") }
    }

    /// Saves a screenshot of the whole screen (ImageMagick `import`; the format follows the
    /// file's extension, e.g. .png).
    func screenshot(to url: URL) throws {
        let result = try runX(.importImage, ["-window", "root", url.path])
        guard result.status == 0 else { throw DesktopError("Screenshot failed.\n\(result)") }
    }

    /// The whole screen, now, as 8-bit RGB pixels.
    func captureScreen() throws -> ScreenImage {
        let file = scratch.appendingPathComponent("screen-\(UUID().uuidString.prefix(8)).ppm")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try runX(.importImage, ["-window", "root", "-depth", "8", "ppm:" + file.path])
        guard result.status == 0 else { throw DesktopError("Screen capture failed.\n\(result)") }
        return try ScreenImage(ppm: Data(contentsOf: file))
    }

    /// Reads a PNG (or anything ImageMagick reads) as 8-bit RGB pixels.
    func loadImage(_ url: URL) throws -> ScreenImage {
        if url.pathExtension.lowercased() == "ppm" { return try ScreenImage(ppm: Data(contentsOf: url)) }
        let file = scratch.appendingPathComponent("image-\(UUID().uuidString.prefix(8)).ppm")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try runX(.convertImage, [url.path, "-depth", "8", "ppm:" + file.path])
        guard result.status == 0 else { throw DesktopError("Reading \(url.path) failed.\n\(result)") }
        return try ScreenImage(ppm: Data(contentsOf: file))
    }

    // MARK: Processes of a session

    /// A living process of some session (found through its environment).
    struct MarkedProcess: Sendable, CustomStringConvertible {
        var pid: Int32
        var marker: String
        var command: String
        var description: String { "\(pid) \(command)" }
    }

    /// Living processes (not zombies) whose environment carries `marker` (or any session's
    /// marker when nil), read from /proc.
    static func markedProcesses(_ marker: String? = nil) -> [MarkedProcess] {
        let prefix = Array("\(markerVariable)=".utf8)
        var found: [MarkedProcess] = []
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), pid != getpid(),
                  let environ = FileManager.default.contents(atPath: "/proc/\(entry)/environ")  // empty for zombies
            else { continue }
            for variable in environ.split(separator: 0) where variable.starts(with: prefix) {
                let value = String(decoding: variable.dropFirst(prefix.count), as: UTF8.self)
                guard marker == nil || value == marker else { continue }
                let cmdline = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") ?? Data()
                let command = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
                found.append(MarkedProcess(pid: pid, marker: value, command: command))
            }
        }
        return found
    }

    /// SIGKILL to every process still carrying `marker` (services the session bus activated
    /// live in its process group, but a service may start a group of its own).
    static func killMarked(_ marker: String) {
        for _ in 0..<5 {
            let left = markedProcesses(marker)
            if left.isEmpty { return }
            for p in left { kill(p.pid, SIGKILL) }
            for p in left { _ = ChildProcess.waitGone(p.pid, timeout: 1) }
        }
    }

    /// Ends what earlier test runs that crashed left behind: processes and directories of
    /// sessions whose test process is gone.
    static func cleanUpAfterDeadRuns() {
        func ownerAlive(_ pid: Int32) -> Bool { kill(pid, 0) == 0 || errno == EPERM }
        for p in markedProcesses() {
            if let owner = Int32(p.marker.split(separator: ":").first ?? ""), !ownerAlive(owner) { kill(p.pid, SIGKILL) }
        }
        let tmp = FileManager.default.temporaryDirectory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: tmp.path)) ?? [] where name.hasPrefix("switchscan-desktop-") {
            let parts = name.split(separator: "-")
            if parts.count >= 4, let owner = Int32(parts[2]), !ownerAlive(owner) {
                try? FileManager.default.removeItem(at: tmp.appendingPathComponent(name))
            }
        }
    }

    // MARK: Helpers

    private static func flag(_ name: String, in args: [String]) -> String? {
        guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
        return args[i + 1]
    }

    private static func read(_ url: URL) -> String {
        "--- \(url.lastPathComponent) ---\n" + String(decoding: (try? Data(contentsOf: url)) ?? Data(), as: UTF8.self)
    }

    static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }
}

/// A rectangle in screen pixels.
struct ScreenRect: Equatable, Sendable, CustomStringConvertible {
    var x: Int
    var y: Int
    var width: Int
    var height: Int

    var center: (x: Int, y: Int) { (x + width / 2, y + height / 2) }
    func contains(x px: Int, y py: Int) -> Bool { px >= x && px < x + width && py >= y && py < y + height }
    var description: String { "[\(x),\(y) \(width)x\(height)]" }
}

/// One accessible as AT-SPI reports it (extents in screen coordinates; under openbox the
/// frame of a window includes the window manager's decorations).
struct AccessibleInfo: Decodable, Sendable, CustomStringConvertible {
    var role: String
    var name: String
    var states: [String]
    var actions: [String]
    var x: Int?
    var y: Int?
    var width: Int?
    var height: Int?
    var value: Double?
    var minimum: Double?
    var maximum: Double?
    var step: Double?

    /// The screen extents; nil without a Component interface. Hidden widgets report
    /// INT_MIN,INT_MIN 1x1 (P8).
    var frame: ScreenRect? {
        guard let x, let y, let width, let height else { return nil }
        return ScreenRect(x: x, y: y, width: width, height: height)
    }

    func has(_ state: String) -> Bool { states.contains(state) }

    var description: String {
        "\(role) \"\(name)\" {\(states.joined(separator: ","))} \(frame.map(\.description) ?? "") actions=\(actions.joined(separator: "|"))"
            + (value.map { " value=\($0)" } ?? "")
    }
}

/// The built `switchscan` executable (`TestPaths.executable`).
enum SwitchscanBinary {
    static let url: URL? = TestPaths.executable(named: "switchscan", chosen: true)
}

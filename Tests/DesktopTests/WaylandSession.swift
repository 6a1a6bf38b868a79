import Foundation
import ScreenScene
import Testing

#if canImport(Glibc)
import Glibc
#endif
import TestSupport

extension DesktopTool {
    static let sway = DesktopTool(path: "/usr/bin/sway", package: "sway")
    static let grim = DesktopTool(path: "/usr/bin/grim", package: "grim")
    static let runuser = DesktopTool(path: "/usr/sbin/runuser", package: "util-linux")
    static let useradd = DesktopTool(path: "/usr/sbin/useradd", package: "passwd")
    static let xwayland = DesktopTool(path: "/usr/bin/Xwayland", package: "xwayland")
    static let kwin = DesktopTool(path: "/usr/bin/kwin_wayland", package: "kwin-wayland")
    static let gnomeShell = DesktopTool(path: "/usr/bin/gnome-shell", package: "gnome-shell")
    static let pipeWire = DesktopTool(path: "/usr/bin/pipewire", package: "pipewire")
}

/// A private Wayland desktop for one test: headless sway (pixman renderer, one 1280 × 800
/// output unless told otherwise, every native window floated to 200,150; with `xwayland`,
/// XWayland running and every X11 window floated to `x11Corner`) with a private session bus,
/// from which the accessibility bus is D-Bus-activated. sway refuses to run as root: when the tests do,
/// the session's processes (sway, the applications, switchscan and the AT-SPI queries) run
/// as the unprivileged user `switchscan-wl`, made here the first time (GTK applications
/// refuse AT-SPI calls from another user). switchscan and the query script are copied into
/// the session's directory, so that user can run them wherever the checkout lies.
/// `stop()` (also run by deinit) ends every process carrying the session's marker.
///
/// With `compositor: .kwin`, headless KWin (`kwin_wayland --virtual`, OpenGL compositing on
/// the CPU, which its screenshots need) in place of sway: a window rule places every normal
/// window at `windowCorner` (with `xwayland`, one whose whole class holds "x11", as the
/// fixtures started through XWayland are named, at `x11Corner`), and .desktop files in the session's
/// home give the session's copies of switchscan and switchscan-bench KWin's fake input, as
/// the package's does for /usr/bin/switchscan.
///
/// With `compositor: .gnome`, headless GNOME Shell (one virtual monitor, an empty bus as its
/// system bus, `--unsafe-mode` for its screenshots) with SwitchScan's extension installed
/// as the package installs it (packaging/gnome-shell, its entry point picked by the
/// package's script) in a data folder of the session's, and enabled (unless `extension`
/// says otherwise) before the shell starts; the overview it starts in is closed.
final class WaylandSession: @unchecked Sendable {
    enum Compositor { case sway, kwin, gnome }
    /// The extension under GNOME Shell: installed and enabled, installed but not enabled, or
    /// not installed.
    enum Extension { case enabled, disabled, absent }
    let compositorKind: Compositor
    static let user = "switchscan-wl"
    let screenWidth: Int, screenHeight: Int
    /// Where sway floats every native window.
    let windowCorner = (x: 200, y: 150)
    /// Where sway floats every X11 window (title bar included), with `xwayland`.
    let x11Corner = (x: 900, y: 150)
    let xwayland: Bool
    let directory: URL
    let runtime: URL
    /// The environment of every process of the session (WAYLAND_DISPLAY, SWAYSOCK, the bus).
    private(set) var environment: [String: String]
    let marker: String
    private let scratch: URL
    private let asUser: Bool
    private var services: [ChildProcess] = []
    /// sway (through runuser when the tests run as root).
    private var compositor: ChildProcess?
    private var stopped = false
    private var x11Display: String?

    let extensionState: Extension
    /// Held from the start to `stop()`: GNOME Shell's alone, the others' beside each other.
    private let slot: DesktopSlot.Hold

    /// GNOME only: PipeWire runs in the session (as a desktop's user manager starts it), so
    /// Mutter's screen casts, and with them absolute pointer motion, can start.
    let pipeWire: Bool
    /// GNOME only: a second monitor of this size, right of the first.
    let secondMonitor: (width: Int, height: Int)?

    init(width: Int = 1280, height: Int = 800, xwayland: Bool = false, compositor kind: Compositor = .sway, shellExtension: Extension = .enabled,
         pipeWire: Bool = false, secondMonitor: (width: Int, height: Int)? = nil) throws {
        let tools: [DesktopTool] = switch kind {
        case .sway: [.sway, .grim]
        case .kwin: [.kwin]
        case .gnome: [.gnomeShell, .convertImage]
        }
        extensionState = shellExtension
        self.pipeWire = pipeWire
        self.secondMonitor = secondMonitor
        slot = kind == .gnome ? DesktopSlot.exclusive() : DesktopSlot.shared()
        for tool in tools + [.dbusDaemon, .atspiBusLauncher, .python3] + (pipeWire ? [.pipeWire] : []) { try tool.require() }
        if xwayland { try DesktopTool.xwayland.require() }
        compositorKind = kind
        screenWidth = width
        screenHeight = height
        self.xwayland = xwayland
        signal(SIGPIPE, SIG_IGN)
        DesktopSession.cleanUpAfterDeadRuns()
        asUser = getuid() == 0
        let fm = FileManager.default
        let id = UUID().uuidString.prefix(8).lowercased()
        marker = "\(getpid()):\(id)"
        // The name DesktopSession's clean-up knows: removed when its test process is gone.
        directory = fm.temporaryDirectory.appendingPathComponent("switchscan-desktop-\(getpid())-\(id)-wayland", isDirectory: true)
        runtime = directory.appendingPathComponent("run")
        scratch = directory.appendingPathComponent("scratch")
        let home = directory.appendingPathComponent("home")
        try fm.createDirectory(at: scratch, withIntermediateDirectories: true)
        try fm.createDirectory(at: home, withIntermediateDirectories: true)
        try fm.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        if asUser {
            try Self.makeUser()
            for dir in [runtime, home] {
                let r = try ChildProcess.run("/bin/chown", ["-R", Self.user, dir.path], environment: [:], scratch: scratch)
                guard r.status == 0 else { throw DesktopError("Giving \(dir.path) to \(Self.user) failed.\n\(r)") }
            }
        }
        environment = [
            "PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
            "HOME": home.path,
            "XDG_RUNTIME_DIR": runtime.path,
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(runtime.path)/bus",
            "SWAYSOCK": runtime.appendingPathComponent("sway.sock").path,
            "GSETTINGS_BACKEND": "memory",
            "LANG": "C.UTF-8",
            "GTK_THEME": "Adwaita",
            "GDK_BACKEND": "wayland",
            "PYTHONDONTWRITEBYTECODE": "1",
            DesktopSession.markerVariable: marker,
        ]
        if let ld = ProcessInfo.processInfo.environment["LD_LIBRARY_PATH"] { environment["LD_LIBRARY_PATH"] = ld }
        if let asan = ProcessInfo.processInfo.environment["ASAN_OPTIONS"] { environment["ASAN_OPTIONS"] = asan }
        do {
            try start()
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// The user the session runs as, made once (a system user without a home or a shell).
    private static func makeUser() throws {
        if getpwnam(user) != nil { return }
        try DesktopTool.useradd.require()
        // Another test process may be making it at the same moment (the files are locked).
        var last: ToolResult?
        let made = try TestTime.poll(timeout: 2, every: 0.2) {
            let r = try ChildProcess.run(DesktopTool.useradd.path, ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", user],
                                         environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"], scratch: FileManager.default.temporaryDirectory)
            last = r
            return r.status == 0 || getpwnam(user) != nil
        }
        if made { return }
        throw DesktopError("Making the user \(user) for sway failed.\n\(last.map { "\($0)" } ?? "")")
    }

    private func start() throws {
        let bus = directory.appendingPathComponent("bus.conf")
        // A session bus that lets root in too (the test process reads nothing through it, but
        // a root shell debugging a session can).
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(runtime.path)/bus</listen>
              <auth>EXTERNAL</auth>
              <standard_session_servicedirs/>
              <policy context="default">
                <allow user="root"/>
                <allow user="\(asUser ? Self.user : String(cString: getpwuid(getuid()).pointee.pw_name))"/>
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """.write(to: bus, atomically: true, encoding: .utf8)
        let config = directory.appendingPathComponent("sway.conf")
        try """
            output HEADLESS-1 resolution \(screenWidth)x\(screenHeight) position 0 0
            for_window [app_id=".*"] floating enable, move position \(windowCorner.x) \(windowCorner.y)
            for_window [class=".*"] floating enable, move position \(x11Corner.x) \(x11Corner.y)
            xwayland \(xwayland ? "enable" : "disable")
            """.write(to: config, atomically: true, encoding: .utf8)
        for file in [bus, config] { try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path) }
        let log = directory.appendingPathComponent("services.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: log.path)
        services.append(try spawn("/usr/bin/dbus-daemon", ["--config-file=\(bus.path)", "--nofork"], log: log))
        try wait("the session bus", timeout: 10) { FileManager.default.fileExists(atPath: self.runtime.appendingPathComponent("bus").path) }
        if compositorKind == .kwin { return try startKWin(log: log) }
        if compositorKind == .gnome { return try startGnome(log: log) }
        var swayEnv = ["WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman", "WLR_HEADLESS_OUTPUTS": "1"]
        swayEnv["XDG_CURRENT_DESKTOP"] = "sway"
        let sway = try spawn(DesktopTool.sway.path, ["-c", config.path], extra: swayEnv, log: log)
        services.append(sway)
        compositor = sway
        let sock = environment["SWAYSOCK"]!
        try wait("sway's IPC socket", timeout: 10) { FileManager.default.fileExists(atPath: sock) }
        // sway takes the first free wayland-N in the runtime directory.
        var display: String?
        try wait("sway's Wayland socket", timeout: 10) {
            display = (try? FileManager.default.contentsOfDirectory(atPath: self.runtime.path))?
                .first { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }
            return display != nil
        }
        environment["WAYLAND_DISPLAY"] = display
        environment["XDG_CURRENT_DESKTOP"] = "sway"
    }

    /// KWin, as `init` says. `/usr/bin/kwin_wayland` carries a file capability that a
    /// container's bounding set may lack (exec then fails): a copy without it runs, named
    /// kwin_wayland, as KWin's built-in platform plugin wants.
    private func startKWin(log: URL) throws {
        let fm = FileManager.default
        let bin = directory.appendingPathComponent("kwin")
        try fm.createDirectory(at: bin, withIntermediateDirectories: true)
        try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bin.path)
        let kwin = bin.appendingPathComponent("kwin_wayland")
        try fm.copyItem(at: URL(fileURLWithPath: DesktopTool.kwin.path), to: kwin)
        try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: kwin.path)
        let home = URL(fileURLWithPath: environment["HOME"]!)
        let config = home.appendingPathComponent(".config"), apps = home.appendingPathComponent(".local/share/applications")
        try fm.createDirectory(at: config, withIntermediateDirectories: true)
        try fm.createDirectory(at: apps, withIntermediateDirectories: true)
        // Every normal window placed at the corner when it first shows; the first rule that
        // matches places it.
        try """
            [General]
            count=2
            rules=1,2

            [1]
            Description=X11 fixtures
            position=\(x11Corner.x),\(x11Corner.y)
            positionrule=3
            types=1
            wmclass=x11
            wmclasscomplete=true
            wmclassmatch=2

            [2]
            Description=Every other window
            position=\(windowCorner.x),\(windowCorner.y)
            positionrule=3
            types=1
            wmclassmatch=0

            """.write(to: config.appendingPathComponent("kwinrulesrc"), atomically: true, encoding: .utf8)
        // The session's copies of the tools, allowed KWin's fake input as the package's
        // switchscan.desktop allows /usr/bin/switchscan.
        for tool in ["switchscan", "switchscan-bench"] {
            guard let built = SwitchscanBinary.url?.deletingLastPathComponent().appendingPathComponent(tool) else { continue }
            let path = try copy(built)
            try """
                [Desktop Entry]
                Type=Application
                Name=\(tool) (tests)
                Exec=\(path)
                NoDisplay=true
                X-KDE-Wayland-Interfaces=org_kde_kwin_fake_input

                """.write(to: apps.appendingPathComponent("\(tool)-tests.desktop"), atomically: true, encoding: .utf8)
        }
        if asUser {
            let r = try ChildProcess.run("/bin/chown", ["-R", Self.user, home.path], environment: [:], scratch: scratch)
            guard r.status == 0 else { throw DesktopError("Giving \(home.path) to \(Self.user) failed.\n\(r)") }
        }
        let display = "wayland-1"
        let k = try spawn(kwin.path, ["--virtual", "--socket", display, "--width", "\(screenWidth)", "--height", "\(screenHeight)", "--no-lockscreen"]
                            + (xwayland ? ["--xwayland"] : []),
                          extra: ["KWIN_COMPOSE": "O2", "KWIN_SCREENSHOT_NO_PERMISSION_CHECKS": "1", "XDG_CURRENT_DESKTOP": "KDE"], log: log)
        services.append(k)
        compositor = k
        try wait("KWin's Wayland socket", timeout: 15) { fm.fileExists(atPath: self.runtime.appendingPathComponent(display).path) }
        // KWin's D-Bus interfaces (scripting, screenshots) come a moment after its socket.
        try wait("KWin on the session bus", timeout: 15) {
            (try? self.run("/usr/bin/dbus-send", ["--session", "--print-reply", "--dest=org.kde.KWin", "/Scripting", "org.freedesktop.DBus.Peer.Ping"], timeout: 5))?.status == 0
        }
        environment["WAYLAND_DISPLAY"] = display
        environment["XDG_CURRENT_DESKTOP"] = "KDE"
        environment["SWAYSOCK"] = nil
    }

    /// GNOME Shell, as `init` says.
    private func startGnome(log: URL) throws {
        let fm = FileManager.default
        let home = URL(fileURLWithPath: environment["HOME"]!)
        // Its system bus: an empty one (no logind, no PolicyKit), as GNOME Shell needs one.
        let sysbus = directory.appendingPathComponent("sysbus.conf")
        try String(contentsOf: directory.appendingPathComponent("bus.conf"), encoding: .utf8)
            .replacingOccurrences(of: "\(runtime.path)/bus<", with: "\(runtime.path)/sysbus<")
            .write(to: sysbus, atomically: true, encoding: .utf8)
        try fm.setAttributes([.posixPermissions: 0o644], ofItemAtPath: sysbus.path)
        services.append(try spawn("/usr/bin/dbus-daemon", ["--config-file=\(sysbus.path)", "--nofork"], log: log))
        try wait("the system bus", timeout: 10) { fm.fileExists(atPath: self.runtime.appendingPathComponent("sysbus").path) }
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(runtime.path)/sysbus"
        // The extension where the package puts it, in a data folder of the session's.
        let share = directory.appendingPathComponent("share")
        let extensions = share.appendingPathComponent("gnome-shell/extensions")
        try fm.createDirectory(at: extensions, withIntermediateDirectories: true)
        if extensionState != .absent {
            let installed = extensions.appendingPathComponent(Self.extensionUUID)
            try fm.copyItem(at: Self.extensionSource, to: installed)
            let r = try ChildProcess.run(Self.pickEntry.path, [installed.path], environment: ["PATH": "/usr/bin:/bin"], scratch: scratch)
            guard r.status == 0 else { throw DesktopError("The package's pick-entry failed.\n\(r)") }
        }
        _ = try ChildProcess.run("/bin/chmod", ["-R", "a+rX", share.path], environment: [:], scratch: scratch)
        environment["XDG_DATA_DIRS"] = "\(share.path):/usr/local/share:/usr/share"
        // Settings kept in a file of the session's home (GNOME Shell and gsettings share it).
        environment["GSETTINGS_BACKEND"] = "keyfile"
        let settings = home.appendingPathComponent(".config/glib-2.0/settings")
        try fm.createDirectory(at: settings, withIntermediateDirectories: true)
        try """
            [org/gnome/shell]
            enabled-extensions=\(extensionState == .enabled ? "['\(Self.extensionUUID)']" : "@as []")
            disable-user-extensions=false

            """.write(to: settings.appendingPathComponent("keyfile"), atomically: true, encoding: .utf8)
        if asUser {
            let r = try ChildProcess.run("/bin/chown", ["-R", Self.user, home.path], environment: [:], scratch: scratch)
            guard r.status == 0 else { throw DesktopError("Giving \(home.path) to \(Self.user) failed.\n\(r)") }
        }
        environment["XDG_CURRENT_DESKTOP"] = "GNOME"
        environment["SWAYSOCK"] = nil
        if pipeWire {
            // The package's configuration; a screen cast needs no session manager.
            services.append(try spawn(DesktopTool.pipeWire.path, [], log: log))
            try wait("PipeWire's socket", timeout: 10) { fm.fileExists(atPath: self.runtime.appendingPathComponent("pipewire-0").path) }
        }
        try startShell(log: log)
    }

    static let extensionUUID = "switchscan@switchscan.org"
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let extensionSource = WaylandSession.repositoryRoot.appendingPathComponent("packaging/gnome-shell/\(WaylandSession.extensionUUID)")
    static let pickEntry = WaylandSession.repositoryRoot.appendingPathComponent("packaging/gnome-shell/pick-entry")

    /// GNOME Shell on the session's buses; ready once it answers on the bus (and the
    /// extension with it, when enabled), its overview closed.
    private func startShell(log: URL) throws {
        // A shell killed soon after it started leaves this behind, and would start with every
        // extension off.
        try? FileManager.default.removeItem(at: runtime.appendingPathComponent("gnome-shell-disable-extensions"))
        let display = "wayland-g"
        let second = secondMonitor.map { ["--virtual-monitor", "\($0.width)x\($0.height)"] } ?? []
        let shell = try spawn(DesktopTool.gnomeShell.path, ["--headless", "--wayland", "--no-x11", "--virtual-monitor", "\(screenWidth)x\(screenHeight)"] + second
                                                          + ["--wayland-display", display, "--unsafe-mode"], log: log)
        services.append(shell)
        compositor = shell
        environment["WAYLAND_DISPLAY"] = display
        let name = extensionState == .enabled ? "org.switchscan.Shell" : "org.gnome.Shell"
        try wait("GNOME Shell (\(name) on the session bus)", timeout: 30) {
            (try? self.run(DesktopTool.dbusSend.path, ["--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                       "org.freedesktop.DBus.GetNameOwner", "string:\(name)"], timeout: 5))?.status == 0
        }
        try hideOverview()
    }

    /// Closes the overview headless GNOME Shell starts in (once its start-up is complete).
    private func hideOverview() throws {
        try wait("GNOME Shell's overview to close", timeout: 15) {
            let r = try? self.run(DesktopTool.dbusSend.path, ["--session", "--print-reply", "--dest=org.gnome.Shell", "/org/gnome/Shell", "org.gnome.Shell.Eval",
                                                              "string:Main.layoutManager._startingUp ? 'starting' : (Main.overview.hide(), Main.overview.visible ? 'open' : 'closed')"], timeout: 5)
            return r?.stdout.contains("\"closed\"") == true
        }
    }

    /// Ends GNOME Shell and starts it again, as a login would.
    func restartShell() throws {
        stopCompositor()
        try startShell(log: directory.appendingPathComponent("services.log"))
    }

    private func wait(_ what: String, timeout: Double, _ ready: () -> Bool) throws {
        guard !TestTime.poll(timeout: timeout, until: ready) else { return }
        let log = (try? String(contentsOf: directory.appendingPathComponent("services.log"), encoding: .utf8)) ?? ""
        throw DesktopError("\(what) did not come within \(timeout) s.\n--- services.log ---\n\(log)")
    }

    /// `path ARGS…` as the session's user, with its environment (and `extra`).
    private func command(_ path: String, _ args: [String], extra: [String: String] = [:]) -> (String, [String]) {
        let env = environment.merging(extra) { $1 }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        if asUser { return (DesktopTool.runuser.path, ["-u", Self.user, "--", "/usr/bin/env", "-i"] + env + [path] + args) }
        return ("/usr/bin/env", ["-i"] + env + [path] + args)
    }

    private func spawn(_ path: String, _ args: [String], extra: [String: String] = [:], log: URL) throws -> ChildProcess {
        let (p, a) = command(path, args, extra: extra)
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        handle.seekToEndOfFile()
        let null = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/null"))
        defer { try? null.close() }
        return try ChildProcess(p, a, environment: environment, stdin: null.fileDescriptor, stdout: handle.fileDescriptor, stderr: handle.fileDescriptor)
    }

    /// Starts an application in the session (natively unless `environment` says otherwise).
    func launch(_ path: String, _ args: [String] = [], extra: [String: String] = [:]) throws {
        services.append(try spawn(path, args, extra: extra, log: directory.appendingPathComponent("services.log")))
    }

    /// Starts `path ARGS…` in the session, left running (it ends with the session).
    func startBackground(_ path: String, _ args: [String]) throws -> ChildProcess {
        let p = try spawn(path, args, log: directory.appendingPathComponent("services.log"))
        services.append(p)
        return p
    }

    /// Runs `path ARGS…` to its end in the session.
    func run(_ path: String, _ args: [String], extra: [String: String] = [:], timeout: Double = 20) throws -> ToolResult {
        let (p, a) = command(path, args, extra: extra)
        let r = try ChildProcess.run(p, a, environment: environment, scratch: scratch, directory: directory, timeout: timeout)
        if r.timedOut { Issue.record("\(path) \(args.joined(separator: " ")) did not finish within \(timeout) s.\n\(r)") }
        return r
    }

    /// A copy of `source` the session's user can run, in the session's directory.
    private func copy(_ source: URL) throws -> String {
        let target = directory.appendingPathComponent(source.lastPathComponent)
        if !FileManager.default.fileExists(atPath: target.path) {
            try FileManager.default.copyItem(at: source, to: target)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: target.path)
        }
        return target.path
    }

    /// `switchscan ARGS…` to its end; `switchscan-bench ARGS…` with that first.
    func runSwitchscan(_ args: [String], timeout: Double = 30) throws -> ToolResult {
        guard var binary = SwitchscanBinary.url else { throw DesktopError("the switchscan executable was not found") }
        var args = args
        if args.first == "switchscan-bench" {
            binary = binary.deletingLastPathComponent().appendingPathComponent("switchscan-bench")
            args.removeFirst()
        }
        return try run(try copy(binary), args, timeout: timeout)
    }

    /// Starts a long-running `switchscan ARGS…` in the session with a pipe on its stdin.
    func startSwitchscan(_ args: [String]) throws -> LiveProcess {
        guard let binary = SwitchscanBinary.url else { throw DesktopError("the switchscan executable was not found") }
        let (p, a) = command(try copy(binary), args)
        let errURL = directory.appendingPathComponent("switchscan-\(UUID().uuidString.prefix(8)).stderr")
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let errHandle = try FileHandle(forWritingTo: errURL)
        defer { try? errHandle.close() }
        let child = try ChildProcess.startPiped(p, a, environment: environment, directory: directory, stdinPipe: true, stderr: errHandle)
        services.append(child.process)
        return LiveProcess(arguments: args, process: child.process, input: child.input!, output: LineCollector(reading: child.output), stderrURL: errURL)
    }

    func atspiQuery(_ args: [String], timeout: Double = 15) throws -> ToolResult {
        try run(DesktopTool.python3.path, [try copy(DesktopSession.atspiQueryScript)] + args, timeout: timeout)
    }

    func waitForApplication(named name: String, timeout: Double = 20) throws {
        let r = try atspiQuery(["wait-app", name, String(timeout)], timeout: timeout + 10)
        guard r.status == 0 else { throw DesktopError("Waiting for \(name) on the AT-SPI desktop.\n\(r)\n\(log())") }
    }

    /// XWayland's display, as sway gives it to what it starts (it sets DISPLAY once XWayland's
    /// sockets are made).
    func xwaylandDisplay() throws -> String {
        guard xwayland else { throw DesktopError("the session was started without XWayland (WaylandSession(xwayland: true) starts it)") }
        if let known = x11Display { return known }
        if compositorKind == .kwin {
            // KWin starts XWayland itself, on the first free display: its command line names it.
            var display = ""
            try wait("KWin's XWayland", timeout: 15) {
                let x = DesktopSession.markedProcesses(self.marker).first { $0.command.hasPrefix(DesktopTool.xwayland.path + " :") }
                display = x?.command.split(separator: " ").dropFirst().first.map(String.init) ?? ""
                let number = display.dropFirst()
                return !number.isEmpty && FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)")
            }
            x11Display = display
            return display
        }
        let file = runtime.appendingPathComponent("display")
        let r = try run("/usr/bin/swaymsg", ["exec", "printf %s \"$DISPLAY\" > \(file.path).new && mv \(file.path).new \(file.path)"])
        guard r.status == 0 else { throw DesktopError("swaymsg exec failed.\n\(r)") }
        var display = ""
        try wait("sway's DISPLAY", timeout: 10) {
            display = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            return !display.isEmpty
        }
        x11Display = display
        return display
    }

    /// Starts `Fixtures/fixture.py` in the session, natively or (`x11`) through XWayland, and
    /// waits until it is ready and on the AT-SPI desktop.
    /// `script`: another fixture of Fixtures/ (dialogs.py), named `defaultName` unless told.
    func startFixture(args: [String], x11: Bool = false, timeout: Double = 15, script: URL = DesktopSession.fixtureScript,
                      defaultName: String = "switchscan-fixture") throws -> FixtureProcess {
        let extra = x11 ? ["GDK_BACKEND": "x11", "DISPLAY": try xwaylandDisplay()] : [:]
        let (p, a) = command(DesktopTool.python3.path, [try copy(script)] + args, extra: extra)
        let errURL = directory.appendingPathComponent("app-\(UUID().uuidString.prefix(8)).stderr")
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let errHandle = try FileHandle(forWritingTo: errURL)
        defer { try? errHandle.close() }
        let child = try ChildProcess.startPiped(p, a, environment: environment, directory: directory, stderr: errHandle)
        services.append(child.process)
        func flag(_ name: String) -> String? { args.firstIndex(of: name).flatMap { $0 + 1 < args.count ? args[$0 + 1] : nil } }
        let fixture = FixtureProcess(process: child.process, output: LineCollector(reading: child.output), stderrURL: errURL,
                                     applicationName: flag("--app-name") ?? defaultName, title: flag("--title") ?? "SwitchScan Fixture")
        try fixture.waitForLine(matching: "ready", timeout: timeout)
        try waitForApplication(named: fixture.applicationName, timeout: timeout)
        return fixture
    }

    /// Another output (a headless one sway makes on request, HEADLESS-2, -3…, as `name`
    /// says) placed at `x`,`y` of the layout.
    func addOutput(_ name: String = "HEADLESS-2", at x: Int, _ y: Int, width: Int, height: Int) throws {
        for args in [["create_output"], ["output", name, "resolution", "\(width)x\(height)", "position", "\(x)", "\(y)"]] {
            let r = try run("/usr/bin/swaymsg", args)
            guard r.status == 0 else { throw DesktopError("swaymsg \(args.joined(separator: " ")) failed.\n\(r)") }
        }
    }

    /// Ends the compositor, as a crash or a logout would, leaving the rest of the session.
    func stopCompositor() {
        if let c = compositor { ChildProcess.stop([c], grace: 2) }
        // It runs below runuser: whatever of it is left.
        for p in DesktopSession.markedProcesses(marker)
        where p.command.hasPrefix(DesktopTool.sway.path) || p.command.contains("/kwin/kwin_wayland") || p.command.hasPrefix(DesktopTool.gnomeShell.path) {
            kill(p.pid, SIGKILL)
        }
    }

    /// sway's Wayland socket, as a path (for a client in the test process).
    var waylandSocket: String { runtime.appendingPathComponent(environment["WAYLAND_DISPLAY"] ?? "wayland-1").path }

    static let kwinShotScript = DesktopSession.fixturesDirectory.appendingPathComponent("kwin-shot.py")
    static let monitorsScript = DesktopSession.fixturesDirectory.appendingPathComponent("mutter-monitors.py")

    /// GNOME: the monitors laid out as `layout` says (connector, x, y, scale; the first
    /// primary), as the Displays settings would.
    func layOutMonitors(_ layout: [(String, Int, Int, Double)]) throws {
        let r = try run(DesktopTool.python3.path, [try copy(Self.monitorsScript)] + layout.flatMap { [$0.0, "\($0.1)", "\($0.2)", "\($0.3)"] })
        guard r.status == 0 else { throw DesktopError("Laying out GNOME Shell's monitors failed.\n\(r)") }
    }

    /// The screen as the compositor draws it (grim; KWin's ScreenShot2).
    func captureScreen() throws -> ScreenImage {
        // In the runtime directory: the session's user writes there.
        let file = runtime.appendingPathComponent("screen-\(UUID().uuidString.prefix(8)).ppm")
        let r: ToolResult
        switch compositorKind {
        case .sway: r = try run(DesktopTool.grim.path, ["-t", "ppm", file.path])
        case .kwin: r = try run(DesktopTool.python3.path, [try copy(Self.kwinShotScript), "\(screenWidth)", "\(screenHeight)", file.path])
        case .gnome:
            // GNOME Shell's screenshot (allowed by --unsafe-mode) is a PNG.
            let png = runtime.appendingPathComponent("screen-\(UUID().uuidString.prefix(8)).png")
            defer { try? FileManager.default.removeItem(at: png) }
            let shot = try run(DesktopTool.dbusSend.path, ["--session", "--print-reply", "--dest=org.gnome.Shell.Screenshot", "/org/gnome/Shell/Screenshot",
                                                           "org.gnome.Shell.Screenshot.Screenshot", "boolean:false", "boolean:false", "string:\(png.path)"])
            guard shot.status == 0 else { throw DesktopError("GNOME Shell's screenshot failed.\n\(shot)") }
            r = try run(DesktopTool.convertImage.path, [png.path, "ppm:\(file.path)"])
        }
        guard r.status == 0 else { throw DesktopError("the screenshot failed.\n\(r)") }
        defer { try? FileManager.default.removeItem(at: file) }
        return try ScreenImage(ppm: Data(contentsOf: file))
    }

    /// What sway and the services printed.
    func log() -> String {
        "--- services.log ---\n" + ((try? String(contentsOf: directory.appendingPathComponent("services.log"), encoding: .utf8)) ?? "")
    }

    func stop() {
        guard !stopped else { return }
        stopped = true
        DesktopSession.killMarked(marker)
        ChildProcess.stop(services, grace: 1)
        try? FileManager.default.removeItem(at: directory)
        slot.release()
    }
}

/// A session the tests run switchscan in: an X one (DesktopSession) or a Wayland one.
protocol SwitchscanHost {
    var directory: URL { get }
    /// `switchscan ARGS…` to its end.
    func switchscan(_ args: [String]) throws -> ToolResult
    /// A long-running `switchscan ARGS…`, its stdin a pipe.
    func startScan(_ args: [String]) throws -> LiveProcess
}

extension DesktopSession: SwitchscanHost {
    func switchscan(_ args: [String]) throws -> ToolResult { try runSwitchscan(args) }
    func startScan(_ args: [String]) throws -> LiveProcess { try startSwitchscan(args) }
}

extension WaylandSession: SwitchscanHost {
    func switchscan(_ args: [String]) throws -> ToolResult { try runSwitchscan(args) }
    func startScan(_ args: [String]) throws -> LiveProcess { try startSwitchscan(args) }
}

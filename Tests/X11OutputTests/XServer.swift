#if canImport(Glibc)
import Glibc
#endif
import CX11
import ScanCore
import Testing

/// A private X server for one test: `Xvfb -displayfd` (it picks a free display number and
/// writes it back once it accepts connections), optionally with openbox, both ended when the
/// value goes away. Their messages go to a log file of their own, shown when either fails.
final class XServer {
    let display: String
    let xvfb: pid_t
    private(set) var windowManager: pid_t?
    private let directory: String
    private var log: String { directory + "/services.log" }
    /// openbox's stdout: kept open while it runs, so that a later message cannot kill it
    /// with SIGPIPE.
    private var windowManagerOutput: Int32 = -1

    struct Failure: Error, CustomStringConvertible { var description: String }

    init(size: String = "1280x800x24") throws {
        guard let path = Self.which("Xvfb") else {
            throw Failure(description: "Xvfb is not installed: install the Debian package `xvfb` (apt-get install xvfb).")
        }
        let tmp = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array("\(tmp)/x11output-test.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw Failure(description: "Creating a directory in \(tmp) for Xvfb's log: \(String(cString: strerror(errno))).")
        }
        let directory = String(cString: made), log = directory + "/services.log"
        self.directory = directory
        var fds: [Int32] = [0, 0]
        guard makePipe(&fds) else { Self.remove(directory); throw Failure(description: "pipe2: errno \(errno)") }
        defer { close(fds[0]) }
        let pid: pid_t
        do {
            let logFD = try Self.openLog(log)
            defer { close(logFD) }
            // The write end becomes the child's fd 3 (dup2 clears close-on-exec).
            pid = try Self.spawn(path, ["-displayfd", "3", "-screen", "0", size, "-nolisten", "tcp", "-noreset"],
                                 dup: [(fds[1], 3)], stdout: logFD, stderr: logFD)
        } catch {
            close(fds[1])
            Self.remove(directory)
            throw error
        }
        close(fds[1])
        xvfb = pid
        let (text, why) = Self.readLine(fds[0], timeout: 10)
        guard let number = Int(text.trimmingCharacters()) else {
            kill(pid, SIGKILL); var st: Int32 = 0; waitpid(pid, &st, 0)
            let logged = Self.contents(log)
            Self.remove(directory)
            throw Failure(description: "Xvfb did not write its display number on -displayfd within 10 s (\(why.isEmpty ? "not a number" : why); got \"\(text)\").\n--- Xvfb's log ---\n\(logged)")
        }
        display = ":\(number)"
    }

    /// Starts openbox and waits until it is fully up: it runs its --startup command once
    /// the screen is taken and its setup done, just before its event loop, and the command's
    /// line waits in a pipe however late it is read. (_NET_SUPPORTING_WM_CHECK comes earlier,
    /// while openbox may still drop a MapRequest.)
    func startOpenbox(_ probe: XProbe) throws -> Bool {
        guard let path = Self.which("openbox") else { return false }
        let ready = "openbox is up"
        var fds: [Int32] = [0, 0]
        guard makePipe(&fds) else { throw Failure(description: "pipe2: errno \(errno)") }
        do {
            let logFD = try Self.openLog(log)
            defer { close(logFD) }
            windowManager = try Self.spawn(path, ["--sm-disable", "--startup", "/bin/echo \(ready)"], env: ["DISPLAY=\(display)"],
                                           stdout: fds[1], stderr: logFD)
        } catch {
            close(fds[0]); close(fds[1])
            throw error
        }
        close(fds[1])
        windowManagerOutput = fds[0]
        // Its messages come on stdout too.
        let deadline = now() + 10
        var said: [String] = []
        while said.last != ready + "\n" {
            let (line, why) = Self.readLine(fds[0], timeout: deadline - now())
            said.append(line)
            guard why.isEmpty else {
                throw Failure(description: "openbox did not come up on \(display) within 10 s: waiting for its --startup line \"\(ready)\": \(why).\n--- openbox's stdout ---\n\(said.joined())\n--- Xvfb's and openbox's log ---\n\(Self.contents(log))")
            }
        }
        // It set this before its startup command ran: a check that it manages this display.
        guard probe.hasWindowManager() else {
            throw Failure(description: "openbox said it was up, but \(display) has no _NET_SUPPORTING_WM_CHECK on its root.\n--- Xvfb's and openbox's log ---\n\(Self.contents(log))")
        }
        return true
    }

    deinit {
        for pid in [windowManager, xvfb].compactMap({ $0 }) {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        if windowManagerOutput >= 0 { close(windowManagerOutput) }
        Self.remove(directory)
    }

    /// Reads up to the first newline, for at most `timeout` seconds; woken by the pipe, never
    /// by a timer. Returns what came and, when no whole line did, why.
    static func readLine(_ fd: Int32, timeout: Double) -> (text: String, why: String) {
        let deadline = now() + timeout
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.last != UInt8(ascii: "\n") {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = deadline - now()
            guard left > 0 else { return (String(decoding: bytes, as: UTF8.self), "timed out") }
            let r = poll(&pfd, 1, Int32((left * 1000).rounded(.up)))
            if r < 0 && errno == EINTR { continue }
            guard r > 0 else { continue }
            // One byte at a time: nothing after the line is taken from the pipe.
            let n = read(fd, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            guard n == 1 else { return (String(decoding: bytes, as: UTF8.self), "the process ended or closed the pipe") }
            bytes.append(byte)
        }
        return (String(decoding: bytes, as: UTF8.self), "")
    }

    static func openLog(_ path: String) throws -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(description: "Opening \(path): \(String(cString: strerror(errno))).") }
        return fd
    }

    static func contents(_ path: String) -> String {
        guard let file = fopen(path, "r") else { return "(no log at \(path))" }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func remove(_ directory: String) {
        unlink(directory + "/services.log")
        rmdir(directory)
    }

    /// Kills the server now (to test a lost connection).
    /// Kills the X server and waits until it is gone (its connections broken).
    func killServer() {
        kill(xvfb, SIGKILL)
        var status: Int32 = 0
        waitpid(xvfb, &status, 0)
    }

    static func which(_ name: String) -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") + ["/usr/bin"] {
            let candidate = "\(dir)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// posix_spawn with an empty signal mask and default dispositions (Foundation's Process
    /// passes its blocked mask on), stdin from /dev/null unless given; `dup` maps parent fds to child fds,
    /// and no other descriptor is passed on (a pipe of a test running beside it would never
    /// see its end).
    static func spawn(_ path: String, _ args: [String], env extra: [String] = [], dup: [(Int32, Int32)] = [],
                      stdin: Int32? = nil, stdout: Int32? = nil, stderr: Int32? = nil) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin { posix_spawn_file_actions_adddup2(&actions, stdin, 0) } else { posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) }
        if let stdout { posix_spawn_file_actions_adddup2(&actions, stdout, 1) }
        if let stderr { posix_spawn_file_actions_adddup2(&actions, stderr, 2) }
        for (from, to) in dup { posix_spawn_file_actions_adddup2(&actions, from, to) }
        if let closeFrom = addCloseFrom { _ = closeFrom(&actions, (dup.map(\.1).max() ?? 2) + 1) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var environment: [String] = []
        var e = environ
        while let p = e.pointee {
            let s = String(cString: p)
            if !extra.contains(where: { s.hasPrefix(String($0.prefix(while: { $0 != "=" })) + "=") }) { environment.append(s) }
            e += 1
        }
        environment += extra
        let argv = ([path] + args).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard rc == 0 else { throw Failure(description: "posix_spawn \(path): error \(rc)") }
        return pid
    }

    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    // glibc 2.34 has it; Swift's Glibc module does not declare it.
    static let addCloseFrom: AddCloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }

    /// Runs a command to its end and returns its stdout.
    static func output(_ path: String, _ args: [String], display: String) throws -> [UInt8] {
        var fds: [Int32] = [0, 0]
        guard makePipe(&fds) else { throw Failure(description: "pipe2: errno \(errno)") }
        let pid: pid_t
        do { pid = try spawn(path, args, env: ["DISPLAY=\(display)"], stdout: fds[1]) } catch {
            close(fds[0]); close(fds[1]); throw error
        }
        close(fds[1])
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = read(fds[0], &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        close(fds[0])
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        guard status == 0 else { throw Failure(description: "\(path) \(args.joined(separator: " ")) failed (status \(status))") }
        return bytes
    }

    /// The root window as `import -window root -depth 8 ppm:-` sees it.
    func screenshot() throws -> Screenshot {
        guard let path = Self.which("import") else {
            throw Failure(description: "ImageMagick's `import` is not installed: install the Debian package `imagemagick`.")
        }
        return try Screenshot(ppm: Self.output(path, ["-window", "root", "-depth", "8", "ppm:-"], display: display))
    }

    /// `xdotool getmouselocation --shell` as numbers.
    func mouseLocation() throws -> (x: Int, y: Int, window: UInt) {
        guard let path = Self.which("xdotool") else {
            throw Failure(description: "xdotool is not installed: install the Debian package `xdotool`.")
        }
        let text = String(decoding: try Self.output(path, ["getmouselocation", "--shell"], display: display), as: UTF8.self)
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let kv = line.split(separator: "=", maxSplits: 1)
            if kv.count == 2 { values[String(kv[0])] = String(kv[1]) }
        }
        return (Int(values["X"] ?? "") ?? -1, Int(values["Y"] ?? "") ?? -1, UInt(values["WINDOW"] ?? "") ?? 0)
    }
}

/// A pipe whose ends close on exec (children get only what is dup2'ed to them).
func makePipe(_ fds: inout [Int32]) -> Bool {
    guard pipe(&fds) == 0 else { return false }
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    return true
}

/// CLOCK_MONOTONIC, the presenter's clock.
func monotonicNow() -> ScanInstant {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ScanInstant(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
}

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

extension String {
    func trimmingCharacters() -> String {
        String(self.drop(while: { $0.isWhitespace }).reversed().drop(while: { $0.isWhitespace }).reversed())
    }
}

struct RGB: Hashable, CustomStringConvertible {
    var r: UInt8, g: UInt8, b: UInt8
    var description: String { "#" + [r, g, b].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
}

/// A P6 PPM (8 bits a channel).
struct Screenshot {
    let width: Int, height: Int
    let bytes: [UInt8]
    let offset: Int

    init(ppm: [UInt8]) throws {
        var i = 0
        func token() -> String {
            while i < ppm.count {
                if ppm[i] == UInt8(ascii: "#") { while i < ppm.count && ppm[i] != 10 { i += 1 } }
                else if ppm[i] == 32 || ppm[i] == 10 || ppm[i] == 13 || ppm[i] == 9 { i += 1 }
                else { break }
            }
            let start = i
            while i < ppm.count, ![32, 10, 13, 9].contains(ppm[i]) { i += 1 }
            return String(decoding: ppm[start..<i], as: UTF8.self)
        }
        guard token() == "P6", let w = Int(token()), let h = Int(token()), token() == "255" else {
            throw XServer.Failure(description: "not an 8-bit P6 PPM (\(ppm.prefix(20)))")
        }
        i += 1  // the single whitespace before the raster
        guard ppm.count >= i + w * h * 3 else { throw XServer.Failure(description: "short PPM raster") }
        width = w; height = h; bytes = ppm; offset = i
    }

    subscript(x: Int, y: Int) -> RGB {
        let k = offset + (y * width + x) * 3
        return RGB(r: bytes[k], g: bytes[k + 1], b: bytes[k + 2])
    }
}

/// The test's own X connection: windows to click on, focus and pointer queries.
final class XProbe {
    let d: OpaquePointer
    let root: Window

    init(_ display: String) throws {
        guard let d = XOpenDisplay(display) else { throw XServer.Failure(description: "cannot open \(display)") }
        self.d = d
        root = cx11_root_window(d, cx11_default_screen(d))
        // A server killed first must not exit the test process (X11Output's handlers, set
        // process-wide by its first connection, cover the rest).
        XSetIOErrorExitHandler(d, { _, _ in }, nil)
    }

    deinit { XCloseDisplay(d) }

    func pixel(_ c: RGB) -> UInt {
        var color = XColor()
        color.red = UInt16(c.r) * 257; color.green = UInt16(c.g) * 257; color.blue = UInt16(c.b) * 257
        color.flags = Int8(DoRed | DoGreen | DoBlue)
        XAllocColor(d, cx11_default_colormap(d, cx11_default_screen(d)), &color)
        return color.pixel
    }

    func setRootBackground(_ c: RGB) {
        XSetWindowBackground(d, root, pixel(c))
        XClearWindow(d, root)
        XSync(d, 0)
    }

    /// A plain window that reports button presses; override-redirect ones stay exactly where
    /// asked (no window manager involved).
    func window(x: Int, y: Int, width: Int, height: Int, color: RGB, overrideRedirect: Bool) -> Window {
        var a = XSetWindowAttributes()
        a.background_pixel = pixel(color)
        a.override_redirect = overrideRedirect ? 1 : 0
        a.event_mask = Int(ButtonPressMask | ButtonReleaseMask | StructureNotifyMask | VisibilityChangeMask | FocusChangeMask)
        let w = XCreateWindow(d, root, Int32(x), Int32(y), UInt32(width), UInt32(height), 0, Int32(CopyFromParent),
                              UInt32(InputOutput), nil, UInt(CWBackPixel | CWOverrideRedirect | CWEventMask), &a)
        XStoreName(d, w, "probe")
        var hints = XWMHints()
        hints.flags = InputHint
        hints.input = 1
        XSetWMHints(d, w, &hints)
        XMapRaised(d, w)
        XSync(d, 0)
        return w
    }

    /// Waits until `window` (made by `window(…)`) is viewable: VisibilityNotify comes when
    /// it becomes so.
    func waitViewable(_ window: Window, timeout: Double = 5) -> Bool {
        wait(for: window, events: [VisibilityNotify, MapNotify], timeout: timeout) {
            var a = XWindowAttributes()
            XGetWindowAttributes(d, window, &a)
            return a.map_state == IsViewable
        }
    }

    /// Checks `done`, then again after each event of `events` on `window`, until it holds or
    /// `timeout` seconds passed. The window selected those events when it was made, so none
    /// that changes the answer can come unseen between a check and the wait.
    private func wait(for window: Window, events: [Int32], timeout: Double, until done: () -> Bool) -> Bool {
        let deadline = now() + timeout
        var event = XEvent()
        while !done() {
            // The check's round trip may have read the event into Xlib's queue, where poll
            // cannot see it.
            var came = false
            for type in events { while XCheckTypedWindowEvent(d, window, type, &event) != 0 { came = true } }
            if came { continue }
            let left = deadline - now()
            if left <= 0 { return false }
            var pfd = pollfd(fd: XConnectionNumber(d), events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, Int32((left * 1000).rounded(.up)))
        }
        return true
    }

    /// Where a window's top-left is on the root.
    func origin(_ w: Window) -> (x: Int, y: Int) {
        var x: Int32 = 0, y: Int32 = 0
        var child: Window = 0
        XTranslateCoordinates(d, w, root, 0, 0, &x, &y, &child)
        return (Int(x), Int(y))
    }

    func inputFocus() -> Window {
        var w: Window = 0
        var revert: Int32 = 0
        XGetInputFocus(d, &w, &revert)
        return w
    }

    /// The pointer's position and the root's child under it.
    func pointer() -> (x: Int, y: Int, child: Window) {
        var r: Window = 0, c: Window = 0
        var rx: Int32 = 0, ry: Int32 = 0, wx: Int32 = 0, wy: Int32 = 0
        var mask: UInt32 = 0
        XQueryPointer(d, root, &r, &c, &rx, &ry, &wx, &wy, &mask)
        return (Int(rx), Int(ry), c)
    }

    func movePointer(x: Int, y: Int) {
        XTestFakeMotionEvent(d, cx11_default_screen(d), Int32(x), Int32(y), 0)
        XSync(d, 0)
    }

    func hasWindowManager() -> Bool {
        let atom = XInternAtom(d, "_NET_SUPPORTING_WM_CHECK", 0)
        var type: Atom = 0
        var format: Int32 = 0
        var count: UInt = 0, after: UInt = 0
        var data: UnsafeMutablePointer<UInt8>?
        let rc = XGetWindowProperty(d, root, atom, 0, 1, 0, Atom(AnyPropertyType), &type, &format, &count, &after, &data)
        defer { if let data { XFree(data) } }
        return rc == Success && count > 0
    }

    /// Waits for a ButtonPress on `window`; its root position.
    func nextButtonPress(on window: Window, timeout: Double = 5) -> (x: Int, y: Int)? {
        let deadline = now() + timeout
        var event = XEvent()
        while now() < deadline {
            while XPending(d) > 0 {
                XNextEvent(d, &event)
                if event.type == ButtonPress, event.xbutton.window == window {
                    return (Int(event.xbutton.x_root), Int(event.xbutton.y_root))
                }
            }
            var pfd = pollfd(fd: XConnectionNumber(d), events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, 50)
        }
        return nil
    }

    /// Waits for `count` button presses and releases on `window`, in order: each one's
    /// button, whether it is a press, its root position and server time (ms).
    func nextButtonEvents(on window: Window, count: Int, timeout: Double = 5) -> [(button: Int, press: Bool, x: Int, y: Int, time: Int)] {
        let deadline = now() + timeout
        var out: [(button: Int, press: Bool, x: Int, y: Int, time: Int)] = []
        var event = XEvent()
        while now() < deadline && out.count < count {
            while XPending(d) > 0 && out.count < count {
                XNextEvent(d, &event)
                if event.type == ButtonPress || event.type == ButtonRelease, event.xbutton.window == window {
                    out.append((Int(event.xbutton.button), event.type == ButtonPress,
                                Int(event.xbutton.x_root), Int(event.xbutton.y_root), Int(event.xbutton.time)))
                }
            }
            if out.count >= count { break }
            var pfd = pollfd(fd: XConnectionNumber(d), events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, 50)
        }
        return out
    }

    /// Waits until `window` (made by `window(…)`) has the focus (a window manager gives it
    /// to new windows): FocusIn comes when it gets it.
    func waitForFocus(_ window: Window, timeout: Double = 5) -> Bool {
        wait(for: window, events: [FocusIn], timeout: timeout) { inputFocus() == window }
    }

    /// One bare round trip.
    func roundTrip() { XSync(d, 0) }
}

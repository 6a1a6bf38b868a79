#if canImport(Glibc)
import Glibc
#endif
import CX11
import ScanCore
import ScanHost

/// The desktop's windows as the window manager lists them (EWMH, which every common X11
/// window manager speaks): followed as they come, go, change title or state, and switched
/// to, closed, minimised and maximised on request. A thread of its own (a SerialThread
/// polling the X connection) owns its X connection: nothing here ever runs on the engine's
/// thread or blocks the presenters.
public final class DesktopWindows: WindowList, @unchecked Sendable {
    /// Called on the watcher's thread with every new list (and once with the first one);
    /// given to `start`.
    private var onChange: @Sendable ([ManagedWindow]) -> Void = { _ in }
    /// A command that could not be carried out, said as a sentence.
    private let report: @Sendable (String) -> Void
    private let x: X11Display
    private let atoms: Atoms
    private let waiter: PollWaiter
    private let lock = Lock()
    private var thread: SerialThread?   // under `lock`
    private var stopped = false         // under `lock`

    // The watcher's own.
    private var last: [ManagedWindow]?
    private var watched = Set<Window>()
    private var ended = false

    /// Fails when the display cannot be opened or no EWMH window manager runs on it (the
    /// list and the commands both need one).
    public init(display: String? = nil, report: @escaping @Sendable (String) -> Void) throws {
        let x = try X11Display(display)
        let atoms = Atoms(x.pointer)
        guard Self.hasWindowManager(x, atoms) else {
            x.close()
            throw X11Error("no window manager on X display '\(x.name)' lists its windows (EWMH _NET_CLIENT_LIST), so the Windows page is not offered. Hint: run a window manager such as openbox, xfwm4, mutter or kwin.")
        }
        do { waiter = try PollWaiter() } catch {
            x.close()
            throw X11Error("cannot make the window watcher: \(error)")
        }
        self.x = x
        self.atoms = atoms
        self.report = report
    }

    deinit { stop() }

    /// Starts following the windows: `onChange` gets the first list and every new one, on
    /// the watcher's thread.
    public func start(onChange: @escaping @Sendable ([ManagedWindow]) -> Void) {
        lock.withLock {
            guard thread == nil, !stopped else { return }
            self.onChange = onChange
            // The thread holds the object (its reader does) until `stop`.
            guard let t = try? SerialThread(name: "switchscan.windows", body: .waiter(waiter)) else {
                report("The window list is not followed: its thread could not be started.")
                return
            }
            thread = t
            t.async { [self] in begin() }
        }
    }

    /// Asks for `command` on the window with `id` ("0x…"). Returns at once; a failure is
    /// reported.
    public func perform(_ command: WindowCommand, window id: String) {
        let t = lock.withLock { thread }
        t?.async { [self] in
            guard !ended else { return }
            carryOut(command, id)
            readEvents()
        }
    }

    /// Stops the watcher and closes its connection. Idempotent.
    public func stop() {
        let (first, t): (Bool, SerialThread?) = lock.withLock {
            defer { stopped = true }
            return (!stopped, thread)
        }
        guard first else { return }
        guard let t else { return x.close() }
        // The last job, on the thread (which may be the caller's): let go of the reader,
        // which holds the object, and close the connection where it is used.
        t.async { [self] in
            ended = true
            waiter.removeReader(XConnectionNumber(x.pointer))
            x.close()
        }
        t.stop()
    }

    // MARK: - the watcher's thread

    private func begin() {
        thread?.preconditionOnThread()
        let d = x.pointer
        XSelectInput(d, x.root, PropertyChangeMask)
        refresh()
        waiter.addReader(XConnectionNumber(d)) { [self] _ in readEvents() }
        readEvents()
    }

    /// Reads what the server sent and follows it. Every call on the connection ends here, so
    /// no event is left in Xlib's queue, where it would not wake poll().
    private func readEvents() {
        guard !ended else { return }
        let d = x.pointer
        repeat {
            var changed = false
            var event = XEvent()
            while !x.isLost, XPending(d) > 0 {
                XNextEvent(d, &event)
                if event.type == PropertyNotify, atoms.followed.contains(event.xproperty.atom) { changed = true }
            }
            if changed { refresh() }
        } while !x.isLost && XPending(d) > 0
        if x.isLost {
            ended = true
            waiter.removeReader(XConnectionNumber(d))
            report("The window list is no longer followed: the connection to the X server was lost.")
        }
    }

    /// Reads the list; hands it over if it changed. New windows are watched for their title
    /// and state.
    private func refresh() {
        guard !x.isLost else { return }
        // Watched before their properties are read, so no change falls in between; every
        // client, so one that stops skipping the task bar is seen.
        let clients = Set(Self.numbers(x, x.root, atoms.clientList).map(Window.init))
        for w in clients where !watched.contains(w) { XSelectInput(x.pointer, w, PropertyChangeMask) }
        watched = clients
        let windows = Self.list(x, atoms)
        let values = windows.map(\.value)
        guard values != last else { return }
        last = values
        onChange(values)
    }

    private func carryOut(_ command: WindowCommand, _ id: String) {
        thread?.preconditionOnThread()
        guard !x.isLost else { return }
        let current = Self.list(x, atoms)
        guard let w = current.first(where: { $0.value.id == id }) else {
            report("That window is gone.")
            return
        }
        let d = x.pointer
        let before = x.errorCount
        switch command {
        case .activate:
            // Source 2: a pager acting for the user, which window managers obey (focus
            // stealing prevention is for applications).
            clientMessage(w.window, atoms.activeWindow, [2, UInt(CurrentTime), 0])
        case .close:
            clientMessage(w.window, atoms.closeWindow, [UInt(CurrentTime), 2])
        case .minimize:
            // ICCCM's request to iconify; EWMH has no message of its own for it.
            clientMessage(w.window, atoms.changeState, [UInt(IconicState)])
        case .maximize, .restore:
            clientMessage(w.window, atoms.wmState,
                          [command == .maximize ? 1 : 0, UInt(atoms.maximizedVert), UInt(atoms.maximizedHorz), 2])
        }
        XSync(d, 0)
        // A window manager that ignores a request says nothing; one that gets a bad one
        // answers with an error.
        if x.errorCount > before || x.isLost {
            report("The window manager refused to \(command.rawValue) \"\(w.value.title)\".")
        }
    }

    private func clientMessage(_ w: Window, _ type: Atom, _ data: [UInt]) {
        var event = XEvent()
        event.xclient.type = ClientMessage
        event.xclient.serial = 0
        event.xclient.send_event = 1
        event.xclient.display = x.pointer
        event.xclient.window = w
        event.xclient.message_type = type
        event.xclient.format = 32
        withUnsafeMutableBytes(of: &event.xclient.data.l) { raw in
            let longs = raw.bindMemory(to: Int.self)
            for (i, v) in data.prefix(5).enumerated() { longs[i] = Int(bitPattern: v) }
        }
        XSendEvent(x.pointer, x.root, 0, SubstructureRedirectMask | SubstructureNotifyMask, &event)
    }

    // MARK: - reading the window manager's properties

    struct Atoms {
        let clientList, activeWindow, closeWindow, changeState, wmState, hidden, maximizedVert, maximizedHorz,
            skipTaskbar, windowType, typeNormal, typeDialog, netName, utf8, wmName, supportingCheck: Atom
        /// Properties whose change can change the list.
        let followed: Set<Atom>

        init(_ d: OpaquePointer) {
            let names = ["_NET_CLIENT_LIST", "_NET_ACTIVE_WINDOW", "_NET_CLOSE_WINDOW", "WM_CHANGE_STATE", "_NET_WM_STATE",
                         "_NET_WM_STATE_HIDDEN", "_NET_WM_STATE_MAXIMIZED_VERT", "_NET_WM_STATE_MAXIMIZED_HORZ",
                         "_NET_WM_STATE_SKIP_TASKBAR", "_NET_WM_WINDOW_TYPE", "_NET_WM_WINDOW_TYPE_NORMAL",
                         "_NET_WM_WINDOW_TYPE_DIALOG", "_NET_WM_NAME", "UTF8_STRING", "WM_NAME", "_NET_SUPPORTING_WM_CHECK"]
            // One round trip for all of them.
            var cNames = names.map { strdup($0) }
            defer { cNames.forEach { free($0) } }
            var out = [Atom](repeating: 0, count: names.count)
            _ = cNames.withUnsafeMutableBufferPointer { XInternAtoms(d, $0.baseAddress, Int32(names.count), 0, &out) }
            (clientList, activeWindow, closeWindow, changeState, wmState, hidden, maximizedVert, maximizedHorz) =
                (out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7])
            (skipTaskbar, windowType, typeNormal, typeDialog, netName, utf8, wmName, supportingCheck) =
                (out[8], out[9], out[10], out[11], out[12], out[13], out[14], out[15])
            followed = [clientList, activeWindow, wmState, netName, wmName]
        }
    }

    /// A 32-bit property as the numbers Xlib gives (C longs), at most `limit` of them.
    static func numbers(_ x: X11Display, _ w: Window, _ property: Atom, limit: Int = 4096) -> [UInt] {
        var type: Atom = 0, format: Int32 = 0, count: UInt = 0, after: UInt = 0
        var data: UnsafeMutablePointer<UInt8>?
        guard XGetWindowProperty(x.pointer, w, property, 0, limit, 0, Atom(AnyPropertyType), &type, &format,
                                 &count, &after, &data) == Success, let data else { return [] }
        defer { XFree(data) }
        guard format == 32 else { return [] }
        return data.withMemoryRebound(to: UInt.self, capacity: Int(count)) { Array(UnsafeBufferPointer(start: $0, count: Int(count))) }
    }

    /// A text property (UTF-8, or Latin-1 for a plain STRING), at most 4 KiB of it.
    static func text(_ x: X11Display, _ w: Window, _ property: Atom) -> String? {
        // XA_STRING: ICCCM's Latin-1 (WM_NAME of older clients).
        let latin1: Atom = 31
        var type: Atom = 0, format: Int32 = 0, count: UInt = 0, after: UInt = 0
        var data: UnsafeMutablePointer<UInt8>?
        guard XGetWindowProperty(x.pointer, w, property, 0, 1024, 0, Atom(AnyPropertyType), &type, &format,
                                 &count, &after, &data) == Success, let data else { return nil }
        defer { XFree(data) }
        guard format == 8, count > 0 else { return nil }
        let bytes = UnsafeBufferPointer(start: data, count: Int(count))
        if type == latin1 { return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) })) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether an EWMH window manager runs: its check window names itself (one left behind
    /// by a window manager that died does not exist any more).
    static func hasWindowManager(_ x: X11Display, _ a: Atoms) -> Bool {
        guard let check = numbers(x, x.root, a.supportingCheck, limit: 1).first, check != 0 else { return false }
        return numbers(x, Window(check), a.supportingCheck, limit: 1).first == check
    }

    /// The windows a task bar would show, in the window manager's (mapping) order: that
    /// order stays put as windows are activated, so a user learns where each one is.
    static func list(_ x: X11Display, _ a: Atoms) -> [(window: Window, value: ManagedWindow)] {
        let active = numbers(x, x.root, a.activeWindow, limit: 1).first ?? 0
        var out: [(Window, ManagedWindow)] = []
        for raw in numbers(x, x.root, a.clientList) {
            let w = Window(raw)
            let types = numbers(x, w, a.windowType, limit: 16).map(Atom.init)
            // Docks, desktops, menus and the like are not windows a user switches to.
            if !types.isEmpty && !types.contains(a.typeNormal) && !types.contains(a.typeDialog) { continue }
            let state = Set(numbers(x, w, a.wmState, limit: 32).map(Atom.init))
            if state.contains(a.skipTaskbar) { continue }
            let title = text(x, w, a.netName) ?? text(x, w, a.wmName) ?? ""
            out.append((w, ManagedWindow(id: "0x" + String(w, radix: 16), title: title, active: raw == active,
                                         maximized: state.contains(a.maximizedVert) && state.contains(a.maximizedHorz),
                                         minimized: state.contains(a.hidden))))
        }
        return out
    }
}

#if canImport(Glibc)
import Glibc
#endif
import ScanCore
import ScanHost
import ScreenScene

/// Clicks, the Gestures page's gestures and keys on GNOME, through Mutter's remote desktop
/// (`org.gnome.Mutter.RemoteDesktop` on the session bus, which GNOME Shell offers any
/// program of the user's session, without a dialog). One session is held for the whole run
/// (it lives as long as SwitchScan's connection): the first event of a new session is lost,
/// so each session is warmed up with a harmless one. Keys are keysyms: a character the
/// keyboard layout lacks is not typed this way (GNOME Shell's input method takes any,
/// through the extension: `GnomeKeys`). The pointer moves to absolute points
/// through a screen-cast stream where PipeWire runs; else it is pushed into the bottom right
/// corner and moved from there by relative motion (exact where that corner is on a monitor:
/// one monitor, or monitors side by side of one height). A session Mutter closes (GNOME Shell
/// restarted) is made again at the next action. Any thread (behind a lock); each action
/// ends with a round trip, so it has reached Mutter on return.
public final class MutterRemoteDesktop: @unchecked Sendable {
    static let service = "org.gnome.Mutter.RemoteDesktop"
    static let screenCast = "org.gnome.Mutter.ScreenCast"
    static let sessionInterface = "org.gnome.Mutter.RemoteDesktop.Session"
    static let streamInterface = "org.gnome.Mutter.ScreenCast.Stream"
    /// Linux's button codes (linux/input-event-codes.h).
    static let leftButton: Int32 = 0x110, rightButton: Int32 = 0x111
    /// How long a new session's devices take to be there.
    static let settleMicroseconds: useconds_t = 300_000
    private let lock = Lock()
    private let bus: SessionBus
    private var session: String?          // under `lock`
    /// The screen-cast stream absolute motion is given in (nil: relative motion), and where
    /// its monitor (the primary one) is in the layout.
    private var stream: String?           // under `lock`
    private var streamAt = (x: 0.0, y: 0.0) // under `lock`
    /// The whole screen: where the pointer is kept, and relative motion measured from.
    public let extent: PixelRect
    /// What Mutter multiplies relative motion by: the scale of the monitor the pointer is on
    /// (the bottom right one's, taken for every monitor), so pointer speed looks the same on a
    /// HiDPI one.
    let motionScale: Double
    /// How the pointer moves, for the user: "absolute" or "relative".
    public private(set) var motion = "relative"
    private var closed = false            // under `lock`

    /// Makes and starts a session; fails saying why (no Mutter on the session bus).
    public init(extent: PixelRect, scale: Int = 1) throws(GnomeShellError) {
        do { bus = try SessionBus() } catch { throw GnomeShellError("\(error.description), so Mutter's remote desktop cannot be reached") }
        self.extent = extent
        motionScale = Double(max(1, scale))
        let started: Result<Void, GnomeShellError> = lock.withLock { Result { () throws(GnomeShellError) in try startLocked() } }
        if case .failure(let error) = started {
            bus.close()
            throw error
        }
        motion = lock.withLock { stream == nil ? "relative" : "absolute" }
    }

    deinit { close() }

    /// Under the lock: a new session, with a screen-cast stream where PipeWire lets one start.
    private func startLocked() throws(GnomeShellError) {
        do {
            let s = try newSession()
            if let streamPath = try? castStream(for: s), (try? bus.call(Self.service, s, Self.sessionInterface, "Start")) != nil,
               let origin = streamOrigin(streamPath) {
                session = s; stream = streamPath; streamAt = origin
            } else {
                // No PipeWire: a session without a stream (a failed Start ends the first).
                _ = try? bus.call(Self.service, s, Self.sessionInterface, "Stop")
                let plain = try newSession()
                try bus.call(Self.service, plain, Self.sessionInterface, "Start")
                session = plain; stream = nil
            }
        } catch {
            session = nil
            throw GnomeShellError(error.noOwner ? "Mutter's remote desktop (\(Self.service)) is not on the session bus (this is not GNOME, or GNOME Shell has not started)"
                                  : "Mutter's remote desktop refused a session: \(error.description)")
        }
        // The first event of a session's pointer is lost, and its keyboard's first: these
        // change nothing (a pixel there and back, a Shift pressed alone).
        _ = notify("NotifyPointerMotionRelative", [.double(1), .double(0)])
        _ = notify("NotifyPointerMotionRelative", [.double(-1), .double(0)])
        _ = notify("NotifyKeyboardKeysym", [.uint32(Keysyms.value(of: .shift)), .bool(true)])
        _ = notify("NotifyKeyboardKeysym", [.uint32(Keysyms.value(of: .shift)), .bool(false)])
        _ = roundTrip()
        // Mutter adds a session's devices on its input thread a moment after it answers:
        // an event sent meanwhile is lost (seen under load). A run makes its session at the
        // start, long before its first tap; a session made again costs this once.
        usleep(Self.settleMicroseconds)
    }

    private func newSession() throws(SessionBus.Failure) -> String {
        guard let path = try bus.call(Self.service, "/org/gnome/Mutter/RemoteDesktop", Self.service, "CreateSession").first?.string else {
            throw SessionBus.Failure(name: "", description: "CreateSession gave no session")
        }
        return path
    }

    /// A stream of the whole of the first monitor linked to `session`: what absolute motion
    /// is measured in.
    private func castStream(for session: String) throws(SessionBus.Failure) -> String {
        guard let sid = try bus.call(Self.service, session, "org.freedesktop.DBus.Properties", "Get",
                                     [.string(Self.sessionInterface), .string("SessionId")]).first?.string,
              let cast = try bus.call(Self.screenCast, "/org/gnome/Mutter/ScreenCast", Self.screenCast, "CreateSession",
                                      [.options(["remote-desktop-session-id": sid])]).first?.string,
              let stream = try bus.call(Self.screenCast, cast, "org.gnome.Mutter.ScreenCast.Session", "RecordMonitor",
                                        [.string(""), .options([:])]).first?.string else {
            throw SessionBus.Failure(name: "", description: "no screen-cast stream")
        }
        // Heard from the session's start on (`streamOrigin`).
        bus.addMatch("type='signal',interface='\(Self.streamInterface)',member='PipeWireStreamAdded',path='\(stream)'")
        return stream
    }

    /// Under the lock: where the stream's monitor is in the layout, once Mutter has made its
    /// PipeWire stream (before that, Mutter drops absolute motion without a word); nil when
    /// that does not happen within 2 s.
    private func streamOrigin(_ path: String) -> (x: Double, y: Double)? {
        var added = false
        let deadline = MonotonicClock.now() + .seconds(2)
        while !added && MonotonicClock.now() < deadline {
            guard bus.read(milliseconds: 50, { interface, member, _ in
                if interface == Self.streamInterface && member == "PipeWireStreamAdded" { added = true }
            }) else { return nil }
        }
        guard added, let parameters = try? bus.call(Self.screenCast, path, "org.freedesktop.DBus.Properties", "Get",
                                                    [.string(Self.streamInterface), .string("Parameters")]).first,
              let position = parameters["position"]?.list, position.count == 2,
              let x = position[0].int32, let y = position[1].int32 else { return nil }
        return (Double(x), Double(y))
    }

    /// Under the lock: an event sent without waiting; false when the connection is gone.
    private func notify(_ method: String, _ args: [SessionBus.Arg]) -> Bool {
        guard let session else { return false }
        return bus.send(Self.service, session, Self.sessionInterface, method, args)
    }

    /// Under the lock: every event sent so far has reached Mutter.
    private func roundTrip() -> Bool {
        (try? bus.call(Self.service, "/org/gnome/Mutter/RemoteDesktop", "org.freedesktop.DBus.Peer", "Ping")) != nil
    }

    /// Events sent in one burst under the lock, then a round trip; the session made again
    /// once if Mutter closed it.
    private func burst(_ body: () -> Bool) -> Bool {
        lock.withLock {
            guard !closed else { return false }
            if session == nil { try? startLocked() }
            if body() && roundTrip() && sessionAlive() { return true }
            // Mutter closed the session (GNOME Shell restarted): once more in a new one.
            guard (try? startLocked()) != nil else { return false }
            return body() && roundTrip()
        }
    }

    /// Under the lock: whether Mutter still has the session.
    private func sessionAlive() -> Bool {
        guard let session else { return false }
        do {
            try bus.call(Self.service, session, "org.freedesktop.DBus.Peer", "Ping")
            return true
        } catch {
            return !error.noOwner && error.name != "org.freedesktop.DBus.Error.UnknownObject" && error.name != "org.freedesktop.DBus.Error.UnknownMethod"
        }
    }

    /// Under the lock: the pointer to `p`, kept on the screen.
    private func move(_ p: Point) -> Bool {
        let x = max(Double(extent.x), min(Double(extent.maxX - 1), p.x.rounded()))
        let y = max(Double(extent.y), min(Double(extent.maxY - 1), p.y.rounded()))
        if let stream { return notify("NotifyPointerMotionAbsolute", [.string(stream), .double(x - streamAt.x), .double(y - streamAt.y)]) }
        // From the bottom right corner (the top left one is GNOME's hot corner, which opens
        // the overview and whose barrier stops motion along the edge), across, then up.
        let far = Double(extent.width + extent.height) * 4
        let right = Double(extent.maxX - 1), bottom = Double(extent.maxY - 1)
        return notify("NotifyPointerMotionRelative", [.double(far), .double(far)])
            && notify("NotifyPointerMotionRelative", [.double((x - right) / motionScale), .double(0)])
            && notify("NotifyPointerMotionRelative", [.double(0), .double((y - bottom) / motionScale)])
    }

    private func button(_ code: Int32, _ down: Bool) -> Bool { notify("NotifyPointerButton", [.int32(code), .bool(down)]) }

    /// Moves to `p` and clicks the left button; false when Mutter is gone.
    public func click(at p: Point) -> Bool {
        burst { move(p) && button(Self.leftButton, true) && button(Self.leftButton, false) }
    }

    /// A gesture at `p`: the right button, the left twice, the left held 0.8 s, a drag to
    /// `to` in ten steps, or five notches of a wheel.
    public func perform(_ gesture: Gesture, at p: Point, to: Point?) -> Bool {
        switch gesture {
        case .rightClick: return burst { move(p) && button(Self.rightButton, true) && button(Self.rightButton, false) }
        case .doubleClick: return burst { move(p) && (0..<2).allSatisfy { _ in button(Self.leftButton, true) && button(Self.leftButton, false) } }
        case .longPress:
            guard burst({ move(p) && button(Self.leftButton, true) }) else { return false }
            usleep(800_000)
            return burst { button(Self.leftButton, false) }
        case .drag:
            guard let to, burst({ move(p) && button(Self.leftButton, true) }) else { return false }
            var ok = true
            for k in 1...10 where ok {
                usleep(k == 1 ? 100_000 : 20_000)
                let f = Double(k) / 10
                ok = burst { move(Point(x: p.x + (to.x - p.x) * f, y: p.y + (to.y - p.y) * f)) }
            }
            usleep(100_000)
            return burst { button(Self.leftButton, false) } && ok
        case .scrollUp, .scrollDown, .scrollLeft, .scrollRight:
            // Axis 0 vertical (positive down), 1 horizontal (positive right).
            let axis: UInt32 = gesture == .scrollUp || gesture == .scrollDown ? 0 : 1
            let steps: Int32 = gesture == .scrollDown || gesture == .scrollRight ? 1 : -1
            return burst { move(p) && (0..<5).allSatisfy { _ in notify("NotifyPointerAxisDiscrete", [.uint32(axis), .int32(steps)]) } }
        }
    }

    // MARK: Keys

    private func key(_ keysym: UInt32, _ down: Bool) -> Bool { notify("NotifyKeyboardKeysym", [.uint32(keysym), .bool(down)]) }

    private func stroke(_ keysym: UInt32, held: [UInt32] = []) -> Bool {
        held.allSatisfy { key($0, true) } && key(keysym, true) && key(keysym, false) && held.reversed().allSatisfy { key($0, false) }
    }

    /// Types `text`, a keysym a character; false when Mutter is gone.
    public func type(_ text: String) -> (ok: Bool, missing: String) {
        (burst { text.unicodeScalars.allSatisfy { stroke(Keysyms.value(of: $0)) } }, "")
    }

    public func deleteBackward(_ count: Int) -> Bool {
        burst { (0..<max(0, count)).allSatisfy { _ in stroke(0xff08) } }
    }

    public func press(_ chord: KeyChord) -> Bool {
        guard let sym = Keysyms.value(named: chord.key) else { return false }
        return burst { stroke(sym, held: chord.modifiers.map(Keysyms.value(of:))) }
    }

    public func press(_ key: SpecialKey) -> Bool { press(KeyChord(EvdevLayout.keysym(key))) }

    /// Ends the session and closes the connection. Idempotent.
    public func close() {
        lock.withLock {
            guard !closed else { return }
            closed = true
            if let session { _ = bus.send(Self.service, session, Self.sessionInterface, "Stop") }
            bus.close()
        }
    }
}

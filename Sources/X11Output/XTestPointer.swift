#if canImport(Glibc)
import Glibc
#endif
import CX11
import ScanCore
import ScanHost

/// Clicks at a screen point through the XTEST extension: the X server moves the real pointer
/// there and presses button 1, so the click reaches whatever window is topmost at the point
/// (our overlay lets it through). Its own connection, behind a lock: callable from any thread.
public final class XTestPointer: @unchecked Sendable {
    let x: X11Display
    private let lock = Lock()

    public init(display: String? = nil) throws {
        let x = try X11Display(display)
        var event = Int32(0), error = Int32(0), major = Int32(0), minor = Int32(0)
        guard XTestQueryExtension(x.pointer, &event, &error, &major, &minor) != 0 else {
            throw X11Error("X display '\(x.name)' has no XTEST extension, so clicks cannot be injected. Hint: enable XTEST in the X server, or use the uinput pointer.")
        }
        self.x = x
    }

    /// Moves the pointer to `p` (root pixels of the default screen, rounded) and clicks
    /// button 1 there. False when the server refused or the connection is gone.
    public func click(at p: Point) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !x.isLost, p.x.isFinite, p.y.isFinite else { return false }
        let d = x.pointer
        let px = Int32(clamping: Int(p.x.rounded())), py = Int32(clamping: Int(p.y.rounded()))
        let moved = XTestFakeMotionEvent(d, x.screen, px, py, 0) != 0
        let pressed = XTestFakeButtonEvent(d, 1, 1, 0) != 0
        let released = XTestFakeButtonEvent(d, 1, 0, 0) != 0
        // XPending flushes, then drops what the server sent unasked (we select no events):
        // no round trip, and nothing piles up.
        var event = XEvent()
        while !x.isLost, XPending(d) > 0 { XNextEvent(d, &event) }
        return moved && pressed && released && !x.isLost
    }

    /// A gesture at `p`: a right click (button 3), a double click (button 1 twice), a long
    /// press (button 1 held 0.8 s), a drag (button 1 pressed at `p`, moved in steps to `to`
    /// and released there) or a scroll (five notches of the wheel: buttons 4 to 7). The
    /// waits are the server's (XTest's delays), so this returns at once and nothing here
    /// sleeps. False when the server refused or the connection is gone.
    public func perform(_ gesture: Gesture, at p: Point, to: Point? = nil) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !x.isLost, p.x.isFinite, p.y.isFinite else { return false }
        let d = x.pointer
        func px(_ p: Point) -> (Int32, Int32) { (Int32(clamping: Int(p.x.rounded())), Int32(clamping: Int(p.y.rounded()))) }
        func move(_ p: Point, after delay: UInt = 0) -> Bool {
            let (x, y) = px(p)
            return XTestFakeMotionEvent(d, self.x.screen, x, y, delay) != 0
        }
        func button(_ b: UInt32, _ down: Bool, after delay: UInt = 0) -> Bool {
            XTestFakeButtonEvent(d, b, down ? 1 : 0, delay) != 0
        }
        func click(_ b: UInt32, after delay: UInt = 0) -> Bool { button(b, true, after: delay) && button(b, false) }
        var ok = move(p)
        switch gesture {
        case .rightClick:
            ok = ok && click(3)
        case .doubleClick:
            // Well inside any toolkit's double-click time (GTK 400 ms, Qt 400 ms).
            ok = ok && click(1) && click(1, after: 40)
        case .longPress:
            ok = ok && button(1, true) && button(1, false, after: UInt(Self.longPressMilliseconds))
        case .drag:
            guard let to, to.x.isFinite, to.y.isFinite else { return false }
            // Toolkits start a drag only after the pointer moved past a threshold with the
            // button down, and follow it by motion events: ten steps, 20 ms apart.
            ok = ok && button(1, true)
            let steps = 10
            for k in 1...steps where ok {
                let f = Double(k) / Double(steps)
                ok = move(Point(x: p.x + (to.x - p.x) * f, y: p.y + (to.y - p.y) * f), after: k == 1 ? 100 : 20)
            }
            ok = ok && button(1, false, after: 100)
        case .scrollUp, .scrollDown, .scrollLeft, .scrollRight:
            let b: UInt32 = switch gesture {
            case .scrollUp: 4
            case .scrollDown: 5
            case .scrollLeft: 6
            default: 7
            }
            for _ in 0..<Self.wheelNotches where ok { ok = click(b) }
        }
        var event = XEvent()
        while !x.isLost, XPending(d) > 0 { XNextEvent(d, &event) }
        return ok && !x.isLost
    }

    /// How long a long press holds the button.
    public static let longPressMilliseconds = 800
    /// How many notches of the wheel a scroll turns.
    public static let wheelNotches = 5

    /// Presses and releases `key` for the window that has the keyboard focus. False when
    /// the server has no such key or refused.
    public func press(_ key: SpecialKey) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !x.isLost else { return false }
        let d = x.pointer
        let keysym: UInt = switch key {
        case .escape: 0xff1b
        case .enter: 0xff0d
        case .tab: 0xff09
        case .up: 0xff52
        case .down: 0xff54
        case .left: 0xff51
        case .right: 0xff53
        }
        let code = XKeysymToKeycode(d, KeySym(keysym))
        guard code != 0 else { return false }
        let pressed = XTestFakeKeyEvent(d, UInt32(code), 1, 0) != 0
        let released = XTestFakeKeyEvent(d, UInt32(code), 0, 0) != 0
        var event = XEvent()
        while !x.isLost, XPending(d) > 0 { XNextEvent(d, &event) }
        return pressed && released && !x.isLost
    }

    /// The default screen's size in pixels.
    public var screenSize: (width: Double, height: Double) { (Double(x.width), Double(x.height)) }

    /// The size of `display`'s default screen (nil: the DISPLAY variable), or nil when it
    /// cannot be opened.
    public static func screenSize(display: String?) -> (Double, Double)? {
        guard let x = try? X11Display(display) else { return nil }
        defer { x.close() }
        return (Double(x.width), Double(x.height))
    }
}

/// A bare round trip to the X server (XSync on a connection of its own), the floor for
/// any drawing that waits for the server: for benchmarks.
public final class X11RoundTrip: @unchecked Sendable {
    let x: X11Display
    public init(display: String? = nil) throws { x = try X11Display(display) }
    deinit { x.close() }
    public func sync() { x.sync() }
}

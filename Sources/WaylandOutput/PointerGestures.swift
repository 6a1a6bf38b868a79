#if canImport(Glibc)
import Glibc
#endif
import ScanCore
import ScanHost

/// A pointer device of the compositor's that moves to points of its layout, presses
/// buttons and turns a wheel: wlroots' virtual pointer, KWin's fake input. The steps of a
/// click and of the Gestures page's gestures are the same for both.
protocol CompositorPointer: AnyObject {
    /// Held around each burst of requests.
    var lock: Lock { get }
    /// Under the lock.
    func move(_ p: Point)
    func button(_ code: UInt32, _ down: Bool)
    /// One wheel notch, down or right where `sign` is 1.
    func scroll(vertical: Bool, sign: Int32)
    /// A round trip: false when the compositor is gone.
    func flush() -> Bool
}

/// Linux's button codes (linux/input-event-codes.h), as Wayland carries them.
let leftButton: UInt32 = 0x110, rightButton: UInt32 = 0x111

extension CompositorPointer {
    func pointerClick(at p: Point) -> Bool {
        lock.withLock {
            move(p)
            button(leftButton, true)
            button(leftButton, false)
            return flush()
        }
    }

    /// A gesture at `p`: the right button, the left twice, the left held 0.8 s, a drag to
    /// `to` in ten steps, or five notches of a wheel. A long press and a drag take their time
    /// (the calling thread waits).
    func pointerGesture(_ gesture: Gesture, at p: Point, to: Point?) -> Bool {
        func pause(_ ms: Int) { usleep(useconds_t(ms * 1000)) }
        switch gesture {
        case .rightClick:
            return lock.withLock { move(p); button(rightButton, true); button(rightButton, false); return flush() }
        case .doubleClick:
            return lock.withLock {
                move(p)
                for _ in 0..<2 { button(leftButton, true); button(leftButton, false) }
                return flush()
            }
        case .longPress:
            guard lock.withLock({ move(p); button(leftButton, true); return flush() }) else { return false }
            pause(WaylandPointer.longPressMilliseconds)
            return lock.withLock { button(leftButton, false); return flush() }
        case .drag:
            guard let to, lock.withLock({ move(p); button(leftButton, true); return flush() }) else { return false }
            var ok = true
            for k in 1...10 where ok {
                pause(k == 1 ? 100 : 20)
                let f = Double(k) / 10
                ok = lock.withLock { move(Point(x: p.x + (to.x - p.x) * f, y: p.y + (to.y - p.y) * f)); return flush() }
            }
            pause(100)
            return lock.withLock { button(leftButton, false); return flush() } && ok
        case .scrollUp, .scrollDown, .scrollLeft, .scrollRight:
            let vertical = gesture == .scrollUp || gesture == .scrollDown
            let sign: Int32 = gesture == .scrollDown || gesture == .scrollRight ? 1 : -1
            return lock.withLock {
                move(p)
                for _ in 0..<WaylandPointer.wheelNotches { scroll(vertical: vertical, sign: sign) }
                return flush()
            }
        }
    }
}

import Foundation

/// Who may start a desktop now. GNOME Shell paints with OpenGL on the CPU and takes a core
/// of its own, so its sessions run alone: a GNOME Shell session waits until no other desktop
/// session of this test run is up, and other sessions wait while one is. The sway, KWin and
/// X sessions run side by side as before. (`swift test` runs every suite in one process, so
/// a lock in memory is enough.)
enum DesktopSlot {
    /// A place held until `release()` or the end of its holder.
    final class Hold: @unchecked Sendable {
        private let exclusive: Bool
        private var released = false
        fileprivate init(exclusive: Bool) { self.exclusive = exclusive }
        deinit { release() }

        func release() {
            DesktopSlot.condition.lock()
            defer { DesktopSlot.condition.unlock() }
            guard !released else { return }
            released = true
            if exclusive {
                DesktopSlot.exclusiveDepth -= 1
                if DesktopSlot.exclusiveDepth == 0 { DesktopSlot.exclusiveOwner = nil }
            } else {
                DesktopSlot.sharedCount -= 1
            }
            DesktopSlot.condition.broadcast()
        }
    }

    /// One place beside other shared ones; waits while a GNOME Shell session runs (unless
    /// this thread runs it: a test may start an X server beside its GNOME Shell).
    static func shared() -> Hold {
        condition.lock()
        defer { condition.unlock() }
        while let owner = exclusiveOwner, pthread_equal(owner, pthread_self()) == 0 { condition.wait() }
        sharedCount += 1
        return Hold(exclusive: false)
    }

    /// The only place: waits until no other session runs. A thread that holds it may take it
    /// again (a test that starts a second GNOME Shell).
    static func exclusive() -> Hold {
        condition.lock()
        defer { condition.unlock() }
        if let owner = exclusiveOwner, pthread_equal(owner, pthread_self()) != 0 {
            exclusiveDepth += 1
            return Hold(exclusive: true)
        }
        while exclusiveOwner != nil || sharedCount > 0 { condition.wait() }
        exclusiveOwner = pthread_self()
        exclusiveDepth = 1
        return Hold(exclusive: true)
    }

    private static let condition = NSCondition()
    nonisolated(unsafe) private static var sharedCount = 0
    nonisolated(unsafe) private static var exclusiveOwner: pthread_t?
    nonisolated(unsafe) private static var exclusiveDepth = 0
}

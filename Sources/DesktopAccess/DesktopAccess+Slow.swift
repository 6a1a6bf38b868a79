import CAtspi
import ScanCore
import ScanHost

/// What an event listener's user data holds: the listener owns the box (its destroy notify
/// releases it), and the box does not own the DesktopAccess, so an event that comes after
/// the DesktopAccess is gone finds nothing to call.
final class ListenerBox: @unchecked Sendable {
    weak var owner: DesktopAccess?
    init(_ owner: DesktopAccess) { self.owner = owner }
}

extension DesktopAccess {
    /// How long a one-shot question (`applications`, `choose`, `snapshot`) waits for
    /// applications that are slow to answer: a big application is busy for a second or more
    /// the first time a process asks it anything (it sends its whole tree to libatspi's cache).
    static let patienceMilliseconds: Int64 = 6000

    /// Reads the desktop again while an application could not be read because it did not
    /// answer in time, for at most
    /// `patienceMilliseconds` in all: each is asked for a Ping, and read again once it
    /// answers; one that did not answer in that time is not waited for again. Between the reads GLib's loop runs, so libatspi learns the application
    /// answers again (it refuses calls to one it thinks hung until then).
    func waitForSlowApplications() {
        let deadline = MonotonicClock.now() + .milliseconds(Self.patienceMilliseconds)
        while MonotonicClock.now() < deadline {
            guard let slow = try? thread.sync({ [self] () -> [(String, AccessibleRef)] in
                _ = readApplications()
                return unreadApplications.filter { $0.value.error.kind != .gone && !waitedInVain.contains($0.key) }
                    .map { ($0.key, $0.value.ref) }
            }), !slow.isEmpty else { return }
            let answered = (try? thread.sync { [self] () -> Bool in
                var any = false
                for (bus, ref) in slow {
                    let left = max(1, (deadline - MonotonicClock.now()).nanoseconds / 1_000_000)
                    var name = [CChar](repeating: 0, count: 96)
                    if catspi_ping(ref.pointer, Int32(left), &name, Int32(name.count)) != 0 {
                        unresponsive[bus] = nil
                        any = true
                    } else {
                        waitedInVain.insert(bus)
                    }
                }
                return any
            }) ?? false
            if !answered { return }
        }
    }
}

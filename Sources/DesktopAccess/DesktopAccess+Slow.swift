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
    /// applications that do not answer in time: a big application is busy for seconds the
    /// first time a process asks it anything (it sends its whole tree to libatspi's cache).
    /// One that answers, or that works (its CPU time grows) and is not stopped, is waited for
    /// up to `patienceMilliseconds`; one that neither answers nor works for a second is not.
    static let patienceMilliseconds: Int64 = 30_000

    /// Reads the desktop again while an application could not be read because it did not
    /// answer in time, each time after it answered a Ping (a second at most) or was seen
    /// working. Between the reads GLib's loop runs, so libatspi learns the application
    /// answers again (it refuses calls to one it thinks hung until then). One waited for in
    /// vain is not waited for again. Not past `deadline` (by default `patienceMilliseconds`
    /// from now).
    func waitForSlowApplications(until deadline: ScanInstant = MonotonicClock.now() + .milliseconds(patienceMilliseconds)) {
        while MonotonicClock.now() < deadline {
            guard let slow = try? thread.sync({ [self] () -> [(String, AccessibleRef)] in
                _ = readApplications()
                return unreadApplications.filter { $0.value.error.kind != .gone && !waitedInVain.contains($0.key) }
                    .map { ($0.key, $0.value.ref) }
            }), !slow.isEmpty else { return }
            let waiting = (try? thread.sync { [self] () -> Bool in
                var any = false
                for (bus, ref) in slow where worthWaiting(for: bus, ref, until: deadline) { any = true }
                return any
            }) ?? false
            if !waiting { return }
        }
    }

    /// Whether an application that did not answer in time is worth asking again: it answered
    /// a Ping (waited for a second at most, never past `deadline`), or it worked meanwhile
    /// (its CPU time grew) and is not stopped. One that did neither is not waited for again.
    func worthWaiting(for bus: String, _ ref: AccessibleRef, until deadline: ScanInstant) -> Bool {
        thread.preconditionOnThread()
        let pid = Atspi.processID(ref)
        var stopped: Int32 = 0
        let before = pid > 0 ? catspi_process_cpu_ticks(pid, &stopped) : -1
        let left = max(1, min(1000, (deadline - MonotonicClock.now()).nanoseconds / 1_000_000))
        var name = [CChar](repeating: 0, count: 96)
        if catspi_ping(ref.pointer, Int32(left), &name, Int32(name.count)) != 0 {
            follower.answered(bus)
            return true
        }
        let after = pid > 0 ? catspi_process_cpu_ticks(pid, &stopped) : -1
        if before >= 0, after > before, stopped == 0 { return true }   // busy, working
        waitedInVain.insert(bus)
        return false
    }
}

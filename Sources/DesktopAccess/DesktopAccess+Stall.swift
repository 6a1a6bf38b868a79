#if canImport(Glibc)
import Glibc
#endif
import CAtspi
import ScanCore
import ScanHost

/// An application that stops answering while the keyboard types into it: said once, and
/// nothing more is sent to it, nor are the words chosen meanwhile said or kept in the words
/// file, until it answers again; then the keyboard closes, so that the next one opened starts
/// from the field's real text. Keys sent to an application that hangs are lost, and a person
/// who hears each word said would go on writing into nothing.
///
/// After keys are sent, the application is asked (a D-Bus ping, answered by its main loop)
/// once they have had time to arrive, and again every half second while it does not answer:
/// no answer for `stallAfter` is a stall. Each question waits `pingMilliseconds` at most, so
/// that the AT-SPI thread, which reads and acts for every other application too, is never
/// held long. While stalled it is asked every second.
extension DesktopAccess {
    /// How long an application may go without answering after keys before it is said not to
    /// answer: longer than a busy application's pause, shorter than a person's next choice.
    static let stallAfter: ScanDuration = .seconds(3)
    static let pingMilliseconds: Int32 = 250
    /// How long after keys the application is asked first: time for them to reach it.
    static let stallCheckDelay: UInt32 = 300

    /// Whether the application typed into has stopped answering (any thread).
    public var typingTargetStalled: Bool { typingStalled.get() }

    /// After keys were sent: the application is asked once they have had time to arrive
    /// (AT-SPI thread; one question waiting at a time).
    func checkTypingTarget() {
        thread.preconditionOnThread()
        guard stallCheckToken == nil, !typingStalled.get() else { return }
        scheduleStallCheck(after: Self.stallCheckDelay)
    }

    private func scheduleStallCheck(after milliseconds: UInt32) {
        stallCheckToken = thread.after(milliseconds: milliseconds) { [self] in
            stallCheckToken = nil
            askTypingTarget()
        }
    }

    /// The object keys go to: the field followed, else the window read last.
    private var typingTarget: AccessibleRef? { fieldRef ?? lastWindowRef }

    private func askTypingTarget() {
        thread.preconditionOnThread()
        guard let target = typingTarget else { return clearStall(said: nil) }
        var name = [CChar](repeating: 0, count: 96)
        let answered = catspi_ping(target.pointer, Self.pingMilliseconds, &name, Int32(name.count)) != 0
        let error = cText(name)
        let app = knownAppName(target.busName) ?? lastSnapshot?.application
        if answered { return clearStall(said: app) }
        // Gone is not stalled: its window goes, and the scan with it.
        guard error.isEmpty || error == "org.freedesktop.DBus.Error.NoReply" || error == "org.freedesktop.DBus.Error.Timeout" else {
            return clearStall(said: nil)
        }
        let now = MonotonicClock.now()
        let since = stallSince ?? now
        stallSince = since
        if !typingStalled.get() && now >= since + Self.stallAfter {
            typingStalled.set(true)
            fail("\(app.map { "'\($0)'" } ?? "The application") does not answer: typing stopped. Nothing more is sent to it until it answers again.")
        }
        scheduleStallCheck(after: typingStalled.get() ? 1000 : 500)
    }

    /// It answers (or is gone): typing may go on. After a stall the keyboard closes: what it
    /// believed typed meanwhile never arrived.
    private func clearStall(said app: String?) {
        stallSince = nil
        guard typingStalled.get() else { return }
        typingStalled.set(false)
        guard let app else { return }
        fail("'\(app)' answers again: select the field to go on typing.")
        carryOut(fields.leave())
    }
}

#if canImport(Glibc)
import Glibc
#endif
import CAtspi

/// An application that stops answering while the keyboard types into it: said once, and
/// nothing more is sent to it, nor are the words chosen meanwhile announced as typed, until
/// it answers again. Keys sent to an application that hangs are lost, and a person who hears
/// each word said would go on writing into nothing.
///
/// After keys are sent, the application is asked (a D-Bus ping, answered by its main loop)
/// once it has had time to take them; no answer within `stallMilliseconds` is a stall. While
/// stalled it is asked again every second.
extension DesktopAccess {
    /// How long an application may take to answer after keys before it is said not to
    /// answer: longer than a busy application's pause (a big file opening), shorter than a
    /// person's next choice.
    static let stallMilliseconds: Int32 = 3000
    /// How long after keys the application is asked: time for them to reach it.
    static let stallCheckDelay: UInt32 = 300

    /// Whether the application typed into has stopped answering (any thread).
    public var typingTargetStalled: Bool { typingStalled.get() }

    /// After keys were sent: the application is asked once they have had time to arrive
    /// (AT-SPI thread; one question at a time).
    func checkTypingTarget() {
        thread.preconditionOnThread()
        guard !stallCheckPending, !typingStalled.get() else { return }
        stallCheckPending = true
        stallCheckToken = thread.after(milliseconds: Self.stallCheckDelay) { [self] in
            stallCheckPending = false
            stallCheckToken = nil
            askTypingTarget()
        }
    }

    /// The object keys go to: the field followed, else the window read last.
    private var typingTarget: AccessibleRef? {
        fieldID.flatMap { fieldObject($0) } ?? lastWindowRef
    }

    private func askTypingTarget() {
        thread.preconditionOnThread()
        guard let target = typingTarget else { return setStalled(false, name: nil) }
        var name = [CChar](repeating: 0, count: 96)
        let answered = catspi_ping(target.pointer, Self.stallMilliseconds, &name, Int32(name.count)) != 0
        // Gone is not stalled: its window goes, and the scan with it.
        let error = cText(name)
        let stalled = !answered && (error.isEmpty || error == "org.freedesktop.DBus.Error.NoReply" || error == "org.freedesktop.DBus.Error.Timeout")
        setStalled(stalled, name: lastSnapshot?.application)
        if stalled {
            stallCheckToken = thread.after(milliseconds: 1000) { [self] in
                stallCheckToken = nil
                askTypingTarget()
            }
        }
    }

    private func setStalled(_ stalled: Bool, name: String?) {
        let was = typingStalled.get()
        guard stalled != was else { return }
        typingStalled.set(stalled)
        let app = name.map { "'\($0)'" } ?? "The application"
        fail(stalled ? "\(app) does not answer: typing stopped. Nothing more is sent to it until it answers again."
                     : "\(app) answers again: typing goes on.")
    }
}

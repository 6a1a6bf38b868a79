#if canImport(Glibc)
import Glibc
#endif
import CAtspi

/// The connections that carried actions to one application, kept open until it is done with
/// them.
///
/// An action runs inside the application's dispatch of the connection that carried it. When
/// the action runs a modal loop (GTK 3's `gtk_dialog_run` behind File > Save As…), that
/// dispatch lasts until the dialog closes, and nothing may reach the application on that
/// connection meanwhile, not even its closing: atk-bridge runs a main loop of its own for
/// every key the application gets, that loop dispatches every connection with something
/// waiting, and a second dispatch of the held one waits for ever. The application would hang
/// at the first key typed into the dialog, with the person's document in it. So each
/// action's connection stays open and silent until the application shows no modal window
/// (asked live, over the connection reads use, twice a second apart): then every action sent
/// before the questions is over.
struct KeptActions {
    /// An object of the application, to ask it.
    var app: AccessibleRef
    /// The connections, whether the action's answer has come (one not answered may not have
    /// begun when the application answers the question, so it waits for its answer), and
    /// how many times in a row since it was kept the application answered that it shows no
    /// modal window: twice, a second apart, before it is closed, for an application that
    /// takes a while to show the dialog an action opens (LibreOffice).
    var connections: [(connection: OpaquePointer, answered: Bool, clear: Int)] = []
}

extension DesktopAccess {
    /// How often the applications with kept connections are asked whether they show a modal
    /// window. Keeping costs a socket each; asking, two or three calls.
    static let keptCheckMilliseconds: UInt32 = 1000

    /// Keeps the connection that carried an action to `app`'s application (AT-SPI thread);
    /// `answered`: the action's answer came (it has begun).
    func keep(_ connection: OpaquePointer, answered: Bool, of app: AccessibleRef) {
        thread.preconditionOnThread()
        let bus = app.busName
        var k = keptActions[bus] ?? KeptActions(app: app)
        k.connections.append((connection, answered, 0))
        keptActions[bus] = k
        scheduleKeptCheck()
    }

    private func scheduleKeptCheck() {
        guard keptCheckToken == nil, !keptActions.isEmpty else { return }
        keptCheckToken = thread.after(milliseconds: Self.keptCheckMilliseconds) { [self] in
            keptCheckToken = nil
            releaseKeptActions(stopping: false)
            scheduleKeptCheck()
        }
    }

    /// Closes the kept connections of every application that is done with their actions:
    /// one gone, or one that answers that it shows no modal window. When `stopping`, the
    /// others are left open until the process ends: closing one while its application still
    /// runs the action's modal loop would hang the application at its next key, and a
    /// process that has ended hangs nothing (it is gone from the accessibility bus).
    func releaseKeptActions(stopping: Bool) {
        thread.preconditionOnThread()
        if stopping, let token = keptCheckToken {
            thread.cancel(token)
            keptCheckToken = nil
        }
        for (bus, var k) in keptActions {
            for i in k.connections.indices where !k.connections[i].answered {
                k.connections[i].answered = catspi_kept_answered(k.connections[i].connection) != 0
            }
            var done: [OpaquePointer] = []
            switch Atspi.showsModal(k.app) {
            case .gone:
                done = k.connections.map(\.connection)
                k.connections.removeAll()
            case .none:
                for i in k.connections.indices where k.connections[i].answered { k.connections[i].clear += 1 }
                done = k.connections.filter { $0.clear >= 2 }.map(\.connection)
                k.connections.removeAll { $0.clear >= 2 }
            case .shown:
                for i in k.connections.indices { k.connections[i].clear = 0 }
            case .noAnswer:
                break
            }
            done.forEach { catspi_close_kept($0) }
            keptActions[bus] = k.connections.isEmpty || stopping ? nil : k
        }
    }
}

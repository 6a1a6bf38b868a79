import Foundation
import ScanCore
import ScanFormats
import ScanHost
@testable import ScanSession
import Testing
import TestSupport

/// The session's own presenters, each given effects as the engine makes them, without a
/// desktop or a display.
@Suite struct SessionPresentersTests {
    final class RecordingDesktop: DesktopActions, @unchecked Sendable {
        private let lock = NSLock()
        private var log: [String] = []
        var calls: [String] { lock.withLock { log } }
        func perform(_ effects: [TimedEffect]) {
            lock.withLock { log.append("perform " + effects.map { Self.name($0.effect) }.joined(separator: ",")) }
        }
        func followField(_ id: String?) { lock.withLock { log.append("follow \(id ?? "nil")") } }
        static func name(_ e: Effect) -> String {
            switch e {
            case .activate(let element, _, _): "activate \(element)"
            case .tap(_, let element): "tap \(element ?? "nil")"
            default: "other"
            }
        }
    }

    final class RecordingWindows: WindowList, @unchecked Sendable {
        private let lock = NSLock()
        private var done: [String] = []
        var commands: [String] { lock.withLock { done } }
        func start(onChange: @escaping @Sendable ([ManagedWindow]) -> Void) {}
        func perform(_ command: WindowCommand, window id: String) { lock.withLock { done.append("\(command.rawValue) \(id)") } }
        func stop() {}
    }

    func at(_ effect: Effect) -> TimedEffect { TimedEffect(.zero, effect) }
    let point = Point(x: 5, y: 5)

    /// Activations reach the desktop; while the keyboard is open its keys are not widgets
    /// (dropped), only a point-mode tap outside it goes through, and the field the keyboard
    /// opened over is followed until it closes.
    @Test func theActuatorLeavesTheDesktopAloneWhileTheKeyboardIsOpen() throws {
        let desktop = RecordingDesktop()
        let actuator = DesktopActuator(desktop)
        try actuator.present([at(.activate(element: "name", point: point, target: "name")), at(.keyboard([]))])
        try actuator.present([at(.activate(element: "key-a", point: point, target: "key-a")), at(.tap(point, element: nil)),
                              at(.tap(point, element: "key-b"))])
        try actuator.present([at(.keyboardClose), at(.activate(element: "ok", point: point, target: "ok"))])
        #expect(desktop.calls == [
            "follow name", "perform activate name",
            "perform tap nil",
            "follow nil", "perform activate ok",
        ])
    }

    @Test func theWindowsPagesCommandsGoToTheWindowList() throws {
        let windows = RecordingWindows()
        let presenter = WindowPresenter(windows)
        try presenter.present([at(.window(.maximize, window: "0x2a", title: "Notes")), at(.keyboardClose),
                               at(.window(.close, window: "7", title: "Mail", chosen: true))])
        #expect(windows.commands == ["maximize 0x2a", "close 7"])
    }

    /// Each learned word is added to the file as it is when written, and what is queued is
    /// written by `finish`.
    @Test func learnedWordsAreKeptInTheUsersFile() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/learned.words"
        let warnings = Collected()
        let keeper = WordsKeeper(path: path, warn: { warnings.add($0) })
        try keeper.present([at(.learnWord("hello", after: nil)), at(.learnWord("world", after: "hello")), at(.keyboardClose)])
        keeper.finish()
        let (list, damaged) = try WordsFile.loadUser(path)
        #expect(damaged == nil)
        #expect(list.count(of: "hello") == 1 && list.count(of: "world") == 1)
        #expect(list.count(of: "world", after: "hello") == 1)
        #expect(warnings.all.isEmpty)
    }

    /// A damaged words file is said and left as it is for the user to mend; nothing is
    /// thrown at the presenters.
    @Test func aDamagedWordsFileIsSaidAndLeftAsItIs() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/learned.words"
        let damaged = "3 hello\nthis line has no count\n"
        try damaged.write(toFile: path, atomically: true, encoding: .utf8)
        let warnings = Collected()
        let keeper = WordsKeeper(path: path, warn: { warnings.add($0) })
        try keeper.present([at(.learnWord("world", after: nil))])
        keeper.finish()
        #expect(warnings.all.count == 1)
        #expect(warnings.all.first.map { $0.contains(path) && $0.contains("left unchanged") } == true, "\(warnings.all)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == damaged)
    }

    /// A message said is kept in the history; a phrase or an answer said is not; a history
    /// that cannot be written is said, never thrown at the presenters.
    @Test func theMessagesSaidAreKeptInTheHistory() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/data/history.txt"
        let warnings = Collected()
        let keeper = HistoryKeeper(path: path, warn: { warnings.add($0) })
        try keeper.present([at(.speak("Help me", voice: .public, from: .message)), at(.speak("Yes", voice: .public, from: .answer)),
                            at(.speak("I need a drink", voice: .public, from: .phrase)), at(.speak("Later", voice: .public, from: .message))])
        keeper.finish()
        #expect(try MessageHistoryFile.load(path) == ["Later", "Help me"])
        #expect(warnings.all.isEmpty)
        let blocked = HistoryKeeper(path: folder.path + "/data/history.txt/below", warn: { warnings.add($0) })
        try blocked.present([at(.speak("Again", voice: .public, from: .message))])
        blocked.finish()
        #expect(warnings.all.count == 1, "\(warnings.all)")
    }

    @Test func aSettingChangedOnTheMenuIsKeptInTheSettingsFile() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/settings.json"
        try #"{"style": "auto", "speech": false}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let warnings = Collected()
        let keeper = SettingsKeeper(path: path, warn: { warnings.add($0) })
        try keeper.present([at(.settingChanged(.speech(true))), at(.settingChanged(.autoScanInterval(.milliseconds(1500))))])
        keeper.finish()
        let settings = try SettingsLoader.load(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))), file: path)
        #expect(settings.feedback.speech)
        #expect(settings.autoScanInterval == .milliseconds(1500))
        #expect(settings.style == .auto, "the rest of the file is kept")
        #expect(warnings.all.isEmpty)
    }

    /// The live window's trees reach the scanner in order; those that came before it are
    /// kept, and only the last of them is handed over.
    @Test func liveTreesBeforeTheScannerAreHandedOverLastFirst() {
        let trees = LiveTrees()
        func tree(_ id: String) -> ElementTree { ElementTree(screenID: id, size: (10, 10), nodes: [ElementNode(id: "root")]) }
        trees.put(tree("one"))
        trees.put(tree("two"))
        let got = Collected()
        trees.attach { got.add($0.screenID) }
        trees.put(tree("three"))
        #expect(got.all == ["two", "three"])
    }
}

/// Strings gathered from other threads.
final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ s: String) { lock.withLock { items.append(s) } }
    var all: [String] { lock.withLock { items } }
}

/// A folder of its own, removed at the end.
final class TemporaryFolder {
    let path: String
    init() throws {
        path = NSTemporaryDirectory() + "switchscan-session-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// The phrases file looked at while the run goes on: a change is delivered once it holds
/// still, a file gone keeps the phrases offered (and says so).
@Suite struct PhrasesWatcherTests {
    @Test func aChangedFileIsReadAgainAndAFileGoneKeepsThePhrases() throws {
        let folder = try TemporaryFolder()
        let file = URL(fileURLWithPath: folder.path + "/phrases.txt")
        try Data("I need a drink\n".utf8).write(to: file)
        let delivered = Collected(), warned = Collected()
        let watcher = PhrasesWatcher(path: file.path, every: .milliseconds(50),
                                     deliver: { delivered.add($0.joined(separator: "|")) }, warn: { warned.add($0) })
        defer { watcher.stop() }
        try Data("I need a drink\nOpen the window\n".utf8).write(to: file, options: .atomic)
        let changed = TestTime.poll(timeout: 5) { delivered.all.last == "I need a drink|Open the window" }
        #expect(changed, "\(delivered.all)")
        try FileManager.default.removeItem(at: file)
        let gone = TestTime.poll(timeout: 5) { warned.all.contains { $0.contains("is gone") } }
        #expect(gone, "\(warned.all)")
        #expect(delivered.all.count == 1, "nothing delivered for a file gone: \(delivered.all)")
        try Data("Thank you\n".utf8).write(to: file)
        let back = TestTime.poll(timeout: 5) { delivered.all.last == "Thank you" }
        #expect(back, "\(delivered.all)")
    }
}

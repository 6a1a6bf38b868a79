import Foundation
import ScanCore
import ScanFormats
import ScanRuntime
import Testing
import Typing
import WordPrediction

/// Golden scenarios (Tests/Scenarios/*.scan): a layout, settings, switch events at absolute
/// virtual times, and the exact effects expected, one compact line each.
///
/// ```
/// # what the scenario shows
/// layout: switch-control.uikit.json        (in Layouts/; or keyboard: the typing keyboard
///                                           over an empty field, with the words of
///                                           Tests/Fixtures/words/small.words)
/// settings: {"style": "manual"}            (optional, inline JSON)
/// typing: true                             (optional: a text field opens the keyboard, with
///                                           the words of Tests/Fixtures/words/small.words)
/// debounce: 0.03                           (optional: a device profile's bounce time)
/// until: 9                                 (seconds)
/// windows: Editor (active); Files; Music (minimized)
///                                          (optional: the desktop's windows, ids w1, w2, …;
///                                           states: active, maximized, minimized)
/// events:
/// 3.2 select
/// expect:
/// 0 scanStarted
/// 0 highlight group testWrap
/// ```
struct Scenario: CustomTestStringConvertible, Sendable {
    var name: String
    var layout = ""
    /// The typing keyboard instead of a layout.
    var keyboard = false
    /// Text fields open the keyboard.
    var typing = false
    var settings = "{}"
    var until = 10.0
    /// A device profile's debounce for the switches (seconds), if any.
    var debounce: Double?
    var events = ""
    var windows: [ManagedWindow] = []
    var expected: [String] = []

    var testDescription: String { name }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func all() -> [Scenario] {
        let dir = root.appendingPathComponent("Tests/Scenarios")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return files.filter { $0.hasSuffix(".scan") }.sorted().map { file in
            parse(String(decoding: FileManager.default.contents(atPath: dir.appendingPathComponent(file).path) ?? Data(), as: UTF8.self),
                  name: file)
        }
    }

    static func parse(_ text: String, name: String) -> Scenario {
        var s = Scenario(name: name)
        var section = ""
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line == "events:" || line == "expect:" { section = line; continue }
            switch section {
            case "events:": s.events += line + "\n"
            case "expect:": s.expected.append(line)
            default:
                let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2 else { continue }
                switch parts[0] {
                case "layout": s.layout = parts[1]
                case "keyboard": s.keyboard = parts[1] == "true"
                case "typing": s.typing = parts[1] == "true"
                case "settings": s.settings = parts[1]
                case "until": s.until = Double(parts[1]) ?? 10
                case "debounce": s.debounce = Double(parts[1])
                case "windows": s.windows = parseWindows(parts[1])
                default: break
                }
            }
        }
        return s
    }

    /// "Editor (active, maximized); Files" → windows w1, w2 with those states.
    static func parseWindows(_ text: String) -> [ManagedWindow] {
        text.split(separator: ";").enumerated().map { i, part in
            var title = part.trimmingCharacters(in: .whitespaces)
            var states: [String] = []
            if title.hasSuffix(")"), let open = title.lastIndex(of: "(") {
                states = title[title.index(after: open)..<title.index(before: title.endIndex)]
                    .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                title = title[..<open].trimmingCharacters(in: .whitespaces)
            }
            return ManagedWindow(id: "w\(i + 1)", title: title, active: states.contains("active"),
                                 maximized: states.contains("maximized"), minimized: states.contains("minimized"))
        }
    }

    /// The fixture word list of the keyboard scenarios and tests.
    static func smallWords() throws -> WordPredictor {
        let path = root.appendingPathComponent("Tests/Fixtures/words/small.words").path
        return WordPredictor(system: try WordList(parsing: [UInt8](FileManager.default.contents(atPath: path) ?? Data()), file: path))
    }

    func run() throws -> [String] {
        let settings = try SettingsLoader.load(bytes: Array(self.settings.utf8), file: "\(name) settings")
        let events = try EventsLoader.load(text: self.events, file: name)
        var engine: ScanEngine
        if keyboard {
            engine = KeyboardSession.engine(layout: KeyboardLayout(settings.typing.keyboardLayout), predictor: try Self.smallWords(), settings: settings)
        } else {
            let layoutBytes = try [UInt8](Data(contentsOf: Self.root.appendingPathComponent("Layouts").appendingPathComponent(layout)))
            let doc = try LayoutLoader.load(bytes: layoutBytes, file: layout)
            engine = ScanEngine(tree: doc.tree, settings: settings, debounce: debounce.map { .seconds($0) })
            if typing {
                engine.keyboardProvider = KeyboardMaker(layout: KeyboardLayout(settings.typing.keyboardLayout),
                                                        predictor: try Self.smallWords(), settings: settings.typing)
            }
        }
        engine.setWindows(windows)
        var driver = ManualDriver(engine: engine)
        driver.schedule(events)
        return (driver.start() + driver.advance(to: .seconds(until))).map(compact)
    }
}

func num(_ v: Double) -> String {
    var s = String(format: "%.3f", v)
    while s.hasSuffix("0") { s.removeLast() }
    if s.hasSuffix(".") { s.removeLast() }
    return s
}

/// One effect as a short line: time, name, the fields that matter for behaviour.
func compact(_ e: TimedEffect) -> String {
    let t = num(e.time.seconds)
    switch e.effect {
    case .scanStarted: return "\(t) scanStarted"
    case .scanStopped(let r): return "\(t) scanStopped \(r.rawValue)"
    case let .highlight(item, kind, _, _, _): return "\(t) highlight \(kind.rawValue) \(item)"
    case .enterGroup(let g): return "\(t) enterGroup \(g)"
    case .exitGroup(let g): return "\(t) exitGroup \(g)"
    case let .menuOpen(el, entries, _): return "\(t) menuOpen \(el ?? "-") \(entries.joined(separator: ","))"
    case .menuClose(let el): return "\(t) menuClose \(el ?? "-")"
    case let .activate(el, p, target): return "\(t) activate \(el) (\(num(p.x)),\(num(p.y))) \(target ?? "-")"
    case let .customAction(el, action, ok): return "\(t) customAction \(el) \(action)\(ok ? "" : " failed")"
    case let .adjust(el, dir, value): return "\(t) adjust \(el) \(dir.rawValue) \(value)"
    case .modeChanged(let m): return "\(t) modeChanged \(m.rawValue)"
    case .sweep(let s):
        return "\(t) sweep \(s.axis.rawValue) \(s.phase.rawValue) \(num(s.lo))..\(num(s.hi + s.width)) @\(num(s.speed))"
            + (s.phase == .band ? " width \(num(s.width))" : "")
    case .pointSelected(let p): return "\(t) pointSelected (\(num(p.x)),\(num(p.y)))"
    case let .tap(p, el): return "\(t) tap (\(num(p.x)),\(num(p.y))) \(el ?? "-")"
    case .announce(let text): return "\(t) announce \(text)"
    case let .emit(name, _, _): return "\(t) emit \(name)"
    case let .settingChanged(name, value): return "\(t) settingChanged \(name) \(value)"
    case .key(let k): return "\(t) key \(k.rawValue)"
    case let .window(command, window, _): return "\(t) window \(command.rawValue) \(window)"
    case .keyboard(let keys):
        // The prediction row, and what the letter keys show (capitals or not) or the other page.
        let words = keys.filter { $0.id.hasPrefix("prediction") }.map(\.label).joined(separator: ",")
        let page = keys.first { $0.id == "key_e" }.map { $0.label == "E" ? "capitals" : "letters" }
            ?? (keys.contains { $0.id == "key_1" } ? "symbols" : "edit")
        return "\(t) keyboard \(words.isEmpty ? "-" : words) \(page)"
    case let .typeText(text, secret): return "\(t) typeText \(text.debugDescription)\(secret ? " secret" : "")"
    case .deleteText(let n): return "\(t) deleteText \(n)"
    case .keyboardClose: return "\(t) keyboardClose"
    case .shortcut(let chord): return "\(t) shortcut \((chord.modifiers.map(\.rawValue) + [chord.key]).joined(separator: "+"))"
    case let .learnWord(word, after): return "\(t) learnWord \(word) \(after ?? "-")"
    }
}

@Suite("Scenarios")
struct ScenarioTests {
    @Test("every scenario file", arguments: Scenario.all())
    func scenario(_ s: Scenario) throws {
        #expect(!s.expected.isEmpty, "\(s.name) expects nothing")
        let actual = try s.run()
        let diff = zip(actual, s.expected).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(actual == s.expected, """
            \(s.name): first difference at line \(diff.map { "\($0.offset + 1): got '\($0.element.0)', expected '\($0.element.1)'" } ?? "end (lengths \(actual.count) vs \(s.expected.count))")
            actual:
            \(actual.joined(separator: "\n"))
            """)
    }

    @Test func scenarioFilesExist() {
        #expect(Scenario.all().count >= 20)
    }
}

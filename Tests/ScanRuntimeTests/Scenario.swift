import Foundation
import ScanCore
import ScanFormats
import ScanRuntime
import Testing
import Typing
import WordPrediction

/// A golden scenario (Tests/Scenarios/*.scan): a layout, settings, switch events at absolute
/// virtual times, and the effects expected, one compact line each (as `compact` prints them).
///
/// ```
/// # what the scenario shows
/// layout: switch-control.uikit.json        (in Layouts/; or keyboard: true, the typing
///                                           keyboard over an empty field, with the words of
///                                           Tests/Fixtures/words/small.words)
/// settings: {"style": "manual"}            (optional, inline JSON, as in a settings file)
/// messages: phrases.txt                     (instead of a layout: the message screen, with the
///                                           phrases of Tests/Fixtures/phrases/FILE, or "none",
///                                           and the words of small.words; with a layout: the
///                                           screen menu's Message opens it, Hide comes back)
/// typing: true                             (optional: a text field opens the keyboard, with
///                                           the words of Tests/Fixtures/words/small.words)
/// debounce: 0.03                           (optional: a device profile's bounce time, seconds)
/// until: 9                                 (optional, seconds; 10 if not given)
/// windows: Editor (active); Files; Music (minimized)
///                                          (optional: the desktop's windows, ids w1, w2, …;
///                                           states: active, maximized, minimized)
/// expect:
/// 0 scanStarted
/// 0 highlight group testWrap
/// events:
/// 0.2 menu
/// expect:
/// 0.2 menuOpen - pointMode,…,exit
/// 0.2 highlight menuEntry pointMode
/// ```
///
/// Headers come first, each at most once. Then `events:` and `expect:` sections alternate as
/// a timing diagram: each `expect:` section holds, in order, every effect made after the
/// previous section's and before the first event listed after it (to `until` for the last
/// section). Event lines are those of an events file (`switchscan simulate`).
///
/// In a `menuOpen` line an ellipsis `…` stands for any items (none or more) between the ones
/// written: `tap,…,exit` is a menu that starts with Tap and ends with Exit. Only one scenario
/// per menu page pins the whole list; the others name the items they are about.
///
/// A header the runner does not know, a value it cannot read, an effect it does not print,
/// or an expectation outside its section's time is an error naming the file and the line.
struct Scenario: Sendable {
    var name: String
    var layout = ""
    /// The typing keyboard instead of a layout.
    var keyboard = false
    /// The message screen, with this phrases file of Tests/Fixtures/phrases ("none": no phrases).
    var messages: String?
    /// Text fields open the keyboard.
    var typing = false
    var settings = ScanSettings()
    var until = 10.0
    /// A device profile's debounce for the switches (seconds), if any.
    var debounce: Double?
    var windows: [ManagedWindow] = []
    var events: [SwitchEvent] = []
    var sections: [Expectations] = []

    /// An `expect:` section: its lines, and the time its effects end (the first event after
    /// it; nil: `until`).
    struct Expectations: Sendable {
        /// The line of its `expect:`.
        var line: Int
        var lines: [(text: String, line: Int)] = []
        var before: Double?
    }

    static let headers = ["layout", "keyboard", "messages", "typing", "settings", "debounce", "until", "windows"]
    static let windowStates = ["active", "maximized", "minimized"]

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Every scenario file, by name, with its text.
    static func files() -> [ScenarioFile] {
        let dir = root.appendingPathComponent("Tests/Scenarios")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix(".scan") }.sorted().map { name in
            ScenarioFile(name: name, text: String(decoding: FileManager.default.contents(atPath: dir.appendingPathComponent(name).path) ?? Data(), as: UTF8.self))
        }
    }

    // MARK: - parsing

    static func parse(_ text: String, name: String) throws(ScenarioError) -> Scenario {
        var s = Scenario(name: name)
        var problems: [(line: Int, message: String)] = []
        func problem(_ line: Int, _ message: String) { problems.append((line, message)) }

        var section: String?
        var seen: Set<String> = []
        var settingsText: (text: String, line: Int)?
        // Event lines keep their line numbers: the events loader's messages name the file's.
        var eventLines = [String]()
        var sections: [Expectations] = []
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (k, raw) in lines.enumerated() {
            let lineNo = k + 1
            eventLines.append("")
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line == "events:" || line == "expect:" {
                section = line
                if line == "expect:" { sections.append(Expectations(line: lineNo)) }
                continue
            }
            switch section {
            case "events:":
                eventLines[k] = line
                // The section before ends at the first event after it.
                if let t = Double(line.split(separator: " ").first ?? ""), let last = sections.indices.last,
                   sections[last].before == nil {
                    sections[last].before = t
                }
            case "expect:":
                sections[sections.count - 1].lines.append((line, lineNo))
            default:
                let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, !parts[0].isEmpty, !parts[0].contains(" ") else {
                    problem(lineNo, "\"\(line)\" is not a header; write \"NAME: VALUE\" (\(headers.joined(separator: ", "))), or start a section with \"events:\" or \"expect:\"")
                    continue
                }
                let (key, value) = (parts[0], parts[1])
                guard headers.contains(key) else {
                    problem(lineNo, "unknown header \"\(key)\"; known: \(headers.joined(separator: ", "))")
                    continue
                }
                guard seen.insert(key).inserted else { problem(lineNo, "\"\(key)\" is given twice"); continue }
                switch key {
                case "layout":
                    if value.hasSuffix(".json") { s.layout = value } else { problem(lineNo, "layout \"\(value)\" is not a layout file; give a .json file in Layouts/") }
                case "keyboard", "typing":
                    guard value == "true" || value == "false" else { problem(lineNo, "\(key) is \"\(value)\"; write true or false"); continue }
                    if key == "keyboard" { s.keyboard = value == "true" } else { s.typing = value == "true" }
                case "messages":
                    s.messages = value
                case "settings":
                    settingsText = (value, lineNo)
                case "until":
                    if let v = Double(value), v > 0, v.isFinite { s.until = v } else { problem(lineNo, "until is \"\(value)\"; give the seconds to run, e.g. 9.5") }
                case "debounce":
                    if let v = Double(value), v >= 0, v < 1 { s.debounce = v } else { problem(lineNo, "debounce is \"\(value)\"; give seconds from 0 to 1, e.g. 0.03") }
                default:
                    do throws(ScenarioError) { s.windows = try parseWindows(value, line: lineNo) } catch {
                        problems += error.problems
                    }
                }
            }
        }
        let screens = [!s.layout.isEmpty, s.keyboard, s.messages != nil && s.layout.isEmpty].filter { $0 }.count
        if screens != 1 {
            problem(1, screens > 1 ? "give one of a layout, keyboard: true and messages: FILE, not more"
                : "no layout; give \"layout: FILE.json\", \"keyboard: true\" or \"messages: FILE\"")
        }
        if sections.isEmpty { problem(lines.count, "no expectations; list the effects expected under \"expect:\"") }
        var lastExpected = 0.0
        for section in sections {
            if section.lines.isEmpty { problem(section.line, "this expect: section is empty; list what happens before the next event, or remove it") }
            for (text, lineNo) in section.lines {
                if let message = checkExpectation(text, after: lastExpected, before: section.before ?? .infinity) {
                    problem(lineNo, message)
                    continue
                }
                lastExpected = Double(text.split(separator: " ")[0])!
                if lastExpected > s.until { problem(lineNo, "expected at \(num(lastExpected)), after until (\(num(s.until))); raise until") }
            }
        }
        if let settingsText {
            do {
                s.settings = try SettingsLoader.load(bytes: Array(settingsText.text.utf8), file: "\(name):\(settingsText.line) settings")
            } catch {
                problem(settingsText.line, "settings: \(error)")
            }
        }
        do {
            s.events = Array(try EventsLoader.load(text: eventLines.joined(separator: "\n"), file: name))
        } catch {
            problems += error.problems
        }
        s.sections = sections
        guard problems.isEmpty else { throw ScenarioError(file: name, problems: problems) }
        return s
    }

    /// Why an expectation line cannot be right, or nil.
    static func checkExpectation(_ line: String, after previous: Double, before end: Double) -> String? {
        let words = line.split(separator: " ", maxSplits: 2)
        guard words.count >= 2 else { return "\"\(line)\" is not an expectation; write \"SECONDS EFFECT …\", e.g. \"0 scanStarted\"" }
        guard let t = Double(words[0]), t >= 0, t.isFinite else {
            return "\"\(words[0])\" is not a time; write seconds as effects print them, e.g. 1.25"
        }
        if num(t) != words[0] { return "time \"\(words[0])\" would never match; effects print it as \(num(t))" }
        guard effectNames.contains(String(words[1])) else {
            var message = "\"\(words[1])\" is not an effect; known: \(effectNames.joined(separator: ", "))"
            if let near = effectNames.first(where: { $0.lowercased() == words[1].lowercased() }) { message += "; did you mean \"\(near)\"?" }
            return message
        }
        if t < previous { return "expected at \(num(t)), before the expectation above it (\(num(previous))); list effects in time order" }
        if t >= end {
            return "expected at \(num(t)), not before the event at \(num(end)) that ends this section; move it below that event"
        }
        // Elsewhere (an announcement) the ellipsis is text like any other.
        if words[1] == "menuOpen" && line.contains("...") { return "write the ellipsis as … (one character), not ..." }
        if words[1] == "menuOpen" && line.contains("…") {
            let items = words[2].split(separator: " ", maxSplits: 1).last.map { $0.split(separator: ",", omittingEmptySubsequences: false) } ?? []
            if items.filter({ $0 == "…" }).count != 1 || items.contains(where: { $0.contains("…") && $0 != "…" }) {
                return "a menu may have one ellipsis, as an item of its own: tap,…,exit"
            }
        }
        return nil
    }

    /// "Editor (active, maximized); Files" → windows w1, w2 with those states.
    static func parseWindows(_ text: String, line: Int) throws(ScenarioError) -> [ManagedWindow] {
        var windows: [ManagedWindow] = []
        for (i, part) in text.split(separator: ";").enumerated() {
            var title = part.trimmingCharacters(in: .whitespaces)
            var states: [String] = []
            if title.hasSuffix(")"), let open = title.lastIndex(of: "(") {
                states = title[title.index(after: open)..<title.index(before: title.endIndex)]
                    .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                title = title[..<open].trimmingCharacters(in: .whitespaces)
            }
            if let bad = states.first(where: { !windowStates.contains($0) }) {
                throw ScenarioError(problems: [(line, "window state \"\(bad)\" is not one of \(windowStates.joined(separator: ", "))")])
            }
            windows.append(ManagedWindow(id: "w\(i + 1)", title: title, active: states.contains("active"),
                                         maximized: states.contains("maximized"), minimized: states.contains("minimized")))
        }
        if windows.filter(\.active).count > 1 { throw ScenarioError(problems: [(line, "more than one window is active")]) }
        return windows
    }

    // MARK: - matching

    /// Whether an effect line is what an expectation line says: the same text, or a
    /// menuOpen whose items start and end with those around the ellipsis.
    static func matches(_ expected: String, _ actual: String) -> Bool {
        guard expected.contains("…") else { return expected == actual }
        // "T menuOpen ELEMENT ITEMS"
        let e = expected.split(separator: " ", maxSplits: 3), a = actual.split(separator: " ", maxSplits: 3)
        guard e.count == 4, a.count == 4, e[1] == "menuOpen", e[..<3] == a[..<3] else { return expected == actual }
        let pattern = e[3].split(separator: ",", omittingEmptySubsequences: false)
        let items = a[3].split(separator: ",", omittingEmptySubsequences: false)
        guard let gap = pattern.firstIndex(of: "…") else { return false }
        let head = pattern[..<gap], tail = pattern[(gap + 1)...]
        return items.count >= head.count + tail.count && items.starts(with: head) && items.suffix(tail.count).elementsEqual(tail)
    }

    // MARK: - running

    /// The fixture word list of the keyboard scenarios and tests.
    static func smallWords() throws -> WordPredictor {
        let path = root.appendingPathComponent("Tests/Fixtures/words/small.words").path
        return WordPredictor(system: try WordList(parsing: [UInt8](FileManager.default.contents(atPath: path) ?? Data()), file: path))
    }

    /// The effects of each `expect:` section's time, as compact lines.
    func run() throws -> [[String]] {
        var engine: ScanEngine
        let phrases = try messages.map { name in
            name == "none" ? []
                : PhrasesFile.parse(try [UInt8](Data(contentsOf: Self.root.appendingPathComponent("Tests/Fixtures/phrases/\(name)"))),
                                    file: name).phrases
        } ?? []
        if messages != nil && layout.isEmpty {
            engine = MessageSession.engine(layout: KeyboardLayout(settings.typing.keyboardLayout), predictor: try Self.smallWords(),
                                           settings: settings, phrases: phrases)
        } else if keyboard {
            engine = KeyboardSession.engine(layout: KeyboardLayout(settings.typing.keyboardLayout), predictor: try Self.smallWords(), settings: settings)
        } else {
            let layoutBytes = try [UInt8](Data(contentsOf: Self.root.appendingPathComponent("Layouts").appendingPathComponent(layout)))
            let doc = try LayoutLoader.load(bytes: layoutBytes, file: layout)
            engine = ScanEngine(tree: doc.tree, settings: settings, debounce: debounce.map { .seconds($0) })
            if typing {
                engine.keyboardProvider = KeyboardMaker(layout: KeyboardLayout(settings.typing.keyboardLayout),
                                                        predictor: try Self.smallWords(), settings: settings.typing)
            }
            if messages != nil {
                engine.messageProvider = MessageMaker(layout: KeyboardLayout(settings.typing.keyboardLayout),
                                                      words: .inline(try Self.smallWords()), settings: settings.typing,
                                                      phrases: phrases, history: [])
            }
        }
        engine.setWindows(windows)
        var driver = ManualDriver(engine: engine)
        driver.schedule(events)
        var made = driver.start()
        var result: [[String]] = []
        for section in sections {
            // Up to just before the next event: what it makes belongs to the next section.
            let end = section.before.map { ScanInstant(nanoseconds: ScanInstant.seconds($0).nanoseconds - 1) } ?? .seconds(until)
            made += driver.advance(to: end)
            // The screen shown is data for presenters, pinned by `ScreenEffectTests`; a
            // scenario pins behaviour.
            result.append(made.filter { if case .screen = $0.effect { false } else { true } }.map(compact))
            made = []
        }
        return result
    }
}

/// A scenario file's name and text, parsed by the test that runs it (a file that does not
/// parse fails its own test, with the reasons).
struct ScenarioFile: CustomTestStringConvertible, Sendable {
    var name: String
    var text: String
    var testDescription: String { name }
}

struct ScenarioError: Error, CustomStringConvertible {
    var file = ""
    var problems: [(line: Int, message: String)]

    var description: String {
        problems.sorted { $0.line < $1.line }.map { "\(file):\($0.line): \($0.message)" }.joined(separator: "\n")
    }
}

/// The effect names `compact` prints.
let effectNames = [
    "scanStarted", "scanStopped", "highlight", "enterGroup", "exitGroup", "menuOpen", "menuClose", "activate",
    "customAction", "adjust", "modeChanged", "sweep", "pointSelected", "tap", "gesture", "announce", "emit", "settingChanged",
    "key", "window", "keyboard", "typeText", "deleteText", "keyboardClose", "shortcut", "learnWord", "speak", "attention", "labelCut",
]

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
    case .screen(let shown): return "\(t) screen \(shown.tree.screenID)"
    case .scanStarted: return "\(t) scanStarted"
    case .scanStopped(let r): return "\(t) scanStopped \(r.rawValue)"
    case let .highlight(item, kind, _, _, _, _): return "\(t) highlight \(kind.rawValue) \(item)"
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
    case let .gesture(g, el, at, to):
        return "\(t) gesture \(g.rawValue) \(el ?? "-") (\(num(at.x)),\(num(at.y)))" + (to.map { " to (\(num($0.x)),\(num($0.y)))" } ?? "")
    case .announce(let text): return "\(t) announce \(text)"
    case .notice(let text): return "\(t) notice \(text)"
    case let .emit(name, _, _): return "\(t) emit \(name)"
    case .settingChanged(let change): return "\(t) settingChanged \(change.json.key) \(change.json.value)"
    case .key(let k): return "\(t) key \(k.rawValue)"
    case let .window(command, window, _, _): return "\(t) window \(command.rawValue) \(window)"
    case .keyboard(let keys):
        // The prediction row, and what the letter keys show (capitals or not) or the other page.
        let words = keys.filter { $0.id.hasPrefix("prediction") }.map(\.label).joined(separator: ",")
        let page = keys.first { $0.id == "key_e" }.map { $0.label == "E" ? "capitals" : "letters" }
            ?? (keys.contains { $0.id == "key_1" } ? "symbols" : keys.contains { $0.id == "back" } ? "phrases" : "edit")
        // The message screen's message.
        let message = keys.first { $0.id == "message" }.map { " message:" + $0.label.debugDescription } ?? ""
        // Ctrl or Alt held (Shift and Caps lock show in the letters' case).
        let held = keys.filter { $0.held && $0.id != "shift" && $0.id != "capsLock" }.map(\.id)
        return "\(t) keyboard \(words.isEmpty ? "-" : words) \(page)" + (held.isEmpty ? "" : " held:" + held.joined(separator: ",")) + message
    case let .typeText(text, secret): return "\(t) typeText \(text.debugDescription)\(secret ? " secret" : "")"
    case .deleteText(let n): return "\(t) deleteText \(n)"
    case .keyboardClose: return "\(t) keyboardClose"
    case .shortcut(let chord): return "\(t) shortcut \((chord.modifiers.map(\.rawValue) + [chord.key]).joined(separator: "+"))"
    case let .learnWord(word, after): return "\(t) learnWord \(word) \(after ?? "-")"
    case let .speak(text, voice, from): return "\(t) speak \(voice.rawValue) \(from.rawValue) \(text.debugDescription)"
    case .attention: return "\(t) attention"
    case .labelCut: return "\(t) labelCut"
    }
}

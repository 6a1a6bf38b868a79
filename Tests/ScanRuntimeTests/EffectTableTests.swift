import Foundation
import ScanCore
import ScanRuntime
import Testing

/// The effects as a protocol: `EffectSpec.table` names every kind once, and the JSON lines,
/// the terminal UI and docs/EFFECTS.md say what it says. (The painters' and speech's checks
/// are in their own targets.)
@Suite("The effect table")
struct EffectTableTests {
    static let table = EffectSpec.table

    /// The kind's example stream: what comes before, and the example.
    static func stream(_ spec: EffectSpec) -> (before: [TimedEffect], example: TimedEffect) {
        let all = spec.exampleStream
        return (Array(all.dropLast()), all.last!)
    }

    @Test func everyKindHasOneLineInOrderAndItsExampleIsOfIt() {
        #expect(Self.table.map(\.kind) == Effect.Kind.allCases)
        for spec in Self.table {
            #expect(spec.example.kind == spec.kind, "\(spec.kind)'s example is a \(spec.example.kind)")
            #expect(!spec.meaning.isEmpty)
            #expect(Set(spec.fields).count == spec.fields.count, "\(spec.kind): a field twice")
            #expect(spec.consumers.contains(.stream) != spec.fields.isEmpty || [.scanStarted, .keyboardClose, .attention, .labelCut].contains(spec.kind),
                    "\(spec.kind): fields only for what the stream carries")
        }
    }

    /// The top-level keys of a JSON line, in order.
    static func keys(_ line: String) throws -> [String] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        // JSONSerialization forgets the order: each key's first place as a key of the line.
        return object.keys.sorted { line.range(of: "\"\($0)\":")!.lowerBound < line.range(of: "\"\($1)\":")!.lowerBound }
    }

    /// A kind the stream carries prints its name and only its fields, the ones always there
    /// included, in the table's order; the others print nothing. On a secret screen too.
    @Test(arguments: [false, true])
    func theStreamPrintsEachKindWithTheFieldsOfTheTable(secret: Bool) throws {
        for spec in Self.table where !(secret && spec.kind == .screen) {
            var json = EffectJSON()
            var (before, example) = Self.stream(spec)
            if secret {
                var tree = ElementTree(screenID: "password", size: (375, 667), nodes: [ElementNode(id: "root")])
                tree.isSecret = true
                before.insert(TimedEffect(.zero, .screen(ShownScreen(tree, serial: 7))), at: 1)
            }
            _ = json.lines(before)
            let line = json.line(example)
            guard spec.consumers.contains(.stream) else {
                #expect(line == nil, "\(spec.kind) is not in the stream: \(line ?? "")")
                continue
            }
            let printed = try #require(line, "\(spec.kind) printed nothing")
            let keys = try Self.keys(printed)
            #expect(Array(keys.prefix(2)) == ["t", "effect"] && printed.contains("\"effect\":\"\(spec.kind.rawValue)\""), "\(printed)")
            let fields = spec.fields.map { $0.hasSuffix("?") ? String($0.dropLast()) : $0 }
            let present = Array(keys.dropFirst(2))
            #expect(present == fields.filter(present.contains), "\(spec.kind): \(present), the table says \(spec.fields)")
            if !secret {
                let required = spec.fields.filter { !$0.hasSuffix("?") }
                #expect(required.allSatisfy(present.contains), "\(spec.kind): \(present) lacks some of \(required)")
            }
        }
    }

    /// What the terminal UI shows, cell by cell.
    static func drawn(_ scene: inout TerminalScene, at t: ScanInstant) -> [String] {
        let canvas = scene.draw(rows: 24, columns: 80, at: t)
        return (0..<canvas.rows).map { r in String((0..<canvas.columns).map { canvas[r, $0].ch }) + (0..<canvas.columns).map { String(canvas[r, $0].style.rawValue) }.joined() }
    }

    /// The terminal UI changes for the kinds the table says it acts on, and for no other.
    @Test func theTerminalActsOnTheKindsOfTheTable() {
        for spec in Self.table {
            var scene = TerminalScene()
            var (before, example) = Self.stream(spec)
            if spec.kind == .screen {
                // A screen with something on it to draw.
                var root = ElementNode(id: "root")
                root.children = [1]
                var ok = ElementNode(id: "ok")
                ok.label = "OK"; ok.frame = Rect(x: 100, y: 100, width: 120, height: 60); ok.parent = 0
                example = TimedEffect(.zero, .screen(ShownScreen(ElementTree(screenID: "t", size: (375, 667), nodes: [root, ok]), serial: 2)))
                before = []
            }
            for e in before { scene.apply(e) }
            let was = Self.drawn(&scene, at: example.time)
            scene.apply(example)
            let acted = Self.drawn(&scene, at: example.time) != was
            #expect(acted == spec.consumers.contains(.terminal), "\(spec.kind): the terminal \(acted ? "changed" : "did not change")")
        }
    }

    /// The `--app` window raised at the start says so in the stream, and leaves the
    /// terminal's message as it was.
    @Test func aWindowRaisedAtTheStartIsMarkedAndLeavesTheMessage() {
        let raise = TimedEffect(.seconds(1), .window(.activate, window: "0x200", title: "Notes", chosen: false))
        #expect(jsonLine(raise) == #"{"t":1.000,"effect":"window","action":"activate","window":"0x200","title":"Notes","automatic":true}"#)
        var scene = TerminalScene()
        scene.apply(TimedEffect(.zero, .notice("Using X-Keys")))
        scene.apply(raise)
        #expect(scene.message == "Using X-Keys")
    }

    /// docs/EFFECTS.md's table is the table: one row a kind, its fields, who acts on it, its
    /// meaning and its example as printed.
    @Test func theDocumentedTableIsTheTable() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/EFFECTS.md"), encoding: .utf8)
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("| `") }.map(String.init)
        let expected = Self.table.map(Self.row)
        #expect(rows == expected, "docs/EFFECTS.md's table should be:\n\(expected.joined(separator: "\n"))")
    }

    static func row(_ spec: EffectSpec) -> String {
        let consumers = EffectSpec.Consumer.allCases.filter(spec.consumers.contains).map(\.rawValue).joined(separator: ", ")
        let fields = spec.fields.map { "`\($0)`" }.joined(separator: ", ")
        var json = EffectJSON()
        let example = json.line(TimedEffect(.zero, spec.example)).map { "`\($0)`" } ?? ""
        return "| `\(spec.kind.rawValue)` | \(fields) | \(consumers) | \(spec.meaning.replacingOccurrences(of: "|", with: "\\|")) | \(example) |"
    }
}

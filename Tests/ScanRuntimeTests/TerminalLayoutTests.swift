import Foundation
import ScanCore
@testable import ScanRuntime
import Testing

/// The terminal's drawing of a screen, without a terminal: no box draws on another's cells.
@Suite("Terminal layout")
struct TerminalLayoutTests {
    /// The cells each box draws: its border and its label.
    static func drawnCells(_ p: TerminalLayout.Placed) -> Set<Int> {
        var cells = Set<Int>()
        let r = p.cells
        func add(_ row: Int, _ c: Int) { cells.insert(row * 10_000 + c) }
        if p.form == .bordered {
            for c in r.column..<(r.column + r.width) { add(r.row, c); add(r.row + r.height - 1, c) }
            for row in r.row..<(r.row + r.height) { add(row, r.column); add(row, r.column + r.width - 1) }
        }
        for k in 0..<p.text.count { add(p.textRow, p.textColumn + k) }
        return cells
    }

    /// No cell drawn twice, all inside the grid, each label inside its box's cells, and
    /// drawn, every box still whole: its corners and its label as laid out.
    static func expectNoOverwrite(_ layout: TerminalLayout, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        var owner: [Int: Int] = [:]
        for (i, p) in layout.placed.enumerated() where p.form != .hidden {
            let r = p.cells
            #expect(r.column >= 0 && r.row >= 0 && r.column + r.width <= layout.columns && r.row + r.height <= layout.rows,
                    "\(what): box \(i) at \(r) leaves the \(layout.columns)x\(layout.rows) grid", sourceLocation: sourceLocation)
            #expect(p.textRow >= r.row && p.textRow < r.row + r.height && p.textColumn >= r.column
                    && p.textColumn + p.text.count <= r.column + r.width, "\(what): box \(i)'s label is outside it", sourceLocation: sourceLocation)
            for cell in drawnCells(p) {
                if let other = owner[cell] {
                    Issue.record("\(what): boxes \(other) (\(layout.placed[other].cells)) and \(i) (\(r)) both draw cell \(cell % 10_000),\(cell / 10_000)",
                                 sourceLocation: sourceLocation)
                    return
                }
                owner[cell] = i
            }
        }
        var canvas = TerminalCanvas(rows: layout.rows, columns: layout.columns)
        for p in layout.placed where p.form != .hidden { TerminalScene.drawBox(p, lit: false, into: &canvas) }
        for (i, p) in layout.placed.enumerated() where p.form != .hidden {
            let r = p.cells
            if p.form == .bordered {
                let corners = [canvas[r.row, r.column].ch, canvas[r.row, r.column + r.width - 1].ch,
                               canvas[r.row + r.height - 1, r.column].ch, canvas[r.row + r.height - 1, r.column + r.width - 1].ch]
                let textOnCorner = p.textRow == r.row && !p.text.isEmpty
                #expect(textOnCorner || corners == ["┌", "┐", "└", "┘"], "\(what): box \(i)'s corners are \(corners)", sourceLocation: sourceLocation)
            }
            let shown = String((0..<p.text.count).map { canvas[p.textRow, p.textColumn + $0].ch })
            #expect(shown == p.text, "\(what): box \(i)'s label reads \"\(shown)\", not \"\(p.text)\"", sourceLocation: sourceLocation)
        }
    }

    static func layout(_ tree: ElementTree, columns: Int, rows: Int) -> TerminalLayout {
        TerminalLayout(TerminalScene.boxes(of: tree), area: tree.screenSize, columns: columns, rows: rows - TerminalScene.statusRows)
    }

    /// Leaves: the boxes that contain no other.
    static func leaves(_ boxes: [TerminalLayout.Box]) -> [Int] {
        boxes.indices.filter { i in !boxes.indices.contains { j in j != i && boxes[i].frame.contains(boxes[j].frame) && boxes[i].frame != boxes[j].frame } }
    }

    @Test(arguments: [(80, 24), (120, 40)])
    func everyBundledLayout(size: (columns: Int, rows: Int)) throws {
        let folder = Scenario.root.appendingPathComponent("Layouts")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(files.count >= 10)
        for file in files {
            let tree = try loadLayout(file)
            let layout = Self.layout(tree, columns: size.columns, rows: size.rows)
            let what = "\(file) at \(size.columns)x\(size.rows)"
            Self.expectNoOverwrite(layout, what)
            // Every item a user can pick is drawn, its label begun at least.
            let boxes = TerminalScene.boxes(of: tree)
            for i in Self.leaves(boxes) {
                let p = layout.placed[i]
                #expect(p.form != .hidden, "\(what): \"\(boxes[i].label)\" is not drawn")
                if let first = TerminalLayout.clean(boxes[i].label).first { #expect(p.text.first == first, "\(what): \"\(boxes[i].label)\" reads \"\(p.text)\"") }
            }
        }
    }

    /// A calculator: a display, then 12 × 7 keys 4 points apart, "=" two keys tall.
    static func calculator() -> [TerminalLayout.Box] {
        var boxes = [TerminalLayout.Box(frame: Rect(x: 0, y: 0, width: 640, height: 480), label: "Calculator"),
                     .init(frame: Rect(x: 4, y: 4, width: 632, height: 60), label: "0")]
        let names = ["7", "8", "9", "÷", "sin", "cos", "tan", "x²", "√", "MC", "MR", "M+"]
        for row in 0..<7 {
            for col in 0..<12 {
                if col == 11 && row == 6 { continue }
                let tall = col == 11 && row == 5
                boxes.append(.init(frame: Rect(x: 4 + Double(col) * 53, y: 68 + Double(row) * 58, width: 49, height: tall ? 112 : 54),
                                   label: tall ? "=" : "\(names[col])\(row)"))
            }
        }
        return boxes
    }

    @Test(arguments: [(80, 24), (120, 40), (40, 12), (200, 60)])
    func aDenseCalculator(size: (columns: Int, rows: Int)) {
        let boxes = Self.calculator()
        let layout = TerminalLayout(boxes, area: Rect(x: 0, y: 0, width: 640, height: 480), columns: size.columns, rows: size.rows - 3)
        Self.expectNoOverwrite(layout, "calculator at \(size.columns)x\(size.rows)")
        for i in 1..<boxes.count {
            #expect(layout.placed[i].form != .hidden, "key \"\(boxes[i].label)\" at \(size) is not drawn")
            #expect(layout.placed[i].text.first == boxes[i].label.first, "key \"\(boxes[i].label)\" reads \"\(layout.placed[i].text)\"")
        }
        // Keys next to each other stay apart (4 points between them), the tall key is taller.
        let tall = boxes.firstIndex { $0.label == "=" }!
        #expect(layout.placed[tall].cells.height > layout.placed[tall - 12].cells.height)
        if size.columns >= 80 {
            #expect(layout.placed.dropFirst(2).allSatisfy { $0.form == .bordered }, "at \(size) every key has a border")
        }
    }

    /// Sixty small widgets, some close together, in a panel inside a window.
    @Test func sixtySmallWidgets() {
        var boxes = [TerminalLayout.Box(frame: Rect(x: 0, y: 0, width: 1200, height: 800), label: "Widget Factory"),
                     .init(frame: Rect(x: 10, y: 40, width: 1180, height: 750), label: "Page 1")]
        for k in 0..<60 {
            let x = 20 + Double(k % 10) * 115 + Double(k % 3) * 2, y = 50 + Double(k / 10) * 120 + Double(k % 4) * 3
            boxes.append(.init(frame: Rect(x: x, y: y, width: 24 + Double(k % 5) * 20, height: 18 + Double(k % 2) * 20), label: "widget \(k)"))
        }
        for (columns, rows) in [(80, 24), (120, 40), (60, 16)] {
            let layout = TerminalLayout(boxes, area: Rect(x: 0, y: 0, width: 1200, height: 800), columns: columns, rows: rows - 3)
            Self.expectNoOverwrite(layout, "widgets at \(columns)x\(rows)")
            #expect(layout.placed.dropFirst(2).allSatisfy { $0.form != .hidden }, "at \(columns)x\(rows) every widget is drawn")
        }
    }

    @Test func aChildInsideItsParent() {
        let panel = Rect(x: 100, y: 100, width: 400, height: 300)
        let boxes: [TerminalLayout.Box] = [
            .init(frame: panel, label: "Panel"),
            .init(frame: Rect(x: 100, y: 100, width: 200, height: 100), label: "Top left, on the panel's edge"),
            .init(frame: Rect(x: 300, y: 100, width: 200, height: 100), label: "Top right"),
            .init(frame: Rect(x: 150, y: 250, width: 300, height: 100), label: "Inside"),
            .init(frame: panel, label: "Same frame as the panel"),
            .init(frame: Rect(x: 400, y: 300, width: 200, height: 200), label: "Overlapping the panel"),
        ]
        for (columns, rows) in [(80, 21), (40, 10), (20, 6), (200, 60)] {
            let layout = TerminalLayout(boxes, area: Rect(x: 0, y: 0, width: 800, height: 600), columns: columns, rows: rows)
            Self.expectNoOverwrite(layout, "nested at \(columns)x\(rows)")
            #expect(layout.placed[4].form == .hidden, "one box for one frame")
            for i in [1, 2, 3, 5] { #expect(layout.placed[i].form != .hidden, "box \(i) at \(columns)x\(rows)") }
        }
        // With room, the panel is drawn around its children, its title in its top border;
        // not where that would cross the box that overlaps it.
        #expect(TerminalLayout(boxes, area: Rect(x: 0, y: 0, width: 800, height: 600), columns: 80, rows: 21).placed[0].form == .hidden)
        let roomy = TerminalLayout(Array(boxes.prefix(5)), area: Rect(x: 0, y: 0, width: 800, height: 600), columns: 80, rows: 21)
        let panelCells = roomy.placed[0].cells
        #expect(roomy.placed[0].form == .bordered && roomy.placed[0].text == "Panel" && roomy.placed[0].textRow == panelCells.row)
        for i in [1, 2, 3] { #expect(panelCells.contains(roomy.placed[i].cells)) }
    }

    @Test func everythingOffTheGridIsClipped() {
        let boxes: [TerminalLayout.Box] = [
            .init(frame: Rect(x: -50, y: 10, width: 100, height: 40), label: "Half off the left"),
            .init(frame: Rect(x: 900, y: 10, width: 100, height: 40), label: "Off the right"),
            .init(frame: Rect(x: 100, y: 550, width: 100, height: 200), label: "Half off the bottom"),
        ]
        let layout = TerminalLayout(boxes, area: Rect(x: 0, y: 0, width: 800, height: 600), columns: 80, rows: 21)
        Self.expectNoOverwrite(layout, "clipped")
        #expect(layout.placed[0].form != .hidden && layout.placed[0].cells.column == 0)
        #expect(layout.placed[1].form == .hidden)
        #expect(layout.placed[2].form != .hidden && layout.placed[2].cells.row + layout.placed[2].cells.height == 21)
        #expect(TerminalLayout(boxes, area: Rect(x: 0, y: 0, width: 800, height: 600), columns: 0, rows: 0).placed.allSatisfy { $0.form == .hidden })
    }

    @Test func labelsAreOneLineAndShortenedWithAnEllipsis() {
        #expect(TerminalLayout.clean("  Save\n as…\u{1B}[2J ") == "Save as…␛[2J")
        #expect(TerminalLayout.fit("Backspace", 5) == "Back…")
        #expect(TerminalLayout.fit("Backspace", 1) == "B")
        #expect(TerminalLayout.fit("OK", 5) == "OK")
    }

    // MARK: the scene

    static func keyboardScreen() throws -> (ElementTree, ElementNode) {
        let tree = try loadLayout("keyboard.json")
        return (tree, tree[tree.index(of: "key_e")!])
    }

    @Test func theHighlightedKeyUnderAnOpenMenuShowsItsLabel() throws {
        let (tree, e) = try Self.keyboardScreen()
        var scene = TerminalScene()
        let t = ScanInstant.zero
        scene.apply(TimedEffect(t, .screen(ShownScreen(tree, serial: 1))))
        scene.apply(TimedEffect(t, .highlight(item: "key_e", kind: .element, frame: e.frame, label: "E", context: nil)))
        scene.apply(TimedEffect(t, .menuOpen(element: "key_e", entries: ["activate", "hold", "back"], titles: ["Tap", "Hold", "Back"])))
        scene.apply(TimedEffect(t, .highlight(item: "hold", kind: .menuEntry, frame: e.frame, label: "Hold", context: "key_e")))
        for (columns, rows) in [(80, 24), (120, 40), (30, 10)] {
            let canvas = scene.draw(rows: rows, columns: columns, at: t)
            let text = canvas.lines.joined(separator: "\n")
            #expect(!text.contains("key_e"), "no id on the screen at \(columns)x\(rows):\n\(text)")
            if columns >= 80 {
                #expect(canvas.lines[rows - 3].contains("menu for E"))
                #expect(canvas.lines[rows - 2].contains("Menu for E:") && canvas.lines[rows - 2].contains(" Hold "))
            }
            // The key's own cells are lit, and read E.
            let layout = scene.layout(columns: columns, rows: rows - 3)
            let i = TerminalScene.boxes(of: tree).firstIndex { $0.frame == e.frame }!
            let p = layout.placed[i]
            #expect(p.text == "E")
            #expect([TerminalCanvas.Style.highlight, .highlightText].contains(canvas[p.textRow, p.textColumn].style))
            #expect(canvas[p.textRow, p.textColumn].ch == "E")
        }
    }

    @Test func namesAreLabelsWhereverTheyAreShown() throws {
        let (tree, e) = try Self.keyboardScreen()
        var scene = TerminalScene()
        let t = ScanInstant.zero
        scene.apply(TimedEffect(t, .screen(ShownScreen(tree, serial: 1))))
        scene.apply(TimedEffect(t, .activate(element: "key_e", point: e.frame.center, target: "key_e")))
        #expect(scene.message == "Activated E")
        scene.apply(TimedEffect(t, .tap(e.frame.center, element: "key_e")))
        #expect(scene.message.hasSuffix("on E"))
        scene.apply(TimedEffect(t, .customAction(element: "key_e", action: "Delete", succeeded: false)))
        #expect(scene.message == "Delete on E failed")
        // A highlight without a label takes the element's; an element without one, its id.
        scene.apply(TimedEffect(t, .highlight(item: "key_e", kind: .element, frame: e.frame, label: nil, context: nil)))
        #expect(scene.draw(rows: 24, columns: 80, at: t).lines[21].contains("item mode — E "))
        scene.apply(TimedEffect(t, .activate(element: "nowhere", point: e.frame.center, target: nil)))
        #expect(scene.message == "Activated nowhere (the tap reached nothing)")
        // The keyboard's keys by their labels.
        scene.apply(TimedEffect(t, .keyboard([KeyboardKey(id: "k_shift", label: "⇧ Shift", frame: Rect(x: 0, y: 0, width: 50, height: 40)),
                                              KeyboardKey(id: "k_a", label: "a", frame: Rect(x: 50, y: 0, width: 50, height: 40))])))
        scene.apply(TimedEffect(t, .highlight(item: "k_shift", kind: .element, frame: Rect(x: 0, y: 0, width: 50, height: 40), label: nil, context: nil)))
        let lines = scene.draw(rows: 24, columns: 80, at: t).lines
        #expect(lines.joined().contains("⇧ Shift") && !lines.joined().contains("k_shift"))
    }

    /// While the keyboard is open, the status lines show what it has written so far (the
    /// end of it, as the field grows), bullets for a secret field; a new keyboard starts empty.
    @Test func theKeyboardsWritingIsShownAsItGrows() {
        var scene = TerminalScene()
        let t = ScanInstant.zero
        let keys = [KeyboardKey(id: "k_a", label: "a", frame: Rect(x: 0, y: 0, width: 50, height: 40))]
        func statusLine(_ cols: Int = 80) -> String { scene.draw(rows: 24, columns: cols, at: t).lines[22] }
        #expect(statusLine().contains("space select"))
        scene.apply(TimedEffect(t, .keyboard(keys)))
        #expect(statusLine().hasPrefix(" Written: ▏"))
        for e: Effect in [.typeText("Dear ", secret: false), .typeText("Sam,", secret: false), .typeText(" tha", secret: false),
                          .deleteText(characters: 1), .typeText("e ", secret: false), .key(.enter), .typeText("M", secret: false)] {
            scene.apply(TimedEffect(t, e))
        }
        #expect(statusLine().hasPrefix(" Written: Dear Sam, the ⏎M▏"), "\(statusLine())")
        #expect(scene.message == "Typed \"M\"", "the last key is still said below")
        // A long text: its end, where the writing goes on.
        scene.apply(TimedEffect(t, .typeText(String(repeating: "word ", count: 40) + "end", secret: false)))
        #expect(statusLine(40).hasPrefix(" Written: …") && statusLine(40).hasSuffix("word end▏"), "\(statusLine(40))")
        scene.apply(TimedEffect(t, .keyboardClose))
        #expect(statusLine().contains("space select"))
        // A password: bullets only.
        scene.apply(TimedEffect(t, .keyboard(keys)))
        scene.apply(TimedEffect(t, .typeText("s3cret", secret: true)))
        #expect(statusLine().hasPrefix(" Written: ••••••▏") && !statusLine().contains("s3c"), "\(statusLine())")
    }

    @Test func aHighlightWithNoBoxOfItsOwnIsOutlined() throws {
        let (tree, _) = try Self.keyboardScreen()
        var scene = TerminalScene()
        let t = ScanInstant.zero
        scene.apply(TimedEffect(t, .screen(ShownScreen(tree, serial: 1))))
        scene.apply(TimedEffect(t, .highlight(item: "g", kind: .group, frame: Rect(x: 10, y: 100, width: 300, height: 200), label: "Empty group", context: nil)))
        let canvas = scene.draw(rows: 24, columns: 80, at: t)
        let row = try #require(canvas.lines.firstIndex { $0.contains("Empty group") }, "\(canvas.lines.joined(separator: "\n"))")
        let column = canvas.lines[row].distance(from: canvas.lines[row].startIndex, to: canvas.lines[row].range(of: "Empty group")!.lowerBound)
        #expect(row < 21 && canvas[row, column].style == .highlightText)
        // With room for it, an outline.
        scene.apply(TimedEffect(t, .highlight(item: "g", kind: .group, frame: Rect(x: 40, y: 510, width: 120, height: 150), label: "Keys", context: nil)))
        scene.apply(TimedEffect(t, .screen(ShownScreen(ElementTree(screenID: "empty", size: (390, 844), nodes: [ElementNode(id: "root")]), serial: 2))))
        #expect(scene.draw(rows: 24, columns: 80, at: t).lines.joined().contains("┏"))
    }

    @Test func theMenuLineScrollsToItsCurrentEntry() {
        let titles = (1...30).map { "Entry \($0)" }
        let pieces = TerminalScene.menuLine(titles, current: 27, width: 40)
        #expect(pieces.reduce(0) { $0 + $1.text.count } == 40)
        #expect(pieces.contains { $0.current && $0.text == " Entry 28 " })
        #expect(pieces.first!.text.hasPrefix("…"))
        let start = TerminalScene.menuLine(titles, current: 0, width: 40)
        #expect(start.first!.current && start.first!.text == " Entry 1 " && start.last!.text.hasSuffix("…"))
        #expect(TerminalScene.menuLine(["A", "B"], current: 1, width: 40).map(\.text) == [" A  ", " B ", " "])
    }
}

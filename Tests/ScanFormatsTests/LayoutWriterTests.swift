import Foundation
import ScanCore
import ScanFormats
import Testing

// LayoutWriter: an element tree written as a layout file loads back to an equal tree.

/// Every stored field of a node, by name, as comparable values. `everyFieldIsCompared`
/// keeps this list complete as ElementNode grows.
func comparableFields(_ n: ElementNode) -> [(String, AnyHashable?)] {
    [("id", n.id), ("isVirtual", n.isVirtual), ("isVisible", n.isVisible),
     ("isAccessibilityElement", n.isAccessibilityElement), ("label", n.label), ("value", n.value), ("hint", n.hint),
     ("traits", n.traits), ("frame", n.frame), ("activationPoint", n.activationPoint),
     ("hasExplicitActivationPoint", n.hasExplicitActivationPoint), ("hidden", n.hidden),
     ("elementsHidden", n.elementsHidden), ("viewIsModal", n.viewIsModal), ("modalScope", n.modalScope),
     ("shouldGroupChildren", n.shouldGroupChildren), ("navigationStyle", n.navigationStyle), ("children", n.children),
     ("parent", n.parent), ("elements", n.elements), ("sortPriority", n.sortPriority),
     ("respondsToUserInteraction", n.respondsToUserInteraction), ("customActions", n.customActions),
     ("adjustable", n.adjustable), ("onActivate", n.onActivate), ("onTap", n.onTap), ("onEscape", n.onEscape),
     ("textEntry", n.textEntry)]
}

/// Records an issue for every field of every node that differs, naming both.
func expectEqualTrees(_ a: ElementTree, _ b: ElementTree, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(a.screenID == b.screenID, "\(what): screen id", sourceLocation: sourceLocation)
    #expect(a.screenSize == b.screenSize, "\(what): screen size", sourceLocation: sourceLocation)
    #expect(a.naturalOrder == b.naturalOrder, "\(what): natural order", sourceLocation: sourceLocation)
    #expect(a.count == b.count, "\(what): node count", sourceLocation: sourceLocation)
    for i in 0..<min(a.count, b.count) {
        for ((name, x), (_, y)) in zip(comparableFields(a[i]), comparableFields(b[i])) where x != y {
            Issue.record("\(what): node \(i) \"\(a[i].id)\" \(name): \(String(describing: x)) ≠ \(String(describing: y))",
                         sourceLocation: sourceLocation)
        }
        #expect(b.index(of: a[i].id) == a.index(of: a[i].id), "\(what): index of \(a[i].id)", sourceLocation: sourceLocation)
    }
}

/// The scan lists of both trees under every combination of the settings that shape them.
func expectEqualScans(_ a: ElementTree, _ b: ElementTree, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    for groupItems in [true, false] {
        for scope in ItemScope.allCases {
            let s = settings(groupItems: groupItems, itemScope: scope)
            let (x, y) = (ScanTreeBuilder.build(a, settings: s), ScanTreeBuilder.build(b, settings: s))
            #expect(x == y, "\(what), groupItems \(groupItems), \(scope): \(render(x, a)) vs \(render(y, b))",
                    sourceLocation: sourceLocation)
        }
    }
}

/// Writes a tree, loads the text (which must load), and returns the tree read back.
func roundTrip(_ tree: ElementTree, title: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> (String, LayoutDocument) {
    let text = LayoutWriter.json(tree, title: title)
    return (text, try load(text, file: "written.json", sourceLocation: sourceLocation))
}

/// Builds a tree in document order: `add` appends a node under a parent and returns its index.
struct TreeBuilder {
    var nodes: [ElementNode] = []

    @discardableResult
    mutating func add(_ id: String, under parent: Int?, _ body: (inout ElementNode) -> Void) -> Int {
        var n = ElementNode(id: id)
        n.parent = parent
        body(&n)
        if !n.hasExplicitActivationPoint { n.activationPoint = n.frame.center }
        nodes.append(n)
        let i = nodes.count - 1
        if let parent { nodes[parent].children.append(i) }
        return i
    }

    mutating func button(_ id: String, _ label: String, under parent: Int, frame: Rect, _ body: (inout ElementNode) -> Void = { _ in }) {
        add(id, under: parent) { n in
            n.isAccessibilityElement = true
            n.label = label
            n.traits = TraitSet([.button])
            n.frame = frame
            body(&n)
        }
    }

    func tree(_ id: String, width: Double = 320, height: Double = 200, order: NaturalOrder = .geometric) -> ElementTree {
        ElementTree(screenID: id, size: (width, height), naturalOrder: order, nodes: nodes)
    }
}

@Suite("Layout writer")
struct LayoutWriterTests {
    @Test(arguments: LayoutFilesTests.files())
    func aBundledLayoutReadsBackEqual(_ name: String) throws {
        let original = try load(try readLayout(name), file: "Layouts/" + name)
        let (text, written) = try roundTrip(original.tree, title: original.title)
        expectEqualTrees(original.tree, written.tree, name)
        expectEqualScans(original.tree, written.tree, name)
        #expect(written.title == original.title)
        #expect(written.warnings.map(\.code) == original.warnings.map(\.code), "\(name): the same warnings, no new ones")
        #expect(LayoutWriter.json(written.tree, title: written.title) == text, "\(name): writing again gives the same text")
    }

    @Test func everyFieldIsCompared() {
        let probe = ElementNode(id: "probe")
        let stored = Mirror(reflecting: probe).children.compactMap(\.label)
        #expect(Set(stored) == Set(comparableFields(probe).map(\.0)))
    }

    /// Labels with what JSON must escape, fractional frames, hidden and invisible nodes, a
    /// disabled button, an adjustable, custom actions with effects, a custom order.
    static func awkwardTree() -> ElementTree {
        var b = TreeBuilder()
        let root = b.add("root", under: nil) { $0.frame = Rect(x: 0, y: 0, width: 320, height: 200) }
        b.button("quote", "Say \"hi\" \\ then\nleave\ttab \u{1} — café ✓ 日本", under: root,
                 frame: Rect(x: 10.25, y: 0.1, width: 33.333333333333336, height: 0.30000000000000004)) { n in
            n.hint = "Opens the “door”."
            n.value = "50 %"
        }
        b.add("hiddenImage", under: root) { n in
            n.isAccessibilityElement = true
            n.label = "Logo"
            n.traits = TraitSet([.image])
            n.frame = Rect(x: 200, y: 10, width: 20, height: 20)
            n.hidden = true
        }
        b.button("off", "Send", under: root, frame: Rect(x: 10, y: 40, width: 60, height: 30)) { $0.traits.insert(.notEnabled) }
        b.add("pin", under: root) { n in
            n.isAccessibilityElement = true
            n.label = "PIN"
            n.respondsToUserInteraction = true
            n.frame = Rect(x: 80, y: 40, width: 60, height: 30)
            n.textEntry = .password
        }
        b.add("volume", under: root) { n in
            n.isAccessibilityElement = true
            n.label = "Volume"
            n.traits = TraitSet([.adjustable])
            n.frame = Rect(x: 10, y: 80, width: 200, height: 30)
            n.adjustable = Adjustable(kind: .numeric(min: -6, max: 6, step: 0.5, decimals: 1, format: "{value} dB"), current: 1.5,
                                      onChange: [.emit(name: "volume", data: #"{"unit":"dB","max":6,"nested":{"a":[1,2.5,"x\"y"]}}"#)])
        }
        b.add("speed", under: root) { n in
            n.isAccessibilityElement = true
            n.label = "Speed"
            n.traits = TraitSet([.adjustable, .updatesFrequently])
            n.frame = Rect(x: 10, y: 115, width: 200, height: 30)
            n.adjustable = Adjustable(kind: .list(["Slow", "Normal", "Fast"]), current: 2)
        }
        b.button("row", "Message from Ann", under: root, frame: Rect(x: 0, y: 150, width: 320, height: 40)) { n in
            n.customActions = [
                CustomAction(name: "Reply"),
                CustomAction(name: "Archive", effects: [.set(id: "row", changes: [.hidden(true), .frame(Rect(x: 0, y: 0, width: 1.5, height: 2))]),
                                                        .post(.layoutChanged(.element("off"))), .result(false)]),
                CustomAction(name: "Flag", effects: [.toggle(id: "row", field: .label, values: ["Flagged", "Message from Ann"]),
                                                     .post(.announcement("Flagged")), .post(.screenChanged(.none)),
                                                     .post(.pageScrolled("Page 2 of 3")), .loadScreen("other.json"), .key(.escape)]),
            ]
            n.sortPriority = 0.5
            n.respondsToUserInteraction = true
            n.hasExplicitActivationPoint = true
            n.activationPoint = Point(x: 300.5, y: 170.25)
        }
        let panel = b.add("panel", under: root) { n in
            n.label = "Tools"
            n.navigationStyle = .combined
            n.frame = Rect(x: 220, y: 0, width: 100, height: 100)
            n.viewIsModal = true
            n.modalScope = .screen
            n.onEscape = [.emit(name: "panel.close", data: nil)]
        }
        b.button("cut", "Cut", under: panel, frame: Rect(x: 225, y: 5, width: 40, height: 40)) { n in
            n.onActivate = []
        }
        b.button("paste", "Paste", under: panel, frame: Rect(x: 270, y: 5, width: 40, height: 40)) { n in
            n.isVirtual = true
            n.onTap = [.emit(name: "paste", data: "{}")]
        }
        b.add("ghost", under: panel) { n in
            n.frame = Rect(x: 225, y: 50, width: 0, height: 0)
            n.isVisible = false
        }
        b.nodes[panel].elements = [b.nodes.count - 2, b.nodes.count - 3]
        // A wrapper element with children, and a container with no frame of its own.
        let wrapper = b.add("stepper", under: root) { n in
            n.isAccessibilityElement = true
            n.label = "Count"
            n.frame = Rect(x: 0, y: 300, width: 100, height: 20)
            n.shouldGroupChildren = true
            n.elementsHidden = true
        }
        b.add("minus", under: wrapper) { n in n.frame = Rect(x: 0, y: 300, width: 50, height: 20); n.isAccessibilityElement = false }
        return b.tree("awkward", order: .document)
    }

    @Test func anAwkwardTreeReadsBackEqual() throws {
        let tree = Self.awkwardTree()
        let (text, written) = try roundTrip(tree, title: "Awkward \"one\"")
        expectEqualTrees(tree, written.tree, "awkward tree")
        expectEqualScans(tree, written.tree, "awkward tree")
        #expect(written.title == "Awkward \"one\"")
        #expect(text.contains(#""label": "Say \"hi\" \\ then\nleave\ttab \u0001 — café ✓ 日本""#), "escaped as JSON requires, the rest as is")
        #expect(text.contains(#""frame": {"x": 10.25, "y": 0.1, "width": 33.333333333333336, "height": 0.30000000000000004}"#))
        #expect(text.contains(#""activationPointOutsideFrame""#) == false, "the explicit point lies inside its frame")
    }

    /// Every number a layout may hold (positions within ±10⁷ points) reads back exactly.
    @Test(arguments: [0.1, 0.1.nextUp, 1.0 / 3, 1e-7, 123456.789, 1e7, -2.5, 0.30000000000000004, 9999999.999999998,
                        -1e7, 0x1p23 + 0.5, Double.leastNonzeroMagnitude, 1e-300])
    func numbersReadBackToTheSameDouble(_ x: Double) throws {
        var b = TreeBuilder()
        let root = b.add("root", under: nil) { $0.frame = Rect(x: 0, y: 0, width: 320, height: 200) }
        b.button("b", "B", under: root, frame: Rect(x: x, y: 0, width: abs(x), height: 1)) { $0.sortPriority = x }
        let tree = b.tree("numbers")
        let (_, written) = try roundTrip(tree)
        let n = written.tree[1]
        #expect(n.frame.x.bitPattern == x.bitPattern)
        #expect(n.frame.width.bitPattern == abs(x).bitPattern)
        #expect(n.sortPriority?.bitPattern == x.bitPattern)
    }

    @Test func anActivationPointOutsideItsFrameSaysSo() throws {
        var b = TreeBuilder()
        let root = b.add("root", under: nil) { $0.frame = Rect(x: 0, y: 0, width: 320, height: 200) }
        b.button("proxy", "Back", under: root, frame: Rect(x: 0, y: 0, width: 10, height: 10)) { n in
            n.isVirtual = true
            n.hasExplicitActivationPoint = true
            n.activationPoint = Point(x: 100, y: 100)
        }
        let (text, written) = try roundTrip(b.tree("proxy"))
        #expect(text.contains(#""activationPoint": {"x": 100, "y": 100},"# + "\n" + #"        "activationPointOutsideFrame": true"#))
        expectEqualTrees(b.tree("proxy"), written.tree, "proxy")
    }

    @Test func theWriterWritesWhatTheTreeHasAndTheLoaderJudgesIt() throws {
        var b = TreeBuilder()
        let root = b.add("root", under: nil) { $0.frame = Rect(x: 0, y: 0, width: 320, height: 200) }
        b.add("nameless", under: root) { n in
            n.isAccessibilityElement = true
            n.traits = TraitSet([.button])
            n.frame = Rect(x: 0, y: 0, width: 10, height: 10)
            n.onTap = [.emit(name: "x", data: "not an object")]
        }
        let errs = errors(LayoutWriter.json(b.tree("bad")))
        #expect(errs.map(\.code).sorted() == ["E04", "E11"])
    }

    /// A live window's snapshot scans as the window does: its long levels by rows.
    @Test func toolkitContainersReadBackAndScanAlike() throws {
        var b = TreeBuilder()
        let root = b.add("root", under: nil) { $0.frame = Rect(x: 0, y: 0, width: 800, height: 600) }
        for k in 0..<20 {
            b.add("k\(k)", under: root) {
                $0.isAccessibilityElement = true
                $0.label = "\(k)"
                $0.traits = TraitSet([.button])
                $0.frame = Rect(x: Double(k % 5) * 60, y: Double(k / 5) * 40, width: 56, height: 36)
            }
        }
        var tree = b.tree("keys")
        tree.containersAreToolkits = true
        let (text, written) = try roundTrip(tree)
        #expect(text.contains(#""containers": "toolkit""#))
        #expect(written.tree.containersAreToolkits)
        expectEqualScans(tree, written.tree, "toolkit containers")
        #expect(ScanTreeBuilder.build(written.tree, settings: ScanSettings()).top.items.count == 4, "four rows")
        tree.containersAreToolkits = false
        #expect(!LayoutWriter.json(tree).contains("containers"), "chosen containers are the default")
    }

    @Test func anEmptyScreenReadsBackEqual() throws {
        var b = TreeBuilder()
        b.add("root", under: nil) { $0.frame = Rect(x: 0, y: 0, width: 320, height: 200) }
        let (_, written) = try roundTrip(b.tree("empty"))
        expectEqualTrees(b.tree("empty"), written.tree, "empty screen")
    }

    @Test func aSmallTreeIsWrittenExactlySo() {
        var b = TreeBuilder()
        let root = b.add("root", under: nil) { n in
            n.label = "Demo"
            n.isAccessibilityElement = false
            n.frame = Rect(x: 0, y: 0, width: 320, height: 200)
        }
        b.button("ok", "OK", under: root, frame: Rect(x: 10, y: 20, width: 80.5, height: 44))
        let bar = b.add("bar", under: root) { n in n.navigationStyle = .combined; n.frame = Rect(x: 0, y: 150, width: 320, height: 50) }
        b.button("off", "Say \"no\"", under: bar, frame: Rect(x: 0, y: 150, width: 100, height: 50)) { n in
            n.traits.insert(.notEnabled)
            n.customActions = [CustomAction(name: "Explain")]
        }
        b.add("note", under: bar) { n in
            n.isAccessibilityElement = true
            n.label = "Draft"
            n.value = "saved"
            n.traits = TraitSet([.staticText])
            n.frame = Rect(x: 100, y: 150, width: 220, height: 50)
            n.hidden = true
        }
        let expected = #"""
            {
              "schemaVersion": 1,
              "screen": {
                "id": "demo",
                "size": {"width": 320, "height": 200},
                "title": "Demo screen"
              },
              "root": {
                "id": "root",
                "isAccessibilityElement": false,
                "label": "Demo",
                "frame": {"x": 0, "y": 0, "width": 320, "height": 200},
                "children": [
                  {
                    "id": "ok",
                    "label": "OK",
                    "traits": ["button"],
                    "frame": {"x": 10, "y": 20, "width": 80.5, "height": 44}
                  },
                  {
                    "id": "bar",
                    "frame": {"x": 0, "y": 150, "width": 320, "height": 50},
                    "navigationStyle": "combined",
                    "children": [
                      {
                        "id": "off",
                        "label": "Say \"no\"",
                        "traits": ["button", "notEnabled"],
                        "frame": {"x": 0, "y": 150, "width": 100, "height": 50},
                        "customActions": [
                          {"name": "Explain"}
                        ]
                      },
                      {
                        "id": "note",
                        "label": "Draft",
                        "value": "saved",
                        "traits": ["staticText"],
                        "frame": {"x": 100, "y": 150, "width": 220, "height": 50},
                        "hidden": true
                      }
                    ]
                  }
                ]
              }
            }

            """#
        #expect(LayoutWriter.json(b.tree("demo"), title: "Demo screen") == expected)
    }
}

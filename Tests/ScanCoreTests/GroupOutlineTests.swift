import Testing
@testable import ScanCore

// Groups a person can see (the rule of groups a person can see, docs/BEHAVIOUR.md): under every grouping, every group's outline holds its
// members and no other item's activation point, and the outlines at one level do not
// overlap; rowColumn and optimal group by rows as they stand on the screen; the groups they
// make keep their ids when the same screen is read again.

/// A screen of keys (accessible buttons) at the given frames, in the document order given,
/// optionally inside combined containers (lists of key ids).
func keysScreen(_ id: String, _ keys: [(String, Rect)], containers: [(String, [String])] = [],
                order: NaturalOrder = .document, size: (Double, Double) = (800, 600), framedContainers: Bool = true) -> ElementTree {
    var nodes = [ElementNode(id: "root")]
    nodes[0].frame = Rect(x: 0, y: 0, width: size.0, height: size.1)
    nodes[0].activationPoint = nodes[0].frame.center
    var placed: [String: Int] = [:]
    for (cid, members) in containers {
        let c = nodes.count
        var n = ElementNode(id: cid)
        n.navigationStyle = .combined
        n.parent = 0
        nodes.append(n)
        nodes[0].children.append(c)
        for m in members { placed[m] = c }
    }
    for (kid, frame) in keys {
        var n = ElementNode(id: kid)
        n.isAccessibilityElement = true
        n.label = kid
        n.traits = TraitSet([.button])
        n.frame = frame
        n.activationPoint = frame.center
        let parent = placed[kid] ?? 0
        n.parent = parent
        nodes[parent].children.append(nodes.count)
        nodes.append(n)
    }
    for c in nodes.indices.dropFirst() where !nodes[c].children.isEmpty && framedContainers {
        let f = nodes[c].children.dropFirst().reduce(nodes[nodes[c].children[0]].frame) { $0.union(nodes[$1].frame) }
        nodes[c].frame = f
        nodes[c].activationPoint = f.center
    }
    return ElementTree(screenID: id, size: size, naturalOrder: order, nodes: nodes)
}

/// A key of a grid: column and row, spanning columns and rows.
func gridKey(_ id: String, _ c: Int, _ r: Int, w: Int = 1, h: Int = 1) -> (String, Rect) {
    (id, Rect(x: 10 + Double(c) * 64, y: 100 + Double(r) * 44, width: Double(w) * 64 - 4, height: Double(h) * 44 - 4))
}

enum Screens {
    /// galculator's basic mode: "=" two rows tall at the end of the rows of "1" and "0".
    /// Listed column by column, as GTK's grid gives them.
    static var calculatorKeys: [(String, Rect)] {
        [gridKey("7", 0, 0), gridKey("4", 0, 1), gridKey("1", 0, 2), gridKey("0", 0, 3),
         gridKey("8", 1, 0), gridKey("5", 1, 1), gridKey("2", 1, 2), gridKey("point", 1, 3),
         gridKey("9", 2, 0), gridKey("6", 2, 1), gridKey("3", 2, 2), gridKey("percent", 2, 3),
         gridKey("divide", 3, 0), gridKey("times", 3, 1), gridKey("minus", 3, 2), gridKey("plus", 3, 3),
         gridKey("clear", 4, 0), gridKey("allClear", 4, 1), gridKey("equals", 4, 2, h: 2)]
    }
    static var calculator: ElementTree { keysScreen("calculator", calculatorKeys) }

    /// A numeric keypad: a tall "+" inside the grid's right column, a tall Enter, a wide 0.
    static var keypad: ElementTree {
        keysScreen("keypad", [
            gridKey("numLock", 0, 0), gridKey("slash", 1, 0), gridKey("star", 2, 0), gridKey("dash", 3, 0),
            gridKey("k7", 0, 1), gridKey("k8", 1, 1), gridKey("k9", 2, 1), gridKey("plus", 3, 1, h: 2),
            gridKey("k4", 0, 2), gridKey("k5", 1, 2), gridKey("k6", 2, 2),
            gridKey("k1", 0, 3), gridKey("k2", 1, 3), gridKey("k3", 2, 3), gridKey("enter", 3, 3, h: 2),
            gridKey("k0", 0, 4, w: 2), gridKey("dot", 2, 4),
        ], order: .geometric)
    }

    /// A form: a tall list beside fields, check boxes, a combo box and Help, Cancel and OK;
    /// containers for the fields, the options and the buttons.
    static var form: ElementTree {
        keysScreen("form", [
            ("list", Rect(x: 0, y: 20, width: 80, height: 240)),
            ("name", Rect(x: 160, y: 20, width: 240, height: 30)),
            ("email", Rect(x: 160, y: 60, width: 240, height: 30)),
            ("subscribe", Rect(x: 100, y: 110, width: 120, height: 24)),
            ("terms", Rect(x: 240, y: 110, width: 120, height: 24)),
            ("country", Rect(x: 160, y: 150, width: 160, height: 30)),
            ("help", Rect(x: 340, y: 150, width: 60, height: 30)),
            ("cancel", Rect(x: 220, y: 220, width: 80, height: 30)),
            ("ok", Rect(x: 320, y: 220, width: 80, height: 30)),
        ], containers: [("fields", ["name", "email", "country"]), ("options", ["subscribe", "terms"]),
                        ("buttons", ["help", "cancel", "ok"])])
    }

    /// The calculator with its columns as the layout's groups (a column's frame holds the
    /// tall key's neighbours in the next column: no, but "=" reaches into the row of "0").
    static var calculatorColumns: ElementTree {
        keysScreen("calculator-columns", calculatorKeys, containers: [
            ("c0", ["7", "4", "1", "0"]), ("c1", ["8", "5", "2", "point"]), ("c2", ["9", "6", "3", "percent"]),
            ("c3", ["divide", "times", "minus", "plus"]), ("c4", ["clear", "allClear", "equals"]),
        ])
    }

    /// Grids of keys with random spans (two wide, two tall, both), in a scrambled document
    /// order, some in containers of neighbours: a small linear congruential generator.
    static func generated(_ seed: UInt64) -> ElementTree {
        var state = seed &* 6364136223846793005 &+ 1442695040888963407
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        let cols = 4 + next(6), rows = 3 + next(6)
        var taken = Array(repeating: Array(repeating: false, count: cols), count: rows)
        var keys: [(String, Rect)] = []
        for r in 0..<rows {
            for c in 0..<cols where !taken[r][c] {
                var w = 1, h = 1
                switch next(8) {
                case 0: w = 2
                case 1: h = 2
                case 2: w = 2; h = 2
                case 3: continue  // a gap
                default: break
                }
                if c + w > cols || (w == 2 && taken[r][c + 1]) { w = 1 }
                if r + h > rows { h = 1 }
                for rr in r..<(r + h) { for cc in c..<(c + w) { taken[rr][cc] = true } }
                keys.append(gridKey("k\(r)_\(c)", c, r, w: w, h: h))
            }
        }
        for k in keys.indices.reversed() { keys.swapAt(k, next(k + 1)) }
        // Containers of a few keys each, in document order.
        var containers: [(String, [String])] = []
        var k = 0
        while k < keys.count {
            let n = 1 + next(4)
            if n >= 2 { containers.append(("box\(k)", keys[k..<min(k + n, keys.count)].map(\.0))) }
            k += n
        }
        return keysScreen("generated-\(seed)", keys, containers: containers, order: next(2) == 0 ? .document : .geometric)
    }

    static var all: [ElementTree] { [calculator, keypad, form, calculatorColumns] + (1...30).map { generated($0) } }
}

func settings(_ grouping: Grouping) -> ScanSettings {
    var s = ScanSettings()
    s.grouping = grouping
    return s
}

@Suite("Groups a person can see")
struct GroupOutlineTests {
    @Test(arguments: Grouping.allCases)
    func everyGroupHoldsItsMembersAndNothingElse(_ grouping: Grouping) {
        for tree in Screens.all {
            let scan = ScanTreeBuilder.build(tree, settings: settings(grouping))
            #expect(GroupOutlines.problems(scan, tree: tree) == [], "\(tree.screenID) \(grouping)")
        }
    }

    /// The screens need outlines: their groups' frames alone would hold other keys.
    @Test(arguments: [Grouping.layout, .rowColumn, .optimal])
    func framesAloneWouldHoldOtherItems(_ grouping: Grouping) {
        var broken = 0
        for tree in Screens.all {
            var scan = ScanTreeBuilder.build(tree, settings: settings(grouping))
            for g in scan.groups.indices { scan.groups[g].outline = nil }
            if !GroupOutlines.problems(scan, tree: tree).isEmpty { broken += 1 }
        }
        #expect(broken >= 5, "\(grouping): \(broken) screens")
    }

    /// The groups optimal makes are runs of one row or blocks of whole rows.
    @Test func optimalGroupsAreRowsRunsOfRowsOrBlocksOfRows() {
        for tree in Screens.all {
            let scan = ScanTreeBuilder.build(tree, settings: settings(.optimal))
            let rows = Regrouping.screenRows(Regrouping.elementsInOrder(scan), tree)
            var rowOf: [Int: Int] = [:]
            for (r, row) in rows.enumerated() { for n in row { rowOf[n] = r } }
            #expect(Regrouping.elementsInOrder(scan) == rows.flatMap { $0 }, "\(tree.screenID): screen order")
            for g in scan.groups.indices.dropFirst() {
                var members: [Int] = []
                func walk(_ g: Int) { for i in scan.groups[g].items { switch i { case .element(let n): members.append(n); case .group(let s): walk(s) } } }
                walk(g)
                let used = Set(members.map { rowOf[$0]! })
                let whole = used.allSatisfy { r in rows[r].allSatisfy(members.contains) }
                #expect(used.count == 1 || whole, "\(tree.screenID) \(scan.groups[g].id ?? ""): rows \(used.sorted())")
            }
        }
    }

    @Test func rowColumnTakesTheRowsAsSeenWithTheTallKeyInTheRowOfItsTop() throws {
        let tree = Screens.calculator
        let scan = ScanTreeBuilder.build(tree, settings: settings(.rowColumn))
        let rows = scan.groups.dropFirst().map { g in g.items.map { i -> String in
            if case .element(let n) = i { return tree[n].id } else { return "?" }
        } }
        #expect(rows == [["7", "8", "9", "divide", "clear"], ["4", "5", "6", "times", "allClear"],
                         ["1", "2", "3", "minus", "equals"], ["0", "point", "percent", "plus"]])
        #expect(scan.groups.dropFirst().map(\.id) == ["group:7", "group:4", "group:1", "group:0"])
        let third = scan.groups[3]
        // "1 2 3 −" and the tall "=": the outline follows the union, clear of "0 . % +".
        #expect(third.outline == [Rect(x: 10, y: 188, width: 252, height: 40), gridKey("equals", 4, 2, h: 2).1])
        #expect(scan.groups[4].outline == nil, "the row of 0 is its frame")
    }

    /// A container without a frame (as some toolkits give): its outline is its members'
    /// bounds, not a rectangle from the screen's corner.
    @Test func aContainerWithoutAFrameIsOutlinedByItsMembers() {
        let tree = keysScreen("frameless", [gridKey("a", 3, 3), gridKey("b", 4, 3), gridKey("c", 6, 0)],
                              containers: [("box", ["a", "b"])], framedContainers: false)
        let scan = ScanTreeBuilder.build(tree, settings: settings(.layout))
        let box = scan.groups.firstIndex { $0.node == tree.index(of: "box") }!
        #expect(scan.groups[box].outline == [gridKey("a", 3, 3).1.union(gridKey("b", 4, 3).1)])
        #expect(GroupOutlines.problems(scan, tree: tree) == [])
    }

    @Test func theGroupsHighlightCarriesItsOutline() {
        let tree = Screens.calculator
        var engine = ScanEngine(tree: tree, settings: settings(.rowColumn))
        var effects = engine.start(at: .zero)
        effects += engine.handleDeadline(at: .seconds(2))
        let lit = effects.compactMap { e -> (String, [Rect]?)? in
            if case let .highlight(item, .group, _, _, _, outline) = e.effect { return (item, outline) } else { return nil }
        }
        #expect(lit.map(\.0) == ["group:7", "group:4", "group:1"])
        #expect(lit[2].1 == engine.scan.groups[3].outline && lit[2].1 != nil)
        #expect(lit[0].1 == nil)
    }

    /// After a tap the window is read again; the same screen must keep the highlight where
    /// it is, on a group the grouping made or inside one.
    @Test(arguments: [Grouping.rowColumn, .optimal])
    func theSameScreenReadAgainKeepsTheHighlight(_ grouping: Grouping) {
        for tree in [Screens.calculator, Screens.keypad, Screens.generated(7)] {
            var engine = ScanEngine(tree: tree, settings: settings(grouping))
            _ = engine.start(at: .zero)
            let top = engine.scan.groups[0].items
            let first = top.firstIndex { if case .group = $0 { return true } else { return false } }!
            // On the first group the grouping made (item k is highlighted at k seconds).
            _ = engine.handleDeadline(at: .seconds(Double(first) + 0.5))
            #expect(engine.replaceTree(tree, at: .seconds(Double(first) + 0.6)).scanned == [], "\(tree.screenID) \(grouping): on a group")
            #expect(engine.nextDeadline == .seconds(Double(first) + 1), "its dwell goes on")
            // Inside it, on its second member.
            let t = Double(first) + 0.7
            _ = engine.handle(press(.select, at: t), at: .seconds(t))
            _ = engine.handle(release(.select, at: t + 0.05), at: .seconds(t + 0.05))
            _ = engine.handleDeadline(at: .seconds(t + 1.5))
            #expect(engine.item.cursor.scopes.count == 2 && engine.item.cursor.index == 1, "\(tree.screenID) \(grouping): inside a group")
            let before = engine.item.cursor
            #expect(engine.replaceTree(tree, at: .seconds(t + 1.6)).scanned == [], "\(tree.screenID) \(grouping): inside a group")
            #expect(engine.item.cursor == before)
        }
    }

    @Test func generatedIdsAreUniqueAndComeFromTheMembers() {
        for tree in Screens.all {
            let scan = ScanTreeBuilder.build(tree, settings: settings(.optimal))
            let ids = scan.groups.dropFirst().compactMap(\.id)
            #expect(Set(ids).count == ids.count, "\(tree.screenID): \(ids)")
            #expect(ScanTreeBuilder.build(tree, settings: settings(.optimal)) == scan, "the same screen, the same groups")
        }
    }
}

@Suite("Scan order")
struct ScanOrderTests {
    /// A live window's tree (the toolkit's order: column by column here).
    var window: ElementTree { keysScreen("window", [gridKey("b", 1, 0), gridKey("d", 1, 1), gridKey("a", 0, 0), gridKey("c", 0, 1)],
                                         order: .application) }

    func order(_ tree: ElementTree, _ o: ScanOrder, grouping: Grouping = .linear) -> [String] {
        var s = ScanSettings()
        s.order = o
        s.grouping = grouping
        return Regrouping.elementsInOrder(ScanTreeBuilder.build(tree, settings: s)).map { tree[$0].id }
    }

    @Test func aLiveWindowIsScannedInScreenOrderUnlessTheSettingSaysApplication() {
        #expect(order(window, .screen) == ["a", "b", "c", "d"])
        #expect(order(window, .screenRightToLeft) == ["b", "a", "d", "c"])
        #expect(order(window, .application) == ["b", "d", "a", "c"])
    }

    @Test func aLayoutKeepsItsDeclaredOrderAndRowsFollowTheDirection() {
        let listed = keysScreen("listed", [gridKey("b", 1, 0), gridKey("a", 0, 0)], order: .document)
        #expect(order(listed, .screen) == ["b", "a"])
        let rows = keysScreen("rows", [gridKey("a", 0, 0), gridKey("b", 1, 0)], order: .geometric)
        #expect(order(rows, .screen) == ["a", "b"])
        #expect(order(rows, .screenRightToLeft) == ["b", "a"])
        #expect(order(rows, .screenRightToLeft, grouping: .rowColumn) == ["b", "a"])
        #expect(order(listed, .screen, grouping: .rowColumn) == ["a", "b"], "rowColumn takes the rows as seen")
    }
}

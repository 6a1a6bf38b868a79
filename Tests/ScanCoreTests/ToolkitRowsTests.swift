import Testing
@testable import ScanCore

// On the live desktop the containers are a toolkit's: under the default grouping (`layout`)
// a level longer than fifteen items is scanned by the rows it shows (docs/BEHAVIOUR.md,
// "Groups a person can see").

/// galculator's basic mode as the desktop gives it: a menu bar, then every key in one level,
/// in GTK's builder order; "=" two rows tall.
func galculatorScreen(toolkit: Bool = true) -> ElementTree {
    let keys: [(String, Rect)] = [
        gridKey("C", 2, 0), gridKey("AC", 3, 0), gridKey("back", 4, 0),
        gridKey("%", 4, 3), gridKey("sqrt", 4, 2), gridKey("=", 4, 4, h: 2), gridKey("2", 1, 4), gridKey("1", 0, 4),
        gridKey(".", 1, 5), gridKey("0", 0, 5), gridKey("(", 0, 1), gridKey(")", 1, 1), gridKey("MS", 2, 1),
        gridKey("*", 3, 3), gridKey("+/-", 2, 5), gridKey("+", 3, 5), gridKey("-", 3, 4), gridKey("3", 2, 4),
        gridKey("6", 2, 3), gridKey("5", 1, 3), gridKey("4", 0, 3), gridKey("/", 3, 2), gridKey("9", 2, 2),
        gridKey("8", 1, 2), gridKey("7", 0, 2),
    ]
    let menu = ["File", "Edit", "View", "Calculator", "Help"].enumerated().map { i, name in
        (name, Rect(x: 10 + Double(i) * 60, y: 60, width: 56, height: 30))
    }
    var tree = keysScreen("galculator", menu + keys, containers: [("menubar", menu.map(\.0))])
    // The menu bar is a group of its own, as the desktop gives it.
    tree.update(tree.index(of: "menubar")!) { $0.navigationStyle = .automatic }
    tree.containersAreToolkits = toolkit
    return tree
}

private func describe(_ scan: ScanTree, _ tree: ElementTree, _ g: Int = 0) -> [String] {
    scan.groups[g].items.map { item in
        switch item {
        case .element(let n): return tree[n].id
        case .group(let sub): return "[" + describe(scan, tree, sub).joined(separator: " ") + "]"
        }
    }
}

private func taskSeconds(_ keys: [String], _ tree: ElementTree, _ s: ScanSettings) throws -> Double {
    let costs = try ScanCost.compute(tree, settings: s)
    return try keys.reduce(0) { sum, key in
        try sum + #require(costs.first { $0.element == key && $0.action == nil }).seconds
    }
}

@Suite("Toolkit levels scanned by rows")
struct ToolkitRowsTests {
    @Test func aLongLevelIsScannedByTheRowsItShows() {
        let tree = galculatorScreen()
        let scan = ScanTreeBuilder.build(tree, settings: ScanSettings())
        #expect(describe(scan, tree) == [
            "[File Edit View Calculator Help]", "[C AC back]", "[( ) MS]", "[7 8 9 / sqrt]",
            "[4 5 6 * %]", "[1 2 3 - =]", "[0 . +/- +]",
        ])
        #expect(scan.groups.compactMap(\.id) == ["group:C", "group:(", "group:7", "group:4", "group:1", "group:0"])
        #expect(GroupOutlines.problems(scan, tree: tree) == [])
        // The row of "1" holds the tall "=": its outline is the union, clear of the row of "0".
        let row1 = scan.groups.first { $0.id == "group:1" }!
        #expect(row1.outline?.count == 2)
    }

    @Test func theSameScreenReadAgainKeepsTheRowsIds() {
        let a = ScanTreeBuilder.build(galculatorScreen(), settings: ScanSettings())
        let b = ScanTreeBuilder.build(galculatorScreen(), settings: ScanSettings())
        #expect(a.groups.map(\.id) == b.groups.map(\.id))
        #expect(a.groups.compactMap(\.id).count == Set(a.groups.compactMap(\.id)).count)
    }

    @Test func aLayoutFileTheApplicationOrderAndNoGroupsKeepTheLevelWhole() {
        let fromFile = galculatorScreen(toolkit: false)
        #expect(ScanTreeBuilder.build(fromFile, settings: ScanSettings()).top.items.count == 26)
        var s = ScanSettings()
        s.order = .application
        #expect(ScanTreeBuilder.build(galculatorScreen(), settings: s).top.items.count == 26)
        var flat = ScanSettings()
        flat.groupItems = false
        #expect(ScanTreeBuilder.build(galculatorScreen(), settings: flat).groups.count == 1, "no groups, no rows")
    }

    @Test func aLevelInOneRowOrOneColumnOrOfFifteenStaysAsItIs() {
        let row = (0..<20).map { gridKey("r\($0)", $0, 0) }
        let column = (0..<20).map { gridKey("c\($0)", 0, $0) }
        let fifteen = (0..<15).map { gridKey("e\($0)", $0 % 5, $0 / 5) }
        for keys in [row, column, fifteen] {
            var tree = keysScreen("level", keys)
            tree.containersAreToolkits = true
            let scan = ScanTreeBuilder.build(tree, settings: ScanSettings())
            #expect(scan.groups.count == 1 && scan.top.items.count == keys.count, "\(keys.map(\.0))")
        }
    }

    /// 12 × 7 = at 0.5 s a step, pressing 0.3 s after the key is highlighted, the scan
    /// starting again after each tap: over 25 s in one level, within it by rows.
    @Test func twelveTimesSevenTakesWithin25Seconds() throws {
        var s = ScanSettings()
        s.autoScanInterval = .seconds(0.5)
        let task = ["1", "2", "*", "7", "="]
        let byRows = try taskSeconds(task, galculatorScreen(), s)
        let whole = try taskSeconds(task, galculatorScreen(toolkit: false), s)
        #expect(byRows <= 25, "\(byRows) s")
        #expect(whole > 25 && byRows < whole * 0.7, "\(byRows) s by rows, \(whole) s in one level")
    }

    /// Weights are relative: all of them 0 groups as no weights do, not as one flat list.
    @Test func optimalWithEveryWeightZeroGroupsAsWithout() {
        let tree = galculatorScreen(toolkit: false)
        var plain = ScanSettings()
        plain.grouping = .optimal
        var zero = plain
        zero.weights = Dictionary(uniqueKeysWithValues: (0..<tree.count).map { (tree[$0].id, 0.0) })
        let a = ScanTreeBuilder.build(tree, settings: plain), b = ScanTreeBuilder.build(tree, settings: zero)
        #expect(a.groups.count > 3)
        #expect(describe(a, tree) == describe(b, tree))
    }
}

/// The `grouping` setting: the layout's scan tree regrouped. `linear` keeps the layout's
/// reading order; `rowColumn` and `optimal` group by rows as they stand on the screen (rows
/// top to bottom, each in the `order` setting's direction), so a group is a row, a run of one
/// row, or a block of whole rows: something a person sees as one (docs/BEHAVIOUR.md, "Groups a person can see").
enum Regrouping {
    /// A group's contents: elements and groups in order.
    indirect enum Shape {
        case element(Int)
        case group([Shape])

        var elements: [Int] {
            switch self {
            case .element(let n): return [n]
            case .group(let parts): return parts.flatMap(\.elements)
            }
        }
    }

    static func apply(_ scan: ScanTree, tree: ElementTree, settings: ScanSettings) -> ScanTree {
        let order = elementsInOrder(scan)
        let top: [Shape]
        let rightToLeft = settings.order == .screenRightToLeft
        switch settings.grouping {
        case .layout:
            // Without groups (groupItems off) there are no rows either.
            guard tree.containersAreToolkits, settings.groupItems, settings.order != .application else { return scan }
            return rowsOfLongLevels(scan, tree: tree, rightToLeft: rightToLeft)
        case .linear: top = order.map(Shape.element)
        case .rowColumn:
            top = screenRows(order, tree, rightToLeft: rightToLeft).map { $0.count == 1 ? .element($0[0]) : .group($0.map(Shape.element)) }
        case .optimal:
            // Weights are relative: all of them 0 says nothing, so every element counts alike.
            let weighed = order.contains { (settings.weights[tree[$0].id] ?? 1) > 0 }
            top = optimal(rows: screenRows(order, tree, rightToLeft: rightToLeft),
                          weight: { weighed ? settings.weights[tree[$0].id] ?? 1 : 1 }, timing: Timing(settings))
        }
        return build(top, scan: scan, tree: tree)
    }

    /// A level with more items than this is scanned by rows when its containers are a
    /// toolkit's: a calculator's 25 keys in one level are up to 13 s away at 0.5 s a step,
    /// in rows 3 s; a dialog's dozen items are quick enough as they are.
    static let longLevel = 15

    /// The toolkit's levels kept, and in a level longer than `longLevel` items each run of
    /// elements that lies in several screen rows made into its rows: a row of two or more a
    /// group (named and framed as the groups of `build`), a row of one an item.
    static func rowsOfLongLevels(_ scan: ScanTree, tree: ElementTree, rightToLeft: Bool) -> ScanTree {
        var out = scan
        var used = Set(scan.groups.compactMap(\.id))
        for g in scan.groups.indices where scan.groups[g].items.count > longLevel {
            var items: [ScanItem] = []
            var run: [Int] = []
            func flush() {
                defer { run = [] }
                let rows = run.count > 1 ? screenRows(run, tree, rightToLeft: rightToLeft) : []
                guard rows.count > 1, rows.contains(where: { $0.count > 1 }) else {
                    items += run.map(ScanItem.element)
                    return
                }
                for row in rows {
                    guard row.count > 1 else { items.append(.element(row[0])); continue }
                    var group = madeGroup(row, used: &used, scan: scan, tree: tree, parent: g, index: items.count)
                    group.items = row.map(ScanItem.element)
                    items.append(.group(out.groups.count))
                    out.groups.append(group)
                }
            }
            for item in scan.groups[g].items {
                if case .element(let n) = item { run.append(n) } else { flush(); items.append(item) }
            }
            flush()
            guard items.count < scan.groups[g].items.count else { continue }
            out.groups[g].items = items
            for (k, item) in items.enumerated() { if case .group(let sub) = item { out.groups[sub].indexInParent = k } }
        }
        return out
    }

    /// Every element of a scan tree, depth first through its groups.
    static func elementsInOrder(_ scan: ScanTree) -> [Int] {
        var out: [Int] = []
        func walk(_ g: Int) {
            for item in scan.groups[g].items {
                switch item {
                case .element(let n): out.append(n)
                case .group(let sub): walk(sub)
                }
            }
        }
        if !scan.groups.isEmpty { walk(0) }
        return out
    }

    /// The rows of the screen as a person sees them, top to bottom: an element joins a row
    /// when its top is less than half the smaller height from the top of the row's first
    /// (a tall key spanning two rows is in the row of its top); within a row, left to right
    /// (right to left). Ties keep the reading order.
    static func screenRows(_ order: [Int], _ tree: ElementTree, rightToLeft: Bool = false) -> [[Int]] {
        var keyed = order.enumerated().map { (frame: tree[$0.element].frame, k: $0.offset, node: $0.element) }
        keyed.sort { a, b in a.frame.minY != b.frame.minY ? a.frame.minY < b.frame.minY : a.k < b.k }
        var rows: [[Int]] = []
        var row: [(frame: Rect, k: Int, node: Int)] = []
        var first = Rect.zero
        func flush() {
            row.sort { a, b in
                let xa = rightToLeft ? -a.frame.maxX : a.frame.minX, xb = rightToLeft ? -b.frame.maxX : b.frame.minX
                return xa != xb ? xa < xb : a.k < b.k
            }
            if !row.isEmpty { rows.append(row.map(\.node)) }
            row.removeAll(keepingCapacity: true)
        }
        for e in keyed {
            if !row.isEmpty && abs(e.frame.minY - first.minY) >= min(e.frame.height, first.height) / 2 { flush() }
            if row.isEmpty { first = e.frame }
            row.append(e)
        }
        flush()
        return rows
    }

    /// The times of auto scanning that decide what a place in a group costs: the item at
    /// position j of a group is highlighted j × interval (plus the first item's pause, for
    /// j ≥ 1) after the group starts, and pressed `reactionTime` later.
    struct Timing {
        var interval: Double
        var pause: Double
        var reaction: Double

        init(_ s: ScanSettings) {
            interval = s.autoScanInterval.seconds
            pause = s.pauseOnFirstItem.seconds
            reaction = s.reactionTime.seconds
        }

        func at(_ position: Int) -> Double {
            Double(position) * interval + (position > 0 ? pause : 0) + reaction
        }
    }

    /// Groups that minimise the expected time to reach an element (weighted), among the
    /// groups a person sees: runs of one row, or blocks of whole rows. Dynamic programming
    /// over runs of the screen order, exact up to `exactLimit` items; beyond, blocks of whole
    /// rows (or runs of a longer row) of about that many are first made optimal groups of
    /// their own, and those are then arranged the same way.
    static let exactLimit = 160

    static func optimal(rows: [[Int]], weight: (Int) -> Double, timing: Timing) -> [Shape] {
        var leaves: [Leaf] = []
        for (r, row) in rows.enumerated() {
            for (j, n) in row.enumerated() {
                leaves.append(Leaf(shape: .element(n), weight: weight(n), inner: 0,
                                   firstRow: r, lastRow: r, startsRow: j == 0, endsRow: j == row.count - 1))
            }
        }
        while leaves.count > exactLimit {
            // Whole rows, packed up to the limit; a longer row is cut inside it.
            var segments: [[Leaf]] = []
            for l in leaves {
                if l.startsRow || segments.isEmpty { segments.append([]) }
                segments[segments.count - 1].append(l)
            }
            var chunks: [[Leaf]] = []
            var packing: [Leaf] = []
            for segment in segments {
                if segment.count > exactLimit {
                    if !packing.isEmpty { chunks.append(packing); packing = [] }
                    for start in stride(from: 0, to: segment.count, by: exactLimit) {
                        chunks.append(Array(segment[start..<min(start + exactLimit, segment.count)]))
                    }
                    continue
                }
                if packing.count + segment.count > exactLimit { chunks.append(packing); packing = [] }
                packing += segment
            }
            if !packing.isEmpty { chunks.append(packing) }
            leaves = chunks.map { part in
                let (shapes, cost) = arrange(part, timing: timing)
                return Leaf(shape: shapes.count == 1 ? shapes[0] : .group(shapes), weight: part.reduce(0) { $0 + $1.weight }, inner: cost,
                            firstRow: part[0].firstRow, lastRow: part[part.count - 1].lastRow,
                            startsRow: part[0].startsRow, endsRow: part[part.count - 1].endsRow)
            }
        }
        return arrange(leaves, timing: timing).shapes
    }

    /// An item to arrange: an element, or a group already arranged, with its total weight,
    /// the weighted time spent inside it once entered, and the screen rows it spans.
    struct Leaf {
        var shape: Shape
        var weight: Double
        var inner: Double
        var firstRow: Int
        var lastRow: Int
        /// It begins (ends) its first (last) row.
        var startsRow: Bool
        var endsRow: Bool
    }

    /// The best contents of one group made of `leaves` in order, and its weighted cost
    /// measured from the group's start. f[a][b]: runs a..<b as a group's whole contents
    /// (two children or more, or a single leaf); g[a][b]: the same runs as children at
    /// positions 1, 2, …. A run becomes a group only if it lies in one row or is whole rows.
    static func arrange(_ leaves: [Leaf], timing: Timing) -> (shapes: [Shape], cost: Double) {
        let n = leaves.count
        guard n > 1 else { return (leaves.map(\.shape), leaves.first.map { $0.weight * timing.reaction + $0.inner } ?? 0) }
        var prefix = [0.0]
        for l in leaves { prefix.append(prefix.last! + l.weight) }
        let inf = Double.infinity
        // Flat (n+1)² tables, read through buffers: this O(n³) loop runs for every chunk of
        // a large screen, and nested arrays cost a bounds check and a retain per read.
        let side = n + 1
        var f = [Double](repeating: inf, count: side * side)
        var g = f
        var fCut = [Int](repeating: 0, count: side * side)
        var gCut = fCut
        let later = timing.at(1), reaction = timing.reaction, interval = timing.interval
        let leafInner = leaves.map(\.inner), leafWeight = leaves.map(\.weight)
        let firstRow = leaves.map(\.firstRow), lastRow = leaves.map(\.lastRow)
        let startsRow = leaves.map(\.startsRow), endsRow = leaves.map(\.endsRow)
        prefix.withUnsafeBufferPointer { w in
        f.withUnsafeMutableBufferPointer { f in
        g.withUnsafeMutableBufferPointer { g in
        fCut.withUnsafeMutableBufferPointer { fCut in
        gCut.withUnsafeMutableBufferPointer { gCut in
            // The inner cost of run a..<e as one child: a leaf's own, or a group of it.
            // Groups a person can see: a run of one row, or whole rows.
            @inline(__always) func inner(_ a: Int, _ e: Int) -> Double {
                if e == a + 1 { return leafInner[a] }
                guard firstRow[a] == lastRow[e - 1] || (startsRow[a] && endsRow[e - 1]) else { return inf }
                return f[a * side + e]
            }
            for length in 1...n {
                for a in 0...(n - length) {
                    let b = a + length
                    let ab = a * side + b
                    if length == 1 {
                        f[ab] = leafWeight[a] * reaction + leafInner[a]
                    } else {
                        for e in (a + 1)..<b {
                            let i = inner(a, e), rest = g[e * side + b]
                            guard i < inf && rest < inf else { continue }
                            let c = (w[e] - w[a]) * reaction + i + rest
                            if c < f[ab] { f[ab] = c; fCut[ab] = e }
                        }
                    }
                    for e in (a + 1)...b {
                        let i = inner(a, e)
                        guard i < inf else { continue }
                        var c = (w[e] - w[a]) * later + i
                        if e < b { c += g[e * side + b] + (w[b] - w[e]) * interval }
                        if c < g[ab] { g[ab] = c; gCut[ab] = e }
                    }
                }
            }
        }}}}}
        func child(_ a: Int, _ e: Int) -> Shape { e == a + 1 ? leaves[a].shape : .group(contents(a, e)) }
        func contents(_ a: Int, _ b: Int) -> [Shape] {
            if b == a + 1 { return [leaves[a].shape] }
            let e = fCut[a * side + b]
            return [child(a, e)] + rest(e, b)
        }
        func rest(_ a: Int, _ b: Int) -> [Shape] {
            guard a < b else { return [] }
            let e = gCut[a * side + b]
            return [child(a, e)] + rest(e, b)
        }
        return (contents(0, n), f[n])
    }

    /// A group the grouping makes of `members` (no items yet): named after them, so that the
    /// same screen read again gives the same id (`group:` and the first's id, then `/` and the
    /// last's, then `#2`, … where taken), framed by their union, its node the first member's
    /// container.
    static func madeGroup(_ members: [Int], used: inout Set<String>, scan: ScanTree, tree: ElementTree,
                          parent: Int, index: Int) -> ScanGroup {
        let first = members[0], last = members[members.count - 1]
        var id = "group:" + tree[first].id
        if used.contains(id) { id += "/" + tree[last].id }
        var k = 2
        while used.contains(id) { id = "group:" + tree[first].id + "/" + tree[last].id + "#\(k)"; k += 1 }
        used.insert(id)
        let frame = members.dropFirst().reduce(tree[first].frame) { $0.union(tree[$1].frame) }
        let container = first < scan.accessibilityParent.count && scan.accessibilityParent[first] >= 0
            ? Int(scan.accessibilityParent[first]) : 0
        return ScanGroup(node: container, items: [], parent: parent, indexInParent: index, id: id, frame: frame)
    }

    /// The scan tree of `top`: group 0 the top level; a group made here is framed by its
    /// members and named after them, so that the same screen read again gives the same ids
    /// (the cursor is kept by id across snapshots): `group:` and its first element's id, and
    /// for a group inside one that starts with the same element, `/` and its last's.
    static func build(_ top: [Shape], scan: ScanTree, tree: ElementTree) -> ScanTree {
        var groups = [ScanGroup(node: scan.groups.first?.node ?? 0, items: [], parent: nil, indexInParent: 0)]
        var used: Set<String> = []
        func add(_ shapes: [Shape], into g: Int) {
            var items: [ScanItem] = []
            for (k, shape) in shapes.enumerated() {
                switch shape {
                case .element(let n):
                    items.append(.element(n))
                case .group(let parts):
                    let sub = groups.count
                    groups.append(madeGroup(shape.elements, used: &used, scan: scan, tree: tree, parent: g, index: k))
                    items.append(.group(sub))
                    add(parts, into: sub)
                }
            }
            groups[g].items = items
        }
        // A top level that is one group would cost a press to enter: its members are the top.
        if top.count == 1, case .group(let parts) = top[0] { add(parts, into: 0) } else { add(top, into: 0) }
        return ScanTree(groups: groups, accessibilityParent: scan.accessibilityParent)
    }
}

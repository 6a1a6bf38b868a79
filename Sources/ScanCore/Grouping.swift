/// The `grouping` setting: the layout's scan tree regrouped. Every grouping keeps the
/// layout's order of elements (reading order); it changes only which runs of consecutive
/// elements are groups, so members of a group stay neighbours on the screen.
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
        switch settings.grouping {
        case .layout: return scan
        case .linear: top = order.map(Shape.element)
        case .rowColumn: top = rows(order, tree)
        case .optimal: top = optimal(order, weights: order.map { settings.weights[tree[$0].id] ?? 1 }, timing: Timing(settings))
        }
        return build(top, scan: scan, tree: tree)
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

    /// Rows of the screen: an element starts a new row unless its top is less than half the
    /// smaller height below the row's first; a row of two or more is a group.
    static func rows(_ order: [Int], _ tree: ElementTree) -> [Shape] {
        var result: [Shape] = []
        var row: [Int] = []
        func flush() {
            if row.count == 1 { result.append(.element(row[0])) } else if !row.isEmpty { result.append(.group(row.map(Shape.element))) }
            row = []
        }
        for n in order {
            if let first = row.first {
                let a = tree[first].frame, b = tree[n].frame
                if abs(b.minY - a.minY) >= min(a.height, b.height) / 2 { flush() }
            }
            row.append(n)
        }
        flush()
        return result
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

    /// Groups of consecutive elements that minimise the expected time to reach one (weighted):
    /// dynamic programming over contiguous runs, exact up to `exactLimit` items; beyond, runs
    /// of about that many are first made optimal groups of their own, and the groups are then
    /// arranged the same way.
    static let exactLimit = 160

    static func optimal(_ order: [Int], weights: [Double], timing: Timing) -> [Shape] {
        var leaves = zip(order, weights).map { Leaf(shape: .element($0.0), weight: $0.1, inner: 0) }
        while leaves.count > exactLimit {
            let chunks = (leaves.count + exactLimit - 1) / exactLimit
            let size = (leaves.count + chunks - 1) / chunks
            leaves = stride(from: 0, to: leaves.count, by: size).map { start in
                let part = Array(leaves[start..<min(start + size, leaves.count)])
                let (shapes, cost) = arrange(part, timing: timing)
                return Leaf(shape: shapes.count == 1 ? shapes[0] : .group(shapes), weight: part.reduce(0) { $0 + $1.weight }, inner: cost)
            }
        }
        return arrange(leaves, timing: timing).shapes
    }

    /// An item to arrange: an element, or a group already arranged, with its total weight
    /// and the weighted time spent inside it once entered.
    struct Leaf {
        var shape: Shape
        var weight: Double
        var inner: Double
    }

    /// The best contents of one group made of `leaves` in order, and its weighted cost
    /// measured from the group's start. f[a][b]: runs a..<b as a group's whole contents
    /// (two children or more, or a single leaf); g[a][b]: the same runs as children at
    /// positions 1, 2, ….
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
        prefix.withUnsafeBufferPointer { w in
        f.withUnsafeMutableBufferPointer { f in
        g.withUnsafeMutableBufferPointer { g in
        fCut.withUnsafeMutableBufferPointer { fCut in
        gCut.withUnsafeMutableBufferPointer { gCut in
            // The inner cost of run a..<e as one child: a leaf's own, or a group of it.
            @inline(__always) func inner(_ a: Int, _ e: Int) -> Double { e == a + 1 ? leafInner[a] : f[a * side + e] }
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

    /// The scan tree of `top`: group 0 the top level; a group made here is named after its
    /// first element and framed by its members.
    static func build(_ top: [Shape], scan: ScanTree, tree: ElementTree) -> ScanTree {
        var groups = [ScanGroup(node: scan.groups.first?.node ?? 0, items: [], parent: nil, indexInParent: 0)]
        func add(_ shapes: [Shape], into g: Int) {
            var items: [ScanItem] = []
            for (k, shape) in shapes.enumerated() {
                switch shape {
                case .element(let n):
                    items.append(.element(n))
                case .group(let parts):
                    let members = shape.elements
                    let first = members[0]
                    let frame = members.dropFirst().reduce(tree[first].frame) { $0.union(tree[$1].frame) }
                    let container = first < scan.accessibilityParent.count && scan.accessibilityParent[first] >= 0
                        ? Int(scan.accessibilityParent[first]) : 0
                    let sub = groups.count
                    groups.append(ScanGroup(node: container, items: [], parent: g, indexInParent: k,
                                            id: "group:" + tree[first].id, frame: frame))
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

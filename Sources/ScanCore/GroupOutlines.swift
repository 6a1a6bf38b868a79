/// Groups a person can see (docs/BEHAVIOUR.md, "Groups a person can see"): a group is drawn as one outline and the user decides
/// from what lies inside it, so its outline holds its members and no other scanned item's
/// activation point, and the outlines of the groups at one level do not overlap.
///
/// A group's frame is its outline when it is clear: no other item's activation point in it,
/// no other item's frame reaching into it, no overlap with the outlines of the groups before
/// it at its level. Otherwise the outline follows its members: their frames in scan order,
/// each joined to the rectangle before while that stays clear (rows, runs of a row), then
/// rectangles joined pairwise while clear. Where a member's own frame is not clear (another
/// item drawn over it) the other item is cut out of it, and the outlines before it at its
/// level are cut out last.
enum GroupOutlines {
    static func assign(_ scan: inout ScanTree, tree: ElementTree) {
        guard scan.groups.count > 1 else { return }
        // Every scanned element's frame and activation point, read once.
        let all = Regrouping.elementsInOrder(scan)
        var frame = [Rect](repeating: .zero, count: tree.count)
        var point = [Point](repeating: Point(x: 0, y: 0), count: tree.count)
        for n in all { frame[n] = tree[n].frame; point[n] = tree[n].activationPoint }
        // An element without a size (no frame) has nothing to enclose but its point.
        func extent(_ n: Int) -> Rect {
            frame[n].width > 0 || frame[n].height > 0 ? frame[n] : Rect(x: point[n].x, y: point[n].y, width: 0, height: 0)
        }
        var stamp = [Int](repeating: -1, count: tree.count)
        var grid = Grid(all, frame: frame, point: point, nodes: tree.count)

        func members(_ g: Int, into out: inout [Int]) {
            for item in scan.groups[g].items {
                switch item {
                case .element(let n): out.append(n)
                case .group(let sub): members(sub, into: &out)
                }
            }
        }

        var pending = [0]
        while let g = pending.popLast() {
            grid.clearPlaced()
            for item in scan.groups[g].items {
                guard case .group(let sub) = item else { continue }
                pending.append(sub)
                var inside: [Int] = []
                members(sub, into: &inside)
                guard let first = inside.first else { continue }
                for n in inside { stamp[n] = sub }
                let bounds = inside.dropFirst().reduce(extent(first)) { $0.union(extent($1)) }
                // The frame, grown to hold members drawn outside it (the members' bounds
                // for a container without a frame).
                let given = scan.groups[sub].frame ?? tree[scan.groups[sub].node].frame
                let own = given.width <= 0 && given.height <= 0 ? bounds : given.contains(bounds) ? given : given.union(bounds)
                let area = own
                var others: [Other] = []
                grid.visit(area) { n in
                    if stamp[n] != sub && (area.overlaps(frame[n]) || area.contains(point[n])) {
                        others.append(Other(body: frame[n].body, point: point[n]))
                    }
                }
                let rects = outline(frame: own, members: inside.map(extent), others: others, before: grid.placed(near: area))
                scan.groups[sub].outline = rects.count == 1 && rects[0] == given ? nil : rects
                for r in rects { grid.place(r) }
            }
        }
    }

    /// The scanned elements by where they are, so that a group looks only at its
    /// neighbours (a screen has up to a hundred thousand elements and as many groups): a
    /// grid of about one cell per element, each element in the cells its frame and point
    /// touch; an element over more than 64 cells is looked at by every query.
    struct Grid {
        var origin = Point(x: 0, y: 0)
        var cell = 1.0
        var columns = 1, rows = 1
        /// Each cell's elements: `members[start[c]..<start[c + 1]]` (one flat array: a
        /// hundred thousand small ones cost more to make than the whole query work).
        var start: [Int32] = [0, 0]
        var members: [Int32] = []
        var large: [Int] = []
        /// Elements seen by the current query (deduplicated by query number).
        var seen: [Int]
        var query = 0
        var cellCount: Int { columns * rows }

        init(_ elements: [Int], frame: [Rect], point: [Point], nodes: Int) {
            seen = [Int](repeating: -1, count: nodes)
            guard let first = elements.first else { return }
            func extent(_ n: Int) -> Rect { frame[n].union(Rect(x: point[n].x, y: point[n].y, width: 0, height: 0)) }
            var bounds = extent(first)
            for n in elements { bounds = bounds.union(extent(n)) }
            origin = Point(x: bounds.minX, y: bounds.minY)
            // Square cells, about as many as elements over the area they cover.
            cell = max(1, (max(1, bounds.width) * max(1, bounds.height) / Double(elements.count)).squareRoot())
            columns = max(1, Int((bounds.width / cell).rounded(.up)) + 1)
            rows = max(1, Int((bounds.height / cell).rounded(.up)) + 1)
            var count = [Int32](repeating: 0, count: columns * rows + 1)
            var small: [Int] = []
            small.reserveCapacity(elements.count)
            for n in elements {
                let (c0, r0, c1, r1) = span(extent(n))
                if (c1 - c0 + 1) * (r1 - r0 + 1) > 64 { large.append(n); continue }
                small.append(n)
                for y in r0...r1 { for x in c0...c1 { count[y * columns + x + 1] += 1 } }
            }
            for c in 1..<count.count { count[c] += count[c - 1] }
            start = count
            var next = count
            members = [Int32](repeating: 0, count: Int(count[count.count - 1]))
            for n in small {
                let (c0, r0, c1, r1) = span(extent(n))
                for y in r0...r1 {
                    for x in c0...c1 {
                        members[Int(next[y * columns + x])] = Int32(n)
                        next[y * columns + x] += 1
                    }
                }
            }
        }

        func span(_ r: Rect) -> (Int, Int, Int, Int) {
            func clamp(_ v: Double, _ limit: Int) -> Int { Swift.min(limit - 1, Swift.max(0, Int(v))) }
            return (clamp((r.minX - origin.x) / cell, columns), clamp((r.minY - origin.y) / cell, rows),
                    clamp((r.maxX - origin.x) / cell, columns), clamp((r.maxY - origin.y) / cell, rows))
        }

        /// The outlines of the groups before at one level, in the same cells.
        var placed: [Rect] = []
        var placedQuery: [Int] = []
        var placedCells: [[Int]] = []
        var placedLarge: [Int] = []
        var touched: [Int] = []

        mutating func clearPlaced() {
            for c in touched { placedCells[c].removeAll(keepingCapacity: true) }
            touched.removeAll(keepingCapacity: true)
            placed.removeAll(keepingCapacity: true)
            placedLarge.removeAll(keepingCapacity: true)
        }

        mutating func place(_ r: Rect) {
            if placedCells.isEmpty { placedCells = Array(repeating: [], count: cellCount) }
            let k = placed.count
            placed.append(r)
            if placedQuery.count <= k { placedQuery.append(-1) }
            let (c0, r0, c1, r1) = span(r)
            if (c1 - c0 + 1) * (r1 - r0 + 1) > 64 { placedLarge.append(k); return }
            for y in r0...r1 { for x in c0...c1 { placedCells[y * columns + x].append(k); touched.append(y * columns + x) } }
        }

        /// The outlines placed so far that meet `r`, in the order placed.
        mutating func placed(near r: Rect) -> [Rect] {
            guard !placed.isEmpty else { return [] }
            query += 1
            var found: [Int] = []
            for k in placedLarge where placed[k].overlaps(r) { found.append(k) }
            let (c0, r0, c1, r1) = span(r)
            for y in r0...r1 {
                for x in c0...c1 {
                    for k in placedCells[y * columns + x] where placedQuery[k] != query && placed[k].overlaps(r) {
                        placedQuery[k] = query
                        found.append(k)
                    }
                }
            }
            if found.count > 1 { found.sort() }
            return found.map { placed[$0] }
        }

        /// Every element whose cells meet `r`, once.
        mutating func visit(_ r: Rect, _ body: (Int) -> Void) {
            query += 1
            for n in large { body(n) }
            let (c0, r0, c1, r1) = span(r)
            for y in r0...r1 {
                for x in c0...c1 {
                    let c = y * columns + x
                    for k in Int(start[c])..<Int(start[c + 1]) {
                        let n = Int(members[k])
                        guard seen[n] != query else { continue }
                        seen[n] = query
                        body(n)
                    }
                }
            }
        }
    }

    /// Another scanned item near a group: its frame less a pixel each side (neighbours'
    /// frames often touch or overlap by one), and its activation point.
    struct Other {
        var body: Rect
        var point: Point
    }

    static func outline(frame: Rect, members: @autoclosure () -> [Rect], others: [Other], before: [Rect]) -> [Rect] {
        func clear(_ r: Rect) -> Bool {
            for o in others where r.contains(o.point) || r.overlaps(o.body) { return false }
            for b in before where r.overlaps(b.body) { return false }
            return true
        }
        if clear(frame) { return [frame] }
        var rects: [Rect] = []
        for m in members() {
            if let last = rects.last, clear(last.union(m)) { rects[rects.count - 1] = last.union(m) } else { rects.append(m) }
        }
        // Join what stays clear (a block of rows whose runs were cut apart); a group of many
        // scattered members keeps its runs.
        var joined = rects.count <= 48
        while joined && rects.count > 1 {
            joined = false
            search: for i in rects.indices {
                for j in (i + 1)..<rects.count where clear(rects[i].union(rects[j])) {
                    rects[i] = rects[i].union(rects[j])
                    rects.remove(at: j)
                    joined = true
                    break search
                }
            }
        }
        rects = rects.enumerated().filter { k, r in
            !rects.enumerated().contains { j, o in j != k && o.contains(r) && (o != r || j < k) }
        }.map(\.element)
        // A member another item is drawn over: that item is cut out.
        var cut: [Rect] = []
        for r in rects {
            if clear(r) { cut.append(r); continue }
            var pieces = [r]
            for o in others {
                let hole = o.body.contains(o.point) ? o.body : Rect(x: o.point.x - 0.5, y: o.point.y - 0.5, width: 1, height: 1)
                if pieces.contains(where: { $0.contains(o.point) || $0.overlaps(o.body) }) {
                    pieces = pieces.flatMap { $0.subtracting(hole) }
                }
            }
            cut += pieces
        }
        for b in before { cut = cut.flatMap { $0.subtracting(b) } }
        return cut
    }
}

extension Rect {
    /// Whether the two share some area (touching edges do not).
    @inlinable public func overlaps(_ r: Rect) -> Bool {
        min(maxX, r.maxX) > max(minX, r.minX) && min(maxY, r.maxY) > max(minY, r.minY)
    }

    /// The parts of this rectangle outside `r`: up to four (above, below, left, right).
    public func subtracting(_ r: Rect) -> [Rect] {
        guard overlaps(r) else { return [self] }
        let top = max(minY, r.minY), bottom = min(maxY, r.maxY)
        return [
            Rect(x: minX, y: minY, width: width, height: top - minY),
            Rect(x: minX, y: bottom, width: width, height: maxY - bottom),
            Rect(x: minX, y: top, width: max(minX, r.minX) - minX, height: bottom - top),
            Rect(x: min(maxX, r.maxX), y: top, width: maxX - min(maxX, r.maxX), height: bottom - top),
        ].filter { $0.width > 0 && $0.height > 0 }
    }

    /// The frame less up to a pixel each side: what must stay clear of other outlines.
    var body: Rect {
        let d = Swift.max(0, Swift.min(1, width / 4, height / 4))
        return Rect(x: x + d, y: y + d, width: width - 2 * d, height: height - 2 * d)
    }
}

extension GroupOutlines {
    /// What breaks the rule of groups a person can see (docs/BEHAVIOUR.md) in a scan tree, one sentence each (none: every group can be
    /// seen): a member outside its group's outline, another item's activation point inside
    /// it, or the outlines of two groups at one level overlapping.
    static func problems(_ scan: ScanTree, tree: ElementTree) -> [String] {
        var out: [String] = []
        func members(_ g: Int) -> [Int] {
            scan.groups[g].items.flatMap { item -> [Int] in
                switch item {
                case .element(let n): return [n]
                case .group(let sub): return members(sub)
                }
            }
        }
        func outline(_ g: Int) -> [Rect] { scan.groups[g].outline ?? [scan.groups[g].frame ?? tree[scan.groups[g].node].frame] }
        func name(_ g: Int) -> String { scan.groups[g].id ?? tree[scan.groups[g].node].id }
        let all = Regrouping.elementsInOrder(scan)
        // The groups reached from the top level (a screen that was one group leaves its
        // group behind, empty).
        var reached: [Int] = []
        func reach(_ g: Int) { for case .group(let sub) in scan.groups[g].items { reached.append(sub); reach(sub) } }
        reach(0)
        for g in reached {
            let rects = outline(g), inside = Set(members(g))
            func held(_ p: Point) -> Bool { rects.contains { $0.contains(p) } }
            for n in inside {
                let f = tree[n].frame
                let corners = [Point(x: f.minX, y: f.minY), Point(x: f.maxX, y: f.minY), Point(x: f.minX, y: f.maxY),
                               Point(x: f.maxX, y: f.maxY), f.center]
                if !held(tree[n].activationPoint) || !corners.allSatisfy(held) { out.append("\(name(g)) does not hold its member \(tree[n].id)") }
            }
            for n in all where !inside.contains(n) && held(tree[n].activationPoint) {
                out.append("\(name(g)) holds \(tree[n].id), not a member")
            }
            let siblings = scan.groups[g].items.compactMap { if case .group(let s) = $0 { return s } else { return nil } }
            for (k, a) in siblings.enumerated() {
                for b in siblings[(k + 1)...] where outline(a).contains(where: { ra in outline(b).contains { $0.overlaps(ra) } }) {
                    out.append("\(name(a)) and \(name(b)) overlap")
                }
            }
        }
        // The top level's groups.
        let top = scan.groups[0].items.compactMap { if case .group(let s) = $0 { return s } else { return nil } }
        for (k, a) in top.enumerated() {
            for b in top[(k + 1)...] where outline(a).contains(where: { ra in outline(b).contains { $0.overlaps(ra) } }) {
                out.append("\(name(a)) and \(name(b)) overlap")
            }
        }
        return out
    }
}

import ScanCore

/// A rectangle of terminal cells: `width` columns from `column`, `height` rows from `row`.
public struct CellRect: Hashable, Sendable, CustomStringConvertible {
    public var column: Int
    public var row: Int
    public var width: Int
    public var height: Int
    public init(column: Int, row: Int, width: Int, height: Int) {
        self.column = column; self.row = row; self.width = width; self.height = height
    }
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public func contains(_ r: CellRect) -> Bool {
        r.column >= column && r.row >= row && r.column + r.width <= column + width && r.row + r.height <= row + height
    }
    public var description: String { "\(width)x\(height)@\(column),\(row)" }
}

/// Where each box of a screen goes on the terminal's cell grid, as a pure function of the
/// frames, their labels and the grid's size. What it guarantees: no cell is drawn by two
/// boxes, so no border or label overwrites another; every box stays inside the grid.
///
/// - Each axis is mapped on its own (`AxisMap`), monotonically: the frames' edges, sorted,
///   get cell boundaries in their order. So frames that do not overlap get cells that do
///   not overlap, and a frame inside another stays inside it.
/// - Boxes are placed smallest first, each only on free cells. A box that holds boxes
///   already placed gets a border around them, on its own edge or one cell outside it, if
///   those cells are free; else it is not drawn (its contents are). A box that partly
///   overlaps others takes the largest free rectangle of its cells.
/// - A box with room (3 columns, 2 rows) has a border, its label inside (in the top border
///   when it is 2 rows high or holds others); a smaller one is its label alone (`·`
///   without one), shortened with `…`; one left with no cell is not drawn.
public struct TerminalLayout: Sendable {
    public struct Box: Sendable {
        public var frame: Rect
        public var label: String
        public init(frame: Rect, label: String) { self.frame = frame; self.label = label }
    }
    public enum Form: Sendable, Equatable { case bordered, compact, hidden }
    public struct Placed: Sendable, Equatable {
        /// The cells the box owns, its border included.
        public var cells: CellRect
        public var form: Form
        /// The label as drawn (shortened with `…` to fit), and where.
        public var text: String
        public var textRow: Int
        public var textColumn: Int
    }

    public let columns: Int
    public let rows: Int
    /// One for each box given, in the same order.
    public let placed: [Placed]
    let xs: AxisMap
    let ys: AxisMap

    public init(_ boxes: [Box], area: Rect, columns: Int, rows: Int) {
        self.columns = max(0, columns)
        self.rows = max(0, rows)
        let area = Rect(x: area.x, y: area.y, width: max(area.width, 1e-9), height: max(area.height, 1e-9))
        xs = AxisMap(spans: boxes.map { ($0.frame.minX, $0.frame.maxX) }, lo: area.minX, hi: area.maxX, count: self.columns)
        ys = AxisMap(spans: boxes.map { ($0.frame.minY, $0.frame.maxY) }, lo: area.minY, hi: area.maxY, count: self.rows)
        placed = Self.place(boxes, xs: xs, ys: ys, columns: self.columns, rows: self.rows)
    }

    /// Any frame's cells on the same grid (a highlight, a group): edges between the boxes'
    /// edges fall between their cells. Clipped to the grid; possibly empty.
    public func cells(for frame: Rect) -> CellRect {
        let c0 = xs.cell(frame.minX), c1 = xs.cell(frame.maxX)
        let r0 = ys.cell(frame.minY), r1 = ys.cell(frame.maxY)
        return CellRect(column: c0, row: r0, width: c1 - c0, height: r1 - r0)
    }

    /// The column and row of a point, inside the grid.
    public func cell(at p: Point) -> (column: Int, row: Int) {
        (min(max(0, columns - 1), xs.cell(p.x)), min(max(0, rows - 1), ys.cell(p.y)))
    }

    static let free: Int32 = -1

    static func place(_ boxes: [Box], xs: AxisMap, ys: AxisMap, columns: Int, rows: Int) -> [Placed] {
        let none = Placed(cells: CellRect(column: 0, row: 0, width: 0, height: 0), form: .hidden, text: "", textRow: 0, textColumn: 0)
        var placed = [Placed](repeating: none, count: boxes.count)
        guard columns > 0, rows > 0 else { return placed }
        // One box for one frame: the first keeps it, with the first label found.
        var labels = boxes.map { clean($0.label) }
        var first: [Rect: Int] = [:]
        var order: [Int] = []
        for (i, b) in boxes.enumerated() {
            if let k = first[b.frame] {
                if labels[k].isEmpty { labels[k] = labels[i] }
            } else {
                first[b.frame] = i
                order.append(i)
            }
        }
        // The smallest first: what is scanned is mostly leaves, and a container's border
        // is drawn only where its contents leave room for it.
        order.sort { a, b in
            let fa = boxes[a].frame, fb = boxes[b].frame
            let sa = fa.width * fa.height, sb = fb.width * fb.height
            return sa != sb ? sa < sb : a < b
        }
        // Each cell: free, or the box that drew it (a border, a label) or keeps it for its label.
        var owner = [Int32](repeating: free, count: columns * rows)
        func claim(_ r: CellRect, _ i: Int, ringOnly: Bool = false) {
            for row in r.row..<(r.row + r.height) {
                for c in r.column..<(r.column + r.width) {
                    if ringOnly, row > r.row, row < r.row + r.height - 1, c > r.column, c < r.column + r.width - 1 { continue }
                    owner[row * columns + c] = Int32(i)
                }
            }
        }
        func ringIsFree(_ r: CellRect) -> Bool {
            guard r.width >= 3, r.height >= 2 else { return false }
            for row in r.row..<(r.row + r.height) {
                let inside = row > r.row && row < r.row + r.height - 1
                for c in r.column..<(r.column + r.width) where !inside || c == r.column || c == r.column + r.width - 1 {
                    if owner[row * columns + c] != free { return false }
                }
            }
            return true
        }
        var seen = [Int](repeating: -1, count: boxes.count)
        for i in order {
            let f = boxes[i].frame
            let c0 = xs.cell(f.minX), r0 = ys.cell(f.minY)
            let want = CellRect(column: c0, row: r0, width: xs.cell(f.maxX) - c0, height: ys.cell(f.maxY) - r0)
            guard !want.isEmpty else { continue }
            var inside: [Int32] = []
            for row in want.row..<(want.row + want.height) {
                for c in want.column..<(want.column + want.width) {
                    let o = owner[row * columns + c]
                    if o != free && seen[Int(o)] != i { seen[Int(o)] = i; inside.append(o) }
                }
            }
            if inside.contains(where: { want.contains(placed[Int($0)].cells) }) {
                // A container: a border around what it holds, on its own edge or one cell
                // outside it, or nothing.
                let grown = CellRect(column: max(0, want.column - 1), row: max(0, want.row - 1),
                                     width: min(columns, want.column + want.width + 1) - max(0, want.column - 1),
                                     height: min(rows, want.row + want.height + 1) - max(0, want.row - 1))
                guard let r = [want, grown].first(where: ringIsFree) else { continue }
                claim(r, i, ringOnly: true)
                let text = fit(labels[i], r.width - 2)
                placed[i] = Placed(cells: r, form: .bordered, text: text, textRow: r.row, textColumn: r.column + 1)
                continue
            }
            // A leaf: its cells, or where it overlaps others the largest part left free.
            let r = inside.isEmpty ? want : largestRectangle(in: want, where: free, owner, columns)
            guard !r.isEmpty else { continue }
            claim(r, i)
            let label = labels[i]
            if r.width >= 3 && r.height >= 2 || label.isEmpty && r.width >= 2 && r.height >= 2 {
                let text = fit(label, r.width - 2)
                let row = r.height >= 3 ? r.row + (r.height - 1) / 2 : r.row
                placed[i] = Placed(cells: r, form: .bordered, text: text, textRow: row,
                                   textColumn: r.column + 1 + (r.width - 2 - text.count) / 2)
            } else {
                let text = fit(label.isEmpty ? "·" : label, r.width)
                placed[i] = Placed(cells: r, form: .compact, text: text, textRow: r.row + (r.height - 1) / 2,
                                   textColumn: r.column + (r.width - text.count) / 2)
            }
        }
        return placed
    }

    /// One line, no control codes, runs of white space as one space.
    static func clean(_ label: String) -> String {
        var out = ""
        var space = false
        for ch in label {
            if ch.isWhitespace { space = !out.isEmpty; continue }
            if space { out.append(" "); space = false }
            out.append(TerminalText.visible(ch))
        }
        return out
    }

    /// At most `width` characters, the last one `…` when some are left out.
    static func fit(_ text: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        if text.count <= width { return text }
        return width == 1 ? String(text.prefix(1)) : String(text.prefix(width - 1)) + "…"
    }

    /// The largest rectangle inside `r` whose cells are all `host` (rows as histograms).
    static func largestRectangle(in r: CellRect, where host: Int32, _ owner: [Int32], _ columns: Int) -> CellRect {
        var heights = [Int](repeating: 0, count: r.width)
        var best = CellRect(column: r.column, row: r.row, width: 0, height: 0)
        var stack: [Int] = []
        for row in r.row..<(r.row + r.height) {
            for k in 0..<r.width {
                heights[k] = owner[row * columns + r.column + k] == host ? heights[k] + 1 : 0
            }
            stack.removeAll(keepingCapacity: true)
            for k in 0...r.width {
                let h = k < r.width ? heights[k] : 0
                while let top = stack.last, heights[top] >= h {
                    stack.removeLast()
                    let left = stack.last.map { $0 + 1 } ?? 0
                    let height = heights[top], width = k - left
                    if height * width > best.width * best.height {
                        best = CellRect(column: r.column + left, row: row - height + 1, width: width, height: height)
                    }
                }
                stack.append(k)
            }
        }
        return best
    }
}

/// One axis from screen points to cell boundaries (0...count), monotone. Between two
/// neighbouring edges (a gap):
/// - where the cells allow, every box keeps at least one gap of its own, so it gets a cell;
///   other gaps keep a cell only while there are cells left (largest first) and when they
///   are at least half a cell wide: neighbours closer than that may touch;
/// - a kept gap no box covers (an empty margin or band) gets one cell; the covered ones
///   share the rest in proportion, one cell at least, stretched four times their share at
///   most; cells still left go back to the empty gaps.
struct AxisMap: Sendable {
    /// Sorted, distinct edges, the area's two ends included, and the boundary of each.
    let edges: [Double]
    let cells: [Int]
    let count: Int

    init(spans: [(lo: Double, hi: Double)], lo: Double, hi: Double, count: Int) {
        self.count = count
        let clip = { (v: Double) in v.isFinite ? min(hi, max(lo, v)) : lo }
        var e = Array(Set(spans.flatMap { [clip($0.lo), clip($0.hi)] } + [lo, hi])).sorted()
        if e.count == 1 { e.append(lo + 1) }
        edges = e
        let gaps = e.count - 1
        let length = (0..<gaps).map { e[$0 + 1] - e[$0] }
        // Which gaps some box covers: +1 where a span starts, -1 where it ends.
        var depth = [Int](repeating: 0, count: e.count)
        for s in spans where clip(s.hi) > clip(s.lo) {
            depth[Self.index(of: clip(s.lo), in: e)] += 1
            depth[Self.index(of: clip(s.hi), in: e)] -= 1
        }
        var covered = [Bool](repeating: false, count: gaps)
        var d = 0
        for g in 0..<gaps { d += depth[g]; covered[g] = d > 0 }
        if !covered.contains(true) { covered = [Bool](repeating: true, count: gaps) }
        // Which gaps keep a cell. First, one inside every box, so that each gets a cell where
        // the grid allows (the fewest: each box sorted by its end is met by the last gap
        // before it, unless one already chosen lies in it). Then the others, largest first,
        // while cells are left, but not those smaller than half a cell: neighbours closer
        // than that may touch.
        var chosen = [Bool](repeating: false, count: gaps)
        var last = -1
        let ends = spans.map { (Self.index(of: clip($0.lo), in: e), Self.index(of: clip($0.hi), in: e)) }
            .filter { $0.0 < $0.1 }.sorted { $0.1 < $1.1 }
        for (a, b) in ends where last < a {
            last = b - 1
            chosen[last] = true
        }
        let unit = Double(count) / (hi - lo)
        let bySize = (0..<gaps).sorted { a, b in
            chosen[a] != chosen[b] ? chosen[a] : length[a] != length[b] ? length[a] > length[b] : a < b
        }
        var keep = [Bool](repeating: false, count: gaps)
        for g in bySize.prefix(count) where chosen[g] || length[g] * unit >= 0.5 { keep[g] = true }
        // Cells for each kept gap: one for an uncovered one; the covered share the rest in
        // proportion, none less than one (those are set first), by largest remainders.
        var size = [Int](repeating: 0, count: gaps)
        var share: [Int] = []
        for g in 0..<gaps where keep[g] {
            if covered[g] { share.append(g) } else { size[g] = 1 }
        }
        var left = count - (0..<gaps).filter { keep[$0] && !covered[$0] }.count
        var open = share
        while true {
            let total = open.reduce(0.0) { $0 + length[$1] }
            // Stretched four times at most: what is left goes to the empty stretches.
            let scale = total > 0 ? min(Double(left) / total, 4 * unit) : 0
            let small = open.filter { length[$0] * scale < 1 }
            if small.isEmpty || small.count == open.count {
                var ideal = open.map { length[$0] * scale }
                let wanted = min(left, Int(ideal.reduce(0, +).rounded()))
                for (k, g) in open.enumerated() { size[g] = max(1, Int(ideal[k].rounded(.down))); ideal[k] -= Double(size[g]) }
                let extra = wanted - open.reduce(0) { $0 + size[$1] }
                for k in open.indices.sorted(by: { ideal[$0] != ideal[$1] ? ideal[$0] > ideal[$1] : $0 < $1 }).prefix(max(0, extra)) {
                    size[open[k]] += 1
                }
                left -= open.reduce(0) { $0 + size[$1] }
                let empty = (0..<gaps).filter { keep[$0] && !covered[$0] }
                let emptyLength = empty.reduce(0.0) { $0 + length[$1] }
                if left > 0, emptyLength > 0 {
                    var given = 0
                    for g in empty {
                        let more = g == empty.last ? left - given : Int((Double(left) * length[g] / emptyLength).rounded(.down))
                        size[g] += more
                        given += more
                    }
                }
                break
            }
            for g in small { size[g] = 1 }
            left -= small.count
            open.removeAll { length[$0] * scale < 1 }
        }
        var boundary = [Int](repeating: 0, count: e.count)
        for g in 0..<gaps { boundary[g + 1] = min(count, boundary[g] + (keep[g] ? size[g] : 0)) }
        cells = boundary
    }

    static func index(of v: Double, in e: [Double]) -> Int {
        var lo = 0, hi = e.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if e[mid] < v { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The boundary of an edge; between edges, in proportion.
    func cell(_ v: Double) -> Int {
        guard v.isFinite else { return 0 }
        if v <= edges[0] { return cells[0] }
        if v >= edges[edges.count - 1] { return cells[cells.count - 1] }
        var lo = 0, hi = edges.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if edges[mid] <= v { lo = mid } else { hi = mid }
        }
        if edges[lo] == v { return cells[lo] }
        let t = (v - edges[lo]) / (edges[hi] - edges[lo])
        return cells[lo] + Int((t * Double(cells[hi] - cells[lo])).rounded())
    }
}

/// Why a font file cannot be used, as a sentence.
public struct FontError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// A TrueType font (the `glyf` outlines most Linux desktops ship, such as DejaVu), read
/// from its bytes: which glyph draws a character, how far it advances, and its outline.
/// Pure and checked: a damaged file is an error, never a read out of bounds. Painters that
/// cannot ask a server for text (the Wayland overlay) draw their labels with it.
public struct TrueTypeFont: Sendable {
    public let unitsPerEm: Int
    /// Above and below the baseline, in font units (`hhea`; the descender is negative).
    public let ascender: Int, descender: Int
    private let data: [UInt8]
    private let glyf: Range<Int>
    private let offsets: [Int]
    private let advances: [Int]
    private let map: CharacterMap

    /// A point of an outline in font units (y up); off-curve points are quadratic controls.
    public struct Point: Equatable, Sendable {
        public var x: Double, y: Double, onCurve: Bool
    }

    public init(_ data: [UInt8]) throws(FontError) {
        self.data = data
        let r = Reader(data)
        guard data.count >= 12 else { throw FontError("it is not a TrueType font (too short)") }
        let version = try r.u32(0)
        guard version == 0x0001_0000 || version == 0x7472_7565 else {
            throw FontError(version == 0x4F54_544F ? "it holds PostScript outlines (OpenType CFF), which are not read" : "it is not a TrueType font")
        }
        var tables: [String: Range<Int>] = [:]
        for i in 0..<Int(try r.u16(4)) {
            let at = 12 + i * 16
            let tag = String(decoding: try r.bytes(at, 4), as: UTF8.self)
            let offset = Int(try r.u32(at + 8)), length = Int(try r.u32(at + 12))
            guard offset <= data.count, length <= data.count - offset else { throw FontError("its table '\(tag)' lies outside the file") }
            tables[tag] = offset..<offset + length
        }
        func table(_ tag: String) throws(FontError) -> Int {
            guard let t = tables[tag] else { throw FontError("it has no '\(tag)' table") }
            return t.lowerBound
        }
        let head = try table("head"), hhea = try table("hhea"), maxp = try table("maxp")
        let loca = try table("loca"), hmtx = try table("hmtx"), cmap = try table("cmap")
        guard let glyf = tables["glyf"] else { throw FontError("it has no 'glyf' table (no TrueType outlines)") }
        self.glyf = glyf
        unitsPerEm = Int(try r.u16(head + 18))
        guard unitsPerEm >= 16 else { throw FontError("its units per em (\(unitsPerEm)) are not a font's") }
        let longOffsets = try r.i16(head + 50) == 1
        ascender = Int(try r.i16(hhea + 4))
        descender = Int(try r.i16(hhea + 6))
        let metrics = Int(try r.u16(hhea + 34))
        let glyphs = Int(try r.u16(maxp + 4))
        guard metrics >= 1, metrics <= glyphs else { throw FontError("its horizontal metrics do not match its glyphs") }
        offsets = try (0...glyphs).map { i throws(FontError) in
            let o = longOffsets ? Int(try r.u32(loca + 4 * i)) : 2 * Int(try r.u16(loca + 2 * i))
            guard o <= glyf.count else { throw FontError("glyph \(i) lies outside its outlines") }
            return o
        }
        let last = Int(try r.u16(hmtx + 4 * (metrics - 1)))
        advances = try (0..<glyphs).map { i throws(FontError) in i < metrics ? Int(try r.u16(hmtx + 4 * i)) : last }
        map = try CharacterMap(r, at: cmap)
    }

    public var glyphCount: Int { advances.count }

    /// The glyph for a character (0, the font's "missing" box, when it has none).
    public func glyph(for scalar: Unicode.Scalar) -> Int {
        let g = map.glyph(Int(scalar.value))
        return g < glyphCount ? g : 0
    }

    public func advance(_ glyph: Int) -> Int { advances.indices.contains(glyph) ? advances[glyph] : 0 }

    /// The glyph's contours (composite glyphs put together); empty for a space.
    public func contours(_ glyph: Int) throws(FontError) -> [[Point]] {
        var budget = Budget()
        return try contours(glyph, depth: 0, budget: &budget)
    }

    /// What one glyph may take, parts included: a real one has a few hundred points in a few
    /// parts; a damaged one must not cost seconds to draw.
    struct Budget {
        var parts = 0, points = 0
        static let maxParts = 64, maxPoints = 4096
    }

    private func contours(_ glyph: Int, depth: Int, budget: inout Budget) throws(FontError) -> [[Point]] {
        guard glyph >= 0, glyph < glyphCount else { throw FontError("there is no glyph \(glyph)") }
        guard depth < 8 else { throw FontError("glyph \(glyph) is made of itself") }
        budget.parts += 1
        guard budget.parts <= Budget.maxParts else { throw FontError("a glyph is made of too many parts") }
        let start = glyf.lowerBound + offsets[glyph], end = glyf.lowerBound + offsets[glyph + 1]
        guard end > start else { return [] }
        guard end - start >= 10 else { throw FontError("glyph \(glyph) is cut short") }
        let r = Reader(Array(data[start..<end]))
        let count = Int(try r.i16(0))
        return count >= 0 ? try simple(r, contours: count, budget: &budget) : try composite(r, depth: depth, budget: &budget)
    }

    private func simple(_ r: Reader, contours count: Int, budget: inout Budget) throws(FontError) -> [[Point]] {
        var ends: [Int] = []
        for i in 0..<count { ends.append(Int(try r.u16(10 + 2 * i))) }
        let points = (ends.last ?? -1) + 1
        budget.points += points
        guard budget.points <= Budget.maxPoints else { throw FontError("a glyph has too many points") }
        var at = 10 + 2 * count
        at += 2 + Int(try r.u16(at))  // the instructions, not run
        var flags: [UInt8] = []
        flags.reserveCapacity(points)
        while flags.count < points {
            let f = try r.u8(at)
            at += 1
            flags.append(f)
            if f & 8 != 0 {
                let repeats = Int(try r.u8(at))
                at += 1
                for _ in 0..<repeats { flags.append(f) }
            }
        }
        func coordinates(short: UInt8, same: UInt8) throws(FontError) -> [Double] {
            var v = 0, out: [Double] = []
            out.reserveCapacity(points)
            for f in flags.prefix(points) {
                if f & short != 0 {
                    let d = Int(try r.u8(at))
                    at += 1
                    v += f & same != 0 ? d : -d
                } else if f & same == 0 {
                    v += Int(try r.i16(at))
                    at += 2
                }
                out.append(Double(v))
            }
            return out
        }
        let xs = try coordinates(short: 2, same: 16), ys = try coordinates(short: 4, same: 32)
        var out: [[Point]] = []
        var first = 0
        for end in ends {
            guard end >= first, end < points else { throw FontError("a glyph's contours are out of order") }
            out.append((first...end).map { Point(x: xs[$0], y: ys[$0], onCurve: flags[$0] & 1 != 0) })
            first = end + 1
        }
        return out
    }

    private func composite(_ r: Reader, depth: Int, budget: inout Budget) throws(FontError) -> [[Point]] {
        var out: [[Point]] = []
        var at = 10
        while true {
            let flags = try r.u16(at), child = Int(try r.u16(at + 2))
            at += 4
            let dx, dy: Double
            if flags & 1 != 0 {
                dx = Double(try r.i16(at)); dy = Double(try r.i16(at + 2)); at += 4
            } else {
                dx = Double(Int8(bitPattern: try r.u8(at))); dy = Double(Int8(bitPattern: try r.u8(at + 1))); at += 2
            }
            func f2dot14(_ o: Int) throws(FontError) -> Double { Double(try r.i16(o)) / 16384 }
            var a = 1.0, b = 0.0, c = 0.0, d = 1.0
            if flags & 8 != 0 {
                a = try f2dot14(at); d = a; at += 2
            } else if flags & 0x40 != 0 {
                a = try f2dot14(at); d = try f2dot14(at + 2); at += 4
            } else if flags & 0x80 != 0 {
                a = try f2dot14(at); b = try f2dot14(at + 2); c = try f2dot14(at + 4); d = try f2dot14(at + 6); at += 8
            }
            // Point-matched placement (ARGS_ARE_XY_VALUES clear) is rare in desktop fonts: unmoved.
            let (ox, oy) = flags & 2 != 0 ? (dx, dy) : (0, 0)
            for contour in try contours(child, depth: depth + 1, budget: &budget) {
                out.append(contour.map { Point(x: a * $0.x + c * $0.y + ox, y: b * $0.x + d * $0.y + oy, onCurve: $0.onCurve) })
            }
            guard flags & 0x20 != 0 else { return out }
        }
    }

    /// Big-endian reads that fail, not trap, past the end.
    struct Reader {
        let b: [UInt8]
        init(_ b: [UInt8]) { self.b = b }
        func check(_ at: Int, _ n: Int) throws(FontError) {
            guard at >= 0, n <= b.count, at <= b.count - n else { throw FontError("it ends before its data does (at byte \(at))") }
        }
        func u8(_ at: Int) throws(FontError) -> UInt8 { try check(at, 1); return b[at] }
        func u16(_ at: Int) throws(FontError) -> UInt16 { try check(at, 2); return UInt16(b[at]) << 8 | UInt16(b[at + 1]) }
        func i16(_ at: Int) throws(FontError) -> Int16 { Int16(bitPattern: try u16(at)) }
        func u32(_ at: Int) throws(FontError) -> UInt32 { UInt32(try u16(at)) << 16 | UInt32(try u16(at + 2)) }
        func bytes(_ at: Int, _ n: Int) throws(FontError) -> ArraySlice<UInt8> { try check(at, n); return b[at..<at + n] }
    }

    /// Characters to glyphs: `cmap`'s Unicode subtable, format 12 (all of Unicode) or 4 (the
    /// Basic Multilingual Plane), read into ranges once.
    struct CharacterMap: Sendable {
        /// first…last character → glyph: `delta` added (format 4's and 12's runs), or looked up.
        struct Run: Sendable {
            var first: Int, last: Int, delta: Int
            /// Format 4's deltas wrap at 16 bits.
            var wraps = false
            var lookup: [Int]?
        }
        var runs: [Run] = []

        init(_ r: Reader, at cmap: Int) throws(FontError) {
            var best: (rank: Int, offset: Int)?
            for i in 0..<Int(try r.u16(cmap + 2)) {
                let platform = try r.u16(cmap + 4 + 8 * i), encoding = try r.u16(cmap + 6 + 8 * i)
                // Only the Unicode tables are looked into: another may be anything.
                guard platform == 0 || platform == 3 && (encoding == 1 || encoding == 10) else { continue }
                let offset = cmap + Int(try r.u32(cmap + 8 + 8 * i))
                guard let format = try? r.u16(offset) else { continue }
                let rank = switch (platform, encoding, format) {
                case (3, 10, 12), (0, 4, 12), (0, 6, 12): 3
                case (3, 1, 4), (0, 3, 4): 2
                case (0, _, 4): 1
                default: 0
                }
                if rank > 0, rank > (best?.rank ?? 0) { best = (rank, offset) }
            }
            guard let table = best?.offset else { throw FontError("it maps no Unicode characters") }
            if try r.u16(table) == 12 {
                for g in 0..<Int(try r.u32(table + 12)) {
                    let at = table + 16 + 12 * g
                    let first = Int(try r.u32(at)), last = Int(try r.u32(at + 4)), glyph = Int(try r.u32(at + 8))
                    guard first <= last else { continue }
                    runs.append(Run(first: first, last: last, delta: glyph - first))
                }
            } else {
                let segments = Int(try r.u16(table + 6)) / 2
                // Looked-up characters, at most the 65536 a format-4 table can map.
                var looked = 0
                let ends = table + 14, starts = ends + 2 * segments + 2
                let deltas = starts + 2 * segments, rangeOffsets = deltas + 2 * segments
                for s in 0..<segments {
                    let last = Int(try r.u16(ends + 2 * s)), first = Int(try r.u16(starts + 2 * s))
                    let delta = Int(try r.i16(deltas + 2 * s))
                    let rangeOffset = Int(try r.u16(rangeOffsets + 2 * s))
                    guard first <= last, first != 0xFFFF else { continue }
                    if rangeOffset == 0 {
                        runs.append(Run(first: first, last: last, delta: delta, wraps: true))
                    } else {
                        // glyphIdArray, addressed from this idRangeOffset itself.
                        let base = rangeOffsets + 2 * s + rangeOffset
                        looked += last - first + 1
                        guard looked <= 0x10000 else { throw FontError("its character map's ranges overlap") }
                        let lookup = try (first...last).map { c throws(FontError) -> Int in
                            let g = Int(try r.u16(base + 2 * (c - first)))
                            return g == 0 ? 0 : (g + delta) & 0xFFFF
                        }
                        runs.append(Run(first: first, last: last, delta: 0, lookup: lookup))
                    }
                }
            }
            runs.sort { $0.first < $1.first }
        }

        func glyph(_ c: Int) -> Int {
            var lo = 0, hi = runs.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if runs[mid].last < c { lo = mid + 1 } else { hi = mid }
            }
            guard lo < runs.count, runs[lo].first <= c else { return 0 }
            let run = runs[lo]
            if let lookup = run.lookup { return lookup[c - run.first] }
            let g = c + run.delta
            return run.wraps ? g & 0xFFFF : max(0, g)
        }
    }
}

/// A glyph at a pixel size: its coverage (0 clear … 255 covered), in a box whose corner is
/// `left`, `top` from the pen on the baseline (y down).
public struct GlyphImage: Equatable, Sendable {
    public var left: Int, top: Int, width: Int, height: Int
    public var alpha: [UInt8]

    static let empty = GlyphImage(left: 0, top: 0, width: 0, height: 0, alpha: [])
}

/// Text in a TrueType font at one pixel size, as anti-aliased coverage: glyphs drawn once
/// and kept, laid out by their advances (no kerning, no shaping: labels, not prose). Owned
/// by one queue (its cache is not shared).
public final class TextPainter {
    public let font: TrueTypeFont
    public let pixelSize: Double
    private let scale: Double
    private var cache: [Int: GlyphImage] = [:]

    public init(font: TrueTypeFont, pixelSize: Double) {
        self.font = font
        self.pixelSize = pixelSize
        scale = pixelSize / Double(font.unitsPerEm)
    }

    /// The same font at another size.
    public func sized(_ pixelSize: Double) -> TextPainter { TextPainter(font: font, pixelSize: pixelSize) }

    /// Above and below the baseline, in pixels.
    public var ascent: Int { Int((Double(font.ascender) * scale).rounded(.up)) }
    public var descent: Int { Int((Double(-font.descender) * scale).rounded(.up)) }
    public var lineHeight: Int { ascent + descent }

    /// The text's glyphs and where each one's pen goes, from 0.
    public func layout(_ text: String) -> [(glyph: GlyphImage, x: Int)] {
        var pen = 0.0
        var out: [(GlyphImage, Int)] = []
        for scalar in text.unicodeScalars {
            let g = font.glyph(for: scalar)
            out.append((image(g), Int(pen.rounded())))
            pen += Double(font.advance(g)) * scale
        }
        return out
    }

    public func width(_ text: String) -> Int {
        Int((text.unicodeScalars.reduce(0.0) { $0 + Double(font.advance(font.glyph(for: $1))) * scale }).rounded(.up))
    }

    /// The glyph drawn (once; a glyph that cannot be read is drawn as nothing).
    public func image(_ glyph: Int) -> GlyphImage {
        if let known = cache[glyph] { return known }
        let made = (try? font.contours(glyph)).map { Self.raster($0, scale: scale) } ?? .empty
        cache[glyph] = made
        return made
    }

    /// The contours filled (non-zero winding), each pixel's coverage from the signed area the
    /// outline's edges leave in it, accumulated along its row.
    static func raster(_ contours: [[TrueTypeFont.Point]], scale: Double) -> GlyphImage {
        let all = contours.joined()
        guard let minX = all.map(\.x).min(), let maxX = all.map(\.x).max(),
              let minY = all.map(\.y).min(), let maxY = all.map(\.y).max() else { return .empty }
        let left = Int((minX * scale).rounded(.down)), right = Int((maxX * scale).rounded(.up))
        let top = Int((maxY * scale).rounded(.up)), bottom = Int((minY * scale).rounded(.down))
        let width = right - left + 1, height = top - bottom + 1
        guard width > 0, height > 0, width <= 1024, height <= 1024 else { return .empty }
        var area = Area(width: width, height: height)
        for contour in contours {
            let points = contour.map { (x: $0.x * scale - Double(left), y: Double(top) - $0.y * scale, on: $0.onCurve) }
            area.contour(points)
        }
        return GlyphImage(left: left, top: -top, width: width, height: height, alpha: area.coverage())
    }

    /// Signed area per pixel (two columns spare on the right for edges on the last one).
    struct Area {
        let width: Int, height: Int, stride: Int
        var cells: [Double]

        init(width: Int, height: Int) {
            self.width = width
            self.height = height
            stride = width + 2
            cells = Array(repeating: 0, count: stride * height)
        }

        /// A closed TrueType contour: on-curve points joined by lines, off-curve points the
        /// controls of quadratic curves (two in a row imply an on-curve point between them).
        mutating func contour(_ p: [(x: Double, y: Double, on: Bool)]) {
            guard p.count >= 2 else { return }
            // From a point on the curve; with none, from between the last control and the first.
            var points = p
            if let i = p.firstIndex(where: \.on) {
                points = Array(p[i...] + p[..<i])
            } else {
                points.insert((x: (p[p.count - 1].x + p[0].x) / 2, y: (p[p.count - 1].y + p[0].y) / 2, on: true), at: 0)
            }
            let start = (x: points[0].x, y: points[0].y)
            var current = start
            var control: (x: Double, y: Double)?
            for q in points.dropFirst() {
                let point = (x: q.x, y: q.y)
                if q.on {
                    if let c = control { curve(current, c, point) } else { line(current, point) }
                    current = point
                    control = nil
                } else if let c = control {
                    let mid = (x: (c.x + q.x) / 2, y: (c.y + q.y) / 2)
                    curve(current, c, mid)
                    current = mid
                    control = point
                } else {
                    control = point
                }
            }
            if let c = control { curve(current, c, start) } else { line(current, start) }
        }

        mutating func curve(_ a: (x: Double, y: Double), _ c: (x: Double, y: Double), _ b: (x: Double, y: Double)) {
            // Enough straight pieces that none strays a tenth of a pixel from the curve.
            let dx = a.x - 2 * c.x + b.x, dy = a.y - 2 * c.y + b.y
            let n = max(1, min(32, Int(((dx * dx + dy * dy).squareRoot() * 2.5).squareRoot().rounded(.up))))
            var from = a
            for i in 1...n {
                let t = Double(i) / Double(n), u = 1 - t
                let to = (x: u * u * a.x + 2 * u * t * c.x + t * t * b.x, y: u * u * a.y + 2 * u * t * c.y + t * t * b.y)
                line(from, to)
                from = to
            }
        }

        mutating func line(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) {
            guard a.y != b.y else { return }
            let dir = a.y < b.y ? 1.0 : -1.0
            let (p0, p1) = a.y < b.y ? (a, b) : (b, a)
            let dxdy = (p1.x - p0.x) / (p1.y - p0.y)
            let w = Double(width)
            func clampX(_ x: Double) -> Double { min(max(x, 0), w) }
            var x = p0.x
            var y = max(0, Int(p0.y.rounded(.down)))
            // A point above the box starts the edge at its top.
            if p0.y < 0 { x -= p0.y * dxdy }
            while y < height, Double(y) < p1.y {
                let row = y * stride
                let dy = min(Double(y + 1), p1.y) - max(Double(y), p0.y)
                let xNext = x + dxdy * dy
                let d = dy * dir
                let (x0, x1) = (clampX(min(x, xNext)), clampX(max(x, xNext)))
                let x0Floor = x0.rounded(.down), x1Ceil = x1.rounded(.up)
                let i0 = Int(x0Floor), i1 = Int(x1Ceil)
                if i1 <= i0 + 1 {
                    let mid = (x0 + x1) / 2 - x0Floor
                    cells[row + i0] += d - d * mid
                    cells[row + i0 + 1] += d * mid
                } else {
                    let s = 1 / (x1 - x0)
                    let f0 = x0 - x0Floor
                    let a0 = 0.5 * s * (1 - f0) * (1 - f0)
                    let f1 = x1 - x1Ceil + 1
                    let am = 0.5 * s * f1 * f1
                    cells[row + i0] += d * a0
                    if i1 == i0 + 2 {
                        cells[row + i0 + 1] += d * (1 - a0 - am)
                    } else {
                        let a1 = s * (1.5 - f0)
                        cells[row + i0 + 1] += d * (a1 - a0)
                        if i0 + 2 < i1 - 1 { for i in i0 + 2..<i1 - 1 { cells[row + i] += d * s } }
                        let a2 = a1 + Double(i1 - i0 - 3) * s
                        cells[row + i1 - 1] += d * (1 - a2 - am)
                    }
                    cells[row + i1] += d * am
                }
                x = xNext
                y += 1
            }
        }

        /// The running sum along each row, as coverage.
        func coverage() -> [UInt8] {
            var out = [UInt8](repeating: 0, count: width * height)
            for y in 0..<height {
                var sum = 0.0
                for x in 0..<width {
                    sum += cells[y * stride + x]
                    out[y * width + x] = UInt8(min(1, abs(sum)) * 255 + 0.5)
                }
            }
            return out
        }
    }
}

import Foundation
@testable import ScreenScene
import Testing

/// The TrueType reader and the glyph raster: DejaVu (fonts-dejavu-core, as desktops have it)
/// read and drawn, outlines with known areas drawn to the pixel, damaged files refused.
@Suite struct TextPainterTests {
    static let dejaVuBold = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"

    static func dejaVu() throws -> TrueTypeFont {
        let data = try #require(FileManager.default.contents(atPath: dejaVuBold), "\(dejaVuBold) is missing: install fonts-dejavu-core")
        return try TrueTypeFont(Array(data))
    }

    /// Characters map to their glyphs, a composite one (é: e and an accent) is put
    /// together, advances lay text out from left to right.
    @Test func dejaVuIsRead() throws {
        let font = try Self.dejaVu()
        #expect(font.unitsPerEm == 2048 && font.ascender > 0 && font.descender < 0)
        let glyphs = "Aé€g".unicodeScalars.map(font.glyph)
        #expect(glyphs.allSatisfy { $0 > 0 } && Set(glyphs).count == 4)
        #expect(font.glyph(for: "\u{E123}") == 0)  // a private-use character: the missing box
        #expect(try font.contours(font.glyph(for: "é")).count >= 2)
        #expect(try font.contours(font.glyph(for: " ")).isEmpty && font.advance(font.glyph(for: " ")) > 0)
        let painter = TextPainter(font: font, pixelSize: 18)
        let laid = painter.layout("Hi!")
        #expect(laid.map(\.x) == laid.map(\.x).sorted() && laid[0].x == 0 && laid[2].x > laid[1].x)
        #expect(painter.width("Hi!") > laid[2].x && painter.width("Hi! Hi!") > 2 * painter.width("Hi!"))
        // An "H" at 18 pixels: its two stems fully covered, nothing covered between them at the top.
        let h = painter.image(font.glyph(for: "H"))
        #expect(h.height >= 13 && h.height <= 15 && -h.top >= 13)
        let middle = h.height / 2
        #expect(h.alpha[middle * h.width + 2] == 255 && h.alpha[middle * h.width + h.width / 2] == 255)
        #expect(h.alpha[2 * h.width + h.width / 2] == 0)
    }

    /// A square from 0.5 to 2.5 (font units at scale 1) covers a quarter of its corner
    /// pixels, half of its edge pixels and the whole of its middle one.
    @Test func coverageIsTheAreaInsideEachPixel() {
        let square = [[TrueTypeFont.Point(x: 0.5, y: 0.5, onCurve: true), TrueTypeFont.Point(x: 2.5, y: 0.5, onCurve: true),
                       TrueTypeFont.Point(x: 2.5, y: 2.5, onCurve: true), TrueTypeFont.Point(x: 0.5, y: 2.5, onCurve: true)]]
        let g = TextPainter.raster(square, scale: 1)
        #expect(g.width == 4 && g.height == 4 && g.left == 0 && g.top == -3)
        #expect(g.alpha == [64, 128, 64, 0,
                            128, 255, 128, 0,
                            64, 128, 64, 0,
                            0, 0, 0, 0])
        // A triangle of area 50: its coverage adds up to it.
        let triangle = [[TrueTypeFont.Point(x: 0, y: 0, onCurve: true), TrueTypeFont.Point(x: 10, y: 0, onCurve: true),
                         TrueTypeFont.Point(x: 0, y: 10, onCurve: true)]]
        let t = TextPainter.raster(triangle, scale: 1)
        let area = Double(t.alpha.reduce(0) { $0 + Int($1) }) / 255
        #expect(abs(area - 50) < 0.5, "\(area)")
        // A circle of quadratic curves (controls off the curve, two in a row implying a point
        // between them): about πr².
        let r = 20.0, k = r * (2.squareRoot() - 1)
        let circle = [[(r, 0.0), (r, k), (k, r), (-k, r), (-r, k), (-r, -k), (-k, -r), (k, -r), (r, -k)]
            .enumerated().map { TrueTypeFont.Point(x: $1.0 + 30, y: $1.1 + 30, onCurve: $0 == 0) }]
        let c = TextPainter.raster(circle, scale: 1)
        let disc = Double(c.alpha.reduce(0) { $0 + Int($1) }) / 255
        #expect(abs(disc - Double.pi * r * r) / (Double.pi * r * r) < 0.03, "\(disc)")
    }

    /// A contour inside another, the other way round, is a hole (the letter O).
    @Test func anInnerContourTheOtherWayIsAHole() {
        func square(_ a: Double, _ b: Double, reversed: Bool) -> [TrueTypeFont.Point] {
            let p = [(a, a), (b, a), (b, b), (a, b)].map { TrueTypeFont.Point(x: $0.0, y: $0.1, onCurve: true) }
            return reversed ? p.reversed() : p
        }
        let o = TextPainter.raster([square(0, 10, reversed: false), square(3, 7, reversed: true)], scale: 1)
        #expect(o.alpha[5 * o.width + 5] == 0 && o.alpha[5 * o.width + 1] == 255 && o.alpha[1 * o.width + 5] == 255)
    }

    /// A damaged font file is an error (which names the problem), never a crash or a hang:
    /// cut short anywhere, or with bytes changed, it is refused or its glyphs are drawn as
    /// whatever they say.
    @Test func aDamagedFontIsRefusedNotACrash() throws {
        let data = try #require(FileManager.default.contents(atPath: Self.dejaVuBold))
        let bytes = Array(data)
        for length in [0, 11, 12, 100, 400, 1000, 5000, bytes.count / 2, bytes.count - 1000] {
            #expect(throws: FontError.self) { _ = try TrueTypeFont(Array(bytes.prefix(length))) }
        }
        #expect(throws: FontError.self) { _ = try TrueTypeFont(Array("OTTO and then nothing useful at all".utf8)) }
        var seed: UInt64 = 0x5EED
        func next() -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int(seed >> 33)
        }
        for _ in 0..<30 {
            var damaged = bytes
            for _ in 0..<64 { damaged[next() % damaged.count] = UInt8(next() & 0xff) }
            guard let font = try? TrueTypeFont(damaged) else { continue }
            let painter = TextPainter(font: font, pixelSize: 18)
            for g in 0..<min(font.glyphCount, 300) { _ = painter.image(g) }
            _ = painter.layout("Settings and more é€")
        }
    }

    /// A small TrueType font made here: `glyphs` as their `glyf` data, 'A' mapped to glyph 1,
    /// the character map's group count as given.
    static func font(glyphs: [[UInt8]], groups: UInt32 = 1) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { [UInt8((v >> 8) & 0xff), UInt8(v & 0xff)] }
        func u32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xff), UInt8((v >> 8) & 0xff), UInt8(v & 0xff)] }
        var head = [UInt8](repeating: 0, count: 54)
        head.replaceSubrange(0..<4, with: u32(0x0001_0000))
        head.replaceSubrange(18..<20, with: u16(1000))
        head.replaceSubrange(50..<52, with: u16(1))  // long offsets
        var hhea = [UInt8](repeating: 0, count: 36)
        hhea.replaceSubrange(4..<6, with: u16(800))
        hhea.replaceSubrange(6..<8, with: u16(0x10000 - 200))
        hhea.replaceSubrange(34..<36, with: u16(glyphs.count))
        let maxp = u32(0x0000_5000) + u16(glyphs.count)
        let hmtx = glyphs.flatMap { _ in u16(600) + u16(0) }
        var loca: [UInt8] = [], glyf: [UInt8] = []
        for g in glyphs {
            loca += u32(UInt32(glyf.count))
            glyf += g + (g.count % 2 == 1 ? [0] : [])
        }
        loca += u32(UInt32(glyf.count))
        let cmap = u16(0) + u16(1) + u16(3) + u16(10) + u32(12) + u16(12) + u16(0) + u32(28) + u32(0) + u32(groups) + u32(65) + u32(65) + u32(1)
        let tables: [(String, [UInt8])] = [("cmap", cmap), ("glyf", glyf), ("head", head), ("hhea", hhea), ("hmtx", hmtx), ("loca", loca), ("maxp", maxp)]
        var out = u32(0x0001_0000) + u16(tables.count) + u16(0) + u16(0) + u16(0)
        var offset = 12 + 16 * tables.count
        var body: [UInt8] = []
        for (tag, data) in tables {
            out += Array(tag.utf8) + u32(0) + u32(UInt32(offset)) + u32(UInt32(data.count))
            body += data + [UInt8](repeating: 0, count: (4 - data.count % 4) % 4)
            offset = 12 + 16 * tables.count + body.count
        }
        return out + body
    }

    static func u16(_ v: Int) -> [UInt8] { [UInt8((v >> 8) & 0xff), UInt8(v & 0xff)] }
    static let box = [UInt8](repeating: 0, count: 8)
    /// (0,0), (500,0), (0,500), on the curve, as 16-bit deltas.
    static let triangle = u16(1) + box + u16(2) + u16(0) + [1, 1, 1] + u16(0) + u16(500) + u16(0x10000 - 500) + u16(0) + u16(0) + u16(500)
    /// `points` points on the curve, each one unit up and right of the last.
    static func zigzag(_ points: Int) -> [UInt8] {
        var flags: [UInt8] = []
        var left = points
        while left > 0 {
            let n = min(left, 256)
            flags += n > 1 ? [0x3F, UInt8(n - 1)] : [0x37]
            left -= n
        }
        return u16(1) + box + u16(points - 1) + u16(0) + flags + [UInt8](repeating: 1, count: 2 * points)
    }
    /// A glyph of `count` copies of glyph `child`.
    static func composite(of child: Int, count: Int) -> [UInt8] {
        u16(0x10000 - 1) + box + (0..<count).flatMap { i in u16(i < count - 1 ? 0x22 : 0x02) + u16(child) + [0, 0] }
    }

    /// Fonts made to hurt: a glyph made of itself, one of a thousand copies of a big one, a
    /// character map that says it has four billion groups. Each is an error, at once.
    @Test func fontsMadeToHurtAreRefusedAtOnce() throws {
        let font = try TrueTypeFont(Self.font(glyphs: [[], Self.triangle, Self.composite(of: 2, count: 1), Self.composite(of: 4, count: 255), Self.zigzag(4000)]))
        #expect(font.glyph(for: "A") == 1)
        let painter = TextPainter(font: font, pixelSize: 100)
        let a = painter.image(1)
        #expect(a.alpha.contains(255) && a.width >= 50 && a.height >= 50)
        #expect(throws: FontError.self) { _ = try font.contours(2) }
        #expect(throws: FontError.self) { _ = try font.contours(3) }
        #expect(try font.contours(4).first?.count == 4000)
        #expect(painter.image(2) == GlyphImage(left: 0, top: 0, width: 0, height: 0, alpha: []))
        #expect(painter.image(3).alpha.isEmpty)
        #expect(throws: FontError.self) { _ = try TrueTypeFont(Self.font(glyphs: [[], Self.triangle], groups: 0xFFFF_FFFF)) }
    }
}

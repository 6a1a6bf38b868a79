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
}

import ScanCore
import Testing
import ScreenScene
@testable import X11Output

@Suite("Overlay geometry")
struct OverlayGeometryTests {
    let screen = PixelRect(x: 0, y: 0, width: 1280, height: 800)

    @Test("the ring lies just outside the frame, its four sides as rectangles")
    func ring() throws {
        let r = try #require(OverlayGeometry.ring(around: Rect(x: 10.5, y: 20, width: 100, height: 50), thickness: 6, screen: screen))
        #expect(r.outer == PixelRect(x: 4, y: 14, width: 113, height: 62))
        #expect(r.hole == PixelRect(x: 10, y: 20, width: 101, height: 50))
        let sides = OverlayGeometry.ringRectangles(outer: r.outer, hole: r.hole)
        #expect(sides == [PixelRect(x: 0, y: 0, width: 113, height: 6), PixelRect(x: 0, y: 56, width: 113, height: 6),
                          PixelRect(x: 0, y: 6, width: 6, height: 50), PixelRect(x: 107, y: 6, width: 6, height: 50)])
    }

    @Test("at the screen's edge the ring is pulled inside the frame; off the screen there is none")
    func edges() throws {
        let r = try #require(OverlayGeometry.ring(around: Rect(x: 0, y: 0, width: 1280, height: 800), thickness: 6, screen: screen))
        #expect(r.outer == screen)
        #expect(r.hole == PixelRect(x: 6, y: 6, width: 1268, height: 788))
        #expect(OverlayGeometry.ring(around: Rect(x: 2000, y: 0, width: 10, height: 10), thickness: 6, screen: screen) == nil)
        let point = try #require(OverlayGeometry.ring(around: Rect(x: 100, y: 100, width: 0, height: 0), thickness: 6, screen: screen))
        #expect(OverlayGeometry.ringRectangles(outer: point.outer, hole: point.hole) == [PixelRect(x: 0, y: 0, width: 12, height: 12)])
    }

    @Test("around a union: each rectangle grown by the thickness, less the rectangles; off the screen there is none")
    func union() throws {
        let u = try #require(OverlayGeometry.unionRing(around: [Rect(x: 10, y: 20, width: 100, height: 50), Rect(x: 110, y: 20.5, width: 40, height: 90)],
                                                      thickness: 6, screen: screen))
        #expect(u.cover == [PixelRect(x: 4, y: 14, width: 112, height: 62), PixelRect(x: 104, y: 14, width: 52, height: 103)])
        #expect(u.holes == [PixelRect(x: 10, y: 20, width: 100, height: 50), PixelRect(x: 110, y: 20, width: 40, height: 91)])
        #expect(u.outer == PixelRect(x: 4, y: 14, width: 152, height: 103))
        #expect(OverlayGeometry.unionRing(around: [Rect(x: 2000, y: 0, width: 10, height: 10)], thickness: 6, screen: screen) == nil)
    }

    @Test("the panel goes right of the outline, else left, else below; centred without an anchor")
    func panel() {
        let size = (width: 100, height: 80)
        #expect(OverlayGeometry.panelOrigin(size: size, beside: PixelRect(x: 100, y: 100, width: 50, height: 50), screen: screen, gap: 4) == (154, 100))
        #expect(OverlayGeometry.panelOrigin(size: size, beside: PixelRect(x: 1200, y: 100, width: 80, height: 50), screen: screen, gap: 4) == (1096, 100))
        #expect(OverlayGeometry.panelOrigin(size: size, beside: PixelRect(x: 0, y: 100, width: 1280, height: 50), screen: screen, gap: 4) == (0, 154))
        #expect(OverlayGeometry.panelOrigin(size: size, beside: PixelRect(x: 100, y: 780, width: 50, height: 50), screen: screen, gap: 4) == (154, 720))
        #expect(OverlayGeometry.panelOrigin(size: size, beside: nil, screen: screen, gap: 4) == (590, 360))
    }

    @Test("entry names become titles; groups get the complementary colour")
    func titlesAndColours() {
        #expect(["tap", "pointMode", "itemMode", "expand or contract", "zoom_in", "Open Link"].map(OverlayGeometry.title(ofEntry:))
                == ["Tap", "Point mode", "Item mode", "Expand or contract", "Zoom in", "Open Link"])
        #expect(OverlayGeometry.groupColor(for: RGBColor(red: 0xff, green: 0x8c, blue: 0x00)) == RGBColor(red: 0, green: 0x73, blue: 0xff))
        #expect(OverlayGeometry.groupColor(for: RGBColor(red: 0x80, green: 0x80, blue: 0x80)) == RGBColor(red: 0, green: 0x73, blue: 0xff))
    }
}

@Suite("Overlay labels")
struct OverlayLabelTests {
    static func text(_ codes: [UInt16]) -> String { String(decoding: codes.map { UInt8($0) }, as: UTF8.self) }

    @Test("a Latin-1 font draws the Edit page's arrows as ASCII, not as question marks")
    func latin1() {
        #expect(Self.text(overlayCodes("Word ←", twoByte: false)) == "Word <-")
        #expect(Self.text(overlayCodes("↑ ↓ →", twoByte: false)) == "^ v ->")
        #expect(overlayCodes("café", twoByte: false) == [0x63, 0x61, 0x66, 0xE9])
        #expect(Self.text(overlayCodes("★", twoByte: false)) == "?")
    }

    @Test("a two-byte font draws them as they are")
    func twoByte() {
        #expect(overlayCodes("← é", twoByte: true) == [0x2190, 0x20, 0xE9])
    }
}

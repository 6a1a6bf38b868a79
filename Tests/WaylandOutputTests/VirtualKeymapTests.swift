import Testing
@testable import WaylandOutput

/// The virtual keyboard's own keymap: every ASCII character and named key from the start,
/// any other character given a key as text needs it.
@Suite struct VirtualKeymapTests {
    @Test func asciiAndTheNamedKeysHaveKeysFromTheStart() {
        var map = VirtualKeymap()
        let a = map.code(for: "a"), A = map.code(for: "A")
        #expect(a?.changed == false && A?.changed == false && a?.code != A?.code)
        #expect(map.code(for: " ")?.code == map.named["space"] && map.code(for: "\n")?.code == map.named["Return"])
        #expect(map.text.contains("key <K\(a!.code)> { [ U0061 ] };"))
        #expect(map.text.contains("modifier_map Control { <K\(map.named["Control_L"]!)> };"))
        #expect(map.text.hasPrefix("xkb_keymap {") && map.text.hasSuffix("};\n"))
    }

    @Test func anyOtherCharacterIsGivenAKeyOnceAndTheKeymapChanges() {
        var map = VirtualKeymap()
        let before = map.text
        let e = map.code(for: "é")
        #expect(e?.changed == true)
        #expect(map.code(for: "é")?.changed == false && map.code(for: "é")?.code == e?.code)
        #expect(map.text != before && map.text.contains("{ [ U00E9 ] };"))
        #expect(map.code(for: "€").map { map.text.contains("key <K\($0.code)> { [ U20AC ] };") } == true)
        // No one keysym types a character of several code points.
        #expect(map.code(for: "👍🏽") == nil)
    }

    @Test func whenEveryKeyIsTakenTheOldestSpareOneIsGivenAgain() {
        var map = VirtualKeymap()
        let scalars = (0x4E00..<0x4E00 + 200).map { Character(Unicode.Scalar($0)!) }
        var codes: [UInt32] = []
        for c in scalars { codes.append(map.code(for: c)!.code) }
        #expect(codes.allSatisfy { $0 <= VirtualKeymap.lastCode })
        let first = codes[0]
        let firstReused = codes.firstIndex(of: first, after: 0)
        #expect(firstReused != nil, "no code was given twice over 200 characters")
        // The latest character types; the one its key was taken from is given a key again.
        let last = scalars.last!
        #expect(map.code(for: last)?.changed == false)
        #expect(map.code(for: scalars[0])?.changed == true)
        // ASCII keeps its keys whatever happens.
        #expect(map.code(for: "z")?.changed == false)
    }
}

private extension Array where Element: Equatable {
    func firstIndex(of e: Element, after i: Int) -> Int? { self[(i + 1)...].firstIndex(of: e) }
}

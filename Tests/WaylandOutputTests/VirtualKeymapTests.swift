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

    @Test func whenEveryKeyIsTakenTheOneUsedLongestAgoIsGivenAgain() {
        var map = VirtualKeymap()
        let spare = Int(VirtualKeymap.lastCode) - (VirtualKeymap.modifiers.count + VirtualKeymap.keyNames.count + 94)
        let scalars = (0x4E00..<0x4E00 + spare + 1).map { Character(Unicode.Scalar($0)!) }
        // Until every key is taken, each character has its own.
        let codes = scalars.prefix(spare).map { map.code(for: $0)!.code }
        #expect(Set(codes).count == spare && codes.allSatisfy { $0 <= VirtualKeymap.lastCode }, "\(spare) spare keys")
        // The first typed again: the second is now the one used longest ago.
        #expect(map.code(for: scalars[0])?.changed == false)
        let next = map.code(for: scalars[spare])
        #expect(next?.code == codes[1] && next?.changed == true)
        #expect(map.code(for: scalars[0])?.changed == false)
        #expect(map.code(for: scalars[1])?.changed == true)
        #expect(map.code(for: "z")?.changed == false, "ASCII keeps its keys")
    }

    @Test func controlCharactersAreNotTypedButNewlinesAndTabsAre() {
        var map = VirtualKeymap()
        #expect(map.code(for: "\u{07}") == nil && map.code(for: "\u{7f}") == nil && map.code(for: "\u{85}") == nil)
        #expect(map.code(for: "\r\n")?.code == map.named["Return"] && map.code(for: "\t")?.code == map.named["Tab"])
    }
}


import ScanCore
import Testing

/// Key codes for text and chords, as a device that sends Linux key codes types them.
@Suite struct EvdevLayoutTests {
    // KEY_A, KEY_1, KEY_SPACE, KEY_LEFT as linux/input-event-codes.h has them.
    static let layout = EvdevLayout(
        characters: ["a": .init(code: 30, shift: false), "A": .init(code: 30, shift: true), "1": .init(code: 2, shift: false),
                     "!": .init(code: 2, shift: true), " ": .init(code: 57, shift: false)],
        named: ["Left": 105, "Return": 28], shift: 42, control: 29, alt: 56)

    @Test func textIsTypedKeyByKeyWithShiftWhereNeeded() {
        let (strokes, missing) = Self.layout.strokes(for: "aA 1!é")
        #expect(strokes.map(\.code) == [30, 30, 57, 2, 2])
        #expect(strokes.map(\.held) == [[], [42], [], [], [42]])
        #expect(missing == "é")
    }

    @Test func chordsHoldTheirModifiers() {
        #expect(Self.layout.stroke(for: KeyChord("Left", [.control, .shift]))! == (105, [29, 42]))
        // A capital letter adds Shift once.
        #expect(Self.layout.stroke(for: KeyChord("A", [.shift]))! == (30, [42]))
        #expect(Self.layout.stroke(for: KeyChord("A", [.control]))! == (30, [29, 42]))
        #expect(Self.layout.stroke(for: KeyChord("F13")) == nil)
        #expect(EvdevLayout.keysym(.enter) == "Return" && Self.layout.named[EvdevLayout.keysym(.enter)] == 28)
    }
}

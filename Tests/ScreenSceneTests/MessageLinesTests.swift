import ScanCore
import ScreenScene
import Testing

/// The message screen's message in its tile: wrapped, the words being written always shown.
@Suite struct MessageLinesTests {
    /// A font of 10 pixels a character.
    static func measure(_ s: String) -> Int { 10 * s.count }

    @Test func wordsWrapAtSpacesAndAtTheMessagesOwnLineBreaks() {
        #expect(MessageLines.lines("I need a drink please", width: 100, fitting: 5, measure: Self.measure) == ["I need a", "drink", "please"])
        #expect(MessageLines.lines("Hi\nthere", width: 100, fitting: 5, measure: Self.measure) == ["Hi", "there"])
        #expect(MessageLines.lines("", width: 100, fitting: 3, measure: Self.measure) == [""])
    }

    @Test func aWordWiderThanTheTileIsCut() {
        #expect(MessageLines.lines("abcdefghijklmnop", width: 50, fitting: 5, measure: Self.measure) == ["abcde", "fghij", "klmno", "p"])
    }

    @Test func whenItDoesNotAllFitTheLastLinesAreShown() {
        let lines = MessageLines.lines("one two three four five six", width: 50, fitting: 2, measure: Self.measure)
        #expect(lines == ["… five", "six"])
        #expect(MessageLines.lines("x", width: 0, fitting: 2, measure: Self.measure).isEmpty)
    }

    @Test func thePaintersDrawTheMessageOnAsManyLinesAsItsTileHolds() {
        let message = KeyboardKey(id: KeyboardKey.messageID, label: "one two three four", frame: Rect(x: 0, y: 0, width: 100, height: 100))
        let keys = OverlayShapes.Keyboard(keys: [message], frame: PixelRect(x: 0, y: 0, width: 100, height: 100))
        let metrics = SceneDrawing.Metrics(ascent: 8, descent: 2, width: Self.measure)
        var shapes = OverlayShapes()
        shapes.keyboard = keys
        let layers = SceneDrawing.layers(shapes, highlight: RGBColor(red: 255, green: 128, blue: 0), metrics: metrics,
                                         screen: PixelRect(x: 0, y: 0, width: 100, height: 100))
        let labels = layers.keyboard.compactMap { item -> String? in if case .label(let t, _, _, _, _) = item { t } else { nil } }
        #expect(labels == ["one two", "three", "four"])
        // In the message's larger font: fewer words a line, marked large for GNOME Shell.
        let large = SceneDrawing.Metrics(ascent: 16, descent: 4, width: { 20 * $0.count })
        let big = SceneDrawing.layers(shapes, highlight: RGBColor(red: 255, green: 128, blue: 0), metrics: metrics, message: large,
                                      screen: PixelRect(x: 0, y: 0, width: 100, height: 100))
        let bigLabels = big.keyboard.compactMap { item -> String? in if case .label(let t, _, _, _, true) = item { t } else { nil } }
        #expect(bigLabels == ["… thr", "ee", "fou", "r"])
    }
}

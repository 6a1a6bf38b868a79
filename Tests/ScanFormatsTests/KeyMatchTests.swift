import Foundation
import ScanFormats
import Testing

/// Field names are compared a word at a time: a name that differs from a known one in any
/// byte, first, last or at a word boundary, is unknown, and every known name is found.
@Suite("Field names compared a word at a time")
struct KeyMatchTests {
    static let names = [
        "id", "virtual", "visible", "isAccessibilityElement", "label", "labelSpans", "labelFromChildren",
        "value", "hint", "traits", "language", "frame", "frameInContainer", "path", "activationPoint",
        "activationPointOutsideFrame", "hidden", "elementsHidden", "viewIsModal", "modalScope",
        "shouldGroupChildren", "navigationStyle", "elements", "sortPriority", "respondsToUserInteraction",
        "customActions", "adjustable", "customContent", "customRotors", "largeContent", "onActivate", "onTap",
        "onEscape", "onMagicTap", "scroll", "onFocus", "onBlur", "children",
    ]

    @Test(arguments: names)
    func aNameOffByOneByteIsUnknown(_ name: String) {
        let u = Array(name.utf8)
        // Each position where a word of the comparison starts or ends, and the last byte.
        for k in Set([0, 7, 8, 15, 16, 23, 24, u.count - 1]) where k < u.count {
            var changed = u
            changed[k] = changed[k] == UInt8(ascii: "q") ? UInt8(ascii: "z") : UInt8(ascii: "q")
            let wrong = String(decoding: changed, as: UTF8.self)
            let errs = errors(layout(button("b1", #", "\#(wrong)": 1"#)))
            #expect(errs.contains { $0.code == "E03" && $0.path.hasSuffix("." + wrong) }, "\(wrong) should be unknown")
        }
    }

    @Test func aNameAtTheVeryEndOfTheFileIsCompared() {
        // The last key of the file, with nothing after its value but closing brackets.
        let text = #"{"schemaVersion": 1, "screen": {"id": "s", "size": {"width": 10, "height": 10}}, "root": {"id": "r", "isAccessibilityElement": false, "children": [{"id": "b", "label": "B", "frame": {"x": 0, "y": 0, "width": 5, "height": 5}}], "hiddeN": true}}"#
        let errs = errors(text)
        #expect(errs.contains { $0.code == "E03" && $0.path == "$.root.hiddeN" })
        let fine = text.replacingOccurrences(of: #""hiddeN": true"#, with: #""hidden": false"#)
        #expect((try? LayoutLoader.load(bytes: Array(fine.utf8), file: "t.json")) != nil)
    }
}

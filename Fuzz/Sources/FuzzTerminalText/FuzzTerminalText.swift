import JSONTape
import ScanCore

/// Any text from outside, shown on a terminal or written as JSON: no control character or
/// bidi formatting survives raw, and the JSON reads back as the same text.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTerminalText(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    func raw(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x200E, 0x200F, 0x061C, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
    let shown = TerminalText.visible(text)
    if shown.unicodeScalars.contains(where: raw) { fatalError("a control or bidi character was shown raw") }
    let lines = TerminalText.visible(text, keepingNewlines: true)
    if lines.unicodeScalars.contains(where: { raw($0) && $0 != "\n" }) { fatalError("kept more than newlines") }
    if lines.unicodeScalars.filter({ $0 == "\n" }).count != text.unicodeScalars.filter({ $0 == "\n" }).count {
        fatalError("newlines were not kept")
    }
    for ch in text where raw(ch.unicodeScalars.first!) || ch.unicodeScalars.contains(where: raw) {
        if TerminalText.visible(ch).unicodeScalars.contains(where: raw) { fatalError("a cell shown raw") }
    }
    let json = jsonString(text)
    if json.unicodeScalars.contains(where: raw) { fatalError("JSON holds a raw control or bidi character") }
    guard let document = try? JSONDocument.parse(Array(("[" + json + "]").utf8)),
          let back = document.root.array.flatMap({ Array($0).first })?.string, back == text else {
        fatalError("the JSON string does not read back as the text")
    }
    return 0
}

import ScanCore
import ScanFormats

/// A layout, loaded and validated; one that loads is scanned in item and point mode with
/// presses at times taken from the input, as a person with a switch would.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLayout(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let doc = try? LayoutLoader.load(bytes: bytes, file: "fuzz.json") else { return 0 }
    for mode in [ScanMode.item, .point] {
        var settings = ScanSettings()
        settings.mode = mode
        var engine = ScanEngine(tree: doc.tree, settings: settings)
        _ = engine.start(at: .zero)
        var t = ScanInstant.zero
        for (k, b) in bytes.suffix(24).enumerated() {
            if let d = engine.nextDeadline, d <= t + .milliseconds(Int64(b) * 20) { t = d; _ = engine.handleDeadline(at: d); continue }
            t = t + .milliseconds(Int64(b) * 20)
            let action: SwitchAction = k % 7 == 6 ? .menu : k % 11 == 10 ? .exit : .select
            _ = engine.handle(SwitchEvent(action, down: true, at: t), at: t)
            t = t + .milliseconds(50)
            _ = engine.handle(SwitchEvent(action, down: false, at: t), at: t)
        }
    }
    return 0
}

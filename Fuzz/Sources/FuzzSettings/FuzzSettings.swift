import ScanFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSettings(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = try? SettingsLoader.load(bytes: Array(UnsafeBufferPointer(start: data, count: size)), file: "fuzz.json")
    return 0
}

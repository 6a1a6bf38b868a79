import ScanFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvents(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = try? EventsLoader.load(bytes: Array(UnsafeBufferPointer(start: data, count: size)), file: "fuzz.events")
    return 0
}

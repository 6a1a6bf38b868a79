#if canImport(Glibc)
import Glibc
#endif
import ScanCore
import ScanFormats

/// Random sequences of writers and what can happen between them (a writer killed mid-write,
/// a hand edit, the file made read-only, a dotfile manager's link): a change that succeeds
/// is in the file and the file loads; one that is refused leaves the file as it was.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSettingsWriter(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var template = Array("/tmp/switchscan-fuzz-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { return 0 }
    let folder = String(cString: made)
    defer { _ = system("rm -rf '\(folder)'") }
    let path = folder + "/settings.json"
    let values = ["1", "0.5", "3", "true", "false", "\"auto\"", "\"step\"", "null", "{}", "[1]", "\"#ff0000\"", "100000", "-1", "\"x\""]
    let keys = ScanSettings.table.map(\.key)
    func contents(_ p: String) -> [UInt8]? {
        guard let f = fopen(p, "rb") else { return nil }
        defer { fclose(f) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, f)
            if n == 0 { break }
            out += buffer[0..<n]
        }
        return out
    }
    var i = 0
    while i + 2 < bytes.count && i < 300 {
        let op = bytes[i] % 6, a = Int(bytes[i + 1]), b = Int(bytes[i + 2])
        i += 3
        switch op {
        case 0, 1:
            let key = keys[a % keys.count], value = values[b % values.count]
            let before = contents(path)
            do {
                try SettingsFile.set(key, to: value, in: path)
                guard let after = contents(path), (try? SettingsLoader.load(bytes: after, file: path)) != nil else {
                    fatalError("a change that succeeded left a file that does not load")
                }
                if !String(decoding: after, as: UTF8.self).contains("\"\(key)\": \(value)") { fatalError("the change is not in the file") }
            } catch {
                if contents(path) != before { fatalError("a refused change altered the file: \(error)") }
            }
        case 2:
            // A writer killed in the middle: its copy stays behind, half written.
            let stray = folder + "/.settings.json.\(a).tmp"
            if let f = fopen(stray, "wb") { _ = fwrite(bytes, 1, min(b, bytes.count), f); fclose(f) }
        case 3:
            // A hand edit: whatever the next bytes are.
            let end = min(bytes.count, i + b % 64)
            if let f = fopen(path, "wb") { _ = fwrite(Array(bytes[i..<end]), 1, end - i, f); fclose(f) }
            i = end
        case 4:
            chmod(path, a % 2 == 0 ? 0o444 : 0o644)
        default:
            // A dotfile manager's link, to a file kept elsewhere in the folder.
            let target = folder + "/kept-\(a % 3).json"
            if let old = contents(path), contents(target) == nil, let f = fopen(target, "wb") { _ = fwrite(old, 1, old.count, f); fclose(f) }
            unlink(path)
            _ = symlink(target, path)
        }
    }
    return 0
}

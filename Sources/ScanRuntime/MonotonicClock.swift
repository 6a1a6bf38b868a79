#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ScanCore

/// The one clock of the runtime: CLOCK_MONOTONIC, the clock evdev timestamps use once a
/// device is set to it. (Swift's ContinuousClock is CLOCK_BOOTTIME on Linux: never mixed in.)
public enum MonotonicClock {
    public static func now() -> ScanInstant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return ScanInstant(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }
}

/// Resident memory of this process, from /proc (Linux); nil where unavailable.
public func residentMemoryBytes() -> Int? {
    let fd = open("/proc/self/statm", O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 128)
    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard n > 0 else { return nil }
    let fields = String(decoding: buffer[0..<n], as: UTF8.self).split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

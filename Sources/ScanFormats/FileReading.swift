#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a file could not be read, said for a person.
public struct FileReadError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}

/// Reads a whole data file, refusing one past `limit` bytes before reading it (a regular
/// file's size is known) or as soon as it passes the limit (a pipe, a FIFO, /dev/stdin).
/// `path` "-" is standard input. `what` names the file in messages ("layout").
///
/// Only a regular file is read unless `streams` (a file the user names to be read as it
/// comes: a layout, an events file): anything else is refused without waiting on it, since
/// a FIFO at the user's settings or words would otherwise hang the reader in `open` or
/// `read` for ever. The file is opened without blocking and its kind read from the open
/// file, so nothing swapped in between can be waited on.
public func readFile(_ path: String, what: String, limit: Int, streams: Bool = false) throws(FileReadError) -> [UInt8] {
    let fd = try openChecked(path, what: what, limit: limit, streams: streams)
    defer { close(fd) }
    return try readAll(fd, path: path, what: what, limit: limit)
}

/// `path` opened for reading and checked: its kind (see `readFile`) and, for a regular
/// file, its size. The caller closes it.
func openChecked(_ path: String, what: String, limit: Int, streams: Bool) throws(FileReadError) -> Int32 {
    let fd = path == "-" ? dup(0) : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | (streams ? 0 : O_NONBLOCK))
    return try checked(fd, path: path, what: what, limit: limit, streams: streams)
}

/// A path in a message: whole, as long as a path can be (an argument that long is no path).
func shown(_ path: String) -> String { excerpt(path, limit: Int(PATH_MAX)) }

/// Why `path` (or failed to open: -1 with errno set) cannot be read.
func readFailure(_ e: Int32, path: String, what: String) -> FileReadError {
    let reason: String
    switch e {
    case ENOENT:
        var buffer = [CChar](repeating: 0, count: 4096)
        let cwd = getcwd(&buffer, buffer.count).map { String(cString: $0) } ?? "."
        return FileReadError(description: "Error: \(what) '\(shown(path))' does not exist. Check the path (it is relative to \(cwd)).")
    case EACCES: reason = "permission denied; check the file's permissions"
    default: reason = String(cString: strerror(e))
    }
    return FileReadError(description: "Error: cannot read \(what) '\(shown(path))': \(reason).")
}

func tooLarge(_ size: Int, path: String, what: String, limit: Int) -> FileReadError {
    // Rounded up, so that a file just over the limit never reads as the limit itself.
    let mib = (Double(size) / 1_048_576 * 10).rounded(.up) / 10
    let size = mib == mib.rounded() ? "\(Int(mib))" : "\(mib)"
    return FileReadError(description: "Error: \(what) '\(shown(path))' is \(size) MiB; \(what)s are limited to \(limit >> 20) MiB.")
}

/// `fd` (opened from `path`, or -1 with errno set) if it may be read; else it is closed and
/// the reason thrown.
func checked(_ fd: Int32, path: String, what: String, limit: Int, streams: Bool) throws(FileReadError) -> Int32 {
    guard fd >= 0 else { throw readFailure(errno, path: path, what: what) }
    var st = stat()
    guard fstat(fd, &st) == 0 else { let e = errno; close(fd); throw readFailure(e, path: path, what: what) }
    let kind = st.st_mode & S_IFMT
    if kind == S_IFDIR {
        close(fd)
        throw FileReadError(description: "Error: \(what) '\(shown(path))' is a directory; give a file in it.")
    }
    if kind != S_IFREG && !streams {
        close(fd)
        throw FileReadError(description: "Error: \(what) '\(shown(path))' is \(kindName(kind)), not a regular file; it was not read. Put a regular file there.")
    }
    if kind == S_IFREG && Int(st.st_size) > limit { close(fd); throw tooLarge(Int(st.st_size), path: path, what: what, limit: limit) }
    return fd
}

/// What a file of kind `kind` (`st_mode & S_IFMT`) is, for a message.
public func kindName(_ kind: mode_t) -> String {
    switch kind {
    case S_IFREG: return "a regular file"
    case S_IFDIR: return "a directory"
    case S_IFIFO: return "a FIFO (a named pipe)"
    case S_IFSOCK: return "a socket"
    case S_IFCHR: return "a character device"
    case S_IFBLK: return "a block device"
    case S_IFLNK: return "a symbolic link"
    default: return "not a file"
    }
}

/// Reads `fd` to its end, refusing it as soon as it passes `limit` bytes.
func readAll(_ fd: Int32, path: String, what: String, limit: Int) throws(FileReadError) -> [UInt8] {
    var bytes: [UInt8] = []
    var st = stat()
    if fstat(fd, &st) == 0 && st.st_mode & S_IFMT == S_IFREG { bytes.reserveCapacity(Int(st.st_size)) }
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n == 0 { break }
        if n < 0 {
            if errno == EINTR { continue }
            throw readFailure(errno, path: path, what: what)
        }
        bytes.append(contentsOf: chunk[0..<n])
        if bytes.count > limit { throw tooLarge(bytes.count, path: path, what: what, limit: limit) }
    }
    return bytes
}

/// The files of `folder` whose names end in `suffix`, in byte order of their names, each
/// read whole. Names need not be UTF-8: they are opened by their bytes and shown with
/// replacement characters. Nil when the folder cannot be listed (it may not exist).
public func readFolder(_ folder: String, suffix: String, what: String, limit: Int) -> [(path: String, contents: Result<[UInt8], FileReadError>)]? {
    guard let dir = opendir(folder) else { return nil }
    defer { closedir(dir) }
    var names: [[UInt8]] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
        if name.count > suffix.utf8.count && name.suffix(suffix.utf8.count).elementsEqual(suffix.utf8) { names.append(name) }
    }
    return names.sorted { $0.lexicographicallyPrecedes($1) }.map { name in
        let path = folder + "/" + String(decoding: name, as: UTF8.self)
        let fd = (name + [0]).withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { openat(dirfd(dir), $0.baseAddress!, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK) }
        }
        do throws(FileReadError) {
            let file = try checked(fd, path: path, what: what, limit: limit, streams: false)
            defer { close(file) }
            return (path, .success(try readAll(file, path: path, what: what, limit: limit)))
        } catch { return (path, .failure(error)) }
    }
}

/// The lines of a file as they come (a file, a pipe, a FIFO, standard input as "-"): each
/// as soon as it has ended, the file never whole in memory; refused as `readFile` refuses
/// it, and as soon as more than `limit` bytes are read.
public final class LineReader {
    let fd: Int32
    let path: String, what: String, limit: Int
    var buffer: [UInt8] = []
    /// Where the next line starts in `buffer`, and how far it is known to hold no newline.
    var start = 0, searched = 0
    var total = 0
    var ended = false
    public private(set) var number = 0

    public init(_ path: String, what: String, limit: Int, streams: Bool) throws(FileReadError) {
        fd = try openChecked(path, what: what, limit: limit, streams: streams)
        self.path = path; self.what = what; self.limit = limit
    }

    deinit { close(fd) }

    /// The next line, without its newline, and its 1-based number; nil at the end.
    public func next() throws(FileReadError) -> (number: Int, text: String)? {
        while true {
            if let newline = buffer[searched...].firstIndex(of: 0x0A) {
                defer { start = newline + 1; searched = start }
                number += 1
                return (number, String(decoding: buffer[start..<newline], as: UTF8.self))
            }
            searched = buffer.count
            if ended {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count; searched = start }
                number += 1
                return (number, String(decoding: buffer[start...], as: UTF8.self))
            }
            // What was handed out already is dropped before reading more.
            if start > 0 { buffer.removeFirst(start); searched -= start; start = 0 }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw readFailure(errno, path: path, what: what)
            }
            if n == 0 { ended = true; continue }
            total += n
            if total > limit { throw tooLarge(total, path: path, what: what, limit: limit) }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }
}

/// The lines of a text, one at a time, without an array of them: a file of millions of
/// lines is read in one pass.
public struct Lines: Sequence, IteratorProtocol {
    let text: [UInt8]
    var start = 0
    var number = 0

    public init(_ text: [UInt8]) { self.text = text }

    /// The next line (without its newline) and its 1-based number.
    public mutating func next() -> (number: Int, text: Substring)? {
        guard start <= text.count else { return nil }
        let end = text[start...].firstIndex(of: 0x0A) ?? text.count
        let line = String(decoding: text[start..<end], as: UTF8.self)
        start = end + 1
        number += 1
        return (number, Substring(line))
    }
}

/// The problems of a line file, in order: the first `limit` kept, the rest counted.
public struct LineProblems: Sendable {
    public private(set) var kept: [(line: Int, message: String)] = []
    public private(set) var omitted = 0
    public static let limit = 100

    public init() {}

    public var isEmpty: Bool { kept.isEmpty }

    public mutating func add(_ line: Int, _ message: String) {
        if kept.count < Self.limit { kept.append((line, message)) } else { omitted += 1 }
    }
}

import CommandSupport
import Foundation
import ScanFormats
import Testing

/// A command's output file (`snapshot -o`): a regular file is replaced whole, keeping a
/// link; anything else is written to as it is and never replaced.
@Suite struct OutputFileTests {
    let folder: String = {
        let path = NSTemporaryDirectory() + "switchscan-output-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    func kind(_ path: String) -> mode_t {
        var st = stat()
        return lstat(path, &st) == 0 ? st.st_mode & S_IFMT : 0
    }

    @Test func aFIFOIsWrittenToAndStaysAFIFO() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fifo = folder + "/out.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = Thread.detachNewThreadWithResult { () -> String in
            let fd = open(fifo, O_RDONLY)
            defer { close(fd) }
            var got: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 256)
            while true {
                let n = read(fd, &chunk, chunk.count)
                if n <= 0 { break }
                got += chunk[0..<n]
            }
            return String(decoding: got, as: UTF8.self)
        }
        try writeOutputFile(fifo, Array("{\"a\":1}\n".utf8), what: "layout")
        #expect(reader.wait() == "{\"a\":1}\n")
        #expect(kind(fifo) == S_IFIFO, "never replaced by a regular file")
    }

    @Test func aLinkIsKeptAndItsTargetReplaced() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let target = folder + "/real.json", link = folder + "/link.json"
        #expect(FileManager.default.createFile(atPath: target, contents: Data("old".utf8)))
        #expect(symlink(target, link) == 0)
        try writeOutputFile(link, Array("new".utf8), what: "layout")
        #expect(kind(link) == S_IFLNK)
        #expect(FileManager.default.contents(atPath: target) == Data("new".utf8))
    }

    @Test func aFolderIsRefusedWithItsName() {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect {
            try writeOutputFile(folder, [1], what: "layout")
        } throws: { error in
            (error as? FileReadError)?.description.contains("\(folder) is a folder") == true
        }
    }
}

extension Thread {
    /// Runs `body` on a thread of its own; `wait()` gives its result.
    static func detachNewThreadWithResult<T: Sendable>(_ body: @escaping @Sendable () -> T) -> Pending<T> {
        let pending = Pending<T>()
        Thread.detachNewThread { pending.set(body()) }
        return pending
    }
}

final class Pending<T: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: T?
    func set(_ v: T) { condition.lock(); value = v; condition.signal(); condition.unlock() }
    func wait() -> T? {
        condition.lock(); defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(10)
        while value == nil, condition.wait(until: deadline) {}
        return value
    }
}

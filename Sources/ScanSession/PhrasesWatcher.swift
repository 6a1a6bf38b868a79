import Dispatch
import Foundation
import ScanFormats

#if canImport(Glibc)
import Glibc
#endif

/// Re-reads the phrases file when it changes while the run goes on (a carer's `switchscan
/// phrases add`, or an editor), so that the message screen offers the new phrases without a
/// restart. On a utility queue: a stat every 2 s; a file seen to change is read once it has
/// stayed the same for one more look (an editor that saves in two steps is not caught half
/// way), never on the engine's thread, which is handed the finished list.
final class PhrasesWatcher: @unchecked Sendable {
    private let queue = DispatchQueue(label: "switchscan.phrases", qos: .utility)
    private let timer: DispatchSourceTimer
    /// Confined to `queue`: the file as last read (nil: not there), and as last seen.
    private var read: [Int]?
    private var seen: [Int]?

    /// `deliver`: the phrases as read; `warn`: what was wrong with the file, once per change.
    init(path: String, every interval: DispatchTimeInterval = .seconds(2),
         deliver: @escaping @Sendable ([String]) -> Void, warn: @escaping @Sendable (String) -> Void) {
        timer = DispatchSource.makeTimerSource(queue: queue)
        queue.sync {
            read = Self.stamp(path)
            seen = read
        }
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(100))
        timer.setEventHandler { [self] in
            let now = Self.stamp(path)
            defer { seen = now }
            guard now != read, now == seen else { return }
            read = now
            // Gone: the phrases offered stay (a file being replaced comes back; one deleted
            // by mistake should not empty the screen).
            guard now != nil else {
                warn("the phrases file \(path) is gone; the message screen keeps the phrases it had.")
                return
            }
            do throws(FileReadError) {
                let loaded = try PhrasesFile.load(path)
                for p in loaded.problems { warn(p) }
                deliver(loaded.phrases)
            } catch {
                warn("\(error.description) The message screen keeps the phrases it had.")
            }
        }
        timer.resume()
    }

    func stop() { timer.cancel() }

    /// The file's modification time, size and inode; nil where it cannot be seen.
    private static func stamp(_ path: String) -> [Int]? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return [st.st_mtim.tv_sec, st.st_mtim.tv_nsec, Int(st.st_size), Int(st.st_ino)]
    }
}

import Dispatch
import Foundation
import ScanFormats

#if canImport(Glibc)
import Glibc
#endif

/// Re-reads the phrases file when it changes while the run goes on (a carer's `switchscan
/// phrases add`, or an editor), so that the message screen offers the new phrases without a
/// restart. On a utility queue: a stat every 2 s, a read only when the file's time, size or
/// inode changed; never on the engine's thread, which is handed the finished list.
final class PhrasesWatcher: @unchecked Sendable {
    private let path: String
    private let queue = DispatchQueue(label: "switchscan.phrases", qos: .utility)
    private let timer: DispatchSourceTimer
    /// Confined to `queue`: what the file was when last read (nil: it was not there).
    private var seen: [Int]?

    /// `deliver`: the phrases as read; `warn`: what was wrong with the file, once per change.
    init(path: String, every interval: DispatchTimeInterval = .seconds(2),
         deliver: @escaping @Sendable ([String]) -> Void, warn: @escaping @Sendable (String) -> Void) {
        self.path = path
        timer = DispatchSource.makeTimerSource(queue: queue)
        queue.sync { seen = Self.stamp(path) }
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(500))
        timer.setEventHandler { [self] in
            let now = Self.stamp(path)
            guard now != seen else { return }
            seen = now
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

import Foundation
import ScanCore
import ScanHost
import ScanSession
import Testing
import WordPrediction

/// A session started and ended as a library, as a front end of its own would: JSON lines on
/// a pipe, no terminal keys, no devices, no display.
@Suite struct SessionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func configuration(_ layout: String, output: Int32) -> RunConfiguration {
        var c = RunConfiguration(target: .layout(Self.root.appendingPathComponent(layout).path),
                                 wordList: Self.root.appendingPathComponent("Words/en.words").path, environment: [:])
        c.output = .json
        c.jsonOutput = output
        c.terminalKeys = false
        c.useDevices = false
        c.overlay = false
        c.realTime = .init(priority: 0, lockMemory: false)
        return c
    }

    /// Lines read from `fd` until one contains `text` (or 10 s pass).
    func read(_ fd: Int32, until text: String) -> String {
        var got = ""
        let deadline = MonotonicClock.now() + .seconds(10)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !got.contains(text), MonotonicClock.now() < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 100) > 0 else { continue }
            let n = Glibc.read(fd, &buffer, buffer.count)
            guard n > 0 else { break }
            got += String(decoding: buffer[..<n], as: UTF8.self)
        }
        return got
    }

    @Test func aSessionScansALayoutAndEndsOnceInOrder() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let ends = Locked<[SessionEnd]>([])
        let ended = OneShot<Void>()
        let session = ScanSession(configuration("Layouts/switch-control.uikit.json", output: fds[1]), log: { _ in }) { end in
            ends.withLock { $0.append(end) }
            ended.set(())
        }
        try session.start()
        let text = read(fds[0], until: "\"highlight\"")
        let lines = text.split(separator: "\n")
        #expect(lines.first?.hasSuffix(#","effect":"scanStarted"}"#) == true, "\(text)")
        #expect(lines.dropFirst().first?.contains(#""effect":"highlight","item":"testWrap""#) == true, "\(text)")
        session.shutdown(.finished)
        session.shutdown(.failed("a second end", status: 1))
        #expect(ended.wait(until: MonotonicClock.now() + .seconds(10)) != nil)
        let all = ends.withLock { $0 }
        #expect(all.count == 1)
        #expect(all.first?.reason == .finished)
        #expect(all.first?.status == 0)
    }

    @Test func aBadLayoutIsRefusedWithItsFileAndStatusTwo() {
        let session = ScanSession(configuration("Layouts/no-such-layout.json", output: 1), log: { _ in }) { _ in
            Issue.record("a session that never started does not end")
        }
        #expect {
            try session.start()
        } throws: { error in
            guard let e = error as? SessionError else { return false }
            return e.status == 2 && e.message.contains("no-such-layout.json")
        }
    }

    /// A damaged learned-words file costs the user neither the scan nor their other words,
    /// and is not written over while it is damaged.
    @Test func damagedLearnedWordsAreReadAroundAndLeftForTheUserToMend() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("session-words-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("words.txt").path
        try "2 hello\n9223372036854775808 world\n".write(toFile: path, atomically: true, encoding: .utf8)
        let damaged = learnedWords(path, learn: true)
        #expect(damaged.list.count(of: "hello") == 2)
        #expect(damaged.learn == false)
        #expect(damaged.note == """
            Warning: your learned words are damaged:
            \(path):2: "9223372036854775808" is not a count; a count is a whole number from 1 to 1000000000000000
            \(path): 1 error; that line was skipped.
            The other words are used, but nothing new is learned into the file until it is mended. \
            Edit the lines named, or forget every learned word with 'switchscan words forget --all'.
            """)
        try "2 hello\n".write(toFile: path, atomically: true, encoding: .utf8)
        let fine = learnedWords(path, learn: true)
        #expect(fine.learn && fine.note == nil && fine.list.count(of: "hello") == 2)
        let folderAsFile = learnedWords(folder.path, learn: true)
        #expect(!folderAsFile.learn)
        #expect(folderAsFile.note?.hasPrefix("Warning: your learned words are not used: ") == true)
    }

    @Test func aSignalEndsWithItsStatus() {
        #expect(SessionEnd(reason: .signal(15), notes: []).status == 143)
        #expect(SessionEnd(reason: .failed("x", status: 2), notes: []).status == 2)
    }
}

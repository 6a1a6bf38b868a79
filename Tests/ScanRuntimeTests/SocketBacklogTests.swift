import Foundation
import ScanCore
import ScanHost
@testable import ScanRuntime
import Testing

/// Front ends that read slowly or not at all: each one's backlog keeps every byte in order,
/// costs nothing to add to or send from however long it is, and past its limit the front end
/// is dropped, once, with one message, while the others get everything.
@Suite("Socket backlog")
struct SocketBacklogTests {
    @Test func whatIsSentInPiecesOfAnySizeComesOutWholeAndInOrder() {
        var backlog = SocketPresenter.Backlog()
        var expected: [UInt8] = []
        var sent: [UInt8] = []
        var seed: UInt64 = 7
        func random(_ n: Int) -> Int { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Int(seed >> 33) % n }
        for k in 0..<3000 {
            let batch = (0..<(1 + random(300))).map { UInt8(truncatingIfNeeded: k &+ $0) }
            backlog.append(batch)
            expected += batch
            // The socket takes a little, now and then nothing (EAGAIN).
            for _ in 0..<random(3) {
                let n = backlog.sendFront { piece in
                    let take = min(piece.count, random(400))
                    sent += piece.prefix(take)
                    return take == 0 ? -1 : take
                }
                if n <= 0 { break }
            }
            #expect(backlog.count == expected.count - sent.count)
        }
        while !backlog.isEmpty { _ = backlog.sendFront { piece in sent += piece; return piece.count } }
        #expect(sent == expected)
    }

    @Test func twoHundredIdleFrontEndsAreDroppedOnceEachAndAReaderGetsEverything() throws {
        let path = "/tmp/switchscan-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let queue = DispatchQueue(label: "test.present")
        let warnings = Warnings()
        let presenter = try SocketPresenter(path: path, queue: queue, warn: { warnings.add($0) })
        let idle = (0..<200).map { _ in SocketPresenterTests.connectClient(path) }
        let reader = SocketPresenterTests.connectClient(path)
        defer { for fd in idle + [reader] where fd >= 0 { close(fd) } }
        #expect(idle.allSatisfy { $0 >= 0 } && reader >= 0)
        #expect(SocketPresenterTests.waitForClients(presenter, on: queue, count: 201))
        var expected: [UInt8] = []
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        for round in 0..<40 {
            let batch = (0..<200).map { TimedEffect(.seconds(Double(round * 200 + $0)), .announce(String(repeating: "x", count: 200))) }
            expected += Array(jsonLines(batch).utf8)
            try queue.sync { try presenter.present(batch) }
            while true {
                let n = recv(reader, &chunk, chunk.count, Int32(MSG_DONTWAIT))
                if n <= 0 { break }
                received += chunk[0..<n]
            }
        }
        queue.sync { #expect(presenter.clientCount == 1, "every idle front end dropped, the reader kept") }
        #expect(warnings.all.count == 200, "one message each")
        queue.sync { presenter.finish() }
        // What the reader had not taken yet, then the end.
        while true {
            let n = recv(reader, &chunk, chunk.count, 0)
            if n <= 0 { break }
            received += chunk[0..<n]
        }
        #expect(received.count <= expected.count && Array(expected.prefix(received.count)) == received, "in order, nothing lost in between")
        #expect(received.count > expected.count / 2)
    }

    /// Out of file descriptors, accept() fails (EMFILE) while the connection waits: the
    /// listening socket stays readable, and trying again at once would spin. The presenter
    /// says so once and takes no connection for a while, then takes them again.
    @Test(arguments: [EMFILE, ENFILE])
    func runningOutOfFileDescriptorsDoesNotSpin(_ code: Int32) throws {
        let path = "/tmp/switchscan-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let queue = DispatchQueue(label: "test.present")
        let warnings = Warnings()
        // Until `full` is cleared, every accept fails as when the process has no fd left.
        let attempts = Locked(0), full = Locked(true)
        let presenter = try SocketPresenter(path: path, queue: queue, warn: { warnings.add($0) }, accept: { fd in
            attempts.withLock { $0 += 1 }
            if full.get() { errno = code; return -1 }
            return accept(fd, nil, nil)
        })
        defer { queue.sync { presenter.finish() } }
        let start = MonotonicClock.now()
        let client = SocketPresenterTests.connectClient(path)
        defer { close(client) }
        #expect(client >= 0)
        var tried = false
        for _ in 0..<2500 where !tried {
            tried = attempts.get() > 0
            if !tried { _ = poll(nil, 0, 2) }
        }
        #expect(tried, "the connection was seen")
        // The presenter waits before it tries again: within that wait, not one more attempt
        // (a spin makes thousands). The wait is from the first attempt, after `start`.
        _ = poll(nil, 0, 50)
        if MonotonicClock.now() - start < SocketPresenter.acceptRetry {
            #expect(attempts.get() == 1, "accept was tried \(attempts.get()) times while out of descriptors")
        }
        #expect(warnings.all.count == 1 && warnings.all.first?.contains("file descriptor") == true, "\(warnings.all)")
        // Descriptors free again: the front end is taken in.
        full.set(false)
        #expect(SocketPresenterTests.waitForClients(presenter, on: queue, count: 1))
        #expect(warnings.all.count == 1, "said once")
    }

    /// Made without accepting (as a session makes it, until it has opened all it needs): a
    /// front end that connects waits in the socket's queue, and is taken in once accepting
    /// starts. After the end, starting changes nothing and the socket is gone.
    @Test func frontEndsWaitUntilAcceptingStarts() throws {
        let path = "/tmp/switchscan-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let queue = DispatchQueue(label: "test.present")
        let attempts = Locked(0)
        let presenter = try SocketPresenter(path: path, queue: queue, accepting: false, warn: { _ in }, accept: { fd in
            attempts.withLock { $0 += 1 }
            return accept(fd, nil, nil)
        })
        let client = SocketPresenterTests.connectClient(path)
        defer { close(client) }
        #expect(client >= 0, "the connection waits in the socket's queue")
        _ = poll(nil, 0, 100)
        queue.sync {}
        #expect(attempts.get() == 0, "nothing taken in before accepting starts")
        presenter.startAccepting()
        #expect(SocketPresenterTests.waitForClients(presenter, on: queue, count: 1))
        queue.sync { presenter.finish() }
        presenter.startAccepting()
        #expect(access(path, F_OK) != 0, "the socket file is gone")
        queue.sync { #expect(presenter.clientCount == 0) }
    }
}

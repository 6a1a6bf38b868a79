@testable import Compositors
import Foundation
import Testing

/// i3's IPC framing against a stand-in for sway's socket: a thread that answers with bytes
/// written out by hand.
@Suite struct SwayConnectionTests {
    /// A listening Unix socket that, for one client, reads one request and writes `reply`.
    final class StandIn: @unchecked Sendable {
        let path: String
        let listener: Int32
        var request: [UInt8] = []
        private var thread: Thread?
        private let done = DispatchSemaphore(value: 0)

        init(reply: [UInt8]) throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("sway-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock").path
            listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            try #require(bound == 0 && listen(listener, 1) == 0)
            let t = Thread { [self] in
                let c = accept(listener, nil, nil)
                var header = [UInt8](repeating: 0, count: 14)
                _ = recv(c, &header, 14, Int32(MSG_WAITALL))
                let length = header.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: 6, as: UInt32.self)) }
                var body = [UInt8](repeating: 0, count: length)
                if length > 0 { _ = recv(c, &body, length, Int32(MSG_WAITALL)) }
                request = header + body
                _ = reply.withUnsafeBytes { send(c, $0.baseAddress, reply.count, Int32(MSG_NOSIGNAL)) }
                close(c)
                done.signal()
            }
            thread = t
            t.start()
        }

        func finish() {
            _ = done.wait(timeout: .now() + 5)
            close(listener)
            unlink(path)
        }
    }

    static func message(_ type: UInt32, _ payload: String) -> [UInt8] {
        var m = Array("i3-ipc".utf8)
        withUnsafeBytes(of: UInt32(payload.utf8.count)) { m += $0 }
        withUnsafeBytes(of: type) { m += $0 }
        return m + Array(payload.utf8)
    }

    @Test func aRequestIsFramedAndItsAnswerFoundPastAnEvent() throws {
        let event = Self.message(0x8000_0003, #"{"change":"focus"}"#)
        let reply = Self.message(4, #"{"nodes":[]}"#)
        let sway = try StandIn(reply: event + reply)
        let c = try SwayConnection(path: sway.path, timeout: 2)
        let answer = try c.request(SwayConnection.getTree)
        sway.finish()
        #expect(String(decoding: answer, as: UTF8.self) == #"{"nodes":[]}"#)
        #expect(sway.request == Self.message(4, ""))
    }

    @Test func whatIsNotI3sProtocolOrEndsEarlyIsAnError() throws {
        let garbled = try StandIn(reply: Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8))
        let c = try SwayConnection(path: garbled.path, timeout: 2)
        #expect { try c.request(SwayConnection.getTree) } throws: { ($0 as? SwayError)?.description.contains("not i3's protocol") == true }
        garbled.finish()
        let cut = try StandIn(reply: Array(Self.message(4, #"{"nodes":[]}"#).prefix(17)))
        let d = try SwayConnection(path: cut.path, timeout: 2)
        #expect { try d.request(SwayConnection.getTree) } throws: { ($0 as? SwayError)?.description.contains("went away") == true }
        cut.finish()
    }

    @Test func aSocketNobodyListensOnSaysSway() {
        #expect { try SwayConnection(path: "/nonexistent/sway-ipc.sock", timeout: 1) } throws: {
            ($0 as? SwayError)?.description.contains("is sway still running?") == true
        }
    }
}

import Foundation
import SpeechOutput
import TestSupport

extension SpeechDaemon {
    var address: SpeechDispatcherAddress { .unixSocket(socket) }
}

/// Collects values from other threads.
final class Collected<T>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [T] = []
    func append(_ item: T) {
        condition.withLock { items.append(item) }
        condition.broadcast()
    }
    var all: [T] { condition.withLock { items } }

    /// Waits, woken by each item appended, until there are more than `count` (at most
    /// `timeout` seconds); whether there are.
    @discardableResult
    func wait(forMoreThan count: Int, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while items.count <= count {
            if !condition.wait(until: deadline) { return items.count > count }
        }
        return true
    }
}

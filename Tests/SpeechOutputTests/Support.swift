import Foundation
import SpeechOutput
import SpeechTestSupport

extension SpeechDaemon {
    var address: SpeechDispatcherAddress { .unixSocket(socket) }
}

/// Collects values from other threads.
final class Collected<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    func append(_ item: T) { lock.withLock { items.append(item) } }
    var all: [T] { lock.withLock { items } }
}

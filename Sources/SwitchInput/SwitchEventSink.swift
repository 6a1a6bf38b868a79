import ScanCore

/// Where the devices' switch events go, and the thread that reads the devices: the engine's
/// own thread in the runtime, so that an input wakes the thread that decides. Devices are
/// read, decoded and grabbed there; everything else about them happens on other threads.
public protocol SwitchEventSink: AnyObject, Sendable {
    /// Runs `body` on the sink's thread, after what is queued there.
    func perform(_ body: @escaping @Sendable () -> Void)
    /// Runs `body` on the sink's thread and waits for it (not from that thread); nil, without
    /// running it, once that thread has ended.
    func performAndWait<T>(_ body: @escaping () -> T) -> T?
    /// Reads `fd` on the sink's thread whenever it is readable: `decode` returns the events
    /// read and whether the source is gone (its fd is then no longer polled).
    func attach(fd: Int32, decode: @escaping (Int32) -> (events: [SwitchEvent], gone: Bool))
    func detach(fd: Int32)
    /// An event from any thread; its timestamp decides what it acts on.
    func submit(_ event: SwitchEvent)
    /// The clock of the events' timestamps (CLOCK_MONOTONIC).
    var now: ScanInstant { get }
    /// Stops the program when called off the sink's thread: asserted where the devices'
    /// state, confined to it, is entered.
    func preconditionOnThread()
}

extension SwitchEventSink {
    /// A sink that runs `perform` in place (tests) has no thread to check.
    public func preconditionOnThread() {}
}

import Dispatch
import Foundation
import ScanCore
import ScanHost
import ScanFormats

/// The switch devices in use: opened through their profile mapping, read on the sink's
/// thread (the engine's), grabbed only while no switch is held, released on every way out, and followed
/// through unplug and replug.
public final class SwitchDevices: @unchecked Sendable {
    public struct Report: Sendable {
        public var node: String
        public var name: String
        public var opened: Bool
        public var problem: String?
        public var sections: [String]
    }

    /// State for one open device, touched only on the engine's queue.
    final class Open: @unchecked Sendable {
        let device: EvdevDevice
        var decoder: SwitchDecoder
        let switchCodes: [EventCode]
        var wantsGrab: Bool
        init(device: EvdevDevice, decoder: SwitchDecoder, switchCodes: [EventCode], wantsGrab: Bool) {
            self.device = device; self.decoder = decoder; self.switchCodes = switchCodes; self.wantsGrab = wantsGrab
        }
    }

    let sink: SwitchEventSink
    let profiles: DeviceProfiles
    let opener: DeviceOpener
    let grab: Bool
    let log: @Sendable (String) -> Void
    /// Only these nodes (from --device), if set.
    let only: Set<String>?
    private var open: [String: Open] = [:]   // by node; engine queue only
    private var nextID = 1
    private let idLock = Lock()
    private let control = DispatchQueue(label: "switchscan.devices")
    private var monitor: Udev.Monitor?
    private var monitorSource: DispatchSourceRead?

    public init(sink: SwitchEventSink, profiles: DeviceProfiles, opener: DeviceOpener = SystemDeviceOpener(),
                grab: Bool, only: Set<String>? = nil, log: @escaping @Sendable (String) -> Void) {
        self.sink = sink
        self.profiles = profiles
        self.opener = opener
        self.grab = grab
        self.only = only
        self.log = log
    }

    /// Opens every device whose profile maps at least one switch; reports each.
    @discardableResult
    public func add(_ devices: [InputDeviceDescription]) -> [Report] {
        devices.map(add)
    }

    public func add(_ d: InputDeviceDescription) -> Report {
        if let only, !only.contains(d.node) {
            return Report(node: d.node, name: d.name, opened: false, problem: "not chosen with --device", sections: [])
        }
        // Its own keys and clicks must not come back as presses (a typed space would select).
        if d.isMadeBySwitchScan {
            return Report(node: d.node, name: d.name, opened: false, problem: "made by SwitchScan (its own keys or pointer), never a switch", sections: [])
        }
        let mapping = profiles.mapping(for: d)
        guard !mapping.isEmpty else {
            return Report(node: d.node, name: d.name, opened: false, problem: "no profile maps a switch on it", sections: mapping.sections)
        }
        // Chosen with --device, it is named.
        if d.needsNaming && !mapping.named && only == nil {
            return Report(node: d.node, name: d.name, opened: false, problem: DeviceMapping.unnamedProblem, sections: mapping.sections)
        }
        let device: EvdevDevice
        do { device = try EvdevDevice(path: d.node, opener: opener) } catch {
            return Report(node: d.node, name: d.name, opened: false, problem: error.description, sections: mapping.sections)
        }
        let codes = Array(mapping.switches.keys) + Array(mapping.axes.keys)
        guard codes.contains(where: device.hasCode) else {
            return Report(node: d.node, name: d.name, opened: false, problem: "it has none of the mapped codes", sections: mapping.sections)
        }
        // Devices are added from the main thread and the hotplug queue.
        idLock.lock()
        let id = nextID
        nextID += 1
        idLock.unlock()
        let state = Open(device: device, decoder: SwitchDecoder(mapping: mapping, deviceID: id, axisRanges: device.axisRanges(codes)),
                         switchCodes: codes, wantsGrab: grab)
        sink.perform { [self] in
            sink.preconditionOnThread()
            if let old = open[d.node] { sink.detach(fd: old.device.fd) }
            open[d.node] = state
            tryGrab(state)
            sink.attach(fd: device.fd) { [self] _ in
                var (events, gone, resynced) = device.readAvailable(into: &state.decoder)
                // Said, since presses made while events were lost are not acted on.
                if resynced { log("\(d.node) (\(d.name)): events were lost while SwitchScan was not reading them; the switch's state was read again, and a press made meanwhile was not acted on.") }
                if let gone {
                    events += state.decoder.releaseAll(at: sink.now)
                    open[d.node] = nil
                    log("\(d.node) (\(d.name)): \(gone.description) Scanning goes on; plug it back in to use it again.")
                    return (events, true)
                }
                tryGrab(state)
                return (events, false)
            }
        }
        return Report(node: d.node, name: d.name, opened: true, problem: nil, sections: mapping.sections)
    }

    /// The exclusive grab is taken only while no switch is held: grabbing mid-press would
    /// leave other programs seeing a key that never comes up.
    private func tryGrab(_ state: Open) {
        guard state.wantsGrab, !state.decoder.anyDown, !state.device.anyKeyDown(state.switchCodes) else { return }
        state.wantsGrab = false
        do { try state.device.grab() } catch { log("\(state.device.path): \(error.description)") }
    }

    public var openNodes: [String] { sink.performAndWait { [self] in open.keys.sorted() } ?? [] }

    /// Follows hotplug: new devices are opened with their profile, vanished ones released.
    public func followHotplug(_ udev: Udev) throws(InputError) {
        let m = try Udev.Monitor(udev)
        monitor = m
        let source = DispatchSource.makeReadSource(fileDescriptor: m.fd, queue: control)
        source.setEventHandler { [weak self] in
            guard let self, let m = self.monitor else { return }
            for change in m.changes() {
                switch change {
                case .added(let d):
                    let r = self.add(d)
                    if r.opened { self.log("\(d.node) (\(d.name)) connected; using it (\(r.sections.joined(separator: "; ")))") }
                    else if let p = r.problem, !r.sections.isEmpty { self.log("\(d.node) (\(d.name)) connected, not used: \(p)") }
                case .removed(let node):
                    self.remove(node)
                }
            }
        }
        source.activate()
        monitorSource = source
    }

    public func remove(_ node: String) {
        sink.perform { [self] in
            sink.preconditionOnThread()
            guard let state = open.removeValue(forKey: node) else { return }
            sink.detach(fd: state.device.fd)
            for e in state.decoder.releaseAll(at: sink.now) { sink.submit(e) }
            log("\(node) (\(state.device.name)) disconnected; scanning goes on.")
        }
    }

    /// Ungrabs and closes everything (every exit path calls this).
    public func closeAll() {
        monitorSource?.cancel()
        monitorSource = nil
        let release = { [self] in
            for (_, state) in open {
                sink.detach(fd: state.device.fd)
                state.device.ungrab()
            }
            open.removeAll()
        }
        // Once the sink's thread has ended, nothing else touches the devices: released here.
        if sink.performAndWait(release) == nil { release() }
    }
}

@testable import DesktopAccess
import ScanCore

/// DesktopFollower in virtual time, as DesktopAccess drives it: outputs carried out in
/// order, a read's result handed straight back, one wake timer. The desktop it reads is
/// `desktop`, a plain value the test changes.
struct FollowerHarness {
    /// What a read of the desktop finds.
    enum Desktop {
        /// A window of this application: its id, its elements (all framed), and a version
        /// that changes whenever what it shows changes.
        case window(bus: String, id: String, elements: [String], version: Int)
        /// No window that can be scanned.
        case nothing
        /// The application does not answer (a read times out).
        case hung(bus: String)
        /// The window went as it was read.
        case gone(bus: String)
    }

    var follower: DesktopFollower
    var now = ScanInstant.seconds(100)
    var desktop: Desktop
    /// An element read alone fails (it went away).
    var elementReadsFail = false

    private(set) var wake: ScanInstant?
    /// Every read asked for, with its time.
    private(set) var reads: [(at: ScanInstant, read: Read)] = []
    /// Every application said not to answer, with the time.
    private(set) var toldNotAnswering: [(at: ScanInstant, bus: String)] = []
    /// Every snapshot handed on, with its time.
    private(set) var delivered: [(at: ScanInstant, snapshot: DesktopSnapshot)] = []

    enum Read: Equatable { case window, elements(Set<String>) }

    /// What the last read showed, to say whether the next one changed.
    private var lastSeen: (id: String, version: Int)?

    init(_ desktop: Desktop, timing: DesktopFollower.Timing = .init()) {
        self.desktop = desktop
        follower = DesktopFollower(timing: timing)
    }

    var windowReads: [ScanInstant] { reads.filter { $0.read == .window }.map(\.at) }
    var readTimes: [ScanInstant] { reads.map(\.at) }
    var deliveryTimes: [ScanInstant] { delivered.map(\.at) }

    mutating func feed(_ input: DesktopFollower.Input) {
        var work = follower.handle(input, at: now)
        var i = 0
        while i < work.count {
            switch work[i] {
            case .readWindow:
                reads.append((now, .window))
                work += follower.handle(.read(readWindow()), at: now)
            case let .readElements(ids):
                reads.append((now, .elements(ids)))
                work += follower.handle(.read(readElements(ids)), at: now)
            case let .deliver(s):
                delivered.append((now, s))
            case let .wakeAt(t):
                wake = t
            case let .notAnswering(bus):
                toldNotAnswering.append((now, bus))
            }
            i += 1
        }
    }

    mutating func event(_ type: String, bus: String = ":1.5", id: String = "a1.5:root", rect: Rect? = nil) {
        feed(.event(DesktopEvent(type: type, bus: bus, id: id, rect: rect)))
    }

    /// Lets virtual time pass to `t`, waking the follower when it asked to be.
    mutating func advance(to t: ScanInstant) {
        while let w = wake, w <= t {
            now = max(now, w)
            wake = nil
            feed(.wake)
        }
        now = t
    }

    mutating func advance(_ d: ScanDuration) { advance(to: now + d) }

    static func ms(_ m: Int64) -> ScanDuration { .milliseconds(m) }

    private mutating func readWindow() -> DesktopFollower.ReadResult {
        switch desktop {
        case let .window(bus, id, elements, version):
            let changed = lastSeen.map { $0.id != id || $0.version != version } ?? true
            lastSeen = (id, version)
            return .window(Self.snapshot(id: id, elements: elements, version: version), bus: bus,
                           elements: Set(elements), framed: Set(elements + [id]), changed: changed)
        case .nothing:
            let changed = lastSeen?.id != "none"
            lastSeen = ("none", 0)
            return .window(Self.snapshot(id: "none", elements: [], version: 0), bus: nil, elements: [], framed: [], changed: changed)
        case let .hung(bus):
            if follower.isPassedOver(bus, at: now) { return .passedOver(bus: bus) }
            return .failed(bus: bus, timeout: true)
        case let .gone(bus):
            return .failed(bus: bus, timeout: false)
        }
    }

    private mutating func readElements(_ ids: Set<String>) -> DesktopFollower.ReadResult {
        guard case let .window(_, id, elements, version) = desktop, !elementReadsFail, lastSeen?.id == id else { return .elementsFailed }
        let changed = lastSeen?.version != version
        lastSeen = (id, version)
        return .elements(Self.snapshot(id: id, elements: elements, version: version), framed: Set(elements + [id]), changed: changed)
    }

    /// A window holding `elements` as buttons; the version is the first one's value.
    static func snapshot(id: String, elements: [String], version: Int) -> DesktopSnapshot {
        var root = ElementNode(id: id)
        root.children = Array(1...max(1, elements.count)).filter { _ in !elements.isEmpty }
        var nodes = [root]
        for (k, e) in elements.enumerated() {
            var n = ElementNode(id: e)
            n.isAccessibilityElement = true
            n.label = e
            n.value = k == 0 ? "\(version)" : nil
            n.parent = 0
            n.frame = Rect(x: Double(10 * k), y: 0, width: 10, height: 10)
            nodes.append(n)
        }
        let window = DesktopWindow(id: id, title: id, role: "frame", active: true, modal: false, frame: nil)
        return DesktopSnapshot(tree: ElementTree(screenID: id, size: (800, 600), naturalOrder: .document, nodes: nodes),
                               application: "app", window: window, nodeCount: nodes.count, truncated: false)
    }
}

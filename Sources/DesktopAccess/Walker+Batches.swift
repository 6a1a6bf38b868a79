#if canImport(Glibc)
import Glibc
#endif
import CAtspi
import ScanCore

// Batched reads: many elements' properties asked in one round trip, and their failures.
extension Walker {
    static func errorName(of b: CatspiBatch) -> String {
        withUnsafeBytes(of: b.error_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// What ends a read when a batch of `n` requests to `ref`'s application failed: no
    /// answer (slow, or gone: a process that dies leaves NoReply errors too), or only the
    /// error that says it is gone. Nil when the batch went through.
    static func failure(of b: CatspiBatch, n: Int, asking ref: AccessibleRef) -> AtspiCallError? {
        if b.timed_out != 0 {
            let gone = Atspi.probe(ref) == .gone
            return AtspiCallError(kind: gone ? .gone : .timeout, domain: "dbus", code: 0,
                                  message: gone ? "the application went away" : "org.freedesktop.DBus.Error.NoReply",
                                  progress: (Int(b.answered), n))
        }
        let name = errorName(of: b)
        if !name.isEmpty && AtspiCallError.kind(ofDBusError: name) == .gone && b.answered == 0 {
            return AtspiCallError(kind: .gone, domain: "dbus", code: 0, message: name)
        }
        return nil
    }

    /// The texts and values the walk put off, each kind in one batch where batches are
    /// used; one element at a time through libatspi for what a batch did not read.
    mutating func readDeferred() throws(AtspiCallError) {
        let pending = pendingReads.filter { $0.node < nodes.count && nodes[$0.node].id == $0.id }
        pendingReads.removeAll()
        var texts: [(node: Int, ref: AccessibleRef)] = []
        var values: [(node: Int, id: String, ref: AccessibleRef, role: AtspiRole, acts: Bool)] = []
        for p in pending {
            switch p.read {
            case .text: texts.append((p.node, p.ref))
            case .value(let role, let acts): values.append((p.node, p.id, p.ref, role, acts))
            }
        }
        var ranges = [Atspi.ValueRange?](repeating: nil, count: values.count)
        if useBatches && !values.isEmpty {
            let b: CatspiBatch
            (ranges, b) = Self.valuesBatch(values.map(\.ref))
            if let failure = Self.failure(of: b, n: values.count, asking: values[0].ref) { throw failure }
        }
        for (k, p) in values.enumerated() {
            if let v = ranges[k] {
                // A slider's range is kept for a read of it alone (`value`).
                if RoleMapping.keepsRange(p.role) && known.ranges[p.id] == nil { known.ranges[p.id] = .some(v) }
                applyValue(v, to: p.node, acts: p.acts)
            } else {
                applyValue(try value(p.ref, id: p.id, role: p.role), to: p.node, acts: p.acts)
            }
        }
        guard !texts.isEmpty else { return }
        var got = [String?](repeating: nil, count: texts.count)
        if useBatches {
            let n = texts.count
            var raw = [UnsafeMutablePointer<CChar>?](repeating: nil, count: n)
            var b = CatspiBatch()
            let objects: [UnsafeMutablePointer<AtspiAccessible>?] = texts.map { $0.ref.pointer }
            objects.withUnsafeBufferPointer { objs in
                catspi_texts_batch(objs.baseAddress, Int32(n), Self.textLimit, Int32(Atspi.callTimeoutMilliseconds), &raw, &b)
            }
            for k in 0..<n {
                if let t = raw[k] { got[k] = String(cString: t) }
                free(raw[k])
            }
            if let failure = Self.failure(of: b, n: n, asking: texts[0].ref) { throw failure }
        }
        for (k, p) in texts.enumerated() {
            guard let text = got[k] ?? Atspi.text(p.ref, limit: Self.textLimit) else { continue }
            nodes[p.node].value = text.isEmpty ? nil : text
        }
    }

    /// An adjustable control with a range is adjusted by its step (a twentieth of the range
    /// where it has none); one without shows a value only. One without actions or a range
    /// is acted on by a click.
    mutating func applyValue(_ value: Atspi.ValueRange?, to index: Int, acts: Bool) {
        var node = nodes[index]
        if let v = value, v.max > v.min {
            var step = v.step
            if !(step > 0) { step = (v.max - v.min) / 20 }
            let decimals = Self.decimals(of: step)
            node.adjustable = Adjustable(kind: .numeric(min: v.min, max: v.max, step: step, decimals: decimals, format: "{value}"),
                                         current: min(v.max, max(v.min, v.current)))
            node.traits.insert(.adjustable)
        } else {
            node.traits.insert(.staticText)
        }
        if node.traits.isEmpty || (!acts && node.adjustable == nil) { node.respondsToUserInteraction = true }
        nodes[index] = node
    }

    /// A field's text is read up to this many characters.
    static let textLimit: Int32 = 200

    /// States, name, child count and role read ahead for several objects at once.
    struct Basics { var states: StateBits; var name: String; var childCount: Int; var role: AtspiRole }

    /// The children libatspi has not cached (a window newer than its first look at the
    /// application; GTK 3's `transient` tree-view cells, which it never caches), read
    /// together, by index: else each getter of each is a round trip.
    func readAhead(_ kids: [AccessibleRef]) -> [Int: Basics] {
        guard useBatches else { return [:] }
        let picks = kids.indices.filter {
            known.transient.contains(Self.id(of: kids[$0])) || _atspi_accessible_test_cache(kids[$0].pointer, ATSPI_CACHE_STATES) == 0
        }
        guard picks.count >= 2 else { return [:] }
        let n = picks.count
        var states = [UInt64](repeating: 0, count: n)
        var names = [UnsafeMutablePointer<CChar>?](repeating: nil, count: n)
        var counts = [Int32](repeating: 0, count: n)
        var roles = [UInt32](repeating: 0, count: n)
        var ok = [UInt8](repeating: 0, count: n)
        var b = CatspiBatch()
        let objects: [UnsafeMutablePointer<AtspiAccessible>?] = picks.map { kids[$0].pointer }
        // What the batch did not read (it could not be sent, an error, no answer) is read by
        // the walk one object at a time.
        objects.withUnsafeBufferPointer { objs in
            catspi_basics_batch(objs.baseAddress, Int32(n), Int32(Atspi.callTimeoutMilliseconds), &states, &names, &counts, &roles, &ok, &b)
        }
        var out: [Int: Basics] = [:]
        for (k, i) in picks.enumerated() {
            defer { free(names[k]) }
            guard ok[k] != 0, let name = names[k] else { continue }
            out[i] = Basics(states: StateBits(raw: states[k]), name: String(cString: name), childCount: Int(max(0, counts[k])),
                            role: AtspiRole(rawValue: roles[k]))
        }
        return out
    }

    /// The action names of the children that are controls seen for the first time (a new
    /// window: a dialog just opened), asked for together: libatspi asks for the count and
    /// then each name, a round trip each, which made most of a new dialog's first read.
    /// What the batch did not read is read by the walk one object at a time.
    mutating func readActionsAhead(_ kids: [AccessibleRef], ahead: [Int: Basics]) {
        guard useBatches, kids.count >= 2 else { return }
        var picks: [(id: String, ref: AccessibleRef)] = []
        for (i, c) in kids.enumerated() {
            let id = Self.id(of: c)
            guard known.actions[id] == nil else { continue }
            let states = ahead[i]?.states ?? Atspi.states(c)
            guard states.has(shownState) || (inDocument && states.has(ATSPI_STATE_VISIBLE)) else { continue }
            guard let role = known.roles[id].map({ AtspiRole(rawValue: $0) }) ?? ahead[i]?.role ?? (try? Atspi.role(c)) else { continue }
            known.roles[id] = role.rawValue
            switch RoleMapping.kind(of: role, inDocument: inDocument, selectable: states.has(ATSPI_STATE_SELECTABLE)) {
            case .control, .adjustable, .textEntry:
                // Where libatspi does not know the interfaces, the batch finds out.
                if _atspi_accessible_test_cache(c.pointer, ATSPI_CACHE_INTERFACES) == 0 || Atspi.hasInterface(c, .action) {
                    picks.append((id, c))
                } else {
                    known.actions[id] = []
                }
            default:
                continue
            }
        }
        guard picks.count >= 2 else { return }
        let n = picks.count
        var counts = [Int32](repeating: -1, count: n)
        var names = [UnsafeMutablePointer<CChar>?](repeating: nil, count: n)
        var b = CatspiBatch()
        let objects: [UnsafeMutablePointer<AtspiAccessible>?] = picks.map { $0.ref.pointer }
        objects.withUnsafeBufferPointer { objs in
            catspi_actions_batch(objs.baseAddress, Int32(n), Int32(Atspi.callTimeoutMilliseconds), &counts, &names, &b)
        }
        for (k, p) in picks.enumerated() {
            defer { free(names[k]) }
            guard counts[k] >= 0 else { continue }
            known.actions[p.id] = counts[k] == 0 ? [] : String(cString: names[k]!).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
    }

    /// The values of a container's progress and level bars, asked for together: whether
    /// one without a name is kept depends on its value. libatspi asks for a value's
    /// minimum, maximum, current value and step one after the other, each a round trip. What the batch did not read is read by the walk one object at a time.
    mutating func readValuesAhead(_ kids: [AccessibleRef], ahead: [Int: Basics]) {
        guard useBatches else { return }
        var picks: [(id: String, ref: AccessibleRef)] = []
        for (i, c) in kids.enumerated() {
            let id = Self.id(of: c)
            guard let role = known.roles[id] ?? ahead[i]?.role.rawValue, RoleMapping.showsValue(AtspiRole(rawValue: role)) else { continue }
            let states = ahead[i]?.states ?? Atspi.states(c)
            guard states.has(shownState) || (inDocument && states.has(ATSPI_STATE_VISIBLE)) else { continue }
            picks.append((id, c))
        }
        guard !picks.isEmpty else { return }
        for (p, v) in zip(picks, Self.valuesBatch(picks.map(\.ref)).ranges) where v != nil { valuesAhead[p.id] = v }
    }

    /// The values of `refs` in one batch: nil where one did not come.
    static func valuesBatch(_ refs: [AccessibleRef]) -> (ranges: [Atspi.ValueRange?], batch: CatspiBatch) {
        let n = refs.count
        var out = [Double](repeating: 0, count: 4 * n)
        var ok = [UInt8](repeating: 0, count: n)
        var b = CatspiBatch()
        let objects: [UnsafeMutablePointer<AtspiAccessible>?] = refs.map(\.pointer)
        objects.withUnsafeBufferPointer { objs in
            catspi_values_batch(objs.baseAddress, Int32(n), Int32(Atspi.callTimeoutMilliseconds), &out, &ok, &b)
        }
        let ranges = (0..<n).map { k in
            ok[k] == 0 ? nil : Atspi.ValueRange(min: out[4 * k], max: out[4 * k + 1], current: out[4 * k + 2], step: out[4 * k + 3])
        }
        return (ranges, b)
    }
}

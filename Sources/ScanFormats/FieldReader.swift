import ScanCore

/// Collects diagnostics while reading typed fields out of JSON values, so a file reports all
/// its mistakes at once instead of stopping at the first.
struct FieldReader {
    let file: String
    var diagnostics: [Diagnostic] = []

    init(file: String) { self.file = file }

    var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    mutating func report(_ severity: Diagnostic.Severity, _ code: String, _ offset: Int,
                         _ path: String, _ element: String?, _ message: String) {
        diagnostics.append(Diagnostic(severity, code, file: file, offset: offset, path: path,
                                      element: element, message))
    }

    mutating func report(_ code: String, _ offset: Int, _ path: String, _ element: String?, _ message: String) {
        report(.error, code, offset, path, element, message)
    }

    /// The members of an object; unknown keys are reported with the nearest known one.
    /// `elsewhere` explains known fields that belong in another kind of file.
    mutating func object(_ v: JSONValue, _ path: @autoclosure () -> String, _ element: String?, allowed: KeySet,
                         unknownCode: String = "E03", elsewhere: [String: String] = [:]) -> ObjectView? {
        guard v.kind == .object else {
            report("E04", v.offset, path(), element, "must be an object, got \(v.kindName)")
            return nil
        }
        // One walk over the keys on the tape: the bucket mask, and unknown keys reported
        // with the nearest known one.
        let doc = v.document
        var view = ObjectView(document: doc, index: v.index)
        var k = v.index + 1
        let end = Int(doc.tokens[v.index].end)
        while k < end {
            let bucket = doc.tokens[k].bucket
            view.mask |= 1 << UInt64(bucket)
            if let p = allowed.position(doc, k, bucket: bucket) {
                if p < 64 { view.present |= 1 << UInt64(p) }
            } else {
                let m = JSONMember(document: doc, keyIndex: k)
                var msg = "unknown field \"\(m.key)\""
                if let note = elsewhere[m.key] { msg += "; \(note)" }
                else if let s = suggestion(for: m.key, among: allowed.names) { msg += "; did you mean \"\(s)\"?" }
                else { msg += "; allowed: \(quotedList(allowed.names))" }
                report(unknownCode, m.keyOffset, path() + "." + m.key, element, msg)
            }
            k = doc.next(k + 1)
        }
        return view
    }

    mutating func require(_ dict: ObjectView, _ key: Key, in v: JSONValue, _ path: @autoclosure () -> String,
                          _ element: String?, code: String = "E04") -> JSONMember? {
        if let m = dict[key] { return m }
        report(code, v.offset, path(), element, "missing required field \"\(key.name)\"")
        return nil
    }

    mutating func bool(_ m: JSONMember?, _ path: @autoclosure () -> String, _ element: String?) -> Bool? {
        guard let m else { return nil }
        if let b = m.value.bool { return b }
        report("E04", m.value.offset, path() + "." + m.key, element, "must be true or false, got \(m.value.kindName)")
        return nil
    }

    mutating func string(_ m: JSONMember?, _ path: @autoclosure () -> String, _ element: String?) -> String? {
        guard let m else { return nil }
        if let s = m.value.string { return s }
        report("E04", m.value.offset, path() + "." + m.key, element, "must be a string, got \(m.value.kindName)")
        return nil
    }

    mutating func number(_ m: JSONMember?, _ path: @autoclosure () -> String, _ element: String?) -> Double? {
        guard let m else { return nil }
        if let d = m.value.number { return d }
        report("E04", m.value.offset, path() + "." + m.key, element, "must be a number, got \(m.value.kindName)")
        return nil
    }

    mutating func integer(_ m: JSONMember?, _ path: @autoclosure () -> String, _ element: String?) -> Int? {
        guard let d = number(m, path(), element) else { return nil }
        guard d == d.rounded(), abs(d) < 1e15 else {
            report("E04", m!.value.offset, path() + "." + m!.key, element, "must be a whole number, got \(d)")
            return nil
        }
        return Int(d)
    }

    mutating func array(_ m: JSONMember?, _ path: @autoclosure () -> String, _ element: String?) -> JSONArray? {
        guard let m else { return nil }
        if let a = m.value.array { return a }
        report("E04", m.value.offset, path() + "." + m.key, element, "must be an array, got \(m.value.kindName)")
        return nil
    }

    mutating func enumValue<E: RawRepresentable & CaseIterable>(_ m: JSONMember?, _ type: E.Type, _ path: @autoclosure () -> String,
                                                                 _ element: String?) -> E? where E.RawValue == String {
        guard let s = string(m, path(), element) else { return nil }
        if let e = E(rawValue: s) { return e }
        let allowed = E.allCases.map(\.rawValue)
        var msg = "unknown value \"\(s)\"; allowed: \(quotedList(allowed))"
        if let sug = suggestion(for: s, among: allowed) { msg += "; did you mean \"\(sug)\"?" }
        report("E04", m!.value.offset, path() + "." + m!.key, element, msg)
        return nil
    }

    mutating func point(_ m: JSONMember?, _ path: @autoclosure () -> String, _ element: String?) -> Point? {
        guard let m else { return nil }
        func p() -> String { path() + "." + m.key }
        guard let d = object(m.value, p(), element, allowed: KeySets.point) else { return nil }
        let x = number(require(d, K.x, in: m.value, p(), element), p(), element)
        let y = number(require(d, K.y, in: m.value, p(), element), p(), element)
        guard let x, let y else { return nil }
        return Point(x: x, y: y)
    }

    /// A rectangle; negative sizes are E06.
    mutating func rect(_ m: JSONMember?, _ path: @autoclosure () -> String, _ element: String?) -> Rect? {
        guard let m else { return nil }
        if let r = m.value.document.plainRect(at: m.value.index) { return r }
        func p() -> String { path() + "." + m.key }
        guard let d = object(m.value, p(), element, allowed: KeySets.rect) else { return nil }
        let x = number(require(d, K.x, in: m.value, p(), element), p(), element)
        let y = number(require(d, K.y, in: m.value, p(), element), p(), element)
        var w = number(require(d, K.width, in: m.value, p(), element), p(), element)
        var h = number(require(d, K.height, in: m.value, p(), element), p(), element)
        if let wv = w, wv < 0 {
            report("E06", d[K.width]!.value.offset, p() + ".width", element, "must be >= 0, got \(format(wv))"); w = nil
        }
        if let hv = h, hv < 0 {
            report("E06", d[K.height]!.value.offset, p() + ".height", element, "must be >= 0, got \(format(hv))"); h = nil
        }
        guard let x, let y, let w, let h else { return nil }
        return Rect(x: x, y: y, width: w, height: h)
    }
}

/// Numbers as a person wrote them: 4, not 4.0.
func format(_ d: Double) -> String {
    if d == d.rounded() && abs(d) < 1e15 { return String(Int64(d)) }
    return String(d)
}

func format(_ r: Rect) -> String {
    "{x:\(format(r.x)), y:\(format(r.y)), width:\(format(r.width)), height:\(format(r.height))}"
}

/// An object's members, looked up by a linear scan: objects in data files have a handful of
/// keys, and comparing short strings is cheaper than hashing them.
struct ObjectView {
    let document: DocumentRef
    let index: Int
    /// One bit per key bucket present: most lookups are for absent optional fields, and
    /// this answers them without comparing a single byte.
    var mask: UInt64 = 0
    /// One bit per field of the allowed set present, by its position in the set's names
    /// (the first 64): a reader asks `has` before reading a rarely used field.
    var present: UInt64 = 0

    /// Whether the field at `position` in the allowed set's names is present.
    @inline(__always) func has(position: Int) -> Bool { present & (1 << UInt64(position)) != 0 }

    subscript(key: Key) -> JSONMember? {
        guard mask & (1 << UInt64(key.bucket)) != 0 else { return nil }
        return document.member(of: index, key).map { JSONMember(document: document, keyIndex: $0) }
    }

    subscript(key: String) -> JSONMember? { self[Key(key)] }
}

/// A field name with its bucket and bytes computed once. The bytes are stored inline, so a
/// Key is plain data: passing and copying one costs no reference counting.
struct Key: Sendable {
    static let capacity = 32
    private let bytes: (UInt64, UInt64, UInt64, UInt64)
    let count: Int
    let bucket: UInt8

    init(_ name: String) {
        let u = Array(name.utf8)
        precondition(u.count <= Self.capacity, "field names are at most \(Self.capacity) bytes")
        var b: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &b) { raw in
            for (k, c) in u.enumerated() { raw[k] = c }
        }
        bytes = b
        count = u.count
        bucket = UInt8(KeySet.bucket(name))
    }

    var name: String { withUTF8 { String(decoding: $0, as: UTF8.self) } }

    /// Whether the `count` bytes at `p` are this key, a word at a time: names are short, and
    /// this runs for every key of every object read. At least `capacity` bytes must be
    /// readable at `p` (the document pads its text for this).
    @inline(__always)
    func matches(_ p: UnsafeRawPointer) -> Bool {
        @inline(__always) func word(_ k: Int) -> UInt64 { UInt64(littleEndian: p.loadUnaligned(fromByteOffset: k * 8, as: UInt64.self)) }
        @inline(__always) func mask(_ k: Int) -> UInt64 {
            let left = count - k * 8
            return left >= 8 ? ~0 : (1 << UInt64(left * 8)) &- 1
        }
        if (word(0) ^ UInt64(littleEndian: bytes.0)) & mask(0) != 0 { return false }
        if count <= 8 { return true }
        if (word(1) ^ UInt64(littleEndian: bytes.1)) & mask(1) != 0 { return false }
        if count <= 16 { return true }
        if (word(2) ^ UInt64(littleEndian: bytes.2)) & mask(2) != 0 { return false }
        if count <= 24 { return true }
        return (word(3) ^ UInt64(littleEndian: bytes.3)) & mask(3) == 0
    }

    func withUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        withUnsafeBytes(of: bytes) { raw in
            body(UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count))
        }
    }
}

/// The field names looked up while reading data files.
enum K {
    static let activationPoint = Key("activationPoint")
    static let activationPointOutsideFrame = Key("activationPointOutsideFrame")
    static let adjustable = Key("adjustable")
    static let argument = Key("argument")
    static let children = Key("children")
    static let customActions = Key("customActions")
    static let customContent = Key("customContent")
    static let customRotors = Key("customRotors")
    static let data = Key("data")
    static let decimals = Key("decimals")
    static let directions = Key("directions")
    static let effects = Key("effects")
    static let element = Key("element")
    static let elements = Key("elements")
    static let elementsHidden = Key("elementsHidden")
    static let field = Key("field")
    static let focusAfterTap = Key("focusAfterTap")
    static let frame = Key("frame")
    static let frameInContainer = Key("frameInContainer")
    static let groupItems = Key("groupItems")
    static let height = Key("height")
    static let hidden = Key("hidden")
    static let hint = Key("hint")
    static let id = Key("id")
    static let image = Key("image")
    static let importance = Key("importance")
    static let index = Key("index")
    static let initialFocus = Key("initialFocus")
    static let isAccessibilityElement = Key("isAccessibilityElement")
    static let itemScope = Key("itemScope")
    static let label = Key("label")
    static let labelFromChildren = Key("labelFromChildren")
    static let labelSpans = Key("labelSpans")
    static let language = Key("language")
    static let largeContent = Key("largeContent")
    static let longPressAction = Key("longPressAction")
    static let loops = Key("loops")
    static let max = Key("max")
    static let min = Key("min")
    static let modalScope = Key("modalScope")
    static let mode = Key("mode")
    static let name = Key("name")
    static let naturalOrder = Key("naturalOrder")
    static let navigationStyle = Key("navigationStyle")
    static let onActivate = Key("onActivate")
    static let onChange = Key("onChange")
    static let onEscape = Key("onEscape")
    static let onMagicTap = Key("onMagicTap")
    static let onTap = Key("onTap")
    static let path = Key("path")
    static let precise = Key("precise")
    static let respondsToUserInteraction = Key("respondsToUserInteraction")
    static let root = Key("root")
    static let schemaVersion = Key("schemaVersion")
    static let screen = Key("screen")
    static let scroll = Key("scroll")
    static let shouldGroupChildren = Key("shouldGroupChildren")
    static let size = Key("size")
    static let sortPriority = Key("sortPriority")
    static let spokenAppName = Key("spokenAppName")
    static let step = Key("step")
    static let style = Key("style")
    static let tapBehavior = Key("tapBehavior")
    static let targets = Key("targets")
    static let text = Key("text")
    static let title = Key("title")
    static let traits = Key("traits")
    static let value = Key("value")
    static let valueFormat = Key("valueFormat")
    static let values = Key("values")
    static let viewIsModal = Key("viewIsModal")
    static let virtual = Key("virtual")
    static let visible = Key("visible")
    static let width = Key("width")
    static let x = Key("x")
    static let y = Key("y")
}

/// The field names an object may have, bucketed by a cheap hash of length and end bytes.
struct KeySet: ExpressibleByArrayLiteral, Sendable {
    let names: [String]
    /// The keys sorted by bucket; `starts[b]..<starts[b + 1]` are those of bucket b.
    private let keys: [Key]
    /// Each sorted key's position in `names`.
    private let positions: [Int]
    private let starts: [UInt16]

    init(_ names: [String]) {
        self.names = names
        let sorted = names.enumerated().map { (Key($0.element), $0.offset) }.sorted { $0.0.bucket < $1.0.bucket }
        keys = sorted.map(\.0)
        positions = sorted.map(\.1)
        // One pass: count each bucket, then running sums (sets are built per object read
        // for the rarer fields, so this stays cheap).
        var s = [UInt16](repeating: 0, count: 65)
        for k in keys { s[Int(k.bucket) + 1] += 1 }
        for b in 0..<64 { s[b + 1] += s[b] }
        starts = s
    }

    init(arrayLiteral elements: String...) { self.init(elements) }

    /// The position in `names` of the field the key token at `k` of `document` names; nil
    /// when it is none of these.
    func position(_ document: DocumentRef, _ k: Int, bucket: UInt8) -> Int? {
        let b = Int(bucket)
        for i in Int(starts[b])..<Int(starts[b + 1]) where document.equals(k, keys[i]) { return positions[i] }
        return nil
    }

    /// Length and end bytes: cheap, and the JSON parser computes the same from raw bytes.
    static func bucket(_ key: String) -> UInt64 {
        let u = Array(key.utf8)
        guard let first = u.first, let last = u.last else { return 0 }
        return bucket(count: u.count, first: first, last: last)
    }

    @inline(__always)
    static func bucket(count: Int, first: UInt8, last: UInt8) -> UInt64 {
        (UInt64(truncatingIfNeeded: count) &* 7 &+ UInt64(first) &* 3 &+ UInt64(last)) & 63
    }
}

/// Key sets of the objects read for every node, built once.
enum KeySets {
    static let point: KeySet = ["x", "y"]
    static let rect: KeySet = ["x", "y", "width", "height"]
}

import ScanCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loaded screen: the element tree, and the warnings its file raised.
public struct LayoutDocument: Sendable {
    public var tree: ElementTree
    public var title: String?
    public var warnings: [Diagnostic]
    /// How many readers read the nodes: 2 when a large file was read in two halves.
    public internal(set) var readers = 1
}

/// Reads layout files (schema version 1, Layouts/README.md) into ElementTrees. Every error
/// names file, line:column, JSON path and element id; all errors of a file are reported;
/// a file with any error yields no tree at all.
public enum LayoutLoader {
    /// Files past this size are refused before parsing (a layout of a million elements is
    /// about 150 MB).
    public static let maxFileSize = 512 << 20
    /// Element nesting past this is refused (the JSON parser's own limit is twice that).
    public static let maxElementDepth = 200

    /// Files from this size up are read on two threads where the machine has two CPUs
    /// (the root's children split in two halves of the file); smaller ones on one, where
    /// starting a thread would cost more than it saves. The result is the same either way.
    public static let splitReadMinimumBytes = 1 << 20

    /// Runs ScanCore's two jobs at once (the scan-list build of a large screen, which
    /// ScanCore cannot start threads for); nil where the affinity mask allows one CPU.
    public static let runOnTwoCPUs: ScanTreeBuilder.RunBoth? = mayUseTwoCPUs ? runBoth : nil

    @Sendable static func runBoth(_ first: () -> Void, _ second: () -> Void) {
        _ = bothAtOnce(first, second)
    }

    /// `splitAbove`: the size from which the read is split; `Int.max` never splits.
    public static func load(bytes: [UInt8], file: String, splitAbove: Int = splitReadMinimumBytes) throws(DataFileError) -> LayoutDocument {
        try checkSize(bytes, file: file)
        return try read(parseDataFile(bytes, file: file), bytes: bytes, file: file, splitAbove: splitAbove)
    }

    /// A file already parsed (by `validate`, to tell layouts from settings).
    public static func load(_ parsed: ParsedDataFile) throws(DataFileError) -> LayoutDocument {
        try checkSize(parsed.bytes, file: parsed.file)
        return try read(parsed.document, bytes: parsed.bytes, file: parsed.file, splitAbove: splitReadMinimumBytes)
    }

    /// Refuses files past `maxFileSize`; callers check before parsing where they can.
    public static func checkSize(_ bytes: [UInt8], file: String) throws(DataFileError) {
        if bytes.count > maxFileSize {
            throw DataFileError(file: file, diagnostics: [Diagnostic(.error, "E01", file: file, offset: 0, path: "$",
                element: nil, "file is \(bytes.count >> 20) MiB; layout and settings files are limited to \(maxFileSize >> 20) MiB")])
        }
    }

    static func read(_ document: JSONDocument, bytes: [UInt8], file: String, splitAbove: Int) throws(DataFileError) -> LayoutDocument {
        // Every node is a JSON object, so the file's object count bounds the nodes: their
        // storage is allocated once and each node is built where it stays (`Slots`). The
        // tree keeps that capacity (about twice the nodes in layouts); pages never written
        // take no memory.
        let capacity = max(1, document.objectCount)
        let info = UnsafeMutablePointer<NodeInfo>.allocate(capacity: capacity)
        preferHugePages(info, count: capacity)
        var reader = LayoutReader(file: file)
        reader.info = Slots(info, capacity: capacity)
        defer {
            info.deinitialize(count: reader.info.end)
            info.deallocate()
        }
        reader.bytes = bytes
        reader.splitRead = bytes.count >= splitAbove && (mayUseTwoCPUs || splitAbove == 0)
        reader.firstID.reserveCapacity(min(capacity, bytes.count / 100))
        var screen: LayoutReader.Screen?
        // The nodes are read into the tree's own array. The values read are views into the
        // document: it stays alive through the read.
        let nodes = withExtendedLifetime(document) {
            [ElementNode](unsafeUninitializedCapacity: capacity) { buffer, count in
                preferHugePages(buffer.baseAddress!, count: capacity)
                reader.nodes = Slots(buffer.baseAddress!, capacity: capacity)
                screen = reader.readNodes(document.root)
                count = reader.nodes.end
                reader.nodes = Slots()  // the array's from here on
            }
        }
        let result = screen.flatMap { reader.finish($0, nodes: nodes) }
        let diagnostics = locate(reader.fields.diagnostics, in: bytes)
        guard let (tree, title) = result, !diagnostics.contains(where: { $0.severity == .error }) else {
            throw DataFileError(file: file, diagnostics: diagnostics)
        }
        return LayoutDocument(tree: tree, title: title, warnings: diagnostics, readers: reader.readers)
    }
}

/// A node's fields, in the order of `nodeKeys`: a field's raw value is its bit in
/// `ObjectView.present`, so absent fields are skipped without a lookup.
enum NodeField: Int, CaseIterable {
    case id, virtual, visible, isAccessibilityElement, label, labelSpans, labelFromChildren,
         value, hint, traits, language, frame, frameInContainer, path, activationPoint,
         activationPointOutsideFrame, hidden, elementsHidden, viewIsModal, modalScope,
         shouldGroupChildren, navigationStyle, elements, sortPriority, respondsToUserInteraction,
         customActions, adjustable, customContent, customRotors, largeContent, onActivate, onTap,
         onEscape, onMagicTap, scroll, onFocus, onBlur, children

    var name: String { "\(self)" }

    // Masks of fields that are read together; computed, so they fold to constants.
    @inline(__always) var bit: UInt64 { 1 << UInt64(rawValue) }
    static var containerOnly: UInt64 { navigationStyle.bit | shouldGroupChildren.bit | viewIsModal.bit }
    static var elementOnly: UInt64 { label.bit | traits.bit | customActions.bit | adjustable.bit }
    static var rare: UInt64 {
        language.bit | hidden.bit | elementsHidden.bit | viewIsModal.bit | modalScope.bit | shouldGroupChildren.bit
            | navigationStyle.bit | sortPriority.bit | respondsToUserInteraction.bit
    }
    static var handlersAndContent: UInt64 {
        onActivate.bit | onTap.bit | onEscape.bit | onMagicTap.bit | onFocus.bit | onBlur.bit
            | customContent.bit | customRotors.bit | largeContent.bit | scroll.bit
    }
}
/// The key sets and names a reader looks up for every node, in arrays of its own: two
/// readers sharing one set of arrays would count references on the same memory from two
/// CPUs, and that contention cost more than the second CPU gained (measured).
struct Vocabulary {
    let nodeKeys: KeySet
    let traitKeys: [(Key, Trait)]
    let traitNames: [String]
    let customActionKeys: KeySet
    let effectVerbs: [(verb: Key, keys: KeySet)]
    /// Trait words a label need not say (W24): VoiceOver speaks the trait anyway.
    let traitWords: [(Trait, String)]
    /// Words that describe a gesture rather than its result (W24).
    let gestureWords: [String]

    init() {
        // Presence is one bit per field of a UInt64.
        precondition(NodeField.allCases.count <= 64, "NodeField has more fields than ObjectView.present has bits")
        nodeKeys = KeySet(NodeField.allCases.map(\.name))
        /// Trait names as keys, so a trait is recognised from its bytes without decoding it.
        traitKeys = Trait.allCases.map { (Key($0.rawValue), $0) }
        traitNames = Trait.allCases.map(\.rawValue)
        customActionKeys = ["name", "effects"]
        // Each effect verb with the fields it allows, built once: a KeySet is costly to build.
        effectVerbs = [
            ("emit", ["data"]), ("set", []), ("toggle", []), ("post", ["argument"]), ("loadScreen", []), ("result", []),
        ].map { (Key($0.0), KeySet([$0.0] + $0.1)) }
        traitWords = [(.button, "button"), (.link, "link"), (.image, "image"), (.header, "heading"), (.adjustable, "adjustable")]
        gestureWords = ["double tap", "double-tap", "tap", "swipe", "flick", "click"]
    }

    /// For the reader on the calling thread.
    static let shared = Vocabulary()
}
extension ObjectView {
    @inline(__always) func has(_ f: NodeField) -> Bool { has(position: f.rawValue) }
}
let unusedHandlerKeys = ["onMagicTap", "onFocus", "onBlur"].map(Key.init)
let containerOnlyKeys = ["navigationStyle", "shouldGroupChildren", "viewIsModal"].map(Key.init)
let elementOnlyKeys = ["label", "traits", "customActions", "adjustable"].map(Key.init)

/// Traits that W18 says are mutually exclusive.
let controlTraits = TraitSet([.button, .link, .searchField, .keyboardKey])

/// Per-node facts the second (cross-reference) pass needs.
struct NodeInfo {
    /// The node's JSON path is rebuilt from these only when a message needs it.
    var parent: Int32
    var position: Int32
    var idOffset: Int
    var subtreeEnd = 0
    var elements: [(id: String, offset: Int)]?
    var elementsOffset = 0
    var explicitAccessibility: Bool?
    var explicitFrame: Bool
}

struct IDReference {
    var id: String
    var offset: Int
    var path: String
    var element: String?
    var what: String
}

/// Storage of a fixed capacity that a reader fills in place, by whole-tree index: a node is
/// built where it stays instead of being copied (168 bytes) into a growing array, and the
/// two readers of a split read fill disjoint ranges of one buffer, so nothing is merged.
/// The owner allocates the memory and deinitializes `0..<end` once every range is joined.
struct Slots<Element> {
    private let base: UnsafeMutablePointer<Element>?
    /// This reader's initialized range, `start..<end`; it may append up to `limit`.
    let start: Int
    private(set) var end: Int
    private(set) var limit: Int

    /// No storage: nothing can be appended or read.
    init() { base = nil; start = 0; end = 0; limit = 0 }
    init(_ base: UnsafeMutablePointer<Element>, capacity: Int) {
        self.base = base; start = 0; end = 0; limit = capacity
    }
    private init(base: UnsafeMutablePointer<Element>?, start: Int, limit: Int) {
        self.base = base; self.start = start; end = start; self.limit = limit
    }

    var indices: Range<Int> { start..<end }
    var isEmpty: Bool { end == start }

    /// In place; only this reader's own range (the other reader may be writing the rest).
    subscript(i: Int) -> Element {
        unsafeAddress {
            precondition(i >= start && i < end, "slot \(i) outside \(start)..<\(end)")
            return UnsafePointer(base.unsafelyUnwrapped + i)
        }
        unsafeMutableAddress {
            precondition(i >= start && i < end, "slot \(i) outside \(start)..<\(end)")
            return base.unsafelyUnwrapped + i
        }
    }

    /// Initializes the next slot; the pointer stays valid (the storage never moves).
    mutating func append(_ e: consuming Element) -> UnsafeMutablePointer<Element> {
        precondition(end < limit, "more slots than the \(limit - start) counted")
        let p = base.unsafelyUnwrapped + end
        p.initialize(to: e)
        end += 1
        return p
    }

    /// Hands the slots from `k` on to another reader; this one may then fill only up to `k`.
    mutating func handOff(from k: Int) -> Slots {
        precondition(k >= end && k <= limit)
        defer { limit = k }
        return Slots(base: base, start: k, limit: limit)
    }

    /// Takes back the slots handed off, filled by the other reader right after this one's.
    mutating func join(_ other: Slots) {
        precondition(other.start == end && other.base == base)
        end = other.end
        limit = other.limit
    }

    /// Takes back the slots handed off, discarding what the other reader filled.
    mutating func discard(_ other: Slots) {
        precondition(other.start >= end && other.base == base)
        if other.end > other.start { (base.unsafelyUnwrapped + other.start).deinitialize(count: other.end - other.start) }
        limit = other.limit
    }
}

struct LayoutReader {
    var fields: FieldReader
    /// Nodes and their reading notes, by whole-tree index; during a split read each reader
    /// fills its own range of the same storage (`Slots`).
    var nodes = Slots<ElementNode>()
    var info = Slots<NodeInfo>()
    /// Each id's node index: duplicate detection now, the tree's id index later.
    var firstID: [String: Int] = [:]
    /// After a split read, the second reader's `firstID`: ids first defined in the second
    /// half, kept apart rather than merged into `firstID` (a hash per id, measured at 10 ms
    /// for 50 000), and looked up after it (`indexOf`), so that the first node wins an id.
    var laterIDs: [[String: Int]] = []
    var references: [IDReference] = []
    /// Ids met again after their first node, reported once every half is read (so that the
    /// first definition named is the file's first, whichever half read it).
    var duplicates: [(id: String, index: Int)] = []

    /// Whether the root's children are read by two readers at once (`readRootChildren`).
    var splitRead = false
    var vocabulary = Vocabulary.shared
    /// 2 once the root's children were read in two halves.
    var readers = 1

    /// Set by the loader so that a message can point at another place in the file.
    var bytes: [UInt8] = []
    var lines: LineIndex? {
        bytes.isEmpty ? nil : LineIndex(bytes)
    }

    init(file: String) {
        fields = FieldReader(file: file)
        lints = FieldReader(file: file)
        labelErrors = FieldReader(file: file)
    }

    func lineOf(_ offset: Int, in index: LineIndex? = nil) -> String {
        guard let lines = index ?? lines else { return "?" }
        let (l, c) = lines.position(of: offset)
        return "\(l):\(c)"
    }

    /// What the top of the file says about the screen.
    struct Screen {
        var id = "screen"
        var size: (Double, Double)?
        var title: String?
        var order = NaturalOrder.geometric
        var initialFocus: (String, Int)?
    }

    /// Reads the screen and every node into `nodes`, and checks them against each other
    /// (ids defined twice within a reader's half, the root, custom orders, references); nil
    /// when there is no root.
    mutating func readNodes(_ json: JSONValue) -> Screen? {
        guard let doc = fields.object(json, "$", nil, allowed: ["schemaVersion", "screen", "root"]) else { return nil }
        if let v = doc[K.schemaVersion] {
            if case .number(let n, _) = v.value.content, n == 1 {} else {
                fields.report("E02", v.value.offset, "$.schemaVersion", nil, "must be 1 (the only version there is)")
            }
        } else {
            fields.report("E02", json.offset, "$", nil, "missing \"schemaVersion\"; add \"schemaVersion\": 1")
        }
        // Screen
        var screen = Screen()
        if let s = fields.require(doc, K.screen, in: json, "$", nil),
           let sd = fields.object(s.value, "$.screen", nil, allowed: ["id", "title", "spokenAppName", "size", "language",
                                                                          "naturalOrder", "initialFocus", "onMagicTap"]) {
            if let id = fields.string(fields.require(sd, K.id, in: s.value, "$.screen", nil), "$.screen", nil) {
                if !isValidID(id) { fields.report("E05", sd[K.id]!.value.offset, "$.screen.id", nil, idSyntaxMessage(id)) }
                screen.id = id
            }
            screen.title = fields.string(sd[K.title], "$.screen", nil)
            _ = fields.string(sd[K.spokenAppName], "$.screen", nil)
            language(sd[K.language], "$.screen", nil)
            if let o = fields.enumValue(sd[K.naturalOrder], NaturalOrder.self, "$.screen", nil) { screen.order = o }
            if let f = fields.string(sd[K.initialFocus], "$.screen", nil) { screen.initialFocus = (f, sd[K.initialFocus]!.value.offset) }
            if let m = sd[K.onMagicTap] { _ = effects(m, "$.screen", nil) }
            if let sz = fields.require(sd, K.size, in: s.value, "$.screen", nil),
               let szd = fields.object(sz.value, "$.screen.size", nil, allowed: ["width", "height"]) {
                let w = fields.number(fields.require(szd, K.width, in: sz.value, "$.screen.size", nil), "$.screen.size", nil)
                let h = fields.number(fields.require(szd, K.height, in: sz.value, "$.screen.size", nil), "$.screen.size", nil)
                if let w, w <= 0 { fields.report("E16", szd[K.width]!.value.offset, "$.screen.size.width", nil, "must be > 0, got \(format(w))") }
                if let h, h <= 0 { fields.report("E16", szd[K.height]!.value.offset, "$.screen.size.height", nil, "must be > 0, got \(format(h))") }
                if let w, let h, w > 0, h > 0 { screen.size = (w, h) }
            }
        }
        // Root
        guard let r = fields.require(doc, K.root, in: json, "$", nil) else { return nil }
        _ = node(r.value, path: "$.root", parent: nil, position: 0, origin: Point(x: 0, y: 0), depth: 1)
        guard !nodes.isEmpty else { return nil }
        reportDuplicates()
        if nodes[0].isVirtual {
            fields.report("E16", r.value.offset, "$.root", nodes[0].id, "the root must not be virtual")
        }
        if nodes[0].isAccessibilityElement {
            fields.report("E16", r.value.offset, "$.root", nodes[0].id,
                          "the root must be a container: set \"isAccessibilityElement\": false and give it children")
        }
        customOrders()
        return screen
    }

    /// The tree of the nodes read, and the checks that need it; nil without a screen size.
    mutating func finish(_ screen: Screen, nodes: [ElementNode]) -> (ElementTree, String?)? {
        // Without a size (an error already) the tree is built all the same, for the checks.
        let tree = ElementTree(screenID: screen.id, size: screen.size ?? (1, 1), naturalOrder: screen.order,
                               nodes: nodes, index: [firstID] + laterIDs)
        checkAccessibility(tree)
        reportDuplicates()
        fields.diagnostics += labelErrors.diagnostics
        guard screen.size != nil else { return nil }
        if let (f, offset) = screen.initialFocus {
            if let i = tree.index(of: f) {
                if !tree[i].isAccessibilityElement {
                    fields.report("E16", offset, "$.screen.initialFocus", nil, "\"\(f)\" is a container; name an accessible element")
                }
            } else {
                unknownID(f, offset, "$.screen.initialFocus", nil, code: "E16")
            }
        }
        // The lint was found alongside the errors; a file with errors gets only those.
        if !fields.hasErrors { fields.diagnostics += lints.diagnostics }
        return (tree, screen.title)
    }

    // MARK: nodes

    /// Reads one node and its subtree in document order; returns its index.
    mutating func node(_ v: JSONValue, path: @autoclosure () -> String, parent: Int?, position: Int,
                       origin: Point, depth: Int) -> Int? {
        if depth > LayoutLoader.maxElementDepth {
            fields.report("E04", v.offset, path(), nil,
                          "elements nested deeper than \(LayoutLoader.maxElementDepth) levels; flatten the layout")
            return nil
        }
        // The id first, so that every message about this node can name it.
        var early: String?
        var idKey: Int?
        if v.kind == .object, let k = v.document.member(of: v.index, K.id) {
            idKey = k
            early = JSONValue(document: v.document, index: k + 1).string
        }
        guard let d = fields.object(v, path(), early, allowed: vocabulary.nodeKeys) else { return nil }
        var id = "?"
        var idOffset = v.offset
        // The id read above is reused; the general path below says what is wrong with it.
        let idMember = idKey.map { JSONMember(document: v.document, keyIndex: $0) }
        if let m = idMember ?? fields.require(d, K.id, in: v, path(), nil, code: "E05"),
           let s = early ?? fields.string(m, path(), nil) {
            id = s
            idOffset = m.value.offset
            if !isValidID(s) {
                fields.report("E05", m.value.offset, path() + ".id", nil, idSyntaxMessage(s))
            } else if let first = firstID.updateValue(nodes.end, forKey: s) {
                // One hash per id: insert, and put the first back in the rare duplicate case.
                firstID[s] = first
                duplicates.append((s, nodes.end))
            }
        }
        let el: String? = id
        let index = nodes.end
        // Built in place, before the children (document order), through pointers that stay
        // valid while the children are appended.
        let n = nodes.append(ElementNode(id: id))
        n.pointee.parent = parent
        let nodeInfo = info.append(NodeInfo(parent: Int32(parent ?? -1), position: Int32(position), idOffset: idOffset,
                                            explicitFrame: d.has(.frame)))

        // Rarely used fields are read only when present (`d.has`): most nodes have a
        // handful of fields, and the others would each cost a lookup.
        if d.has(.virtual) { n.pointee.isVirtual = fields.bool(d[K.virtual], path(), el) ?? false }
        if d.has(.visible) { n.pointee.isVisible = fields.bool(d[K.visible], path(), el) ?? true }
        let explicitAX = d.has(.isAccessibilityElement) ? fields.bool(d[K.isAccessibilityElement], path(), el) : nil
        if d.has(.label) { n.pointee.label = fields.string(d[K.label], path(), el) }
        if d.has(.labelSpans), let spans = fields.array(d[K.labelSpans], path(), el) {
            if d[K.label] != nil {
                fields.report("E17", d[K.labelSpans]!.keyOffset, path() + ".labelSpans", el, "use either \"label\" or \"labelSpans\", not both")
            }
            var text: [String] = []
            for (k, s) in spans.enumerated() {
                let sp = "\(path()).labelSpans[\(k)]"
                if let sd = fields.object(s, sp, el, allowed: ["text", "language"]) {
                    if let t = fields.string(fields.require(sd, K.text, in: s, sp, el), sp, el) { text.append(t) }
                    language(sd[K.language], sp, el)
                }
            }
            if spans.isEmpty { fields.report("E04", d[K.labelSpans]!.value.offset, path() + ".labelSpans", el, "must not be empty") }
            else { n.pointee.label = text.joined() }
        }
        let labelFromChildren = d.has(.labelFromChildren) ? fields.bool(d[K.labelFromChildren], path(), el) ?? false : false
        if d.has(.value) { n.pointee.value = fields.string(d[K.value], path(), el) }
        if d.has(.hint) { n.pointee.hint = fields.string(d[K.hint], path(), el) }
        if d.has(.traits), let t = d[K.traits] { n.pointee.traits = traits(t, path(), el) }
        if d.present & NodeField.rare != 0 {
            if d.has(.language) { language(d[K.language], path(), el) }
            if d.has(.hidden) { n.pointee.hidden = fields.bool(d[K.hidden], path(), el) ?? false }
            if d.has(.elementsHidden) { n.pointee.elementsHidden = fields.bool(d[K.elementsHidden], path(), el) ?? false }
            if d.has(.viewIsModal) { n.pointee.viewIsModal = fields.bool(d[K.viewIsModal], path(), el) ?? false }
            if d.has(.modalScope), let s = fields.enumValue(d[K.modalScope], ModalScope.self, path(), el) { n.pointee.modalScope = s }
            if d.has(.shouldGroupChildren) { n.pointee.shouldGroupChildren = fields.bool(d[K.shouldGroupChildren], path(), el) ?? false }
            if d.has(.navigationStyle), let s = fields.enumValue(d[K.navigationStyle], NavigationStyle.self, path(), el) { n.pointee.navigationStyle = s }
            if d.has(.sortPriority) { n.pointee.sortPriority = fields.number(d[K.sortPriority], path(), el) }
            if d.has(.respondsToUserInteraction), let m = d[K.respondsToUserInteraction] {
                if m.value.isNull {} else { n.pointee.respondsToUserInteraction = fields.bool(m, path(), el) }
            }
        }
        if d.has(.elements), let m = d[K.elements], let list = fields.array(m, path(), el) {
            var ids: [(String, Int)] = []
            for (k, item) in list.enumerated() {
                if case .string(let s, let o) = item.content { ids.append((s, o)) }
                else { fields.report("E04", item.offset, "\(path()).elements[\(k)]", el, "must be an element id (a string), got \(item.kindName)") }
            }
            nodeInfo.pointee.elements = ids
            nodeInfo.pointee.elementsOffset = m.value.offset
        }
        if d.has(.customActions), let m = d[K.customActions] { n.pointee.customActions = customActions(m, path(), el) }
        if d.present & NodeField.handlersAndContent != 0 {
            if let m = d[K.onActivate] { n.pointee.onActivate = effects(m, path(), el) }
            if let m = d[K.onTap] { n.pointee.onTap = effects(m, path(), el) }
            if let m = d[K.onEscape] { n.pointee.onEscape = effects(m, path(), el) }
            for key in unusedHandlerKeys { if let m = d[key] { _ = effects(m, path(), el) } }
            if let m = d[K.customContent] { customContent(m, path(), el) }
            if let m = d[K.customRotors] { customRotors(m, path(), el) }
            if let m = d[K.largeContent], let ld = fields.object(m.value, path() + ".largeContent", el, allowed: ["title", "image"]) {
                _ = fields.string(fields.require(ld, K.title, in: m.value, path() + ".largeContent", el), path() + ".largeContent", el)
                _ = fields.string(ld[K.image], path() + ".largeContent", el)
            }
            if let m = d[K.scroll] { scroll(m, path(), el) }
        }

        // Geometry: explicit frame, or frame relative to the nearest framed ancestor.
        var frame = d.has(.frame) ? fields.rect(d[K.frame], path(), el) : nil
        if d.has(.frameInContainer), let m = d[K.frameInContainer], let rel = fields.rect(m, path(), el) {
            if d[K.frame] != nil {
                fields.report("E06", m.keyOffset, path() + ".frameInContainer", el, "use either \"frame\" or \"frameInContainer\", not both")
            }
            frame = Rect(x: origin.x + rel.x, y: origin.y + rel.y, width: rel.width, height: rel.height)
            nodeInfo.pointee.explicitFrame = true
        }
        var polygon: [Point]?
        if d.has(.path), let m = d[K.path], let pts = fields.array(m, path(), el) {
            var list: [Point] = []
            for (k, p) in pts.enumerated() {
                let xy = p.array.map(Array.init) ?? []
                if xy.count == 2, let x = xy[0].number, let y = xy[1].number {
                    list.append(Point(x: x, y: y))
                } else {
                    fields.report("E04", p.offset, "\(path()).path[\(k)]", el, "must be a point [x, y] of two numbers")
                }
            }
            if pts.count < 3 { fields.report("E08", m.value.offset, path() + ".path", el, "a path needs at least 3 points, got \(pts.count)") }
            polygon = list
        }
        let explicitPoint = d.has(.activationPoint) ? fields.point(d[K.activationPoint], path(), el) : nil
        let outsideOK = d.has(.activationPointOutsideFrame) ? fields.bool(d[K.activationPointOutsideFrame], path(), el) ?? false : false

        // Children, in paint order.
        var childIndices: [Int] = []
        var childrenWritten = 0
        if d.has(.children), let m = d[K.children], let list = fields.array(m, path(), el) {
            let childOrigin = frame.map { Point(x: $0.x, y: $0.y) } ?? origin
            childIndices.reserveCapacity(list.count)
            childrenWritten = list.count
            if depth == 1 && splitRead && list.count >= 2 {
                childIndices = readRootChildren(Array(list), origin: childOrigin)
            } else {
                for (k, c) in list.enumerated() {
                    if let ci = node(c, path: "\(path()).children[\(k)]", parent: index, position: k,
                                     origin: childOrigin, depth: depth + 1) {
                        childIndices.append(ci)
                    }
                }
            }
        }
        n.pointee.children = childIndices
        let hasChildren = !childIndices.isEmpty
        // Children written but refused (each with its own error) still make a container, so
        // that no second error follows from reading it as a leaf (e.g. "needs a label").
        n.pointee.isAccessibilityElement = explicitAX ?? (childrenWritten == 0)
        nodeInfo.pointee.explicitAccessibility = explicitAX
        if labelFromChildren {
            if !hasChildren || !n.pointee.isAccessibilityElement {
                fields.report("E04", d[K.labelFromChildren]!.keyOffset, path() + ".labelFromChildren", el,
                              "only an accessible element with children can take its label from them")
            } else {
                n.pointee.label = childIndices.compactMap { nodes[$0].label }.filter { !$0.isEmpty }.joined(separator: ", ")
            }
        }
        if let f = frame {
            n.pointee.frame = f
        } else if hasChildren {
            n.pointee.frame = childIndices.dropFirst().reduce(nodes[childIndices[0]].frame) { $0.union(nodes[$1].frame) }
        } else if childrenWritten == 0 && !d.has(.frame) && !d.has(.frameInContainer) {
            fields.report("E06", v.offset, path(), el, "missing \"frame\"; a node without children needs {\"x\", \"y\", \"width\", \"height\"}")
        }
        if let p = explicitPoint {
            n.pointee.activationPoint = p
            n.pointee.hasExplicitActivationPoint = true
            let inPath = polygon.map { polygonContains($0, p) } ?? false
            if !outsideOK && !n.pointee.frame.contains(p) && !inPath && (frame != nil || hasChildren) {
                fields.report("E07", d[K.activationPoint]!.value.offset, path() + ".activationPoint", el,
                              "point (\(format(p.x)), \(format(p.y))) lies outside frame \(format(n.pointee.frame)); set \"activationPointOutsideFrame\": true to allow it")
            }
        } else {
            n.pointee.activationPoint = n.pointee.frame.center
        }
        // Adjustable: the trait and the spec go together; the value is computed.
        let hasTrait = n.pointee.traits.contains(.adjustable)
        if d.has(.adjustable), let m = d[K.adjustable] {
            n.pointee.adjustable = adjustable(m, path(), el)
            if !hasTrait {
                fields.report("E10", m.keyOffset, path() + ".adjustable", el, "an \"adjustable\" spec needs the trait \"adjustable\" in \"traits\"")
            }
            if d.has(.value), let vm = d[K.value] {
                fields.report("E10", vm.keyOffset, path() + ".value", el, "an adjustable element's value is computed from \"adjustable\"; remove \"value\"")
            }
        } else if hasTrait {
            fields.report("E10", d[K.traits]!.value.offset, path() + ".traits", el,
                          "the trait \"adjustable\" needs an \"adjustable\" spec: {\"min\", \"max\", \"step\", \"value\"} or {\"values\", \"index\"}")
        }
        // W20 / W26: container-only fields on a leaf, and leaf fields on a container.
        if n.pointee.isAccessibilityElement {
            if d.present & NodeField.containerOnly != 0 {
                for key in containerOnlyKeys where d[key] != nil {
                    fields.report(.warning, "W20", d[key]!.keyOffset, path() + "." + key.name, el, "\"\(key.name)\" on an accessible element is ignored")
                }
            }
            if d.has(.elements) && hasChildren {
                fields.report(.warning, "W20", d[K.elements]!.keyOffset, path() + ".elements", el, "\"elements\" on an accessible element is ignored")
            }
        } else if explicitAX == nil && hasChildren {
            if d.present & NodeField.elementOnly != 0 {
                for key in elementOnlyKeys where d[key] != nil {
                    fields.report(.warning, "W26", d[key]!.keyOffset, path() + "." + key.name, el,
                                  "a node with children is a container by default, so \"\(key.name)\" is ignored; set \"isAccessibilityElement\": true to make it one element")
                }
            }
        }
        if d.has(.modalScope) && !n.pointee.viewIsModal {
            fields.report(.warning, "W20", d[K.modalScope]!.keyOffset, path() + ".modalScope", el, "\"modalScope\" is ignored without \"viewIsModal\": true")
        }
        nodeInfo.pointee.subtreeEnd = nodes.end
        return index
    }

    /// The root's children (root at index 0), read in two halves at once: this reader
    /// reads the first, a second reader the rest, from the index its first node will have
    /// (counted beforehand on the tape), into the slots after this one's. Returns the
    /// children's indices. A large layout is mostly the root's subtrees, so this nearly
    /// halves the read on two CPUs.
    mutating func readRootChildren(_ children: [JSONValue], origin: Point) -> [Int] {
        // Split where the file is half read, at a child's boundary.
        let start = children[0].index, end = children[children.count - 1].next
        var split = children.firstIndex { $0.index - start >= (end - start) / 2 } ?? children.count - 1
        split = min(max(split, 1), children.count - 1)
        var firstHalfNodes = 0
        for c in children[..<split] { firstHalfNodes += LayoutReader.countNodes(c, depth: 2) }

        // The second reader fills the slots after the first half's nodes.
        var second = LayoutReader(file: fields.file)
        second.bytes = bytes
        second.nodes = nodes.handOff(from: nodes.end + firstHalfNodes)
        second.info = info.handOff(from: nodes.end + firstHalfNodes)
        second.vocabulary = Vocabulary()
        second.firstID.reserveCapacity((end - children[split].index) * 2 / 19)  // about 19 tape tokens per node
        // Each half mutates only its own reader; the document is read-only.
        let (firstIndices, secondIndices) = withUnsafeMutablePointer(to: &self) { a in
            withUnsafeMutablePointer(to: &second) { b in
                bothAtOnce({ a.pointee.readChildren(children, 0..<split, origin: origin) },
                           { b.pointee.readChildren(children, split..<children.count, origin: origin) })
            }
        }
        guard nodes.end == second.nodes.start else {
            // The count disagreed with the read (it must not; `countNodes` follows `node`).
            // Fewer nodes than counted: the rest is read again here. More would have
            // trapped in `Slots.append` before writing into the second reader's slots.
            assertionFailure("node count \(firstHalfNodes) disagrees with the nodes read")
            nodes.discard(second.nodes)
            info.discard(second.info)
            return firstIndices + readChildren(children, split..<children.count, origin: origin)
        }
        readers = 2
        nodes.join(second.nodes)
        info.join(second.info)
        references += second.references
        fields.diagnostics += second.fields.diagnostics
        duplicates += second.duplicates
        // Ids the first half defined already are found with the lint (`crossHalfDuplicates`).
        laterIDs = [second.firstID] + second.laterIDs
        secondHalfStart = second.nodes.start
        return firstIndices + secondIndices
    }

    /// Children `range` of the root, as `node` reads them.
    mutating func readChildren(_ children: [JSONValue], _ range: Range<Int>, origin: Point) -> [Int] {
        var indices: [Int] = []
        indices.reserveCapacity(range.count)
        for k in range {
            if let ci = node(children[k], path: "$.root.children[\(k)]", parent: 0, position: k, origin: origin, depth: 2) {
                indices.append(ci)
            }
        }
        return indices
    }

    /// The nodes `node` appends for `v` and its subtree: one per object within the depth
    /// limit, and those of its "children" when that is an array.
    static func countNodes(_ v: JSONValue, depth: Int) -> Int {
        guard depth <= LayoutLoader.maxElementDepth, v.kind == .object else { return 0 }
        var count = 1
        if let k = v.document.member(of: v.index, K.children),
           let list = JSONValue(document: v.document, index: k + 1).array {
            for c in list { count += countNodes(c, depth: depth + 1) }
        }
        return count
    }

    /// The index of the node that first defines `id`.
    func indexOf(_ id: String) -> Int? {
        if let i = firstID[id] { return i }
        for part in laterIDs { if let i = part[id] { return i } }
        return nil
    }

    /// E05 for every id defined again, naming the file's first definition.
    mutating func reportDuplicates() {
        guard !duplicates.isEmpty else { return }
        duplicates.sort { $0.index < $1.index }  // file order, whichever half found them
        let index = lines  // built once for all of them, not per message
        for (id, i) in duplicates {
            guard let first = indexOf(id) else { continue }
            fields.report("E05", info[i].idOffset, nodePath(i) + ".id", nil,
                          "duplicate id \"\(id)\" (first defined at \(lineOf(info[first].idOffset, in: index)), \(nodePath(first)).id)")
        }
        duplicates.removeAll()
    }

    mutating func traits(_ m: JSONMember, _ path: @autoclosure () -> String, _ el: String?) -> TraitSet {
        func p() -> String { path() + "." + m.key }
        var names: [String] { vocabulary.traitNames }  // for messages only
        if m.value.kind == .number {
            let o = m.value.offset
            fields.report("E09", o, p(), el, "traits are names, not a raw bitmask; allowed: \(quotedList(names))")
            return TraitSet()
        }
        guard let list = fields.array(m, path(), el) else { return TraitSet() }
        var set = TraitSet()
        for (k, item) in list.enumerated() {
            func ip() -> String { "\(p())[\(k)]" }
            // A plain loop over the keys: this runs for every trait of every element.
            var known: (Key, Trait)?
            let keys = vocabulary.traitKeys
            for j in keys.indices where item.equals(keys[j].0) { known = keys[j]; break }
            if let (key, t) = known {
                if set.contains(t) { fields.report("E09", item.offset, ip(), el, "duplicate trait \"\(key.name)\"") }
                set.insert(t)
                continue
            }
            guard case .string(let s, let o) = item.content else {
                fields.report("E09", item.offset, ip(), el, "a trait is a name (a string), got \(item.kindName); allowed: \(quotedList(names))")
                continue
            }
            if s == "isModal" || s == "modal" {
                fields.report("E09", o, ip(), el, "\"\(s)\" is not a trait here; use \"viewIsModal\": true on the node")
            } else {
                var msg = "unknown trait \"\(s)\"; allowed: \(quotedList(names))"
                let bare = s.hasPrefix(".") ? String(s.dropFirst()) : s
                if let sug = suggestion(for: bare, among: names) { msg += "; did you mean \"\(sug)\"?" }
                fields.report("E09", o, ip(), el, msg)
            }
        }
        if set.contains(.none) && set.rawValue != TraitSet([.none]).rawValue {
            fields.report("E09", m.value.offset, p(), el, "\"none\" must be the only trait")
        }
        if (set.rawValue & controlTraits.rawValue).nonzeroBitCount > 1 {
            let controls = [Trait.button, .link, .searchField, .keyboardKey].filter { set.contains($0) }
            fields.report(.warning, "W18", m.value.offset, p(), el,
                          "\(quotedList(controls.map(\.rawValue))) are meant to be mutually exclusive; keep one")
        }
        return set
    }

    mutating func language(_ m: JSONMember?, _ path: @autoclosure () -> String, _ el: String?) {
        guard let s = fields.string(m, path(), el) else { return }
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        let ok = !parts.isEmpty && (2...8).contains(parts[0].count) && parts[0].allSatisfy { $0.isASCII && $0.isLetter }
            && parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
        if !ok { fields.report("E17", m!.value.offset, path() + "." + m!.key, el, "\"\(s)\" is not a BCP 47 language tag (e.g. \"en\", \"fr-CA\")") }
    }

    mutating func customActions(_ m: JSONMember, _ path: @autoclosure () -> String, _ el: String?) -> [CustomAction] {
        guard let list = fields.array(m, path(), el) else { return [] }
        var actions: [CustomAction] = []
        // An element has a handful of actions: a list is cheaper than a dictionary.
        var seen: [(name: String, index: Int)] = []
        for (k, item) in list.enumerated() {
            func ap() -> String { "\(path()).customActions[\(k)]" }
            guard let ad = fields.object(item, ap(), el, allowed: vocabulary.customActionKeys) else { continue }
            guard let name = fields.string(fields.require(ad, K.name, in: item, ap(), el, code: "E13"), ap(), el) else { continue }
            let effects = ad[K.effects].map { self.effects($0, ap(), el) } ?? []
            if name.isEmpty {
                fields.report("E13", ad[K.name]!.value.offset, ap() + ".name", el, "an action needs a name a person can read")
                continue
            }
            if let first = seen.first(where: { $0.name == name }) {
                fields.report("E13", ad[K.name]!.value.offset, ap() + ".name", el, "duplicate action name \"\(name)\" (also customActions[\(first.index)])")
                continue
            }
            seen.append((name, k))
            actions.append(CustomAction(name: name, effects: effects))
        }
        return actions
    }

    mutating func adjustable(_ m: JSONMember, _ path: @autoclosure () -> String, _ el: String?) -> Adjustable? {
        let p = path() + ".adjustable"
        guard let members = m.value.object else {
            fields.report("E10", m.value.offset, p, el, "must be an object: {\"min\", \"max\", \"step\", \"value\"} or {\"values\", \"index\"}")
            return nil
        }
        let isList = members.contains { $0.hasKey(K.values) }
        if isList {
            guard let d = fields.object(m.value, p, el, allowed: ["values", "index", "onChange"], unknownCode: "E10") else { return nil }
            let values = fields.array(d[K.values], p, el).map(Array.init) ?? []
            var strings: [String] = []
            for (k, v) in values.enumerated() {
                if case .string(let s, _) = v.content { strings.append(s) }
                else { fields.report("E10", v.offset, "\(p).values[\(k)]", el, "must be a string, got \(v.kindName)") }
            }
            if values.isEmpty { fields.report("E10", d[K.values]!.value.offset, p + ".values", el, "must list at least one value") }
            let index = fields.integer(d[K.index], p, el) ?? 0
            if !strings.isEmpty && !(0..<strings.count).contains(index) {
                fields.report("E10", d[K.index]!.value.offset, p + ".index", el, "must be between 0 and \(strings.count - 1), got \(index)")
            }
            let onChange = d[K.onChange].map { effects($0, p, el) } ?? []
            guard !strings.isEmpty, strings.count == values.count else { return nil }
            return Adjustable(kind: .list(strings), current: Double(min(max(index, 0), strings.count - 1)), onChange: onChange)
        }
        guard let d = fields.object(m.value, p, el, allowed: ["min", "max", "step", "value", "decimals", "valueFormat", "onChange"],
                                    unknownCode: "E10") else { return nil }
        let lo = fields.number(fields.require(d, K.min, in: m.value, p, el, code: "E10"), p, el)
        let hi = fields.number(fields.require(d, K.max, in: m.value, p, el, code: "E10"), p, el)
        let step = fields.number(d[K.step], p, el) ?? 1
        let decimals = fields.integer(d[K.decimals], p, el) ?? 0
        let format = fields.string(d[K.valueFormat], p, el) ?? "{value}"
        let onChange = d[K.onChange].map { effects($0, p, el) } ?? []
        if step <= 0 { fields.report("E10", d[K.step]!.value.offset, p + ".step", el, "must be > 0, got \(ScanFormats.format(step))") }
        if decimals < 0 || decimals > 9 { fields.report("E10", d[K.decimals]!.value.offset, p + ".decimals", el, "must be between 0 and 9, got \(decimals)") }
        if !format.contains("{value}") { fields.report("E10", d[K.valueFormat]!.value.offset, p + ".valueFormat", el, "must contain \"{value}\"") }
        guard let lo, let hi else { return nil }
        if lo > hi { fields.report("E10", d[K.min]!.value.offset, p + ".min", el, "min \(ScanFormats.format(lo)) is greater than max \(ScanFormats.format(hi))"); return nil }
        let value = fields.number(d[K.value], p, el) ?? lo
        if value < lo || value > hi {
            fields.report("E10", d[K.value]!.value.offset, p + ".value", el, "must be between min \(ScanFormats.format(lo)) and max \(ScanFormats.format(hi)), got \(ScanFormats.format(value))")
            return nil
        }
        guard step > 0 else { return nil }
        return Adjustable(kind: .numeric(min: lo, max: hi, step: step, decimals: max(0, min(decimals, 9)), format: format),
                          current: value, onChange: onChange)
    }

    mutating func customContent(_ m: JSONMember, _ path: @autoclosure () -> String, _ el: String?) {
        guard let list = fields.array(m, path(), el) else { return }
        for (k, item) in list.enumerated() {
            let cp = "\(path()).customContent[\(k)]"
            guard let d = fields.object(item, cp, el, allowed: ["label", "value", "importance"]) else { continue }
            for key in [K.label, K.value] {
                if let s = fields.string(fields.require(d, key, in: item, cp, el, code: "E14"), cp, el), s.isEmpty {
                    fields.report("E14", d[key]!.value.offset, cp + "." + key.name, el, "must not be empty")
                }
            }
            if let imp = fields.string(d[K.importance], cp, el), imp != "default" && imp != "high" {
                fields.report("E04", d[K.importance]!.value.offset, cp + ".importance", el, "unknown value \"\(imp)\"; allowed: default, high")
            }
        }
    }

    mutating func customRotors(_ m: JSONMember, _ path: @autoclosure () -> String, _ el: String?) {
        guard let list = fields.array(m, path(), el) else { return }
        for (k, item) in list.enumerated() {
            let rp = "\(path()).customRotors[\(k)]"
            guard let d = fields.object(item, rp, el, allowed: ["name", "targets"]) else { continue }
            if let s = fields.string(fields.require(d, K.name, in: item, rp, el, code: "E14"), rp, el), s.isEmpty {
                fields.report("E14", d[K.name]!.value.offset, rp + ".name", el, "must not be empty")
            }
            if let targets = fields.array(fields.require(d, K.targets, in: item, rp, el, code: "E14"), rp, el) {
                for (t, v) in targets.enumerated() {
                    if case .string(let s, let o) = v.content {
                        references.append(IDReference(id: s, offset: o, path: "\(rp).targets[\(t)]", element: el, what: "rotor target"))
                    } else {
                        fields.report("E14", v.offset, "\(rp).targets[\(t)]", el, "must be an element id (a string)")
                    }
                }
            }
        }
    }

    mutating func scroll(_ m: JSONMember, _ path: @autoclosure () -> String, _ el: String?) {
        let sp = path() + ".scroll"
        guard let d = fields.object(m.value, sp, el, allowed: ["directions", "effects"]) else { return }
        let allowed = ["up", "down", "left", "right", "next", "previous"]
        if let dirs = fields.array(fields.require(d, K.directions, in: m.value, sp, el), sp, el) {
            for (k, v) in dirs.enumerated() {
                guard case .string(let s, let o) = v.content, allowed.contains(s) else {
                    fields.report("E04", v.offset, "\(sp).directions[\(k)]", el, "must be one of \(quotedList(allowed))")
                    continue
                }
                _ = (s, o)
            }
        }
        if let e = d[K.effects], let ed = fields.object(e.value, sp + ".effects", el, allowed: KeySet(allowed)) {
            for key in allowed { if let x = ed[key] { _ = effects(x, sp + ".effects", el) } }
        }
    }

    // MARK: effects

    mutating func effects(_ m: JSONMember, _ path: @autoclosure () -> String, _ el: String?) -> [LayoutEffect] {
        guard let list = fields.array(m, path(), el) else { return [] }
        var result: [LayoutEffect] = []
        for (k, item) in list.enumerated() {
            if let e = effect(item, "\(path()).\(m.key)[\(k)]", el) { result.append(e) }
        }
        return result
    }

    mutating func effect(_ v: JSONValue, _ p: @autoclosure () -> String, _ el: String?) -> LayoutEffect? {
        let verbs = vocabulary.effectVerbs
        guard let members = v.object else {
            fields.report("E15", v.offset, p(), el, "an effect is an object with one verb: \(quotedList(verbs.map(\.verb.name)))")
            return nil
        }
        var found: (verb: Key, keys: KeySet)?
        for m in members {
            if let f = verbs.first(where: { m.hasKey($0.verb) }) { found = f; break }
        }
        guard let (verbKey, allowed) = found else {
            var msg = "an effect needs exactly one verb: \(quotedList(verbs.map(\.verb.name)))"
            if let first = members.first(where: { _ in true }), let s = suggestion(for: first.key, among: verbs.map(\.verb.name)) { msg += "; did you mean \"\(s)\"?" }
            fields.report("E15", v.offset, p(), el, msg)
            return nil
        }
        let verb = verbKey.name
        guard let d = fields.object(v, p(), el, allowed: allowed) else { return nil }
        let m = d[verbKey]!
        switch verb {
        case "emit":
            guard let name = fields.string(m, p(), el) else { return nil }
            if name.isEmpty { fields.report("E15", m.value.offset, p() + ".emit", el, "must name the event"); return nil }
            var data: String?
            if let dm = d[K.data] {
                if dm.value.kind == .object { data = compactJSON(dm.value) }
                else { fields.report("E04", dm.value.offset, p() + ".data", el, "must be an object, got \(dm.value.kindName)") }
            }
            return .emit(name: name, data: data)
        case "set":
            let sp = p() + ".set"
            guard let sd = fields.object(m.value, sp, el, allowed: ["id", "label", "value", "hint", "traits", "hidden", "elementsHidden",
                                                                   "viewIsModal", "visible", "frame", "path", "activationPoint"]) else { return nil }
            guard let id = target(sd, m.value, sp, el) else { return nil }
            var changes: [LayoutEffect.FieldChange] = []
            if let s = fields.string(sd[K.label], sp, el) { changes.append(.label(s)) }
            if let s = fields.string(sd[K.value], sp, el) { changes.append(.value(s)) }
            if let s = fields.string(sd[K.hint], sp, el) { changes.append(.hint(s)) }
            if let t = sd[K.traits] { changes.append(.traits(traits(t, sp, el))) }
            if let b = fields.bool(sd[K.hidden], sp, el) { changes.append(.hidden(b)) }
            if let b = fields.bool(sd[K.elementsHidden], sp, el) { changes.append(.elementsHidden(b)) }
            if let b = fields.bool(sd[K.viewIsModal], sp, el) { changes.append(.viewIsModal(b)) }
            if let b = fields.bool(sd[K.visible], sp, el) { changes.append(.visible(b)) }
            if let r = fields.rect(sd[K.frame], sp, el) { changes.append(.frame(r)) }
            if let pt = fields.point(sd[K.activationPoint], sp, el) { changes.append(.activationPoint(pt)) }
            return .set(id: id, changes: changes)
        case "toggle":
            let tp = p() + ".toggle"
            guard let td = fields.object(m.value, tp, el, allowed: ["id", "field", "values"]) else { return nil }
            let id = target(td, m.value, tp, el)
            let field = fields.enumValue(fields.require(td, K.field, in: m.value, tp, el), LayoutEffect.TextField.self, tp, el)
            var values: [String] = []
            if let list = fields.array(fields.require(td, K.values, in: m.value, tp, el), tp, el) {
                for (k, item) in list.enumerated() {
                    if case .string(let s, _) = item.content { values.append(s) }
                    else { fields.report("E04", item.offset, "\(tp).values[\(k)]", el, "must be a string, got \(item.kindName)") }
                }
                if list.count < 2 { fields.report("E15", td[K.values]!.value.offset, tp + ".values", el, "a toggle needs at least 2 values") }
            }
            guard let id, let field, values.count >= 2 else { return nil }
            return .toggle(id: id, field: field, values: values)
        case "post":
            let kinds = ["announcement", "layoutChanged", "screenChanged", "pageScrolled"]
            guard let kind = fields.string(m, p(), el) else { return nil }
            guard kinds.contains(kind) else {
                var msg = "unknown notification \"\(kind)\"; allowed: \(quotedList(kinds))"
                if let s = suggestion(for: kind, among: kinds) { msg += "; did you mean \"\(s)\"?" }
                fields.report("E15", m.value.offset, p() + ".post", el, msg)
                return nil
            }
            var arg = LayoutEffect.Notification.Argument.none
            if let a = d[K.argument] {
                switch a.value.content {
                case .null: break
                case .string(let s, _): arg = .text(s)
                case .object:
                    let ap = p() + ".argument"
                    if let ad = fields.object(a.value, ap, el, allowed: ["element"]),
                       let id = fields.string(fields.require(ad, K.element, in: a.value, ap, el, code: "E15"), ap, el) {
                        references.append(IDReference(id: id, offset: ad[K.element]!.value.offset, path: ap + ".element", element: el, what: "notification target"))
                        arg = .element(id)
                    }
                default:
                    fields.report("E15", a.value.offset, p() + ".argument", el, "must be null, a string, or {\"element\": id}")
                }
            }
            switch kind {
            case "announcement":
                guard case .text(let s) = arg else {
                    fields.report("E15", m.value.offset, p() + ".argument", el, "an announcement needs the text to speak as \"argument\"")
                    return nil
                }
                return .post(.announcement(s))
            case "layoutChanged": return .post(.layoutChanged(arg))
            case "screenChanged": return .post(.screenChanged(arg))
            default:
                if case .text(let s) = arg { return .post(.pageScrolled(s)) }
                fields.report("E15", m.value.offset, p() + ".argument", el, "pageScrolled needs a text such as \"Page 2 of 5\" as \"argument\"")
                return nil
            }
        case "loadScreen":
            guard let f = fields.string(m, p(), el) else { return nil }
            if f.isEmpty { fields.report("E15", m.value.offset, p() + ".loadScreen", el, "must name a layout file"); return nil }
            return .loadScreen(f)
        default:
            guard let b = fields.bool(m, p(), el) else { return nil }
            return .result(b)
        }
    }

    mutating func target(_ d: ObjectView, _ v: JSONValue, _ p: String, _ el: String?) -> String? {
        guard let m = fields.require(d, K.id, in: v, p, el, code: "E15"), let id = fields.string(m, p, el) else { return nil }
        references.append(IDReference(id: id, offset: m.value.offset, path: p + ".id", element: el, what: "effect target"))
        return id
    }

    // MARK: cross references

    /// `$.root.children[1].children[0]`, rebuilt from parent links for a message.
    func nodePath(_ i: Int) -> String {
        var positions: [Int32] = []
        var cur = i
        while info[cur].parent >= 0 { positions.append(info[cur].position); cur = Int(info[cur].parent) }
        return "$.root" + positions.reversed().map { ".children[\($0)]" }.joined()
    }

    mutating func unknownID(_ id: String, _ offset: Int, _ path: String, _ el: String?, code: String) {
        var msg = "unknown element id \"\(id)\""
        if let s = suggestion(for: id, among: ([firstID] + laterIDs).flatMap(\.keys).sorted()) { msg += "; did you mean \"\(s)\"?" }
        fields.report(code, offset, path, el, msg)
    }

    /// Custom orders (`elements`) resolved to node indices, and ids referred to checked.
    mutating func customOrders() {
        var listedIn: [Int: (owner: Int, path: String)] = [:]
        for i in nodes.indices {
            guard let list = info[i].elements else { continue }
            let owner = nodes[i]
            func p() -> String { nodePath(i) + ".elements" }
            if owner.children.isEmpty {
                fields.report("E12", info[i].elementsOffset, p(), owner.id, "\"elements\" orders a container's descendants; this node has no children")
                continue
            }
            var resolved: [Int] = []
            var inThisList = Set<Int>()
            for (k, entry) in list.enumerated() {
                let ep = "\(p())[\(k)]"
                guard let j = indexOf(entry.id) else { unknownID(entry.id, entry.offset, ep, owner.id, code: "E12"); continue }
                guard j > i && j < info[i].subtreeEnd else {
                    fields.report("E12", entry.offset, ep, owner.id, "\"\(entry.id)\" is not a descendant of \"\(owner.id)\"; \"elements\" may only name nodes inside it")
                    continue
                }
                if !inThisList.insert(j).inserted {
                    fields.report("E12", entry.offset, ep, owner.id, "\"\(entry.id)\" is listed twice")
                    continue
                }
                if let other = listedIn[j] {
                    fields.report("E12", entry.offset, ep, owner.id, "\"\(entry.id)\" is already listed in \(other.path) (element \"\(nodes[other.owner].id)\"); a node belongs to one list")
                    continue
                }
                listedIn[j] = (i, p())
                resolved.append(j)
            }
            // A node and one of its descendants in one list would scan the descendant twice.
            for a in resolved {
                for b in resolved where b > a && b < info[a].subtreeEnd {
                    fields.report("E12", info[i].elementsOffset, p(), owner.id, "lists both \"\(nodes[a].id)\" and its descendant \"\(nodes[b].id)\"")
                }
            }
            nodes[i].elements = resolved
            hasCustomOrder = true
            for j in resolved {
                if claimed.isEmpty { claimed = [Bool](repeating: false, count: nodes.end) }
                claimed[j] = true
            }
        }
        for r in references where indexOf(r.id) == nil {
            unknownID(r.id, r.offset, r.path, r.element, code: r.what == "rotor target" ? "E14" : "E15")
        }
    }

    /// Whether any container has a custom order (`elements`), and the nodes those claim.
    var hasCustomOrder = false
    var claimed: [Bool] = []

    /// A container's members in the accessibility tree: its custom order, or the children no
    /// custom order claims.
    func axMembers(_ tree: ElementTree, _ i: Int) -> [Int] {
        if let list = tree[i].elements { return list }
        return claimed.isEmpty ? tree[i].children : tree[i].children.filter { !claimed[$0] }
    }

    /// Accessibility reachability and parents, by node (`checkAccessibility`). The checkers
    /// of the two halves of a split read write disjoint ranges of the same buffers.
    var reachable = UnsafeMutableBufferPointer<Bool>(start: nil, count: 0)
    var axParent = UnsafeMutableBufferPointer<Int32>(start: nil, count: 0)
    /// Warnings and information, kept only if the file has no error (`finish`).
    var lints: FieldReader
    /// E11, found with the lint and reported after the duplicate ids, in the order one
    /// reader would report them whether the read was split or not.
    var labelErrors: FieldReader
    /// Where the second reader's nodes begin, after a split read.
    var secondHalfStart: Int?

    /// E11 (every accessible element reachable in the accessibility tree has a label) and
    /// the lint, in one pass over the nodes: in two halves at once after a split read, each
    /// checker reporting into its own reader. Reachability without custom orders follows
    /// from the parent's, found earlier in the pass (document order); custom orders move
    /// nodes between containers, so then the accessibility tree is walked first.
    mutating func checkAccessibility(_ tree: ElementTree) {
        reachable = .allocate(capacity: tree.count)
        reachable.initialize(repeating: false)
        axParent = .allocate(capacity: tree.count)
        axParent.initialize(repeating: -1)
        reachable[0] = true
        if hasCustomOrder { walkAccessibility(tree) }
        var unreachable = check(tree, 0..<1)
        if let split = secondHalfStart, split < tree.count {
            // The halves report only into `lints`, `labelErrors` and `duplicates`.
            var other = self
            other.lints.diagnostics = []
            other.labelErrors.diagnostics = []
            other.duplicates = []
            other.vocabulary = Vocabulary()
            let (first, second) = withUnsafeMutablePointer(to: &self) { a in
                withUnsafeMutablePointer(to: &other) { b in
                    bothAtOnce({ a.pointee.crossHalfDuplicates(part: 0); return a.pointee.check(tree, 1..<split) },
                               { b.pointee.crossHalfDuplicates(part: 1); return b.pointee.check(tree, split..<tree.count) })
                }
            }
            lints.diagnostics += other.lints.diagnostics
            labelErrors.diagnostics += other.labelErrors.diagnostics
            duplicates += other.duplicates
            unreachable += first + second
        } else {
            crossHalfDuplicates(part: nil)
            unreachable += check(tree, 1..<tree.count)
        }
        if !unreachable.isEmpty {
            let shown = unreachable.prefix(10).map { "\"\($0)\"" }.joined(separator: ", ")
            let more = unreachable.count > 10 ? " and \(unreachable.count - 10) more" : ""
            lints.report(.info, "I25", 0, "$.root", nil,
                         "accessible elements \(shown)\(more) are unreachable in the accessibility tree (point mode can still tap them)")
        }
        reachable.deallocate()
        axParent.deallocate()
        reachable = .init(start: nil, count: 0)
        axParent = .init(start: nil, count: 0)
    }

    /// Reachability by walking the accessibility tree from the root (custom orders).
    mutating func walkAccessibility(_ tree: ElementTree) {
        var stack = [0]
        while let i = stack.popLast() {
            reachable[i] = true
            if tree[i].isAccessibilityElement { continue }
            let members = axMembers(tree, i)
            for m in members { axParent[m] = Int32(i) }
            stack.append(contentsOf: members.reversed())
        }
    }

    /// E11 and the lint of nodes `range`; returns the accessible ones unreachable.
    mutating func check(_ tree: ElementTree, _ range: Range<Int>) -> [String] {
        var unreachable: [String] = []
        for i in range {
            // `tree[i]` lends the node in place; `tree.nodes[i]` would copy it.
            if !hasCustomOrder && i > 0 {
                let p = Int(info[i].parent)
                if reachable[p] && !tree[p].isAccessibilityElement {
                    reachable[i] = true
                    axParent[i] = Int32(p)
                }
            }
            if reachable[i] && tree[i].isAccessibilityElement && (tree[i].label?.isEmpty ?? true) {
                labelErrors.report("E11", info[i].idOffset, nodePath(i), tree[i].id,
                              "an accessible element needs a non-empty \"label\" (or \"labelSpans\", or \"labelFromChildren\"); a decorative node says \"isAccessibilityElement\": false")
            }
            lintNode(i, tree[i], tree, &unreachable)
        }
        return unreachable
    }

    /// Ids first defined in the second half of a split read that the first half defined
    /// already: `part` 0 or 1 checks half of them (the two checkers share the work), nil all.
    mutating func crossHalfDuplicates(part: Int?) {
        guard let later = laterIDs.first, !later.isEmpty else { return }
        let middle = later.index(later.startIndex, offsetBy: later.count / 2)
        let slice = part == nil ? later[...] : part == 0 ? later[..<middle] : later[middle...]
        for (id, i) in slice where firstID[id] != nil { duplicates.append((id, i)) }
    }

    /// The seed's modal pitfall: a modal view hides only its own siblings, so
    /// the siblings of its ancestors stay scannable. Lists what the user would still reach.
    mutating func modalPitfall(_ tree: ElementTree, modal m: Int) {
        var leaks: [String] = []
        var cur = m
        while axParent[cur] >= 0 {
            let parent = Int(axParent[cur])
            if cur != m {
                for sibling in axMembers(tree, parent) where sibling != cur {
                    collectAccessible(tree, sibling, into: &leaks)
                }
            }
            cur = parent
        }
        guard !leaks.isEmpty else { return }
        let shown = leaks.prefix(6).map { "\"\($0)\"" }.joined(separator: ", ") + (leaks.count > 6 ? " and \(leaks.count - 6) more" : "")
        lints.report(.warning, "W21", info[m].idOffset, nodePath(m), tree[m].id,
                     "this modal view does not hide \(shown) (it hides only its own siblings); hide them with \"elementsHidden\", or set \"modalScope\": \"screen\"")
    }

    func collectAccessible(_ tree: ElementTree, _ i: Int, into out: inout [String]) {
        let n = tree[i]
        if n.hidden || !n.isVisible { return }
        if n.isAccessibilityElement { out.append(n.id); return }
        if n.elementsHidden { return }
        for c in axMembers(tree, i) { collectAccessible(tree, c, into: &out) }
    }

    // MARK: lint (warnings and information; never block loading)

    /// One node's lint; the node is borrowed, since copying it would retain every field.
    mutating func lintNode(_ i: Int, _ n: borrowing ElementNode, _ tree: ElementTree, _ unreachable: inout [String]) {
        let screen = tree.screenSize
        func p() -> String { nodePath(i) }
        if n.isAccessibilityElement {
            if !reachable[i] {
                if i != 0 { unreachable.append(n.id) }
                return
            }
            if n.frame.width == 0 || n.frame.height == 0 {
                lints.report(.warning, "W22", info[i].idOffset, p(), n.id, "zero-area element: it cannot be seen or tapped")
            } else if n.frame.maxX <= 0 || n.frame.maxY <= 0 || n.frame.minX >= screen.width || n.frame.minY >= screen.height {
                lints.report(.warning, "W22", info[i].idOffset, p(), n.id, "element lies entirely off-screen")
            }
            if let l = n.label {
                // One pass over the label's bytes, in place (on the stack for a short label):
                // this runs for every labelled element.
                var text = l
                let traits = n.traits, words = vocabulary.traitWords
                let (endsWithDot, longest, word) = text.withUTF8 { b -> (Bool, Int, String?) in
                    var digits = 0, longest = 0
                    for x in b {
                        if x &- 48 < 10 { digits += 1; longest = max(longest, digits) } else { digits = 0 }
                    }
                    let word = traits.intersects(traitWordTraits)
                        ? words.first(where: { traits.contains($0.0) && containsWord(b, $0.1, in: l) })?.1 : nil
                    return (b.last == UInt8(ascii: "."), longest, word)
                }
                if endsWithDot { lints.report(.warning, "W24", info[i].idOffset, p(), n.id, "label ends with \".\"; labels are words, not sentences") }
                if longest >= 5 { lints.report(.warning, "W24", info[i].idOffset, p(), n.id, "label has \(longest) digits in a row; they are read one by one") }
                if let w = word {
                    lints.report(.warning, "W24", info[i].idOffset, p(), n.id, "label contains the trait word \"\(w)\", which is spoken anyway")
                }
            }
            if let h = n.hint, let first = h.first {
                if !first.isUppercase || !h.hasSuffix(".") {
                    lints.report(.warning, "W24", info[i].idOffset, p(), n.id, "a hint is a sentence: capitalised, ending with \".\"")
                }
            }
            if let h = n.hint?.lowercased(), let g = vocabulary.gestureWords.first(where: { h.contains($0) }) {
                lints.report(.warning, "W24", info[i].idOffset, p(), n.id, "hint names a gesture (\"\(g)\"); say what happens, not how")
            }
            if n.respondsToUserInteraction == false && (!n.customActions.isEmpty || n.adjustable != nil) {
                lints.report(.warning, "W23", info[i].idOffset, p(), n.id, "\"respondsToUserInteraction\": false hides its actions from item mode")
            }
        } else if info[i].explicitFrame && reachable[i] {
            for c in n.children where !n.frame.contains(tree[c].frame) && !tree[c].isVirtual {
                lints.report(.warning, "W19", info[c].idOffset, nodePath(c), tree[c].id,
                              "frame \(format(tree[c].frame)) sticks out of its container \"\(n.id)\" \(format(n.frame))")
            }
        }
        if n.viewIsModal && n.modalScope == .siblings && reachable[i] && !n.hidden { modalPitfall(tree, modal: i) }
        var modals = 0
        for c in n.children where tree[c].viewIsModal {
            modals += 1
            if modals == 2 {
                lints.report(.warning, "W21", info[c].idOffset, nodePath(c), tree[c].id, "several modal siblings; the last one wins")
            }
        }
    }
}

/// The traits of `Vocabulary.traitWords`.
let traitWordTraits = TraitSet(Vocabulary.shared.traitWords.map(\.0))

/// Whether `text` (its UTF-8 bytes `t`) has `word` (lowercase) as a whole word, ignoring
/// case. ASCII text, nearly every label, is scanned in place; other text is split on
/// Unicode letters.
func containsWord(_ t: UnsafeBufferPointer<UInt8>, _ word: String, in text: String) -> Bool {
    // Over the bytes in place (a label is short, and this runs for every labelled element).
    @inline(__always) func letter(_ b: UInt8) -> Bool { (b | 0x20) >= 97 && (b | 0x20) <= 122 }
    var word = word
    let ascii: Bool? = word.withUTF8 { w in
        let n = t.count
        var i = 0
        while i < n {
            let b = t[i]
            if b >= 0x80 { return nil }
            guard letter(b) else { i += 1; continue }
            // One word: a run of ASCII letters, compared with `word` ignoring case.
            var m = 0
            var same = true
            while i < n && t[i] < 0x80 && letter(t[i]) {
                if same { if m < w.count && t[i] | 0x20 == w[m] { m += 1 } else { same = false } }
                i += 1
            }
            if i < n && t[i] >= 0x80 { return nil }
            if same && m == w.count { return true }
        }
        return false
    }
    // Non-ASCII text: words by Unicode letters.
    return ascii ?? text.lowercased().split(whereSeparator: { !$0.isLetter }).contains(Substring(word))
}

func isValidID(_ s: String) -> Bool {
    @inline(__always) func letter(_ b: UInt8) -> Bool { (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 95 }
    var s = s
    return s.withUTF8 { u in
        guard let first = u.first, u.count <= 128, letter(first) else { return false }
        for b in u.dropFirst() where !(letter(b) || (b >= 48 && b <= 57) || b == 46 || b == 58 || b == 45) { return false }
        return true
    }
}

func idSyntaxMessage(_ s: String) -> String {
    "bad id \"\(s)\": an id starts with a letter or \"_\" and continues with letters, digits, \"_\", \".\", \":\" or \"-\" (at most 128)"
}

func polygonContains(_ poly: [Point], _ p: Point) -> Bool {
    guard poly.count >= 3 else { return false }
    var inside = false
    var j = poly.count - 1
    for i in poly.indices {
        let a = poly[i], b = poly[j]
        if (a.y > p.y) != (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
        j = i
    }
    return inside
}

/// Compact JSON text of a value (for `emit` data passed through to the host).
func compactJSON(_ v: JSONValue) -> String {
    switch v.content {
    case .object(let members, _):
        return "{" + members.map { jsonString($0.key) + ":" + compactJSON($0.value) }.joined(separator: ",") + "}"
    case .array(let items, _): return "[" + items.map(compactJSON).joined(separator: ",") + "]"
    case .string(let s, _): return jsonString(s)
    case .number(let d, _): return format(d)
    case .bool(let b, _): return b ? "true" : "false"
    case .null: return "null"
    }
}

/// A JSON string literal with the escapes RFC 8259 requires.
public func jsonString(_ s: String) -> String {
    var out = "\""
    for u in s.unicodeScalars {
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if u.value < 0x20 {
                let h = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
            } else {
                out.unicodeScalars.append(u)
            }
        }
    }
    return out + "\""
}


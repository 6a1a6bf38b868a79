import JSONTape
import ScanCore

/// A loaded screen: the element tree, and the warnings its file raised.
public struct LayoutDocument: Sendable {
    public var tree: ElementTree
    public var title: String?
    public var warnings: [Diagnostic]
}

/// Reads layout files (schema version 1, Layouts/README.md) into ElementTrees. Every error
/// names file, line:column, JSON path and element id; all errors of a file are reported;
/// a file with any error yields no tree at all.
public enum LayoutLoader {
    /// Files past this size are refused before parsing (a layout of a million elements is
    /// about 150 MB).
    public static let maxFileSize = 512 << 20
    /// Element nesting past this is refused (the JSON parser's own limit is deeper).
    public static let maxElementDepth = 200

    public static func load(bytes: [UInt8], file: String) throws(DataFileError) -> LayoutDocument {
        try checkSize(bytes.count, file: file)
        return try read(parseDataFile(bytes, file: file), file: file)
    }

    /// A file already parsed (by `validate`, to tell layouts from settings).
    public static func load(_ parsed: ParsedDataFile) throws(DataFileError) -> LayoutDocument {
        try checkSize(parsed.bytes.count, file: parsed.file)
        return try read(parsed.document, file: parsed.file)
    }

    /// Refuses files past `maxFileSize`; callers check the size on disk before reading.
    public static func checkSize(_ size: Int, file: String) throws(DataFileError) {
        if size > maxFileSize {
            throw DataFileError(file: file, diagnostics: [Diagnostic(.error, "E01", file: file, offset: 0, path: "$",
                element: nil, "file is \(size >> 20) MiB; layout and settings files are limited to \(maxFileSize >> 20) MiB")])
        }
    }

    static func read(_ document: JSONDocument, file: String) throws(DataFileError) -> LayoutDocument {
        var reader = LayoutReader(file: file, bytes: document.bytes)
        reader.nodes.reserveCapacity(document.objectCount)
        reader.info.reserveCapacity(document.objectCount)
        reader.firstID.reserveCapacity(document.objectCount / 2)
        let result = reader.readScreen(document.root).flatMap { reader.finish($0) }
        let diagnostics = locate(reader.fields.diagnostics, in: document.bytes)
        guard let (tree, title) = result, !diagnostics.contains(where: { $0.severity == .error }) else {
            throw DataFileError(file: file, diagnostics: diagnostics, omitted: reader.fields.omitted)
        }
        return LayoutDocument(tree: tree, title: title, warnings: diagnostics)
    }
}

/// Per-node facts the checks after the read need.
struct NodeInfo {
    /// The node's JSON path is rebuilt from these only when a message needs it.
    var parent: Int32
    var position: Int32
    var idOffset: Int
    var subtreeEnd = 0
    var elements: [(id: String, offset: Int)]?
    var elementsOffset = 0
    var explicitFrame = false
}

struct IDReference {
    var id: String
    var offset: Int
    var path: String
    var element: String?
    var code: String
}

/// Traits that W18 says are mutually exclusive.
let controlTraits = TraitSet([.button, .link, .searchField, .keyboardKey])

struct LayoutReader {
    var fields: FieldReader
    /// Warnings and information, kept only if the file has no error (`finish`).
    var lints: FieldReader
    let bytes: [UInt8]
    /// Nodes in document order, and their reading notes.
    var nodes: [ElementNode] = []
    var info: [NodeInfo] = []
    /// Each id's first node.
    var firstID: [String: Int] = [:]
    var references: [IDReference] = []
    /// Whether any container has a custom order (`elements`), and the nodes those claim.
    var hasCustomOrder = false
    var claimed: [Bool] = []
    var lineIndex: LineIndex?

    init(file: String, bytes: [UInt8]) {
        fields = FieldReader(file: file)
        lints = FieldReader(file: file)
        self.bytes = bytes
    }

    /// "line:column" of a place in the file, for a message that points at a second place.
    mutating func lineOf(_ offset: Int) -> String {
        if lineIndex == nil { lineIndex = LineIndex(bytes) }
        let (l, c) = lineIndex!.position(of: offset)
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

    static let topKeys: FieldNames = ["schemaVersion", "screen", "root"]
    static let screenKeys: FieldNames = ["id", "title", "spokenAppName", "size", "language", "naturalOrder", "initialFocus", "onMagicTap"]
    static let sizeKeys: FieldNames = ["width", "height"]

    /// Reads the screen and every node; nil when there is no root.
    mutating func readScreen(_ json: JSONValue) -> Screen? {
        guard let top = fields.object(json, "$", nil, allowed: Self.topKeys) else { return nil }
        if let v = top["schemaVersion"] {
            if v.value.number != 1 { fields.report("E02", v.value.offset, "$.schemaVersion", nil, "must be 1 (the only version there is)") }
        } else {
            fields.report("E02", json.offset, "$", nil, "missing \"schemaVersion\"; add \"schemaVersion\": 1")
        }
        var screen = Screen()
        if let s = fields.require(top, "screen", in: json, "$", nil),
           let sd = fields.object(s.value, "$.screen", nil, allowed: Self.screenKeys) {
            if let id = fields.string(fields.require(sd, "id", in: s.value, "$.screen", nil), "$.screen", nil) {
                if !isValidID(id) { fields.report("E05", sd["id"]!.value.offset, "$.screen.id", nil, idSyntaxMessage(id)) }
                screen.id = id
            }
            screen.title = fields.string(sd["title"], "$.screen", nil)
            _ = fields.string(sd["spokenAppName"], "$.screen", nil)
            if let m = sd["language"] { language(m, "$.screen", nil) }
            if let o = fields.enumValue(sd["naturalOrder"], NaturalOrder.self, "$.screen", nil) { screen.order = o }
            if let f = fields.string(sd["initialFocus"], "$.screen", nil) { screen.initialFocus = (f, sd["initialFocus"]!.value.offset) }
            if let m = sd["onMagicTap"] { _ = effects(m, "$.screen", nil) }
            if let sz = fields.require(sd, "size", in: s.value, "$.screen", nil),
               let szd = fields.object(sz.value, "$.screen.size", nil, allowed: Self.sizeKeys) {
                let positive = 1e-3...LayoutRanges.sizes.upperBound
                let w = fields.number(fields.require(szd, "width", in: sz.value, "$.screen.size", nil), in: positive, "$.screen.size", nil, code: "E16")
                let h = fields.number(fields.require(szd, "height", in: sz.value, "$.screen.size", nil), in: positive, "$.screen.size", nil, code: "E16")
                if let w, let h { screen.size = (w, h) }
            }
        }
        guard let r = fields.require(top, "root", in: json, "$", nil) else { return nil }
        _ = node(r.value, path: "$.root", parent: nil, position: 0, origin: Point(x: 0, y: 0), depth: 1)
        guard !nodes.isEmpty else { return nil }
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
    mutating func finish(_ screen: Screen) -> (ElementTree, String?)? {
        // Without a size (an error already) the tree is built all the same, for the checks.
        let tree = ElementTree(screenID: screen.id, size: screen.size ?? (1, 1), naturalOrder: screen.order,
                               nodes: nodes, ids: firstID)
        nodes = []
        checkAccessibility(tree)
        guard screen.size != nil else { return nil }
        if let (f, offset) = screen.initialFocus {
            if let i = tree.index(of: f) {
                if !tree[i].isAccessibilityElement {
                    fields.report("E16", offset, "$.screen.initialFocus", nil, "\"\(excerpt(f))\" is a container; name an accessible element")
                }
            } else {
                unknownID(f, offset, "$.screen.initialFocus", nil, code: "E16")
            }
        }
        // A file with errors gets only those.
        if !fields.hasErrors { fields.diagnostics += lints.diagnostics }
        return (tree, screen.title)
    }

    // MARK: nodes

    /// Reads one node and its subtree in document order; returns its index.
    mutating func node(_ v: JSONValue, path: @autoclosure () -> String, parent: Int?, position: Int,
                       origin: Point, depth: Int) -> Int? {
        if depth > LayoutLoader.maxElementDepth {
            fields.report("E04", v.offset, path(), nil, "elements nested deeper than \(LayoutLoader.maxElementDepth) levels; flatten the layout")
            return nil
        }
        // The id first, so that every message about this node can name it.
        let idMember = v.object?.member("id")
        let early = idMember?.value.string
        guard let d = fields.object(v, path(), early, allowed: ElementFields.names) else { return nil }
        var id = "?"
        var idOffset = v.offset
        if let m = idMember ?? fields.require(d, "id", in: v, path(), nil, code: "E05"),
           let s = early ?? fields.string(m, path(), nil) {
            id = s
            idOffset = m.value.offset
            if !isValidID(s) {
                fields.report("E05", m.value.offset, path() + ".id", nil, idSyntaxMessage(s))
            } else if let first = firstID[s] {
                fields.report("E05", m.value.offset, path() + ".id", nil,
                              "duplicate id \"\(s)\" (first defined at \(lineOf(info[first].idOffset)), \(nodePath(first)).id)")
            } else {
                firstID[s] = nodes.count
            }
        }
        let el: String? = id
        let index = nodes.count
        // A place for the node before its children (document order); filled in at the end.
        nodes.append(ElementNode(id: id))
        info.append(NodeInfo(parent: Int32(parent ?? -1), position: Int32(position), idOffset: idOffset))

        var n = NodeDraft(id: id)
        n.node.parent = parent
        // In file order: a field's reader depends on no other field (checks across fields
        // come after), and messages are sorted by place anyway.
        for (position, m) in d.members where position != ElementFields.id {
            ElementFields.readers[position](&self, m, &n, path)
        }
        if d.has(ElementFields.label) && d.has(ElementFields.labelSpans) {
            fields.report("E17", d[ElementFields.labelSpans]!.keyOffset, path() + ".labelSpans", el, "use either \"label\" or \"labelSpans\", not both")
        }
        info[index].elements = n.elements
        info[index].elementsOffset = d[ElementFields.elements]?.value.offset ?? 0

        // Geometry: an explicit frame, or one relative to the nearest framed ancestor.
        var frame = n.frame
        if let rel = n.frameInContainer {
            if d.has(ElementFields.frame) {
                fields.report("E06", d[ElementFields.frameInContainer]!.keyOffset, path() + ".frameInContainer", el,
                              "use either \"frame\" or \"frameInContainer\", not both")
            }
            frame = Rect(x: origin.x + rel.x, y: origin.y + rel.y, width: rel.width, height: rel.height)
        }
        info[index].explicitFrame = d.has(ElementFields.frame) || n.frameInContainer != nil

        // Children, in paint order.
        var childIndices: [Int] = []
        let childrenWritten = n.children?.count ?? 0
        if let list = n.children {
            let childOrigin = frame.map { Point(x: $0.x, y: $0.y) } ?? origin
            childIndices.reserveCapacity(list.count)
            for (k, c) in list.enumerated() {
                if let ci = node(c, path: "\(path()).children[\(k)]", parent: index, position: k, origin: childOrigin, depth: depth + 1) {
                    childIndices.append(ci)
                }
            }
        }
        n.node.children = childIndices
        let hasChildren = !childIndices.isEmpty
        // Children written but refused (each with its own error) still make a container, so
        // that no second error follows from reading it as a leaf (e.g. "needs a label").
        n.node.isAccessibilityElement = n.explicitAccessibility ?? (childrenWritten == 0)
        if n.labelFromChildren {
            if !hasChildren || !n.node.isAccessibilityElement {
                fields.report("E04", d[ElementFields.labelFromChildren]!.keyOffset, path() + ".labelFromChildren", el,
                              "only an accessible element with children can take its label from them")
            } else {
                n.node.label = childIndices.compactMap { nodes[$0].label }.filter { !$0.isEmpty }.joined(separator: ", ")
            }
        }
        if let f = frame {
            n.node.frame = f
        } else if hasChildren {
            n.node.frame = childIndices.dropFirst().reduce(nodes[childIndices[0]].frame) { $0.union(nodes[$1].frame) }
        } else if childrenWritten == 0 && !d.has(ElementFields.frame) && !d.has(ElementFields.frameInContainer) {
            fields.report("E06", v.offset, path(), el, "missing \"frame\"; a node without children needs {\"x\", \"y\", \"width\", \"height\"}")
        }
        if let p = n.activationPoint {
            n.node.activationPoint = p
            n.node.hasExplicitActivationPoint = true
            let inPath = n.polygon.map { polygonContains($0, p) } ?? false
            if !n.activationPointOutsideFrame && !n.node.frame.contains(p) && !inPath && (frame != nil || hasChildren) {
                fields.report("E07", d[ElementFields.activationPoint]!.value.offset, path() + ".activationPoint", el,
                              "point (\(format(p.x)), \(format(p.y))) lies outside frame \(format(n.node.frame)); set \"activationPointOutsideFrame\": true to allow it")
            }
        } else {
            n.node.activationPoint = n.node.frame.center
        }
        // Adjustable: the trait and the spec go together; the value is computed.
        let hasTrait = n.node.traits.contains(.adjustable)
        if let m = d[ElementFields.adjustable] {
            if !hasTrait {
                fields.report("E10", m.keyOffset, path() + ".adjustable", el, "an \"adjustable\" spec needs the trait \"adjustable\" in \"traits\"")
            }
            if let vm = d[ElementFields.value] {
                fields.report("E10", vm.keyOffset, path() + ".value", el, "an adjustable element's value is computed from \"adjustable\"; remove \"value\"")
            }
        } else if hasTrait {
            fields.report("E10", d[ElementFields.traits]!.value.offset, path() + ".traits", el,
                          "the trait \"adjustable\" needs an \"adjustable\" spec: {\"min\", \"max\", \"step\", \"value\"} or {\"values\", \"index\"}")
        }
        // W20 / W26: container-only fields on a leaf, and leaf fields on a container.
        for (position, m) in d.members {
            let place = ElementFields.all[position].place
            if n.node.isAccessibilityElement && place == .container {
                fields.report(.warning, "W20", m.keyOffset, path() + "." + m.key, el, "\"\(m.key)\" on an accessible element is ignored")
            } else if !n.node.isAccessibilityElement && n.explicitAccessibility == nil && hasChildren && place == .element {
                fields.report(.warning, "W26", m.keyOffset, path() + "." + m.key, el,
                              "a node with children is a container by default, so \"\(m.key)\" is ignored; set \"isAccessibilityElement\": true to make it one element")
            }
        }
        if n.node.isAccessibilityElement && hasChildren, let m = d[ElementFields.elements] {
            fields.report(.warning, "W20", m.keyOffset, path() + ".elements", el, "\"elements\" on an accessible element is ignored")
        }
        if let m = d[ElementFields.modalScope], !n.node.viewIsModal {
            fields.report(.warning, "W20", m.keyOffset, path() + ".modalScope", el, "\"modalScope\" is ignored without \"viewIsModal\": true")
        }
        info[index].subtreeEnd = nodes.count
        nodes[index] = n.node
        return index
    }

    static let labelSpanKeys: FieldNames = ["text", "language"]

    mutating func labelSpans(_ m: JSONMember, _ n: inout NodeDraft, _ path: @autoclosure () -> String) {
        let el = n.node.id
        guard let spans = fields.array(m, path(), el) else { return }
        var text: [String] = []
        for (k, s) in spans.enumerated() {
            let sp = "\(path()).labelSpans[\(k)]"
            if let sd = fields.object(s, sp, el, allowed: Self.labelSpanKeys) {
                if let t = fields.string(fields.require(sd, "text", in: s, sp, el), sp, el) { text.append(t) }
                if let lm = sd["language"] { language(lm, sp, el) }
            }
        }
        if spans.isEmpty { fields.report("E04", m.value.offset, path() + ".labelSpans", el, "must not be empty") }
        else { n.node.label = text.joined() }
    }

    /// A list of element ids (a custom order).
    mutating func idList(_ m: JSONMember, _ path: @autoclosure () -> String, _ el: String?) -> [(id: String, offset: Int)]? {
        guard let list = fields.array(m, path(), el) else { return nil }
        var ids: [(id: String, offset: Int)] = []
        for (k, item) in list.enumerated() {
            if let s = item.string { ids.append((s, item.offset)) }
            else { fields.report("E04", item.offset, "\(path()).elements[\(k)]", el, "must be an element id (a string), got \(item.kindName)") }
        }
        return ids
    }

    /// A shape's outline: at least three points [x, y].
    mutating func polygon(_ m: JSONMember, _ path: @autoclosure () -> String, _ el: String?) -> [Point]? {
        guard let pts = fields.array(m, path(), el) else { return nil }
        var list: [Point] = []
        for (k, p) in pts.enumerated() {
            let xy = p.array.map(Array.init) ?? []
            let range = LayoutRanges.coordinates
            if xy.count == 2, let x = xy[0].number, let y = xy[1].number {
                if range.contains(x) && range.contains(y) { list.append(Point(x: x, y: y)) }
                else { fields.report("E04", p.offset, "\(path()).path[\(k)]", el, "coordinates must be between \(format(range.lowerBound)) and \(format(range.upperBound))") }
            } else {
                fields.report("E04", p.offset, "\(path()).path[\(k)]", el, "must be a point [x, y] of two numbers")
            }
        }
        if pts.count < 3 { fields.report("E08", m.value.offset, path() + ".path", el, "a path needs at least 3 points, got \(pts.count)") }
        return list
    }

    mutating func traits(_ m: JSONMember, _ path: @autoclosure () -> String, _ el: String?) -> TraitSet {
        func p() -> String { path() + "." + m.key }
        let names = Trait.allCases.map(\.rawValue)
        if m.value.kind == .number {
            fields.report("E09", m.value.offset, p(), el, "traits are names, not a raw bitmask; allowed: \(quotedList(names))")
            return TraitSet()
        }
        guard let list = fields.array(m, path(), el) else { return TraitSet() }
        var set = TraitSet()
        for (k, item) in list.enumerated() {
            func ip() -> String { "\(p())[\(k)]" }
            guard let s = item.string else {
                fields.report("E09", item.offset, ip(), el, "a trait is a name (a string), got \(item.kindName); allowed: \(quotedList(names))")
                continue
            }
            if let t = Trait(rawValue: s) {
                if set.contains(t) { fields.report("E09", item.offset, ip(), el, "duplicate trait \"\(s)\"") }
                set.insert(t)
            } else if s == "isModal" || s == "modal" {
                fields.report("E09", item.offset, ip(), el, "\"\(s)\" is not a trait here; use \"viewIsModal\": true on the node")
            } else {
                var msg = "unknown trait \"\(excerpt(s))\"; allowed: \(quotedList(names))"
                let bare = s.hasPrefix(".") ? String(s.dropFirst()) : s
                if let sug = suggestion(for: bare, among: names) { msg += "; did you mean \"\(sug)\"?" }
                fields.report("E09", item.offset, ip(), el, msg)
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

    mutating func language(_ m: JSONMember, _ path: @autoclosure () -> String, _ el: String?) {
        guard let s = fields.string(m, path(), el) else { return }
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        let ok = !parts.isEmpty && (2...8).contains(parts[0].count) && parts[0].allSatisfy { $0.isASCII && $0.isLetter }
            && parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
        if !ok { fields.report("E17", m.value.offset, path() + "." + m.key, el, "\"\(excerpt(s))\" is not a BCP 47 language tag (e.g. \"en\", \"fr-CA\")") }
    }

    static let customActionKeys: FieldNames = ["name", "effects"]

    mutating func customActions(_ m: JSONMember, _ path: @autoclosure () -> String, _ el: String?) -> [CustomAction] {
        guard let list = fields.array(m, path(), el) else { return [] }
        var actions: [CustomAction] = []
        var seen: [String: Int] = [:]
        for (k, item) in list.enumerated() {
            func ap() -> String { "\(path()).customActions[\(k)]" }
            guard let ad = fields.object(item, ap(), el, allowed: Self.customActionKeys) else { continue }
            guard let name = fields.string(fields.require(ad, "name", in: item, ap(), el, code: "E13"), ap(), el) else { continue }
            let effects = ad["effects"].map { self.effects($0, ap(), el) } ?? []
            if name.isEmpty {
                fields.report("E13", ad["name"]!.value.offset, ap() + ".name", el, "an action needs a name a person can read")
            } else if let first = seen[name] {
                fields.report("E13", ad["name"]!.value.offset, ap() + ".name", el, "duplicate action name \"\(excerpt(name))\" (also customActions[\(first)])")
            } else {
                seen[name] = k
                actions.append(CustomAction(name: name, effects: effects))
            }
        }
        return actions
    }

    static let listAdjustableKeys: FieldNames = ["values", "index", "onChange"]
    static let numericAdjustableKeys: FieldNames = ["min", "max", "step", "value", "decimals", "valueFormat", "onChange"]

    mutating func adjustable(_ m: JSONMember, _ path: @autoclosure () -> String, _ el: String?) -> Adjustable? {
        let p = path() + ".adjustable"
        guard let members = m.value.object else {
            fields.report("E10", m.value.offset, p, el, "must be an object: {\"min\", \"max\", \"step\", \"value\"} or {\"values\", \"index\"}")
            return nil
        }
        if members.member("values") != nil {
            guard let d = fields.object(m.value, p, el, allowed: Self.listAdjustableKeys, unknownCode: "E10") else { return nil }
            let values = fields.array(d["values"], p, el).map(Array.init) ?? []
            var strings: [String] = []
            for (k, v) in values.enumerated() {
                if let s = v.string { strings.append(s) }
                else { fields.report("E10", v.offset, "\(p).values[\(k)]", el, "must be a string, got \(v.kindName)") }
            }
            if values.isEmpty { fields.report("E10", d["values"]!.value.offset, p + ".values", el, "must list at least one value") }
            let index = fields.integer(d["index"], p, el) ?? 0
            if !strings.isEmpty && !(0..<strings.count).contains(index) {
                fields.report("E10", d["index"]!.value.offset, p + ".index", el, "must be between 0 and \(strings.count - 1), got \(index)")
            }
            let onChange = d["onChange"].map { effects($0, p, el) } ?? []
            guard !strings.isEmpty, strings.count == values.count else { return nil }
            return Adjustable(kind: .list(strings), current: Double(min(max(index, 0), strings.count - 1)), onChange: onChange)
        }
        guard let d = fields.object(m.value, p, el, allowed: Self.numericAdjustableKeys, unknownCode: "E10") else { return nil }
        let lo = fields.number(fields.require(d, "min", in: m.value, p, el, code: "E10"), in: LayoutRanges.values, p, el, code: "E10")
        let hi = fields.number(fields.require(d, "max", in: m.value, p, el, code: "E10"), in: LayoutRanges.values, p, el, code: "E10")
        let step = d["step"] == nil ? 1 : fields.number(d["step"], in: LayoutRanges.steps, p, el, code: "E10")
        let decimals = fields.integer(d["decimals"], p, el) ?? 0
        let format = fields.string(d["valueFormat"], p, el) ?? "{value}"
        let onChange = d["onChange"].map { effects($0, p, el) } ?? []
        if !(0...9).contains(decimals) { fields.report("E10", d["decimals"]!.value.offset, p + ".decimals", el, "must be between 0 and 9, got \(decimals)") }
        if !format.contains("{value}") { fields.report("E10", d["valueFormat"]!.value.offset, p + ".valueFormat", el, "must contain \"{value}\"") }
        guard let lo, let hi, let step else { return nil }
        if lo > hi { fields.report("E10", d["min"]!.value.offset, p + ".min", el, "min \(ScanFormats.format(lo)) is greater than max \(ScanFormats.format(hi))"); return nil }
        let value = fields.number(d["value"], p, el) ?? lo
        if value < lo || value > hi {
            fields.report("E10", d["value"]!.value.offset, p + ".value", el, "must be between min \(ScanFormats.format(lo)) and max \(ScanFormats.format(hi)), got \(ScanFormats.format(value))")
            return nil
        }
        return Adjustable(kind: .numeric(min: lo, max: hi, step: step, decimals: max(0, min(decimals, 9)), format: format),
                          current: value, onChange: onChange)
    }

    static let customContentKeys: FieldNames = ["label", "value", "importance"]

    mutating func customContent(_ m: JSONMember, _ path: @autoclosure () -> String, _ el: String?) {
        guard let list = fields.array(m, path(), el) else { return }
        for (k, item) in list.enumerated() {
            let cp = "\(path()).customContent[\(k)]"
            guard let d = fields.object(item, cp, el, allowed: Self.customContentKeys) else { continue }
            for key in ["label", "value"] {
                if let s = fields.string(fields.require(d, key, in: item, cp, el, code: "E14"), cp, el), s.isEmpty {
                    fields.report("E14", d[key]!.value.offset, cp + "." + key, el, "must not be empty")
                }
            }
            if let imp = fields.string(d["importance"], cp, el), imp != "default" && imp != "high" {
                fields.report("E04", d["importance"]!.value.offset, cp + ".importance", el, "unknown value \"\(excerpt(imp))\"; allowed: default, high")
            }
        }
    }

    static let customRotorKeys: FieldNames = ["name", "targets"]

    mutating func customRotors(_ m: JSONMember, _ path: @autoclosure () -> String, _ el: String?) {
        guard let list = fields.array(m, path(), el) else { return }
        for (k, item) in list.enumerated() {
            let rp = "\(path()).customRotors[\(k)]"
            guard let d = fields.object(item, rp, el, allowed: Self.customRotorKeys) else { continue }
            if let s = fields.string(fields.require(d, "name", in: item, rp, el, code: "E14"), rp, el), s.isEmpty {
                fields.report("E14", d["name"]!.value.offset, rp + ".name", el, "must not be empty")
            }
            if let targets = fields.array(fields.require(d, "targets", in: item, rp, el, code: "E14"), rp, el) {
                for (t, v) in targets.enumerated() {
                    if let s = v.string {
                        references.append(IDReference(id: s, offset: v.offset, path: "\(rp).targets[\(t)]", element: el, code: "E14"))
                    } else {
                        fields.report("E14", v.offset, "\(rp).targets[\(t)]", el, "must be an element id (a string)")
                    }
                }
            }
        }
    }

    static let largeContentKeys: FieldNames = ["title", "image"]

    mutating func largeContent(_ m: JSONMember, _ path: @autoclosure () -> String, _ el: String?) {
        let lp = path() + ".largeContent"
        guard let d = fields.object(m.value, lp, el, allowed: Self.largeContentKeys) else { return }
        _ = fields.string(fields.require(d, "title", in: m.value, lp, el), lp, el)
        _ = fields.string(d["image"], lp, el)
    }

    static let scrollKeys: FieldNames = ["directions", "effects"]
    static let scrollDirections: FieldNames = ["up", "down", "left", "right", "next", "previous"]

    mutating func scroll(_ m: JSONMember, _ path: @autoclosure () -> String, _ el: String?) {
        let sp = path() + ".scroll"
        guard let d = fields.object(m.value, sp, el, allowed: Self.scrollKeys) else { return }
        let allowed = Self.scrollDirections
        if let dirs = fields.array(fields.require(d, "directions", in: m.value, sp, el), sp, el) {
            for (k, v) in dirs.enumerated() where v.string.flatMap({ allowed.position($0) }) == nil {
                fields.report("E04", v.offset, "\(sp).directions[\(k)]", el, "must be one of \(quotedList(allowed.names))")
            }
        }
        if let e = d["effects"], let ed = fields.object(e.value, sp + ".effects", el, allowed: allowed) {
            for (_, x) in ed.members { _ = effects(x, sp + ".effects", el) }
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

    /// Each effect verb with the keys its object allows.
    static let effectVerbs: [(verb: String, keys: FieldNames)] = [
        ("emit", ["emit", "data"]), ("set", ["set"]), ("toggle", ["toggle"]), ("post", ["post", "argument"]),
        ("loadScreen", ["loadScreen"]), ("result", ["result"]),
    ]
    static let toggleKeys: FieldNames = ["id", "field", "values"]
    static let argumentKeys: FieldNames = ["element"]
    static let notifications = ["announcement", "layoutChanged", "screenChanged", "pageScrolled"]

    mutating func effect(_ v: JSONValue, _ p: @autoclosure () -> String, _ el: String?) -> LayoutEffect? {
        let verbs = Self.effectVerbs.map(\.verb)
        guard let members = v.object else {
            fields.report("E15", v.offset, p(), el, "an effect is an object with one verb: \(quotedList(verbs))")
            return nil
        }
        guard let (verb, allowed) = Self.effectVerbs.first(where: { members.member($0.verb) != nil }) else {
            var msg = "an effect needs exactly one verb: \(quotedList(verbs))"
            if let first = members.first(where: { _ in true }), let s = suggestion(for: first.key, among: verbs) { msg += "; did you mean \"\(s)\"?" }
            fields.report("E15", v.offset, p(), el, msg)
            return nil
        }
        guard let d = fields.object(v, p(), el, allowed: allowed) else { return nil }
        let m = d[verb]!
        switch verb {
        case "emit":
            guard let name = fields.string(m, p(), el) else { return nil }
            if name.isEmpty { fields.report("E15", m.value.offset, p() + ".emit", el, "must name the event"); return nil }
            var data: String?
            if let dm = d["data"] {
                if dm.value.kind == .object { data = dm.value.compactText }
                else { fields.report("E04", dm.value.offset, p() + ".data", el, "must be an object, got \(dm.value.kindName)") }
            }
            return .emit(name: name, data: data)
        case "set":
            let sp = p() + ".set"
            guard let sd = fields.object(m.value, sp, el, allowed: ElementFields.settable) else { return nil }
            guard let id = target(sd, m.value, sp, el) else { return nil }
            var changes: [LayoutEffect.FieldChange] = []
            for (position, member) in sd.members where member.key != "id" {
                // Read as the node field is, into a draft of its own.
                let field = ElementFields.all[ElementFields.names.position(ElementFields.settable.names[position])!]
                var draft = NodeDraft(id: id)
                field.read(&self, member, &draft, { sp })
                if let change = field.change?(draft) { changes.append(change) }
            }
            return .set(id: id, changes: changes)
        case "toggle":
            let tp = p() + ".toggle"
            guard let td = fields.object(m.value, tp, el, allowed: Self.toggleKeys) else { return nil }
            let id = target(td, m.value, tp, el)
            let field = fields.enumValue(fields.require(td, "field", in: m.value, tp, el), LayoutEffect.TextField.self, tp, el)
            var values: [String] = []
            if let list = fields.array(fields.require(td, "values", in: m.value, tp, el), tp, el) {
                for (k, item) in list.enumerated() {
                    if let s = item.string { values.append(s) }
                    else { fields.report("E04", item.offset, "\(tp).values[\(k)]", el, "must be a string, got \(item.kindName)") }
                }
                if list.count < 2 { fields.report("E15", td["values"]!.value.offset, tp + ".values", el, "a toggle needs at least 2 values") }
            }
            guard let id, let field, values.count >= 2 else { return nil }
            return .toggle(id: id, field: field, values: values)
        case "post":
            return post(m, d, p(), el)
        case "loadScreen":
            guard let f = fields.string(m, p(), el) else { return nil }
            if f.isEmpty { fields.report("E15", m.value.offset, p() + ".loadScreen", el, "must name a layout file"); return nil }
            return .loadScreen(f)
        default:
            guard let b = fields.bool(m, p(), el) else { return nil }
            return .result(b)
        }
    }

    mutating func post(_ m: JSONMember, _ d: ObjectView, _ p: String, _ el: String?) -> LayoutEffect? {
        let kinds = Self.notifications
        guard let kind = fields.string(m, p, el) else { return nil }
        guard kinds.contains(kind) else {
            var msg = "unknown notification \"\(excerpt(kind))\"; allowed: \(quotedList(kinds))"
            if let s = suggestion(for: kind, among: kinds) { msg += "; did you mean \"\(s)\"?" }
            fields.report("E15", m.value.offset, p + ".post", el, msg)
            return nil
        }
        var arg = LayoutEffect.Notification.Argument.none
        if let a = d["argument"] {
            switch a.value.content {
            case .null: break
            case .string(let s, _): arg = .text(s)
            case .object:
                let ap = p + ".argument"
                if let ad = fields.object(a.value, ap, el, allowed: Self.argumentKeys),
                   let id = fields.string(fields.require(ad, "element", in: a.value, ap, el, code: "E15"), ap, el) {
                    references.append(IDReference(id: id, offset: ad["element"]!.value.offset, path: ap + ".element", element: el, code: "E15"))
                    arg = .element(id)
                }
            default:
                fields.report("E15", a.value.offset, p + ".argument", el, "must be null, a string, or {\"element\": id}")
            }
        }
        switch kind {
        case "announcement":
            guard case .text(let s) = arg else {
                fields.report("E15", m.value.offset, p + ".argument", el, "an announcement needs the text to speak as \"argument\"")
                return nil
            }
            return .post(.announcement(s))
        case "layoutChanged": return .post(.layoutChanged(arg))
        case "screenChanged": return .post(.screenChanged(arg))
        default:
            if case .text(let s) = arg { return .post(.pageScrolled(s)) }
            fields.report("E15", m.value.offset, p + ".argument", el, "pageScrolled needs a text such as \"Page 2 of 5\" as \"argument\"")
            return nil
        }
    }

    mutating func target(_ d: ObjectView, _ v: JSONValue, _ p: String, _ el: String?) -> String? {
        guard let m = fields.require(d, "id", in: v, p, el, code: "E15"), let id = fields.string(m, p, el) else { return nil }
        references.append(IDReference(id: id, offset: m.value.offset, path: p + ".id", element: el, code: "E15"))
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
        var msg = "unknown element id \"\(excerpt(id))\""
        if let s = suggestion(for: id, among: firstID.keys.sorted()) { msg += "; did you mean \"\(s)\"?" }
        fields.report(code, offset, path, el, msg)
    }

    /// Custom orders (`elements`) resolved to node indices, and ids referred to checked.
    mutating func customOrders() {
        var listedIn: [Int: (owner: Int, path: String)] = [:]
        for i in nodes.indices {
            guard let list = info[i].elements else { continue }
            let owner = nodes[i]
            let p = nodePath(i) + ".elements"
            if owner.children.isEmpty {
                fields.report("E12", info[i].elementsOffset, p, owner.id, "\"elements\" orders a container's descendants; this node has no children")
                continue
            }
            var resolved: [Int] = []
            var inThisList = Set<Int>()
            for (k, entry) in list.enumerated() {
                let ep = "\(p)[\(k)]"
                guard let j = firstID[entry.id] else { unknownID(entry.id, entry.offset, ep, owner.id, code: "E12"); continue }
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
                listedIn[j] = (i, p)
                resolved.append(j)
            }
            // A node and one of its descendants in one list would scan the descendant twice.
            for a in resolved {
                for b in resolved where b > a && b < info[a].subtreeEnd {
                    fields.report("E12", info[i].elementsOffset, p, owner.id, "lists both \"\(nodes[a].id)\" and its descendant \"\(nodes[b].id)\"")
                }
            }
            nodes[i].elements = resolved
            hasCustomOrder = true
            if claimed.isEmpty { claimed = [Bool](repeating: false, count: nodes.count) }
            for j in resolved { claimed[j] = true }
        }
        for r in references where firstID[r.id] == nil {
            unknownID(r.id, r.offset, r.path, r.element, code: r.code)
        }
    }

    /// A container's members in the accessibility tree: its custom order, or the children no
    /// custom order claims.
    func axMembers(_ tree: ElementTree, _ i: Int) -> [Int] {
        if let list = tree[i].elements { return list }
        return claimed.isEmpty ? tree[i].children : tree[i].children.filter { !claimed[$0] }
    }

    /// E11 (every accessible element reachable in the accessibility tree has a label) and
    /// the lint, in one pass over the nodes. Without custom orders a node's reachability
    /// follows from its parent's, met earlier in document order; custom orders move nodes
    /// between containers, so then the accessibility tree is walked first.
    mutating func checkAccessibility(_ tree: ElementTree) {
        var reachable = [Bool](repeating: false, count: tree.count)
        var axParent = [Int32](repeating: -1, count: tree.count)
        reachable[0] = true
        if hasCustomOrder {
            var stack = [0]
            while let i = stack.popLast() {
                reachable[i] = true
                if tree[i].isAccessibilityElement { continue }
                let members = axMembers(tree, i)
                for m in members { axParent[m] = Int32(i) }
                stack.append(contentsOf: members.reversed())
            }
        }
        var unreachable: [String] = []
        for i in 0..<tree.count {
            if !hasCustomOrder && i > 0 {
                let p = Int(info[i].parent)
                if reachable[p] && !tree[p].isAccessibilityElement {
                    reachable[i] = true
                    axParent[i] = Int32(p)
                }
            }
            if reachable[i] && tree[i].isAccessibilityElement && (tree[i].label?.isEmpty ?? true) {
                fields.report("E11", info[i].idOffset, nodePath(i), tree[i].id,
                              "an accessible element needs a non-empty \"label\" (or \"labelSpans\", or \"labelFromChildren\"); a decorative node says \"isAccessibilityElement\": false")
            }
            if tree[i].isAccessibilityElement && !reachable[i] && i != 0 { unreachable.append(tree[i].id) }
            lintNode(i, tree, reachable: reachable[i])
            if tree[i].viewIsModal && tree[i].modalScope == .siblings && reachable[i] && !tree[i].hidden {
                modalPitfall(tree, modal: i, axParent: axParent)
            }
        }
        if !unreachable.isEmpty {
            let shown = unreachable.prefix(10).map { "\"\(excerpt($0))\"" }.joined(separator: ", ")
            let more = unreachable.count > 10 ? " and \(unreachable.count - 10) more" : ""
            lints.report(.info, "I25", 0, "$.root", nil,
                         "accessible elements \(shown)\(more) are unreachable in the accessibility tree (point mode can still tap them)")
        }
    }
}

func isValidID(_ s: String) -> Bool {
    func letter(_ b: UInt8) -> Bool { (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 95 }
    let u = s.utf8
    guard let first = u.first, u.count <= 128, letter(first) else { return false }
    return u.dropFirst().allSatisfy { letter($0) || ($0 >= 48 && $0 <= 57) || $0 == 46 || $0 == 58 || $0 == 45 }
}

func idSyntaxMessage(_ s: String) -> String {
    "bad id \"\(excerpt(s))\": an id starts with a letter or \"_\" and continues with letters, digits, \"_\", \".\", \":\" or \"-\" (at most 128)"
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

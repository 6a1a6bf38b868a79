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
        let (line, column) = lineIndex!.position(of: offset)
        return "\(line):\(column)"
    }

    /// What the top of the file says about the screen.
    struct Screen {
        var id = "screen"
        var size: (Double, Double)?
        var title: String?
        var order = NaturalOrder.geometric
        var toolkitContainers = false
        var initialFocus: (String, Int)?
    }

    static let topKeys: FieldNames = ["schemaVersion", "screen", "root"]
    static let screenKeys: FieldNames = ["id", "title", "spokenAppName", "size", "language", "naturalOrder", "containers", "initialFocus", "onMagicTap"]
    static let sizeKeys: FieldNames = ["width", "height"]

    /// Reads the screen and every node; nil when there is no root.
    mutating func readScreen(_ json: JSONValue) -> Screen? {
        guard let top = fields.object(json, "$", nil, allowed: Self.topKeys) else { return nil }
        if let versionMember = top["schemaVersion"] {
            if versionMember.value.number != 1 { fields.report("E02", versionMember.value.offset, "$.schemaVersion", nil, "must be 1 (the only version there is)") }
        } else {
            fields.report("E02", json.offset, "$", nil, "missing \"schemaVersion\"; add \"schemaVersion\": 1")
        }
        var screen = Screen()
        if let screenMember = fields.require(top, "screen", in: json, "$", nil),
           let screenObject = fields.object(screenMember.value, "$.screen", nil, allowed: Self.screenKeys) {
            if let id = fields.string(fields.require(screenObject, "id", in: screenMember.value, "$.screen", nil), "$.screen", nil) {
                if !isValidID(id) { fields.report("E05", screenObject["id"]!.value.offset, "$.screen.id", nil, idSyntaxMessage(id)) }
                screen.id = id
            }
            screen.title = fields.string(screenObject["title"], "$.screen", nil)
            _ = fields.string(screenObject["spokenAppName"], "$.screen", nil)
            if let member = screenObject["language"] { language(member, "$.screen", nil) }
            if let order = fields.enumValue(screenObject["naturalOrder"], NaturalOrder.self, "$.screen", nil) { screen.order = order }
            if let containers = fields.enumValue(screenObject["containers"], Containers.self, "$.screen", nil) {
                screen.toolkitContainers = containers == .toolkit
            }
            if let focus = fields.string(screenObject["initialFocus"], "$.screen", nil) { screen.initialFocus = (focus, screenObject["initialFocus"]!.value.offset) }
            if let member = screenObject["onMagicTap"] { _ = effects(member, "$.screen", nil) }
            if let sizeMember = fields.require(screenObject, "size", in: screenMember.value, "$.screen", nil),
               let sizeObject = fields.object(sizeMember.value, "$.screen.size", nil, allowed: Self.sizeKeys) {
                let positive = 1e-3...LayoutRanges.sizes.upperBound
                let width = fields.number(fields.require(sizeObject, "width", in: sizeMember.value, "$.screen.size", nil), in: positive, "$.screen.size", nil, code: "E16")
                let height = fields.number(fields.require(sizeObject, "height", in: sizeMember.value, "$.screen.size", nil), in: positive, "$.screen.size", nil, code: "E16")
                if let width, let height { screen.size = (width, height) }
            }
        }
        guard let rootMember = fields.require(top, "root", in: json, "$", nil) else { return nil }
        _ = node(rootMember.value, path: "$.root", parent: nil, position: 0, origin: Point(x: 0, y: 0), depth: 1)
        guard !nodes.isEmpty else { return nil }
        if nodes[0].isVirtual {
            fields.report("E16", rootMember.value.offset, "$.root", nodes[0].id, "the root must not be virtual")
        }
        if nodes[0].isAccessibilityElement {
            fields.report("E16", rootMember.value.offset, "$.root", nodes[0].id,
                          "the root must be a container: set \"isAccessibilityElement\": false and give it children")
        }
        customOrders()
        return screen
    }

    /// The tree of the nodes read, and the checks that need it; nil without a screen size.
    mutating func finish(_ screen: Screen) -> (ElementTree, String?)? {
        // Without a size (an error already) the tree is built all the same, for the checks.
        var tree = ElementTree(screenID: screen.id, size: screen.size ?? (1, 1), naturalOrder: screen.order,
                               nodes: nodes, ids: firstID)
        tree.containersAreToolkits = screen.toolkitContainers
        nodes = []
        checkAccessibility(tree)
        guard screen.size != nil else { return nil }
        if let (focusID, offset) = screen.initialFocus {
            if let i = tree.index(of: focusID) {
                if !tree[i].isAccessibilityElement {
                    fields.report("E16", offset, "$.screen.initialFocus", nil, "\"\(excerpt(focusID))\" is a container; name an accessible element")
                }
            } else {
                unknownID(focusID, offset, "$.screen.initialFocus", nil, code: "E16")
            }
        }
        // A file with errors gets only those.
        if !fields.hasErrors { fields.diagnostics += lints.diagnostics }
        return (tree, screen.title)
    }

    // MARK: nodes

    /// Reads one node and its subtree in document order; returns its index.
    mutating func node(_ json: JSONValue, path: @autoclosure () -> String, parent: Int?, position: Int,
                       origin: Point, depth: Int) -> Int? {
        if depth > LayoutLoader.maxElementDepth {
            fields.report("E04", json.offset, path(), nil, "elements nested deeper than \(LayoutLoader.maxElementDepth) levels; flatten the layout")
            return nil
        }
        // The id first, so that every message about this node can name it.
        let idMember = json.object?.member("id")
        let early = idMember?.value.string
        guard let nodeObject = fields.object(json, path(), early, allowed: ElementFields.names) else { return nil }
        var id = "?"
        var idOffset = json.offset
        if let member = idMember ?? fields.require(nodeObject, "id", in: json, path(), nil, code: "E05"),
           let idText = early ?? fields.string(member, path(), nil) {
            id = idText
            idOffset = member.value.offset
            if !isValidID(idText) {
                fields.report("E05", member.value.offset, path() + ".id", nil, idSyntaxMessage(idText))
            } else if let first = firstID[idText] {
                fields.report("E05", member.value.offset, path() + ".id", nil,
                              "duplicate id \"\(idText)\" (first defined at \(lineOf(info[first].idOffset)), \(nodePath(first)).id)")
            } else {
                firstID[idText] = nodes.count
            }
        }
        let element: String? = id
        let index = nodes.count
        // A place for the node before its children (document order); filled in at the end.
        nodes.append(ElementNode(id: id))
        info.append(NodeInfo(parent: Int32(parent ?? -1), position: Int32(position), idOffset: idOffset))

        var draft = NodeDraft(id: id)
        draft.node.parent = parent
        // In file order: a field's reader depends on no other field (checks across fields
        // come after), and messages are sorted by place anyway.
        for (position, member) in nodeObject.members where position != ElementFields.id {
            ElementFields.readers[position](&self, member, &draft, path)
        }
        if nodeObject.has(ElementFields.label) && nodeObject.has(ElementFields.labelSpans) {
            fields.report("E17", nodeObject[ElementFields.labelSpans]!.keyOffset, path() + ".labelSpans", element, "use either \"label\" or \"labelSpans\", not both")
        }
        info[index].elements = draft.elements
        info[index].elementsOffset = nodeObject[ElementFields.elements]?.value.offset ?? 0

        // Geometry: an explicit frame, or one relative to the nearest framed ancestor.
        var frame = draft.frame
        if let relative = draft.frameInContainer {
            if nodeObject.has(ElementFields.frame) {
                fields.report("E06", nodeObject[ElementFields.frameInContainer]!.keyOffset, path() + ".frameInContainer", element,
                              "use either \"frame\" or \"frameInContainer\", not both")
            }
            frame = Rect(x: origin.x + relative.x, y: origin.y + relative.y, width: relative.width, height: relative.height)
        }
        info[index].explicitFrame = nodeObject.has(ElementFields.frame) || draft.frameInContainer != nil

        // Children, in paint order.
        var childIndices: [Int] = []
        let childrenWritten = draft.children?.count ?? 0
        if let list = draft.children {
            let childOrigin = frame.map { Point(x: $0.x, y: $0.y) } ?? origin
            childIndices.reserveCapacity(list.count)
            for (k, child) in list.enumerated() {
                if let childIndex = node(child, path: "\(path()).children[\(k)]", parent: index, position: k, origin: childOrigin, depth: depth + 1) {
                    childIndices.append(childIndex)
                }
            }
        }
        draft.node.children = childIndices
        let hasChildren = !childIndices.isEmpty
        // Children written but refused (each with its own error) still make a container, so
        // that no second error follows from reading it as a leaf (e.g. "needs a label").
        draft.node.isAccessibilityElement = draft.explicitAccessibility ?? (childrenWritten == 0)
        if draft.labelFromChildren {
            if !hasChildren || !draft.node.isAccessibilityElement {
                fields.report("E04", nodeObject[ElementFields.labelFromChildren]!.keyOffset, path() + ".labelFromChildren", element,
                              "only an accessible element with children can take its label from them")
            } else {
                draft.node.label = childIndices.compactMap { nodes[$0].label }.filter { !$0.isEmpty }.joined(separator: ", ")
            }
        }
        if let given = frame {
            draft.node.frame = given
        } else if hasChildren {
            draft.node.frame = childIndices.dropFirst().reduce(nodes[childIndices[0]].frame) { $0.union(nodes[$1].frame) }
        } else if childrenWritten == 0 && !nodeObject.has(ElementFields.frame) && !nodeObject.has(ElementFields.frameInContainer) {
            fields.report("E06", json.offset, path(), element, "missing \"frame\"; a node without children needs {\"x\", \"y\", \"width\", \"height\"}")
        }
        if let point = draft.activationPoint {
            draft.node.activationPoint = point
            draft.node.hasExplicitActivationPoint = true
            let inPath = draft.polygon.map { polygonContains($0, point) } ?? false
            if !draft.activationPointOutsideFrame && !draft.node.frame.contains(point) && !inPath && (frame != nil || hasChildren) {
                fields.report("E07", nodeObject[ElementFields.activationPoint]!.value.offset, path() + ".activationPoint", element,
                              "point (\(format(point.x)), \(format(point.y))) lies outside frame \(format(draft.node.frame)); set \"activationPointOutsideFrame\": true to allow it")
            }
        } else {
            draft.node.activationPoint = draft.node.frame.center
        }
        // Adjustable: the trait and the spec go together; the value is computed.
        let hasTrait = draft.node.traits.contains(.adjustable)
        if let member = nodeObject[ElementFields.adjustable] {
            if !hasTrait {
                fields.report("E10", member.keyOffset, path() + ".adjustable", element, "an \"adjustable\" spec needs the trait \"adjustable\" in \"traits\"")
            }
            if let valueMember = nodeObject[ElementFields.value] {
                fields.report("E10", valueMember.keyOffset, path() + ".value", element, "an adjustable element's value is computed from \"adjustable\"; remove \"value\"")
            }
        } else if hasTrait {
            fields.report("E10", nodeObject[ElementFields.traits]!.value.offset, path() + ".traits", element,
                          "the trait \"adjustable\" needs an \"adjustable\" spec: {\"min\", \"max\", \"step\", \"value\"} or {\"values\", \"index\"}")
        }
        // W20 / W26: container-only fields on a leaf, and leaf fields on a container.
        for (position, member) in nodeObject.members {
            let place = ElementFields.all[position].place
            if draft.node.isAccessibilityElement && place == .container {
                fields.report(.warning, "W20", member.keyOffset, path() + "." + member.key, element, "\"\(member.key)\" on an accessible element is ignored")
            } else if !draft.node.isAccessibilityElement && draft.explicitAccessibility == nil && hasChildren && place == .element {
                fields.report(.warning, "W26", member.keyOffset, path() + "." + member.key, element,
                              "a node with children is a container by default, so \"\(member.key)\" is ignored; set \"isAccessibilityElement\": true to make it one element")
            }
        }
        if draft.node.isAccessibilityElement && hasChildren, let member = nodeObject[ElementFields.elements] {
            fields.report(.warning, "W20", member.keyOffset, path() + ".elements", element, "\"elements\" on an accessible element is ignored")
        }
        if let member = nodeObject[ElementFields.modalScope], !draft.node.viewIsModal {
            fields.report(.warning, "W20", member.keyOffset, path() + ".modalScope", element, "\"modalScope\" is ignored without \"viewIsModal\": true")
        }
        info[index].subtreeEnd = nodes.count
        nodes[index] = draft.node
        return index
    }

    static let labelSpanKeys: FieldNames = ["text", "language"]

    mutating func labelSpans(_ member: JSONMember, _ draft: inout NodeDraft, _ path: @autoclosure () -> String) {
        let element = draft.node.id
        guard let spans = fields.array(member, path(), element) else { return }
        var text: [String] = []
        for (k, span) in spans.enumerated() {
            let spanPath = "\(path()).labelSpans[\(k)]"
            if let spanObject = fields.object(span, spanPath, element, allowed: Self.labelSpanKeys) {
                if let spanText = fields.string(fields.require(spanObject, "text", in: span, spanPath, element), spanPath, element) { text.append(spanText) }
                if let languageMember = spanObject["language"] { language(languageMember, spanPath, element) }
            }
        }
        if spans.isEmpty { fields.report("E04", member.value.offset, path() + ".labelSpans", element, "must not be empty") }
        else { draft.node.label = text.joined() }
    }

    /// A list of element ids (a custom order).
    mutating func idList(_ member: JSONMember, _ path: @autoclosure () -> String, _ element: String?) -> [(id: String, offset: Int)]? {
        guard let list = fields.array(member, path(), element) else { return nil }
        var ids: [(id: String, offset: Int)] = []
        for (k, item) in list.enumerated() {
            if let id = item.string { ids.append((id, item.offset)) }
            else { fields.report("E04", item.offset, "\(path()).elements[\(k)]", element, "must be an element id (a string), got \(item.kindName)") }
        }
        return ids
    }

    /// A shape's outline: at least three points [x, y].
    mutating func polygon(_ member: JSONMember, _ path: @autoclosure () -> String, _ element: String?) -> [Point]? {
        guard let points = fields.array(member, path(), element) else { return nil }
        var list: [Point] = []
        for (k, point) in points.enumerated() {
            let xy = point.array.map(Array.init) ?? []
            let range = LayoutRanges.coordinates
            if xy.count == 2, let x = xy[0].number, let y = xy[1].number {
                if range.contains(x) && range.contains(y) { list.append(Point(x: x, y: y)) }
                else { fields.report("E04", point.offset, "\(path()).path[\(k)]", element, "coordinates must be between \(format(range.lowerBound)) and \(format(range.upperBound))") }
            } else {
                fields.report("E04", point.offset, "\(path()).path[\(k)]", element, "must be a point [x, y] of two numbers")
            }
        }
        if points.count < 3 { fields.report("E08", member.value.offset, path() + ".path", element, "a path needs at least 3 points, got \(points.count)") }
        return list
    }

    mutating func traits(_ member: JSONMember, _ path: @autoclosure () -> String, _ element: String?) -> TraitSet {
        func traitsPath() -> String { path() + "." + member.key }
        let names = Trait.allCases.map(\.rawValue)
        if member.value.kind == .number {
            fields.report("E09", member.value.offset, traitsPath(), element, "traits are names, not a raw bitmask; allowed: \(quotedList(names))")
            return TraitSet()
        }
        guard let list = fields.array(member, path(), element) else { return TraitSet() }
        var set = TraitSet()
        for (k, item) in list.enumerated() {
            func itemPath() -> String { "\(traitsPath())[\(k)]" }
            guard let name = item.string else {
                fields.report("E09", item.offset, itemPath(), element, "a trait is a name (a string), got \(item.kindName); allowed: \(quotedList(names))")
                continue
            }
            if let trait = Trait(rawValue: name) {
                if set.contains(trait) { fields.report("E09", item.offset, itemPath(), element, "duplicate trait \"\(name)\"") }
                set.insert(trait)
            } else if name == "isModal" || name == "modal" {
                fields.report("E09", item.offset, itemPath(), element, "\"\(name)\" is not a trait here; use \"viewIsModal\": true on the node")
            } else {
                var msg = "unknown trait \"\(excerpt(name))\"; allowed: \(quotedList(names))"
                let bare = name.hasPrefix(".") ? String(name.dropFirst()) : name
                if let suggested = suggestion(for: bare, among: names) { msg += "; did you mean \"\(suggested)\"?" }
                fields.report("E09", item.offset, itemPath(), element, msg)
            }
        }
        if set.contains(.none) && set.rawValue != TraitSet([.none]).rawValue {
            fields.report("E09", member.value.offset, traitsPath(), element, "\"none\" must be the only trait")
        }
        if (set.rawValue & controlTraits.rawValue).nonzeroBitCount > 1 {
            let controls = [Trait.button, .link, .searchField, .keyboardKey].filter { set.contains($0) }
            fields.report(.warning, "W18", member.value.offset, traitsPath(), element,
                          "\(quotedList(controls.map(\.rawValue))) are meant to be mutually exclusive; keep one")
        }
        return set
    }

    mutating func language(_ member: JSONMember, _ path: @autoclosure () -> String, _ element: String?) {
        guard let tag = fields.string(member, path(), element) else { return }
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        let ok = !parts.isEmpty && (2...8).contains(parts[0].count) && parts[0].allSatisfy { $0.isASCII && $0.isLetter }
            && parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
        if !ok { fields.report("E17", member.value.offset, path() + "." + member.key, element, "\"\(excerpt(tag))\" is not a BCP 47 language tag (e.g. \"en\", \"fr-CA\")") }
    }

    static let customActionKeys: FieldNames = ["name", "effects"]

    mutating func customActions(_ member: JSONMember, _ path: @autoclosure () -> String, _ element: String?) -> [CustomAction] {
        guard let list = fields.array(member, path(), element) else { return [] }
        var actions: [CustomAction] = []
        var seen: [String: Int] = [:]
        for (k, item) in list.enumerated() {
            func actionPath() -> String { "\(path()).customActions[\(k)]" }
            guard let actionObject = fields.object(item, actionPath(), element, allowed: Self.customActionKeys) else { continue }
            guard let name = fields.string(fields.require(actionObject, "name", in: item, actionPath(), element, code: "E13"), actionPath(), element) else { continue }
            let effects = actionObject["effects"].map { self.effects($0, actionPath(), element) } ?? []
            if name.isEmpty {
                fields.report("E13", actionObject["name"]!.value.offset, actionPath() + ".name", element, "an action needs a name a person can read")
            } else if let first = seen[name] {
                fields.report("E13", actionObject["name"]!.value.offset, actionPath() + ".name", element, "duplicate action name \"\(excerpt(name))\" (also customActions[\(first)])")
            } else {
                seen[name] = k
                actions.append(CustomAction(name: name, effects: effects))
            }
        }
        return actions
    }

    static let listAdjustableKeys: FieldNames = ["values", "index", "onChange"]
    static let numericAdjustableKeys: FieldNames = ["min", "max", "step", "value", "decimals", "valueFormat", "onChange"]

    mutating func adjustable(_ member: JSONMember, _ path: @autoclosure () -> String, _ element: String?) -> Adjustable? {
        let adjustablePath = path() + ".adjustable"
        guard let members = member.value.object else {
            fields.report("E10", member.value.offset, adjustablePath, element, "must be an object: {\"min\", \"max\", \"step\", \"value\"} or {\"values\", \"index\"}")
            return nil
        }
        if members.member("values") != nil {
            guard let adjustableObject = fields.object(member.value, adjustablePath, element, allowed: Self.listAdjustableKeys, unknownCode: "E10") else { return nil }
            let values = fields.array(adjustableObject["values"], adjustablePath, element).map(Array.init) ?? []
            var strings: [String] = []
            for (k, item) in values.enumerated() {
                if let text = item.string { strings.append(text) }
                else { fields.report("E10", item.offset, "\(adjustablePath).values[\(k)]", element, "must be a string, got \(item.kindName)") }
            }
            if values.isEmpty { fields.report("E10", adjustableObject["values"]!.value.offset, adjustablePath + ".values", element, "must list at least one value") }
            let index = fields.integer(adjustableObject["index"], adjustablePath, element) ?? 0
            if !strings.isEmpty && !(0..<strings.count).contains(index) {
                fields.report("E10", adjustableObject["index"]!.value.offset, adjustablePath + ".index", element, "must be between 0 and \(strings.count - 1), got \(index)")
            }
            let onChange = adjustableObject["onChange"].map { effects($0, adjustablePath, element) } ?? []
            guard !strings.isEmpty, strings.count == values.count else { return nil }
            return Adjustable(kind: .list(strings), current: Double(min(max(index, 0), strings.count - 1)), onChange: onChange)
        }
        guard let adjustableObject = fields.object(member.value, adjustablePath, element, allowed: Self.numericAdjustableKeys, unknownCode: "E10") else { return nil }
        let lo = fields.number(fields.require(adjustableObject, "min", in: member.value, adjustablePath, element, code: "E10"), in: LayoutRanges.values, adjustablePath, element, code: "E10")
        let hi = fields.number(fields.require(adjustableObject, "max", in: member.value, adjustablePath, element, code: "E10"), in: LayoutRanges.values, adjustablePath, element, code: "E10")
        let step = adjustableObject["step"] == nil ? 1 : fields.number(adjustableObject["step"], in: LayoutRanges.steps, adjustablePath, element, code: "E10")
        let decimals = fields.integer(adjustableObject["decimals"], adjustablePath, element) ?? 0
        let format = fields.string(adjustableObject["valueFormat"], adjustablePath, element) ?? "{value}"
        let onChange = adjustableObject["onChange"].map { effects($0, adjustablePath, element) } ?? []
        if !(0...9).contains(decimals) { fields.report("E10", adjustableObject["decimals"]!.value.offset, adjustablePath + ".decimals", element, "must be between 0 and 9, got \(decimals)") }
        if !format.contains("{value}") { fields.report("E10", adjustableObject["valueFormat"]!.value.offset, adjustablePath + ".valueFormat", element, "must contain \"{value}\"") }
        guard let lo, let hi, let step else { return nil }
        if lo > hi { fields.report("E10", adjustableObject["min"]!.value.offset, adjustablePath + ".min", element, "min \(ScanFormats.format(lo)) is greater than max \(ScanFormats.format(hi))"); return nil }
        let value = fields.number(adjustableObject["value"], adjustablePath, element) ?? lo
        if value < lo || value > hi {
            fields.report("E10", adjustableObject["value"]!.value.offset, adjustablePath + ".value", element, "must be between min \(ScanFormats.format(lo)) and max \(ScanFormats.format(hi)), got \(ScanFormats.format(value))")
            return nil
        }
        return Adjustable(kind: .numeric(min: lo, max: hi, step: step, decimals: max(0, min(decimals, 9)), format: format),
                          current: value, onChange: onChange)
    }

    static let customContentKeys: FieldNames = ["label", "value", "importance"]

    mutating func customContent(_ member: JSONMember, _ path: @autoclosure () -> String, _ element: String?) {
        guard let list = fields.array(member, path(), element) else { return }
        for (k, item) in list.enumerated() {
            let contentPath = "\(path()).customContent[\(k)]"
            guard let contentObject = fields.object(item, contentPath, element, allowed: Self.customContentKeys) else { continue }
            for key in ["label", "value"] {
                if let text = fields.string(fields.require(contentObject, key, in: item, contentPath, element, code: "E14"), contentPath, element), text.isEmpty {
                    fields.report("E14", contentObject[key]!.value.offset, contentPath + "." + key, element, "must not be empty")
                }
            }
            if let importance = fields.string(contentObject["importance"], contentPath, element), importance != "default" && importance != "high" {
                fields.report("E04", contentObject["importance"]!.value.offset, contentPath + ".importance", element, "unknown value \"\(excerpt(importance))\"; allowed: default, high")
            }
        }
    }

    static let customRotorKeys: FieldNames = ["name", "targets"]

    mutating func customRotors(_ member: JSONMember, _ path: @autoclosure () -> String, _ element: String?) {
        guard let list = fields.array(member, path(), element) else { return }
        for (k, item) in list.enumerated() {
            let rotorPath = "\(path()).customRotors[\(k)]"
            guard let rotorObject = fields.object(item, rotorPath, element, allowed: Self.customRotorKeys) else { continue }
            if let name = fields.string(fields.require(rotorObject, "name", in: item, rotorPath, element, code: "E14"), rotorPath, element), name.isEmpty {
                fields.report("E14", rotorObject["name"]!.value.offset, rotorPath + ".name", element, "must not be empty")
            }
            if let targets = fields.array(fields.require(rotorObject, "targets", in: item, rotorPath, element, code: "E14"), rotorPath, element) {
                for (position, targetValue) in targets.enumerated() {
                    if let id = targetValue.string {
                        references.append(IDReference(id: id, offset: targetValue.offset, path: "\(rotorPath).targets[\(position)]", element: element, code: "E14"))
                    } else {
                        fields.report("E14", targetValue.offset, "\(rotorPath).targets[\(position)]", element, "must be an element id (a string)")
                    }
                }
            }
        }
    }

    static let largeContentKeys: FieldNames = ["title", "image"]

    mutating func largeContent(_ member: JSONMember, _ path: @autoclosure () -> String, _ element: String?) {
        let contentPath = path() + ".largeContent"
        guard let contentObject = fields.object(member.value, contentPath, element, allowed: Self.largeContentKeys) else { return }
        _ = fields.string(fields.require(contentObject, "title", in: member.value, contentPath, element), contentPath, element)
        _ = fields.string(contentObject["image"], contentPath, element)
    }

    static let scrollKeys: FieldNames = ["directions", "effects"]
    static let scrollDirections: FieldNames = ["up", "down", "left", "right", "next", "previous"]

    mutating func scroll(_ member: JSONMember, _ path: @autoclosure () -> String, _ element: String?) {
        let scrollPath = path() + ".scroll"
        guard let scrollObject = fields.object(member.value, scrollPath, element, allowed: Self.scrollKeys) else { return }
        let allowed = Self.scrollDirections
        if let directions = fields.array(fields.require(scrollObject, "directions", in: member.value, scrollPath, element), scrollPath, element) {
            for (k, direction) in directions.enumerated() where direction.string.flatMap({ allowed.position($0) }) == nil {
                fields.report("E04", direction.offset, "\(scrollPath).directions[\(k)]", element, "must be one of \(quotedList(allowed.names))")
            }
        }
        if let effectsMember = scrollObject["effects"], let effectsObject = fields.object(effectsMember.value, scrollPath + ".effects", element, allowed: allowed) {
            for (_, directionEffects) in effectsObject.members { _ = effects(directionEffects, scrollPath + ".effects", element) }
        }
    }

    // MARK: effects

    mutating func effects(_ member: JSONMember, _ path: @autoclosure () -> String, _ element: String?) -> [LayoutEffect] {
        guard let list = fields.array(member, path(), element) else { return [] }
        var result: [LayoutEffect] = []
        for (k, item) in list.enumerated() {
            if let parsed = effect(item, "\(path()).\(member.key)[\(k)]", element) { result.append(parsed) }
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

    mutating func effect(_ json: JSONValue, _ path: @autoclosure () -> String, _ element: String?) -> LayoutEffect? {
        let verbs = Self.effectVerbs.map(\.verb)
        guard let members = json.object else {
            fields.report("E15", json.offset, path(), element, "an effect is an object with one verb: \(quotedList(verbs))")
            return nil
        }
        guard let (verb, allowed) = Self.effectVerbs.first(where: { members.member($0.verb) != nil }) else {
            var msg = "an effect needs exactly one verb: \(quotedList(verbs))"
            if let first = members.first(where: { _ in true }), let suggested = suggestion(for: first.key, among: verbs) { msg += "; did you mean \"\(suggested)\"?" }
            fields.report("E15", json.offset, path(), element, msg)
            return nil
        }
        guard let effectObject = fields.object(json, path(), element, allowed: allowed) else { return nil }
        let verbMember = effectObject[verb]!
        switch verb {
        case "emit":
            guard let name = fields.string(verbMember, path(), element) else { return nil }
            if name.isEmpty { fields.report("E15", verbMember.value.offset, path() + ".emit", element, "must name the event"); return nil }
            var data: String?
            if let dataMember = effectObject["data"] {
                if dataMember.value.kind == .object { data = dataMember.value.compactText }
                else { fields.report("E04", dataMember.value.offset, path() + ".data", element, "must be an object, got \(dataMember.value.kindName)") }
            }
            return .emit(name: name, data: data)
        case "set":
            let setPath = path() + ".set"
            guard let setObject = fields.object(verbMember.value, setPath, element, allowed: ElementFields.settable) else { return nil }
            guard let id = target(setObject, verbMember.value, setPath, element) else { return nil }
            var changes: [LayoutEffect.FieldChange] = []
            for (position, member) in setObject.members where member.key != "id" {
                // Read as the node field is, into a draft of its own.
                let field = ElementFields.all[ElementFields.names.position(ElementFields.settable.names[position])!]
                var draft = NodeDraft(id: id)
                field.read(&self, member, &draft, { setPath })
                if let change = field.change?(draft) { changes.append(change) }
            }
            return .set(id: id, changes: changes)
        case "toggle":
            let togglePath = path() + ".toggle"
            guard let toggleObject = fields.object(verbMember.value, togglePath, element, allowed: Self.toggleKeys) else { return nil }
            let id = target(toggleObject, verbMember.value, togglePath, element)
            let field = fields.enumValue(fields.require(toggleObject, "field", in: verbMember.value, togglePath, element), LayoutEffect.TextField.self, togglePath, element)
            var values: [String] = []
            if let list = fields.array(fields.require(toggleObject, "values", in: verbMember.value, togglePath, element), togglePath, element) {
                for (k, item) in list.enumerated() {
                    if let text = item.string { values.append(text) }
                    else { fields.report("E04", item.offset, "\(togglePath).values[\(k)]", element, "must be a string, got \(item.kindName)") }
                }
                if list.count < 2 { fields.report("E15", toggleObject["values"]!.value.offset, togglePath + ".values", element, "a toggle needs at least 2 values") }
            }
            guard let id, let field, values.count >= 2 else { return nil }
            return .toggle(id: id, field: field, values: values)
        case "post":
            return post(verbMember, effectObject, path(), element)
        case "loadScreen":
            guard let file = fields.string(verbMember, path(), element) else { return nil }
            if file.isEmpty { fields.report("E15", verbMember.value.offset, path() + ".loadScreen", element, "must name a layout file"); return nil }
            return .loadScreen(file)
        default:
            guard let value = fields.bool(verbMember, path(), element) else { return nil }
            return .result(value)
        }
    }

    mutating func post(_ verbMember: JSONMember, _ effectObject: ObjectView, _ path: String, _ element: String?) -> LayoutEffect? {
        let kinds = Self.notifications
        guard let kind = fields.string(verbMember, path, element) else { return nil }
        guard kinds.contains(kind) else {
            var msg = "unknown notification \"\(excerpt(kind))\"; allowed: \(quotedList(kinds))"
            if let suggested = suggestion(for: kind, among: kinds) { msg += "; did you mean \"\(suggested)\"?" }
            fields.report("E15", verbMember.value.offset, path + ".post", element, msg)
            return nil
        }
        var arg = LayoutEffect.Notification.Argument.none
        if let argumentMember = effectObject["argument"] {
            switch argumentMember.value.content {
            case .null: break
            case .string(let text, _): arg = .text(text)
            case .object:
                let argumentPath = path + ".argument"
                if let argumentObject = fields.object(argumentMember.value, argumentPath, element, allowed: Self.argumentKeys),
                   let id = fields.string(fields.require(argumentObject, "element", in: argumentMember.value, argumentPath, element, code: "E15"), argumentPath, element) {
                    references.append(IDReference(id: id, offset: argumentObject["element"]!.value.offset, path: argumentPath + ".element", element: element, code: "E15"))
                    arg = .element(id)
                }
            default:
                fields.report("E15", argumentMember.value.offset, path + ".argument", element, "must be null, a string, or {\"element\": id}")
            }
        }
        switch kind {
        case "announcement":
            guard case .text(let text) = arg else {
                fields.report("E15", verbMember.value.offset, path + ".argument", element, "an announcement needs the text to speak as \"argument\"")
                return nil
            }
            return .post(.announcement(text))
        case "layoutChanged": return .post(.layoutChanged(arg))
        case "screenChanged": return .post(.screenChanged(arg))
        default:
            if case .text(let text) = arg { return .post(.pageScrolled(text)) }
            fields.report("E15", verbMember.value.offset, path + ".argument", element, "pageScrolled needs a text such as \"Page 2 of 5\" as \"argument\"")
            return nil
        }
    }

    mutating func target(_ effectObject: ObjectView, _ json: JSONValue, _ path: String, _ element: String?) -> String? {
        guard let idMember = fields.require(effectObject, "id", in: json, path, element, code: "E15"), let id = fields.string(idMember, path, element) else { return nil }
        references.append(IDReference(id: id, offset: idMember.value.offset, path: path + ".id", element: element, code: "E15"))
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

    mutating func unknownID(_ id: String, _ offset: Int, _ path: String, _ element: String?, code: String) {
        var msg = "unknown element id \"\(excerpt(id))\""
        if let suggested = suggestion(for: id, among: firstID.keys.sorted()) { msg += "; did you mean \"\(suggested)\"?" }
        fields.report(code, offset, path, element, msg)
    }

    /// Custom orders (`elements`) resolved to node indices, and ids referred to checked.
    mutating func customOrders() {
        var listedIn: [Int: (owner: Int, path: String)] = [:]
        for i in nodes.indices {
            guard let list = info[i].elements else { continue }
            let owner = nodes[i]
            let listPath = nodePath(i) + ".elements"
            if owner.children.isEmpty {
                fields.report("E12", info[i].elementsOffset, listPath, owner.id, "\"elements\" orders a container's descendants; this node has no children")
                continue
            }
            var resolved: [Int] = []
            var inThisList = Set<Int>()
            for (k, entry) in list.enumerated() {
                let entryPath = "\(listPath)[\(k)]"
                guard let j = firstID[entry.id] else { unknownID(entry.id, entry.offset, entryPath, owner.id, code: "E12"); continue }
                guard j > i && j < info[i].subtreeEnd else {
                    fields.report("E12", entry.offset, entryPath, owner.id, "\"\(entry.id)\" is not a descendant of \"\(owner.id)\"; \"elements\" may only name nodes inside it")
                    continue
                }
                if !inThisList.insert(j).inserted {
                    fields.report("E12", entry.offset, entryPath, owner.id, "\"\(entry.id)\" is listed twice")
                    continue
                }
                if let other = listedIn[j] {
                    fields.report("E12", entry.offset, entryPath, owner.id, "\"\(entry.id)\" is already listed in \(other.path) (element \"\(nodes[other.owner].id)\"); a node belongs to one list")
                    continue
                }
                listedIn[j] = (i, listPath)
                resolved.append(j)
            }
            // A node and one of its descendants in one list would scan the descendant twice.
            for a in resolved {
                for b in resolved where b > a && b < info[a].subtreeEnd {
                    fields.report("E12", info[i].elementsOffset, listPath, owner.id, "lists both \"\(nodes[a].id)\" and its descendant \"\(nodes[b].id)\"")
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
                for member in members { axParent[member] = Int32(i) }
                stack.append(contentsOf: members.reversed())
            }
        }
        var unreachable: [String] = []
        for i in 0..<tree.count {
            if !hasCustomOrder && i > 0 {
                let parent = Int(info[i].parent)
                if reachable[parent] && !tree[parent].isAccessibilityElement {
                    reachable[i] = true
                    axParent[i] = Int32(parent)
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

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

import JSONTape
import ScanCore

// Cross references: ids named elsewhere in the file, custom orders, the accessibility checks.
extension LayoutReader {
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

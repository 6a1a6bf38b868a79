import Foundation
import ScanCore
import ScanFormats
import Testing

// Layouts for the tests of the loader and the scan list: small inline layouts, loading
// that expects success, and a readable rendering of scan lists.

/// A whole layout document around the given root children (JSON text of a node list).
/// `root` and `screen` are extra members (starting with ", ") added to those objects.
public func layout(_ children: String, root: String = "", screen: String = "") -> String {
    """
    {"schemaVersion": 1,
     "screen": {"id": "s", "size": {"width": 375, "height": 667}\(screen)},
     "root": {"id": "root", "isAccessibilityElement": false,
              "frame": {"x": 0, "y": 0, "width": 375, "height": 667}\(root),
              "children": [\(children)]}}
    """
}

/// A labelled button leaf at (x, y), 100 × 44, with optional extra members (", …").
public func button(_ id: String, x: Double = 10, y: Double = 10, _ extra: String = "") -> String {
    #"{"id": "\#(id)", "label": "\#(id) label", "traits": ["button"], "frame": {"x": \#(x), "y": \#(y), "width": 100, "height": 44}\#(extra)}"#
}

/// Loads a layout that must load; records an issue with every error otherwise.
public func load(_ json: String, file: String = "test.json", sourceLocation: SourceLocation = #_sourceLocation) throws -> LayoutDocument {
    do {
        return try LayoutLoader.load(bytes: Array(json.utf8), file: file)
    } catch {
        Issue.record("expected \(file) to load, got:\n\(error.description)", sourceLocation: sourceLocation)
        throw error
    }
}

/// A file of Layouts/, as text.
public func readLayout(_ name: String) throws -> String {
    let url = TestPaths.packageRoot.appendingPathComponent("Layouts").appendingPathComponent(name)
    let data = try #require(FileManager.default.contents(atPath: url.path), "cannot read \(url.path)")
    return String(decoding: data, as: UTF8.self)
}

/// Settings with the two switches the scan-list tests vary.
public func settings(groupItems: Bool = true, itemScope: ItemScope = .interactive) -> ScanSettings {
    var s = ScanSettings()
    s.groupItems = groupItems
    s.itemScope = itemScope
    return s
}

/// The items of one group as ids; a group renders as `node{member,member}`.
public func render(_ scan: ScanTree, _ tree: ElementTree, group g: Int = 0) -> [String] {
    scan.groups[g].items.map { item in
        switch item {
        case .element(let n):
            return tree[n].id
        case .group(let sub):
            return tree[scan.groups[sub].node].id + "{" + render(scan, tree, group: sub).joined(separator: ",") + "}"
        }
    }
}

/// Every element reachable through the scan structure, depth first, in scan order.
public func flatElements(_ scan: ScanTree, _ tree: ElementTree, group g: Int = 0) -> [String] {
    scan.groups[g].items.flatMap { item -> [String] in
        switch item {
        case .element(let n): return [tree[n].id]
        case .group(let sub): return flatElements(scan, tree, group: sub)
        }
    }
}

/// Loads a layout and builds its scan tree.
public func scanList(_ json: String, _ s: ScanSettings = ScanSettings(),
              sourceLocation: SourceLocation = #_sourceLocation) throws -> (ScanTree, ElementTree) {
    let doc = try load(json, sourceLocation: sourceLocation)
    return (ScanTreeBuilder.build(doc.tree, settings: s), doc.tree)
}

/// The top level of a layout's scan list, rendered.
public func topLevel(_ json: String, _ s: ScanSettings = ScanSettings(),
              sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
    let (scan, tree) = try scanList(json, s, sourceLocation: sourceLocation)
    return render(scan, tree)
}

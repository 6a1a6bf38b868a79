import Foundation
import ScanCore
import ScanFormats
import Testing

// Shared helpers for the ScanFormats tests: small inline layouts, loading that expects
// success or failure, and a readable rendering of scan lists.

/// The package root, found from this file's location (Tests/ScanFormatsTests/…).
let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

func layoutsDirectory() -> URL { packageRoot.appendingPathComponent("Layouts") }

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

/// A whole layout document around the given root children (JSON text of a node list).
/// `root` and `screen` are extra members (starting with ", ") added to those objects.
func layout(_ children: String, root: String = "", screen: String = "") -> String {
    """
    {"schemaVersion": 1,
     "screen": {"id": "s", "size": {"width": 375, "height": 667}\(screen)},
     "root": {"id": "root", "isAccessibilityElement": false,
              "frame": {"x": 0, "y": 0, "width": 375, "height": 667}\(root),
              "children": [\(children)]}}
    """
}

/// A labelled button leaf at (x, y), 100 × 44, with optional extra members (", …").
func button(_ id: String, x: Double = 10, y: Double = 10, _ extra: String = "") -> String {
    #"{"id": "\#(id)", "label": "\#(id) label", "traits": ["button"], "frame": {"x": \#(x), "y": \#(y), "width": 100, "height": 44}\#(extra)}"#
}

/// Loads a layout that must load; records an issue with every error otherwise.
func load(_ json: String, file: String = "test.json", sourceLocation: SourceLocation = #_sourceLocation) throws -> LayoutDocument {
    do {
        return try LayoutLoader.load(bytes: bytes(json), file: file)
    } catch {
        Issue.record("expected \(file) to load, got:\n\(error.description)", sourceLocation: sourceLocation)
        throw error
    }
}

/// Loads a layout that must be rejected; returns its diagnostics (errors and any others).
func rejection(_ json: String, file: String = "test.json", sourceLocation: SourceLocation = #_sourceLocation) -> DataFileError? {
    do {
        let doc = try LayoutLoader.load(bytes: bytes(json), file: file)
        Issue.record("expected \(file) to be rejected; it loaded \(doc.tree.count) nodes, warnings: \(doc.warnings.map(\.description))",
                     sourceLocation: sourceLocation)
        return nil
    } catch {
        #expect(error.file == file, sourceLocation: sourceLocation)
        #expect(!error.errors.isEmpty, "a rejected file must carry at least one error", sourceLocation: sourceLocation)
        return error
    }
}

/// The errors of a layout that must be rejected.
func errors(_ json: String, file: String = "test.json", sourceLocation: SourceLocation = #_sourceLocation) -> [Diagnostic] {
    rejection(json, file: file, sourceLocation: sourceLocation)?.errors ?? []
}

/// The single error of a layout with exactly one mistake.
func onlyError(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Diagnostic {
    let errs = errors(json, sourceLocation: sourceLocation)
    #expect(errs.count == 1, "expected exactly one error, got: \(errs.map(\.description))", sourceLocation: sourceLocation)
    return try #require(errs.first, sourceLocation: sourceLocation)
}

/// The 1-based (line, column) of the first occurrence of `marker` in `text`, computed
/// independently of the loader (columns count characters).
func position(of marker: String, in text: String, occurrence: Int = 1) -> (line: Int, column: Int)? {
    var seen = 0
    for (k, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        var search = line[...]
        while let r = search.range(of: marker) {
            seen += 1
            if seen == occurrence { return (k + 1, line.distance(from: line.startIndex, to: r.lowerBound) + 1) }
            search = line[r.upperBound...]
        }
    }
    return nil
}

// MARK: scan lists

/// Settings with the two switches the scan-list tests vary.
func settings(groupItems: Bool = true, itemScope: ItemScope = .interactive) -> ScanSettings {
    var s = ScanSettings()
    s.groupItems = groupItems
    s.itemScope = itemScope
    return s
}

/// The items of one group as ids; a group renders as `node{member,member}`.
func render(_ scan: ScanTree, _ tree: ElementTree, group g: Int = 0) -> [String] {
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
func flatElements(_ scan: ScanTree, _ tree: ElementTree, group g: Int = 0) -> [String] {
    scan.groups[g].items.flatMap { item -> [String] in
        switch item {
        case .element(let n): return [tree[n].id]
        case .group(let sub): return flatElements(scan, tree, group: sub)
        }
    }
}

/// Loads a layout and builds its scan tree.
func scanList(_ json: String, _ s: ScanSettings = ScanSettings(),
              sourceLocation: SourceLocation = #_sourceLocation) throws -> (ScanTree, ElementTree) {
    let doc = try load(json, sourceLocation: sourceLocation)
    return (ScanTreeBuilder.build(doc.tree, settings: s), doc.tree)
}

func topLevel(_ json: String, _ s: ScanSettings = ScanSettings(),
              sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
    let (scan, tree) = try scanList(json, s, sourceLocation: sourceLocation)
    return render(scan, tree)
}

func readLayout(_ name: String) throws -> String {
    let url = layoutsDirectory().appendingPathComponent(name)
    let data = try #require(FileManager.default.contents(atPath: url.path), "cannot read \(url.path)")
    return String(decoding: data, as: UTF8.self)
}

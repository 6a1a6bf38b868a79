import Foundation
import ScanCore
import ScanFormats
import Testing

/// Every bundled layout (Layouts/*.json) loads without error and scans to something.
@Suite("Bundled layout files")
struct LayoutFilesTests {
    static func files() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: layoutsDirectory().path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted()
    }

    @Test func theLayoutsFolderIsFound() {
        let names = Self.files()
        #expect(names.count >= 9, "found \(names) in \(layoutsDirectory().path)")
        #expect(names.contains("switch-control.uikit.json"))
        #expect(names.contains("keypad-order.json"))
    }

    @Test(arguments: files())
    func loadsWithoutErrors(_ name: String) throws {
        let doc = try load(try readLayout(name), file: "Layouts/" + name)
        #expect(!doc.warnings.contains { $0.severity == .error })
        #expect(doc.tree.count > 1)
        for groupItems in [true, false] {
            for scope in ItemScope.allCases {
                let scan = ScanTreeBuilder.build(doc.tree, settings: settings(groupItems: groupItems, itemScope: scope))
                #expect(!scan.top.items.isEmpty, "\(name): empty top level with groupItems \(groupItems), \(scope)")
                // Every scanned element is an accessible element, scanned once.
                let elements = flatElements(scan, doc.tree)
                #expect(Set(elements).count == elements.count, "\(name): an element is scanned twice")
                for id in elements {
                    let i = try #require(doc.tree.index(of: id))
                    #expect(doc.tree[i].isAccessibilityElement)
                }
            }
        }
    }

    @Test(arguments: files())
    func idsAreUniqueAndLabelled(_ name: String) throws {
        let doc = try load(try readLayout(name), file: "Layouts/" + name)
        let ids = doc.tree.nodes.map(\.id)
        #expect(Set(ids).count == ids.count)
        #expect(doc.tree[doc.tree.root].isAccessibilityElement == false)
        #expect(doc.tree[doc.tree.root].isVirtual == false)
    }

    @Test func titleIsRead() throws {
        let doc = try load(try readLayout("switch-control.uikit.json"))
        #expect(doc.title == "Switch Control item mode customization (UIKit variant)")
        #expect(doc.tree.screenID == "switch-control-uikit")
        #expect(doc.tree.screenSize == Rect(x: 0, y: 0, width: 375, height: 667))
        #expect(doc.tree.naturalOrder == .geometric)
    }
}

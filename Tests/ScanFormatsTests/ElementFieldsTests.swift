import Foundation
import ScanCore
@testable import ScanFormats
import Testing

/// The table of element fields is the one list: the JSON Schema of layouts and the `set`
/// effect agree with it, and every field it names is read.
@Suite("Element fields")
struct ElementFieldsTests {
    static func schema() throws -> [String: Any] {
        let url = layoutsDirectory().appendingPathComponent("schema/layout.schema.json")
        let data = try Data(contentsOf: url)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func properties(_ object: Any?) -> Set<String> {
        Set(((object as? [String: Any])?["properties"] as? [String: Any])?.keys.map { $0 } ?? [])
    }

    @Test func theSchemaNamesTheFieldsOfTheTable() throws {
        let defs = try #require(try Self.schema()["$defs"] as? [String: Any])
        #expect(Self.properties(defs["node"]) == Set(ElementFields.all.map(\.name)))
    }

    @Test func theSchemaSetEffectNamesTheSettableFields() throws {
        let defs = try #require(try Self.schema()["$defs"] as? [String: Any])
        let variants = try #require((defs["effect"] as? [String: Any])?["oneOf"] as? [[String: Any]])
        let sets = variants.compactMap { ($0["properties"] as? [String: Any])?["set"] }
        let set = try #require(sets.first)
        #expect(Self.properties(set) == Set(ElementFields.settable.names))
        #expect((set as? [String: Any])?["additionalProperties"] as? Bool == false)
    }

    @Test func namesAreUniqueAndFitThePresenceBits() {
        let names = ElementFields.all.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(names.count <= 64)
    }

    /// A `set` effect may change exactly the fields the table marks, and refuses the rest
    /// with the list of those it allows.
    @Test func setRefusesFieldsItCannotChange() throws {
        let json = layout(button("b", #", "onTap": [{"set": {"id": "b", "path": [[0, 0], [1, 0], [0, 1]]}}]"#))
        let e = try #require(errors(json).first)
        #expect(e.code == "E03")
        #expect(e.path == "$.root.children[0].onTap[0].set.path")
        let settable = ["label", "value", "hint", "traits", "hidden", "elementsHidden", "viewIsModal", "visible", "frame", "activationPoint"]
        #expect(Set(ElementFields.settable.names) == Set(["id"] + settable))
    }

    @Test func setChangesEverySettableField() throws {
        let changes = #"""
            "label": "L", "value": "V", "hint": "Does it.", "traits": ["link"], "hidden": true, "elementsHidden": true,
            "viewIsModal": true, "visible": false, "frame": {"x": 1, "y": 2, "width": 3, "height": 4}, "activationPoint": {"x": 2, "y": 3}
            """#
        let doc = try load(layout(button("b", #", "onTap": [{"set": {"id": "b", \#(changes)}}]"#)))
        guard case .set(let id, let list)? = doc.tree[1].onTap?.first else { Issue.record("no set effect"); return }
        #expect(id == "b")
        #expect(list.count == ElementFields.settable.names.count - 1)
        #expect(Set(list) == [.label("L"), .value("V"), .hint("Does it."), .traits(TraitSet([.link])), .hidden(true), .elementsHidden(true),
                              .viewIsModal(true), .visible(false), .frame(.init(x: 1, y: 2, width: 3, height: 4)),
                              .activationPoint(.init(x: 2, y: 3))])
    }
}

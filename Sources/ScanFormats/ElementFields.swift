import JSONTape
import ScanCore

/// Where an element field means something.
enum FieldPlace {
    /// On any node.
    case any
    /// On an accessible element only; on a node that is a container by default it is
    /// ignored, with warning W26.
    case element
    /// On a container only; on an accessible element it is ignored, with warning W20.
    case container
}

/// One field of a layout node: its name, where it belongs, how it is read and checked, and
/// whether a `set` effect may change it. `ElementFields.all` is the one list of them: the
/// allowed keys, the presence bits, the `set` effect's keys and the schema test all come
/// from it. A new optional field is one entry here (plus its property on `ElementNode`,
/// and a test).
struct ElementField: Sendable {
    let name: String
    let place: FieldPlace
    /// Reads the member into the node being read, reporting what is wrong with it.
    let read: @Sendable (inout LayoutReader, JSONMember, inout NodeDraft, () -> String) -> Void
    /// For a field a `set` effect may change: the change, from a draft this field was read into.
    let change: (@Sendable (NodeDraft) -> LayoutEffect.FieldChange?)?

    init(_ name: String, _ place: FieldPlace = .any,
         change: (@Sendable (NodeDraft) -> LayoutEffect.FieldChange?)? = nil,
         read: @escaping @Sendable (inout LayoutReader, JSONMember, inout NodeDraft, () -> String) -> Void) {
        self.name = name; self.place = place; self.read = read; self.change = change
    }

    /// A true/false field of the node.
    static func flag(_ name: String, _ key: WritableKeyPath<ElementNode, Bool> & Sendable, default value: Bool = false,
                     _ place: FieldPlace = .any, change: (@Sendable (NodeDraft) -> LayoutEffect.FieldChange?)? = nil) -> ElementField {
        ElementField(name, place, change: change) { r, m, n, path in n.node[keyPath: key] = r.fields.bool(m, path(), n.node.id) ?? value }
    }

    /// A text field of the node.
    static func text(_ name: String, _ key: WritableKeyPath<ElementNode, String?> & Sendable, _ place: FieldPlace = .any,
                     change: (@Sendable (NodeDraft) -> LayoutEffect.FieldChange?)? = nil) -> ElementField {
        ElementField(name, place, change: change) { r, m, n, path in n.node[keyPath: key] = r.fields.string(m, path(), n.node.id) }
    }
}

/// A node while it is read: the node itself, and what the reader needs from its fields
/// once all of them are read (checks across fields, geometry, children).
struct NodeDraft {
    var node: ElementNode
    var explicitAccessibility: Bool?
    var labelFromChildren = false
    var frame: Rect?
    var frameInContainer: Rect?
    var polygon: [Point]?
    var activationPoint: Point?
    var activationPointOutsideFrame = false
    var elements: [(id: String, offset: Int)]?
    var children: JSONArray?

    init(id: String) { node = ElementNode(id: id) }
}

/// The ranges of numbers a layout may use: far beyond any real screen or control, and
/// small enough that every sum, product and duration derived from them stays finite and
/// exact enough to scan (a sweep across the screen, a hit test, a value stepped and shown).
enum LayoutRanges {
    /// Positions and sizes, in points.
    static let coordinates = -1e7...1e7
    static let sizes = 0...1e7
    /// Adjustable values and sort priorities.
    static let values = -1e12...1e12
    static let steps = 1e-9...2e12
}

enum ElementFields {
    /// Every field of a node, in the order they are read.
    static let all: [ElementField] = [
        // Read first, by `LayoutReader.node`, so that every message can name the element.
        .init("id") { _, _, _, _ in },
        .flag("virtual", \.isVirtual),
        .flag("visible", \.isVisible, default: true, change: { .visible($0.node.isVisible) }),
        .init("isAccessibilityElement") { r, m, n, path in n.explicitAccessibility = r.fields.bool(m, path(), n.node.id) },
        .text("label", \.label, .element, change: { $0.node.label.map { .label($0) } }),
        .init("labelSpans") { r, m, n, path in r.labelSpans(m, &n, path()) },
        .init("labelFromChildren") { r, m, n, path in n.labelFromChildren = r.fields.bool(m, path(), n.node.id) ?? false },
        .text("value", \.value, change: { $0.node.value.map { .value($0) } }),
        .text("hint", \.hint, change: { $0.node.hint.map { .hint($0) } }),
        .init("traits", .element, change: { .traits($0.node.traits) }) { r, m, n, path in
            n.node.traits = r.traits(m, path(), n.node.id)
        },
        .init("language") { r, m, n, path in r.language(m, path(), n.node.id) },
        .flag("hidden", \.hidden, change: { .hidden($0.node.hidden) }),
        .flag("elementsHidden", \.elementsHidden, change: { .elementsHidden($0.node.elementsHidden) }),
        .flag("viewIsModal", \.viewIsModal, .container, change: { .viewIsModal($0.node.viewIsModal) }),
        .init("modalScope") { r, m, n, path in
            if let s = r.fields.enumValue(m, ModalScope.self, path(), n.node.id) { n.node.modalScope = s }
        },
        .flag("shouldGroupChildren", \.shouldGroupChildren, .container),
        .init("navigationStyle", .container) { r, m, n, path in
            if let s = r.fields.enumValue(m, NavigationStyle.self, path(), n.node.id) { n.node.navigationStyle = s }
        },
        .init("sortPriority") { r, m, n, path in
            n.node.sortPriority = r.fields.number(m, in: LayoutRanges.values, path(), n.node.id)
        },
        .init("respondsToUserInteraction") { r, m, n, path in
            if !m.value.isNull { n.node.respondsToUserInteraction = r.fields.bool(m, path(), n.node.id) }
        },
        .init("elements") { r, m, n, path in n.elements = r.idList(m, path(), n.node.id) },
        .init("customActions", .element) { r, m, n, path in n.node.customActions = r.customActions(m, path(), n.node.id) },
        .init("onActivate") { r, m, n, path in n.node.onActivate = r.effects(m, path(), n.node.id) },
        .init("onTap") { r, m, n, path in n.node.onTap = r.effects(m, path(), n.node.id) },
        .init("onEscape") { r, m, n, path in n.node.onEscape = r.effects(m, path(), n.node.id) },
        // Checked, for layouts written for VoiceOver; scanning has no use for them.
        .init("onMagicTap") { r, m, n, path in _ = r.effects(m, path(), n.node.id) },
        .init("onFocus") { r, m, n, path in _ = r.effects(m, path(), n.node.id) },
        .init("onBlur") { r, m, n, path in _ = r.effects(m, path(), n.node.id) },
        .init("customContent") { r, m, n, path in r.customContent(m, path(), n.node.id) },
        .init("customRotors") { r, m, n, path in r.customRotors(m, path(), n.node.id) },
        .init("largeContent") { r, m, n, path in r.largeContent(m, path(), n.node.id) },
        .init("scroll") { r, m, n, path in r.scroll(m, path(), n.node.id) },
        .init("frame", change: { $0.frame.map { .frame($0) } }) { r, m, n, path in
            n.frame = r.fields.rect(m, path(), n.node.id)
        },
        .init("frameInContainer") { r, m, n, path in n.frameInContainer = r.fields.rect(m, path(), n.node.id) },
        .init("path") { r, m, n, path in n.polygon = r.polygon(m, path(), n.node.id) },
        .init("activationPoint", change: { $0.activationPoint.map { .activationPoint($0) } }) { r, m, n, path in
            n.activationPoint = r.fields.point(m, path(), n.node.id)
        },
        .init("activationPointOutsideFrame") { r, m, n, path in
            n.activationPointOutsideFrame = r.fields.bool(m, path(), n.node.id) ?? false
        },
        .init("adjustable", .element) { r, m, n, path in n.node.adjustable = r.adjustable(m, path(), n.node.id) },
        .init("textEntry", .element) { r, m, n, path in
            if let k = r.fields.enumValue(m, TextEntryKind.self, path(), n.node.id) { n.node.textEntry = k }
        },
        // Read last, by `LayoutReader.node`: a child's frame may be relative to this node's.
        .init("children") { r, m, n, path in n.children = r.fields.array(m, path(), n.node.id) },
    ]

    static let names = FieldNames(all.map(\.name))
    static let readers = all.map(\.read)
    static func position(_ name: String) -> Int { names.position(name)! }
    static let id = position("id")
    static let label = position("label")
    static let labelSpans = position("labelSpans")
    static let labelFromChildren = position("labelFromChildren")
    static let value = position("value")
    static let traits = position("traits")
    static let frame = position("frame")
    static let frameInContainer = position("frameInContainer")
    static let activationPoint = position("activationPoint")
    static let modalScope = position("modalScope")
    static let elements = position("elements")
    static let adjustable = position("adjustable")
    static let children = position("children")

    /// The keys of a `set` effect: the target's id and the fields it may change.
    static let settable = FieldNames(["id"] + all.filter { $0.change != nil }.map(\.name))
}

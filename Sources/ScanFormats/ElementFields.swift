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
        ElementField(name, place, change: change) { reader, member, draft, path in draft.node[keyPath: key] = reader.fields.bool(member, path(), draft.node.id) ?? value }
    }

    /// A text field of the node.
    static func text(_ name: String, _ key: WritableKeyPath<ElementNode, String?> & Sendable, _ place: FieldPlace = .any,
                     change: (@Sendable (NodeDraft) -> LayoutEffect.FieldChange?)? = nil) -> ElementField {
        ElementField(name, place, change: change) { reader, member, draft, path in draft.node[keyPath: key] = reader.fields.string(member, path(), draft.node.id) }
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
        .init("isAccessibilityElement") { reader, member, draft, path in draft.explicitAccessibility = reader.fields.bool(member, path(), draft.node.id) },
        .text("label", \.label, .element, change: { $0.node.label.map { .label($0) } }),
        .init("labelSpans") { reader, member, draft, path in reader.labelSpans(member, &draft, path()) },
        .init("labelFromChildren") { reader, member, draft, path in draft.labelFromChildren = reader.fields.bool(member, path(), draft.node.id) ?? false },
        .text("value", \.value, change: { $0.node.value.map { .value($0) } }),
        .text("hint", \.hint, change: { $0.node.hint.map { .hint($0) } }),
        .init("traits", .element, change: { .traits($0.node.traits) }) { reader, member, draft, path in
            draft.node.traits = reader.traits(member, path(), draft.node.id)
        },
        .init("language") { reader, member, draft, path in reader.language(member, path(), draft.node.id) },
        .flag("hidden", \.hidden, change: { .hidden($0.node.hidden) }),
        .flag("elementsHidden", \.elementsHidden, change: { .elementsHidden($0.node.elementsHidden) }),
        .flag("viewIsModal", \.viewIsModal, .container, change: { .viewIsModal($0.node.viewIsModal) }),
        .init("modalScope") { reader, member, draft, path in
            if let scope = reader.fields.enumValue(member, ModalScope.self, path(), draft.node.id) { draft.node.modalScope = scope }
        },
        .flag("shouldGroupChildren", \.shouldGroupChildren, .container),
        .init("navigationStyle", .container) { reader, member, draft, path in
            if let style = reader.fields.enumValue(member, NavigationStyle.self, path(), draft.node.id) { draft.node.navigationStyle = style }
        },
        .init("sortPriority") { reader, member, draft, path in
            draft.node.sortPriority = reader.fields.number(member, in: LayoutRanges.values, path(), draft.node.id)
        },
        .init("respondsToUserInteraction") { reader, member, draft, path in
            if !member.value.isNull { draft.node.respondsToUserInteraction = reader.fields.bool(member, path(), draft.node.id) }
        },
        .init("elements") { reader, member, draft, path in draft.elements = reader.idList(member, path(), draft.node.id) },
        .init("customActions", .element) { reader, member, draft, path in draft.node.customActions = reader.customActions(member, path(), draft.node.id) },
        .init("onActivate") { reader, member, draft, path in draft.node.onActivate = reader.effects(member, path(), draft.node.id) },
        .init("onTap") { reader, member, draft, path in draft.node.onTap = reader.effects(member, path(), draft.node.id) },
        .init("onEscape") { reader, member, draft, path in draft.node.onEscape = reader.effects(member, path(), draft.node.id) },
        // Checked, for layouts written for VoiceOver; scanning has no use for them.
        .init("onMagicTap") { reader, member, draft, path in _ = reader.effects(member, path(), draft.node.id) },
        .init("onFocus") { reader, member, draft, path in _ = reader.effects(member, path(), draft.node.id) },
        .init("onBlur") { reader, member, draft, path in _ = reader.effects(member, path(), draft.node.id) },
        .init("customContent") { reader, member, draft, path in reader.customContent(member, path(), draft.node.id) },
        .init("customRotors") { reader, member, draft, path in reader.customRotors(member, path(), draft.node.id) },
        .init("largeContent") { reader, member, draft, path in reader.largeContent(member, path(), draft.node.id) },
        .init("scroll") { reader, member, draft, path in reader.scroll(member, path(), draft.node.id) },
        .init("frame", change: { $0.frame.map { .frame($0) } }) { reader, member, draft, path in
            draft.frame = reader.fields.rect(member, path(), draft.node.id)
        },
        .init("frameInContainer") { reader, member, draft, path in draft.frameInContainer = reader.fields.rect(member, path(), draft.node.id) },
        .init("path") { reader, member, draft, path in draft.polygon = reader.polygon(member, path(), draft.node.id) },
        .init("activationPoint", change: { $0.activationPoint.map { .activationPoint($0) } }) { reader, member, draft, path in
            draft.activationPoint = reader.fields.point(member, path(), draft.node.id)
        },
        .init("activationPointOutsideFrame") { reader, member, draft, path in
            draft.activationPointOutsideFrame = reader.fields.bool(member, path(), draft.node.id) ?? false
        },
        .init("adjustable", .element) { reader, member, draft, path in draft.node.adjustable = reader.adjustable(member, path(), draft.node.id) },
        .init("textEntry", .element) { reader, member, draft, path in
            if let kind = reader.fields.enumValue(member, TextEntryKind.self, path(), draft.node.id) { draft.node.textEntry = kind }
        },
        // Read last, by `LayoutReader.node`: a child's frame may be relative to this node's.
        .init("children") { reader, member, draft, path in draft.children = reader.fields.array(member, path(), draft.node.id) },
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

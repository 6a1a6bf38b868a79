import JSONTape
import ScanCore

/// Writes an element tree as a layout file (schema v1, Layouts/README.md): a snapshot of a
/// live window saved for `switchscan simulate`, a test fixture, or a bug report.
///
/// The text is strict, pretty-printed JSON: two-space indent, one node per object with one
/// field per line in a fixed order, small values (frames, points, trait lists) on one line,
/// so that two snapshots of a window diff line by line. A field is written only where it
/// differs from the default the loader gives it, except `id`, and `frame`, which every node
/// with a non-zero frame (and every leaf) has. `LayoutLoader` reads the text back to an
/// equal tree: the same nodes in document order (children in paint order, from the root;
/// nodes no child list reaches are not written), every field the tree keeps, and numbers
/// that round-trip exactly.
///
/// The writer writes what the tree has. Whether that is a valid layout (labels on every
/// accessible element, the `adjustable` trait with its spec and without `value`, ids of
/// the allowed form, a container root …, the loader's E01–E17) is the loader's to judge;
/// the trees DesktopAccess builds from the accessibility bus are made to satisfy those
/// rules. Where the tree itself allows what a file must say explicitly, the writer says
/// it: `isAccessibilityElement` where having children or not would imply the other value
/// (and on containers with a label or traits, which the loader would otherwise warn about),
/// `activationPointOutsideFrame` for an explicit point outside the frame. Effects are
/// written too (`onTap`, `onActivate`, `onEscape`, custom actions', adjustables' `onChange`);
/// `emit` data that is not a JSON object's text is written as a string, which the loader
/// refuses. Not kept by a tree, hence not written: `language`, `spokenAppName`,
/// `initialFocus`, `labelSpans` and `labelFromChildren` (written as the label they gave),
/// `frameInContainer` and `path` (written as the frame), and the later fields.
public enum LayoutWriter {
    public static func json(_ tree: ElementTree, title: String? = nil) -> String {
        var screen: [(String, Value)] = [
            ("id", .string(tree.screenID)),
            ("size", .inline([("width", .number(tree.screenSize.width)), ("height", .number(tree.screenSize.height))])),
        ]
        if let title { screen.append(("title", .string(title))) }
        if tree.naturalOrder != .geometric { screen.append(("naturalOrder", .string(tree.naturalOrder.rawValue))) }
        if tree.containersAreToolkits { screen.append(("containers", .string(Containers.toolkit.rawValue))) }
        var document: [(String, Value)] = [("schemaVersion", .raw("1")), ("screen", .object(screen))]
        if tree.count > 0 { document.append(("root", node(tree.root, tree))) }
        var out = ""
        Value.object(document).write(to: &out, indent: "")
        return out + "\n"
    }

    static func node(_ i: Int, _ tree: ElementTree) -> Value {
        let n = tree[i]
        var f: [(String, Value)] = [("id", .string(n.id))]
        if n.isVirtual { f.append(("virtual", .bool(true))) }
        if !n.isVisible { f.append(("visible", .bool(false))) }
        let hasChildren = !n.children.isEmpty
        let elementFields = n.label != nil || !n.traits.isEmpty || !n.customActions.isEmpty || n.adjustable != nil
        if n.isAccessibilityElement == hasChildren || (hasChildren && elementFields) {
            f.append(("isAccessibilityElement", .bool(n.isAccessibilityElement)))
        }
        if let s = n.label { f.append(("label", .string(s))) }
        if let s = n.value { f.append(("value", .string(s))) }
        if let s = n.hint { f.append(("hint", .string(s))) }
        if !n.traits.isEmpty { f.append(("traits", traits(n.traits))) }
        // A container without a frame gets its children's union; a leaf needs one.
        let union = n.children.isEmpty ? nil : n.children.dropFirst().reduce(tree[n.children[0]].frame) { $0.union(tree[$1].frame) }
        if n.frame != .zero || union.map({ $0 != n.frame }) ?? true { f.append(("frame", rect(n.frame))) }
        if n.hasExplicitActivationPoint {
            f.append(("activationPoint", point(n.activationPoint)))
            if !n.frame.contains(n.activationPoint) { f.append(("activationPointOutsideFrame", .bool(true))) }
        }
        if n.hidden { f.append(("hidden", .bool(true))) }
        if n.elementsHidden { f.append(("elementsHidden", .bool(true))) }
        if n.viewIsModal { f.append(("viewIsModal", .bool(true))) }
        if n.modalScope != .siblings { f.append(("modalScope", .string(n.modalScope.rawValue))) }
        if n.navigationStyle != .automatic { f.append(("navigationStyle", .string(n.navigationStyle.rawValue))) }
        if n.shouldGroupChildren { f.append(("shouldGroupChildren", .bool(true))) }
        if let list = n.elements { f.append(("elements", .list(list.map { .string(tree[$0].id) }))) }
        if let p = n.sortPriority { f.append(("sortPriority", .number(p))) }
        if let r = n.respondsToUserInteraction { f.append(("respondsToUserInteraction", .bool(r))) }
        if let k = n.textEntry { f.append(("textEntry", .string(k.rawValue))) }
        if !n.customActions.isEmpty {
            f.append(("customActions", .array(n.customActions.map { a in
                var members: [(String, Value)] = [("name", .string(a.name))]
                if !a.effects.isEmpty { members.append(("effects", .list(a.effects.map(effect)))) }
                return .inline(members)
            })))
        }
        if let a = n.adjustable { f.append(("adjustable", adjustable(a))) }
        if let e = n.onTap { f.append(("onTap", effects(e))) }
        if let e = n.onActivate { f.append(("onActivate", effects(e))) }
        if let e = n.onEscape { f.append(("onEscape", effects(e))) }
        if hasChildren { f.append(("children", .array(n.children.map { node($0, tree) }))) }
        return .object(f)
    }

    static func traits(_ t: TraitSet) -> Value { .list(t.map { .string($0.rawValue) }) }

    static func rect(_ r: Rect) -> Value {
        .inline([("x", .number(r.x)), ("y", .number(r.y)), ("width", .number(r.width)), ("height", .number(r.height))])
    }

    static func point(_ p: Point) -> Value { .inline([("x", .number(p.x)), ("y", .number(p.y))]) }

    static func adjustable(_ a: Adjustable) -> Value {
        var members: [(String, Value)]
        switch a.kind {
        case let .numeric(lo, hi, step, decimals, format):
            members = [("min", .number(lo)), ("max", .number(hi)), ("step", .number(step)), ("value", .number(a.current)),
                       ("decimals", .raw(String(decimals)))]
            if format != "{value}" { members.append(("valueFormat", .string(format))) }
        case let .list(values):
            members = [("values", .list(values.map { .string($0) })), ("index", .number(a.current))]
        }
        if !a.onChange.isEmpty { members.append(("onChange", .list(a.onChange.map(effect)))) }
        return .inline(members)
    }

    /// A handler's effects, one a line.
    static func effects(_ list: [LayoutEffect]) -> Value { .array(list.map(effect)) }

    static func effect(_ e: LayoutEffect) -> Value {
        switch e {
        case let .emit(name, data):
            var members: [(String, Value)] = [("emit", .string(name))]
            if let data { members.append(("data", objectText(data).map(Value.raw) ?? .string(data))) }
            return .inline(members)
        case let .set(id, changes):
            var members: [(String, Value)] = [("id", .string(id))]
            for c in changes {
                switch c {
                case .label(let s): members.append(("label", .string(s)))
                case .value(let s): members.append(("value", .string(s)))
                case .hint(let s): members.append(("hint", .string(s)))
                case .traits(let t): members.append(("traits", traits(t)))
                case .hidden(let b): members.append(("hidden", .bool(b)))
                case .elementsHidden(let b): members.append(("elementsHidden", .bool(b)))
                case .viewIsModal(let b): members.append(("viewIsModal", .bool(b)))
                case .visible(let b): members.append(("visible", .bool(b)))
                case .frame(let r): members.append(("frame", rect(r)))
                case .activationPoint(let p): members.append(("activationPoint", point(p)))
                }
            }
            return .inline([("set", .inline(members))])
        case let .toggle(id, field, values):
            return .inline([("toggle", .inline([("id", .string(id)), ("field", .string(field.rawValue)),
                                                ("values", .list(values.map { .string($0) }))]))])
        case .post(let note):
            let kind: String, argument: LayoutEffect.Notification.Argument
            switch note {
            case .announcement(let s): kind = "announcement"; argument = .text(s)
            case .layoutChanged(let a): kind = "layoutChanged"; argument = a
            case .screenChanged(let a): kind = "screenChanged"; argument = a
            case .pageScrolled(let s): kind = "pageScrolled"; argument = .text(s)
            }
            var members: [(String, Value)] = [("post", .string(kind))]
            switch argument {
            case .none: break
            case .text(let s): members.append(("argument", .string(s)))
            case .element(let id): members.append(("argument", .inline([("element", .string(id))])))
            }
            return .inline(members)
        case .loadScreen(let file):
            return .inline([("loadScreen", .string(file))])
        case .key(let key):
            return .inline([("key", .string(key.rawValue))])
        case .result(let ok):
            return .inline([("result", .bool(ok))])
        }
    }

    /// `emit` data as the loader keeps it: the compact text of a JSON object, written back
    /// as it is; nil if it is not one.
    static func objectText(_ data: String) -> String? {
        guard let doc = try? JSONDocument.parse(Array(data.utf8)), doc.root.kind == .object else { return nil }
        return doc.root.compactText
    }

    /// A JSON value to print: nodes and handler lists one member a line, the rest on one.
    indirect enum Value {
        case raw(String)
        /// One member a line.
        case object([(String, Value)])
        /// On one line.
        case inline([(String, Value)])
        /// One item a line.
        case array([Value])
        /// On one line.
        case list([Value])

        static func string(_ s: String) -> Value { .raw(jsonString(s)) }
        static func bool(_ b: Bool) -> Value { .raw(b ? "true" : "false") }
        /// Integral values without a fraction (68, not 68.0); others in the shortest text
        /// that reads back to the same double. JSON has no NaN or infinity: those are
        /// written as null, which the loader refuses.
        static func number(_ d: Double) -> Value { .raw(d.isFinite ? format(d) : "null") }

        func write(to out: inout String, indent: String) {
            switch self {
            case .raw(let s):
                out += s
            case .object(let members) where !members.isEmpty:
                let inner = indent + "  "
                out += "{\n"
                for (k, (key, value)) in members.enumerated() {
                    out += inner + jsonString(key) + ": "
                    value.write(to: &out, indent: inner)
                    out += k < members.count - 1 ? ",\n" : "\n"
                }
                out += indent + "}"
            case .array(let items) where !items.isEmpty:
                let inner = indent + "  "
                out += "[\n"
                for (k, item) in items.enumerated() {
                    out += inner
                    item.write(to: &out, indent: inner)
                    out += k < items.count - 1 ? ",\n" : "\n"
                }
                out += indent + "]"
            case .object(let members), .inline(let members):
                out += "{"
                for (k, (key, value)) in members.enumerated() {
                    if k > 0 { out += ", " }
                    out += jsonString(key) + ": "
                    value.write(to: &out, indent: indent)
                }
                out += "}"
            case .array(let items), .list(let items):
                out += "["
                for (k, item) in items.enumerated() {
                    if k > 0 { out += ", " }
                    item.write(to: &out, indent: indent)
                }
                out += "]"
            }
        }
    }
}

import JSONTape
import ScanCore

// The effects a handler declares (`{"post": …}`, `{"emit": …}`, …).
extension LayoutReader {
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
        ("loadScreen", ["loadScreen"]), ("key", ["key"]), ("result", ["result"]),
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
        case "key":
            return fields.enumValue(verbMember, SpecialKey.self, path(), element).map(LayoutEffect.key)
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
}

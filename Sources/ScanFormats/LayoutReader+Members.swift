import JSONTape
import ScanCore

// The element's members beyond the plain ones: label spans, id lists, traits, actions,
// adjustable values, custom content, rotors, scrolling.
extension LayoutReader {
    static let labelSpanKeys: FieldNames = ["text", "language"]

    mutating func labelSpans(_ member: JSONMember, _ draft: inout NodeDraft, _ path: @autoclosure () -> String) {
        let element = draft.node.id
        guard let spans = fields.array(member, path(), element) else { return }
        var text: [String] = []
        for (k, span) in spans.enumerated() {
            let spanPath = "\(path()).labelSpans[\(k)]"
            if let spanObject = fields.object(span, spanPath, element, allowed: Self.labelSpanKeys) {
                if let spanText = fields.string(fields.require(spanObject, "text", in: span, spanPath, element), spanPath, element) { text.append(spanText) }
                if let languageMember = spanObject["language"] { language(languageMember, spanPath, element) }
            }
        }
        if spans.isEmpty { fields.report("E04", member.value.offset, path() + ".labelSpans", element, "must not be empty") }
        else { draft.node.label = text.joined() }
    }

    /// A list of element ids (a custom order).
    mutating func idList(_ member: JSONMember, _ path: @autoclosure () -> String, _ element: String?) -> [(id: String, offset: Int)]? {
        guard let list = fields.array(member, path(), element) else { return nil }
        var ids: [(id: String, offset: Int)] = []
        for (k, item) in list.enumerated() {
            if let id = item.string { ids.append((id, item.offset)) }
            else { fields.report("E04", item.offset, "\(path()).elements[\(k)]", element, "must be an element id (a string), got \(item.kindName)") }
        }
        return ids
    }

    /// A shape's outline: at least three points [x, y].
    mutating func polygon(_ member: JSONMember, _ path: @autoclosure () -> String, _ element: String?) -> [Point]? {
        guard let points = fields.array(member, path(), element) else { return nil }
        var list: [Point] = []
        for (k, point) in points.enumerated() {
            let xy = point.array.map(Array.init) ?? []
            let range = LayoutRanges.coordinates
            if xy.count == 2, let x = xy[0].number, let y = xy[1].number {
                if range.contains(x) && range.contains(y) { list.append(Point(x: x, y: y)) }
                else { fields.report("E04", point.offset, "\(path()).path[\(k)]", element, "coordinates must be between \(format(range.lowerBound)) and \(format(range.upperBound))") }
            } else {
                fields.report("E04", point.offset, "\(path()).path[\(k)]", element, "must be a point [x, y] of two numbers")
            }
        }
        if points.count < 3 { fields.report("E08", member.value.offset, path() + ".path", element, "a path needs at least 3 points, got \(points.count)") }
        return list
    }

    mutating func traits(_ member: JSONMember, _ path: @autoclosure () -> String, _ element: String?) -> TraitSet {
        func traitsPath() -> String { path() + "." + member.key }
        let names = Trait.allCases.map(\.rawValue)
        if member.value.kind == .number {
            fields.report("E09", member.value.offset, traitsPath(), element, "traits are names, not a raw bitmask; allowed: \(quotedList(names))")
            return TraitSet()
        }
        guard let list = fields.array(member, path(), element) else { return TraitSet() }
        var set = TraitSet()
        for (k, item) in list.enumerated() {
            func itemPath() -> String { "\(traitsPath())[\(k)]" }
            guard let name = item.string else {
                fields.report("E09", item.offset, itemPath(), element, "a trait is a name (a string), got \(item.kindName); allowed: \(quotedList(names))")
                continue
            }
            if let trait = Trait(rawValue: name) {
                if set.contains(trait) { fields.report("E09", item.offset, itemPath(), element, "duplicate trait \"\(name)\"") }
                set.insert(trait)
            } else if name == "isModal" || name == "modal" {
                fields.report("E09", item.offset, itemPath(), element, "\"\(name)\" is not a trait here; use \"viewIsModal\": true on the node")
            } else {
                var msg = "unknown trait \"\(excerpt(name))\"; allowed: \(quotedList(names))"
                let bare = name.hasPrefix(".") ? String(name.dropFirst()) : name
                if let suggested = suggestion(for: bare, among: names) { msg += "; did you mean \"\(suggested)\"?" }
                fields.report("E09", item.offset, itemPath(), element, msg)
            }
        }
        if set.contains(.none) && set.rawValue != TraitSet([.none]).rawValue {
            fields.report("E09", member.value.offset, traitsPath(), element, "\"none\" must be the only trait")
        }
        if (set.rawValue & controlTraits.rawValue).nonzeroBitCount > 1 {
            let controls = [Trait.button, .link, .searchField, .keyboardKey].filter { set.contains($0) }
            fields.report(.warning, "W18", member.value.offset, traitsPath(), element,
                          "\(quotedList(controls.map(\.rawValue))) are meant to be mutually exclusive; keep one")
        }
        return set
    }

    mutating func language(_ member: JSONMember, _ path: @autoclosure () -> String, _ element: String?) {
        guard let tag = fields.string(member, path(), element) else { return }
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        let ok = !parts.isEmpty && (2...8).contains(parts[0].count) && parts[0].allSatisfy { $0.isASCII && $0.isLetter }
            && parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
        if !ok { fields.report("E17", member.value.offset, path() + "." + member.key, element, "\"\(excerpt(tag))\" is not a BCP 47 language tag (e.g. \"en\", \"fr-CA\")") }
    }

    static let customActionKeys: FieldNames = ["name", "effects"]

    mutating func customActions(_ member: JSONMember, _ path: @autoclosure () -> String, _ element: String?) -> [CustomAction] {
        guard let list = fields.array(member, path(), element) else { return [] }
        var actions: [CustomAction] = []
        var seen: [String: Int] = [:]
        for (k, item) in list.enumerated() {
            func actionPath() -> String { "\(path()).customActions[\(k)]" }
            guard let actionObject = fields.object(item, actionPath(), element, allowed: Self.customActionKeys) else { continue }
            guard let name = fields.string(fields.require(actionObject, "name", in: item, actionPath(), element, code: "E13"), actionPath(), element) else { continue }
            let effects = actionObject["effects"].map { self.effects($0, actionPath(), element) } ?? []
            if name.isEmpty {
                fields.report("E13", actionObject["name"]!.value.offset, actionPath() + ".name", element, "an action needs a name a person can read")
            } else if let first = seen[name] {
                fields.report("E13", actionObject["name"]!.value.offset, actionPath() + ".name", element, "duplicate action name \"\(excerpt(name))\" (also customActions[\(first)])")
            } else {
                seen[name] = k
                actions.append(CustomAction(name: name, effects: effects))
            }
        }
        return actions
    }

    static let listAdjustableKeys: FieldNames = ["values", "index", "onChange"]
    static let numericAdjustableKeys: FieldNames = ["min", "max", "step", "value", "decimals", "valueFormat", "onChange"]

    mutating func adjustable(_ member: JSONMember, _ path: @autoclosure () -> String, _ element: String?) -> Adjustable? {
        let adjustablePath = path() + ".adjustable"
        guard let members = member.value.object else {
            fields.report("E10", member.value.offset, adjustablePath, element, "must be an object: {\"min\", \"max\", \"step\", \"value\"} or {\"values\", \"index\"}")
            return nil
        }
        if members.member("values") != nil {
            guard let adjustableObject = fields.object(member.value, adjustablePath, element, allowed: Self.listAdjustableKeys, unknownCode: "E10") else { return nil }
            let values = fields.array(adjustableObject["values"], adjustablePath, element).map(Array.init) ?? []
            var strings: [String] = []
            for (k, item) in values.enumerated() {
                if let text = item.string { strings.append(text) }
                else { fields.report("E10", item.offset, "\(adjustablePath).values[\(k)]", element, "must be a string, got \(item.kindName)") }
            }
            if values.isEmpty { fields.report("E10", adjustableObject["values"]!.value.offset, adjustablePath + ".values", element, "must list at least one value") }
            let index = fields.integer(adjustableObject["index"], adjustablePath, element) ?? 0
            if !strings.isEmpty && !(0..<strings.count).contains(index) {
                fields.report("E10", adjustableObject["index"]!.value.offset, adjustablePath + ".index", element, "must be between 0 and \(strings.count - 1), got \(index)")
            }
            let onChange = adjustableObject["onChange"].map { effects($0, adjustablePath, element) } ?? []
            guard !strings.isEmpty, strings.count == values.count else { return nil }
            return Adjustable(kind: .list(strings), current: Double(min(max(index, 0), strings.count - 1)), onChange: onChange)
        }
        guard let adjustableObject = fields.object(member.value, adjustablePath, element, allowed: Self.numericAdjustableKeys, unknownCode: "E10") else { return nil }
        let lo = fields.number(fields.require(adjustableObject, "min", in: member.value, adjustablePath, element, code: "E10"), in: LayoutRanges.values, adjustablePath, element, code: "E10")
        let hi = fields.number(fields.require(adjustableObject, "max", in: member.value, adjustablePath, element, code: "E10"), in: LayoutRanges.values, adjustablePath, element, code: "E10")
        let step = adjustableObject["step"] == nil ? 1 : fields.number(adjustableObject["step"], in: LayoutRanges.steps, adjustablePath, element, code: "E10")
        let decimals = fields.integer(adjustableObject["decimals"], adjustablePath, element) ?? 0
        let format = fields.string(adjustableObject["valueFormat"], adjustablePath, element) ?? "{value}"
        let onChange = adjustableObject["onChange"].map { effects($0, adjustablePath, element) } ?? []
        if !(0...9).contains(decimals) { fields.report("E10", adjustableObject["decimals"]!.value.offset, adjustablePath + ".decimals", element, "must be between 0 and 9, got \(decimals)") }
        if !format.contains("{value}") { fields.report("E10", adjustableObject["valueFormat"]!.value.offset, adjustablePath + ".valueFormat", element, "must contain \"{value}\"") }
        guard let lo, let hi, let step else { return nil }
        if lo > hi { fields.report("E10", adjustableObject["min"]!.value.offset, adjustablePath + ".min", element, "min \(ScanFormats.format(lo)) is greater than max \(ScanFormats.format(hi))"); return nil }
        let value = fields.number(adjustableObject["value"], adjustablePath, element) ?? lo
        if value < lo || value > hi {
            fields.report("E10", adjustableObject["value"]!.value.offset, adjustablePath + ".value", element, "must be between min \(ScanFormats.format(lo)) and max \(ScanFormats.format(hi)), got \(ScanFormats.format(value))")
            return nil
        }
        return Adjustable(kind: .numeric(min: lo, max: hi, step: step, decimals: max(0, min(decimals, 9)), format: format),
                          current: value, onChange: onChange)
    }

    static let customContentKeys: FieldNames = ["label", "value", "importance"]

    mutating func customContent(_ member: JSONMember, _ path: @autoclosure () -> String, _ element: String?) {
        guard let list = fields.array(member, path(), element) else { return }
        for (k, item) in list.enumerated() {
            let contentPath = "\(path()).customContent[\(k)]"
            guard let contentObject = fields.object(item, contentPath, element, allowed: Self.customContentKeys) else { continue }
            for key in ["label", "value"] {
                if let text = fields.string(fields.require(contentObject, key, in: item, contentPath, element, code: "E14"), contentPath, element), text.isEmpty {
                    fields.report("E14", contentObject[key]!.value.offset, contentPath + "." + key, element, "must not be empty")
                }
            }
            if let importance = fields.string(contentObject["importance"], contentPath, element), importance != "default" && importance != "high" {
                fields.report("E04", contentObject["importance"]!.value.offset, contentPath + ".importance", element, "unknown value \"\(excerpt(importance))\"; allowed: default, high")
            }
        }
    }

    static let customRotorKeys: FieldNames = ["name", "targets"]

    mutating func customRotors(_ member: JSONMember, _ path: @autoclosure () -> String, _ element: String?) {
        guard let list = fields.array(member, path(), element) else { return }
        for (k, item) in list.enumerated() {
            let rotorPath = "\(path()).customRotors[\(k)]"
            guard let rotorObject = fields.object(item, rotorPath, element, allowed: Self.customRotorKeys) else { continue }
            if let name = fields.string(fields.require(rotorObject, "name", in: item, rotorPath, element, code: "E14"), rotorPath, element), name.isEmpty {
                fields.report("E14", rotorObject["name"]!.value.offset, rotorPath + ".name", element, "must not be empty")
            }
            if let targets = fields.array(fields.require(rotorObject, "targets", in: item, rotorPath, element, code: "E14"), rotorPath, element) {
                for (position, targetValue) in targets.enumerated() {
                    if let id = targetValue.string {
                        references.append(IDReference(id: id, offset: targetValue.offset, path: "\(rotorPath).targets[\(position)]", element: element, code: "E14"))
                    } else {
                        fields.report("E14", targetValue.offset, "\(rotorPath).targets[\(position)]", element, "must be an element id (a string)")
                    }
                }
            }
        }
    }

    static let largeContentKeys: FieldNames = ["title", "image"]

    mutating func largeContent(_ member: JSONMember, _ path: @autoclosure () -> String, _ element: String?) {
        let contentPath = path() + ".largeContent"
        guard let contentObject = fields.object(member.value, contentPath, element, allowed: Self.largeContentKeys) else { return }
        _ = fields.string(fields.require(contentObject, "title", in: member.value, contentPath, element), contentPath, element)
        _ = fields.string(contentObject["image"], contentPath, element)
    }

    static let scrollKeys: FieldNames = ["directions", "effects"]
    static let scrollDirections: FieldNames = ["up", "down", "left", "right", "next", "previous"]

    mutating func scroll(_ member: JSONMember, _ path: @autoclosure () -> String, _ element: String?) {
        let scrollPath = path() + ".scroll"
        guard let scrollObject = fields.object(member.value, scrollPath, element, allowed: Self.scrollKeys) else { return }
        let allowed = Self.scrollDirections
        if let directions = fields.array(fields.require(scrollObject, "directions", in: member.value, scrollPath, element), scrollPath, element) {
            for (k, direction) in directions.enumerated() where direction.string.flatMap({ allowed.position($0) }) == nil {
                fields.report("E04", direction.offset, "\(scrollPath).directions[\(k)]", element, "must be one of \(quotedList(allowed.names))")
            }
        }
        if let effectsMember = scrollObject["effects"], let effectsObject = fields.object(effectsMember.value, scrollPath + ".effects", element, allowed: allowed) {
            for (_, directionEffects) in effectsObject.members { _ = effects(directionEffects, scrollPath + ".effects", element) }
        }
    }
}

import ScanCore
import ScanFormats
import JSONTape

/// Effects as JSON lines: `{"t":1.000,"effect":"highlight",…}`, keys in a fixed
/// order so that output can be compared byte for byte.
public enum EffectJSON {
    /// The lines of `effects`, each ended by a newline.
    public static func lines(_ effects: [TimedEffect], origin: ScanInstant = .zero) -> String {
        var text = ""
        for e in effects { if let l = line(e, origin: origin) { text += l; text += "\n" } }
        return text
    }

    /// `origin` is subtracted from the time (a live run counts from its start). nil for the
    /// screen shown (a front end reading JSON has the layout, or `switchscan snapshot` of
    /// the window, and the highlights name its elements) and for the host's notices (on
    /// stderr).
    public static func line(_ e: TimedEffect, origin: ScanInstant = .zero) -> String? {
        var s = "{\"t\":\(ScanInstant(nanoseconds: e.time.nanoseconds - origin.nanoseconds).millisecondsText),\"effect\":"
        func field(_ key: String, _ raw: String) { s += ",\"\(key)\":\(raw)" }
        func text(_ key: String, _ v: String) { field(key, jsonString(v)) }
        func optionalText(_ key: String, _ v: String?) { field(key, v.map(jsonString) ?? "null") }
        switch e.effect {
        case .screen, .notice:
            return nil
        case .scanStarted:
            s += "\"scanStarted\""
        case .scanStopped(let reason):
            s += "\"scanStopped\""; text("reason", reason.rawValue)
        case let .highlight(item, kind, frame, label, context, outline):
            s += "\"highlight\""
            text("item", item); text("kind", kind.rawValue)
            switch kind {
            case .exit: if let context { text("group", context) }
            case .menuEntry: if let context { text("element", context) }
            default: break
            }
            if let frame { field("frame", rect(frame)) }
            if let outline { field("outline", "[" + outline.map(rect).joined(separator: ",") + "]") }
            if let label { text("label", label) }
        case .enterGroup(let g):
            s += "\"enterGroup\""; text("group", g)
        case .exitGroup(let g):
            s += "\"exitGroup\""; text("group", g)
        case let .menuOpen(element, entries, titles):
            s += "\"menuOpen\""; optionalText("element", element)
            field("entries", "[" + entries.map(jsonString).joined(separator: ",") + "]")
            field("titles", "[" + titles.map(jsonString).joined(separator: ",") + "]")
        case .menuClose(let element):
            s += "\"menuClose\""; optionalText("element", element)
        case let .activate(element, point, target):
            s += "\"activate\""; text("element", element); field("point", pair(point)); optionalText("target", target)
        case let .customAction(element, action, succeeded):
            s += "\"customAction\""; text("element", element); text("action", action)
            if !succeeded { field("failed", "true") }
        case let .adjust(element, direction, value):
            s += "\"adjust\""; text("element", element); text("direction", direction.rawValue); text("value", value)
        case .modeChanged(let mode):
            s += "\"modeChanged\""; text("mode", mode.rawValue)
        case .sweep(let sw):
            s += "\"sweep\""; text("axis", sw.axis.rawValue); text("phase", sw.phase.rawValue)
            field("from", number(sw.lo)); field("speed", number(sw.speed))
            field("bounds", "[\(number(sw.lo)),\(number(sw.hi + sw.width))]")
            if sw.phase == .band { field("width", number(sw.width)) }
            field("passes", String(sw.passes))
        case .pointSelected(let p):
            s += "\"pointSelected\""; field("x", number(p.x)); field("y", number(p.y))
        case let .tap(p, element):
            s += "\"tap\""; field("x", number(p.x)); field("y", number(p.y)); optionalText("element", element)
        case let .gesture(g, element, at, to):
            s += "\"gesture\""; text("gesture", g.rawValue); optionalText("element", element); field("point", pair(at))
            if let to { field("to", pair(to)) }
        case .announce(let t):
            s += "\"announce\""; text("text", t)
        case .settingChanged(let change):
            // As a settings file says it.
            let (name, value) = change.json
            s += "\"settingChanged\""; text("name", name); field("value", value)
        case .key(let k):
            s += "\"key\""; text("key", k.rawValue)
        case let .window(command, window, title):
            s += "\"window\""; text("action", command.rawValue); text("window", window); text("title", title)
        case let .emit(name, element, data):
            s += "\"emit\""; text("name", name); text("element", element)
            if let data { field("data", data) }
        case .keyboard(let keys):
            s += "\"keyboard\""
            field("keys", "[" + keys.map { "{\"id\":\(jsonString($0.id)),\"label\":\(jsonString($0.label)),\"frame\":\(rect($0.frame))}" }.joined(separator: ",") + "]")
        case let .typeText(t, secret):
            s += "\"typeText\""
            if secret { text("text", String(repeating: "•", count: t.count)); field("secret", "true") } else { text("text", t) }
        case .deleteText(let n):
            s += "\"deleteText\""; field("characters", String(n))
        case .keyboardClose:
            s += "\"keyboardClose\""
        case .shortcut(let chord):
            s += "\"shortcut\""; text("key", chord.key)
            field("modifiers", "[" + chord.modifiers.map { jsonString($0.rawValue) }.joined(separator: ",") + "]")
        case let .learnWord(word, after):
            s += "\"learnWord\""; text("word", word); optionalText("after", after)
        }
        return s + "}"
    }

    /// Coordinates to 3 decimals, always with a decimal point ("100.0", "187.5").
    public static func number(_ v: Double) -> String {
        let r = (v * 1000).rounded() / 1000
        if r == r.rounded() && abs(r) < 1e15 { return "\(Int64(r)).0" }
        return "\(r)"
    }

    static func pair(_ p: Point) -> String { "[\(number(p.x)),\(number(p.y))]" }
    static func rect(_ r: Rect) -> String { "[\(number(r.x)),\(number(r.y)),\(number(r.width)),\(number(r.height))]" }
}

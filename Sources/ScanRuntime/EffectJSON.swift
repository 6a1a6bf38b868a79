import ScanCore
import ScanFormats
import JSONTape

/// Effects as JSON lines: `{"t":1.000,"effect":"highlight",…}`, keys in a fixed
/// order so that output can be compared byte for byte.
///
/// One encoder follows one stream of effects, since what a line may say depends on the
/// screen shown: on a secret screen (the keyboard over a password, a terminal or an unknown
/// focus) no element is named, no key's label or place is given, and the text typed is
/// bullets. The person sees and hears every key as usual (the overlay, speech); only what
/// leaves the screen is neutral.
public struct EffectJSON {
    /// The screen shown is secret.
    public private(set) var secret = false
    /// The keyboard's keys as last printed: a report that prints the same (Shift chosen in
    /// a secret keyboard, whose letters print in one case) is not printed again.
    private var keyboardPrinted: String?
    /// The neutral name of whatever is chosen on a secret screen, and its label.
    static let secretID = "key", secretLabel = "•"

    public init() {}

    /// The lines of `effects`, each ended by a newline.
    public mutating func lines(_ effects: [TimedEffect], origin: ScanInstant = .zero) -> String {
        var text = ""
        for e in effects { if let l = line(e, origin: origin) { text += l; text += "\n" } }
        return text
    }

    /// `origin` is subtracted from the time (a live run counts from its start). nil for the
    /// screen shown (a front end reading JSON has the layout, or `switchscan snapshot` of
    /// the window, and the highlights name its elements) and for the host's notices (on
    /// stderr).
    public mutating func line(_ e: TimedEffect, origin: ScanInstant = .zero) -> String? {
        var s = "{\"t\":\(ScanInstant(nanoseconds: e.time.nanoseconds - origin.nanoseconds).millisecondsText),\"effect\":"
        func field(_ key: String, _ raw: String) { s += ",\"\(key)\":\(raw)" }
        func text(_ key: String, _ v: String) { field(key, jsonString(v)) }
        func optionalText(_ key: String, _ v: String?) { field(key, v.map(jsonString) ?? "null") }
        let secret = self.secret
        let number = Self.number, pair = Self.pair, rect = Self.rect
        /// An element's id, or on a secret screen the neutral one.
        func id(_ v: String) -> String { secret ? Self.secretID : v }
        switch e.effect {
        case .screen(let shown):
            self.secret = shown.tree.isSecret
            return nil
        case .notice:
            return nil
        case .scanStarted:
            s += "\"scanStarted\""
        case .scanStopped(let reason):
            s += "\"scanStopped\""; text("reason", reason.rawValue)
        case let .highlight(_, kind, _, label, _, _) where secret && kind != .menuEntry:
            // Which key, row or block is lit would spell what is typed.
            s += "\"highlight\""
            text("item", Self.secretID); text("kind", kind.rawValue)
            if label != nil { text("label", Self.secretLabel) }
            field("secret", "true")
        case let .highlight(item, kind, frame, label, context, outline):
            s += "\"highlight\""
            text("item", item); text("kind", kind.rawValue)
            switch kind {
            case .exit: if let context { text("group", context) }
            case .menuEntry: if let context { text("element", id(context)) }
            default: break
            }
            if let frame { field("frame", rect(frame)) }
            if let outline { field("outline", "[" + outline.map(rect).joined(separator: ",") + "]") }
            if let label { text("label", label) }
        case .enterGroup(let g):
            s += "\"enterGroup\""; text("group", id(g))
        case .exitGroup(let g):
            s += "\"exitGroup\""; text("group", id(g))
        case let .menuOpen(element, entries, titles):
            s += "\"menuOpen\""; optionalText("element", element.map(id))
            field("entries", "[" + entries.map(jsonString).joined(separator: ",") + "]")
            field("titles", "[" + titles.map(jsonString).joined(separator: ",") + "]")
        case .menuClose(let element):
            s += "\"menuClose\""; optionalText("element", element.map(id))
        case .activate where secret:
            s += "\"activate\""; text("element", Self.secretID); field("secret", "true")
        case let .activate(element, point, target):
            s += "\"activate\""; text("element", element); field("point", pair(point)); optionalText("target", target)
        case let .customAction(element, action, succeeded):
            s += "\"customAction\""; text("element", id(element)); text("action", action)
            if !succeeded { field("failed", "true") }
        case let .adjust(element, direction, value):
            s += "\"adjust\""; text("element", id(element)); text("direction", direction.rawValue); text("value", secret ? Self.secretLabel : value)
        case .modeChanged(let mode):
            s += "\"modeChanged\""; text("mode", mode.rawValue)
        case .sweep(let sw) where secret:
            // Where a line stopped is where the key is.
            s += "\"sweep\""; text("axis", sw.axis.rawValue); text("phase", sw.phase.rawValue); field("secret", "true")
        case .sweep(let sw):
            s += "\"sweep\""; text("axis", sw.axis.rawValue); text("phase", sw.phase.rawValue)
            field("from", number(sw.lo)); field("speed", number(sw.speed))
            field("bounds", "[\(number(sw.lo)),\(number(sw.hi + sw.width))]")
            if sw.phase == .band { field("width", number(sw.width)) }
            field("passes", String(sw.passes))
        case .pointSelected where secret:
            // A point on the keyboard is a key.
            s += "\"pointSelected\""; field("secret", "true")
        case .tap where secret:
            s += "\"tap\""; field("secret", "true")
        case .gesture(let g, _, _, _) where secret:
            s += "\"gesture\""; text("gesture", g.rawValue); field("secret", "true")
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
        case let .window(command, window, title, chosen):
            s += "\"window\""; text("action", command.rawValue); text("window", window); text("title", title)
            if !chosen { field("automatic", "true") }
        case let .emit(name, element, data):
            s += "\"emit\""; text("name", name); text("element", element)
            if let data { field("data", data) }
        case .keyboard(let keys):
            s += "\"keyboard\""
            // The keys are the keyboard's, known to all, but a secret keyboard's labels as it
            // gives them for streams (they come before its screen, so they carry it).
            let printed = "[" + keys.map {
                "{\"id\":\(jsonString($0.id)),\"label\":\(jsonString($0.streamLabel ?? $0.label)),\"frame\":\(rect($0.frame))"
                    + ($0.heldInStream ? ",\"held\":true}" : "}")
            }.joined(separator: ",") + "]"
            guard printed != keyboardPrinted else { return nil }
            keyboardPrinted = printed
            field("keys", printed)
        case let .typeText(t, secret):
            s += "\"typeText\""
            if secret { text("text", String(repeating: Self.secretLabel, count: t.count)); field("secret", "true") } else { text("text", t) }
        case .deleteText(let n):
            s += "\"deleteText\""; field("characters", String(n))
        case .keyboardClose:
            keyboardPrinted = nil
            s += "\"keyboardClose\""
        case .shortcut where secret:
            s += "\"shortcut\""; field("secret", "true")
        case .shortcut(let chord):
            s += "\"shortcut\""; text("key", chord.key)
            field("modifiers", "[" + chord.modifiers.map { jsonString($0.rawValue) }.joined(separator: ",") + "]")
        case let .learnWord(word, after):
            s += "\"learnWord\""; text("word", word); optionalText("after", after)
        case let .speak(words, voice, from):
            s += "\"speak\""; text("text", words); text("voice", voice.rawValue); text("from", from.rawValue)
        case .attention:
            s += "\"attention\""
        case .labelCut:
            s += "\"labelCut\""
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

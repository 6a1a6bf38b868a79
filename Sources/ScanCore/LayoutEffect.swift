/// Declarative handlers carried by layout files (schema v1 "Effect"), so that a layout is
/// executable headlessly: what a tap, an action or an adjustment does to the screen.
public enum LayoutEffect: Hashable, Sendable {
    /// An event for the host application.
    case emit(name: String, data: String?)
    /// Sets fields of a node. Values stay typed so the engine can apply them without parsing.
    case set(id: String, changes: [FieldChange])
    /// Cycles a text field through `values` (wrapping); outside the list it starts at values[0].
    case toggle(id: String, field: TextField, values: [String])
    case post(Notification)
    case loadScreen(String)
    /// A key for the focused application, as the Keys page sends it (the live desktop's
    /// Close entry of a menu scanned alone: Escape).
    case key(SpecialKey)
    /// `{"result": false}` makes the handler report failure.
    case result(Bool)

    public enum TextField: String, Sendable, CaseIterable { case label, value, hint }

    public enum FieldChange: Hashable, Sendable {
        case label(String), value(String), hint(String)
        case traits(TraitSet)
        case hidden(Bool), elementsHidden(Bool), viewIsModal(Bool), visible(Bool)
        case frame(Rect), activationPoint(Point)
    }

    public enum Notification: Hashable, Sendable {
        case announcement(String)
        case layoutChanged(Argument)
        case screenChanged(Argument)
        case pageScrolled(String)

        public enum Argument: Hashable, Sendable { case none, text(String), element(String) }
    }
}

public struct CustomAction: Hashable, Sendable {
    public var name: String
    public var effects: [LayoutEffect]
    public init(name: String, effects: [LayoutEffect] = []) { self.name = name; self.effects = effects }
}

/// An adjustable element's value: a numeric range or a list. Moves are clamped, never wrap.
public struct Adjustable: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case numeric(min: Double, max: Double, step: Double, decimals: Int, format: String)
        case list([String])
    }
    public var kind: Kind
    /// Numeric: the value. List: the index.
    public var current: Double
    public var onChange: [LayoutEffect]

    public init(kind: Kind, current: Double, onChange: [LayoutEffect] = []) {
        self.kind = kind; self.current = current; self.onChange = onChange
    }

    /// Moves one step, or a page (a tenth of the range, at least a step) with `page`;
    /// clamped to the range, nil at a bound (nothing changes there).
    public func moved(by direction: Int, page: Bool = false) -> Adjustable? {
        var next = self
        switch kind {
        case let .numeric(lo, hi, step, decimals, _):
            // Round to the displayed precision so repeated float steps cannot drift past a bound.
            let size = page ? Swift.max(step, (hi - lo) / 10) : step
            var v = current + Double(direction) * size
            let scale = pow10(max(decimals, 6))
            v = (v * scale).rounded() / scale
            v = Swift.min(hi, Swift.max(lo, v))
            if v == current { return nil }
            next.current = v
        case let .list(values):
            let size = page ? Swift.max(1, values.count / 10) : 1
            let i = Swift.min(values.count - 1, Swift.max(0, Int(current) + direction * size))
            if i == Int(current) || values.isEmpty { return nil }
            next.current = Double(i)
        }
        return next
    }

    public var displayValue: String {
        switch kind {
        case let .numeric(_, _, _, decimals, format):
            return format.replacingFirst("{value}", with: formatFixed(current, decimals: decimals))
        case let .list(values):
            let i = Int(current)
            return values.indices.contains(i) ? values[i] : ""
        }
    }
}

private func pow10(_ n: Int) -> Double {
    var r = 1.0
    for _ in 0..<n { r *= 10 }
    return r
}

/// Fixed-point formatting without Foundation (ScanCore stays pure).
public func formatFixed(_ value: Double, decimals: Int) -> String {
    // Past 10^15 a double has no fraction digits to show, and Int64 would overflow.
    guard value.isFinite, abs(value) < 1e15 else { return "\(value)" }
    let d = Swift.max(0, Swift.min(decimals, 9))
    let scale = pow10(d)
    let scaled = (abs(value) * scale).rounded()
    let negative = value < 0 && scaled != 0
    let whole = Int64(scaled / scale)
    var fracPart = Int64(scaled - Double(whole) * scale)
    if fracPart < 0 { fracPart = 0 }
    var text = "\(negative ? "-" : "")\(whole)"
    if d > 0 {
        var f = String(fracPart)
        while f.count < d { f = "0" + f }
        text += "." + f
    }
    return text
}

extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        let chars = Array(self), t = Array(target)
        guard chars.count >= t.count else { return self }
        for i in 0...(chars.count - t.count) where Array(chars[i..<(i + t.count)]) == t {
            return String(chars[..<i]) + replacement + String(chars[(i + t.count)...])
        }
        return self
    }
}

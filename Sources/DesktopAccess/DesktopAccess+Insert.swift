#if canImport(Glibc)
import Glibc
#endif
import CAtspi
import ScanCore
import ScanHost

/// Keys sent to the focused application, as the field should see them.
public enum SentKeys: Sendable, Equatable {
    /// Characters typed as keys.
    case typed(String)
    /// Backspaces.
    case deleted(Int)
    /// Keys whose effect on the text cannot be told (Enter, arrows, Tab, shortcuts).
    case other
}

/// What became of text offered to `insertIntoField`.
public enum FieldInsert: Sendable, Equatable {
    /// It is in the field at the caret, read back, and the caret is after it.
    case inserted
    /// Nothing was inserted: it is to be typed as keys.
    case useKeys
    /// The field changed, but not into the text inserted, or could not be read back: it is
    /// not typed again (it may be there).
    case unconfirmed
}

/// What the keyboard knows of the field it types into (AT-SPI thread only).
struct FieldTyping {
    /// Text may be inserted through EditableText: a GTK 3 or Qt 5.15+ editable field that is
    /// not a password or a terminal. Cleared when an insert is not confirmed.
    var insertable = false
    /// The text before the caret once the keys sent since the last insert have arrived;
    /// nil where that cannot be told.
    var expected: String?
    /// Keys were sent since the last insert.
    var keysInFlight = false
    var lastKeyAt = ScanInstant.zero

    init() {}

    /// Read when the field begins to be followed.
    init(field: AccessibleRef?) {
        guard let field else { return }
        insertable = Self.insertable(field)
        expected = Atspi.fieldState(field).flatMap { $0.selected ? nil : Atspi.textBeforeCaret(field) }
    }

    static func insertable(_ field: AccessibleRef) -> Bool {
        guard let role = try? Atspi.role(field), !RoleMapping.isSecretEntry(role),
              Atspi.states(field).has(ATSPI_STATE_EDITABLE), Atspi.hasInterface(field, .editableText),
              let app = Atspi.application(field) else { return false }
        return insertWorks(toolkit: Atspi.toolkit(app), version: Atspi.toolkitVersion(app))
    }

    /// The toolkits whose EditableText insert puts the text at the caret as typing would:
    /// GTK 3, and Qt from 5.15. Others claim the interface and ignore it or do something
    /// else (Firefox, LibreOffice, terminals), or offer it only in part (GTK 4): keys there.
    static func insertWorks(toolkit: String, version: String) -> Bool {
        let parts = version.split(separator: ".").map { Int($0) ?? -1 }
        let major = parts.first ?? -1, minor = parts.count > 1 ? parts[1] : -1
        switch toolkit.lowercased() {
        case "gtk": return major == 3
        case "qt": return major > 5 || (major == 5 && minor >= 15)
        default: return false
        }
    }

    /// The text read before the caret is the text expected there (a long one is read up to
    /// a limit: then their ends are compared).
    static func same(_ read: String, _ expected: String) -> Bool {
        if read.unicodeScalars.count < Atspi.textBeforeCaretLimit { return read == expected }
        return read.suffix(256) == expected.suffix(256)
    }

    /// Whether the keys sent have arrived, by a field read `now` (twice, the same) with the
    /// text before its caret, and the read before it: the text is what they make of it, or,
    /// where that cannot be told, the field has stayed the same from 100 ms after the last.
    func keysArrived(_ now: FieldState, textBeforeCaret: String?, previous: FieldState?, at time: ScanInstant) -> Bool {
        guard keysInFlight else { return true }
        if let expected, !now.selected, let textBeforeCaret, Self.same(textBeforeCaret, expected) { return true }
        return time >= lastKeyAt + .milliseconds(100) && previous == now
    }

    /// What an insert did, by the field before and after it (nil: it could not be read) and
    /// its text read back where the insert should be. The application's answer to the call is
    /// not trusted: some say yes and insert nothing.
    static func outcome(of text: String, before: FieldState, after: FieldState?, readBack: String?) -> FieldInsert {
        guard let after else { return .unconfirmed }
        if after.count == before.count + text.unicodeScalars.count && readBack == text { return .inserted }
        return after.count == before.count ? .useKeys : .unconfirmed
    }

    /// Keys sent at `at`: what the text before the caret becomes once they have arrived.
    mutating func note(_ keys: SentKeys, at: ScanInstant) {
        keysInFlight = true
        lastKeyAt = at
        switch keys {
        case .typed(let text): expected? += text
        case .deleted(let n):
            // Beyond the text known (it is read up to a limit), what is deleted is unknown.
            if let e = expected { expected = n <= e.count || e.unicodeScalars.count < Atspi.textBeforeCaretLimit ? String(e.dropLast(n)) : nil }
        case .other: expected = nil
        }
    }
}

extension DesktopAccess {
    /// Keys were sent to the focused application. Called on the keys' queue, in the order
    /// they were sent, with `insertIntoField`.
    public func keysSent(_ keys: SentKeys) {
        let at = MonotonicClock.now()
        thread.async { [self] in
            fieldTyping.note(keys, at: at)
            checkTypingTarget()
        }
    }

    /// Inserts `text` at the caret of the field followed (`followField`) through AT-SPI
    /// EditableText, where its toolkit does that well, once every key sent before it has
    /// arrived: an insert travels over D-Bus and the keys through the display server, so
    /// without that wait a letter could land before the Backspace chosen before it.
    /// Returns whether to type it as keys instead. Called on the keys' queue; waits at most
    /// a quarter of a second, then the text goes as keys, in order behind them.
    public func insertIntoField(_ text: String) -> FieldInsert {
        // A password, a terminal, another toolkit: keys, without waiting for the AT-SPI thread.
        guard fieldInsertable.get() else { return .useKeys }
        let deadline = MonotonicClock.now() + .milliseconds(250)
        var previous: FieldState?
        while true {
            // After `stop`, keys.
            guard let step = try? thread.sync({ [self] in insertStep(text, previous: previous) }) else { return .useKeys }
            switch step {
            case .done(let result): return result
            case .waiting(let read): previous = read
            }
            if MonotonicClock.now() > deadline { return .useKeys }
            usleep(2_000)
        }
    }

    enum InsertStep { case done(FieldInsert), waiting(FieldState) }

    /// One look at the field: the keys sent before have arrived (FieldTyping.keysArrived), and
    /// the text is inserted; or not yet.
    private func insertStep(_ text: String, previous: FieldState?) -> InsertStep {
        thread.preconditionOnThread()
        guard fieldTyping.insertable, let id = fieldID, let field = fieldObject(id),
              let now = Atspi.fieldState(field) else { return .done(.useKeys) }
        if fieldTyping.keysInFlight {
            // Each read is a call of its own: a key landing between them shows as a change.
            let text = fieldTyping.expected == nil ? nil : Atspi.textBeforeCaret(field)
            guard Atspi.fieldState(field) == now else { return .waiting(now) }
            if !fieldTyping.keysArrived(now, textBeforeCaret: text, previous: previous, at: MonotonicClock.now()) { return .waiting(now) }
        }
        // Typing replaces a selection; an insert would not.
        if now.selected { return .done(.useKeys) }
        return .done(insert(text, into: field, at: now))
    }

    /// The insert, confirmed by reading the field back. Once one is not, the field gets keys.
    private func insert(_ text: String, into field: AccessibleRef, at before: FieldState) -> FieldInsert {
        let n = text.unicodeScalars.count
        _ = try? Atspi.insertText(field, at: before.caret, text)
        let after = Atspi.fieldState(field)
        let result = FieldTyping.outcome(of: text, before: before, after: after,
                                         readBack: after == nil ? nil : Atspi.text(field, from: before.caret, to: before.caret + n))
        guard result == .inserted, let after else {
            fieldTyping.insertable = false
            return result
        }
        // Typing leaves the caret after the text; so must the insert (Qt may leave it).
        if after.caret != before.caret + n { _ = Atspi.setCaret(field, before.caret + n) }
        fieldTyping.keysInFlight = false
        fieldTyping.expected = Atspi.textBeforeCaret(field)
        return .inserted
    }
}

extension DesktopAccess {
    /// The whole text of the field followed (up to 10 000 characters); nil without one.
    /// Nil after `stop` too.
    public func fieldText() -> String? {
        (try? thread.sync { [self] in fieldID.flatMap { fieldObject($0) }.flatMap { Atspi.text($0, limit: 10_000) } }) ?? nil
    }
}


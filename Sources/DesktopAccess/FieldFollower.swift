import ScanCore

/// The field the scanning keyboard types into, followed: when its text is read, and when it
/// counts as left (the keyboard then closes, so that it never types, unseen, into whatever
/// has the focus now). Pure: the AT-SPI thread hands it what happened, answers what it asks
/// (only when that decides), and carries out what it returns.
struct FieldFollower: Equatable {
    enum Action: Equatable {
        /// Read the field's text before the caret once `readDelay` has passed: a burst of
        /// text events (a word typed) is read once.
        case readLater
        /// The field was left: the keyboard typing into it closes.
        case left
    }

    static let readDelay = ScanDuration.milliseconds(5)

    /// The field's element id; nil while none is followed.
    private(set) var field: String?
    private(set) var readPending = false

    /// The keyboard types into `id` now (nil: none); its text is read at once.
    mutating func follow(_ id: String?) -> [Action] {
        field = id
        return id != nil ? scheduleRead() : []
    }

    /// A text or caret event from the element `id`.
    mutating func textChanged(_ id: String) -> [Action] {
        id == field ? scheduleRead() : []
    }

    /// The read asked for is due: the field to read, if one is still followed.
    mutating func readDue() -> String? {
        readPending = false
        return field
    }

    /// Another element of the window scanned changed its focus state: once it has the focus
    /// (`focused`, asked only then) the field is left.
    mutating func focusChanged(on id: String, focused: () -> Bool) -> [Action] {
        guard let f = field, id != f, focused() else { return [] }
        return leave()
    }

    /// What is scanned was read again. A field no longer in it (another window or dialog took
    /// the focus, a page was replaced) is left, unless it still has the focus (`focused`,
    /// asked only then; nil when the application said nothing, which is no answer): a field
    /// whose window shows a list of suggestions keeps the focus, and its keyboard.
    mutating func shown(containing: (String) -> Bool, focused: () -> Bool?) -> [Action] {
        guard let f = field, !containing(f), focused() == false else { return [] }
        return leave()
    }

    /// Left for a reason of the host's (its application stopped answering, then answered):
    /// the keyboard closes, a keyboard typing into the window with no field followed too.
    mutating func leave() -> [Action] {
        field = nil
        return [.left]
    }

    /// Forgotten without a word (the connection stops).
    mutating func forget() { field = nil }

    private mutating func scheduleRead() -> [Action] {
        guard !readPending else { return [] }
        readPending = true
        return [.readLater]
    }
}

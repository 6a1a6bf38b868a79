import CAtspi

/// One small Swift function per libatspi call used, each freeing what the call returns.
/// All of them run on the AtspiThread only.

/// A call that failed, with the GError's domain and code as libatspi gave them, and what
/// that means: the application did not answer in time, is gone, or the call failed while
/// it answers.
struct AtspiCallError: Error, CustomStringConvertible {
    enum Kind: Equatable { case timeout, gone, failed }

    var kind: Kind
    /// The GError's domain (`atspi_error` for libatspi's own) and code; for a batch of raw
    /// D-Bus requests, `dbus` and 0.
    var domain: String
    var code: Int32
    var message: String
    /// Of a read that stopped partway: of how many elements' frames, how many were read.
    var progress: (read: Int, of: Int)?
    /// A timeout of an earlier call: libatspi refused this one without sending it.
    var notSent = false

    /// The application did not answer in time (stopped, hung, busy).
    var isTimeout: Bool { kind == .timeout }

    var description: String {
        guard kind == .timeout else { return message }
        if let progress {
            return "the frames of \(progress.read) of \(progress.of) elements read before it did not answer for \(Atspi.callTimeoutMilliseconds) ms"
        }
        return "it did not answer within \(Atspi.callTimeoutMilliseconds) ms (\(message))"
    }

    /// An application passed over for a while because it did not answer in time.
    static let notAnswering = AtspiCallError(kind: .timeout, domain: "dbus", code: 0, message: "it did not answer in time")

    /// The classification of a D-Bus error name.
    static func kind(ofDBusError name: String) -> Kind {
        switch name {
        case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout", "org.freedesktop.DBus.Error.TimedOut":
            return .timeout
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
             "org.freedesktop.DBus.Error.Disconnected", "org.freedesktop.DBus.Error.NoServer":
            return .gone
        default:
            return .failed
        }
    }
}

/// An owned reference to an accessible object (g_object_unref on release).
final class AccessibleRef: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<AtspiAccessible>

    /// Takes over a reference the caller owns (libatspi's getters return new references).
    init(owning pointer: UnsafeMutablePointer<AtspiAccessible>) { self.pointer = pointer }

    /// Adds a reference of its own.
    init(retaining pointer: UnsafeMutablePointer<AtspiAccessible>) {
        g_object_ref(pointer)
        self.pointer = pointer
    }

    deinit { g_object_unref(pointer) }

    /// Application bus name and object path: stable for the life of the widget.
    var busName: String { String(cString: catspi_bus_name(pointer)) }
    var path: String { String(cString: catspi_path(pointer)) }
}

enum Atspi {
    /// Per-call timeout: an application that does not answer costs at most this much, once
    /// (its walk is then abandoned). libatspi's default is 800 ms, and 15 s for new apps.
    static let callTimeoutMilliseconds: Int32 = 250

    /// Whether the accessibility bus can be reached. `atspi_init` must succeed before any
    /// other libatspi call: after a failed init the next call aborts the process.
    static func setUp() -> Bool {
        let rc = atspi_init()
        guard rc == 0 || rc == 1 else { return false }   // 1: already initialised
        atspi_set_timeout(callTimeoutMilliseconds, 1000)
        return true
    }

    /// What libatspi says, untranslated, of a call it refused because an earlier call to the
    /// same application timed out.
    static let hungMessage = "The process appears to be hung."

    /// How long a failed call's application is given to answer a Ping, which tells a call
    /// that timed out from one that failed while the application answers.
    static let pingMilliseconds: Int32 = 100

    /// Frees the GError, if any, and throws it classified by its domain and code. libatspi
    /// turns every D-Bus error into ATSPI_ERROR_IPC and keeps only its message: the
    /// application of `object` is then asked (Peer.Ping) which it was.
    static func check(_ err: UnsafeMutablePointer<GError>?, _ object: AccessibleRef? = nil) throws(AtspiCallError) {
        guard let err else { return }
        let quark = err.pointee.domain
        let domain = String(cString: g_quark_to_string(quark))
        let code = err.pointee.code
        let message = String(cString: catspi_error_message(err))
        g_error_free(err)
        // libatspi's own refusal (an untranslated literal) of an application one of whose
        // calls timed out and that has not been heard from since: a timeout, even where the
        // application answers a Ping by now, and nothing was sent.
        let refused = quark == catspi_error_domain() && code == Int32(CATSPI_ERROR_IPC) && message == hungMessage
        var kind = AtspiCallError.Kind.failed
        if refused {
            kind = .timeout
        } else if quark == catspi_error_domain() {
            switch code {
            case Int32(CATSPI_ERROR_APPLICATION_GONE): kind = .gone
            case Int32(CATSPI_ERROR_IPC): kind = object.map { probe($0) } ?? .failed
            default: kind = .failed
            }
        }
        var error = AtspiCallError(kind: kind, domain: domain, code: code, message: message)
        error.notSent = refused
        throw error
    }

    /// Whether the application of `a` answers a Ping: `.failed` if it does (the call itself
    /// failed), else what its D-Bus error says.
    static func probe(_ a: AccessibleRef) -> AtspiCallError.Kind {
        var name = [CChar](repeating: 0, count: 96)
        if catspi_ping(a.pointer, pingMilliseconds, &name, Int32(name.count)) != 0 { return .failed }
        return AtspiCallError.kind(ofDBusError: cText(name))
    }

    static func take(_ p: UnsafeMutablePointer<gchar>?) -> String {
        guard let p else { return "" }
        defer { g_free(p) }
        return String(cString: p)
    }

    static func desktop() -> AccessibleRef? {
        atspi_get_desktop(0).map { AccessibleRef(owning: $0) }
    }

    static func childCount(_ a: AccessibleRef) throws(AtspiCallError) -> Int {
        var err: UnsafeMutablePointer<GError>?
        var n = atspi_accessible_get_child_count(a.pointer, &err)
        try check(err, a)
        if n < 0 {
            // libatspi says -1 without an error when the call timed out, and then refuses
            // the application's calls (hungMessage) until it hears from it; also for a reply
            // it could not read. Asked once more, to tell the two apart: not an object
            // without children either way.
            n = atspi_accessible_get_child_count(a.pointer, &err)
            try check(err, a)
            if n < 0 {
                throw AtspiCallError(kind: probe(a), domain: "atspi_error", code: Int32(CATSPI_ERROR_IPC), message: "its child count could not be read")
            }
        }
        return Int(n)
    }

    static func child(_ a: AccessibleRef, _ i: Int) throws(AtspiCallError) -> AccessibleRef? {
        var err: UnsafeMutablePointer<GError>?
        // Owned before the error is looked at, so that nothing returned with one leaks.
        let c = atspi_accessible_get_child_at_index(a.pointer, Int32(i), &err).map { AccessibleRef(owning: $0) }
        try check(err, a)
        return c
    }

    static func parent(_ a: AccessibleRef) throws(AtspiCallError) -> AccessibleRef? {
        var err: UnsafeMutablePointer<GError>?
        let p = atspi_accessible_get_parent(a.pointer, &err).map { AccessibleRef(owning: $0) }
        try check(err, a)
        return p
    }

    /// `count`: the child count when the caller has it already (each read is a call).
    /// Children libatspi has not cached (a window newer than its first look at the
    /// application, a tree view's cells) are asked for together, by index.
    static func children(_ a: AccessibleRef, count: Int? = nil) throws(AtspiCallError) -> [AccessibleRef] {
        let n: Int
        if let count { n = count } else { n = try childCount(a) }
        if Walker.batches, n >= 2, _atspi_accessible_test_cache(a.pointer, ATSPI_CACHE_CHILDREN) == 0,
           let out = try childrenByIndex(a, count: n) {
            return out
        }
        var out: [AccessibleRef] = []
        out.reserveCapacity(n)
        for i in 0..<n { if let c = try child(a, i) { out.append(c) } }
        return out
    }

    /// The `n` children of `a` asked for together, by index; nil when some did not come for
    /// another reason than silence (an error answer, a child gone meanwhile): the caller
    /// then asks one at a time, as libatspi asks, so that errors are classified as
    /// everywhere.
    private static func childrenByIndex(_ a: AccessibleRef, count n: Int) throws(AtspiCallError) -> [AccessibleRef]? {
        var kids = [UnsafeMutablePointer<AtspiAccessible>?](repeating: nil, count: n)
        var b = CatspiBatch()
        catspi_children_batch(a.pointer, Int32(n), Int32(callTimeoutMilliseconds), &kids, &b)
        // Owned from here on, whatever is kept.
        let out = kids.compactMap { $0.map { AccessibleRef(owning: $0) } }
        if out.count == n { return out }
        if b.timed_out != 0 { throw noReply(a) }
        return nil
    }

    /// The application did not answer in time, or is gone.
    private static func noReply(_ a: AccessibleRef) -> AtspiCallError {
        AtspiCallError(kind: probe(a) == .gone ? .gone : .timeout, domain: "dbus", code: 0, message: "org.freedesktop.DBus.Error.NoReply")
    }

    static func name(_ a: AccessibleRef) throws(AtspiCallError) -> String {
        var err: UnsafeMutablePointer<GError>?
        let s = take(atspi_accessible_get_name(a.pointer, &err))
        try check(err, a)
        return s
    }

    static func description(_ a: AccessibleRef) -> String {
        var err: UnsafeMutablePointer<GError>?
        let s = take(atspi_accessible_get_description(a.pointer, &err))
        if err != nil { g_error_free(err); return "" }
        return s
    }

    static func role(_ a: AccessibleRef) throws(AtspiCallError) -> AtspiRole {
        var err: UnsafeMutablePointer<GError>?
        let r = atspi_accessible_get_role(a.pointer, &err)
        try check(err, a)
        return r
    }

    /// A role's name ("push button"), without a call.
    static func roleName(of role: AtspiRole) -> String {
        take(atspi_role_get_name(role))
    }

    static func roleName(_ a: AccessibleRef) -> String {
        var err: UnsafeMutablePointer<GError>?
        let s = take(atspi_accessible_get_role_name(a.pointer, &err))
        if err != nil { g_error_free(err); return "" }
        return s
    }

    static func localizedRoleName(_ a: AccessibleRef) -> String {
        var err: UnsafeMutablePointer<GError>?
        let s = take(atspi_accessible_get_localized_role_name(a.pointer, &err))
        if err != nil { g_error_free(err); return "" }
        return s
    }

    static func states(_ a: AccessibleRef) -> StateBits {
        guard let set = atspi_accessible_get_state_set(a.pointer) else { return StateBits(raw: 0) }
        defer { g_object_unref(set) }
        return StateBits(raw: UInt64(bitPattern: Int64(catspi_state_bits(set))))
    }

    /// The states as the application says them now, not as libatspi last cached them: an
    /// object of a page that was replaced keeps its cached `focused` for ever.
    static func freshStates(_ a: AccessibleRef) -> StateBits {
        atspi_accessible_clear_cache(a.pointer)
        return states(a)
    }

    /// The states of an object that always has some (a window): libatspi says nothing when
    /// it could not read them: an empty set is an error, classified by `probe`.
    static func nonEmptyStates(_ a: AccessibleRef) throws(AtspiCallError) -> StateBits {
        let s = states(a)
        guard s.raw == 0 else { return s }
        throw AtspiCallError(kind: probe(a), domain: "atspi_error", code: Int32(CATSPI_ERROR_IPC), message: "its states could not be read")
    }

    /// Screen extents, or nil where the object has none or they are the "not placed"
    /// marker (INT_MIN) of hidden and unrealised widgets.
    static func extents(_ a: AccessibleRef) throws(AtspiCallError) -> (x: Double, y: Double, width: Double, height: Double)? {
        guard let c = atspi_accessible_get_component_iface(a.pointer) else { return nil }
        defer { g_object_unref(c) }
        var err: UnsafeMutablePointer<GError>?
        // libatspi returns a rectangle (of -1s) even when the call fails: it is freed either way.
        let r = atspi_component_get_extents(c, ATSPI_COORD_TYPE_SCREEN, &err)
        defer { if let r { g_free(r) } }
        try check(err, a)
        guard let r else { return nil }
        let e = r.pointee
        guard e.x > Int32.min / 2, e.y > Int32.min / 2, e.width >= 0, e.height >= 0 else { return nil }
        return (Double(e.x), Double(e.y), Double(e.width), Double(e.height))
    }

    /// The AT-SPI interfaces the scanner asks about.
    enum Interface { case action, value, hyperlink, editableText }

    /// Whether the object offers `iface`: one question, which libatspi answers from its cache
    /// when it holds the object's interfaces, else with one GetInterfaces call.
    /// (`atspi_accessible_get_interfaces` asks it once per interface libatspi knows, 13 round
    /// trips for an object it does not cache.)
    static func hasInterface(_ a: AccessibleRef, _ iface: Interface) -> Bool {
        switch iface {
        case .action: atspi_accessible_is_action(a.pointer) != 0
        case .value: atspi_accessible_is_value(a.pointer) != 0
        case .hyperlink: atspi_accessible_is_hyperlink(a.pointer) != 0
        case .editableText: atspi_accessible_is_editable_text(a.pointer) != 0
        }
    }

    static func actionNames(_ a: AccessibleRef) throws(AtspiCallError) -> [String] {
        guard let act = atspi_accessible_get_action_iface(a.pointer) else { return [] }
        defer { g_object_unref(act) }
        var err: UnsafeMutablePointer<GError>?
        let n = atspi_action_get_n_actions(act, &err)
        try check(err, a)
        var names: [String] = []
        for i in 0..<max(0, n) {
            let s = take(atspi_action_get_action_name(act, i, &err))
            try check(err, a)
            names.append(s)
        }
        return names
    }

    static func doAction(_ a: AccessibleRef, _ index: Int) throws(AtspiCallError) -> Bool {
        guard let act = atspi_accessible_get_action_iface(a.pointer) else { return false }
        defer { g_object_unref(act) }
        var err: UnsafeMutablePointer<GError>?
        let ok = atspi_action_do_action(act, Int32(index), &err)
        try check(err, a)
        return ok != 0
    }

    /// DoAction over a connection of its own to the application (`catspi_do_action_alone`):
    /// an action that runs a modal loop (GTK 3's `gtk_dialog_run`) leaves the application
    /// answering nothing more on the connection that carried it until the dialog closes, and
    /// the connection libatspi reads through must not be that one. The connection is handed
    /// to `keep` whenever the action was sent: it must stay open, and silent, until the
    /// application is done with the action (DesktopAccess+Actions). Where no such connection
    /// can be made, libatspi's.
    static func doActionAlone(_ a: AccessibleRef, _ index: Int, keep: (_ connection: OpaquePointer, _ answered: Bool) -> Void) throws(AtspiCallError) -> Bool {
        var done: Int32 = 0
        var name = [CChar](repeating: 0, count: 96)
        var kept: OpaquePointer?
        let sent = catspi_do_action_alone(a.pointer, Int32(index), callTimeoutMilliseconds, &done, &name, Int32(name.count), &kept)
        if let kept {
            let error = cText(name)
            keep(kept, sent == 1 || !(error == "org.freedesktop.DBus.Error.NoReply" || error == "org.freedesktop.DBus.Error.Timeout"))
        }
        switch sent {
        case 1:
            return done != 0
        case 0:
            let error = cText(name)
            throw AtspiCallError(kind: AtspiCallError.kind(ofDBusError: error), domain: "dbus", code: 0,
                                 message: error.isEmpty ? "the action could not be sent" : error)
        default:
            return try doAction(a, index)
        }
    }

    /// Whether `a`'s application shows a modal window, asked live (`catspi_app_shows_modal`).
    enum Modal { case shown, none, noAnswer, gone }
    static func showsModal(_ a: AccessibleRef, timeoutMilliseconds: Int32 = callTimeoutMilliseconds) -> Modal {
        switch catspi_app_shows_modal(a.pointer, timeoutMilliseconds) {
        case 1: return .shown
        case 0: return .none
        case -2: return .gone
        default: return .noAnswer
        }
    }

    struct ValueRange { var min: Double; var max: Double; var current: Double; var step: Double }

    static func value(_ a: AccessibleRef) throws(AtspiCallError) -> ValueRange? {
        guard let v = atspi_accessible_get_value_iface(a.pointer) else { return nil }
        defer { g_object_unref(v) }
        var err: UnsafeMutablePointer<GError>?
        let lo = atspi_value_get_minimum_value(v, &err); try check(err, a)
        let hi = atspi_value_get_maximum_value(v, &err); try check(err, a)
        let cur = atspi_value_get_current_value(v, &err); try check(err, a)
        let step = atspi_value_get_minimum_increment(v, &err); try check(err, a)
        return ValueRange(min: lo, max: hi, current: cur, step: step)
    }

    static func currentValue(_ a: AccessibleRef) throws(AtspiCallError) -> Double? {
        guard let v = atspi_accessible_get_value_iface(a.pointer) else { return nil }
        defer { g_object_unref(v) }
        var err: UnsafeMutablePointer<GError>?
        let cur = atspi_value_get_current_value(v, &err)
        try check(err, a)
        return cur
    }

    static func setValue(_ a: AccessibleRef, _ x: Double) throws(AtspiCallError) -> Bool {
        guard let v = atspi_accessible_get_value_iface(a.pointer) else { return false }
        defer { g_object_unref(v) }
        var err: UnsafeMutablePointer<GError>?
        let ok = atspi_value_set_current_value(v, x, &err)
        try check(err, a)
        return ok != 0
    }

    static func grabFocus(_ a: AccessibleRef) throws(AtspiCallError) -> Bool {
        guard let c = atspi_accessible_get_component_iface(a.pointer) else { return false }
        defer { g_object_unref(c) }
        var err: UnsafeMutablePointer<GError>?
        let ok = atspi_component_grab_focus(c, &err)
        try check(err, a)
        return ok != 0
    }

    /// Scrolls whatever scrolls the object (a web page, a pane) until it is in view: with
    /// `top`, at the top-left corner of the view, else wherever the least scrolling puts it.
    static func scrollTo(_ a: AccessibleRef, top: Bool) throws(AtspiCallError) -> Bool {
        guard let c = atspi_accessible_get_component_iface(a.pointer) else { return false }
        defer { g_object_unref(c) }
        var err: UnsafeMutablePointer<GError>?
        let ok = atspi_component_scroll_to(c, top ? ATSPI_SCROLL_TOP_LEFT : ATSPI_SCROLL_ANYWHERE, &err)
        try check(err, a)
        return ok != 0
    }

    /// The text of a Text object (entries), up to `limit` characters.
    static func text(_ a: AccessibleRef, limit: Int32 = 200) -> String? {
        guard let t = atspi_accessible_get_text_iface(a.pointer) else { return nil }
        defer { g_object_unref(t) }
        var err: UnsafeMutablePointer<GError>?
        let n = atspi_text_get_character_count(t, &err)
        if err != nil { g_error_free(err); return nil }
        let s = take(atspi_text_get_text(t, 0, min(n, limit), &err))
        if err != nil { g_error_free(err); return nil }
        return s
    }

    /// The text before the caret (its last `limit` characters); nil without a Text interface.
    static let textBeforeCaretLimit = 512

    static func textBeforeCaret(_ a: AccessibleRef, limit: Int32 = Int32(textBeforeCaretLimit)) -> String? {
        guard let t = atspi_accessible_get_text_iface(a.pointer) else { return nil }
        defer { g_object_unref(t) }
        var err: UnsafeMutablePointer<GError>?
        let caret = atspi_text_get_caret_offset(t, &err)
        if err != nil { g_error_free(err); return nil }
        guard caret > 0 else { return "" }
        let s = take(atspi_text_get_text(t, max(0, caret - limit), caret, &err))
        if err != nil { g_error_free(err); return nil }
        return s
    }

    /// A text field's length and caret, in characters, and whether text is selected.
    static func fieldState(_ a: AccessibleRef) -> FieldState? {
        guard let t = atspi_accessible_get_text_iface(a.pointer) else { return nil }
        defer { g_object_unref(t) }
        var err: UnsafeMutablePointer<GError>?
        let count = atspi_text_get_character_count(t, &err)
        if err != nil { g_error_free(err); return nil }
        let caret = atspi_text_get_caret_offset(t, &err)
        if err != nil { g_error_free(err); return nil }
        let selections = atspi_text_get_n_selections(t, &err)
        if err != nil { g_error_free(err); return nil }
        return FieldState(count: Int(count), caret: Int(caret), selected: selections > 0)
    }

    /// The characters from `start` up to `end`; nil without a Text interface.
    static func text(_ a: AccessibleRef, from start: Int, to end: Int) -> String? {
        guard let t = atspi_accessible_get_text_iface(a.pointer) else { return nil }
        defer { g_object_unref(t) }
        var err: UnsafeMutablePointer<GError>?
        let s = take(atspi_text_get_text(t, Int32(clamping: start), Int32(clamping: end), &err))
        if err != nil { g_error_free(err); return nil }
        return s
    }

    /// Inserts `text` at a character offset through EditableText; the application's answer
    /// (which some give without inserting anything).
    static func insertText(_ a: AccessibleRef, at offset: Int, _ text: String) throws(AtspiCallError) -> Bool {
        guard let e = atspi_accessible_get_editable_text_iface(a.pointer) else { return false }
        defer { g_object_unref(e) }
        var err: UnsafeMutablePointer<GError>?
        // The length is in bytes of UTF-8, as GTK's insert takes it.
        let ok = atspi_editable_text_insert_text(e, Int32(clamping: offset), text, Int32(clamping: text.utf8.count), &err)
        try check(err, a)
        return ok != 0
    }

    static func setCaret(_ a: AccessibleRef, _ offset: Int) -> Bool {
        guard let t = atspi_accessible_get_text_iface(a.pointer) else { return false }
        defer { g_object_unref(t) }
        var err: UnsafeMutablePointer<GError>?
        let ok = atspi_text_set_caret_offset(t, Int32(clamping: offset), &err)
        if err != nil { g_error_free(err); return false }
        return ok != 0
    }

    /// The application an object belongs to.
    static func application(_ a: AccessibleRef) -> AccessibleRef? {
        var err: UnsafeMutablePointer<GError>?
        let app = atspi_accessible_get_application(a.pointer, &err).map { AccessibleRef(owning: $0) }
        if err != nil { g_error_free(err); return nil }
        return app
    }

    /// The objects this one is labelled by.
    static func labelledBy(_ a: AccessibleRef) -> [AccessibleRef] {
        var err: UnsafeMutablePointer<GError>?
        guard let arr = atspi_accessible_get_relation_set(a.pointer, &err) else {
            if err != nil { g_error_free(err) }
            return []
        }
        defer { g_array_free(arr, 1) }
        var targets: [AccessibleRef] = []
        let count = Int(arr.pointee.len)
        arr.pointee.data.withMemoryRebound(to: UnsafeMutablePointer<AtspiRelation>?.self, capacity: count) { p in
            for i in 0..<count {
                guard let rel = p[i] else { continue }
                defer { g_object_unref(rel) }
                guard atspi_relation_get_relation_type(rel) == ATSPI_RELATION_LABELLED_BY else { continue }
                for k in 0..<atspi_relation_get_n_targets(rel) {
                    guard let t = atspi_relation_get_target(rel, k) else { continue }
                    targets.append(AccessibleRef(owning: t))
                }
            }
        }
        return targets
    }

    /// A click of the first button at a screen point, injected by the accessibility
    /// registry (X11 only).
    static func click(x: Double, y: Double) throws(AtspiCallError) {
        var err: UnsafeMutablePointer<GError>?
        _ = atspi_generate_mouse_event(Int(x.rounded()), Int(y.rounded()), "b1c", &err)
        try check(err)
    }

    static func setCacheMask(_ app: AccessibleRef) {
        atspi_accessible_set_cache_mask(app.pointer, ATSPI_CACHE_DEFAULT)
    }

    /// The object's `toolkit` attribute ("gtk" on GTK's widgets); nil without one.
    static func toolkitAttribute(_ a: AccessibleRef) -> String? {
        attributes(a, ["toolkit"])["toolkit"]
    }

    /// The object's attributes of these names that it has (one call for all).
    static func attributes(_ a: AccessibleRef, _ names: [String]) -> [String: String] {
        var err: UnsafeMutablePointer<GError>?
        let table = atspi_accessible_get_attributes(a.pointer, &err)
        if err != nil { g_error_free(err) }
        guard let table else { return [:] }
        defer { g_hash_table_unref(table) }
        var found: [String: String] = [:]
        for name in names {
            let value = name.withCString { key in
                g_hash_table_lookup(table, key).map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
            }
            if let value { found[name] = value }
        }
        return found
    }

    /// The children as the application says they are now, not as its cache has them:
    /// LibreOffice's GTK 3 windows list their own (VCL) tree in the cache, while the window
    /// holds GTK's, with the menu bar that is shown.
    static func liveChildren(_ a: AccessibleRef) throws(AtspiCallError) -> [AccessibleRef] {
        if Walker.batches {
            // The count asked of the application (with the basics, in one round trip), then
            // the children by index: libatspi's cache mask is left as it is.
            var objects: [UnsafeMutablePointer<AtspiAccessible>?] = [a.pointer]
            var states: UInt64 = 0, count: Int32 = 0, role: UInt32 = 0, ok: UInt8 = 0
            var name: UnsafeMutablePointer<CChar>?
            var b = CatspiBatch()
            catspi_basics_batch(&objects, 1, Int32(callTimeoutMilliseconds), &states, &name, &count, &role, &ok, &b)
            free(name)
            if b.timed_out != 0 { throw noReply(a) }
            if ok != 0, let out = try childrenByIndex(a, count: Int(max(0, count))) { return out }
            // Anything else: as libatspi asks, below.
        }
        guard let app = application(a) else { return try children(a) }
        let all = ATSPI_CACHE_DEFAULT.rawValue
        atspi_accessible_set_cache_mask(app.pointer, AtspiCache(rawValue: all & ~ATSPI_CACHE_CHILDREN.rawValue))
        defer { atspi_accessible_set_cache_mask(app.pointer, ATSPI_CACHE_DEFAULT) }
        return try children(a)
    }

    static func processID(_ app: AccessibleRef) -> Int32 {
        var err: UnsafeMutablePointer<GError>?
        let pid = atspi_accessible_get_process_id(app.pointer, &err)
        if err != nil { g_error_free(err); return 0 }
        return Int32(pid)
    }

    static func toolkitVersion(_ app: AccessibleRef) -> String {
        var err: UnsafeMutablePointer<GError>?
        let s = take(atspi_accessible_get_toolkit_version(app.pointer, &err))
        if err != nil { g_error_free(err); return "" }
        return s
    }

    static func toolkit(_ app: AccessibleRef) -> String {
        var err: UnsafeMutablePointer<GError>?
        let s = take(atspi_accessible_get_toolkit_name(app.pointer, &err))
        if err != nil { g_error_free(err); return "" }
        return s
    }
}

/// A text field as AT-SPI reports it: its length and caret in characters, and whether text
/// is selected.
struct FieldState: Equatable, Sendable {
    var count: Int
    var caret: Int
    var selected: Bool
}

/// An object's states, tested bit by bit.
struct StateBits: Equatable, Sendable {
    var raw: UInt64
    func has(_ s: AtspiStateType) -> Bool { raw & (1 << UInt64(s.rawValue)) != 0 }
}

/// The text of a NUL-terminated C buffer that C code filled.
func cText(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

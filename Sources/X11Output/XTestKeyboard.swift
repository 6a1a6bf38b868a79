#if canImport(Glibc)
import Glibc
#endif
import CX11
import ScanCore
import ScanHost

/// Types text into the window that has the keyboard focus, as key events through the
/// XTEST extension: each character's key from the current keymap (with Shift for its
/// second level), and a character the keymap lacks (é on a US layout, €) through a spare
/// keycode mapped to it, as on-screen keyboards do; up to ten such codes are kept for the
/// characters typed again and given back by `restoreKeymap`. A run that dies holding them
/// cannot give them back: they are noted in the runtime folder before they are lent
/// (`LentKeysNote`), and the next keyboard made on that display gives back those that
/// still hold what they were given. Enter and Backspace are always keys. Its own
/// connection, behind a lock: callable from any thread.
///
/// A text with more than ten characters the keymap lacks reuses the oldest spare code while
/// the application may not have read the key it typed before: such a text is typed in
/// pieces by the keyboard (a word at a time), which keeps well within ten.
public final class XTestKeyboard: @unchecked Sendable {
    let x: X11Display
    private let lock = Lock()
    /// Keysyms given spare keycodes, oldest first: a character typed again reuses its key.
    private var lent: [(keysym: KeySym, code: UInt32)] = []
    static let spares = 10
    /// Where the lent codes are noted; nil without a private runtime folder.
    private let note: LentKeysNote?

    public init(display: String? = nil) throws {
        let x = try X11Display(display)
        var event = Int32(0), error = Int32(0), major = Int32(0), minor = Int32(0)
        guard XTestQueryExtension(x.pointer, &event, &error, &major, &minor) != 0 else {
            throw X11Error("X display '\(x.name)' has no XTEST extension, so text cannot be typed. Hint: enable XTEST in the X server, or use the uinput keyboard.")
        }
        self.x = x
        note = LentKeysNote(display: x.name)
        giveBackLeftovers()
    }

    /// Gives back the spare keycodes that runs now gone lent on this display: each one that
    /// still holds the keysym it was given (one changed since is someone else's now).
    private func giveBackLeftovers() {
        guard let note else { return }
        lock.lock()
        defer { lock.unlock() }
        guard !x.isLost else { return }
        let d = x.pointer
        var minCode = Int32(0), maxCode = Int32(0)
        XDisplayKeycodes(d, &minCode, &maxCode)
        var changed = false
        note.takeLeftovers { entries in
            for (code, keysym) in entries where Int(code) >= Int(minCode) && Int(code) <= Int(maxCode) {
                var perCode = Int32(0)
                guard let syms = XGetKeyboardMapping(d, UInt8(code), 1, &perCode) else { continue }
                let holds = perCode >= 2 && syms[0] == keysym && syms[1] == keysym
                XFree(syms)
                guard holds else { continue }
                var none: [KeySym] = [0, 0]
                XChangeKeyboardMapping(d, Int32(code), 2, &none, 1)
                changed = true
            }
            // Given back before the note goes.
            XSync(d, 0)
        }
        if changed { flush() }
    }

    /// The keysym that types a character.
    static func keysym(_ scalar: Unicode.Scalar) -> KeySym { KeySym(Keysyms.value(of: scalar)) }

    /// Types `text`; false (with what could not be typed) when a key could not be sent.
    public func type(_ text: String) -> (ok: Bool, missing: String) {
        lock.lock()
        defer { lock.unlock() }
        guard !x.isLost else { return (false, "") }
        let map = keymap()
        var ok = true, missing = ""
        for scalar in text.unicodeScalars {
            let sym = Self.keysym(scalar)
            if let (code, shifted) = map.codes[sym], !shifted || map.shift != nil {
                ok = tap(code, shift: shifted ? map.shift : nil) && ok
            } else if let code = lend(sym, map) {
                ok = tap(code, shift: nil) && ok
            } else {
                ok = false
                missing.unicodeScalars.append(scalar)
            }
        }
        flush()
        return (ok && !x.isLost, missing)
    }

    /// Presses a key with modifiers held (Ctrl+Left, Ctrl+V): `key` is a keysym name, or
    /// one character. False when the keymap has no such key or the server refused.
    public func press(_ chord: KeyChord) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !x.isLost else { return false }
        let d = x.pointer
        var sym = chord.key.withCString { XStringToKeysym($0) }
        if sym == 0, chord.key.unicodeScalars.count == 1, let u = chord.key.unicodeScalars.first { sym = Self.keysym(u) }
        let map = keymap()
        guard sym != 0, let (code, shifted) = map.codes[sym] ?? lend(sym, map).map({ ($0, false) }) else { return false }
        // The modifiers asked for, and Shift where the key's character is on its second level.
        var modifiers = chord.modifiers
        if shifted && !modifiers.contains(.shift) { modifiers.append(.shift) }
        let held: [UInt32] = modifiers.compactMap { m in
            let name: KeySym = switch m { case .control: 0xffe3; case .alt: 0xffe9; case .shift: 0xffe1 }
            return map.codes[name].flatMap { $0.1 ? nil : $0.0 }
        }
        guard held.count == modifiers.count else { return false }
        var ok = true
        for m in held { ok = XTestFakeKeyEvent(d, m, 1, 0) != 0 && ok }
        ok = XTestFakeKeyEvent(d, code, 1, 0) != 0 && ok
        ok = XTestFakeKeyEvent(d, code, 0, 0) != 0 && ok
        for m in held.reversed() { ok = XTestFakeKeyEvent(d, m, 0, 0) != 0 && ok }
        flush()
        return ok && !x.isLost
    }

    /// Presses Backspace `count` times.
    public func deleteBackward(_ count: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !x.isLost else { return false }
        guard let (code, _) = keymap().codes[KeySym(0xff08)] else { return false }
        var ok = true
        for _ in 0..<max(0, count) { ok = tap(code, shift: nil) && ok }
        flush()
        return ok && !x.isLost
    }

    struct Keymap {
        /// Keysym → its keycode, and whether Shift is needed (the key's second level).
        var codes: [KeySym: (UInt32, Bool)] = [:]
        /// Keycodes with no symbol at all: free to lend, highest first.
        var free: [UInt32] = []
        var shift: UInt32?
    }

    /// The server's keymap now (read for each text: the user may switch layouts).
    private func keymap() -> Keymap {
        let d = x.pointer
        var minCode = Int32(0), maxCode = Int32(0)
        XDisplayKeycodes(d, &minCode, &maxCode)
        var perCode = Int32(0)
        let count = maxCode - minCode + 1
        var map = Keymap()
        guard count > 0, let syms = XGetKeyboardMapping(d, UInt8(minCode), count, &perCode) else { return map }
        defer { XFree(syms) }
        func row(_ code: UInt32) -> [KeySym] {
            let k = Int(code) - Int(minCode)
            return (0..<Int(perCode)).map { syms[k * Int(perCode) + $0] }
        }
        // A lent code still holds its character unless the keymap was changed since (a new
        // layout chosen): then it is the keymap's again.
        self.lent.removeAll { Int($0.code) < Int(minCode) || Int($0.code) > Int(maxCode) || Array(row($0.code).prefix(2)) != [$0.keysym, $0.keysym] }
        let lent = Set(self.lent.map(\.code))
        for k in 0..<Int(count) {
            let code = UInt32(Int(minCode) + k)
            let row = row(code)
            if row.allSatisfy({ $0 == 0 }) || lent.contains(code) {
                if !lent.contains(code) { map.free.append(code) }
                continue
            }
            // Level 1 and 2 of the first group: what plain and shifted presses type.
            for level in 0..<min(2, row.count) where row[level] != 0 && map.codes[row[level]] == nil {
                map.codes[row[level]] = (code, level == 1)
            }
        }
        map.free.reverse()
        if let shift = map.codes[KeySym(0xffe1)] { map.shift = shift.0 }   // Shift_L
        return map
    }

    /// A spare keycode mapped to `sym` (one already lent to it, else a free one, else the
    /// oldest lent), the server synced so the next key event uses it.
    private func lend(_ sym: KeySym, _ map: Keymap) -> UInt32? {
        if let k = lent.firstIndex(where: { $0.keysym == sym }) { return lent[k].code }
        let code: UInt32
        if lent.count < Self.spares, let free = map.free.first {
            code = free
        } else if !lent.isEmpty {
            code = lent.removeFirst().code
        } else {
            return nil
        }
        lent.append((sym, code))
        // Noted before the keymap changes: a crash from here on leaves it noted.
        note?.record(lent, display: x.name)
        var pair = [sym, sym]
        XChangeKeyboardMapping(x.pointer, Int32(code), 2, &pair, 1)
        XSync(x.pointer, 0)
        return code
    }

    /// Gives the spare keycodes back (no symbol again), as they were before typing.
    public func restoreKeymap() {
        lock.lock()
        defer { lock.unlock() }
        // With the connection lost, the note stays for the next run.
        guard !x.isLost else { return }
        if !lent.isEmpty {
            for (_, code) in lent {
                var none: [KeySym] = [0, 0]
                XChangeKeyboardMapping(x.pointer, Int32(code), 2, &none, 1)
            }
            lent = []
            XSync(x.pointer, 0)
        }
        note?.remove()
    }

    private func tap(_ code: UInt32, shift: UInt32?) -> Bool {
        let d = x.pointer
        var ok = true
        if let shift { ok = XTestFakeKeyEvent(d, shift, 1, 0) != 0 }
        ok = XTestFakeKeyEvent(d, code, 1, 0) != 0 && ok
        ok = XTestFakeKeyEvent(d, code, 0, 0) != 0 && ok
        if let shift { ok = XTestFakeKeyEvent(d, shift, 0, 0) != 0 && ok }
        return ok
    }

    /// XPending flushes, then drops what the server sent unasked.
    private func flush() {
        var event = XEvent()
        while !x.isLost, XPending(x.pointer) > 0 { XNextEvent(x.pointer, &event) }
    }
}

import DesktopAccess
import Dispatch
import ScanCore
import ScanHost
import ScanRuntime
import SwitchInput
import X11Output

/// Clicks at screen points, however they are made.
protocol PointerClicker: AnyObject, Sendable {
    func click(at p: Point) -> Bool
    /// A gesture of the Gestures page at `p` (a drag to `to`).
    func perform(_ g: Gesture, at p: Point, to: Point?) -> Bool
    var summary: String { get }
}

final class XTestClicker: PointerClicker, @unchecked Sendable {
    let pointer: XTestPointer
    init(_ pointer: XTestPointer) { self.pointer = pointer }
    func click(at p: Point) -> Bool { pointer.click(at: p) }
    func perform(_ g: Gesture, at p: Point, to: Point?) -> Bool { pointer.perform(g, at: p, to: to) }
    var summary: String { "xtest" }
}

final class UinputClicker: PointerClicker, @unchecked Sendable {
    let pointer: UinputPointer
    init(_ pointer: UinputPointer) { self.pointer = pointer }
    func click(at p: Point) -> Bool { pointer.click(at: p) }
    func perform(_ g: Gesture, at p: Point, to: Point?) -> Bool { pointer.perform(g, at: p, to: to) }
    var summary: String { "uinput (\(pointer.node ?? "no node")), \(pointer.width)x\(pointer.height)" }
}

/// Keys and text for the focused application, through the injector the pointer uses:
/// XTest on X11 (characters the keymap lacks through a spare keycode), a uinput keyboard
/// of its own under Wayland or on the console (as a US layout types). Made once, shared by
/// the Keys page and the typing keyboard.
final class KeyInjector: @unchecked Sendable {
    let key: (@Sendable (SpecialKey) -> Bool)?
    let type: (@Sendable (String) -> (ok: Bool, missing: String))?
    let deleteBackward: (@Sendable (Int) -> Bool)?
    let chord: (@Sendable (KeyChord) -> Bool)?
    let problem: String?
    /// "xtest", "uinput (/dev/input/event7)".
    let summary: String
    /// Where every key is sent, in the order the engine asked for them (the Keys page's
    /// Enter after the keyboard's text, never before it).
    let queue = DispatchQueue(label: "switchscan.keys")
    /// Gives back what was borrowed from the keymap (XTest's spare keycodes).
    let restore: (@Sendable () -> Void)?
    /// With the live desktop: text inserted at the field's caret through AT-SPI where that is
    /// confirmed, and told of every key sent so that an insert waits for the keys before it.
    /// Set before the first key; used on `queue` only.
    var insert: (@Sendable (String) -> FieldInsert)?
    var sent: (@Sendable (SentKeys) -> Void)?
    /// With the live desktop: the application typed into does not answer (said once by the
    /// desktop): nothing is sent to it meanwhile. Used on `queue` only.
    var stalled: (@Sendable () -> Bool)?

    init(_ kind: RunConfiguration.Injection) {
        switch kind {
        case .xtest, .none:
            do {
                let pointer = try XTestPointer(), keyboard = try XTestKeyboard()
                key = { pointer.press($0) }; type = { keyboard.type($0) }
                deleteBackward = { keyboard.deleteBackward($0) }; chord = { keyboard.press($0) }
                restore = { keyboard.restoreKeymap() }
                problem = nil; summary = "xtest"
            } catch {
                key = nil; type = nil; deleteBackward = nil; chord = nil; restore = nil
                problem = "Keys cannot be sent: \(error)"; summary = "none"
            }
        case .uinput:
            do {
                let keys = try UinputKeys()
                key = { keys.press($0) }; type = { keys.type($0) }
                deleteBackward = { keys.deleteBackward($0) }; chord = { keys.press($0) }
                restore = nil
                problem = nil; summary = "uinput (\(keys.node ?? "no node"))"
            } catch {
                key = nil; type = nil; deleteBackward = nil; chord = nil; restore = nil
                problem = "Keys cannot be sent: \(error)"; summary = "none"
            }
        }
    }
}

/// The keyboard's text, editing keys and shortcuts, sent to the focused application on the
/// keys' queue (never holding up the presenters): text inserted into the field where that
/// is confirmed, else typed as keys. Where keys cannot be sent, each piece is refused with
/// a warning, once.
final class TextPresenter: EffectPresenter, @unchecked Sendable {
    let injector: KeyInjector
    let warn: @Sendable (String) -> Void
    var queue: DispatchQueue { injector.queue }
    var warned = false

    init(_ injector: KeyInjector, warn: @escaping @Sendable (String) -> Void) {
        self.injector = injector
        self.warn = warn
    }

    func present(_ effects: [TimedEffect]) throws {
        for e in effects {
            switch e.effect {
            case .typeText(let text, let secret):
                guard let type = injector.type else { warnOnce(); continue }
                queue.async { [injector, warn] in
                    if injector.stalled?() == true { return }
                    // Into the field directly where that is confirmed (never a password's).
                    if !secret, let insert = injector.insert {
                        switch insert(text) {
                        case .inserted: return
                        case .unconfirmed: return warn("\"\(text)\" may not have arrived as chosen: the field changed otherwise. Check it before going on.")
                        case .useKeys: break
                        }
                    }
                    let (ok, missing) = type(text)
                    // A password's characters are not kept anywhere, even to follow the field.
                    injector.sent?(ok && !secret ? .typed(text) : .other)
                    if !ok {
                        warn(missing.isEmpty || secret ? "Some text could not be typed." : "\"\(missing)\" could not be typed: no key for it.")
                    }
                }
            case .deleteText(let n):
                guard let delete = injector.deleteBackward else { warnOnce(); continue }
                queue.async { [injector, warn] in
                    if injector.stalled?() == true { return }
                    let ok = delete(n)
                    injector.sent?(ok ? .deleted(n) : .other)
                    if !ok { warn("Backspace could not be sent.") }
                }
            case .shortcut(let chord):
                guard let press = injector.chord else { warnOnce(); continue }
                queue.async { [injector, warn] in
                    if injector.stalled?() == true { return }
                    let ok = press(chord)
                    injector.sent?(.other)
                    if !ok { warn("The key \((chord.modifiers.map(\.rawValue) + [chord.key]).joined(separator: "+")) could not be sent.") }
                }
            default:
                continue
            }
        }
    }

    func warnOnce() {
        guard !warned, let problem = injector.problem else { return }
        warned = true
        warn(problem)
    }

    /// What is queued is typed before the process ends; the keymap is given back.
    func finish() { queue.sync { injector.restore?() } }
}

/// The Keys page's keys (and the keyboard's Enter), sent to the focused application on the
/// keys' queue. Where they cannot be sent, each key is refused with a warning, once.
final class KeyPresenter: EffectPresenter, @unchecked Sendable {
    let injector: KeyInjector
    let warn: @Sendable (String) -> Void
    var warned = false

    init(_ injector: KeyInjector, warn: @escaping @Sendable (String) -> Void) {
        self.injector = injector
        self.warn = warn
    }

    func present(_ effects: [TimedEffect]) throws {
        for e in effects {
            guard case .key(let k) = e.effect else { continue }
            if let send = injector.key {
                injector.queue.async { [injector, warn] in
                    if injector.stalled?() == true { return }
                    let ok = send(k)
                    injector.sent?(.other)
                    if !ok { warn("The \(k.rawValue) key could not be sent.") }
                }
            } else if !warned, let problem = injector.problem {
                warned = true
                warn(problem)
            }
        }
    }

    func finish() { injector.queue.sync {} }
}

/// Point-mode taps and the Gestures page's gestures of a layout run, made on the real screen
/// (only with --pointer), in order, on a queue of their own: a uinput long press or drag
/// takes most of a second, which the presenters do not wait for.
final class PointerPresenter: EffectPresenter, @unchecked Sendable {
    let clicker: PointerClicker
    let warn: @Sendable (String) -> Void
    let queue = DispatchQueue(label: "switchscan.pointer")
    init(_ clicker: PointerClicker, warn: @escaping @Sendable (String) -> Void) { self.clicker = clicker; self.warn = warn }
    func present(_ effects: [TimedEffect]) throws {
        for e in effects {
            switch e.effect {
            case .tap(let p, _):
                queue.async { [clicker, warn] in
                    if !clicker.click(at: p) { warn("The click at \(Int(p.x)), \(Int(p.y)) could not be made.") }
                }
            case let .gesture(g, _, p, to):
                queue.async { [clicker, warn] in
                    if !clicker.perform(g, at: p, to: to) { warn("\(g.title) at \(Int(p.x)), \(Int(p.y)) could not be made.") }
                }
            default:
                continue
            }
        }
    }
    /// What is queued is made before the process ends.
    func finish() { queue.sync {} }
}


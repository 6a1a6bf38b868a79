import Compositors
import DesktopAccess
import Dispatch
import ScanCore
import ScanHost
import ScanRuntime
import ScreenScene
import SwitchInput
import WaylandOutput
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

final class WaylandClicker: PointerClicker, @unchecked Sendable {
    let pointer: WaylandPointer
    init(_ pointer: WaylandPointer) { self.pointer = pointer }
    func click(at p: Point) -> Bool { pointer.click(at: p) }
    func perform(_ g: Gesture, at p: Point, to: Point?) -> Bool { pointer.perform(g, at: p, to: to) }
    var summary: String { "the compositor's virtual pointer, \(pointer.extent.width)x\(pointer.extent.height)" }
}

final class KWinClicker: PointerClicker, @unchecked Sendable {
    let input: KWinFakeInput
    init(_ input: KWinFakeInput) { self.input = input }
    func click(at p: Point) -> Bool { input.click(at: p) }
    func perform(_ g: Gesture, at p: Point, to: Point?) -> Bool { input.perform(g, at: p, to: to) }
    var summary: String { "KWin's fake input, \(input.extent.width)x\(input.extent.height)" }
}

final class MutterClicker: PointerClicker, @unchecked Sendable {
    let input: MutterRemoteDesktop
    init(_ input: MutterRemoteDesktop) { self.input = input }
    func click(at p: Point) -> Bool { input.click(at: p) }
    func perform(_ g: Gesture, at p: Point, to: Point?) -> Bool { input.perform(g, at: p, to: to) }
    var summary: String { "Mutter's remote desktop (\(input.motion) motion), \(input.extent.width)x\(input.extent.height)" }
}

/// The compositor's own pointer and keys: Mutter's remote desktop under GNOME, KWin's fake
/// input under KWin, wlroots' virtual pointer and keyboard elsewhere (the other is tried
/// when the first is not offered).
enum CompositorInput {
    static func pointer(_ compositor: Compositor) throws(WaylandError) -> PointerClicker {
        if compositor == .gnome { return MutterClicker(try mutter()) }
        return try first(compositor, kwin: { () throws(WaylandError) in KWinClicker(try kwin()) },
                         wlroots: { () throws(WaylandError) in WaylandClicker(try WaylandPointer()) })
    }

    /// A remote-desktop session of Mutter's over the whole screen.
    static func mutter() throws(WaylandError) -> MutterRemoteDesktop {
        guard let (extent, scale) = try WaylandGlobals.layoutAndCornerScale() else { throw WaylandError("GNOME Shell has no monitor to point at") }
        do { return try MutterRemoteDesktop(extent: extent, scale: scale) } catch { throw WaylandError(error.description) }
    }

    static func keys(_ compositor: Compositor) throws(WaylandError) -> (any KeySending, String) {
        if compositor == .gnome {
            let keys = try mutter()
            // Without the extension, keys alone (what the layout has).
            let shell = try? GnomeShell()
            return (GnomeKeys(keys, shell: shell), shell == nil ? "Mutter's remote desktop" : "Mutter's remote desktop and GNOME Shell's input method")
        }
        return try first(compositor, kwin: { () throws(WaylandError) in
            let k = try kwin()
            guard k.typesKeys else { throw WaylandError("KWin's fake input is version \(k.version), which presses no keys (4 does)") }
            return (k, "KWin's fake input")
        }, wlroots: { () throws(WaylandError) in (try WaylandKeys(), "the compositor's virtual keyboard") })
    }

    static func kwin() throws(WaylandError) -> KWinFakeInput {
        guard let layout = UinputKeys.us() else { throw WaylandError("libevdev knows no key codes") }
        return try KWinFakeInput(layout: layout)
    }

    /// KWin's first under KWin, wlroots' first elsewhere; the first one's failure is what is
    /// said when neither can be had.
    private static func first<T>(_ compositor: Compositor, kwin: () throws(WaylandError) -> T,
                                 wlroots: () throws(WaylandError) -> T) throws(WaylandError) -> T {
        let (a, b) = compositor == .kwin ? (kwin, wlroots) : (wlroots, kwin)
        do { return try a() } catch {
            if let other = try? b() { return other }
            throw error
        }
    }
}

final class UinputClicker: PointerClicker, @unchecked Sendable {
    let pointer: UinputPointer
    init(_ pointer: UinputPointer) { self.pointer = pointer }
    func click(at p: Point) -> Bool { pointer.click(at: p) }
    func perform(_ g: Gesture, at p: Point, to: Point?) -> Bool { pointer.perform(g, at: p, to: to) }
    var summary: String { "uinput (\(pointer.node ?? "no node")), \(pointer.width)x\(pointer.height)" }
}

/// Keys and text for the focused application, through the injector the pointer uses:
/// XTest on X11 (characters the keymap lacks through a spare keycode), the compositor's
/// virtual keyboard with a keymap of SwitchScan's own on wlroots compositors (any
/// character), a uinput keyboard of its own elsewhere under Wayland or on the console (as a
/// US layout types). Made once, shared by
/// the Keys page and the typing keyboard.
final class KeyInjector: @unchecked Sendable {
    let key: (@Sendable (SpecialKey) -> Bool)?
    let type: (@Sendable (String) -> (ok: Bool, missing: String))?
    let deleteBackward: (@Sendable (Int) -> Bool)?
    let chord: (@Sendable (KeyChord) -> Bool)?
    private(set) var problem: String?
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

    init(_ kind: RunConfiguration.Injection, compositor: Compositor) {
        var keys: (any KeySending)?
        switch kind {
        case .xtest, .none:
            do { keys = try XTestKeys() } catch { problem = "Keys cannot be sent: \(error)" }
            summary = keys == nil ? "none" : "xtest"
        case .wayland:
            do {
                let (k, name) = try CompositorInput.keys(compositor)
                keys = k
                summary = name
            } catch {
                // Neither a wlroots compositor nor KWin that lets SwitchScan in: uinput, where it can be had.
                keys = try? UinputKeys()
                summary = (keys as? UinputKeys).map { "uinput (\($0.node ?? "no node")): \(error)" } ?? "none"
                if keys == nil { problem = "Keys cannot be sent: \(error), and uinput cannot be used either" }
            }
        case .uinput:
            do { keys = try UinputKeys() } catch { problem = "Keys cannot be sent: \(error)" }
            summary = (keys as? UinputKeys).map { "uinput (\($0.node ?? "no node"))" } ?? "none"
        }
        if let keys {
            key = { keys.press($0) }; type = { keys.type($0) }
            deleteBackward = { keys.deleteBackward($0) }; chord = { keys.press($0) }
            if let x = keys as? XTestKeys { restore = { x.keyboard.restoreKeymap() } } else { restore = nil }
        } else {
            key = nil; type = nil; deleteBackward = nil; chord = nil; restore = nil
        }
    }
}

/// What sends keys: XTest, the compositor's virtual keyboard, uinput.
protocol KeySending: AnyObject, Sendable {
    func press(_ key: SpecialKey) -> Bool
    func type(_ text: String) -> (ok: Bool, missing: String)
    func deleteBackward(_ count: Int) -> Bool
    func press(_ chord: KeyChord) -> Bool
}

extension UinputKeys: KeySending {}
extension WaylandKeys: KeySending {}
extension KWinFakeInput: KeySending {}
extension MutterRemoteDesktop: KeySending {}

/// GNOME's keys: text committed through GNOME Shell's input method where the focused field
/// takes it (any character, as GNOME's on-screen keyboard writes), else typed as keysyms
/// of Mutter's remote desktop; editing keys and shortcuts always as keys.
final class GnomeKeys: KeySending, @unchecked Sendable {
    let keys: MutterRemoteDesktop
    let shell: GnomeShell?
    init(_ keys: MutterRemoteDesktop, shell: GnomeShell?) { self.keys = keys; self.shell = shell }
    func press(_ key: SpecialKey) -> Bool { keys.press(key) }
    func type(_ text: String) -> (ok: Bool, missing: String) {
        if let shell, shell.commit(text) { return (true, "") }
        return keys.type(text)
    }
    func deleteBackward(_ count: Int) -> Bool { keys.deleteBackward(count) }
    func press(_ chord: KeyChord) -> Bool { keys.press(chord) }
}

/// XTest's keys: the pointer's connection presses the Keys page's keys, the keyboard's types.
final class XTestKeys: KeySending, @unchecked Sendable {
    let pointer: XTestPointer
    let keyboard: XTestKeyboard
    init() throws {
        pointer = try XTestPointer()
        keyboard = try XTestKeyboard()
    }
    func press(_ key: SpecialKey) -> Bool { pointer.press(key) }
    func type(_ text: String) -> (ok: Bool, missing: String) { keyboard.type(text) }
    func deleteBackward(_ count: Int) -> Bool { keyboard.deleteBackward(count) }
    func press(_ chord: KeyChord) -> Bool { keyboard.press(chord) }
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


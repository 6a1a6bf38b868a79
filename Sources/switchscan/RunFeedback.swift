import ArgumentParser
import DesktopAccess
import Dispatch
import Foundation
import ScanCore
import ScanRuntime
import SpeechOutput
import SwitchInput
import X11Output

enum PointerKind: String, ExpressibleByArgument, CaseIterable { case xtest, uinput, none }

/// "1920x1080".
struct ScreenSize: ExpressibleByArgument {
    var width: Int
    var height: Int
    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (1...65_535).contains(w), (1...65_535).contains(h) else { return nil }
        width = w; height = h
    }
}

/// Clicks at screen points, however they are made.
protocol PointerClicker: AnyObject, Sendable {
    func click(at p: Point) -> Bool
    var summary: String { get }
}

final class XTestClicker: PointerClicker, @unchecked Sendable {
    let pointer: XTestPointer
    init(_ pointer: XTestPointer) { self.pointer = pointer }
    func click(at p: Point) -> Bool { pointer.click(at: p) }
    var summary: String { "xtest" }
}

final class UinputClicker: PointerClicker, @unchecked Sendable {
    let pointer: UinputPointer
    init(_ pointer: UinputPointer) { self.pointer = pointer }
    func click(at p: Point) -> Bool { pointer.click(at: p) }
    var summary: String { "uinput (\(pointer.node ?? "no node")), \(pointer.width)x\(pointer.height)" }
}

/// The Keys page's keys, sent to the focused application through the injector the pointer
/// uses: XTest on X11, a uinput keyboard under Wayland or on the console. Where it cannot
/// be made, each key is refused with a warning, once.
final class KeyPresenter: EffectPresenter, @unchecked Sendable {
    let sender: ((SpecialKey) -> Bool)?
    let problem: String?
    let warn: @Sendable (String) -> Void
    var warned = false
    /// "xtest", "uinput (/dev/input/event7)".
    let summary: String

    init(_ kind: PointerKind, warn: @escaping @Sendable (String) -> Void) {
        self.warn = warn
        switch kind {
        case .xtest, .none:
            do {
                let x = try XTestPointer()
                sender = { x.press($0) }; problem = nil; summary = "xtest"
            } catch {
                sender = nil; problem = "Keys cannot be sent: \(error)"; summary = "none"
            }
        case .uinput:
            do {
                let keys = try UinputKeys()
                sender = { keys.press($0) }; problem = nil; summary = "uinput (\(keys.node ?? "no node"))"
            } catch {
                sender = nil; problem = "Keys cannot be sent: \(error)"; summary = "none"
            }
        }
    }

    func present(_ effects: [TimedEffect]) throws {
        for e in effects {
            guard case .key(let k) = e.effect else { continue }
            if let sender {
                if !sender(k) { warn("The \(k.rawValue) key could not be sent.") }
            } else if !warned, let problem {
                warned = true
                warn(problem)
            }
        }
    }

    func finish() {}
}

/// Point-mode taps of a layout run, clicked on the real screen (only with --pointer).
final class PointerPresenter: EffectPresenter, @unchecked Sendable {
    let clicker: PointerClicker
    let warn: @Sendable (String) -> Void
    init(_ clicker: PointerClicker, warn: @escaping @Sendable (String) -> Void) { self.clicker = clicker; self.warn = warn }
    func present(_ effects: [TimedEffect]) throws {
        for e in effects {
            if case .tap(let p, _) = e.effect, !clicker.click(at: p) { warn("The click at \(Int(p.x)), \(Int(p.y)) could not be made.") }
        }
    }
    func finish() {}
}

/// What a run shows and says beyond its output: the on-screen overlay, speech, and the
/// pointer for taps.
struct RunFeedback {
    var presenters: [EffectPresenter] = []
    var clicker: PointerClicker?
    var notes: [String] = []

    /// `kind`: asked for on the command line (nil: chosen). Problems a user asked for by
    /// name are errors; the rest are notes and the run goes on without them.
    /// How clicks and keys reach the screen: as asked, or for the live desktop XTest on X11
    /// and uinput elsewhere; a layout run injects nothing unless asked.
    static func injector(_ kind: PointerKind?, desktop: Bool) -> PointerKind {
        let env = ProcessInfo.processInfo.environment
        let display = env["DISPLAY"].map { !$0.isEmpty } ?? false
        // Under Wayland DISPLAY may name XWayland, whose XTest clicks reach only X clients.
        let wayland = !(env["WAYLAND_DISPLAY"] ?? "").isEmpty || env["XDG_SESSION_TYPE"] == "wayland"
        return kind ?? (desktop ? (display && !wayland ? .xtest : .uinput) : PointerKind.none)
    }

    static func pointer(_ kind: PointerKind?, desktop: Bool, screen: ScreenSize?, fallback: (width: Double, height: Double)) throws -> (PointerClicker?, String?) {
        let display = !(ProcessInfo.processInfo.environment["DISPLAY"] ?? "").isEmpty
        let chosen = injector(kind, desktop: desktop)
        switch chosen {
        case .none:
            return (nil, nil)
        case .xtest:
            do { return (XTestClicker(try XTestPointer(display: nil)), nil) } catch {
                if kind == .xtest { throw fail("Error: --pointer xtest needs an X display: \(error). Use --pointer uinput on Wayland or the console.") }
                return (nil, "Warning: no pointer for taps: \(error)")
            }
        case .uinput:
            let size = screen.map { (Double($0.width), Double($0.height)) }
                ?? (display ? XTestPointer.screenSize(display: nil) : nil) ?? fallback
            do { return (UinputClicker(try UinputPointer(width: Int(size.0), height: Int(size.1))), nil) } catch {
                if kind == .uinput { throw fail("Error: \(error)") }
                return (nil, "Warning: no pointer for taps: \(error)")
            }
        }
    }
}

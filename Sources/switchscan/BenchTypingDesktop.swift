import ArgumentParser
import DesktopAccess
import Dispatch
import Foundation
import ScanCore
import ScanRuntime
import Typing
import WordPrediction
import JSONTape
import X11Output

/// `bench typing --desktop`: what a switch user waits for when typing into a real
/// application, measured in a desktop session on the first text field of the window that
/// `run --desktop` would scan.
extension BenchTyping {
    func runDesktop() throws {
        let desktop = try connectDesktop()
        defer { desktop.stop() }
        let snapshots = Arrivals()
        guard let first = desktop.follow(app: app, onChange: { _ in snapshots.add(MonotonicClock.now()) }) else {
            throw fail("Error: the window could not be read; start an application with a text field first (see 'switchscan desktop').")
        }
        let tree = first.tree
        guard let field = (0..<tree.count).first(where: { tree[$0].textEntry == .text && tree[$0].isAccessibilityElement }) else {
            throw fail("Error: the window \"\(tree[tree.root].label ?? "")\" has no text field to type into.")
        }
        let fieldID = tree[field].id
        let predictor: WordPredictor
        do { predictor = try loadWords(words) } catch { throw fail(error.message) }

        // 1. A key selected → its text in the application, as AT-SPI reports it: XTest key
        //    events, the application's text-changed event, the read of the field.
        let typed = Arrivals()
        let texts = TextLog()
        desktop.onFieldText = { text in texts.set(text); typed.add(MonotonicClock.now()) }
        desktop.perform([TimedEffect(MonotonicClock.now(), .activate(element: fieldID, point: tree[field].activationPoint, target: fieldID))])
        desktop.followField(fieldID)
        _ = typed.wait(after: 0, seconds: 2)
        let keyboard: XTestKeyboard
        do { keyboard = try XTestKeyboard() } catch { throw fail("Error: \(error)") }
        var keyToText: [Int64] = []
        for _ in 0..<repeats {
            let before = typed.count
            let start = texts.get().count
            let t0 = MonotonicClock.now()
            _ = keyboard.type("a")
            // The first report that shows the letter.
            var seen = before
            while let t = typed.wait(after: seen, seconds: 2) {
                seen += 1
                if texts.get().count > start { keyToText.append((t - t0).nanoseconds); break }
            }
        }
        _ = keyboard.deleteBackward(repeats)
        desktop.followField(nil)

        // 2. A text field selected → the keyboard drawn: the engine opens it (predictions
        //    included) and the overlay draws the panel and its outline, up to the X server's
        //    answer (XSync).
        var settings = ScanSettings()
        settings.style = .manual
        let queue = DispatchQueue(label: "switchscan.bench.overlay")
        let overlay: OverlayPresenter
        do { overlay = try OverlayPresenter(feedback: settings.feedback, queue: queue) } catch { throw fail("Error: \(error)") }
        let drawn = Arrivals()
        overlay.onSynced = { _, at in drawn.add(at) }
        var engine = ScanEngine(tree: tree, settings: settings)
        engine.keyboardProvider = KeyboardMaker(layout: KeyboardLayout(settings.typing.keyboardLayout), predictor: predictor, settings: settings.typing)
        var t = MonotonicClock.now()
        queue.sync { try? overlay.present(engine.start(at: t)) }
        var tapToKeyboard: [Int64] = []
        for _ in 0..<repeats {
            // Move to the field (virtual presses, not timed), then select it.
            for _ in 0..<200 {
                guard let shown = engine.currentHighlightID, shown != fieldID else { break }
                t = MonotonicClock.now()
                _ = engine.handle(SwitchEvent(.next, down: true, at: t), at: t)
                _ = engine.handle(SwitchEvent(.next, down: false, at: t), at: t)
            }
            let before = drawn.count
            let t0 = MonotonicClock.now()
            let effects = engine.handle(SwitchEvent(.select, down: true, at: t0), at: t0)
            queue.sync { try? overlay.present(effects) }
            if let t1 = drawn.wait(after: before, seconds: 2), engine.isPresenting { tapToKeyboard.append((t1 - t0).nanoseconds) }
            t = MonotonicClock.now()
            let up = engine.handle(SwitchEvent(.select, down: false, at: t), at: t)
            let closed = engine.dismissPresented(at: t)
            queue.sync { try? overlay.present(up + closed) }
        }
        queue.sync { overlay.finish() }

        let k = Summary(keyToText), o = Summary(tapToKeyboard)
        func line(_ s: Summary) -> String { "p50 \(Self.ms(s.p50)) ms, p99 \(Self.ms(s.p99)) ms, max \(Self.ms(s.max)) ms (\(s.count) of \(repeats))" }
        if json {
            writeOut("{\"field\":\(jsonString(tree[field].label ?? fieldID)),\"key_to_text_p50_ms\":\(Self.ms(k.p50)),\"key_to_text_p99_ms\":\(Self.ms(k.p99)),"
                + "\"key_to_text_max_ms\":\(Self.ms(k.max)),\"tap_to_keyboard_p50_ms\":\(Self.ms(o.p50)),\"tap_to_keyboard_p99_ms\":\(Self.ms(o.p99)),"
                + "\"tap_to_keyboard_max_ms\":\(Self.ms(o.max)),\"samples\":\(repeats)}\n")
        } else {
            writeOut("""
                Field: \(tree[field].label ?? fieldID) in "\(tree[tree.root].label ?? "")"
                Key selected → its text in the application (XTest, read back through AT-SPI): \(line(k))
                Text field selected → keyboard drawn (engine, predictions, overlay, XSync): \(line(o))

                """)
        }
        guard k.count == repeats, o.count == repeats else { throw fail("Error: some samples were not seen within 2 s (see the counts above).") }
    }
}

/// The last text the field reported.
final class TextLog: @unchecked Sendable {
    private let lock = NSLock()
    private var text = ""
    func set(_ t: String) { lock.lock(); text = t; lock.unlock() }
    func get() -> String { lock.lock(); defer { lock.unlock() }; return text }
}

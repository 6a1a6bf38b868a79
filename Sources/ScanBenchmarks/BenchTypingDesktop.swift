import ArgumentParser
import CommandSupport
import DesktopAccess
import Dispatch
import Foundation
import JSONTape
import ScanCore
import ScanHost
import ScanRuntime
import ScanSession
import Typing
import WordPrediction
import X11Output

/// `switchscan-bench typing --desktop`: what a switch user waits for when typing into a real
/// application, measured in a desktop session on the first text field of the window that
/// `run --desktop` would scan.
extension BenchTyping {
    func runDesktop() throws {
        // The field's text as it changes, and when (the field is followed below).
        let typed = Arrivals()
        let texts = TextLog()
        let desktop = try connectDesktop(DesktopHooks(onFieldText: { text in texts.set(text); typed.add(MonotonicClock.now()) }))
        defer { desktop.stop() }
        let snapshots = Arrivals()
        guard let first = desktop.follow(app: app, onChange: { _ in snapshots.add(MonotonicClock.now()) }) else {
            throw fail("Error: the window could not be read; start an application with a text field first (see 'switchscan desktop').")
        }
        let tree = first.tree
        guard let field = (0..<tree.count).first(where: { tree[$0].textEntry.map { !$0.isSecret } == true && tree[$0].isAccessibilityElement }) else {
            throw fail("Error: the window \"\(tree[tree.root].label ?? "")\" has no text field to type into.")
        }
        let fieldID = tree[field].id
        let predictor: WordPredictor
        do { predictor = try loadWords(words) } catch { throw fail(error.message) }

        // 1. A key selected → its text in the application, as AT-SPI reports it: XTest key
        //    events, the application's text-changed event, the read of the field.
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
            desktop.keysSent(.typed("a"))
            // The first report that shows the letter.
            var seen = before
            while let t = typed.wait(after: seen, seconds: 2) {
                seen += 1
                if texts.get().count > start { keyToText.append((t - t0).nanoseconds); break }
            }
        }
        _ = keyboard.deleteBackward(repeats)
        desktop.keysSent(.deleted(repeats))
        // The Backspaces arrive (and are reported) before the inserts are timed.
        for _ in 0..<400 where !(desktop.fieldText() ?? "").isEmpty { usleep(5_000) }
        usleep(50_000)

        // 2. The same through AT-SPI insert, where the field's toolkit does that well.
        var insertToText: [Int64] = []
        var inserted = 0
        var insertOffered = true
        for _ in 0..<repeats {
            let before = typed.count
            let start = (desktop.fieldText() ?? "").count
            let t0 = MonotonicClock.now()
            guard desktop.insertIntoField("a") == .inserted else { insertOffered = false; break }
            inserted += 1
            var seen = before
            while let t = typed.wait(after: seen, seconds: 2) {
                seen += 1
                if texts.get().count > start { insertToText.append((t - t0).nanoseconds); break }
            }
        }
        _ = keyboard.deleteBackward(inserted)
        desktop.keysSent(.deleted(inserted))
        for _ in 0..<400 where !(desktop.fieldText() ?? "").isEmpty { usleep(5_000) }

        // 3. Order: three Backspaces as keys and at once an insert, as a full stop after a
        //    space is typed. The insert must wait for the keys: the field ends as expected.
        var inOrder = 0, orderSamples = 0
        if insertOffered, desktop.insertIntoField("0123456789") != .inserted {
            orderSamples = repeats
        } else if insertOffered, let start = desktop.fieldText() {
            let expected = String(start.dropLast(3)) + "abc"
            for _ in 0..<repeats {
                orderSamples += 1
                _ = keyboard.deleteBackward(3)
                desktop.keysSent(.deleted(3))
                if desktop.insertIntoField("abc") != .inserted {
                    _ = keyboard.type("abc")
                    desktop.keysSent(.typed("abc"))
                }
                var text = desktop.fieldText()
                for _ in 0..<200 where text != expected {
                    usleep(5_000)
                    text = desktop.fieldText()
                }
                if text == expected { inOrder += 1 }
            }
            _ = keyboard.deleteBackward(expected.count)
        }
        desktop.followField(nil)

        // 4. A text field selected → the keyboard drawn: the engine opens it (predictions
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

        let k = Summary(keyToText), i = Summary(insertToText), o = Summary(tapToKeyboard)
        func line(_ s: Summary) -> String { "p50 \(Self.ms(s.p50)) ms, p99 \(Self.ms(s.p99)) ms, max \(Self.ms(s.max)) ms (\(s.count) of \(repeats))" }
        if json {
            let insert = insertOffered
                ? "\"insert_to_text_p50_ms\":\(Self.ms(i.p50)),\"insert_to_text_p99_ms\":\(Self.ms(i.p99)),\"insert_to_text_max_ms\":\(Self.ms(i.max)),\"insert_in_order\":\(inOrder),"
                : "\"insert_to_text_p50_ms\":null,"
            writeOut("{\"field\":\(jsonString(tree[field].label ?? fieldID)),\"key_to_text_p50_ms\":\(Self.ms(k.p50)),\"key_to_text_p99_ms\":\(Self.ms(k.p99)),"
                + "\"key_to_text_max_ms\":\(Self.ms(k.max)),\(insert)\"tap_to_keyboard_p50_ms\":\(Self.ms(o.p50)),\"tap_to_keyboard_p99_ms\":\(Self.ms(o.p99)),"
                + "\"tap_to_keyboard_max_ms\":\(Self.ms(o.max)),\"samples\":\(repeats)}\n")
        } else {
            let insert = insertOffered
                ? """
                  Text inserted → in the application (AT-SPI insert, confirmed, read back through AT-SPI): \(line(i))
                  Three Backspaces as keys, then an insert at once: in order \(inOrder) of \(orderSamples)
                  """
                : "Text inserted: this field's toolkit is not one whose insert is used (keys are)."
            writeOut("""
                Field: \(tree[field].label ?? fieldID) in "\(tree[tree.root].label ?? "")"
                Key selected → its text in the application (XTest, read back through AT-SPI): \(line(k))
                \(insert)
                Text field selected → keyboard drawn (engine, predictions, overlay, XSync): \(line(o))

                """)
        }
        guard k.count == repeats, o.count == repeats, !insertOffered || i.count == repeats else {
            throw fail("Error: some samples were not seen within 2 s (see the counts above).")
        }
        guard inOrder == orderSamples else { throw fail("Error: an insert arrived before the keys sent before it (see above).") }
    }
}

/// The last text the field reported.
final class TextLog: @unchecked Sendable {
    private let lock = Lock()
    private var text = ""
    func set(_ t: String) { lock.lock(); text = t; lock.unlock() }
    func get() -> String { lock.lock(); defer { lock.unlock() }; return text }
}

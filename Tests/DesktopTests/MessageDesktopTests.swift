import Foundation
import TestSupport
import Testing

/// The message screen over a real GTK 3 window: the screen menu's Message opens it, what is
/// written is said by a real speech-dispatcher (scanning itself silent), and Hide goes back
/// to the window.
@Suite("Message screen on the desktop", .serialized, .timeLimit(.minutes(2)))
struct MessageDesktopTests {
    @Test func theScreenMenusMessageSpeaksAndHideGoesBackToTheWindow() throws {
        let session = try DesktopSession()
        defer { session.stop() }
        let speech = try SpeechDaemon(module: .textlog)
        defer { speech.stop() }
        let fixture = try session.startFixture()
        let process = try session.startSwitchscan(["run", "--desktop", "--app", fixture.applicationName, "--output", "json",
                                                   "--no-devices", "--style", "manual"],
                                                  extraEnvironment: ["SPEECHD_ADDRESS": "unix_socket:" + speech.socket])
        let scan = try ScanDriver(attachedTo: process)
        defer { scan.stop() }
        // An element's menu, Settings and more, the screen menu's Message.
        try scan.openMessageScreen()
        let keys = LiveTypingTests.Keys(scan: scan)
        // A letter, then Speak: said aloud, and kept in the history.
        try keys.press("key_h", expecting: "h written") { e in
            e.effect == "keyboard" && ((e.fields["keys"] as? [[String: Any]]) ?? []).contains { $0["id"] as? String == "message" && $0["label"] as? String == "H" }
        }
        try keys.press("key_i", expecting: "i written") { e in
            e.effect == "keyboard" && ((e.fields["keys"] as? [[String: Any]]) ?? []).contains { $0["id"] as? String == "message" && $0["label"] as? String == "Hi" }
        }
        try keys.press("speak", row: "messageKeys", expecting: "the message said") { $0.effect == "speak" && $0.text == "Hi" }
        let said = speech.waitForSpoken { $0.contains("Hi") }
        #expect(said == ["Hi"], "scanning's own labels are not said; the message is: \(said)")
        let home = try #require(session.environment["XDG_DATA_HOME"])
        #expect(TestTime.poll(timeout: 5) { (try? String(contentsOfFile: home + "/switchscan/history.txt", encoding: .utf8)) == "Hi\n" })
        // Nothing was typed into the application.
        #expect(!scan.seen.contains { $0.effect == "typeText" })
        // Hide: back to the window, scanned again.
        try keys.press("hide", expecting: "the message screen closed") { $0.effect == "keyboardClose" }
        let closed = try #require(scan.seen.lastIndex { $0.effect == "keyboardClose" })
        let back = try scan.find(since: closed + 1, "the window scanned again") { $0.effect == "highlight" }
        #expect(back.item?.hasPrefix("a") == true, "an element or group of the window: \(back)")
    }
}

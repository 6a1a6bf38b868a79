#if canImport(Glibc)
import Glibc
#endif
import CX11
import Foundation
import Testing
import TestSupport
@testable import X11Output

/// A character the keymap lacks (€ on Xvfb's US keymap) is typed through a spare keycode
/// lent to it. A run killed while it holds one (kill -9, a crash) cannot give it back: the
/// next run on that display does, from the note the first left in the runtime folder, unless
/// the keycode was changed since. The real `switchscan` types € from its keyboard, driven
/// through its standard input; the test's own connection (the probe) stays open throughout,
/// so that the server never resets its keymap when the scanner's connection goes.
@Suite("Keymap after a crash", .serialized)
struct KeymapNoteTests {
    /// € as the injector maps it: its Unicode keysym.
    static let euro: KeySym = 0x0100_20ac
    static let sharpS: KeySym = 0xdf
    static let packageRoot = TestPaths.packageRoot

    /// The `switchscan` executable SwiftPM built beside the test bundle.
    static let binary: String? = TestPaths.executable(named: "switchscan")?.path

    /// `switchscan run` with a text field on the test's display, keys through XTest,
    /// driven as a switch user with the manual style: Tab moves, space selects.
    final class Run {
        let pid: pid_t
        let input: Int32
        let output: Int32
        let log: String
        private(set) var current: [String: Any]?
        private(set) var lines: [String] = []
        private var ended = false

        init(display: String, folder: String) throws {
            let binary = try #require(KeymapNoteTests.binary, "the switchscan executable was not found beside the test bundle")
            log = folder + "/switchscan.log"
            var toChild: [Int32] = [0, 0], fromChild: [Int32] = [0, 0]
            guard makePipe(&toChild), makePipe(&fromChild) else { throw XServer.Failure(description: "pipe: errno \(errno)") }
            let logFD = try XServer.openLog(log)
            defer { close(logFD); close(toChild[0]); close(fromChild[1]) }
            let settings = folder + "/settings.json"
            if access(settings, F_OK) != 0 { _ = FileManager.default.createFile(atPath: settings, contents: Data("{}".utf8)) }
            // A text field: its keyboard is an ordinary one, whose keys the stream names (the
            // screen menu's, for an unknown focus, names none of them).
            let layout = folder + "/field.json"
            _ = FileManager.default.createFile(atPath: layout, contents: Data("""
                {"schemaVersion": 1, "screen": {"id": "note", "size": {"width": 800, "height": 600}},
                 "root": {"id": "root", "frame": {"x": 0, "y": 0, "width": 800, "height": 600}, "children": [
                   {"id": "field", "label": "Note", "isAccessibilityElement": true, "textEntry": "text",
                    "respondsToUserInteraction": true, "frame": {"x": 20, "y": 20, "width": 400, "height": 30}}]}}
                """.utf8))
            pid = try XServer.spawn(binary, ["run", "--layout", layout, "--settings", settings, "--pointer", "xtest",
                                             "--style", "manual", "--output", "json", "--no-devices", "--no-overlay",
                                             "--rt-priority", "0", "--no-mlock"],
                                    env: ["DISPLAY=\(display)", "XDG_RUNTIME_DIR=\(folder)/runtime", "XDG_CONFIG_HOME=\(folder)/config",
                                          "XDG_DATA_HOME=\(folder)/data"],
                                    stdin: toChild[0], stdout: fromChild[1], stderr: logFD)
            input = toChild[1]
            output = fromChild[0]
            try next("the first highlight", timeout: 30) { $0["effect"] as? String == "highlight" }
        }

        deinit {
            if !ended { _ = end(SIGKILL) }
            close(input)
            close(output)
        }

        var context: String { "--- effects ---\n\(lines.suffix(20).joined(separator: "\n"))\n--- stderr ---\n\(XServer.contents(log))" }

        /// The next effect line that matches (lines before it are passed over).
        @discardableResult
        func next(_ what: String, timeout: Double = 10, where predicate: ([String: Any]) -> Bool) throws -> [String: Any] {
            let deadline = now() + timeout
            while true {
                let (line, why) = XServer.readLine(output, timeout: deadline - now())
                guard why.isEmpty else { throw XServer.Failure(description: "waiting for \(what): \(why)\n\(context)") }
                lines.append(line)
                guard let e = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else { continue }
                if e["effect"] as? String == "highlight" { current = e }
                if predicate(e) { return e }
            }
        }

        func send(_ text: String) {
            _ = text.utf8CString.withUnsafeBufferPointer { write(input, $0.baseAddress, $0.count - 1) }
        }

        /// Tab until the item with this id is highlighted (a highlight of the same item again
        /// is not the Tab's: the keyboard's rows move when its predictions come).
        func go(to id: String) throws {
            for _ in 0..<40 {
                if current?["item"] as? String == id { return }
                let before = current?["item"] as? String
                send("\t")
                try next("a highlight after Tab") { $0["effect"] as? String == "highlight" && $0["item"] as? String != before }
            }
            throw XServer.Failure(description: "\(id) was not highlighted within 40 moves\n\(context)")
        }

        @discardableResult
        func select(_ what: String, where predicate: ([String: Any]) -> Bool) throws -> [String: Any] {
            send(" ")
            return try next(what, where: predicate)
        }

        /// Selects, waits for `effect`, then for the highlight that comes with it (in the
        /// group, menu or page it opened).
        func open(_ effect: String) throws {
            try select(effect) { $0["effect"] as? String == effect }
            try next("the first highlight after \(effect)") { $0["effect"] as? String == "highlight" }
        }

        /// The text field's keyboard, its symbols page, €.
        func typeEuro() throws {
            try go(to: "field")
            try open("keyboard")
            try go(to: "row6")
            try open("enterGroup")
            try go(to: "symbols")
            try open("keyboard")
            try go(to: "row4")
            try open("enterGroup")
            try go(to: "key_euro")
            try select("€ typed") { $0["effect"] as? String == "typeText" && $0["text"] as? String == "€" }
        }

        /// Sends `signal` and waits (at most 10 s) for the end; the wait status.
        func end(_ signal: Int32) -> Int32 {
            kill(pid, signal)
            var status: Int32 = 0
            let deadline = now() + 10
            while waitpid(pid, &status, WNOHANG) == 0 {
                if now() > deadline { kill(pid, SIGKILL); waitpid(pid, &status, 0); break }
                _ = poll(nil, 0, 10)
            }
            ended = true
            return status
        }
    }

    /// The keycodes whose first two levels are `sym` (as a lent key's are).
    static func codes(holding sym: KeySym, on probe: XProbe) -> [UInt32] {
        var minCode = Int32(0), maxCode = Int32(0)
        XDisplayKeycodes(probe.d, &minCode, &maxCode)
        var perCode = Int32(0)
        guard let syms = XGetKeyboardMapping(probe.d, UInt8(minCode), maxCode - minCode + 1, &perCode) else { return [] }
        defer { XFree(syms) }
        return (0..<Int(maxCode - minCode + 1)).compactMap { k in
            perCode >= 2 && syms[k * Int(perCode)] == sym && syms[k * Int(perCode) + 1] == sym ? UInt32(Int(minCode) + k) : nil
        }
    }

    static func row(_ code: UInt32, on probe: XProbe) -> [KeySym] {
        var perCode = Int32(0)
        guard let syms = XGetKeyboardMapping(probe.d, UInt8(code), 1, &perCode) else { return [] }
        defer { XFree(syms) }
        return (0..<Int(perCode)).map { syms[$0] }
    }

    /// Waits (at most 10 s) for `condition`, asking every 20 ms: the server tells the test
    /// nothing when another client changes the keymap.
    static func waitFor(_ condition: () -> Bool) -> Bool {
        let deadline = now() + 10
        while !condition() {
            if now() > deadline { return false }
            _ = Glibc.poll(nil, 0, 20)
        }
        return true
    }

    /// The notes in the runtime folder.
    static func notes(_ folder: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder + "/runtime/switchscan")) ?? []
    }

    static func folder() throws -> String {
        var template = Array("\(NSTemporaryDirectory())/keymap-test.XXXXXX".utf8CString)
        let made = try #require(mkdtemp(&template).map { String(cString: $0) })
        mkdir(made + "/runtime", 0o700)
        return made
    }

    /// Types €, dies of SIGKILL holding the keycode: the next run gives it back at its
    /// start and removes the note; then types € itself, ends cleanly, and leaves neither
    /// a keycode nor a note.
    @Test func aKeycodeLentByARunThatWasKilledIsGivenBackByTheNext() throws {
        let server = try XServer()
        let probe = try XProbe(server.display)
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }

        let first = try Run(display: server.display, folder: folder)
        try first.typeEuro()
        #expect(Self.waitFor { Self.codes(holding: Self.euro, on: probe).count == 1 }, "€'s keycode is lent\n\(first.context)")
        let code = try #require(Self.codes(holding: Self.euro, on: probe).first)
        #expect(Self.notes(folder).count == 1, "a note is kept while the keycode is lent: \(Self.notes(folder))")
        if let name = Self.notes(folder).first {
            let note = folder + "/runtime/switchscan/" + name
            var st = stat()
            #expect(lstat(note, &st) == 0 && st.st_mode & 0o777 == 0o600, "the note is the user's alone")
            let text = (try? String(contentsOfFile: note, encoding: .utf8)) ?? ""
            #expect(text.split(separator: "\n").contains("\(code) 0x10020ac"), "the note: \(text)")
        }
        let status = first.end(SIGKILL)
        #expect(status & 0x7f == SIGKILL)
        #expect(Self.codes(holding: Self.euro, on: probe) == [code], "kill -9 leaves the keycode lent")

        let second = try Run(display: server.display, folder: folder)
        #expect(Self.row(code, on: probe).allSatisfy { $0 == 0 }, "given back at the next start: \(Self.row(code, on: probe))\n\(second.context)")
        #expect(Self.notes(folder).isEmpty, "the note is removed: \(Self.notes(folder))")

        try second.typeEuro()
        #expect(Self.waitFor { Self.codes(holding: Self.euro, on: probe).count == 1 }, "€'s keycode is lent\n\(second.context)")
        #expect(Self.notes(folder).count == 1)
        let clean = second.end(SIGTERM)
        #expect(clean & 0x7f == SIGTERM, "died of SIGTERM after cleaning up: \(clean)")
        #expect(Self.codes(holding: Self.euro, on: probe).isEmpty, "a clean end gives the keycode back")
        #expect(Self.notes(folder).isEmpty, "and removes its note: \(Self.notes(folder))")
    }

    /// A keycode changed by someone else after the crash (here to ß) is theirs now: the
    /// next run leaves it and drops the note.
    @Test func aKeycodeChangedSinceTheCrashIsLeftAsItIs() throws {
        let server = try XServer()
        let probe = try XProbe(server.display)
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }

        let first = try Run(display: server.display, folder: folder)
        try first.typeEuro()
        #expect(Self.waitFor { Self.codes(holding: Self.euro, on: probe).count == 1 }, "€'s keycode is lent\n\(first.context)")
        let code = try #require(Self.codes(holding: Self.euro, on: probe).first)
        _ = first.end(SIGKILL)
        var sharpS: [KeySym] = [Self.sharpS, Self.sharpS]
        XChangeKeyboardMapping(probe.d, Int32(code), 2, &sharpS, 1)
        probe.roundTrip()

        let second = try Run(display: server.display, folder: folder)
        #expect(Array(Self.row(code, on: probe).prefix(2)) == [Self.sharpS, Self.sharpS], "left as it is\n\(second.context)")
        #expect(Self.notes(folder).isEmpty, "the note is dropped: \(Self.notes(folder))")
        _ = second.end(SIGTERM)
        #expect(Array(Self.row(code, on: probe).prefix(2)) == [Self.sharpS, Self.sharpS], "not taken back at the end either")
    }
}

/// Where the notes are kept, and under which name.
@Suite("Keymap notes")
struct LentKeysNoteTests {
    /// One keymap a server: the screen is not part of the name, and "unix:" is the local display.
    @Test func aDisplayIsNamedByItsServer() {
        #expect(LentKeysNote.fileName(":0") == ":0")
        #expect(LentKeysNote.fileName(":0.1") == ":0")
        #expect(LentKeysNote.fileName("unix:0.0") == ":0")
        #expect(LentKeysNote.fileName("localhost:10.0") == "localhost:10")
        #expect(LentKeysNote.fileName("host.example/x:1") == "host%2Eexample%2Fx:1")
    }

    /// The folder is made the user's alone; one that is open to others, a link, or another
    /// user's (in /tmp anyone may have made it first) is not used.
    @Test func theFolderIsTheUsersAlone() throws {
        let base = try KeymapNoteTests.folder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let uid = geteuid()
        let made = try #require(LentKeysNote.privateFolder(base + "/new", uid))
        var st = stat()
        #expect(lstat(made, &st) == 0 && st.st_mode & 0o777 == 0o700)
        mkdir(base + "/open", 0o755)
        chmod(base + "/open", 0o755)
        #expect(LentKeysNote.privateFolder(base + "/open", uid) == nil)
        symlink(made, base + "/link")
        #expect(LentKeysNote.privateFolder(base + "/link", uid) == nil)
        mkdir(base + "/other", 0o700)
        #expect(LentKeysNote.privateFolder(base + "/other", uid + 1) == nil, "another user's")
    }
}


import Foundation
import Testing

/// Bad files and bad command lines (docs/USING.md, "switchscan simulate"): every problem
/// on stderr with its file and place, exit status 2 for bad files, 64 for a bad command line,
/// and nothing on stdout.
@Suite("switchscan simulate: bad input")
struct BadInputTests {
    static let uikit = "Layouts/switch-control.uikit.json"

    /// A layout whose second button has the unknown trait "buton" (line 10, column 51).
    static let unknownTraitLayout = """
        {
          "schemaVersion": 1,
          "screen": {"id": "bad", "size": {"width": 375, "height": 667}},
          "root": {
            "id": "view",
            "isAccessibilityElement": false,
            "frame": {"x": 0, "y": 0, "width": 375, "height": 667},
            "children": [
              {"id": "ok", "label": "OK", "traits": ["button"], "frame": {"x": 0, "y": 0, "width": 100, "height": 40}},
              {"id": "btn3", "label": "Btn 3", "traits": ["buton"], "frame": {"x": 0, "y": 50, "width": 100, "height": 40}}
            ]
          }
        }

        """

    static let allowedTraits = "none, button, link, header, adjustable, searchField, keyboardKey, staticText, image, selected, playsSound, summaryElement, updatesFrequently, notEnabled"

    static func unknownTraitMessage(_ path: String) -> String {
        "\(path):10:51: error E09: $.root.children[1].traits[0] (element \"btn3\"): unknown trait \"buton\"; allowed: \(allowedTraits); did you mean \"button\"?"
    }

    /// Line 3: an unknown action; line 5: time going backwards (2.5 after 3.0).
    static let malformedEvents = "# a typo and a step back in time\n1.0 select\n2.0 selct\n3.0 next\n2.5 select\n"

    @Test("a layout with an unknown trait: status 2, nothing on stdout, file + path + id + did-you-mean on stderr")
    func unknownTrait() throws {
        try withTempDir { dir in
            let layout = try dir.write("bad-trait.json", Self.unknownTraitLayout)
            let r = try CLI.run(["simulate", layout])
            #expect(r.status == 2, "\(r)")
            #expect(r.stdout == "")
            #expect(r.stderr.contains(layout))
            #expect(r.stderr.contains("$.root.children[1].traits[0]"))
            #expect(r.stderr.contains("element \"btn3\""))
            #expect(r.stderr.contains("did you mean \"button\""))
            #expect(r.stderr == Self.unknownTraitMessage(layout) + "\n\(layout): 1 error; the file was not loaded.\n")
        }
    }

    @Test("a malformed events file: status 2, nothing on stdout, FILE:LINE: and the did-you-mean")
    func malformedEvents() throws {
        try withTempDir { dir in
            let events = try dir.write("bad.events", Self.malformedEvents)
            let r = try CLI.run(["simulate", Self.uikit, "--events", events])
            #expect(r.status == 2, "\(r)")
            #expect(r.stdout == "")
            #expect(r.stderr.contains("\(events):3: "))
            #expect(r.stderr.contains("did you mean \"select\"?"))
            #expect(r.stderr.contains("\(events):5: "))
            #expect(r.stderr == """
                \(events):3: "selct" is not a switch action; allowed: select, next, previous, menu, exit, toggleMode, pause; did you mean "select"?
                \(events):5: time 2.5 is before the previous event's (3); list events in time order
                \(events): 2 errors; nothing was simulated.

                """)

            // The same from standard input is named <stdin>.
            let piped = try CLI.run(["simulate", Self.uikit, "--events", "-"], stdin: Self.malformedEvents)
            #expect(piped.status == 2, "\(piped)")
            #expect(piped.stdout == "")
            #expect(piped.stderr.hasPrefix("<stdin>:3: \"selct\" is not a switch action"))
            #expect(piped.stderr.contains("<stdin>:5: time 2.5"))
        }
    }

    @Test("an events file going back in time right after a bad line still gets both errors")
    func backwardsAfterBadLine() throws {
        try withTempDir { dir in
            // Line 3's action is misspelt, but its time, 2.0, is valid: line 4 at 1.5 goes back.
            let events = try dir.write("back.events", "# x\n1.0 select\n2.0 selct\n1.5 next\n")
            let r = try CLI.run(["simulate", Self.uikit, "--events", events])
            #expect(r.status == 2, "\(r)")
            #expect(r.stdout == "")
            #expect(r.stderr.contains("\(events):3: \"selct\" is not a switch action"))
            #expect(r.stderr.contains("\(events):4: time 1.5 is before the previous event's"))
        }
    }

    @Test("bad settings (autoScanInterval 20): status 2, the range on stderr")
    func badSettings() throws {
        try withTempDir { dir in
            let settings = try dir.write("slow.json", #"{"autoScanInterval": 20}"#)
            let r = try CLI.run(["simulate", Self.uikit, "--settings", settings])
            #expect(r.status == 2, "\(r)")
            #expect(r.stdout == "")
            #expect(r.stderr.contains("\(settings):1:"))
            #expect(r.stderr.contains("$.autoScanInterval"))
            #expect(r.stderr.contains("0.1") && r.stderr.contains("10"))
        }
    }

    @Test("a missing layout file: status 2 and its path on stderr")
    func missingLayout() throws {
        let r = try CLI.run(["simulate", "Layouts/no-such-layout.json"])
        #expect(r.status == 2, "\(r)")
        #expect(r.stdout == "")
        #expect(r.stderr.contains("Layouts/no-such-layout.json"))
        #expect(r.stderr.contains("does not exist"))

        let events = try CLI.run(["simulate", Self.uikit, "--events", "Examples/no-such.events"])
        #expect(events.status == 2, "\(events)")
        #expect(events.stdout == "")
        #expect(events.stderr.contains("Examples/no-such.events"))
    }

    @Test("no layout argument: a non-zero status and a sentence telling what to run")
    func noLayout() throws {
        let r = try CLI.run(["simulate"])
        #expect(r.status != 0, "\(r)")
        #expect(r.stdout == "")
        #expect(r.stderr.contains("switchscan simulate Layouts/switch-control.uikit.json"), "\(r)")
        #expect(r.status == 64)
    }

    @Test("--until -1 and --style bogus: status 64 with a message")
    func badOptions() throws {
        let spaced = try CLI.run(["simulate", Self.uikit, "--until", "-1"])
        #expect(spaced.status == 64, "\(spaced)")
        #expect(spaced.stdout == "")
        #expect(spaced.stderr.contains("--until"))

        let joined = try CLI.run(["simulate", Self.uikit, "--until=-1"])
        #expect(joined.status == 64, "\(joined)")
        #expect(joined.stdout == "")
        #expect(joined.stderr.contains("--until takes seconds between 0 and 86400"))

        let notANumber = try CLI.run(["simulate", Self.uikit, "--until", "soon"])
        #expect(notANumber.status == 64, "\(notANumber)")
        #expect(notANumber.stdout == "")
        #expect(notANumber.stderr.contains("soon"))

        let style = try CLI.run(["simulate", Self.uikit, "--style", "bogus"])
        #expect(style.status == 64, "\(style)")
        #expect(style.stdout == "")
        #expect(style.stderr.contains("bogus"))
        #expect(style.stderr.contains("auto") && style.stderr.contains("manual") && style.stderr.contains("step"))

        let mode = try CLI.run(["simulate", Self.uikit, "--mode", "crosshair"])
        #expect(mode.status == 64, "\(mode)")
        #expect(mode.stdout == "")
        #expect(mode.stderr.contains("crosshair"))
    }

    @Test("the problems of several bad files are all reported in one run")
    func severalBadFiles() throws {
        try withTempDir { dir in
            let layout = try dir.write("bad-trait.json", Self.unknownTraitLayout)
            let settings = try dir.write("slow.json", #"{"autoScanInterval": 20}"#)
            let events = try dir.write("bad.events", Self.malformedEvents)
            let r = try CLI.run(["simulate", layout, "--settings", settings, "--events", events])
            #expect(r.status == 2, "\(r)")
            #expect(r.stdout == "")
            #expect(r.stderr.contains(Self.unknownTraitMessage(layout)))
            #expect(r.stderr.contains("\(settings):1:") && r.stderr.contains("$.autoScanInterval"))
            #expect(r.stderr.contains("\(events):3: \"selct\" is not a switch action"))
            #expect(r.stderr.contains("\(events):5: time 2.5"))
        }
    }
}

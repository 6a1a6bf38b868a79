import Foundation
import Testing

/// `switchscan validate` (docs/USING.md: "checks layout and settings files the same way").
@Suite("switchscan validate")
struct ValidateTests {
    @Test("every bundled layout is valid: status 0, one ok line per file")
    func allBundledLayoutsAreValid() throws {
        let r = try CLI.run(["validate"] + bundledLayouts)
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr == "")
        let lines = r.stdoutLines
        #expect(lines.count == bundledLayouts.count, "\(r)")
        for (file, line) in zip(bundledLayouts, lines) {
            #expect(line.hasPrefix("\(file): ok (layout \""), "\(line)")
        }
        #expect(lines.contains("Layouts/switch-control.uikit.json: ok (layout \"switch-control-uikit\", 13 nodes, 4 top-level items)"))
        #expect(lines.contains("Layouts/keypad-order.json: ok (layout \"keypad-order\", 12 nodes, 4 top-level items)"))
    }

    @Test("a bad layout: status 2 and every error, with file, line:column, path and element")
    func badLayout() throws {
        try withTempDir { dir in
            // Three errors: an unknown trait, a duplicate id, a negative width.
            let layout = try dir.write("three-errors.json", """
                {
                  "schemaVersion": 1,
                  "screen": {"id": "bad", "size": {"width": 375, "height": 667}},
                  "root": {
                    "id": "view",
                    "isAccessibilityElement": false,
                    "frame": {"x": 0, "y": 0, "width": 375, "height": 667},
                    "children": [
                      {"id": "ok", "label": "OK", "traits": ["button"], "frame": {"x": 0, "y": 0, "width": 100, "height": 40}},
                      {"id": "btn3", "label": "Btn 3", "traits": ["buton"], "frame": {"x": 0, "y": 50, "width": 100, "height": 40}},
                      {"id": "ok", "label": "Again", "traits": ["button"], "frame": {"x": 0, "y": 100, "width": -5, "height": 40}}
                    ]
                  }
                }

                """)
            let r = try CLI.run(["validate", layout])
            #expect(r.status == 2, "\(r)")
            #expect(r.stdout == "")
            #expect(r.stderr == """
                \(layout):10:51: error E09: $.root.children[1].traits[0] (element "btn3"): unknown trait "buton"; allowed: \(BadInputTests.allowedTraits); did you mean "button"?
                \(layout):11:14: error E05: $.root.children[2].id: duplicate id "ok" (first defined at 9:14, $.root.children[0].id)
                \(layout):11:97: error E06: $.root.children[2].frame.width (element "ok"): must be >= 0, got -5
                \(layout): 3 errors; the file was not loaded.

                """)
        }
    }

    /// Nothing on stdout once any file is bad: every file's result goes to stderr, in order.
    @Test("good and bad files together: each file's result on stderr, nothing on stdout, status 2")
    func mixedFiles() throws {
        try withTempDir { dir in
            let layout = try dir.write("bad-trait.json", BadInputTests.unknownTraitLayout)
            let settings = try dir.write("slow.json", #"{"autoScanInterval": 20}"#)
            let r = try CLI.run(["validate", "Layouts/keypad-order.json", layout, settings, "Layouts/no-such.json"])
            #expect(r.status == 2, "\(r)")
            #expect(r.stdout == "")
            #expect(r.stderr.hasPrefix("Layouts/keypad-order.json: ok (layout \"keypad-order\", 12 nodes, 4 top-level items)\n"))
            #expect(r.stderr.contains(BadInputTests.unknownTraitMessage(layout)))
            #expect(r.stderr.contains("\(settings):1:") && r.stderr.contains("$.autoScanInterval"))
            #expect(r.stderr.contains("Layouts/no-such.json"))
        }
    }

    @Test("a settings file is recognised as settings")
    func settingsFile() throws {
        try withTempDir { dir in
            let settings = try dir.write("prefs.json", #"{"autoScanInterval": 0.5, "loops": 1, "style": "step"}"#)
            let r = try CLI.run(["validate", settings])
            #expect(r.status == 0, "\(r)")
            #expect(r.stderr == "")
            #expect(r.stdout == "\(settings): ok (settings)\n")
        }
    }

    @Test("an empty settings file {} is valid settings (every key is optional)")
    func emptySettingsFile() throws {
        try withTempDir { dir in
            let settings = try dir.write("empty.json", "{}")
            // simulate accepts it as settings …
            let simulate = try CLI.run(["simulate", "Layouts/switch-control.uikit.json", "--settings", settings, "--until", "0"])
            #expect(simulate.status == 0, "\(simulate)")
            // … and so should validate: it has neither "schemaVersion" nor "root", so it is no layout.
            let r = try CLI.run(["validate", settings])
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout == "\(settings): ok (settings)\n")
        }
    }

    @Test("validate with no files: a non-zero status and what to run")
    func noFiles() throws {
        let r = try CLI.run(["validate"])
        #expect(r.status != 0, "\(r)")
        #expect(r.stdout == "")
        #expect(r.stderr.contains("switchscan validate Layouts/*.json"), "\(r)")
        #expect(r.status == 64)
    }
}

@Suite("switchscan-bench and help")
struct BenchHelpTests {
    @Test("bench layout --json prints one JSON object per size")
    func benchLayoutJSON() throws {
        let r = try CLI.run(["switchscan-bench", "layout", "--sizes", "1000", "--repeats", "1", "--json"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr == "")
        let lines = r.stdoutLines
        #expect(lines.count == 1, "\(r)")
        let object = try #require((try? JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8))) as? [String: Any], "\(r)")
        for key in ["elements", "load_validate_ms", "build_ms", "step_ns", "memory_mb"] {
            #expect(object[key] is NSNumber, "missing or not a number: \(key)")
        }
        #expect((object["elements"] as? NSNumber)?.intValue == 1000)
        for key in ["load_validate_ms", "build_ms", "step_ns"] {
            #expect(((object[key] as? NSNumber)?.doubleValue ?? -1) >= 0, "\(key)")
        }
    }

    @Test("bench layout rejects a bad size")
    func benchBadSize() throws {
        let r = try CLI.run(["switchscan-bench", "layout", "--sizes", "0", "--json"])
        #expect(r.status == 64, "\(r)")
        #expect(r.stdout == "")
        #expect(r.stderr.contains("--sizes"))
    }

    @Test("--spin-margin takes 0 to 1 ms; anything else is refused with the range", arguments: ["2ms", "-5us", "soon", "1001"])
    func spinMarginRange(_ value: String) throws {
        for command in [["switchscan-bench", "timing"], ["run", "--no-devices", "--duration", "1"]] {
            // With "=": a value starting with "-" would otherwise be read as an option.
            let r = try CLI.run(command + ["--spin-margin=\(value)"])
            #expect(r.status == 64, "\(r)")
            #expect(r.stdout == "")
            #expect(r.stderr.contains("--spin-margin") && r.stderr.contains("0 to 1ms"), "\(r)")
        }
    }

    @Test("bench timing with a spin margin runs and prints its JSON line")
    func benchTimingSpin() throws {
        let r = try CLI.run(["switchscan-bench", "timing", "--interval", "1ms", "--ticks", "20", "--rt-priority", "0",
                             "--allow-deep-idle", "--spin-margin", "200us", "--json"])
        #expect(r.status == 0, "\(r)")
        let last = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let object = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any], "\(r)")
        // The keys issue 4 promises scripts, each of its kind.
        #expect(object["interval_ms"] as? Double == 1)
        #expect(object["ticks"] as? Int == 20)
        #expect(object["load"] as? Bool == false)
        #expect(object["ratio_p99"] is Double)
        #expect(object["cpu_percent"] is Double)
        for side in ["engine", "reference"] {
            let o = try #require(object[side] as? [String: Any], "no \(side) in \(last)")
            for key in ["p50_us", "p99_us", "p999_us", "max_us"] {
                let v = try #require(o[key] as? Double, "\(side).\(key) in \(last)")
                #expect(v.isFinite)
            }
            #expect(o["missed"] is Int)
            let p50 = o["p50_us"] as? Double ?? 0, p99 = o["p99_us"] as? Double ?? 0, max = o["max_us"] as? Double ?? 0
            #expect(p50 <= p99 && p99 <= max, "\(side) percentiles in order: \(o)")
        }
    }

    @Test("bench input --json prints its one JSON object with the promised keys")
    func benchInputJSON() throws {
        let r = try CLI.run(["switchscan-bench", "input", "--presses", "30", "--rt-priority", "0", "--allow-deep-idle", "--json"])
        #expect(r.status == 0, "\(r)")
        let last = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let object = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any], "\(r)")
        #expect(object["presses"] as? Int == 30)
        let p50 = try #require(object["p50_us"] as? Double)
        let p99 = try #require(object["p99_us"] as? Double)
        let max = try #require(object["max_us"] as? Double)
        #expect(p50 > 0 && p50 <= p99 && p99 <= max, "\(object)")
    }

    @Test("switchscan --help lists simulate and validate")
    func help() throws {
        let r = try CLI.run(["--help"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr == "")
        #expect(r.stdout.contains("USAGE: switchscan <subcommand>"))
        #expect(r.stdout.contains("  simulate "))
        #expect(r.stdout.contains("  validate "))

        let simulate = try CLI.run(["simulate", "--help"])
        #expect(simulate.status == 0, "\(simulate)")
        #expect(simulate.stdout.contains("--events"))
        #expect(simulate.stdout.contains("--until"))
    }
}

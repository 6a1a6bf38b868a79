import Foundation
import Testing

/// `switchscan cost`: JSON lines with a summary last; each element's press times, given to
/// `simulate` as an events file, activate it at exactly its seconds.
@Suite("switchscan cost")
struct CostCommandTests {
    @Test func jsonLinesThenASummaryAndSimulateAgrees() throws {
        let r = try CLI.run(["cost", "Layouts/switch-control.uikit.json", "--json"])
        #expect(r.status == 0, "\(r)")
        let objects = try r.stdoutLines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let summary = try #require(objects.last?["summary"] as? [String: Any])
        let elements = objects.dropLast()
        #expect(summary["elements"] as? Int == elements.count)
        #expect(elements.map { $0["element"] as? String } == ["test1", "test2", "btn1", "btn2", "btn5", "btn6"])
        try withTempDir { dir in
            for e in elements {
                let id = try #require(e["element"] as? String)
                let presses = try #require(e["pressTimes"] as? [Double])
                #expect(e["presses"] as? Int == presses.count)
                let raw = try #require(r.stdoutLines.first { $0.contains("\"element\": \"\(id)\"") })
                // The times exactly as printed, so that nothing is lost in a conversion.
                let times = raw.split(separator: "[")[1].split(separator: "]")[0].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                let events = try dir.write("\(id).events", times.map { "\($0) select" }.joined(separator: "\n") + "\n")
                let sim = try CLI.run(["simulate", "Layouts/switch-control.uikit.json", "--events", events])
                let activation = sim.stdoutLines.first { $0.contains("\"effect\":\"activate\"") }
                let seconds = try #require(e["seconds"] as? Double)
                #expect(activation?.contains("\"t\":\(String(format: "%.3f", seconds)),") == true, "\(id): \(activation ?? "no activation")")
                #expect(activation?.contains("\"element\":\"\(id)\"") == true, "\(id)")
            }
        }
    }

    @Test func oneElementAndWeightsThatAreAllZeroAreSaidAsTheyAre() throws {
        try withTempDir { dir in
            let one = try dir.write("one.json", """
                {"schemaVersion": 1, "screen": {"id": "one", "title": "One", "size": {"width": 100, "height": 100}},
                 "root": {"id": "window", "isAccessibilityElement": false, "frame": {"x": 0, "y": 0, "width": 100, "height": 100},
                  "children": [{"id": "ok", "label": "OK", "traits": ["button"], "frame": {"x": 10, "y": 10, "width": 50, "height": 30}}]}}
                """)
            let zero = try dir.write("zero.json", #"{"weights": {"ok": 0}}"#)
            let r = try CLI.run(["cost", one, "--settings", zero])
            #expect(r.status == 0, "\(r)")
            #expect(r.stdoutLines.last?.hasPrefix("1 element: mean 0.60 s") == true, "\(r.stdout)")
            #expect(r.stdoutLines.last?.contains("no weighted mean (every weight is 0)") == true, "\(r.stdout)")
            let json = try CLI.run(["cost", one, "--settings", zero, "--json"])
            #expect(json.stdoutLines.last?.contains(#""weightedMeanSeconds": null,"#) == true, "\(json.stdout)")
        }
    }

    @Test func aTableForPeopleAndClearRefusals() throws {
        let r = try CLI.run(["cost", "Layouts/mail-inbox.json"])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("seconds  presses  element\n"))
        #expect(r.stdoutLines.last?.hasPrefix("15 elements: mean ") == true, "\(r.stdout)")
        try withTempDir { dir in
            let slow = try dir.write("slow.json", #"{"reactionTime": 1.5, "autoScanInterval": 1}"#)
            let refused = try CLI.run(["cost", "Layouts/mail-inbox.json", "--settings", slow])
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("reactionTime must be shorter than autoScanInterval"), "\(refused.stderr)")
            let bad = try dir.write("bad.json", #"{"grouping": "optimum", "reactionTime": 0.01, "weights": {"msg1": -1}}"#)
            let invalid = try CLI.run(["cost", "Layouts/mail-inbox.json", "--settings", bad])
            #expect(invalid.status == 2)
            #expect(invalid.stderr.contains("$.grouping") && invalid.stderr.contains("did you mean \"optimal\"?"), "\(invalid.stderr)")
            #expect(invalid.stderr.contains("$.reactionTime") && invalid.stderr.contains("between 0.06 and 5"), "\(invalid.stderr)")
            #expect(invalid.stderr.contains("$.weights.msg1"), "\(invalid.stderr)")
        }
        let none = try CLI.run(["cost"])
        #expect(none.status == 64)
    }
}

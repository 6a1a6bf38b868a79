import Foundation
import Testing

/// `switchscan run` without a terminal: keys come from stdin, effects go out as JSON lines.
@Suite("switchscan run")
struct RunTests {
    @Test func keysFromStdinDriveTheScannerAndEndOfInputQuits() throws {
        // Space selects the group at the start, q quits.
        let r = try CLI.run(["run", "--output", "json", "--rt-priority", "0", "--no-mlock"], stdin: " q")
        #expect(r.status == 0, "\(r)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains(#""effect":"scanStarted""#) == true, "\(r.stdout)")
        #expect(lines.contains { $0.contains(#""effect":"enterGroup","group":"testWrap""#) }, "\(r.stdout)")
        for line in lines {
            #expect(line.hasPrefix(#"{"t":"#) && line.hasSuffix("}"), "every line is a JSON object: \(line)")
        }
    }

    @Test func aBadLayoutIsRefusedBeforeAnythingRuns() throws {
        let r = try CLI.run(["run", "--layout", "Layouts/missing.json", "--output", "json"], stdin: "")
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("Layouts/missing.json"))
    }

    @Test func badOptionsAreACommandLineError() throws {
        let r = try CLI.run(["run", "--rt-priority", "150"], stdin: "")
        #expect(r.status == 64)
        #expect(r.stderr.contains("--rt-priority"))
    }
}

import Testing

/// Runs every golden scenario (Tests/Scenarios/*.scan; the format is in Scenario.swift).
@Suite("Scenarios")
struct ScenarioTests {
    @Test("every scenario file", arguments: Scenario.files())
    func scenario(_ file: ScenarioFile) throws {
        let s = try Scenario.parse(file.text, name: file.name)
        let made = try s.run()
        for (section, actual) in zip(s.sections, made) {
            let expected = section.lines
            let diff = zip(actual, expected).first { !Scenario.matches($0.1.text, $0.0) }
            let whereItDiffers: String
            if let (got, want) = diff {
                whereItDiffers = "\(s.name):\(want.line): got '\(got)', expected '\(want.text)'"
            } else if actual.count > expected.count {
                whereItDiffers = "\(s.name):\(expected.last?.line ?? section.line): then '\(actual[expected.count])', not expected"
            } else if actual.count < expected.count {
                whereItDiffers = "\(s.name):\(expected[actual.count].line): expected '\(expected[actual.count].text)', nothing more was made"
            } else {
                continue
            }
            Issue.record("""
                \(whereItDiffers)
                the section of line \(section.line) got:
                \(actual.joined(separator: "\n"))
                """)
            return
        }
    }

    @Test func scenarioFilesExist() {
        #expect(Scenario.files().count >= 20)
    }
}

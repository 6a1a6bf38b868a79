import ArgumentParser
import Foundation
import ScanCore
import ScanFormats
import ScanRuntime

struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Scan a layout headlessly in virtual time and print the effects as JSON lines.",
        discussion: """
        Events file: one event a line, '#' comments:
          SECONDS ACTION down | SECONDS ACTION up | SECONDS ACTION   (a press: down, up 50 ms later)
        ACTION is one of: \(SwitchAction.allCases.map(\.rawValue).joined(separator: ", ")).
        Without --until the simulation ends 10 s after the last event.
        """
    )

    @Argument(help: "The layout file (JSON, schema version 1).")
    var layout: String?

    @OptionGroup var options: ScanOptions

    @Option(help: "Switch events: a file, or - for standard input.")
    var events: String?

    @Option(help: "Stop at this many seconds of virtual time.")
    var until: Double?

    func validate() throws {
        if let until, !(until.isFinite && until >= 0 && until <= 86_400) {
            throw ValidationError("--until takes seconds between 0 and 86400, e.g. --until 12.5")
        }
    }

    func run() throws {
        guard let layout else {
            throw ValidationError("No layout given. Pass a layout file, or run 'switchscan simulate Layouts/switch-control.uikit.json'.")
        }
        var problems: [String] = []
        var switchEvents: [SwitchEvent] = []
        let (document, scanSettings) = options.load(layout: layout, problems: &problems)
        if let events {
            do {
                let bytes = try readBytes(events, what: "events file", limit: EventsLoader.maxFileSize)
                let name = events == "-" ? "<stdin>" : events
                do {
                    switchEvents = try EventsLoader.load(bytes: bytes, file: name)
                } catch {
                    problems.append(error.description)
                }
            } catch {
                problems.append(error.message)
            }
        }
        guard problems.isEmpty, let document else { throw fail(problems.joined(separator: "\n")) }

        let end = until.map { ScanInstant.seconds($0) }
            ?? ((switchEvents.last?.timestamp ?? .zero) + .seconds(10))
        var driver = ManualDriver(engine: ScanEngine(tree: document.tree, settings: scanSettings))
        driver.schedule(switchEvents)
        var text = ""
        for e in driver.start() + driver.advance(to: end) {
            text += EffectJSON.line(e)
            text += "\n"
        }
        writeOut(text)
    }
}

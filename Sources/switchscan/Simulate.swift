import ArgumentParser
import CommandSupport
import Foundation
import ScanCore
import ScanFormats
import ScanRuntime
import ScanSession
import Typing
import WordPrediction

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

    @Flag(help: "Scan the typing keyboard instead of a layout: an empty field, the bundled English words, nothing learned.")
    var keyboard = false

    @Flag(help: "Scan the message screen (docs/MESSAGES.md): the keyboard writing a message to speak, with Speak, Phrases, Yes, No, Clear and Attention.")
    var messages = false

    @Option(help: "With --messages: the phrases offered (a phrases file: one phrase a line); none without it.")
    var phrases: String?

    @Option(help: "With the keyboard or --messages: predictions from this word list (format: Words/README.md) instead of the bundled English one.")
    var words: String?

    @OptionGroup var options: ScanOptions

    @Option(help: "Switch events: a file, or - for standard input.")
    var events: String?

    @Option(help: ArgumentHelp("Stop at this many seconds of virtual time (e.g. 12.5).", valueName: "seconds"))
    var until: String?
    var untilSeconds: Double? { until.flatMap { Seconds(argument: $0)?.value } }

    func validate() throws {
        if let until, Seconds(argument: until).map({ $0.value <= 86_400 }) != true {
            throw ValidationError("--until takes seconds between 0 and 86400, got \"\(excerpt(until))\"; e.g. --until 12.5")
        }
        if keyboard && layout != nil { throw ValidationError("--keyboard scans the typing keyboard; leave out the layout, or leave out --keyboard") }
        if keyboard && messages { throw ValidationError("--keyboard and --messages are two screens; give one") }
        if messages && layout != nil { throw ValidationError("--messages scans the message screen; leave out the layout, or leave out --messages") }
        if words != nil && !keyboard && !messages { throw ValidationError("--words goes with --keyboard or --messages") }
        if phrases != nil && !messages { throw ValidationError("--phrases goes with --messages") }
    }

    func run() throws {
        guard layout != nil || keyboard || messages else {
            throw ValidationError("No layout given. Pass a layout file, or run 'switchscan simulate Layouts/switch-control.uikit.json' (or --keyboard, or --messages).")
        }
        var problems: [String] = []
        var switchEvents = SwitchEventList()
        var engine: ScanEngine?
        if let layout {
            let (document, scanSettings) = options.load(layout: layout, problems: &problems)
            if let document { engine = ScanEngine(tree: document.tree, settings: scanSettings) }
        } else {
            let scanSettings = options.loadScanSettings(problems: &problems)
            do {
                let words = try loadWords(words)
                let layout = KeyboardLayout(scanSettings.typing.keyboardLayout)
                if messages {
                    let loaded = try phrases.map { (path) throws(InputProblem) in try loadPhrases(path, mustExist: true) }
                    for p in loaded?.problems ?? [] { writeErr(p + "\n") }
                    let offered = loaded?.phrases ?? []
                    engine = MessageSession.engine(layout: layout, predictor: words, settings: scanSettings, phrases: offered)
                } else {
                    engine = KeyboardSession.engine(layout: layout, predictor: words, settings: scanSettings)
                }
            } catch {
                problems.append(error.message)
            }
        }
        if let events {
            do {
                let bytes = try readBytes(events, what: "events file", limit: EventsLoader.maxFileSize, streams: true)
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
        guard problems.isEmpty, let engine else { throw fail(problems.joined(separator: "\n")) }

        let end = untilSeconds.map { ScanInstant.seconds($0) }
            ?? ((switchEvents.last?.timestamp ?? .zero) + .seconds(10))
        var driver = ManualDriver(engine: engine)
        // Written as the effects are made (through stdio's buffer), in memory bounded by the
        // input, however long the output.
        var json = EffectJSON()
        func write(_ effects: [TimedEffect]) {
            writeOut(json.lines(effects))
        }
        write(driver.start())
        driver.advance(to: end, delivering: switchEvents, write)
    }
}

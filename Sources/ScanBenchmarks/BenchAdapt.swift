import ArgumentParser
import CommandSupport
import Foundation
import ScanCore
import ScanFormats

/// `switchscan-bench adapt`: adaptive timing with three simulated people on the keyboard
/// layout in rows (a slow person started too fast, a fast one started slow, one who
/// tires), their interval and wrong selections against the selections made; the figures
/// and the plot of docs/TIMING.md.
struct BenchAdapt: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adapt",
        abstract: "Run simulated people with adaptTiming on; print how their interval and errors go, and plot them.",
        discussion: "Virtual time: the real engine, each press a reaction time drawn for the person after the item on their way lights up."
    )

    @Option(help: "The layout they use (rowColumn grouping).")
    var layout = "Layouts/keyboard.json"

    @Option(help: "Selections each person makes.")
    var selections = 800

    @Option(help: ArgumentHelp("Write the plot here (SVG).", valueName: "file"))
    var svg: String?

    @Option(help: "The seed of the people's reaction times.")
    var seed: UInt64 = 1

    func validate() throws {
        guard (100...100_000).contains(selections) else { throw ValidationError("--selections takes 100 to 100000") }
    }

    struct Person {
        var name: String
        var start: Double
        var reaction: @Sendable (Int) -> (mean: Double, spread: Double)
    }

    func run() throws {
        let tree: ElementTree
        do { tree = try LayoutLoader.load(bytes: [UInt8](Data(contentsOf: URL(fileURLWithPath: layout))), file: layout).tree } catch {
            throw ValidationError("\(layout): \(error)")
        }
        let total = selections
        let people = [
            Person(name: "slow, 0.55 ± 0.08 s, started at 0.4 s", start: 0.4) { _ in (0.55, 0.08) },
            Person(name: "fast, 0.25 ± 0.03 s, started at 1.0 s", start: 1.0) { _ in (0.25, 0.03) },
            Person(name: "tiring, 0.35 → 0.7 ± 0.06 s, started at 0.6 s", start: 0.6) { n in (0.35 + 0.35 * min(1, Double(n) / Double(total)), 0.06) },
        ]
        let targets = (0..<tree.count).filter { tree[$0].isAccessibilityElement && $0 != tree.root }.map { tree[$0].id }
        var intervals: [LinePlot.Series] = [], errors: [LinePlot.Series] = []
        print("person                                           end interval  wrong, first 100  wrong, last 200")
        for (k, p) in people.enumerated() {
            var settings = ScanSettings()
            settings.grouping = .rowColumn
            settings.adaptTiming = .on
            settings.autoScanInterval = .seconds(p.start)
            var person = SimulatedPerson(seed: seed + UInt64(k), reaction: p.reaction)
            // The targets in a fixed shuffle, so that no row is favoured.
            let order = targets.enumerated().sorted { ($0.offset * 7919 + k) % targets.count < ($1.offset * 7919 + k) % targets.count }.map(\.element)
            let run = person.use(tree, settings: settings, targets: order, selections: selections)
            let s = run.selections
            func wrong(_ part: ArraySlice<SimulatedPerson.Selection>) -> Double { Double(part.filter(\.wrong).count) / Double(max(part.count, 1)) }
            print(p.name.padding(toLength: 49, withPad: " ", startingAt: 0)
                  + String(format: "%7.2f s  %16.1f %%  %15.1f %%", s.last?.interval ?? p.start, 100 * wrong(s.prefix(100)), 100 * wrong(s.suffix(200))))
            let colour = LinePlot.colours[k]
            intervals.append(.init(p.name, colour: colour, [(0, p.start)] + s.enumerated().map { (Double($0.offset + 1), $0.element.interval) }))
            // Wrong selections among the 50 before each point, every 10 selections.
            let window = 50
            errors.append(.init(p.name, colour: colour, stride(from: window, through: s.count, by: 10).map { end in
                (Double(end), 100 * wrong(s[(end - window)..<end]))
            }))
        }
        // What adaptation and the usage counts (`run` keeps them for `report`) add to a press
        // on the engine's thread: presses handled with them on and off, alternately, in
        // virtual time; processor time per press.
        func perPress(_ adapt: Bool, counting: Bool = false) -> Double {
            var settings = ScanSettings()
            settings.grouping = .rowColumn
            settings.adaptTiming = adapt ? .on : .off
            var engine = ScanEngine(tree: tree, settings: settings)
            engine.tallies = counting
            _ = engine.start(at: .zero)
            var t = ScanInstant.zero
            var spent: UInt64 = 0
            for k in 0..<20_000 {
                t = t + .milliseconds(300 + Int64(k % 7) * 100)
                _ = engine.handleDeadline(at: t)
                let start = DispatchTime.now().uptimeNanoseconds
                _ = engine.handle(SwitchEvent(.select, down: true, at: t), at: t)
                _ = engine.handle(SwitchEvent(.select, down: false, at: t + .milliseconds(50)), at: t + .milliseconds(50))
                spent += DispatchTime.now().uptimeNanoseconds - start
                t = t + .milliseconds(50)
            }
            return Double(spent) / 20_000
        }
        var off: [Double] = [], on: [Double] = [], counted: [Double] = [], both: [Double] = []
        for _ in 0..<3 {
            off.append(perPress(false)); on.append(perPress(true))
            counted.append(perPress(false, counting: true)); both.append(perPress(true, counting: true))
        }
        print(String(format: "a press (down and up) on the engine: %.0f ns with adaptTiming off, %.0f ns on (medians of three, alternating)",
                     off.sorted()[1], on.sorted()[1]))
        print(String(format: "with the usage counts kept: %.0f ns with adaptTiming off, %.0f ns on",
                     counted.sorted()[1], both.sorted()[1]))
        if let svg {
            let plot = LinePlot(title: "Adaptive timing: three simulated people on the keyboard, in rows", xLabel: "selections made",
                                panels: [.init("Scan interval", unit: " s", series: intervals),
                                         .init("Wrong selections among the last 50", unit: " %", series: errors)])
            do { try plot.svg.write(toFile: svg, atomically: true, encoding: .utf8) } catch { throw ValidationError("\(svg): \(error.localizedDescription)") }
            print("plot written to \(svg)")
        }
    }
}

import ArgumentParser
import CommandSupport
import Foundation
import JSONTape
import ScanCore
import ScanFormats

/// `switchscan report`: the person's usage day by day, from the usage log `run` keeps, for
/// a carer or therapist: a table, JSON, or a plot of the weeks.
struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show how scanning went, day by day: selections, undone ones, reaction time, interval, words a minute.",
        discussion: """
        Reads the usage log 'switchscan run' keeps (~/.local/share/switchscan/usage.log, \
        readable by you alone): counts only, never what was written. Each day shows the \
        time SwitchScan ran, the presses and selections, the selections undone at once \
        (a late or wrong press taken back), the reaction time (mean ± standard deviation: \
        how long after its highlight a selection's press came, in auto scanning), the \
        mean scan interval, the words begun on the keyboard and the words a minute while \
        writing. --svg draws the weeks as a plot, for a person who would rather look than read.
        """
    )

    @Option(help: "How many days back from today to show (1 to 1000).")
    var days = 28

    @Flag(help: "Print the days as JSON instead of a table.")
    var json = false

    @Option(help: "Also draw the days as a plot in this SVG file (a browser or an image viewer shows it).")
    var svg: String?

    @Option(help: "The usage log to read (default: the user's).")
    var file: String?

    func validate() throws {
        guard (1...UsageLog.keptDays).contains(days) else { throw ValidationError("--days takes 1 to \(UsageLog.keptDays), e.g. --days 28") }
    }

    func run() throws {
        let path = try HomeFolder.file(file, xdg: "XDG_DATA_HOME") { UsageLog.userPath(environment: $0) }
        let contents: UsageLog.Contents
        do { contents = try UsageLog.load(path) } catch {
            throw fail(error.description + "\nA usage log is a text file SwitchScan writes, a line a day; move this one away and 'switchscan run' starts a new one.")
        }
        for p in contents.problems {
            writeErr("Warning: \(path): \(p) is left out. A day's line reads like: 2026-11-30 presses=540 selections=312 undone=12 …\n")
        }
        let today = UsageLog.day(of: Int(Date().timeIntervalSince1970))
        let first = UsageLog.day(days - 1, before: today)
        let shown = contents.days.filter { $0.day >= first && $0.day <= today }
        if json {
            writeOut(Self.json(shown, from: first, to: today, log: path, problems: contents.problems))
        } else if contents.days.isEmpty {
            writeMessage("No usage is kept yet in \(path): 'switchscan run' keeps it as the person scans.\n")
        } else if shown.isEmpty {
            writeMessage("No usage in the last \(days == 1 ? "day" : "\(days) days") (\(first) to \(today)); the log's last day is \(contents.days.last!.day). Try --days \(UsageLog.keptDays).\n")
        } else {
            writeOut(Self.table(shown))
        }
        if let svg {
            let plot = Self.plot(shown, from: first, days: days)
            do { try writeOutputFile(svg, Array(plot.svg.utf8), what: "plot") } catch { throw fail(error.description) }
            if !json { writeMessage("Plot written to \(svg).\n") }
        }
    }

    // MARK: The table

    static func table(_ days: [UsageLog.Day]) -> String {
        let head = ["Day", "Time", "Presses", "Selections", "Undone", "Reaction", "Interval", "Words", "Words/min"]
        var rows: [[String]] = days.map { row($0.day, $0.usage) }
        if days.count > 1 {
            var all = Usage()
            for d in days { all.add(d.usage) }
            rows.append(row("All \(days.count) days", all))
        }
        var widths = head.map(\.count)
        for r in rows { for (k, cell) in r.enumerated() { widths[k] = max(widths[k], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { k, cell in
                let pad = String(repeating: " ", count: widths[k] - cell.count)
                return k == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ") + "\n"
        }
        var out = line(head)
        for (k, r) in rows.enumerated() {
            if k == days.count { out += String(repeating: "-", count: widths.reduce(0, +) + 2 * (widths.count - 1)) + "\n" }
            out += line(r)
        }
        return out + "Reaction: how long after its highlight a selection's press came (mean ± spread). Undone: taken back at once.\n"
    }

    static func row(_ day: String, _ u: Usage) -> [String] {
        let minutes = Int((u.runningSeconds / 60).rounded())
        return [
            day,
            "\(minutes / 60):\(minutes % 60 < 10 ? "0" : "")\(minutes % 60)",
            "\(u.presses)",
            "\(u.selections)",
            u.undoneRate.map { "\(u.undone) (\(formatFixed($0 * 100, decimals: 0)) %)" } ?? "\(u.undone)",
            u.meanReaction.map { m in formatFixed(m, decimals: 2) + (u.reactionSpread.map { " ± " + formatFixed($0, decimals: 2) } ?? "") + " s" } ?? "-",
            u.meanInterval.map { formatFixed($0, decimals: 2) + " s" } ?? "-",
            "\(u.words)",
            u.wordsPerMinute.map { formatFixed($0, decimals: 1) } ?? "-",
        ]
    }

    // MARK: JSON

    static func json(_ days: [UsageLog.Day], from first: String, to last: String, log: String, problems: [String]) -> String {
        func n(_ d: Double?, _ decimals: Int = 3) -> String { d.map { jsonNumber(($0 * pow(10, Double(decimals))).rounded() / pow(10, Double(decimals))) } ?? "null" }
        var out = "{\"log\": \(jsonString(log)), \"from\": \(jsonString(first)), \"to\": \(jsonString(last)), \"days\": ["
        out += days.map { d in
            let u = d.usage
            return "\n  {\"day\": \(jsonString(d.day)), \"runningSeconds\": \(n(u.runningSeconds, 0)), \"presses\": \(u.presses), "
                + "\"selections\": \(u.selections), \"undone\": \(u.undone), \"undoneRate\": \(n(u.undoneRate)), "
                + "\"reactions\": \(u.reactions), \"reactionMean\": \(n(u.meanReaction)), \"reactionSpread\": \(n(u.reactionSpread)), "
                + "\"interval\": \(n(u.meanInterval)), \"words\": \(u.words), \"writingSeconds\": \(n(u.writingSeconds, 0)), "
                + "\"wordsPerMinute\": \(n(u.wordsPerMinute, 2))}"
        }.joined(separator: ",")
        out += days.isEmpty ? "]" : "\n]"
        out += ", \"problems\": [" + problems.map(jsonString).joined(separator: ", ") + "]}\n"
        return out
    }

    // MARK: The plot

    /// Three panels over the days: reaction time and interval, the share undone, words a
    /// minute. A day without use breaks the lines.
    static func plot(_ days: [UsageLog.Day], from first: String, days count: Int) -> LinePlot {
        let byDay = Dictionary(days.map { ($0.day, $0.usage) }, uniquingKeysWith: { a, _ in a })
        let dates = (0..<count).map { UsageLog.day(-$0, before: first) }
        func series(_ name: String, _ colour: Int, _ value: (Usage) -> Double?) -> LinePlot.Series {
            LinePlot.Series(name, colour: LinePlot.colours[colour], dates.enumerated().map { k, day in
                (x: Double(k), y: byDay[day].flatMap(value))
            })
        }
        let labels = dates.map { String($0.dropFirst(5)) }
        var plot = LinePlot(
            title: "Scanning, \(dates.first ?? first) to \(dates.last ?? first)", xLabel: "Day",
            panels: [
                LinePlot.Panel("Reaction time and scan interval", unit: " s", series: [
                    series("Reaction time (mean)", 0, \.meanReaction),
                    series("Scan interval", 1, \.meanInterval),
                ]),
                LinePlot.Panel("Selections undone", unit: " %", series: [series("Undone (%)", 2) { $0.undoneRate.map { $0 * 100 } }]),
                LinePlot.Panel("Writing", unit: "", series: [series("Words a minute", 3, \.wordsPerMinute)]),
            ],
            xText: { x in
                let k = Int(x.rounded())
                return labels.indices.contains(k) ? labels[k] : ""
            })
        plot.markers = true
        return plot
    }
}

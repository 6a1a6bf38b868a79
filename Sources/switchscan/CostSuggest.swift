import ArgumentParser
import CommandSupport
import Foundation
import JSONTape
import ScanCore
import ScanFormats
import ScanSession
import Typing
import WordPrediction

/// `cost --suggest`: the auto-scan interval and first-item pause at which the late person
/// (reactionTime ± reactionSpread, docs/COST.md) reaches this screen's elements, or types
/// these texts, fastest on average, mistakes and their undoing included.
extension Cost {
    /// The first-item pauses tried.
    static let pauses = [0.0, 0.25, 0.5, 1.0]
    /// The texts of a file that are costed at each timing tried.
    static let textsTried = 30

    struct Trial {
        var interval: Double
        var pause: Double
        /// Layouts: the mean expected seconds an element; texts: expected words a minute.
        var figure: Double
        var errorRate: Double
    }

    func suggestTiming(_ settings: ScanSettings, problems: [String]) throws {
        var problems = problems
        var settings = settings
        if settings.style != .auto || settings.mode != .item {
            problems.append("Error: --suggest times auto scanning in item mode (the other styles wait for the person's presses); use --style auto.")
        }
        if settings.reactionSpread == .zero {
            problems.append("Error: --suggest needs the person's reactionSpread (e.g. --spread 0.15): without it no press is ever late, and the shortest interval always wins.")
        }
        // What is costed: a layout's elements, or texts typed.
        var tree: ElementTree?
        var texts: [String] = []
        var predictor: WordPredictor?
        if let text { texts.append(text) }
        if let textFile {
            do {
                let lines = try LineReader(textFile, what: "text file", limit: Self.textFileLimit, streams: true)
                while let (_, line) = try lines.next() {
                    let t = line.trimmingCharacters(in: .whitespacesAndNewlines)
                    if !t.isEmpty && !t.hasPrefix("#") { texts.append(t) }
                    // Each timing tried costs every text again: a sample is enough.
                    if texts.count == Self.textsTried { break }
                }
                if texts.isEmpty { problems.append("Error: \(textFile) has no text to type (one text a line; lines starting with # are comments).") }
            } catch { problems.append(error.description) }
        }
        if !texts.isEmpty || text != nil {
            do { predictor = try loadWords(words) } catch { problems.append(error.message) }
            guard problems.isEmpty else { throw fail(problems.joined(separator: "\n")) }
        } else {
            tree = try screen(problems)
        }
        let layoutName = KeyboardLayout(settings.typing.keyboardLayout)
        let field = self.field ?? .text
        /// The figure and error rate at one timing; nil where the person cannot get through.
        func measure(_ s: ScanSettings) -> (figure: Double, errorRate: Double)? {
            if let tree {
                guard let costs = try? ScanCost.compute(tree, settings: s) else { return nil }
                let summary = ScanCost.Summary(costs, weights: s.weights)
                let weights = s.weights
                // Weighted by use where weights are given, as `optimal` grouping weighs them.
                let activations = costs.filter { $0.action == nil }
                let total = activations.reduce(0.0) { $0 + (weights[$1.element] ?? 1) }
                let mean = total > 0 ? activations.reduce(0.0) { $0 + (weights[$1.element] ?? 1) * $1.expectedSeconds } / total : summary.expectedMeanSeconds
                return mean.isFinite && !activations.isEmpty ? (mean, summary.errorRate) : nil
            }
            guard let predictor else { return nil }
            var summary = TextCost.Summary()
            let memo = LateMemo()
            for t in texts {
                guard let c = try? TextCost.compute(t, layout: layoutName, predictor: predictor, settings: s, field: field, memo: memo) else { return nil }
                summary.add(c)
            }
            return summary.expectedWordsPerMinute > 0 ? (summary.expectedWordsPerMinute, summary.errorRate) : nil
        }
        let typing = tree == nil
        func better(_ a: Trial, than b: Trial?) -> Bool {
            guard let b else { return true }
            return typing ? a.figure > b.figure + 1e-9 : a.figure < b.figure - 1e-9
        }
        // Every 0.05 s from just above the reaction time to where a late press is rarer than
        // one in a hundred thousand and a second more, and at most 5 s.
        let reaction = settings.reactionTime.seconds, spread = settings.reactionSpread.seconds
        let low = ((reaction + 0.01) / 0.05).rounded(.up) * 0.05
        let high = min(5, max(low + 0.5, reaction + 4.5 * spread + 1))
        guard low <= high else {
            throw fail("Error: a reaction time of \(LinePlot.number(reaction)) s leaves no interval to try below 5 s; auto scanning that slow is better replaced by step or hold scanning.")
        }
        var trials: [Trial] = []
        var best: Trial?
        func attempt(_ interval: Double, _ pause: Double) {
            guard interval >= low - 1e-9, interval <= high + 1e-9,
                  !trials.contains(where: { abs($0.interval - interval) < 1e-9 && $0.pause == pause }) else { return }
            settings.autoScanInterval = .seconds(interval)
            settings.pauseOnFirstItem = .seconds(pause)
            guard let m = measure(settings) else { return }
            let trial = Trial(interval: interval, pause: pause, figure: m.figure, errorRate: m.errorRate)
            trials.append(trial)
            if better(trial, than: best) { best = trial }
        }
        func round(_ v: Double) -> Double { (v * 100).rounded() / 100 }
        if typing {
            // Costing texts is slow: every 0.1 s without a pause, then 0.05 s either side
            // of the best, then the pauses there.
            attempt(low, 0)
            var interval = (low * 10).rounded(.up) / 10
            while interval <= high + 1e-9 { attempt(interval, 0); interval = round(interval + 0.1) }
            if let b = best { attempt(round(b.interval - 0.05), 0); attempt(round(b.interval + 0.05), 0) }
            if let b = best { for pause in Self.pauses { attempt(b.interval, pause) } }
        } else {
            var interval = low
            while interval <= high + 1e-9 {
                for pause in Self.pauses { attempt(interval, pause) }
                interval = round(interval + 0.05)
            }
        }
        trials.sort { ($0.interval, $0.pause) < ($1.interval, $1.pause) }
        guard let best else { throw fail("Error: at no interval from \(LinePlot.number(low)) s to \(LinePlot.number(high)) s could the modelled person get through; check the layout or the texts.") }
        // The rule of thumb beside it: reaction time / 0.65.
        let rule = reaction / 0.65
        let what = typing ? "words a minute" : "seconds an element"
        if json {
            var out = ""
            for t in trials where t.pause == best.pause {
                out += "{\"autoScanInterval\": \(LinePlot.number(t.interval)), \"pauseOnFirstItem\": \(LinePlot.number(t.pause)), "
                out += typing ? "\"expectedWordsPerMinute\": \(String(format: "%.3f", t.figure))" : "\"expectedMeanSeconds\": \(String(format: "%.3f", t.figure))"
                out += ", \"errorRate\": \(Self.rate(t.errorRate))}\n"
            }
            out += "{\"suggested\": {\"autoScanInterval\": \(LinePlot.number(best.interval)), \"pauseOnFirstItem\": \(LinePlot.number(best.pause)), "
            out += typing ? "\"expectedWordsPerMinute\": \(String(format: "%.3f", best.figure))" : "\"expectedMeanSeconds\": \(String(format: "%.3f", best.figure))"
            out += ", \"errorRate\": \(Self.rate(best.errorRate)), \"reactionTime\": \(LinePlot.number(reaction)), \"reactionSpread\": \(LinePlot.number(spread)), "
            out += "\"ruleOfThumb\": \(String(format: "%.3f", rule))}}\n"
            writeOut(out)
            return
        }
        var out = String(format: "A person who presses %.2f ± %.2f s after the highlight", reaction, spread) + ", in auto scanning"
        out += typing ? " (\(counted(texts.count, "text"))\(texts.count == Self.textsTried && textFile != nil ? ", the file's first" : "")):\n" : ":\n"
        out += "interval  pause  \(typing ? "words/min" : "  seconds")  wrong\n"
        // At the best pause: every interval tried for texts, every 0.1 s for a screen; the best marked.
        for t in trials where t.pause == best.pause && (typing || abs((t.interval * 10).rounded() - t.interval * 10) < 1e-6 || t.interval == best.interval) {
            out += String(format: "%7.2f s %5.2f s %9.2f  %5.1f %%%@\n", t.interval, t.pause, t.figure, 100 * t.errorRate, t.interval == best.interval ? "  <- best" : "")
        }
        out += String(format: "Suggested: autoScanInterval %@, pauseOnFirstItem %@: %.2f %@, %.1f %% of selections wrong.\n",
                       LinePlot.number(best.interval), LinePlot.number(best.pause), best.figure, what, 100 * best.errorRate)
        out += String(format: "(The rule of thumb, reaction time / 0.65, gives %.2f s.) holdDuration stays as set: it filters presses shorter than it, whatever the reaction time.\n", rule)
        writeOut(out)
    }
}

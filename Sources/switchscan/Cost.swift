import ArgumentParser
import CommandSupport
import Foundation
import JSONTape
import ScanCore
import ScanFormats
import ScanRuntime
import ScanSession
import Typing
import WordPrediction

struct Cost: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "What reaching each element costs a switch user: seconds and presses.",
        discussion: """
        The modelled user presses reactionTime (a setting, default 0.3 s) after the wanted item \
        is highlighted, each press 50 ms down and up. Fed to 'switchscan simulate' as select \
        presses (and, in manual scanning, nextTimes as next presses), an element's press times \
        activate it at exactly its seconds. The grouping \
        setting (layout, linear, rowColumn, optimal) changes the groups; see docs/COST.md.
        """
    )

    @Argument(help: "The layout file (JSON, schema version 1).")
    var layout: String?

    @OptionGroup var target: DesktopTarget

    @OptionGroup var options: ScanOptions

    @Option(help: "What typing this text on the scanning keyboard costs (instead of a layout).")
    var text: String?

    @Option(help: "What typing each line of this file on the scanning keyboard costs.")
    var textFile: String?

    @Option(help: "With the keyboard: predictions from this word list (format: Words/README.md) instead of the bundled English one.")
    var words: String?

    @Option(help: "With the keyboard: the kind of field typed into, whose text rules the keyboard follows: text (prose, the default), line, fileName, url, email, number, password or terminal (docs/TYPING.md).")
    var field: TextEntryKind?

    @Flag(help: "With --text-file: the modelled user's keyboard learns each text's words as run's does, starting from nothing, so that later texts are predicted with the earlier ones' words (a model of days of use; see docs/TYPING.md).")
    var learn = false

    @Flag(help: "What saying each phrase of --phrases costs on the message screen (docs/MESSAGES.md), from its start.")
    var messages = false

    @Option(help: "With --messages: the phrases file (one phrase a line); the user's own without it.")
    var phrases: String?

    @Option(help: ArgumentHelp("The modelled person's reaction time (instead of the settings' reactionTime).", valueName: "seconds"))
    var reaction: Double?

    @Option(help: ArgumentHelp("The spread (standard deviation) of their reaction time (instead of reactionSpread): some presses come too late (docs/COST.md).", valueName: "seconds"))
    var spread: Double?

    @Flag(help: "Print the interval and first-item pause that make the late person (reactionTime ± reactionSpread) fastest on this layout or text, in auto scanning.")
    var suggest = false

    @Flag(help: "One JSON object per element and action, then a summary line.")
    var json = false

    func validate() throws {
        if let reaction, !(0.06...5).contains(reaction) { throw ValidationError("--reaction takes 0.06 to 5 seconds, got \(reaction)") }
        if let spread, !(0...2).contains(spread) { throw ValidationError("--spread takes 0 to 2 seconds, got \(spread)") }
        if suggest && messages { throw ValidationError("--suggest goes with a layout, --desktop, --text or --text-file") }
        if suggest && learn { throw ValidationError("--suggest costs each text afresh at every timing; leave out --learn") }
        if phrases != nil && !messages { throw ValidationError("--phrases goes with --messages") }
        if messages && (text != nil || textFile != nil || target.desktop || layout != nil || options.mode != nil || field != nil || learn) {
            throw ValidationError("--messages costs the message screen's phrases; leave out the layout, --desktop, --mode and the typing options")
        }
        if messages { return }
        let typing = text != nil || textFile != nil
        if text != nil && textFile != nil { throw ValidationError("--text and --text-file are one or the other") }
        if field != nil && !typing { throw ValidationError("--field goes with --text or --text-file") }
        if learn && textFile == nil { throw ValidationError("--learn goes with --text-file: the words of each text are learned for the texts after it") }
        if typing && (target.desktop || layout != nil || options.mode != nil) {
            throw ValidationError("--text and --text-file cost the typing keyboard; leave out the layout, --desktop and --mode")
        }
        if typing { return }
        try target.check(layout: layout, given: "the layout")
        if !target.desktop && layout == nil { throw ValidationError("No layout given, e.g. 'switchscan cost Layouts/mail-inbox.json' (or --desktop, or --text)") }
    }

    func run() throws {
        var problems: [String] = []
        var scanSettings = options.loadScanSettings(problems: &problems)
        if let reaction { scanSettings.reactionTime = .seconds(reaction) }
        if let spread { scanSettings.reactionSpread = .seconds(spread) }
        if suggest { return try suggestTiming(scanSettings, problems: problems) }
        if text != nil || textFile != nil { return try costText(scanSettings, problems: problems) }
        if messages { return try costPhrases(scanSettings, problems: problems) }
        guard let tree = try screen(problems) else { return }
        let costs: [ElementCost]
        do {
            costs = scanSettings.mode == .point ? try ScanCost.computePoint(tree, settings: scanSettings)
                : try ScanCost.compute(tree, settings: scanSettings)
        } catch { throw fail("Error: \(error.description).") }
        let summary = ScanCost.Summary(costs, weights: scanSettings.weights)
        // Weights are kept in the user's settings for many screens: one naming an element
        // this screen lacks is normal, but worth saying where none match at all.
        let unknown = scanSettings.weights.keys.filter { tree.index(of: $0) == nil }.sorted()
        if !unknown.isEmpty && unknown.count == scanSettings.weights.count {
            writeErr("Warning: no element of this screen has a weight; the weights name \(unknown.prefix(5).map { "\"\(excerpt($0))\"" }.joined(separator: ", "))\(unknown.count > 5 ? " and \(unknown.count - 5) more" : "").\n")
        }
        var out = ""
        if json {
            for c in costs {
                var line = "{\"element\": \(jsonString(c.element)), \"label\": \(jsonString(c.label))"
                if let a = c.action { line += ", \"action\": \(jsonString(a))" }
                line += ", \"seconds\": \(Self.seconds(c.seconds)), \"expectedSeconds\": \(Self.expected(c.expectedSeconds)), \"presses\": \(c.presses), \"pressTimes\": ["
                line += c.pressTimes.map { Self.seconds($0.seconds) }.joined(separator: ", ") + "]"
                if !c.nextTimes.isEmpty { line += ", \"nextTimes\": [" + c.nextTimes.map { Self.seconds($0.seconds) }.joined(separator: ", ") + "]" }
                line += Self.releases(c.releaseTimes) + "}\n"
                out += line
            }
            var s = "{\"summary\": {\"elements\": \(summary.elements), \"meanSeconds\": \(Self.seconds(summary.meanSeconds)), "
            s += "\"medianSeconds\": \(Self.seconds(summary.medianSeconds)), \"maxSeconds\": \(Self.seconds(summary.maxSeconds))"
            if !scanSettings.weights.isEmpty { s += ", \"weightedMeanSeconds\": \(summary.weightedMeanSeconds.map { Self.seconds($0) } ?? "null")" }
            s += ", \"expectedMeanSeconds\": \(Self.expected(summary.expectedMeanSeconds)), \"errorRate\": \(Self.rate(summary.errorRate))"
            // How long each press is held, for a replay (the switch filters may ask more than 50 ms).
            s += ", \"selectPressSeconds\": \(Self.seconds(ScanCost.pressLength(.select, scanSettings).seconds))"
            s += ", \"nextPressSeconds\": \(Self.seconds(ScanCost.pressLength(.next, scanSettings).seconds))"
            out += s + "}}\n"
        } else {
            let late = Self.late(scanSettings)
            out += late ? "seconds  expected  presses  element\n" : "seconds  presses  element\n"
            for c in costs {
                let what = c.action.map { "\(c.label): \($0)" } ?? c.label
                out += String(format: "%7.2f  ", c.seconds) + (late ? Self.expectedColumn(c.expectedSeconds) : "")
                    + String(format: "%7d  ", c.presses) + TerminalText.visible("\(what) (\(c.element))") + "\n"
            }
            out += (summary.elements == 1 ? "1 element" : "\(summary.elements) elements")
                + String(format: ": mean %.2f s, median %.2f s, worst %.2f s", summary.meanSeconds, summary.medianSeconds, summary.maxSeconds)
            if !scanSettings.weights.isEmpty {
                out += summary.weightedMeanSeconds.map { String(format: ", weighted mean %.2f s", $0) } ?? ", no weighted mean (every weight is 0)"
            }
            out += scanSettings.mode == .point ? " (point mode, \(scanSettings.style.rawValue) scanning)\n"
                : " (\(scanSettings.style.rawValue) scanning, grouping: \(scanSettings.grouping.rawValue)\(Self.pacing(scanSettings)))\n"
            if late {
                out += Self.lateLine(scanSettings, mean: summary.expectedMeanSeconds, errorRate: summary.errorRate, what: "a mean of %@")
            }
        }
        writeOut(out)
    }

    /// The screen costed: the layout file, or the live window (`--desktop`). Problems found
    /// so far, and the layout's own, end the command together.
    func screen(_ problems: [String]) throws -> ElementTree? {
        var problems = problems
        var tree: ElementTree?
        if let layout {
            do { tree = try loadLayout(layout).tree } catch { problems.append(error.message) }
        }
        guard problems.isEmpty else { throw fail(problems.joined(separator: "\n")) }
        if target.desktop {
            let session = try connectDesktop()
            defer { session.stop() }
            switch session.snapshot(app: target.app) {
            case .success(let s): tree = s.tree
            case .failure(let e): writeErr(e.description + "\n"); throw ExitCode(1)
            }
        }
        return tree
    }

    /// Text files past this size are refused (before they are read, or as soon as a stream
    /// passes it): a file of phrases has no reason to be bigger.
    static let textFileLimit = 16 << 20

    /// `--text`, `--text-file`: each text typed from an empty field by the modelled user.
    /// A file is read a line at a time and each text's row printed as soon as it is costed;
    /// the summary keeps running sums, so memory does not grow with the number of texts.
    /// Each phrase: the seconds and presses until it is said, from the message screen's start.
    func costPhrases(_ scanSettings: ScanSettings, problems: [String]) throws {
        var problems = problems
        var offered: [String] = []
        var loaded: WordPredictor?
        if let file = phrases ?? PhrasesFile.userPath(environment: ProcessInfo.processInfo.environment) {
            do {
                let read = try loadPhrases(file, mustExist: true)
                for p in read.problems { writeErr(p + "\n") }
                offered = read.phrases
                if offered.isEmpty { problems.append("Error: \(file) has no phrase to say (one phrase a line; lines starting with # are comments).") }
            } catch { problems.append(error.message) }
        } else {
            problems.append("Error: no home folder to find the phrases file in; give it with --phrases FILE.")
        }
        do { loaded = try loadWords(words) } catch { problems.append(error.message) }
        guard problems.isEmpty, let predictor = loaded else { throw fail(problems.joined(separator: "\n")) }
        let costs: [PhraseCost]
        do {
            costs = try PhraseCost.compute(offered, layout: KeyboardLayout(scanSettings.typing.keyboardLayout), predictor: predictor, settings: scanSettings)
        } catch { throw fail("Error: \(error.description).") }
        guard !costs.isEmpty else { throw fail("Error: no phrase could be costed.") }
        var out = ""
        if json {
            for c in costs {
                out += "{\"phrase\": \(jsonString(c.phrase)), \"seconds\": \(Self.seconds(c.seconds)), \"presses\": \(c.presses), \"pressTimes\": ["
                out += c.pressTimes.map { Self.seconds($0.seconds) }.joined(separator: ", ") + "]"
                if !c.nextTimes.isEmpty { out += ", \"nextTimes\": [" + c.nextTimes.map { Self.seconds($0.seconds) }.joined(separator: ", ") + "]" }
                out += Self.releases(c.releaseTimes) + "}\n"
            }
            let most = costs.map(\.presses).max() ?? 0
            out += "{\"summary\": {\"phrases\": \(costs.count), \"meanSeconds\": \(Self.seconds(costs.map(\.seconds).reduce(0, +) / Double(costs.count))), \"mostPresses\": \(most)}}\n"
        } else {
            out += "seconds  presses  phrase\n"
            for c in costs { out += String(format: "%7.2f  %7d  ", c.seconds, c.presses) + TerminalText.visible(c.phrase) + "\n" }
            out += String(format: "%@: mean %.2f s, at most %d presses (%@ scanning, %.2f s a step%@)\n",
                          counted(costs.count, "phrase"), costs.map(\.seconds).reduce(0, +) / Double(costs.count), costs.map(\.presses).max() ?? 0,
                          scanSettings.style.rawValue, scanSettings.autoScanInterval.seconds, Self.pacing(scanSettings))
        }
        writeOut(out)
    }

    func costText(_ scanSettings: ScanSettings, problems: [String]) throws {
        var problems = problems
        if let text, text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            problems.append("Error: --text has nothing to type; give the text to type, e.g. --text \"see you soon\".")
        }
        var lines: LineReader?
        if let textFile {
            do { lines = try LineReader(textFile, what: "text file", limit: Self.textFileLimit, streams: true) } catch { problems.append(error.description) }
        }
        var loaded: WordPredictor?
        do { loaded = try loadWords(words) } catch { problems.append(error.message) }
        guard problems.isEmpty, var predictor = loaded else { throw fail(problems.joined(separator: "\n")) }
        let learn = self.learn
        let layout = KeyboardLayout(scanSettings.typing.keyboardLayout)
        let memo = LateMemo()
        var summary = TextCost.Summary()
        /// Costs `text` and prints its row at once. A problem ends the command, said with its
        /// place in the file: the line, and the column of a character no key types (`indent`:
        /// the line's blanks before the text).
        func row(_ text: String, line: Int? = nil, indent: Int = 0) throws {
            let c: TextCost
            do {
                c = learn ? try TextCost.computeLearning(text, layout: layout, predictor: &predictor, settings: scanSettings, field: field ?? .text, memo: memo)
                    : try TextCost.compute(text, layout: layout, predictor: predictor, settings: scanSettings, field: field ?? .text, memo: memo)
            } catch {
                var place = ""
                if let line, let textFile { place = "\(textFile):\(line): " }
                if case .noKey(_, _, let offset) = error {
                    if let line, let textFile { place = "\(textFile):\(line):\(indent + offset + 1): " }
                    throw fail("Error: \(place)\(error.description); leave it out of the text.")
                }
                throw fail("Error: \(place)\(error.description).")
            }
            var line: String
            if json {
                line = "{\"text\": \(jsonString(c.text)), \"seconds\": \(Self.seconds(c.seconds)), \"expectedSeconds\": \(Self.expected(c.expectedSeconds)), \"presses\": \(c.presses), \"pressTimes\": ["
                line += c.pressTimes.map { Self.seconds($0.seconds) }.joined(separator: ", ") + "]"
                if !c.nextTimes.isEmpty { line += ", \"nextTimes\": [" + c.nextTimes.map { Self.seconds($0.seconds) }.joined(separator: ", ") + "]" }
                line += Self.releases(c.releaseTimes) + "}\n"
            } else {
                let late = Self.late(scanSettings)
                line = (summary.texts == 0 ? (late ? "seconds  expected  presses  text\n" : "seconds  presses  text\n") : "")
                    + String(format: "%7.2f  ", c.seconds) + (late ? Self.expectedColumn(c.expectedSeconds) : "")
                    + String(format: "%7d  ", c.presses) + TerminalText.visible(c.text) + "\n"
            }
            summary.add(c)
            writeOut(line)
            flushOut()
        }
        if let text { try row(text) }
        if let lines, let textFile {
            while true {
                let next: (number: Int, text: String)?
                do { next = try lines.next() } catch { throw fail(error.description) }
                guard let (number, line) = next else { break }
                // A line ending in CR LF (or a last one in CR) is a text like any other.
                let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
                if text.isEmpty || text.hasPrefix("#") { continue }
                try row(text, line: number, indent: line.prefix { $0.isWhitespace }.count)
            }
            if summary.texts == 0 { throw fail("Error: \(textFile) has no text to type (one text a line; lines starting with # are comments).") }
        }
        if json {
            var out = "{\"summary\": {\"texts\": \(summary.texts), \"characters\": \(summary.characters), \"seconds\": \(Self.seconds(summary.seconds)), "
            out += "\"presses\": \(summary.presses), \"wordsPerMinute\": \(String(format: "%.2f", summary.wordsPerMinute)), "
            out += "\"pressesPerCharacter\": \(String(format: "%.3f", summary.pressesPerCharacter)), "
            out += "\"expectedSeconds\": \(Self.expected(summary.expectedSeconds)), \"expectedWordsPerMinute\": \(String(format: "%.2f", summary.expectedWordsPerMinute)), "
            out += "\"errorRate\": \(Self.rate(summary.errorRate))}}\n"
            writeOut(out)
        } else {
            writeOut(String(format: "%@, %@: %.2f words a minute, %.2f presses a character (%@ keyboard, %@ scanning, %.2f s a step%@)\n",
                            counted(summary.texts, "text"), counted(summary.characters, "character"), summary.wordsPerMinute, summary.pressesPerCharacter,
                            scanSettings.typing.keyboardLayout.rawValue, scanSettings.style.rawValue, scanSettings.autoScanInterval.seconds,
                            (learn ? ", learning as it types" : "") + Self.pacing(scanSettings)))
            if Self.late(scanSettings) {
                writeOut(Self.lateLine(scanSettings, mean: summary.expectedWordsPerMinute, errorRate: summary.errorRate, what: "%@ words a minute"))
            }
        }
    }

    /// Hold scanning's releases, as a JSON member: a replay lets each press go then
    /// (`SECONDS select up`), not after `selectPressSeconds`.
    static func releases(_ times: [ScanInstant]) -> String {
        times.isEmpty ? "" : ", \"releaseTimes\": [" + times.map { seconds($0.seconds) }.joined(separator: ", ") + "]"
    }

    /// Whether `cost` models a late person: a spread, in auto scanning (the other styles
    /// wait for the person's presses: nothing comes too late).
    static func late(_ s: ScanSettings) -> Bool { s.reactionSpread > .zero && s.style == .auto && s.mode == .item }

    /// The late person's line under the summary: `what` takes the figure.
    static func lateLine(_ s: ScanSettings, mean: Double, errorRate: Double, what: String) -> String {
        let figure = mean.isFinite && mean > 0 ? String(format: "%.2f", mean) : "never done"
        return String(format: "A person who presses %.2f ± %.2f s after the highlight: \(what), %.1f %% of selections wrong (each taken back).\n",
                      s.reactionTime.seconds, s.reactionSpread.seconds, figure, 100 * errorRate)
    }

    static func expectedColumn(_ v: Double) -> String { v.isFinite ? String(format: "%8.2f  ", v) : "   never  " }

    /// Expected seconds in JSON: null where the person would never get there.
    static func expected(_ v: Double) -> String { v.isFinite ? String(format: "%.3f", v) : "null" }

    static func rate(_ v: Double) -> String { v.isFinite ? String(format: "%.4f", v) : "null" }

    /// Scanning by ear, said in the summary: each highlight lasts its label's estimated time.
    static func pacing(_ s: ScanSettings) -> String {
        guard s.speechPacing, s.feedback.speech, s.style == .auto else { return "" }
        return String(format: ", each label said at %g words a minute", s.speakingRate)
    }

    /// Seconds exactly as the engine counts them (nanoseconds), with no trailing zeros, so
    /// that a press time given to `simulate` is the same instant.
    static func seconds(_ s: Double) -> String {
        let ns = Int64((s * 1e9).rounded())
        let whole = ns / 1_000_000_000, frac = ns % 1_000_000_000
        guard frac != 0 else { return "\(whole).0" }
        var digits = String(frac)
        digits = String(repeating: "0", count: 9 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(whole).\(digits)"
    }
}

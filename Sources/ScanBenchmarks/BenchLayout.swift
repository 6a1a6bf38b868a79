import ArgumentParser
import CommandSupport
import Foundation
import JSONTape
import ScanCore
import ScanFormats
import ScanHost
import ScanRuntime
import ScanSession

struct BenchLayout: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "layout",
        abstract: "Generate layouts of N elements; time load+validate, scan-list build and one scan step; report memory."
    )

    @Option(help: "Element counts, comma-separated.")
    var sizes: String = "1000,10000,100000,1000000"

    @Option(help: "Repetitions per size (the best is reported).")
    var repeats: Int = 3

    @Flag(help: "One JSON object per size instead of a table.")
    var json = false

    @Flag(help: "Also time 'cost' of every element once per size: auto scanning with the layout's groups and with optimal groups, manual scanning.")
    var cost = false

    func validate() throws {
        guard parsedSizes != nil else { throw ValidationError("--sizes takes positive counts up to 5000000, e.g. --sizes 1000,100000") }
        guard (1...50).contains(repeats) else { throw ValidationError("--repeats takes 1 to 50") }
    }

    var parsedSizes: [Int]? {
        let list = sizes.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !list.isEmpty, list.allSatisfy({ $0 != nil && $0! > 0 && $0! <= 5_000_000 }) else { return nil }
        return list.map { $0! }
    }

    func run() throws {
        if !json {
            print("size        file MB   load+validate ms (parse)   build ms   total ms   memory MB   step ns   top items   JSONDecoder ms")
        }
        for n in parsedSizes! {
            let bytes = generateLayout(elements: n)
            var bestLoad = Double.infinity, bestBuild = Double.infinity, bestParse = Double.infinity, bestDecoder = Double.infinity
            var memory = 0
            var topCount = 0
            var stepNs = 0.0
            for _ in 0..<repeats {
                let before = residentMemoryBytes() ?? 0
                let tp = MonotonicClock.now()
                _ = try? JSONDocument.parse(bytes)
                bestParse = min(bestParse, (MonotonicClock.now() - tp).seconds * 1000)
                let t0 = MonotonicClock.now()
                let doc = try LayoutLoader.load(bytes: bytes, file: "generated-\(n).json")
                let t1 = MonotonicClock.now()
                let scan = ScanTreeBuilder.build(doc.tree, settings: ScanSettings())
                let t2 = MonotonicClock.now()
                // Foundation's decoder on the same bytes, into plain Codable nodes: the
                // decode alone, with no validation and no positions for messages.
                let data = Data(bytes)
                let td = MonotonicClock.now()
                _ = try JSONDecoder().decode(DecodedLayout.self, from: data)
                bestDecoder = min(bestDecoder, (MonotonicClock.now() - td).seconds * 1000)
                memory = max(memory, (residentMemoryBytes() ?? 0) - before)
                bestLoad = min(bestLoad, (t1 - t0).seconds * 1000)
                bestBuild = min(bestBuild, (t2 - t1).seconds * 1000)
                topCount = scan.top.items.count
                stepNs = measureStep(doc.tree)
            }
            let mb = Double(bytes.count) / 1_048_576
            var costs: [(String, Double)] = []
            if cost {
                let tree = try LayoutLoader.load(bytes: bytes, file: "generated-\(n).json").tree
                for (name, change) in [("layout", { (s: inout ScanSettings) in s.grouping = .layout }),
                                       ("optimal", { (s: inout ScanSettings) in s.grouping = .optimal }),
                                       ("manual", { (s: inout ScanSettings) in s.style = .manual })] {
                    var settings = ScanSettings()
                    change(&settings)
                    let t0 = MonotonicClock.now()
                    let costed = try ScanCost.compute(tree, settings: settings)
                    costs.append((name, (MonotonicClock.now() - t0).seconds * 1000))
                    precondition(!costed.isEmpty)
                }
            }
            if json {
                let costFields = costs.map { ",\"cost_\($0.0)_ms\":\(round2($0.1))" }.joined()
                print("{\"elements\":\(n)\(costFields),\"file_mb\":\(round2(mb)),\"load_validate_ms\":\(round2(bestLoad)),\"parse_ms\":\(round2(bestParse)),\"build_ms\":\(round2(bestBuild)),\"total_ms\":\(round2(bestLoad + bestBuild)),\"memory_mb\":\(round2(Double(memory) / 1_048_576)),\"step_ns\":\(round2(stepNs)),\"top_items\":\(topCount),\"jsondecoder_ms\":\(round2(bestDecoder))}")
            } else {
                print(String(format: "%-10d %8.1f %18.1f (%5.1f) %10.1f %10.1f %11.1f %9.0f %11d %16.1f",
                             n, mb, bestLoad, bestParse, bestBuild, bestLoad + bestBuild, Double(memory) / 1_048_576, stepNs, topCount, bestDecoder))
                if !costs.isEmpty { print("           cost of every element: " + costs.map { "\($0.0) \(String(format: "%.0f", $0.1)) ms" }.joined(separator: ", ")) }
            }
        }
    }

    func round2(_ v: Double) -> String { String(format: "%.2f", v) }

    /// Mean cost of one auto-scan step (a deadline that moves the highlight), over many
    /// steps: every step counted is one that happened (loops are set high enough that the
    /// scan never stops), and the first visit of each group, which names it, is included.
    func measureStep(_ tree: ElementTree) -> Double {
        var settings = ScanSettings()
        settings.loops = Int.max
        var engine = ScanEngine(tree: tree, settings: settings)
        _ = engine.start(at: .zero)
        let steps = 200_000
        var done = 0
        var sink = 0
        let t0 = MonotonicClock.now()
        while done < steps, let d = engine.nextDeadline {
            sink &+= engine.handleDeadline(at: d).count
            done += 1
        }
        let t1 = MonotonicClock.now()
        precondition(sink > 0 && done == steps, "the scan stopped after \(done) steps")
        return Double((t1 - t0).nanoseconds) / Double(done)
    }
}

/// A mail-like screen of `elements` nodes: rows of ten buttons, each row a group, with
/// labels, traits and an action on every fifth element, so that loading exercises the
/// common fields. Built as bytes: appending to one huge String is quadratic in places.
func generateLayout(elements: Int) -> [UInt8] {
    let perRow = 10
    let rows = max(1, (elements - 1) / (perRow + 1))
    var s: [UInt8] = []
    s.reserveCapacity(elements * 160)
    func add(_ text: String) { s.append(contentsOf: text.utf8) }
    add("{\"schemaVersion\":1,\"screen\":{\"id\":\"generated\",\"size\":{\"width\":1000,\"height\":\(rows * 40 + 40)}},")
    add("\"root\":{\"id\":\"root\",\"isAccessibilityElement\":false,\"children\":[")
    for r in 0..<rows {
        if r > 0 { add(",") }
        let y = r * 40
        add("{\"id\":\"row\(r)\",\"isAccessibilityElement\":false,\"frame\":{\"x\":0,\"y\":\(y),\"width\":1000,\"height\":40},\"children\":[")
        for c in 0..<perRow {
            if c > 0 { add(",") }
            add("{\"id\":\"b\(r)_\(c)\",\"label\":\"Item \(r % 10000), \(c)\",\"traits\":[\"button\"],\"frame\":{\"x\":\(c * 100),\"y\":\(y),\"width\":100,\"height\":40}")
            if c % 5 == 0 { add(",\"customActions\":[{\"name\":\"delete\",\"effects\":[{\"emit\":\"delete\"}]}]") }
            add("}")
        }
        add("]}")
    }
    add("]}}")
    return s
}

/// The fields of the generated layouts, for Foundation's JSONDecoder to decode.
struct DecodedLayout: Decodable {
    struct Screen: Decodable {
        struct Size: Decodable { var width: Double; var height: Double }
        var id: String
        var size: Size
    }
    struct Frame: Decodable { var x: Double; var y: Double; var width: Double; var height: Double }
    struct Action: Decodable { var name: String; var effects: [[String: String]]? }
    struct Node: Decodable {
        var id: String
        var label: String?
        var traits: [String]?
        var isAccessibilityElement: Bool?
        var frame: Frame?
        var customActions: [Action]?
        var children: [Node]?
    }
    var schemaVersion: Int
    var screen: Screen
    var root: Node
}

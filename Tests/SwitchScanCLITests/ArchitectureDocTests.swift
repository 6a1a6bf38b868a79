import Foundation
import Testing
import TestSupport

/// docs/ARCHITECTURE.md drawn from the code: its threads table names each thread and queue
/// the code makes, once; its modules table is Package.swift's targets and dependencies.
@Suite struct ArchitectureDocTests {
    static let root = TestPaths.packageRoot
    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The names `spawnThread(name:)`, `SerialThread(name:)`, `DispatchQueue(label:)` and
    /// `RealTimeQueue`'s default give, outside the benchmarks, with the files that give them.
    static func namesInCode() throws -> [String: [String]] {
        let sources = root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)!.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") && !$0.hasPrefix("ScanBenchmarks/") }
        let pattern = try Regex(#"(?:name|label|thread)(?:: String =|:) "(switchscan\.[a-z-]+)""#)
        var found: [String: [String]] = [:]
        for file in files {
            let code = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for m in code.matches(of: pattern) {
                found[String(m.output[1].substring!), default: []].append(file)
            }
        }
        return found
    }

    @Test func theThreadsTableNamesEachThreadOnce() throws {
        let code = try Self.namesInCode()
        #expect(code.filter { $0.value.count > 1 }.isEmpty, "a name given twice: \(code.filter { $0.value.count > 1 })")
        let doc = try Self.text("docs/ARCHITECTURE.md")
        let table = doc.components(separatedBy: "\n## Threads\n")[1].components(separatedBy: "\n## ")[0]
        let rows = table.split(separator: "\n").filter { $0.hasPrefix("| `switchscan.") }
        let named = rows.flatMap { row in row.split(separator: "|")[0].matches(of: #/`(switchscan\.[a-z-]+)`/#).map { String($0.output.1) } }
        #expect(Set(named).count == named.count, "a name twice in the table: \(named)")
        #expect(Set(named) == Set(code.keys), "the table: \(Set(named).subtracting(code.keys).sorted()) not in the code; the code: \(Set(code.keys).subtracting(named).sorted()) not in the table")
    }
}

extension ArchitectureDocTests {
    /// Package.swift's modules (test targets left out) with their kind and the modules and
    /// products they depend on, in its order.
    static func modules() throws -> [(name: String, kind: String, dependencies: [String])] {
        let manifest = try text("Package.swift")
        let targets = manifest[manifest.range(of: "targets: [")!.lowerBound...]
        let start = try Regex(#"\n\s*\.(target|executableTarget|systemLibrary|testTarget)\("#)
        let found = targets.matches(of: start)
        return try found.indices.compactMap { k in
            let kind = String(found[k].output[1].substring!)
            guard kind != "testTarget" else { return nil }
            let body = String(targets[found[k].range.upperBound..<(k + 1 < found.count ? found[k + 1].range.lowerBound : targets.endIndex)])
            let name = try #require(body.firstMatch(of: #/name: "([^"]+)"/#)).output.1
            var dependencies: [String] = []
            if let list = body.firstMatch(of: #/dependencies: \[((?:[^\[\]]|\[[^\]]*\])*)\]/#) {
                let plain = list.output.1.replacing(#/\.product\(name: "([^"]+)", package: "[^"]+"\)/#) { "\"\($0.output.1)\"" }
                dependencies = plain.matches(of: #/"([^"]+)"/#).map { String($0.output.1) }
            }
            let kinds = ["target": "library", "executableTarget": "executable", "systemLibrary": "system library"]
            return (String(name), kinds[kind]!, dependencies)
        }
    }

    /// Each module's layer: 0 for those that depend on no module of the package, else one
    /// more than the highest of those it depends on.
    static func layers(_ modules: [(name: String, kind: String, dependencies: [String])]) -> [String: Int] {
        let byName = Dictionary(uniqueKeysWithValues: modules.map { ($0.name, $0.dependencies) })
        var layer: [String: Int] = [:]
        func of(_ name: String) -> Int {
            if let l = layer[name] { return l }
            let l = (byName[name] ?? []).filter { byName[$0] != nil }.map { of($0) + 1 }.max() ?? 0
            layer[name] = l
            return l
        }
        for m in modules { _ = of(m.name) }
        return layer
    }

    /// The modules table, as docs/ARCHITECTURE.md must have it: by layer, then in
    /// Package.swift's order.
    static func modulesTable() throws -> [String] {
        let modules = try Self.modules()
        let layers = Self.layers(modules)
        let order = Dictionary(uniqueKeysWithValues: modules.enumerated().map { ($0.element.name, $0.offset) })
        return modules.sorted { (layers[$0.name]!, order[$0.name]!) < (layers[$1.name]!, order[$1.name]!) }.map { m in
            "| \(layers[m.name]!) | `\(m.name)` | \(m.kind) | \(m.dependencies.map { "`\($0)`" }.joined(separator: ", ")) |"
        }
    }

    @Test func theModulesTableIsPackageSwifts() throws {
        let doc = try Self.text("docs/ARCHITECTURE.md")
        let section = doc.components(separatedBy: "\n## Modules\n")[1].components(separatedBy: "\n## ")[0]
        let rows = section.split(separator: "\n").filter { $0.first == "|" && $0.dropFirst(2).first?.isNumber == true }.map(String.init)
        let expected = try Self.modulesTable()
        #expect(rows == expected, "docs/ARCHITECTURE.md's modules table should be:\n\(expected.joined(separator: "\n"))")
    }
}

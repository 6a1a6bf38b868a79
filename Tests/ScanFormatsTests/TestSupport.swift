import Foundation
import ScanCore
import ScanFormats
import Testing
@_exported import TestSupport

// Shared helpers for the ScanFormats tests: small inline layouts, loading that expects
// success or failure, and a readable rendering of scan lists.

let packageRoot = TestPaths.packageRoot

func layoutsDirectory() -> URL { packageRoot.appendingPathComponent("Layouts") }

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

/// Loads a layout that must be rejected; returns its diagnostics (errors and any others).
func rejection(_ json: String, file: String = "test.json", sourceLocation: SourceLocation = #_sourceLocation) -> DataFileError? {
    do {
        let doc = try LayoutLoader.load(bytes: bytes(json), file: file)
        Issue.record("expected \(file) to be rejected; it loaded \(doc.tree.count) nodes, warnings: \(doc.warnings.map(\.description))",
                     sourceLocation: sourceLocation)
        return nil
    } catch {
        #expect(error.file == file, sourceLocation: sourceLocation)
        #expect(!error.errors.isEmpty, "a rejected file must carry at least one error", sourceLocation: sourceLocation)
        return error
    }
}

/// The errors of a layout that must be rejected.
func errors(_ json: String, file: String = "test.json", sourceLocation: SourceLocation = #_sourceLocation) -> [Diagnostic] {
    rejection(json, file: file, sourceLocation: sourceLocation)?.errors ?? []
}

/// The single error of a layout with exactly one mistake.
func onlyError(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Diagnostic {
    let errs = errors(json, sourceLocation: sourceLocation)
    #expect(errs.count == 1, "expected exactly one error, got: \(errs.map(\.description))", sourceLocation: sourceLocation)
    return try #require(errs.first, sourceLocation: sourceLocation)
}

/// The 1-based (line, column) of the first occurrence of `marker` in `text`, computed
/// independently of the loader (columns count characters).
func position(of marker: String, in text: String, occurrence: Int = 1) -> (line: Int, column: Int)? {
    var seen = 0
    for (k, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        var search = line[...]
        while let r = search.range(of: marker) {
            seen += 1
            if seen == occurrence { return (k + 1, line.distance(from: line.startIndex, to: r.lowerBound) + 1) }
            search = line[r.upperBound...]
        }
    }
    return nil
}

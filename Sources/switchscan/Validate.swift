import ArgumentParser
import CommandSupport
import Foundation
import ScanCore
import ScanFormats
import ScanSession

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check layout and settings files; print every problem with its file and place.",
        discussion: "Exit status 0 when all files are valid (warnings allowed), 2 when any has an error."
    )

    @Argument(help: "Layout or settings files (JSON). The kind is told by the content: a layout has \"schemaVersion\" and \"root\".")
    var files: [String] = []

    @Flag(help: "Also print warnings and notes (W…, I…) for valid files.")
    var warnings = false

    func run() throws {
        guard !files.isEmpty else {
            throw ValidationError("No file given. Pass layout or settings files, e.g. 'switchscan validate Layouts/*.json'.")
        }
        // Each file's result in order; with any failure all of it goes to stderr, so that
        // stdout holds "ok" lines only when every file is fine (status 0).
        var failed = false
        var report = ""
        for file in files {
            let bytes: [UInt8]
            do { bytes = try readBytes(file, what: "file", streams: true) } catch {
                report += error.message + "\n"; failed = true; continue
            }
            // Parsed once: the content tells a layout from settings, and the loader reads the
            // same document. Unparseable files get the JSON error, which is the same for both.
            let parsed: ParsedDataFile
            do {
                try LayoutLoader.checkSize(bytes.count, file: file)
                parsed = try ParsedDataFile(bytes: bytes, file: file)
            } catch {
                report += error.description + "\n"; failed = true; continue
            }
            if parsed.hasTopLevelKey(Self.layoutKeys) {
                do {
                    let doc = try LayoutLoader.load(parsed)
                    let items = ScanTreeBuilder.build(doc.tree, settings: ScanSettings()).top.items.count
                    report += "\(file): ok (layout \"\(doc.tree.screenID)\", \(counted(doc.tree.count, "node")), \(counted(items, "top-level item")))\n"
                    if warnings { for w in doc.warnings { report += "\(w)\n" } }
                } catch {
                    report += error.description + "\n"; failed = true
                }
            } else {
                do {
                    _ = try SettingsLoader.load(parsed)
                    report += "\(file): ok (settings)\n"
                } catch {
                    report += error.description + "\n"; failed = true
                }
            }
        }
        if failed { throw fail(report) }
        writeMessage(report)
    }

    /// A layout has at least one of its required top-level keys; anything else is read as
    /// settings (so `{}` is valid settings, and a misspelt settings key gets a did-you-mean).
    static let layoutKeys = ["schemaVersion", "root", "screen"]
}

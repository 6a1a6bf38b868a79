import Compositors
import ScanCore
import ScreenScene
import Foundation
import Testing

/// SwitchScan's GNOME Shell extension (packaging/gnome-shell) read by GJS, GNOME Shell's
/// JavaScript engine, outside the Shell: each entry point parses as what its GNOME loads (a
/// script for 43–44, an ES module for 45 on) and fails only where it reaches the Shell; the
/// shared core loads and speaks SwitchScan's protocol; the metadata names SwitchScan's
/// version and every GNOME it is written for; the interface offers what `GnomeShell` calls.
@Suite struct GnomeExtensionScriptTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("packaging/gnome-shell/\(GnomeShell.uuid)")
    static let gjs = "/usr/bin/gjs"

    /// What GJS makes of `file` loaded as an ES module: "loaded NAMES PROTOCOL", or the error
    /// it stopped at, marked SYNTAX for a syntax error.
    static func load(module file: String) throws -> String {
        try #require(FileManager.default.isExecutableFile(atPath: gjs), "GJS is not installed (apt-get install gjs; gnome-shell depends on it)")
        let script = """
            const loop = new imports.gi.GLib.MainLoop(null, false);
            import(ARGV[0]).then(m => print('loaded ' + Object.keys(m).sort().join(',') + ' ' + m.PROTOCOL),
                e => print((e instanceof SyntaxError ? 'SYNTAX ' : 'ERROR ') + e.message)).finally(() => loop.quit());
            loop.run();
            """
        return try run([ "-c", script, folder.appendingPathComponent(file).absoluteString])
    }

    static func run(_ args: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: gjs)
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test func theCoreLoadsAndSpeaksSwitchScansProtocol() throws {
        #expect(try Self.load(module: "core.js").contains("loaded PROTOCOL,start \(GnomeShell.protocolVersion)"))
    }

    /// GNOME 45 and later: an ES module, which stops only at the Shell's own modules.
    @Test func theGnome45EntryPointIsAModuleThatReachesOnlyForTheShell() throws {
        let said = try Self.load(module: "extension-45.js")
        #expect(!said.contains("SYNTAX") && said.contains("ERROR Unable to load file from: resource:///org/gnome/shell/"), "\(said)")
    }

    /// GNOME 43 and 44: a script, which stops only at the Shell's libraries.
    @Test func theGnome43EntryPointIsAScriptThatReachesOnlyForTheShell() throws {
        let said = try Self.run([Self.folder.appendingPathComponent("extension-43.js").path])
        #expect(!said.contains("SyntaxError") && said.contains("Requiring Clutter"), "\(said)")
    }

    /// The scene as the extension reads it: a label carries its size only where it is the
    /// message's larger one (core.js draws the others in the scene's font size).
    @Test func theMessagesLabelsCarryTheirLargerSize() throws {
        var layers = SceneDrawing.Layers()
        let box = PixelRect(x: 1, y: 2, width: 30, height: 40), white = RGBColor(red: 255, green: 255, blue: 255)
        layers.keyboard = [.label("Hi", white, box: box, at: (3, 4), large: true), .label("Speak", white, box: box, at: (5, 6))]
        let json = ShellOverlay.json(layers, family: "DejaVu Sans", size: 18, messageSize: 28)
        #expect(json.contains(##"["t",1,2,30,40,"Hi","#ffffff",3,4,28]"##), "\(json)")
        #expect(json.contains(##"["t",1,2,30,40,"Speak","#ffffff",5,6]"##), "\(json)")
        let core = try String(contentsOf: Self.folder.appendingPathComponent("core.js"), encoding: .utf8)
        #expect(core.contains("font-size: ${i[9] ?? font.size ?? 18}px"))
    }

    @Test func theMetadataNamesSwitchScansVersionAndEveryGnomeFrom43() throws {
        let metadata = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.folder.appendingPathComponent("metadata.json"))) as? [String: Any])
        let versionFile = try String(contentsOf: Self.folder.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/CommandSupport/Version.swift"), encoding: .utf8)
        let version = versionFile.split(separator: "\"").dropFirst().first.map(String.init)
        #expect(metadata["uuid"] as? String == GnomeShell.uuid)
        #expect(metadata["version-name"] as? String == version)
        #expect(metadata["shell-version"] as? [String] == (43...49).map(String.init))
    }

    /// What `GnomeShell` calls and hears, in the interface the core exports.
    @Test func theInterfaceOffersWhatSwitchScanCalls() throws {
        let core = try String(contentsOf: Self.folder.appendingPathComponent("core.js"), encoding: .utf8)
        for method in ["Hello", "Listen", "GetWindows", "Perform", "CommitText", "Show", "Hide"] {
            #expect(core.contains("<method name=\"\(method)\"") && core.contains("\(method)Async:"), "\(method)")
        }
        for signal in ["WindowsChanged", "Painted"] { #expect(core.contains("<signal name=\"\(signal)\">"), "\(signal)") }
        #expect(core.contains("const BUS_NAME = '\(GnomeShell.busName)'"))
    }
}

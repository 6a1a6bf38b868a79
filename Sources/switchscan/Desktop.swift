import ArgumentParser
import CommandSupport
import DesktopAccess
import Foundation
import ScanCore
import ScanFormats
import ScanHost
import ScanRuntime
import ScanSession

struct Desktop: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "desktop",
        abstract: "List the applications and windows on the accessibility bus, and which window 'run --desktop' would scan.",
        discussion: "Exit status 1 when the accessibility bus cannot be reached or no window can be scanned; the message says how to fix it."
    )

    @Option(help: "Say which window of this application (its name as listed) would be scanned.")
    var app: String?

    func run() throws {
        let env = ProcessInfo.processInfo.environment
        let compositor = Compositor(env)
        let desktop = try connectDesktop()
        defer { desktop.stop() }
        // What was opened, not what was hoped for.
        var places = desktop.places.map { "from \($0.name)" } ?? "unknown"
        if desktop.places == nil, case .none(let why) = PlaceSource(compositor, env) { places += ": \(why)" }
        print("Session: \(compositor.name); window places \(places).")
        if compositor == .gnome {
            // GNOME offers none of the Wayland protocols: the extension draws, Mutter's remote
            // desktop taps and types.
            print(GnomeExtension.status(env))
        } else if compositor.isWayland {
            do { print(WaylandInterface.describe(try WaylandInterface.offered(environment: env), compositor: compositor)) } catch { print("The compositor's registry cannot be asked: \(error).") }
        }
        let apps = desktop.applications()
        // Names and titles are the applications' own: shown, never obeyed, by the terminal.
        func v(_ s: String) -> String { TerminalText.visible(s) }
        for a in apps {
            print("\(v(a.name)) (pid \(a.processID)\(a.toolkit.isEmpty ? "" : ", \(v(a.toolkit))")): \(a.windows.count) showing window\(a.windows.count == 1 ? "" : "s")")
            for w in a.windows {
                var flags: [String] = []
                if w.active { flags.append("active") }
                if w.modal { flags.append("modal") }
                let frame = w.frame.map { " at \(Int($0.x)),\(Int($0.y)) \(Int($0.width))x\(Int($0.height))" } ?? ""
                print("  \(v(w.role)) \"\(v(w.title))\"\(frame)\(flags.isEmpty ? "" : " [" + flags.joined(separator: ", ") + "]")"
                      + (w.place.map { ": \(v($0))" } ?? ""))
            }
        }
        switch desktop.choose(app: app) {
        case .success(let c):
            print("Scanned: \"\(v(c.window.title))\" of \(v(c.application)): \(v(c.reason)).")
        case .failure(let e):
            writeErr(e.description + "\n")
            throw ExitCode(1)
        }
    }
}

struct Snapshot: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Write the live window that 'run --desktop' would scan as a layout file (schema v1).",
        discussion: """
        The file validates with 'switchscan validate', and 'switchscan simulate' scans it to the \
        same items as the live run: a switch-accessibility audit of a real application, and a test \
        fixture. Frames are screen coordinates. Exit status 1 when nothing can be read.
        """
    )

    @Option(help: "Read this application's window (its name as 'switchscan desktop' lists it).")
    var app: String?

    @Option(name: .shortAndLong, help: "Write the layout to this file (default: standard output).")
    var output: String?

    func run() throws {
        let desktop = try connectDesktop()
        defer { desktop.stop() }
        switch desktop.snapshot(app: app) {
        case .success(let s):
            let text = LayoutWriter.json(s.tree, title: s.window.title.isEmpty ? s.application : s.window.title)
            if let output {
                do throws(FileReadError) { try writeOutputFile(output, Array(text.utf8), what: "layout") } catch {
                    writeErr(error.description + "\n")
                    throw ExitCode(1)
                }
            } else {
                print(text, terminator: text.hasSuffix("\n") ? "" : "\n")
            }
            if s.readAgain > 0 {
                let times = s.readAgain == 1 ? "once" : "\(s.readAgain) times"
                writeErr("Note: '\(s.application)' stopped answering while its window was read (busy); it was waited for and read again, whole (\(times)).\n")
            }
            if s.truncated {
                writeErr("Warning: the window has more than \(s.nodeCount) nodes; the rest was left out.\n")
            }
        case .failure(let e):
            writeErr(e.description + "\n")
            throw ExitCode(1)
        }
    }
}

import JSONTape
import ScanCore

/// The KWin scripts SwitchScan loads (over `org.kde.kwin.Scripting`) and what they report.
/// Pure: text out, bytes in. KWin offers no other way to learn where windows are: a script
/// runs inside KWin, sees every window's frame and buffer rectangles, and calls SwitchScan's
/// D-Bus object with the whole list whenever a window comes, goes, moves or is resized, or
/// the focus moves. The script speaks both KWin 5.27's names (`clientList`, `clientAdded`,
/// `activeClient`) and Plasma 6's (`windowList`, `windowAdded`, `activeWindow`).
public enum KWinScript {
    /// The D-Bus interface of SwitchScan's object that the script calls.
    public static let interface = "org.switchscan.KWinPlaces"
    /// Its one method: the windows as JSON (`report(_:)` reads it).
    public static let method = "Windows"

    /// The script that follows the windows and calls `service`'s object at `path`.
    public static func places(service: String, path: String) -> String {
        common + """
            function send() {
                const list = [];
                for (const w of windows()) {
                    // Plasma 6 lists unmanaged and KWin's own windows too.
                    if (w.managed === false || w.deleted || w.popupWindow) continue;
                    try { list.push(describe(w)); } catch (e) { /* a window going as it is read */ }
                }
                callDBus(\(quoted(service)), \(quoted(path)), \(quoted(interface)), \(quoted(method)), JSON.stringify({ windows: list }));
            }
            function watch(w) {
                for (const name of ["frameGeometryChanged", "captionChanged", "minimizedChanged", "fullScreenChanged", "clientMinimized",
                                    "clientUnminimized", "clientMaximizedStateChanged", "maximizedChanged"]) {
                    if (w[name] && w[name].connect) w[name].connect(send);
                }
            }
            for (const name of ["clientAdded", "windowAdded"]) {
                if (workspace[name]) workspace[name].connect(function (w) { watch(w); send(); });
            }
            for (const name of ["clientRemoved", "windowRemoved", "clientActivated", "windowActivated", "currentDesktopChanged"]) {
                if (workspace[name]) workspace[name].connect(send);
            }
            for (const w of windows()) watch(w);
            send();

            """
    }

    /// A script that carries out `command` on the window whose `internalId` is `id`, once.
    public static func perform(_ command: WindowCommand, window id: String) -> String {
        let act = switch command {
        case .activate: "w.minimized = false; if (plasma6) workspace.activeWindow = w; else workspace.activeClient = w;"
        case .close: "w.closeWindow();"
        case .minimize: "w.minimized = true;"
        case .maximize: "w.setMaximize(true, true);"
        case .restore: "w.setMaximize(false, false);"
        }
        return common + """
            for (const w of windows()) {
                if (String(w.internalId) === \(quoted(id))) { \(act) }
            }

            """
    }

    /// What both scripts share: the window list under either version's name, and one window
    /// as the report gives it.
    private static let common = """
        // Written by SwitchScan; loaded for the length of a run.
        const plasma6 = typeof workspace.windowList === "function";
        function windows() { return plasma6 ? workspace.windowList() : workspace.clientList(); }
        function rect(g) { return g ? [g.x, g.y, g.width, g.height] : null; }
        function describe(w) {
            const frame = w.frameGeometry;
            let maximized = false;
            try {
                const area = workspace.clientArea(KWin.MaximizeArea, w);
                maximized = !!area && frame.x === area.x && frame.y === area.y && frame.width === area.width && frame.height === area.height;
            } catch (e) { /* no maximise area: not maximised */ }
            return {
                id: String(w.internalId), pid: w.pid, title: String(w.caption || ""),
                app: String(w.desktopFileName || w.resourceClass || ""),
                x11: w.windowId !== undefined && w.windowId !== 0 && !w.wayland,
                frame: rect(frame), buffer: rect(w.bufferGeometry),
                active: !!w.active, minimized: !!w.minimized, fullScreen: !!w.fullScreen, maximized: maximized,
                listed: !w.skipTaskbar && (!!w.normalWindow || !!w.dialog)
            };
        }

        """

    /// `text` as a JavaScript string literal: a JSON one, which escapes what ends a line in
    /// JavaScript too.
    static func quoted(_ text: String) -> String { jsonString(text) }

    /// One window as the script reports it.
    public typealias Window = WindowReport.Window

    /// The script's report: every window KWin manages, in the order KWin lists them.
    public static func report(_ bytes: [UInt8]) throws(KWinError) -> [Window] {
        do { return try WindowReport.parse(bytes) } catch { throw KWinError("KWin's \(error.description)") }
    }
}

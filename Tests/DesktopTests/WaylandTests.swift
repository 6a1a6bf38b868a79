import Foundation
import Testing

/// SwitchScan under headless sway: native Wayland windows placed from sway's IPC, XWayland
/// ones beside them on the screen as they say; checked against what sway draws.
@Suite(.serialized) struct WaylandTests {
    /// The check box frames of a snapshot (a layout file's tree).
    static func checkBoxes(_ layout: [String: Any]) -> [ScreenRect] {
        var out: [ScreenRect] = []
        func walk(_ n: [String: Any]) {
            if n["label"] as? String == "checkbutton", let f = n["frame"] as? [String: Any],
               let x = f["x"] as? Double, let y = f["y"] as? Double, let w = f["width"] as? Double, let h = f["height"] as? Double {
                out.append(ScreenRect(x: Int(x), y: Int(y), width: Int(w), height: Int(h)))
            }
            for c in n["children"] as? [[String: Any]] ?? [] { walk(c) }
        }
        walk(layout["root"] as? [String: Any] ?? [:])
        return out
    }

    /// gtk3-widget-factory measures its frames from its buffer, shadow included; sway says
    /// where its window is. Each check box is drawn inside the frame SwitchScan gives it.
    @Test func aNativeGtk3WindowIsPlacedFromSwaysIPC() throws {
        let session = try WaylandSession()
        defer { session.stop() }
        try session.launch("/usr/bin/gtk3-widget-factory")
        try session.waitForApplication(named: "gtk3-widget-factory")
        var desktop = ToolResult(command: [], status: -1, stdout: "", stderr: "", timedOut: false)
        // The window shows on AT-SPI a moment before sway has placed it.
        _ = try TestTime.poll(timeout: 10, every: 0.2) {
            desktop = try session.runSwitchscan(["desktop", "--app", "gtk3-widget-factory"])
            return desktop.stdout.contains("placed by")
        }
        #expect(desktop.status == 0, "\(desktop)")
        #expect(desktop.stdout.contains("Session: sway (Wayland); window places from sway's IPC."), "\(desktop)")
        // 26 × 23 px of shadow around the window sway floated to 200,150.
        #expect(desktop.stdout.contains("at 174,127 1467x784: placed by sway's IPC (geometry less the shadow)"), "\(desktop)")

        let snapshot = try session.runSwitchscan(["snapshot", "--app", "gtk3-widget-factory"])
        #expect(snapshot.status == 0, "\(snapshot)")
        let layout = try #require(try JSONSerialization.jsonObject(with: Data(snapshot.stdout.utf8)) as? [String: Any])
        let boxes = Self.checkBoxes(layout)
        try #require(!boxes.isEmpty, "no check box in \(snapshot.stdout.prefix(2000))")
        #expect(boxes.allSatisfy { $0.x >= session.windowCorner.x && $0.y >= session.windowCorner.y }, "\(boxes)")

        // Each check box is drawn where its frame says: its indicator (a 14 px square a few
        // pixels in) differs from the window's background, which the 8 px left of the frame and
        // the row 3 px above it are.
        let screen = try session.captureScreen()
        for box in boxes {
            let background = screen.pixel(x: box.x - 4, y: box.y + box.height / 2)
            let indicator = ScreenRect(x: box.x, y: box.y, width: box.height, height: box.height)
            let drawn = (indicator.y..<indicator.y + indicator.height).reduce(0) { n, y in
                n + (indicator.x..<indicator.x + indicator.width).filter { screen.pixel(x: $0, y: y).distance(to: background) > 40 }.count
            }
            #expect(drawn >= 40, "no check box indicator inside \(box): \(drawn) pixels differ from \(background)")
            let left = (box.y..<box.y + box.height).allSatisfy { y in (box.x - 8..<box.x).allSatisfy { screen.pixel(x: $0, y: y).distance(to: background) <= 8 } }
            let above = (box.x..<box.x + box.height).allSatisfy { screen.pixel(x: $0, y: box.y - 3).distance(to: background) <= 8 }
            #expect(left && above, "something is drawn just outside \(box)")
        }
    }
}


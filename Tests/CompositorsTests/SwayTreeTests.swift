@testable import Compositors
import Foundation
import ScanCore
import Testing

/// sway's window tree read as window places, and AT-SPI frames put on the screen from them.
@Suite struct SwayTreeTests {
    /// sway 1.7's `GET_TREE` (fields SwitchScan does not read left out), headless, one
    /// 1280 × 800 output, `for_window [app_id=".*"] floating enable, move position 200 150`:
    /// gtk3-widget-factory (client-side decorations) and galculator (sway's title bar) native,
    /// mousepad through XWayland, tiled.
    static let tree = #"""
    {"id": 1, "type": "root", "focused": false, "rect": {"x": 0, "y": 0, "width": 1280, "height": 800}, "window_rect": {"x": 0, "y": 0, "width": 0, "height": 0}, "geometry": {"x": 0, "y": 0, "width": 0, "height": 0}, "name": "root", "nodes": [{"id": 2147483647, "type": "output", "focused": false, "rect": {"x": 0, "y": 0, "width": 1280, "height": 800}, "window_rect": {"x": 0, "y": 0, "width": 0, "height": 0}, "geometry": {"x": 0, "y": 0, "width": 0, "height": 0}, "name": "__i3", "nodes": [{"id": 2147483646, "type": "workspace", "focused": false, "rect": {"x": 0, "y": 0, "width": 1280, "height": 800}, "window_rect": {"x": 0, "y": 0, "width": 0, "height": 0}, "geometry": {"x": 0, "y": 0, "width": 0, "height": 0}, "name": "__i3_scratch", "nodes": [], "floating_nodes": []}], "floating_nodes": []}, {"id": 3, "type": "output", "focused": false, "rect": {"x": 0, "y": 0, "width": 1280, "height": 800}, "window_rect": {"x": 0, "y": 0, "width": 0, "height": 0}, "geometry": {"x": 0, "y": 0, "width": 0, "height": 0}, "name": "HEADLESS-1", "nodes": [{"id": 4, "type": "workspace", "focused": false, "rect": {"x": 0, "y": 0, "width": 1280, "height": 800}, "window_rect": {"x": 0, "y": 0, "width": 0, "height": 0}, "geometry": {"x": 0, "y": 0, "width": 0, "height": 0}, "name": "1", "nodes": [{"id": 7, "type": "con", "focused": true, "rect": {"x": 0, "y": 25, "width": 1280, "height": 775}, "window_rect": {"x": 2, "y": 0, "width": 1276, "height": 773}, "geometry": {"x": 0, "y": 0, "width": 640, "height": 480}, "name": "Untitled 1 - Mousepad", "nodes": [], "floating_nodes": [], "pid": 22596, "app_id": null, "shell": "xwayland", "window_properties": {"class": "Mousepad", "title": "Untitled 1 - Mousepad"}}], "floating_nodes": [{"id": 5, "type": "floating_con", "focused": false, "rect": {"x": 200, "y": 175, "width": 355, "height": 346}, "window_rect": {"x": 2, "y": 0, "width": 351, "height": 344}, "geometry": {"x": 0, "y": 0, "width": 351, "height": 344}, "name": "galculator", "nodes": [], "floating_nodes": [], "pid": 22550, "app_id": "galculator", "shell": "xdg_shell"}, {"id": 6, "type": "floating_con", "focused": false, "rect": {"x": 200, "y": 150, "width": 1415, "height": 732}, "window_rect": {"x": 0, "y": 0, "width": 1415, "height": 732}, "geometry": {"x": 0, "y": 0, "width": 1415, "height": 732}, "name": "gtk3-widget-factory", "nodes": [], "floating_nodes": [], "pid": 22548, "app_id": "gtk3-widget-factory", "shell": "xdg_shell"}]}], "floating_nodes": []}], "floating_nodes": []}
    """#

    static func places() throws -> [WindowPlace] { try SwayTree.places(Array(tree.utf8)) }

    @Test func everyWindowIsReadWithItsProcessAndKind() throws {
        let places = try Self.places()
        #expect(places.map(\.title) == ["Untitled 1 - Mousepad", "galculator", "gtk3-widget-factory"])
        #expect(places.map(\.id) == ["7", "5", "6"])
        #expect(places.map(\.pid) == [22596, 22550, 22548])
        #expect(places.map(\.client) == [.x11, .wayland, .wayland])
        #expect(places.map(\.appID) == ["Mousepad", "galculator", "gtk3-widget-factory"])
        #expect(places.map(\.active) == [true, false, false])
        // The container's rect moved by its window_rect: sway's borders left out.
        #expect(places.map(\.geometry) == [Rect(x: 2, y: 25, width: 1276, height: 773), Rect(x: 202, y: 175, width: 351, height: 344),
                                           Rect(x: 200, y: 150, width: 1415, height: 732)])
        #expect(places.allSatisfy { $0.buffer == nil })
    }

    /// The frames AT-SPI gave for the same windows at the same moment.
    @Test func theirFramesArePutOnTheScreen() throws {
        let places = try Self.places()
        // gtk3-widget-factory: its frame is its buffer, its first child at the shadow's offset.
        let gtk3 = try #require(WindowPlace.matching(pid: 22548, title: "", in: places))
        #expect(FrameOrigin.of(frame: Rect(x: 0, y: 0, width: 1467, height: 784), place: gtk3, firstChild: Point(x: 26, y: 23))
                == .offset(Point(x: 174, y: 127), from: .shadowOffset))
        // galculator: its frame is the window inside sway's borders.
        let calculator = try #require(WindowPlace.matching(pid: 22550, title: "galculator", in: places))
        #expect(FrameOrigin.of(frame: Rect(x: 0, y: 0, width: 351, height: 344), place: calculator, firstChild: Point(x: 0, y: 0))
                == .offset(Point(x: 202, y: 175), from: .geometry))
        // mousepad through XWayland: its frame (2,25) is on the screen already.
        let mousepad = try #require(WindowPlace.matching(pid: 22596, title: "Untitled 1 - Mousepad", in: places))
        #expect(FrameOrigin.of(frame: Rect(x: 2, y: 25, width: 1276, height: 773), place: mousepad) == .screen)
    }

    @Test func notATreeIsSaidSo() throws {
        #expect(throws: SwayError.self) { try SwayTree.places(Array("i3-ipc".utf8)) }
        #expect(throws: SwayError.self) { try SwayTree.places(Array("[]".utf8)) }
        // A node without a rect or a pid is no window.
        #expect(try SwayTree.places(Array(#"{"nodes":[{"pid":1},{"rect":{"x":0,"y":0,"width":1,"height":1}}]}"#.utf8)).isEmpty)
    }

    @Test func commandAnswersSayWhetherTheySucceeded() {
        #expect(SwayTree.succeeded(Array(#"{"success": true}"#.utf8)))
        #expect(SwayTree.succeeded(Array(#"[{"success": true}, {"success": true}]"#.utf8)))
        #expect(!SwayTree.succeeded(Array(#"[{"success": true}, {"success": false, "error": "No matching node"}]"#.utf8)))
        #expect(!SwayTree.succeeded(Array("[]".utf8)))
        #expect(!SwayTree.succeeded(Array("nonsense".utf8)))
    }

    /// The Windows page's list: every window in the tree's order, the focused one active, one
    /// put in the scratchpad minimised, a full-screen one maximised.
    @Test func theWindowsPageListsEveryWindowWithItsState() throws {
        let plain = try SwayTree.windows(Array(Self.tree.utf8))
        #expect(plain.map(\.id) == ["7", "5", "6"])
        #expect(plain.map(\.title) == ["Untitled 1 - Mousepad", "galculator", "gtk3-widget-factory"])
        #expect(plain.map(\.active) == [true, false, false])
        #expect(plain.allSatisfy { !$0.minimized && !$0.maximized })
        // galculator put away, gtk3-widget-factory full screen (its fullscreen_mode 1).
        let moved = Self.tree
            .replacingOccurrences(of: #""name": "__i3_scratch", "nodes": [], "floating_nodes": []"#,
                                  with: #""name": "__i3_scratch", "nodes": [], "floating_nodes": [{"id": 5, "type": "floating_con", "focused": false, "rect": {"x": 0, "y": 0, "width": 355, "height": 346}, "name": "galculator", "pid": 22550, "app_id": "galculator", "shell": "xdg_shell"}]"#)
            .replacingOccurrences(of: #"{"id": 5, "type": "floating_con", "focused": false, "rect": {"x": 200, "y": 175, "width": 355, "height": 346}, "window_rect": {"x": 2, "y": 0, "width": 351, "height": 344}, "geometry": {"x": 0, "y": 0, "width": 351, "height": 344}, "name": "galculator", "nodes": [], "floating_nodes": [], "pid": 22550, "app_id": "galculator", "shell": "xdg_shell"}, "#, with: "")
            .replacingOccurrences(of: #""name": "gtk3-widget-factory", "nodes""#, with: #""name": "gtk3-widget-factory", "fullscreen_mode": 1, "nodes""#)
        #expect(moved != Self.tree)
        let windows = try SwayTree.windows(Array(moved.utf8))
        #expect(windows.map(\.id) == ["5", "7", "6"])
        #expect(windows.map(\.minimized) == [true, false, false])
        #expect(windows.map(\.maximized) == [false, false, true])
    }

    /// Each of the page's commands is a sway command on the window's container.
    @Test func theWindowsPagesCommandsAreSwayCommands() {
        #expect(WindowCommand.allCases.map(SwayWindows.command) == ["focus", "kill", "move scratchpad", "fullscreen enable", "fullscreen disable"])
    }
}

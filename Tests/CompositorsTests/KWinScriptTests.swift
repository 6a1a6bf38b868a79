@testable import Compositors
import Foundation
import ScanCore
import Testing

/// SwitchScan's KWin scripts and their reports, read as window places: pure, without KWin.
@Suite struct KWinScriptTests {
    /// What the script reported under headless KWin 5.27: gtk3-widget-factory (client-side
    /// decorations: its buffer holds its shadow, partly off the screen) and mousepad (KWin's
    /// title bar: the buffer is below it, inside the frame).
    static let report = #"""
    {"windows":[{"id":"{6f5ef5c6-639e-48e6-80d9-604759d5b6a6}","pid":16480,"title":"gtk3-widget-factory","app":"gtk3-widget-factory","x11":false,"frame":[-51,21,1382,758],"buffer":[-77,-2,1434,810],"active":false,"minimized":false,"fullScreen":false,"maximized":false,"listed":true},{"id":"{0d07e357-762f-4f88-8cde-b2051fb75566}","pid":21350,"title":"Untitled 1 - Mousepad","app":"mousepad","x11":false,"frame":[320,141,640,517],"buffer":[320,178,640,480],"active":true,"minimized":false,"fullScreen":false,"maximized":false,"listed":true}]}
    """#

    @Test func aReportIsReadAsPlaces() throws {
        let windows = try KWinScript.report(Array(Self.report.utf8))
        #expect(windows.map(\.place.title) == ["gtk3-widget-factory", "Untitled 1 - Mousepad"])
        #expect(windows.map(\.place.pid) == [16480, 21350])
        #expect(windows.map(\.place.appID) == ["gtk3-widget-factory", "mousepad"])
        #expect(windows.map(\.place.active) == [false, true])
        #expect(windows.map(\.place.client) == [.wayland, .wayland])
        #expect(windows[0].place.geometry == Rect(x: -51, y: 21, width: 1382, height: 758))
        #expect(windows[0].place.buffer == Rect(x: -77, y: -2, width: 1434, height: 810))
        #expect(windows.allSatisfy { $0.listed && !$0.minimized && !$0.maximized })
    }

    /// The frames AT-SPI gave at the same moment: each window's frame is its buffer's size,
    /// so its origin is the buffer's (GTK 3's shadow; below KWin's title bar).
    @Test func theirFramesArePutOnTheScreen() throws {
        let places = try KWinScript.report(Array(Self.report.utf8)).map(\.place)
        let factory = try #require(WindowPlace.matching(pid: 16480, title: "gtk3-widget-factory", in: places))
        #expect(FrameOrigin.of(frame: Rect(x: 0, y: 0, width: 1434, height: 810), place: factory)
                == .offset(Point(x: -77, y: -2), from: .buffer))
        let mousepad = try #require(WindowPlace.matching(pid: 21350, title: "", in: places))
        #expect(FrameOrigin.of(frame: Rect(x: 0, y: 0, width: 640, height: 480), place: mousepad)
                == .offset(Point(x: 320, y: 178), from: .buffer))
    }

    /// A damaged report is refused with what is wrong; a window without what places it is
    /// left out, the rest kept; an X11 window is marked so (its frames are on the screen).
    @Test func damagedReportsAreRefusedOrTrimmed() throws {
        #expect(throws: KWinError.self) { try KWinScript.report(Array("{\"windows\": [".utf8)) }
        #expect(throws: KWinError.self) { try KWinScript.report(Array("[]".utf8)) }
        let some = try KWinScript.report(Array(#"""
            {"windows":[{"id":"a","frame":[1,2,3]},{"frame":[0,0,10,10]},{"id":"b","pid":0,"frame":[0,0,10,-1]},
                        {"id":"c","pid":7,"frame":[5,6,7,8],"x11":true,"minimized":true,"fullScreen":true,"listed":false}]}
            """#.utf8))
        #expect(some.map(\.place.id) == ["c"])
        #expect(some[0].place.client == .x11 && some[0].place.buffer == nil && some[0].minimized && some[0].maximized && !some[0].listed)
    }

    /// The script names SwitchScan's object as a string literal, whatever the name holds.
    @Test func theScriptCallsBackWithQuotedNames() {
        let script = KWinScript.places(service: ":1.42", path: "/org/switchscan/KWinPlaces")
        #expect(script.contains(#"callDBus(":1.42", "/org/switchscan/KWinPlaces", "org.switchscan.KWinPlaces", "Windows""#))
        // Both KWin 5.27's and Plasma 6's names.
        for name in ["clientList", "windowList", "clientAdded", "windowAdded", "clientActivated", "windowActivated", "frameGeometryChanged"] {
            #expect(script.contains(name), "\(name)")
        }
        #expect(KWinScript.quoted("a\"b\\c\nd\u{1}\u{2028}") == #""a\"b\\c\nd\u0001\u2028""#)
        let close = KWinScript.perform(.close, window: "{x\"}")
        #expect(close.contains(#"String(w.internalId) === "{x\"}""#) && close.contains("w.closeWindow();"))
        #expect(KWinScript.perform(.activate, window: "w").contains("workspace.activeClient = w"))
        #expect(KWinScript.perform(.activate, window: "w").contains("workspace.activeWindow = w"))
    }
}

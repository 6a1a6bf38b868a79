import ScanCore
import Testing

/// Where a native Wayland application's AT-SPI frames are measured from, told from the
/// compositor's rectangles alone. The numbers were read off real windows: gtk3-widget-factory
/// and gtk4-widget-factory under sway 1.7, GNOME Shell 43 (through a Shell extension) and
/// KWin 5.27 (through a KWin script), galculator with sway's title bar, and an X11 client
/// through XWayland; each check box's place on the screen was checked against a screenshot.
@Suite("Window origins")
struct WindowOriginTests {
    /// gtk3-widget-factory's window frame: its buffer, 26 × 23 px of shadow around the
    /// 1415 × 732 window; its "Check button" check box inside it.
    static let gtk3Frame = Rect(x: 0, y: 0, width: 1467, height: 784)
    static let gtk3Shadow = Point(x: 26, y: 23)
    static let gtk3CheckBox = Rect(x: 36, y: 416, width: 118, height: 22)

    @Test func gtk3UnderSwayIsPlacedFromTheGeometryLessItsShadow() {
        // sway's IPC: rect (200,150) + window_rect (0,0), geometry 1415 × 732; no buffer.
        let place = WindowPlace(pid: 4242, appID: "gtk3-widget-factory", title: "GTK+ Widget Factory", client: .wayland,
                                geometry: Rect(x: 200, y: 150, width: 1415, height: 732))
        let origin = FrameOrigin.of(frame: Self.gtk3Frame, place: place, firstChild: Self.gtk3Shadow)
        #expect(origin == .offset(Point(x: 174, y: 127), from: .shadowOffset))
        #expect(origin.place(Self.gtk3CheckBox) == Rect(x: 210, y: 543, width: 118, height: 22))
    }

    @Test func gtk3UnderGnomeShellIsPlacedFromItsBuffer() {
        // Mutter's frame rect (0,32), below the top bar; its buffer rect (-26,9).
        let place = WindowPlace(title: "GTK+ Widget Factory", client: .wayland,
                                geometry: Rect(x: 0, y: 32, width: 1415, height: 732),
                                buffer: Rect(x: -26, y: 9, width: 1467, height: 784))
        let origin = FrameOrigin.of(frame: Self.gtk3Frame, place: place, firstChild: Self.gtk3Shadow)
        #expect(origin == .offset(Point(x: -26, y: 9), from: .buffer))
        #expect(origin.place(Self.gtk3CheckBox)?.x == 10)
        #expect(origin.place(Self.gtk3CheckBox)?.y == 425)
    }

    /// On a monitor GNOME scales 200 %, GTK measures in its own pixels and Mutter in the
    /// screen's: the frames are doubled, then put at the buffer's place (as seen on GNOME
    /// Shell 43: a 652×589 window, its buffer 1304×1178 at 27,171).
    @Test func aWindowOnAMonitorScaled200IsPlacedFromItsBufferAndDoubled() {
        let place = WindowPlace(title: "SwitchScan Fixture", client: .wayland,
                                geometry: Rect(x: 79, y: 223, width: 1200, height: 1074),
                                buffer: Rect(x: 27, y: 171, width: 1304, height: 1178))
        let origin = FrameOrigin.of(frame: Rect(x: 0, y: 0, width: 652, height: 589), place: place)
        #expect(origin == .offset(Point(x: 27, y: 171), from: .buffer, scale: 2))
        #expect(origin.place(Rect(x: 26, y: 104, width: 73, height: 34)) == Rect(x: 79, y: 379, width: 146, height: 68))
        // At 300 % too; a size that is no scale of any rectangle stays unknown.
        let triple = WindowPlace(title: "t", client: .wayland, geometry: Rect(x: 0, y: 0, width: 1800, height: 1611),
                                 buffer: Rect(x: -78, y: -78, width: 1956, height: 1767))
        #expect(FrameOrigin.of(frame: Rect(x: 0, y: 0, width: 652, height: 589), place: triple) == .offset(Point(x: -78, y: -78), from: .buffer, scale: 3))
        if case .unknown = FrameOrigin.of(frame: Rect(x: 0, y: 0, width: 600, height: 589), place: place) {} else { Issue.record("a 600-wide frame was placed") }
    }

    @Test func gtk3UnderKWinIsPlacedFromItsBufferGeometry() {
        let place = WindowPlace(title: "GTK+ Widget Factory", client: .wayland,
                                geometry: Rect(x: 100, y: 50, width: 1415, height: 732),
                                buffer: Rect(x: 74, y: 27, width: 1467, height: 784))
        // Without the child's offset too: KWin gives the buffer.
        let origin = FrameOrigin.of(frame: Self.gtk3Frame, place: place)
        #expect(origin.place(Self.gtk3CheckBox) == Rect(x: 110, y: 443, width: 118, height: 22))
    }

    @Test func gtk4IsPlacedFromItsGeometryWhateverItsBuffer() {
        let frame = Rect(x: 0, y: 0, width: 1391, height: 800)
        let checkBox = Rect(x: 14, y: 413, width: 110, height: 18)
        let sway = WindowPlace(title: "Widget Factory", client: .wayland, geometry: Rect(x: 200, y: 150, width: 1391, height: 800))
        #expect(FrameOrigin.of(frame: frame, place: sway, firstChild: Point(x: 0, y: 0)).place(checkBox)
                == Rect(x: 214, y: 563, width: 110, height: 18))
        // A compositor that gives the buffer too: GTK 4's shadow is in the buffer, not the frame.
        var kwin = sway
        kwin.buffer = Rect(x: 177, y: 129, width: 1437, height: 846)
        #expect(FrameOrigin.of(frame: frame, place: kwin) == .offset(Point(x: 200, y: 150), from: .geometry))
    }

    @Test func aWindowWithTheCompositorsTitleBarIsPlacedFromItsContent() {
        // galculator under sway: rect (200,150) holds the title bar; window_rect (2,26).
        let place = WindowPlace(title: "galculator", client: .wayland,
                                geometry: Rect(x: 200, y: 150, width: 355, height: 372),
                                content: Rect(x: 202, y: 176, width: 351, height: 344))
        let origin = FrameOrigin.of(frame: Rect(x: 0, y: 0, width: 351, height: 344), place: place)
        #expect(origin == .offset(Point(x: 202, y: 176), from: .content))
    }

    @Test func anX11ClientThroughXWaylandIsOnTheScreenAlready() {
        let place = WindowPlace(title: "GTK+ Widget Factory", client: .x11, geometry: Rect(x: 200, y: 150, width: 1415, height: 732))
        let frame = Rect(x: 200, y: 150, width: 1467, height: 784)
        #expect(FrameOrigin.of(frame: frame, place: place) == .screen)
        #expect(FrameOrigin.screen.place(Self.gtk3CheckBox) == Self.gtk3CheckBox)
    }

    /// A GTK 3 combo box's list under sway (its window floated to 202,175 with sway's title
    /// bar, frames from the geometry): the popup's frame 0,230 612×110 is its place in the
    /// window, its menu begins 6,5 in (the shadow), the item Red at 6,239 is drawn at 202,409.
    @Test func aNativePopupGoesWhereItsWindowGoesLessItsShadow() {
        let popupFrame = Rect(x: 0, y: 230, width: 612, height: 110), menu = Point(x: 6, y: 235)
        let origin = FrameOrigin.ofPopup(parent: Point(x: 202, y: 175), firstChild: Point(x: menu.x - popupFrame.x, y: menu.y - popupFrame.y))
        #expect(origin == .offset(Point(x: 196, y: 170), from: .parentWindow))
        #expect(origin.place(Rect(x: 6, y: 239, width: 600, height: 30)) == Rect(x: 202, y: 409, width: 600, height: 30))
    }

    @Test func sizesAPixelApartAreTheSame() {
        let place = WindowPlace(title: "w", client: .wayland, geometry: Rect(x: 10, y: 20, width: 640, height: 480))
        #expect(FrameOrigin.of(frame: Rect(x: 0, y: 0, width: 641, height: 479), place: place) == .offset(Point(x: 10, y: 20), from: .geometry))
    }

    @Test func aFrameOfNoKnownSizeSaysWhatWasCompared() {
        let place = WindowPlace(title: "w", client: .wayland, geometry: Rect(x: 10, y: 20, width: 640, height: 480))
        let origin = FrameOrigin.of(frame: Rect(x: 0, y: 0, width: 900, height: 700), place: place)
        #expect(origin == .unknown(why: "its AT-SPI frame is 900×700, none of the compositor's sizes (geometry 640×480), and no child shows where the shadow ends"))
        #expect(origin.place(Self.gtk3CheckBox) == nil)
        // A "shadow" larger than the child's offset allows is no shadow.
        #expect(FrameOrigin.of(frame: Rect(x: 0, y: 0, width: 900, height: 700), place: place, firstChild: Point(x: 26, y: 23))
                == .unknown(why: "its AT-SPI frame is 900×700, none of the compositor's sizes (geometry 640×480)"))
    }

    /// GTK 4 measures from its window on an X server too: the X window holds it and the
    /// margin GTK draws around it, told by `_GTK_FRAME_EXTENTS` where GTK sets it.
    @Test func gtk4OnAnXServerIsPlacedInsideItsDecorations() {
        let frame = Rect(x: 0, y: 0, width: 1332, height: 744)
        let xWindow = Rect(x: 300, y: 200, width: 1342, height: 754)
        // _GTK_FRAME_EXTENTS 4, 6, 3, 7 (left, right, top, bottom).
        let told = WindowPlace(title: "GTK Widget Factory", client: .x11, geometry: Rect(x: 304, y: 203, width: 1332, height: 744), buffer: xWindow)
        #expect(FrameOrigin.of(frame: frame, place: told) == .screen)
        #expect(FrameOrigin.of(frame: frame, place: told, windowRelative: true) == .offset(Point(x: 304, y: 203), from: .geometry))
        // Not told: the same margin on opposite sides.
        let untold = WindowPlace(title: "GTK Widget Factory", client: .x11, geometry: xWindow, buffer: xWindow)
        #expect(FrameOrigin.of(frame: frame, place: untold, windowRelative: true) == .offset(Point(x: 305, y: 205), from: .bufferLessMargin))
        // No margin: the X window's corner. Larger than the X window: unknown.
        #expect(FrameOrigin.of(frame: Rect(x: 0, y: 0, width: 1342, height: 754), place: untold, windowRelative: true)
                == .offset(Point(x: 300, y: 200), from: .geometry))
        guard case .unknown = FrameOrigin.of(frame: Rect(x: 0, y: 0, width: 2000, height: 754), place: untold, windowRelative: true) else {
            Issue.record("a frame larger than its X window was placed")
            return
        }
    }
}

/// An application's window found among the compositor's by process id, then title.
@Suite struct WindowMatchTests {
    static func place(_ id: String, pid: Int32?, _ title: String, active: Bool = false) -> WindowPlace {
        WindowPlace(id: id, pid: pid, title: title, client: .wayland, geometry: Rect(x: 0, y: 0, width: 10, height: 10), active: active)
    }

    static let places = [place("1", pid: 10, "Document 1 - Writer"), place("2", pid: 10, "Save As", active: true),
                         place("3", pid: 20, "galculator"), place("4", pid: nil, "Untitled - Editor"),
                         place("5", pid: 30, "Same"), place("6", pid: 31, "Same")]

    @Test func theOnlyWindowOfItsProcessWhateverItsTitle() {
        #expect(WindowPlace.matching(pid: 20, title: "", in: Self.places)?.id == "3")
        #expect(WindowPlace.matching(pid: 20, title: "Calculator", in: Self.places)?.id == "3")
    }

    @Test func amongItsProcessesWindowsTheOneWithItsTitle() {
        #expect(WindowPlace.matching(pid: 10, title: "Document 1 - Writer", in: Self.places)?.id == "1")
        #expect(WindowPlace.matching(pid: 10, title: "Save As", in: Self.places)?.id == "2")
        // No title: the active one (none without one); a title none has: none (another
        // window's place would be wrong).
        #expect(WindowPlace.matching(pid: 10, title: "", in: Self.places)?.id == "2")
        #expect(WindowPlace.matching(pid: 10, title: "", in: Self.places.map { var p = $0; p.active = false; return p }) == nil)
        #expect(WindowPlace.matching(pid: 10, title: "Print", in: Self.places) == nil)
    }

    /// A sandboxed application's process id is not the compositor's.
    @Test func withoutItsProcessTheOnlyWindowWithItsTitle() {
        #expect(WindowPlace.matching(pid: 99, title: "Untitled - Editor", in: Self.places)?.id == "4")
        #expect(WindowPlace.matching(pid: 99, title: "Same", in: Self.places) == nil)
        #expect(WindowPlace.matching(pid: 99, title: "", in: Self.places) == nil)
    }
}

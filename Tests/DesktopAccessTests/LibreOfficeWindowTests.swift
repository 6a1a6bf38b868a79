@testable import DesktopAccess
import ScanCore
import Testing

/// LibreOffice's GTK 3 windows: the VCL root pane's widgets are moved onto where they show,
/// and its own menu bar, which GTK's native one replaces, is left out.
@Suite struct LibreOfficeWindowTests {
    @Test func aRootPaneOfItsHoldersSizeElsewhereIsMovedOntoIt() {
        // The native menu bar (25 px) above it, the pane still says it starts under the title.
        let pane = Rect(x: 0, y: 19, width: 1280, height: 756)
        let holder = Rect(x: 0, y: 44, width: 1280, height: 756)
        #expect(Walker.displacement(pane: pane, holder: holder) == Point(x: 0, y: 25))
    }

    @Test func aRootPaneWhereItsHolderIsOrOfAnotherSizeStays() {
        let pane = Rect(x: 0, y: 44, width: 1280, height: 756)
        #expect(Walker.displacement(pane: pane, holder: pane) == nil)
        #expect(Walker.displacement(pane: Rect(x: 0, y: 19, width: 1280, height: 781), holder: pane) == nil)
        #expect(Walker.displacement(pane: Rect(x: 0, y: 19, width: 0, height: 0), holder: Rect(x: 0, y: 44, width: 0, height: 0)) == nil)
    }

    @Test func aMenuBarWithoutHeightShowsNothing() {
        var bar = LiveNode(id: "a1.4:1212", role: "menu bar")
        bar.frame = Rect(x: 0, y: 19, width: 1280, height: 0)
        #expect(Walker.hiddenMenuBar(bar))
        bar.frame = Rect(x: 0, y: 19, width: 1256, height: 25)
        #expect(!Walker.hiddenMenuBar(bar))
        var toolbar = LiveNode(id: "a1.4:1222", role: "tool bar")
        toolbar.frame = Rect(x: 0, y: 19, width: 1280, height: 0)
        #expect(!Walker.hiddenMenuBar(toolbar))
    }
}

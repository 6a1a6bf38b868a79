import ScanCore
import Testing
import X11Output

@Suite("XTestPointer on Xvfb", .serialized)
struct XTestPointerTests {
    @Test("a click moves the pointer to the point and the window there gets button 1")
    func click() throws {
        let server = try XServer()
        let probe = try XProbe(server.display)
        let window = probe.window(x: 300, y: 200, width: 200, height: 100, color: RGB(r: 0x30, g: 0x90, b: 0x30),
                                  overrideRedirect: true)
        let pointer = try XTestPointer(display: server.display)
        #expect(pointer.screenSize == (1280, 800))
        #expect(XTestPointer.screenSize(display: server.display)! == (1280, 800))

        #expect(pointer.click(at: Point(x: 350.4, y: 260.6)))
        let press = probe.nextButtonPress(on: window)
        #expect(press?.x == 350 && press?.y == 261, "ButtonPress at \(String(describing: press))")
        let location = try server.mouseLocation()
        #expect(location.x == 350 && location.y == 261)
        #expect(location.window == UInt(window))
        withExtendedLifetime(server) {}
    }

    @Test("no X server: init throws a clear error, screenSize(display:) is nil")
    func noDisplay() {
        #expect(XTestPointer.screenSize(display: ":4988") == nil)
        #expect {
            _ = try XTestPointer(display: ":4988")
        } throws: { error in
            "\(error)".hasPrefix("cannot open X display ':4988'")
        }
    }
}

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

    @Test("gestures: a right click is button 3, a double click two of button 1, a long press holds it, a scroll turns the wheel, a drag presses here and releases there")
    func gestures() throws {
        let server = try XServer()
        let probe = try XProbe(server.display)
        let window = probe.window(x: 100, y: 100, width: 600, height: 400, color: RGB(r: 0x30, g: 0x90, b: 0x30),
                                  overrideRedirect: true)
        let pointer = try XTestPointer(display: server.display)
        let p = Point(x: 200, y: 150)

        #expect(pointer.perform(.rightClick, at: p))
        let right = probe.nextButtonEvents(on: window, count: 2)
        #expect(right.map(\.button) == [3, 3] && right.map(\.press) == [true, false], "\(right)")
        #expect(right.first.map { [$0.x, $0.y] } == [200, 150])

        #expect(pointer.perform(.doubleClick, at: p))
        let double = probe.nextButtonEvents(on: window, count: 4)
        #expect(double.map(\.button) == [1, 1, 1, 1] && double.map(\.press) == [true, false, true, false], "\(double)")
        if double.count == 4 { #expect(double[2].time - double[0].time < 400, "inside the double-click time") }

        #expect(pointer.perform(.longPress, at: p))
        let long = probe.nextButtonEvents(on: window, count: 2)
        #expect(long.map(\.button) == [1, 1] && long.map(\.press) == [true, false], "\(long)")
        if long.count == 2 { #expect(long[1].time - long[0].time >= 790, "held \(long[1].time - long[0].time) ms") }

        for (g, b) in [(Gesture.scrollUp, 4), (.scrollDown, 5), (.scrollLeft, 6), (.scrollRight, 7)] {
            #expect(pointer.perform(g, at: p))
            let wheel = probe.nextButtonEvents(on: window, count: 2 * XTestPointer.wheelNotches)
            #expect(wheel.count == 2 * XTestPointer.wheelNotches && wheel.allSatisfy { $0.button == b }, "\(g): \(wheel)")
        }

        #expect(pointer.perform(.drag, at: p, to: Point(x: 500, y: 400)))
        let drag = probe.nextButtonEvents(on: window, count: 2)
        #expect(drag.map(\.press) == [true, false], "\(drag)")
        #expect(drag.map { [$0.x, $0.y] } == [[200, 150], [500, 400]], "pressed here, released there")
        #expect(!pointer.perform(.drag, at: p), "a drag needs a drop point")
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

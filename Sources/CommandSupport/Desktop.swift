import ArgumentParser
import Foundation
import DesktopAccess
import ScanSession

/// The accessibility bus for a command; a bus that cannot be reached ends the command with
/// status 1 and a message that says what to check.
public func connectDesktop() throws -> DesktopAccess {
    let places = WindowPlaces.open(environment: ProcessInfo.processInfo.environment)
    if let note = places.note { writeErr(note + "\n") }
    do {
        let access = try DesktopConnection.connect(places: places.source, wayland: Compositor(ProcessInfo.processInfo.environment).isWayland)
        if access.turnedAccessibilityOn { writeErr(DesktopAccess.turnedOnNote + "\n") }
        return access
    } catch {
        writeErr(error.message + "\n")
        throw ExitCode(error.status)
    }
}

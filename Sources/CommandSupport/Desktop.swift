import ArgumentParser
import Foundation
import DesktopAccess
import ScanSession

/// The accessibility bus for a command, given `hooks` and the platform's window places; a
/// bus that cannot be reached ends the command with status 1 and a message that says what
/// to check.
public func connectDesktop(_ hooks: DesktopHooks = DesktopHooks()) throws -> DesktopAccess {
    let env = ProcessInfo.processInfo.environment
    let places = WindowPlaces.open(environment: env)
    if let note = places.note { writeErr(note + "\n") }
    var hooks = hooks
    hooks.places = places.source
    hooks.wayland = Compositor(env).isWayland
    do {
        let access = try DesktopConnection.connect(hooks: hooks)
        if access.turnedAccessibilityOn { writeErr(DesktopAccess.turnedOnNote + "\n") }
        return access
    } catch {
        writeErr(error.message + "\n")
        throw ExitCode(error.status)
    }
}

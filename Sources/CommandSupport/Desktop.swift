import ArgumentParser
import DesktopAccess
import ScanSession

/// The accessibility bus for a command; a bus that cannot be reached ends the command with
/// status 1 and a message that says what to check.
public func connectDesktop() throws -> DesktopAccess {
    do {
        let access = try DesktopConnection.connect()
        if access.turnedAccessibilityOn { writeErr(DesktopAccess.turnedOnNote + "\n") }
        return access
    } catch {
        writeErr(error.message + "\n")
        throw ExitCode(error.status)
    }
}

import ArgumentParser
import DesktopAccess
import ScanSession

/// The accessibility bus for a command; a bus that cannot be reached ends the command with
/// status 1 and a message that says what to check.
public func connectDesktop() throws -> DesktopAccess {
    do { return try DesktopConnection.connect() } catch {
        writeErr(error.message + "\n")
        throw ExitCode(error.status)
    }
}

import ScanCore
import ArgumentParser
import CSys
import ScanFormats
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything the commands print goes through C's standard streams, whose errors are
/// checked once at the end (`finishOutput`): a full disk, a closed stream or a reader that
/// went away make the command fail with status 1 instead of trapping or passing silently.
/// A closed pipe kills the process with SIGPIPE, as it does any Unix tool, unless SIGPIPE
/// is ignored; then the write fails with EPIPE and the command exits 1.
public func writeOut(_ text: String) { fputs(text, csys_stdout()) }

/// A message for a person on standard output. It quotes paths, arguments and names from
/// files, shown as on standard error: control characters as their pictures. (Data meant
/// for programs, such as JSON lines or a file's text, goes through `writeOut`, exact.)
public func writeMessage(_ text: String) { writeOut(TerminalText.visible(text, keepingNewlines: true)) }

/// Sends what was printed so far on its way (a row computed while more are coming).
public func flushOut() { fflush(csys_stdout()) }

public func writeErr(_ text: String) {
    // Messages appear in order with what was printed before them.
    fflush(csys_stdout())
    // Messages quote names from applications, devices and files: never raw control codes.
    fputs(TerminalText.visible(text, keepingNewlines: true), csys_stderr())
}

/// The exit status once everything printed is flushed: `status`, or 1 if what was printed
/// could not all be written (with a message on stderr where it still can be written).
public func finishOutput(_ status: Int32) -> Int32 {
    var problems: [String] = []
    if fflush(csys_stdout()) != 0 || ferror(csys_stdout()) != 0 {
        problems.append("standard output")
    }
    let errOK = fflush(csys_stderr()) == 0 && ferror(csys_stderr()) == 0
    if !errOK { problems.append("standard error") }
    guard !problems.isEmpty else { return status }
    let reason = String(cString: strerror(errno))
    if errOK || !problems.contains("standard error") {
        fputs("switchscan: cannot write to \(problems.joined(separator: " and ")): \(reason)\n", csys_stderr())
        fflush(csys_stderr())
    }
    return status == 0 ? 1 : status
}

/// ArgumentParser's own entry for a command line tool, with the output checked before the
/// process ends.
public func runCommand<Root: ParsableCommand>(_ root: Root.Type) -> Never {
// Ctrl-\ quits (with a core dump where enabled), as it does any tool: the Swift runtime's
// crash backtracer would take it as a crash, print a backtrace and wait at the terminal.
// (A parent that ignores it keeps it ignored.)
if csys_signal_ignored(SIGQUIT) == 0 { signal(SIGQUIT, SIG_DFL) }
    // A parent may hand its children the termination signals blocked (a thread pool's
    // mask, inherited through fork): they must still end every command. (Ignored ones
    // stay ignored: that is how `nohup` asks.)
    var signals = sigset_t()
    sigemptyset(&signals)
    for sig in [SIGINT, SIGQUIT, SIGTERM, SIGHUP] { sigaddset(&signals, sig) }
    pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    // A standard stream the parent closed keeps its number taken, by /dev/null opened
    // read-only: writing to it still fails (and is reported) as writing to a closed one
    // does, but a file, socket or bus connection opened later cannot become "standard
    // output" and receive what is printed.
    for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
        let reserved = open("/dev/null", O_RDONLY)
        if reserved != fd && reserved >= 0 { _ = dup2(reserved, fd); close(reserved) }
    }
    var status: Int32 = 0
    do {
        var command = try Root.parseAsRoot()
        try command.run()
    } catch {
        status = Root.exitCode(for: error).rawValue
        let message = Root.fullMessage(for: error)
        if !message.isEmpty {
            if status == 0 { writeOut(message + "\n") } else { writeErr(message + "\n") }
        }
    }
    endProcess(finishOutput(status))
}

/// C's exit (which also runs atexit handlers), out of reach of ParsableCommand's `exit`.
public func endProcess(_ status: Int32) -> Never { exit(status) }

/// Writes a command's output file. A regular file (or a new one) is replaced whole and
/// atomically, links and permissions kept (`UserFile`); anything else the user names, such
/// as /dev/null, /dev/stdout or a FIFO, is written to as it is and never replaced.
public func writeOutputFile(_ path: String, _ bytes: [UInt8], what: String) throws(FileReadError) {
    var st = stat()
    if stat(path, &st) == 0, st.st_mode & S_IFMT != S_IFREG {
        guard st.st_mode & S_IFMT != S_IFDIR else {
            throw FileReadError(description: "Error: \(path) is a folder; name a file to write the \(what) to.")
        }
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw FileReadError(description: "Error: cannot write the \(what) to \(path): \(String(cString: strerror(errno))).")
        }
        defer { close(fd) }
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw FileReadError(description: "Error: cannot write the \(what) to \(path): \(String(cString: strerror(errno))).")
            }
            done += n
        }
        return
    }
    try UserFile.update(path, what: what, mode: 0o644) { _ throws(FileReadError) in bytes }
}

/// "1 element", "2 elements", "0 elements".
public func counted(_ n: Int, _ noun: String) -> String { n == 1 ? "1 \(noun)" : "\(n) \(noun)s" }

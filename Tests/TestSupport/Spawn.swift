import Foundation

#if canImport(Glibc)
import Glibc
#endif

public struct SpawnError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Starts a child with posix_spawn: in a process group of its own, with an empty signal
/// mask and default dispositions (the test runner's threads block signals, and Foundation's
/// Process passes that mask on, so a child would ignore SIGTERM), exactly the given
/// environment, `stdin`, `stdout` and `stderr` as 0, 1 and 2 and no other descriptor (a pipe
/// of a test running beside it would never see its end), in `directory` if given.
public func spawnChild(_ path: String, _ arguments: [String], environment: [String: String], directory: URL? = nil,
                       stdin: Int32, stdout: Int32, stderr: Int32) throws(SpawnError) -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, stdin, 0)
    posix_spawn_file_actions_adddup2(&actions, stdout, 1)
    posix_spawn_file_actions_adddup2(&actions, stderr, 2)
    if let closeFrom = SpawnFunctions.addCloseFrom { _ = closeFrom(&actions, 3) }
    if let directory {
        guard let chdir = SpawnFunctions.addChdir else { throw SpawnError("posix_spawn_file_actions_addchdir_np is missing (glibc < 2.29)") }
        _ = directory.path.withCString { chdir(&actions, $0) }
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    posix_spawnattr_setpgroup(&attributes, 0)
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    var all = sigset_t()
    sigfillset(&all)
    sigdelset(&all, SIGKILL)
    sigdelset(&all, SIGSTOP)
    posix_spawnattr_setsigdefault(&attributes, &all)
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
    var child: pid_t = 0
    let rc = posix_spawn(&child, path, &actions, &attributes, argv, envp)
    guard rc == 0 else { throw SpawnError("Starting \(path): \(String(cString: strerror(rc)))") }
    return child
}

enum SpawnFunctions {
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?) -> Int32
    // glibc has both (2.34, 2.29), but Swift's Glibc module does not declare them.
    static let addCloseFrom: AddCloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }
    static let addChdir: AddChdir? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np")
        .map { unsafeBitCast($0, to: AddChdir.self) }
}

/// The calling thread's stack: its lowest address and its size.
public func currentThreadStack() -> (low: UInt, size: Int) {
    typealias GetAttributes = @convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32
    // glibc has it; Swift's Glibc module does not declare it.
    let getAttributes = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_getattr_np").map { unsafeBitCast($0, to: GetAttributes.self) }
    var attributes = pthread_attr_t()
    var address: UnsafeMutableRawPointer?
    var size = 0
    if getAttributes?(pthread_self(), &attributes) == 0 {
        pthread_attr_getstack(&attributes, &address, &size)
        pthread_attr_destroy(&attributes)
    }
    return (UInt(bitPattern: Int(bitPattern: address)), size)
}

/// Waits, up to `timeout` seconds, until `done` holds, looking again each time the kernel says
/// a file in `directory` was created, written or closed (inotify): a wait on what the file
/// system shows, not on the clock. Whether `done` held.
public func waitForFiles(in directory: String, timeout: Double, until done: () -> Bool) -> Bool {
    if done() { return true }
    let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
    guard fd >= 0 else { return done() }
    defer { close(fd) }
    _ = inotify_add_watch(fd, directory, UInt32(IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO))
    let deadline = Date().addingTimeInterval(timeout)
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !done() {
        let left = deadline.timeIntervalSinceNow
        guard left > 0 else { return false }
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&pfd, 1, Int32((left * 1000).rounded(.up)))
        _ = read(fd, &buffer, buffer.count)
    }
    return true
}

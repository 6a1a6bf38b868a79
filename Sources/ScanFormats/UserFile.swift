#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file of the user's that SwitchScan changes: the settings, the learned words. Every
/// change is made to the file as it is at that moment, under a lock, and the file is
/// replaced atomically, so that nothing a user set is lost or half written:
/// - writers (a running scanner, `settings set`, `words forget`, in any number) take turns:
///   each holds an exclusive `flock` on the file's folder while it reads, changes and
///   replaces the file;
/// - the new text is written to a fresh file of a random name in the same folder, created
///   with `O_EXCL | O_NOFOLLOW` (nothing placed there beforehand is written through), flushed,
///   and renamed over the file;
/// - a symbolic link (a dotfile manager's) is followed: its target is replaced and the link
///   kept; the file's permissions are kept (0600 stays 0600);
/// - a file without write permission for its owner is refused with a message, never
///   replaced, as is one that is not a regular file (a FIFO, a folder).
public enum UserFile {
    /// Replaces the file at `path` by `change(its bytes now)` (nil: it does not exist yet),
    /// creating its folder if needed; the same bytes back (nothing, for a file not there)
    /// leave it as it is. A new file gets `mode` less the umask; an existing one
    /// keeps its own. `what` names the file in messages ("settings file"). Another writer's
    /// turn is waited for up to `waitSeconds`, then this one gives up with a message. A file
    /// larger than `limit` is refused, unread.
    public static func update(_ path: String, what: String, mode: mode_t, waitSeconds: Int = 5, limit: Int = LayoutLoader.maxFileSize,
                              _ change: ([UInt8]?) throws(FileReadError) -> [UInt8]) throws(FileReadError) {
        let target = try resolve(path)
        let folder = folderOf(target)
        try SettingsFile.makeFolders(folder)
        let lock = try lockFolder(folder, for: path, waitSeconds: waitSeconds)
        defer { close(lock) }
        var st = stat()
        let exists = lstat(target, &st) == 0
        if exists {
            guard st.st_mode & S_IFMT == S_IFREG else {
                throw FileReadError(description: "Error: \(what) \(path) is \(kindName(st.st_mode & S_IFMT)), not a regular file; it was left as it is. Put a regular file there.")
            }
            guard st.st_mode & S_IWUSR != 0 else {
                throw FileReadError(description: "Error: \(what) \(path) is read-only; it was left unchanged. Make it writable (chmod u+w) to let SwitchScan change it.")
            }
        }
        let current = exists ? try readFile(target, what: what, limit: limit) : nil
        let bytes = try change(current)
        // Nothing to change: the file is not written again (its time, its inode stay), nor
        // made empty where there was none.
        if bytes == current ?? [] { return }
        try replace(target, shownAs: path, with: bytes, mode: exists ? st.st_mode & 0o7777 : mode, keepMode: exists)
    }

    /// Puts a new regular file at `path` (its folder made if needed), atomically, through a
    /// fresh file renamed over it: whatever is there, a symbolic link included, is replaced
    /// itself and never written through. `exactMode`: `mode` as it is, not less the umask.
    public static func replaceItself(_ path: String, with bytes: [UInt8], mode: mode_t, exactMode: Bool = false) throws(FileReadError) {
        try SettingsFile.makeFolders(folderOf(path))
        try replace(path, shownAs: path, with: bytes, mode: mode, keepMode: exactMode)
    }

    /// The file a path names once symbolic links are followed (up to 40, as the kernel
    /// does); a link to nothing yet names the file it will create.
    static func resolve(_ path: String) throws(FileReadError) -> String {
        var current = path
        for _ in 0..<40 {
            var st = stat()
            guard lstat(current, &st) == 0, st.st_mode & S_IFMT == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current, &buffer, buffer.count - 1)
            guard n > 0 else { break }
            let link = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = link.hasPrefix("/") ? link : joined(folderOf(current), link)
        }
        throw FileReadError(description: "Error: \(path) is a loop of symbolic links; it was left unchanged. Point it at a file.")
    }

    static func folderOf(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func joined(_ folder: String, _ name: String) -> String {
        folder == "." ? name : folder == "/" ? "/" + name : folder + "/" + name
    }

    /// An exclusive lock on the folder, held by the returned descriptor until it is closed.
    static func lockFolder(_ folder: String, for path: String, waitSeconds: Int) throws(FileReadError) -> Int32 {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            throw FileReadError(description: "Error: cannot open the folder \(folder) of \(path): \(String(cString: strerror(errno))); it was left unchanged.")
        }
        // Waiting without blocking, so that a writer that never lets go cannot hang this one.
        var tries = 0
        while true {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return fd }
            guard errno == EWOULDBLOCK || errno == EINTR, tries < waitSeconds * 100 else { break }
            tries += 1
            usleep(10_000)
        }
        let reason = errno == EWOULDBLOCK ? "another program has been changing it for \(waitSeconds) s" : String(cString: strerror(errno))
        close(fd)
        throw FileReadError(description: "Error: cannot change \(path): \(reason); it was left unchanged. Try again.")
    }

    /// Writes `bytes` to a new file beside `target` and renames it over `target`.
    /// `names` gives the new file's names to try (random ones by default).
    static func replace(_ target: String, shownAs path: String, with bytes: [UInt8], mode: mode_t, keepMode: Bool,
                        names: (() -> String)? = nil) throws(FileReadError) {
        let folder = folderOf(target)
        let name = target.split(separator: "/").last.map(String.init) ?? "file"
        func fail(_ what: String, _ e: Int32 = errno) -> FileReadError {
            FileReadError(description: "Error: cannot write \(path) (\(what): \(String(cString: strerror(e)))); it was left unchanged.")
        }
        var generator = SystemRandomNumberGenerator()
        var fd: Int32 = -1
        var temporary = ""
        for _ in 0..<16 {
            temporary = joined(folder, names?() ?? ".\(name).\(String(generator.next() as UInt64, radix: 36)).tmp")
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else { throw fail("creating a file in \(folder)") }
        func abandon(_ what: String) -> FileReadError {
            let e = fail(what)
            close(fd)
            unlink(temporary)
            return e
        }
        // The umask applies to a new file only; an existing one keeps its permissions.
        if keepMode && fchmod(fd, mode) != 0 { throw abandon("keeping its permissions") }
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw abandon("writing") }
            written += n
        }
        guard fsync(fd) == 0 else { throw abandon("flushing") }
        close(fd)
        guard rename(temporary, target) == 0 else { let e = fail("renaming"); unlink(temporary); throw e }
        // The rename itself reaches the disk with its folder.
        let dir = open(folder, O_RDONLY | O_CLOEXEC)
        if dir >= 0 { _ = fsync(dir); close(dir) }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JSONTape

/// The user's settings file, and changes written into it: a setting replaced or added, the
/// others kept, and the file replaced atomically (written aside, flushed, renamed over), so
/// that a crash in the middle of a write leaves the old file or the new one, never half of
/// either.
public enum SettingsFile {
    /// `$XDG_CONFIG_HOME/switchscan/settings.json`, else `~/.config/switchscan/settings.json`
    /// (an empty variable counts as unset); nil without a home.
    public static func userPath(environment env: [String: String]) -> String? {
        let config = env["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? env["HOME"].flatMap { $0.isEmpty ? nil : $0 + "/.config" }
        return config.map { $0 + "/switchscan/settings.json" }
    }

    /// Sets `key` to `value` (JSON text) in the settings file at `path`, creating the file
    /// and its folder if needed. The result must be a valid settings file; if it would not
    /// be, or the file is not a JSON object, nothing is written.
    public static func set(_ key: String, to value: String, in path: String) throws(FileReadError) {
        var members: [(key: String, value: String)] = []
        if access(path, F_OK) == 0 {
            let bytes = try readFile(path, what: "settings file", limit: LayoutLoader.maxFileSize)
            guard let document = try? JSONDocument.parse(bytes), let object = document.root.object else {
                throw FileReadError(description: "Error: \(path) is not a JSON object of settings; it was left unchanged.")
            }
            members = object.map { ($0.key, $0.value.compactText) }
        }
        if let k = members.firstIndex(where: { $0.key == key }) { members[k].value = value } else { members.append((key, value)) }
        let text = "{\n" + members.map { "  \(jsonString($0.key)): \($0.value)" }.joined(separator: ",\n") + "\n}\n"
        do {
            _ = try SettingsLoader.load(bytes: Array(text.utf8), file: path)
        } catch {
            throw FileReadError(description: error.description + "\n\(path) was left unchanged.")
        }
        try writeAtomically(Array(text.utf8), to: path)
    }

    /// Writes `bytes` beside `path` and renames the copy over it, after flushing it to disk;
    /// the file gets `mode` (less the umask). Any file of the user's is written so (settings,
    /// learned words): the copy is named after it, `.settings.tmp-PID` for settings.json.
    public static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws(FileReadError) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        let folder = parts.dropLast().joined(separator: "/")
        if !folder.isEmpty { try makeFolders(folder) }
        let stem = parts.last.map { $0.split(separator: ".").first.map(String.init) ?? "" } ?? ""
        let temporary = (folder.isEmpty ? "" : folder + "/") + ".\(stem.isEmpty ? "file" : stem).tmp-\(getpid())"
        func fail(_ what: String) -> FileReadError {
            FileReadError(description: "Error: cannot write \(path) (\(what): \(String(cString: strerror(errno)))); it was left unchanged.")
        }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw fail("creating \(temporary)") }
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { let e = fail("writing"); close(fd); unlink(temporary); throw e }
            written += n
        }
        guard fsync(fd) == 0 else { let e = fail("flushing"); close(fd); unlink(temporary); throw e }
        close(fd)
        guard rename(temporary, path) == 0 else { let e = fail("renaming"); unlink(temporary); throw e }
        // The rename itself reaches the disk with its folder.
        let dir = open(folder.isEmpty ? "." : folder, O_RDONLY | O_CLOEXEC)
        if dir >= 0 { _ = fsync(dir); close(dir) }
    }

    static func makeFolders(_ folder: String) throws(FileReadError) {
        var path = folder.hasPrefix("/") ? "" : "."
        for part in folder.split(separator: "/") {
            path += "/" + part
            if mkdir(path, 0o755) != 0 && errno != EEXIST {
                throw FileReadError(description: "Error: cannot create the folder \(path): \(String(cString: strerror(errno))).")
            }
        }
    }
}

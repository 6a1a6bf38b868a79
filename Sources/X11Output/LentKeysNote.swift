#if canImport(Glibc)
import Glibc
#endif
import CX11
import ScanHost

/// The spare keycodes one keyboard has lent on a display, each with the keysym it was
/// given (it had none before), written down before the keymap changes and kept while they
/// are lent, so that a run that dies holding them (kill -9, a crash: no chance to give them
/// back) has them given back by the next run on that display (`takeLeftovers`).
///
/// Each note is a file of its own, `keymap.DISPLAY.PID-N`, in the user's runtime folder
/// (`$XDG_RUNTIME_DIR/switchscan`, else a private `switchscan-UID` folder in /tmp; a folder
/// that is a link, another user's or open to others is not used, and then no note is kept).
/// A note is mode 0600 and replaced whole (a new file renamed over it), and its run holds
/// a lock (flock) on it for as long as it lives: the kernel drops the lock when the process
/// dies, however it dies, so a note no one holds is a dead run's.
final class LentKeysNote {
    let folder: String
    /// "keymap.DISPLAY.": the notes of this display.
    let prefix: String
    let path: String
    /// The note written last, open: its lock says its run lives.
    private var held: Int32 = -1

    private static let counter = Locked(0)

    init?(display: String) {
        guard let folder = Self.runtimeFolder() else { return nil }
        self.folder = folder
        prefix = "keymap." + Self.fileName(display) + "."
        let n = Self.counter.withLock { value -> Int in value += 1; return value }
        path = folder + "/" + prefix + "\(getpid())-\(n)"
    }

    deinit { if held >= 0 { close(held) } }

    /// `$XDG_RUNTIME_DIR/switchscan`, else `switchscan-UID` in `$TMPDIR` or /tmp: made if
    /// missing (0700); nil where neither is the user's alone.
    static func runtimeFolder() -> String? {
        let uid = geteuid()
        if let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), runtime.hasPrefix("/"),
           let folder = privateFolder(runtime + "/switchscan", uid) {
            return folder
        }
        let tmp = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        return privateFolder(tmp + "/switchscan-\(uid)", uid)
    }

    /// `path` as a folder only `uid` may enter, made if missing; nil when it is a link,
    /// another's, or open to others (in a shared folder such as /tmp, anyone may have made it).
    static func privateFolder(_ path: String, _ uid: uid_t) -> String? {
        if mkdir(path, 0o700) != 0 && errno != EEXIST { return nil }
        var st = stat()
        guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR, st.st_uid == uid, st.st_mode & 0o077 == 0 else { return nil }
        return path
    }

    /// The display as a file name: host and display number (":0.0" and ":0" are one keymap),
    /// every byte but letters, digits, ':', '-' and '_' written as %XX.
    static func fileName(_ display: String) -> String {
        var name = Substring(display)
        if name.hasPrefix("unix:") { name = name.dropFirst(4) }
        if let colon = name.lastIndex(of: ":"), let dot = name[colon...].firstIndex(of: ".") { name = name[..<dot] }
        var out = ""
        for b in name.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: ":"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                out += "%" + (b < 16 ? "0" : "") + String(b, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// Writes the keycodes lent now (`remove` when none); false when the note could not be
    /// written (the keycodes are lent all the same: typing matters more than a crash's
    /// leftovers).
    @discardableResult
    func record(_ lent: [(keysym: KeySym, code: UInt32)], display: String) -> Bool {
        guard !lent.isEmpty else { remove(); return true }
        var text = "# SwitchScan's spare keycodes on display \(display), lent by process \(getpid()).\n"
        text += "# Each line: a keycode, then the keysym it was given (it had none before). The next run\n"
        text += "# on this display gives back each one that still holds its keysym, then removes this note.\n"
        for (keysym, code) in lent { text += "\(code) 0x\(String(keysym, radix: 16))\n" }
        var generator = SystemRandomNumberGenerator()
        var fd: Int32 = -1
        var temporary = ""
        for _ in 0..<16 {
            temporary = folder + "/.keymap-" + String(generator.next() as UInt64, radix: 36)
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else { return false }
        // Locked from the start: another run's start never takes it for a dead run's.
        let locked = flock(fd, LOCK_EX | LOCK_NB) == 0
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard locked, written == bytes.count, rename(temporary, path) == 0 else {
            close(fd)
            unlink(temporary)
            return false
        }
        if held >= 0 { close(held) }
        held = fd
        return true
    }

    /// Removes the note: nothing is lent any more.
    func remove() {
        guard held >= 0 else { return }
        unlink(path)
        close(held)
        held = -1
    }

    /// For each note of this display whose run is gone: `giveBack` with its keycodes and
    /// keysyms, then the note is removed. Half-written notes of dead runs are removed too.
    func takeLeftovers(_ giveBack: ([(code: UInt32, keysym: KeySym)]) -> Void) {
        guard let directory = opendir(folder) else { return }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(prefix) || name.hasPrefix(".keymap-") { names.append(name) }
        }
        closedir(directory)
        for name in names {
            let file = folder + "/" + name
            let fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            // Held: its run lives (or it is one of this process's own notes).
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }
            // Still the note at that name (not one its run has just replaced), a file of ours.
            var opened = stat(), named = stat()
            guard fstat(fd, &opened) == 0, lstat(file, &named) == 0, opened.st_dev == named.st_dev, opened.st_ino == named.st_ino,
                  opened.st_mode & S_IFMT == S_IFREG, opened.st_uid == geteuid() else { continue }
            if name.hasPrefix(prefix) { giveBack(Self.entries(fd)) }
            unlink(file)
        }
    }

    /// The keycodes and keysyms of a note (at most 64 KiB read; lines that do not parse
    /// are passed over).
    static func entries(_ fd: Int32) -> [(code: UInt32, keysym: KeySym)] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 16 {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        var out: [(code: UInt32, keysym: KeySym)] = []
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            let words = line.split(separator: " ")
            guard words.count == 2, let code = UInt32(words[0]), words[1].hasPrefix("0x"),
                  let keysym = KeySym(words[1].dropFirst(2), radix: 16), keysym != 0 else { continue }
            out.append((code, keysym))
        }
        return out
    }
}

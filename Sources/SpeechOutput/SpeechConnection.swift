#if canImport(Glibc)
import Glibc
#endif
import CSpeechd
import ScanCore
import ScanHost

/// Where speech-dispatcher listens (as in SPEECHD_ADDRESS: `unix_socket:/path`,
/// `inet_socket:host:port`).
public enum SpeechDispatcherAddress: Sendable, Hashable {
    case unixSocket(String)
    case inetSocket(host: String, port: Int)

    /// `unix_socket:/path` or `inet_socket:host:port` (as a voice's `address` setting says
    /// it); nil for anything else.
    public init?(_ text: String) {
        guard VoiceSettings.isAddress(text) else { return nil }
        if text.hasPrefix("unix_socket:") {
            self = .unixSocket(String(text.dropFirst("unix_socket:".count)))
        } else {
            let rest = text.dropFirst("inet_socket:".count)
            let colon = rest.lastIndex(of: ":")!
            self = .inetSocket(host: String(rest[..<colon]), port: Int(rest[rest.index(after: colon)...])!)
        }
    }
}

/// One libspeechd connection, in threaded mode (for BEGIN events). Used only on the
/// presenter's speech thread. Messages go out as plain SSIP commands, because libspeechd's
/// `spd_say` and `spd_sound_icon` set the priority before each message, which SSIP
/// refuses inside a block (and a highlight's click and words are one block).
final class SpeechConnection {
    private let connection: UnsafeMutablePointer<SPDConnection>
    /// speech-dispatcher's id for this connection: BEGIN events carry it.
    let clientID: Int
    private var priority: Utterance.Priority?
    /// The highest message id speech-dispatcher gave us so far.
    private(set) var lastMessageID = 0

    private init(_ connection: UnsafeMutablePointer<SPDConnection>) {
        self.connection = connection
        clientID = Int(spd_get_client_id(connection))
    }

    /// Nothing answered: speech-dispatcher is not running (or not installed), and why.
    struct OpenError: Error {
        var reason: String
    }

    /// Connects (starting speech-dispatcher if it is not running and no address was
    /// given, as libspeechd's autospawn does), turns BEGIN events on and sets the voice:
    /// its output module and voice where named, its rate, volume and pitch where not 0.
    /// `refused`: a module or voice speech-dispatcher does not have (what it says instead).
    /// `isPublic`: the public voice's connection (its events go to its own registry).
    static func open(client: String, address: SpeechDispatcherAddress?, voice: VoiceSettings, isPublic: Bool = false,
                     refused: (String) -> Void = { _ in }) throws(OpenError) -> SpeechConnection {
        let connection: UnsafeMutablePointer<SPDConnection>
        if let address {
            connection = try connect(client: client, address: address)
        } else {
            let target = try defaultAddress()
            do {
                connection = try connect(client: client, address: target)
            } catch {
                let spawned = spawnServer(for: target)
                do { connection = try connect(client: client, address: target) } catch {
                    throw OpenError(reason: spawned.map { "\(error.reason); \($0)" } ?? error.reason)
                }
            }
        }
        let c = SpeechConnection(connection)
        // The events find their presenter by client id, which each speech-dispatcher counts
        // for itself: the two voices (perhaps on two servers) each have their own registry.
        let events = isPublic ? Self.publicEvents : Self.cueEvents
        connection.pointee.callback_begin = events.began
        // The end of a label, said or cut off, lets scanning by ear move on.
        connection.pointee.callback_end = events.ended
        connection.pointee.callback_cancel = events.ended
        _ = spd_set_notification_on(connection, SPD_BEGIN)
        _ = spd_set_notification_on(connection, SPD_END)
        _ = spd_set_notification_on(connection, SPD_CANCEL)
        // The module first: a voice name is the module's.
        // speech-dispatcher takes any name and falls back to its default when speaking: the
        // names are checked against its lists, so that a mistyped one is said.
        if !voice.module.isEmpty {
            let modules = strings(spd_list_modules(connection), free: free_spd_modules) { $0 }
            if modules.contains(voice.module) { _ = spd_set_output_module(connection, voice.module) } else {
                refused("speech-dispatcher has no output module \"\(voice.module)\" (it has \(modules.joined(separator: ", ")); spd-say -O lists them); its default module speaks instead")
            }
        }
        if !voice.voice.isEmpty {
            let voices = strings(spd_list_synthesis_voices(connection), free: free_spd_voices) { $0.pointee.name }
            if voices.contains(voice.voice) { _ = spd_set_synthesis_voice(connection, voice.voice) } else {
                refused("speech-dispatcher's module has no voice \"\(voice.voice)\" (spd-say -L lists them); its default voice speaks instead")
            }
        }
        func level(_ v: Int) -> Int32 { Int32(max(-100, min(100, v))) }
        if voice.rate != 0 { _ = spd_set_voice_rate(connection, level(voice.rate)) }
        if voice.volume != 0 { _ = spd_set_volume(connection, level(voice.volume)) }
        if voice.pitch != 0 { _ = spd_set_voice_pitch(connection, level(voice.pitch)) }
        return c
    }

    /// The names in a NULL-ended list libspeechd made, then frees it.
    private static func strings<T>(_ list: UnsafeMutablePointer<UnsafeMutablePointer<T>?>?, free release: (UnsafeMutablePointer<UnsafeMutablePointer<T>?>?) -> Void,
                                   name: (UnsafeMutablePointer<T>) -> UnsafeMutablePointer<CChar>?) -> [String] {
        guard let list else { return [] }
        defer { release(list) }
        var out: [String] = []
        var i = 0
        while let item = list[i] {
            if let n = name(item) { out.append(String(cString: n)) }
            i += 1
        }
        return out
    }

    typealias Callback = @convention(c) (Int, Int, SPDNotificationType) -> Void

    // They run on libspeechd's event thread, which spd_close cancels: no cancellation point
    // may unwind through Swift code holding a lock.
    static let cueEvents: (began: Callback, ended: Callback) = (
        { messageID, clientID, _ in
            let now = MonotonicClock.now()
            withoutCancellation { BeginRegistry.cue.sink(client: clientID)?.began(messageID: messageID, at: now) }
        },
        { messageID, clientID, _ in withoutCancellation { BeginRegistry.cue.sink(client: clientID)?.ended(messageID: messageID) } }
    )
    static let publicEvents: (began: Callback, ended: Callback) = (
        { messageID, clientID, _ in
            let now = MonotonicClock.now()
            withoutCancellation { BeginRegistry.voice.sink(client: clientID)?.began(messageID: messageID, at: now) }
        },
        { messageID, clientID, _ in withoutCancellation { BeginRegistry.voice.sink(client: clientID)?.ended(messageID: messageID) } }
    )

    private static func withoutCancellation(_ body: () -> Void) {
        var old: Int32 = 0
        pthread_setcancelstate(Int32(PTHREAD_CANCEL_DISABLE), &old)
        body()
        pthread_setcancelstate(old, nil)
    }

    /// Sends one utterance; returns false when the connection is broken (a refused message
    /// is not a broken connection).
    func send(_ u: Utterance) -> Bool {
        if priority != u.priority {
            guard let reply = command("SET SELF PRIORITY \(u.priority.rawValue)") else { return false }
            if reply.ok { priority = u.priority }
        }
        let parts = u.icons.count + (u.text == nil ? 0 : 1)
        guard parts > 0 else { return true }
        // More than one part goes as a block: cancelled together, never cutting each other.
        if parts > 1 { guard command("BLOCK BEGIN") != nil else { return false } }
        var sent = true
        for icon in u.icons where sent { sent = command("SOUND_ICON \(icon)") != nil }
        if sent, let text = u.text { sent = speak(text) }
        // Closed even when the text was refused, so that the next message is not in it.
        if parts > 1 { return command("BLOCK END") != nil && sent }
        return sent
    }

    func close() { spd_close(connection) }

    /// SSIP SPEAK: the text on one line (a leading dot doubled, as SSIP escapes it), then the
    /// end-of-data line.
    private func speak(_ text: String) -> Bool {
        guard let start = command("SPEAK") else { return false }
        guard start.ok else { return true }
        var line = String(text.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" ? " " : $0 })
        if line.hasPrefix(".") { line = "." + line }
        guard let sent = spd_send_data_wo_mutex(connection, line, SPD_NO_REPLY) else { return false }
        free(sent)
        return command("\r\n.") != nil
    }

    /// One SSIP command and its reply; nil when the connection is broken. Records the
    /// message id of "225-<id>" replies.
    private func command(_ text: String) -> (ok: Bool, reply: String)? {
        var raw: UnsafeMutablePointer<CChar>?
        let rc = spd_execute_command_with_reply(connection, text, &raw)
        guard let raw else { return nil }
        defer { free(raw) }
        let reply = String(cString: raw)
        if reply.hasPrefix("225-") {
            let digits = reply.dropFirst(4).prefix { $0.isNumber }
            if let id = Int(digits) { lastMessageID = max(lastMessageID, id) }
        }
        return (rc == 0, reply)
    }

    private static func connect(client: String, address: SpeechDispatcherAddress) throws(OpenError) -> UnsafeMutablePointer<SPDConnection> {
        var spdAddress = SPDConnectionAddress()
        var strings: [UnsafeMutablePointer<CChar>?] = []
        defer { strings.forEach { free($0) } }
        switch address {
        case .unixSocket(let path):
            spdAddress.method = SPD_METHOD_UNIX_SOCKET
            strings.append(strdup(path))
            spdAddress.unix_socket_name = strings.last!
        case .inetSocket(let host, let port):
            spdAddress.method = SPD_METHOD_INET_SOCKET
            strings.append(strdup(host))
            spdAddress.inet_socket_host = strings.last!
            spdAddress.inet_socket_port = Int32(port)
        }
        var error: UnsafeMutablePointer<CChar>?
        let connection = spd_open2(client, "main", nil, SPD_MODE_THREADED, &spdAddress, 0, &error)
        let message = error.map { String(cString: $0) } ?? ""
        free(error)
        guard let connection else { throw OpenError(reason: cleaned(message)) }
        return connection
    }

    /// "Error: Can't connect to unix socket /x: No such file or directory. Autospawn:
    /// Autospawn disabled" → "Can't connect to unix socket /x: No such file or directory".
    private static func cleaned(_ message: String) -> String {
        var m = Array(message.utf8)
        if m.starts(with: "Error: ".utf8) { m.removeFirst(7) }
        let tail = Array(". Autospawn:".utf8)
        if m.count >= tail.count, let i = (0...(m.count - tail.count)).first(where: { m[$0..<$0 + tail.count].elementsEqual(tail) }) {
            m.removeSubrange(i...)
        }
        return String(decoding: m, as: UTF8.self)
    }

    /// SPEECHD_ADDRESS or the user's default socket, as libspeechd reads them.
    private static func defaultAddress() throws(OpenError) -> SpeechDispatcherAddress {
        var error: UnsafeMutablePointer<CChar>?
        guard let a = spd_get_default_address(&error) else {
            let message = error.map { String(cString: $0) } ?? "no address"
            free(error)
            throw OpenError(reason: "SPEECHD_ADDRESS: \(message)")
        }
        defer { SPDConnectionAddress__free(a) }
        if a.pointee.method == SPD_METHOD_INET_SOCKET {
            return .inetSocket(host: a.pointee.inet_socket_host.map { String(cString: $0) } ?? "127.0.0.1",
                               port: Int(a.pointee.inet_socket_port))
        }
        return .unixSocket(a.pointee.unix_socket_name.map { String(cString: $0) } ?? "")
    }

    /// Starts speech-dispatcher the way libspeechd's autospawn does (`speech-dispatcher
    /// --spawn …`, which returns once the server is up), but with an empty signal mask: a
    /// child inherits its spawning thread's mask, and ours blocks SIGPIPE and (in the
    /// command line tool) the termination signals, which would leave a server that ignores
    /// SIGTERM. Returns why it failed, or nil.
    private static func spawnServer(for address: SpeechDispatcherAddress) -> String? {
        var arguments = ["--spawn", "--communication-method"]
        switch address {
        case .unixSocket(let path): arguments += ["unix_socket", "--socket-path", path]
        case .inetSocket(let host, let port):
            guard host == "127.0.0.1" || host == "localhost" || host == "::1" else { return nil }
            arguments += ["inet_socket", "--port", "\(port)"]
        }
        let program = getenv("SPEECHD_CMD").map { String(cString: $0) } ?? "speech-dispatcher"
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, program, &actions, &attributes, argv, environ)
        guard rc == 0 else { return "starting \(program): \(errnoName(rc))" }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        return exited && code == 0 ? nil : "\(program) --spawn ended with status \(exited ? code : 128 + (status & 0x7f))"
    }
}

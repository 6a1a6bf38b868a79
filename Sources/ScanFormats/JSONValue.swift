#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(CSys)
import CSys
#endif
import Dispatch
import ScanCore

/// Whether this process may run on a second CPU, for the work large files split between
/// two threads: its affinity mask, which a container's cpuset or `taskset` narrows (the
/// online count does not).
let mayUseTwoCPUs: Bool = {
    #if canImport(CSys)
    let allowed = Int(csys_allowed_cpus())
    if allowed > 0 { return allowed > 1 }
    #endif
    return sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1
}()

/// Runs `first` and `second` at once on two threads (one after the other where there is one
/// CPU) and returns both results. The caller makes sure neither writes what the other
/// touches: the large-file parse and read give each its own buffers and readers.
func bothAtOnce<A, B>(_ first: () -> A, _ second: () -> B) -> (A, B) {
    withoutActuallyEscaping(first) { first in
        withoutActuallyEscaping(second) { second in
            let jobs = TwoJobs(first: first, second: second)
            DispatchQueue.concurrentPerform(iterations: 2) { jobs.run($0) }
            return (jobs.a!, jobs.b!)
        }
    }
}

/// The two jobs of `bothAtOnce` and their results, each written by its own thread and read
/// after both have ended.
private final class TwoJobs<A, B>: @unchecked Sendable {
    let first: () -> A
    let second: () -> B
    var a: A?
    var b: B?
    init(first: @escaping () -> A, second: @escaping () -> B) { self.first = first; self.second = second }
    func run(_ k: Int) { if k == 0 { a = first() } else { b = second() } }
}

/// A parsed JSON file: the bytes and a flat tape of tokens in document order, one per value
/// and key. Values are read in place from the tape, so parsing allocates a few buffers rather
/// than one object per value (a layout of 100k elements has two million values). Every
/// value remembers where it stood in the file, so that validation messages can name a line
/// and column; Foundation's decoders keep no positions and accept duplicate keys silently,
/// and layout files need both.
///
/// The document owns the tape; values, objects, arrays and members are views into it
/// (`DocumentRef`, plain pointers) and do not keep it alive: whoever parsed it does, a
/// loader for the length of its read or a `ParsedDataFile`. Counting references on each of
/// the millions of views a large layout creates cost a quarter of its load time (measured).
public final class JSONDocument: @unchecked Sendable {
    public let bytes: [UInt8]
    let ref: DocumentRef
    /// How many objects the file holds: a bound on anything read one per object (the
    /// layout loader sizes its node storage by it).
    let objectCount: Int
    /// 2 when a second thread parsed the rest of a large array (`TailParse`), else 1; for
    /// tests, which check that a tail was taken.
    var parts = 1

    /// `text`: the bytes already copied by `paddedCopy`, or nil to copy them here.
    init(bytes: [UInt8], tokens: UnsafeMutableBufferPointer<JSONToken>, unescaped: [Int: String],
         objectCount: Int, text prepared: UnsafeMutableBufferPointer<UInt8>? = nil) {
        self.bytes = bytes
        self.objectCount = objectCount
        let text = prepared ?? Self.paddedCopy(bytes)
        let storage = UnsafeMutablePointer<DocumentRef.Storage>.allocate(capacity: 1)
        storage.initialize(to: .init(tokens: tokens, text: text, unescaped: unescaped))
        ref = DocumentRef(storage: storage)
    }

    /// The bytes with zero padding past the end, which lets a key be compared a word at a
    /// time (`Key.matches`) even when it ends the file.
    static func paddedCopy(_ bytes: [UInt8]) -> UnsafeMutableBufferPointer<UInt8> {
        let padded = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count + Key.capacity)
        preferHugePages(padded.baseAddress!, count: padded.count)
        _ = padded.initialize(from: bytes)
        (padded.baseAddress! + bytes.count).initialize(repeating: 0, count: Key.capacity)
        return UnsafeMutableBufferPointer(rebasing: padded[0..<bytes.count])
    }

    deinit {
        ref.storage.pointee.tokens.deallocate()
        ref.storage.pointee.text.deallocate()
        ref.storage.deinitialize(count: 1)
        ref.storage.deallocate()
    }

    /// The top-level value: a view, valid while this document is alive.
    public var root: JSONValue { JSONValue(document: ref, index: 0) }
}

/// A document's tape and text seen through a pointer: copying one costs nothing, and it is
/// valid while its `JSONDocument` is alive (immutable after parsing, hence Sendable).
struct DocumentRef: @unchecked Sendable {
    struct Storage {
        let tokens: UnsafeMutableBufferPointer<JSONToken>
        /// A copy of the bytes, read through a pointer.
        let text: UnsafeMutableBufferPointer<UInt8>
        /// The decoded text of strings that had escapes, by token index; all others are
        /// their raw bytes.
        let unescaped: [Int: String]
    }
    let storage: UnsafeMutablePointer<Storage>

    var tokens: UnsafeMutableBufferPointer<JSONToken> { @inline(__always) get { storage.pointee.tokens } }
    var text: UnsafeMutableBufferPointer<UInt8> { @inline(__always) get { storage.pointee.text } }
    var unescaped: [Int: String] { storage.pointee.unescaped }

    /// The tape index just past the value at `i` and its contents.
    @inline(__always)
    func next(_ i: Int) -> Int {
        let t = tokens[i]
        return t.kind == .object || t.kind == .array ? Int(t.end) : i + 1
    }

    /// Whether the value at `i` is a string equal to `key`, compared as bytes.
    func equals(_ i: Int, _ key: Key) -> Bool {
        let t = tokens[i]
        guard t.kind == .string else { return false }
        guard t.raw else { return unescaped[i] == key.name }
        let start = Int(t.offset) + 1
        let n = Int(t.end) - start
        guard n == key.count else { return false }
        return key.matches(UnsafeRawPointer(text.baseAddress! + start))
    }

    /// Whether the key at `i`, written without escapes, is `name`: inlined, so comparing
    /// with a literal costs a length test and a few byte loads. Escaped keys answer false
    /// (callers then take the general path).
    @inline(__always)
    func rawKey(_ i: Int, is name: StaticString) -> Bool {
        let t = tokens[i]
        let start = Int(t.offset) + 1
        let n = name.utf8CodeUnitCount
        guard t.kind == .string, t.raw, Int(t.end) - start == n else { return false }
        let p = name.utf8Start
        for j in 0..<n where text[start + j] != p[j] { return false }
        return true
    }

    /// A frame written the usual way, {"x", "y", "width", "height"} as numbers with sizes
    /// >= 0, read straight off the tape; nil for anything else, which the caller then
    /// reads field by field to say exactly what is wrong.
    func plainRect(at i: Int) -> Rect? {
        let t = tokens[i]
        guard t.kind == .object, t.count == 4, Int(t.end) == i + 9 else { return nil }
        var v = (0.0, 0.0, 0.0, 0.0)
        var seen = 0
        for k in stride(from: i + 1, to: i + 9, by: 2) {
            let value = tokens[k + 1]
            guard value.kind == .number else { return nil }
            let slot: Int
            if rawKey(k, is: "x") { slot = 0 }
            else if rawKey(k, is: "y") { slot = 1 }
            else if rawKey(k, is: "width") { slot = 2 }
            else if rawKey(k, is: "height") { slot = 3 }
            else { return nil }
            seen |= 1 << slot
            switch slot {
            case 0: v.0 = value.number
            case 1: v.1 = value.number
            case 2: v.2 = value.number
            default: v.3 = value.number
            }
        }
        guard seen == 0b1111, v.2 >= 0, v.3 >= 0 else { return nil }
        return Rect(x: v.0, y: v.1, width: v.2, height: v.3)
    }

    /// The key token of the member named `key` in the object at `i`.
    func member(of i: Int, _ key: Key) -> Int? {
        var k = i + 1
        let end = Int(tokens[i].end)
        while k < end {
            if tokens[k].bucket == key.bucket && equals(k, key) { return k }
            k = next(k + 1)
        }
        return nil
    }
}

public enum JSONKind: UInt8, Sendable {
    case object, array, string, number, bool, null
}

/// One value or key on the tape, in 12 bytes: a layout of 100 000 elements has two million,
/// and every byte of the tape is memory to fault in and write (16-byte tokens made the
/// tape of that layout 30 MB). Three 32-bit words:
/// - `head`: the offset in the file (29 bits: files are at most 512 MiB) and the kind;
/// - `a`: strings and containers `end`; numbers the low half of the value's bits;
/// - `b`: containers and booleans `count`; strings the key bucket and whether the text
///   has escapes; numbers the high half of the value's bits.
struct JSONToken {
    private var head: UInt32
    private var a: UInt32 = 0
    private var b: UInt32 = 0

    static let offsetBits: UInt32 = 29
    /// Offsets must be below this (`JSONParser.maxSize`).
    static let offsetLimit = 1 << Int(offsetBits)
    private static let offsetMask: UInt32 = (1 << offsetBits) - 1
    private static let escapedBit: UInt32 = 0x100

    init(offset: UInt32, kind: JSONKind, raw: Bool = true, end: UInt32 = 0, count: UInt32 = 0) {
        head = offset | UInt32(kind.rawValue) << Self.offsetBits
        a = end
        b = kind == .string ? (raw ? 0 : Self.escapedBit) : count
    }

    init(offset: UInt32, number: Double) {
        head = offset | UInt32(JSONKind.number.rawValue) << Self.offsetBits
        let bits = number.bitPattern
        a = UInt32(truncatingIfNeeded: bits)
        b = UInt32(truncatingIfNeeded: bits >> 32)
    }

    /// Where the value starts in the file (a string's opening quote).
    var offset: UInt32 { head & Self.offsetMask }

    var kind: JSONKind {
        // Only the six kinds' raw values are ever stored.
        unsafeBitCast(UInt8(truncatingIfNeeded: head >> Self.offsetBits), to: JSONKind.self)
    }

    /// Object keys: the key bucket (see KeySet.bucket), from the decoded text for escaped keys.
    var bucket: UInt8 {
        get { UInt8(truncatingIfNeeded: b) & 0x3F }
        set { b = b & ~0x3F | UInt32(newValue & 0x3F) }
    }

    /// Strings: no escapes, so the bytes between the quotes are the text.
    var raw: Bool { b & Self.escapedBit == 0 }

    /// Strings: the offset of the closing quote. Containers: the token index after the
    /// subtree, so a reader can skip a value without walking it.
    var end: UInt32 {
        get { a }
        set { a = newValue }
    }

    /// Containers: the number of members or elements. Booleans: 1 for true.
    var count: UInt32 {
        get { b }
        set { b = newValue }
    }

    var number: Double { Double(bitPattern: UInt64(b) << 32 | UInt64(a)) }
}

/// A value in a parsed document: a position on its tape. Values, objects, arrays and
/// members are views: they do not keep their document alive, whoever parsed it does (a
/// loader for the length of its read, `ParsedDataFile`). Counting references on each of
/// the millions of views a large layout creates was a quarter of its load time (measured).
public struct JSONValue: Sendable {
    let document: DocumentRef
    let index: Int

    var token: JSONToken { document.tokens[index] }
    public var kind: JSONKind { token.kind }
    public var offset: Int { Int(token.offset) }
    /// The tape index just past this value and its contents.
    var next: Int { document.next(index) }

    public var string: String? {
        let t = token
        guard t.kind == .string else { return nil }
        if !t.raw { return document.unescaped[index] }
        return String(decoding: UnsafeBufferPointer(rebasing: document.text[Int(t.offset) + 1 ..< Int(t.end)]), as: UTF8.self)
    }

    public var number: Double? { let t = token; return t.kind == .number ? t.number : nil }
    public var bool: Bool? { let t = token; return t.kind == .bool ? t.count != 0 : nil }
    public var isNull: Bool { token.kind == .null }
    public var object: JSONObject? { kind == .object ? JSONObject(document: document, index: index) : nil }
    public var array: JSONArray? { kind == .array ? JSONArray(document: document, index: index) : nil }

    /// Whether this is a string equal to `key`, compared as bytes without decoding.
    func equals(_ key: Key) -> Bool { document.equals(index, key) }

    /// The value as an enum, for code that switches over every kind.
    public var content: JSONContent {
        let t = token
        let o = Int(t.offset)
        switch t.kind {
        case .object: return .object(JSONObject(document: document, index: index), offset: o)
        case .array: return .array(JSONArray(document: document, index: index), offset: o)
        case .string: return .string(string!, offset: o)
        case .number: return .number(t.number, offset: o)
        case .bool: return .bool(t.count != 0, offset: o)
        case .null: return .null(offset: o)
        }
    }

    /// The word a message uses for this kind of value ("got a string").
    public var kindName: String {
        switch kind {
        case .object: return "an object"
        case .array: return "an array"
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        }
    }
}

public enum JSONContent {
    case object(JSONObject, offset: Int)
    case array(JSONArray, offset: Int)
    case string(String, offset: Int)
    case number(Double, offset: Int)
    case bool(Bool, offset: Int)
    case null(offset: Int)
}

/// An object's members in file order.
public struct JSONObject: Sequence, Sendable {
    let document: DocumentRef
    let index: Int

    public var count: Int { Int(document.tokens[index].count) }

    /// The member named `key`, found by comparing bytes.
    func member(_ key: Key) -> JSONMember? {
        document.member(of: index, key).map { JSONMember(document: document, keyIndex: $0) }
    }

    public struct Iterator: IteratorProtocol {
        let document: DocumentRef
        var key: Int
        let end: Int
        public mutating func next() -> JSONMember? {
            guard key < end else { return nil }
            let m = JSONMember(document: document, keyIndex: key)
            key = document.next(key + 1)
            return m
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(document: document, key: index + 1, end: Int(document.tokens[index].end))
    }
}

public struct JSONMember: Sendable {
    let document: DocumentRef
    let keyIndex: Int

    public var key: String { JSONValue(document: document, index: keyIndex).string! }
    public var keyOffset: Int { Int(document.tokens[keyIndex].offset) }
    public var value: JSONValue { JSONValue(document: document, index: keyIndex + 1) }
    var bucket: UInt8 { document.tokens[keyIndex].bucket }
    func hasKey(_ k: Key) -> Bool { document.equals(keyIndex, k) }
}

/// An array's elements in file order.
public struct JSONArray: Sequence, Sendable {
    let document: DocumentRef
    let index: Int

    public var count: Int { Int(document.tokens[index].count) }
    public var isEmpty: Bool { count == 0 }

    public struct Iterator: IteratorProtocol {
        let document: DocumentRef
        var at: Int
        let end: Int
        public mutating func next() -> JSONValue? {
            guard at < end else { return nil }
            let v = JSONValue(document: document, index: at)
            at = document.next(at)
            return v
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(document: document, at: index + 1, end: Int(document.tokens[index].end))
    }
}

public struct JSONSyntaxError: Error, Sendable {
    public var offset: Int
    public var message: String
}

/// A strict RFC 8259 parser over UTF-8 bytes: no comments, no trailing commas, finite
/// numbers, duplicate keys rejected, nesting bounded so a hostile file cannot overflow the
/// stack.
public struct JSONParser {
    public static let maxDepth = 512
    /// Offsets are stored in 29 bits (`JSONToken`); data files are far below this, and
    /// layouts are refused past the same size before parsing.
    public static let maxSize = JSONToken.offsetLimit

    /// Valid only during `parse`: the parser reads the caller's array in place.
    let bytes: UnsafeBufferPointer<UInt8>
    var i = 0
    var depth = 0
    var tokens = TokenBuffer()
    var unescaped: [Int: String] = [:]
    var objects = 0
    /// The deepest nesting reached (a tail parse starts at 0 and is checked against where
    /// it is spliced in).
    var deepest = 0
    /// A second thread's parse of the rest of a large array, taken when this parse
    /// arrives where it began (`TailParse`).
    var tail: Unmanaged<TailParse>?
    var spliced = false
    /// A tail parse's cancellation flag (`TailParse.cancel`), checked between elements.
    var cancel: UnsafeMutablePointer<Int32>?

    /// `helpAbove`: the size from which a second CPU helps (`ParseHelper`); `Int.max` never.
    public static func parseDocument(_ array: [UInt8], helpAbove: Int = helpedParseMinimumBytes) throws(JSONSyntaxError) -> JSONDocument {
        try parseDocument(array, help: array.count >= helpAbove && (mayUseTwoCPUs || helpAbove == 0) ? .concurrent : .none)
    }

    /// How a second thread helps: not at all, at once (`ParseHelper`), or, for tests that
    /// must see the tail taken whatever the scheduling, by parsing the tail first.
    enum Help { case none, concurrent, tailFirst }

    static func parseDocument(_ array: [UInt8], help: Help) throws(JSONSyntaxError) -> JSONDocument {
        guard array.count <= maxSize else {
            throw JSONSyntaxError(offset: 0, message: "file is larger than \(maxSize >> 20) MiB")
        }
        let result: Result<JSONDocument, JSONSyntaxError> = array.withUnsafeBufferPointer { buffer in
            var p = JSONParser(bytes: buffer)
            // A value costs at least 2 bytes with its separator; most cost far more.
            p.tokens.reserve(array.count / 6 + 16)
            // A UTF-8 byte order mark is tolerated; nothing else may precede the value.
            if array.starts(with: [0xEF, 0xBB, 0xBF]) { p.i = 3 }
            var text: UnsafeMutableBufferPointer<UInt8>?
            let outcome: Result<Void, JSONSyntaxError>
            switch help {
            case .concurrent:
                // A second CPU meanwhile parses the rest of a large array, or else faults in
                // the tape's pages, and copies the text the document keeps.
                let tail = TailParse(bytes: buffer)
                p.tail = Unmanaged.passUnretained(tail)
                let helper = ParseHelper(tape: UnsafeMutableRawPointer(p.tokens.base!),
                                         tapeBytes: p.tokens.capacity * MemoryLayout<JSONToken>.stride, bytes: array,
                                         tail: tail)  // which keeps it alive for `p.tail`
                outcome = withUnsafeMutablePointer(to: &p) { parser in
                    bothAtOnce({ () -> Result<Void, JSONSyntaxError> in
                        let outcome = parser.pointee.parseWhole()
                        // The helper stops parsing a tail no longer needed and faulting in the
                        // tape, and after an error skips the copy.
                        tail.cancel()
                        if case .failure = outcome { helper.signal(.parseFailed) } else { helper.signal(.parsed) }
                        return outcome
                    }, helper.run).0
                }
                text = helper.text
            case .tailFirst:
                let tail = TailParse(bytes: buffer)
                _ = tail.run()
                p.tail = Unmanaged.passUnretained(tail)
                outcome = withExtendedLifetime(tail) { p.parseWhole() }
            case .none:
                outcome = p.parseWhole()
            }
            switch outcome {
            case .success:
                let document = JSONDocument(bytes: array, tokens: p.tokens.take(), unescaped: p.unescaped,
                                            objectCount: p.objects, text: text)
                document.parts = p.spliced ? 2 : 1
                return .success(document)
            case .failure(let error):
                p.tokens.free()
                if let text { UnsafeMutableRawPointer(text.baseAddress!).deallocate() }
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Files from this size up are parsed with a second CPU's help (`ParseHelper`).
    public static let helpedParseMinimumBytes = 1 << 20

    /// The value and nothing after it.
    mutating func parseWhole() -> Result<Void, JSONSyntaxError> {
        do throws(JSONSyntaxError) {
            skipSpace()
            try value()
            skipSpace()
            if i < bytes.count { throw fail("unexpected \(describeHere()) after the end of the document") }
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    /// The rest of an array from the start of one of its elements: elements and commas up
    /// to the closing bracket, which is left unread. Returns the number of elements.
    mutating func parseTail() -> Result<UInt32, JSONSyntaxError> {
        do throws(JSONSyntaxError) {
            var count: UInt32 = 0
            while true {
                skipSpace()
                try value()
                count += 1
                skipSpace()
                guard i < bytes.count else { throw fail("unexpected end of file; expected ',' or ']'") }
                if bytes[i] == UInt8(ascii: "]") { return .success(count) }
                guard bytes[i] == UInt8(ascii: ",") else { throw fail("unexpected \(describeHere()); expected ',' or ']'") }
                i += 1
                #if canImport(CSys)
                if let cancel, csys_flag_load(cancel) != 0 { throw fail("cancelled") }
                #endif
            }
        } catch {
            return .failure(error)
        }
    }

    /// At `i`, an element's start where the tail parse began: waits for it to end and takes
    /// its tokens, leaving `i` at the array's closing bracket; returns the elements taken.
    /// Nil when it cannot: the tail failed, moved on to begin elsewhere, or would nest too
    /// deep here (this parse then goes on alone and finds the same error).
    mutating func splice(_ t: TailParse) -> UInt32? {
        guard var r = t.take(at: i) else {
            // Kept while it may still begin further on (it outgrew a nested array).
            if t.start <= i { tail = nil }
            return nil
        }
        tail = nil
        defer { r.tokens.free() }
        guard depth + r.deepest <= Self.maxDepth else { return nil }
        let base = tokens.count
        tokens.appendShifted(r.tokens, by: UInt32(base))
        for (k, s) in r.unescaped { unescaped[k + base] = s }
        objects += r.objects
        i = r.close
        spliced = true
        return r.elements
    }

    /// What the second thread does during a large parse: it parses the rest of a large array
    /// (`TailParse`) and copies the text the document keeps. Where there is no such array,
    /// it instead asks the kernel to fault in the tape's pages without writing them
    /// (MADV_POPULATE_WRITE, Linux 5.14; where it is refused, the parser faults them in as
    /// before), as far as the tape is likely to reach, then copies the text. On this VM
    /// fresh memory costs 0.55 ms per MB in faults: the 24 MB tape of a 12 MB file, faulted
    /// in by the parser, would add about 13 ms to a 30 ms parse. The helper never writes the
    /// tape; if the parser has moved to a larger tape meanwhile, the old range is merely
    /// faulted in (or refused, once unmapped), never changed.
    final class ParseHelper: @unchecked Sendable {
        enum Signal: Int32 { case running = 0, parsed = 1, parseFailed = 2 }
        let tape: UnsafeMutableRawPointer
        let tapeBytes: Int
        let bytes: [UInt8]
        let tail: TailParse?
        var text: UnsafeMutableBufferPointer<UInt8>?
        private let flag = UnsafeMutablePointer<Int32>.allocate(capacity: 1)

        init(tape: UnsafeMutableRawPointer, tapeBytes: Int, bytes: [UInt8], tail: TailParse? = nil) {
            self.tape = tape; self.tapeBytes = tapeBytes; self.bytes = bytes; self.tail = tail
            flag.initialize(to: Signal.running.rawValue)
        }

        deinit { flag.deallocate() }

        func signal(_ s: Signal) {
            #if canImport(CSys)
            csys_flag_store(flag, s.rawValue)
            #endif
        }

        var state: Signal {
            #if canImport(CSys)
            return Signal(rawValue: csys_flag_load(flag)) ?? .running
            #else
            return .running
            #endif
        }

        /// The tape's likely length: one token per separator (`,` `:` `[` `{`), counted on
        /// the first 256 KiB and scaled to the file, with a margin. Layouts written by hand
        /// have a token every 10 or so bytes, generated ones every 6: the reservation
        /// assumes 6, and faulting in the rest would only cost memory.
        func likelyTapeBytes() -> Int {
            let sample = min(bytes.count, 256 << 10)
            var separators = 0
            for k in 0..<sample {
                switch bytes[k] {
                case UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "{"): separators += 1
                default: break
                }
            }
            let tokens = (separators + 1) * (bytes.count / max(sample, 1)) * 21 / 20
            return min(tapeBytes, tokens * MemoryLayout<JSONToken>.stride)
        }

        func run() {
            // The rest of a large array first, if there is one to parse: the main parse
            // then writes only half the tape, and no faulting in is needed.
            #if canImport(CSys)
            let tailTaken = tail.map { state == .running && $0.run() } ?? false
            #else
            let tailTaken = false  // without the flags the main parse could never take it
            #endif
            if tailTaken {
                if state != .parseFailed { text = JSONDocument.paddedCopy(bytes) }
                return
            }
            #if os(Linux)
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            let start = (Int(bitPattern: tape) + page - 1) & ~(page - 1)
            let end = (Int(bitPattern: tape) + likelyTapeBytes()) & ~(page - 1)
            if end > start, let at = UnsafeMutableRawPointer(bitPattern: start) {
                // In chunks from the front, the order the parser writes in, until the parse
                // ends (the rest would be faulted in for nothing).
                let chunk = 1 << 20
                var p = start
                while p < end && state == .running {
                    let n = min(chunk, end - p)
                    if madvise(at + (p - start), n, 23 /* MADV_POPULATE_WRITE */) != 0 { break }
                    p += n
                }
            }
            #endif
            if state != .parseFailed { text = JSONDocument.paddedCopy(bytes) }
        }
    }

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    func text(_ from: Int, _ to: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[from..<to])
    }

    func fail(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
        JSONSyntaxError(offset: offset ?? i, message: message)
    }

    func describeHere() -> String {
        guard i < bytes.count else { return "end of file" }
        let b = bytes[i]
        if b >= 0x20 && b < 0x7F { return "character '\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x\(String(b, radix: 16))"
    }

    @inline(__always)
    mutating func skipSpace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: return
            }
        }
    }

    mutating func value() throws(JSONSyntaxError) {
        guard i < bytes.count else { throw fail("unexpected end of file; expected a value") }
        switch bytes[i] {
        case UInt8(ascii: "{"): try object()
        case UInt8(ascii: "["): try array()
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "t"): try literal("true", .bool, 1)
        case UInt8(ascii: "f"): try literal("false", .bool, 0)
        case UInt8(ascii: "n"): try literal("null", .null, 0)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        case UInt8(ascii: "/"): throw fail("comments are not allowed in JSON")
        default: throw fail("unexpected \(describeHere()); expected a value")
        }
    }

    mutating func literal(_ word: StaticString, _ kind: JSONKind, _ count: UInt32) throws(JSONSyntaxError) {
        let n = word.utf8CodeUnitCount
        let w = UnsafeBufferPointer(start: word.utf8Start, count: n)
        guard i + n <= bytes.count, text(i, i + n).elementsEqual(w) else {
            throw fail("unexpected \(describeHere()); expected a value")
        }
        tokens.append(JSONToken(offset: UInt32(i), kind: kind, count: count))
        i += n
    }

    mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > deepest { deepest = depth }
        if depth > Self.maxDepth {
            throw fail("nesting deeper than \(Self.maxDepth) levels; flatten the layout")
        }
    }

    /// The text of a key token, for the rare comparisons that need it decoded.
    func keyText(_ k: Int) -> String {
        let t = tokens[k]
        if !t.raw { return unescaped[k]! }
        return String(decoding: text(Int(t.offset) + 1, Int(t.end)), as: UTF8.self)
    }

    /// The tape index after the value at `i` (its containers are complete).
    @inline(__always)
    func nextOnTape(_ i: Int) -> Int {
        let t = tokens[i]
        return t.kind == .object || t.kind == .array ? Int(t.end) : i + 1
    }

    func sameKey(_ a: Int, _ b: Int) -> Bool {
        let ta = tokens[a], tb = tokens[b]
        if ta.raw && tb.raw {
            guard ta.bucket == tb.bucket, ta.end - ta.offset == tb.end - tb.offset else { return false }
            return text(Int(ta.offset), Int(ta.end)).elementsEqual(text(Int(tb.offset), Int(tb.end)))
        }
        // Keys are equal when their bytes are (as Key matching is), not by Unicode equivalence.
        return keyText(a).utf8.elementsEqual(keyText(b).utf8)
    }

    mutating func object() throws(JSONSyntaxError) {
        let start = i
        try enter()
        i += 1
        let me = tokens.count
        tokens.append(JSONToken(offset: UInt32(start), kind: .object))
        objects += 1
        // Objects are small (a node has a handful of keys): a linear scan finds duplicates
        // faster than hashing; big objects switch to a set.
        var seen: Set<[UInt8]>?
        // The buckets of the keys so far: a key whose bucket is new cannot be a duplicate,
        // and then the earlier keys need no walk (most keys of most objects).
        var buckets: UInt64 = 0
        var count: UInt32 = 0
        skipSpace()
        if i < bytes.count && bytes[i] == UInt8(ascii: "}") {
            i += 1; depth -= 1
            tokens[me].end = UInt32(tokens.count)
            return
        }
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else {
                if i < bytes.count && bytes[i] == UInt8(ascii: "}") { throw fail("trailing comma before '}'") }
                throw fail("unexpected \(describeHere()); expected a quoted key")
            }
            let keyOffset = i
            let k = tokens.count
            try string()
            let t = tokens[k]
            tokens[k].bucket = t.raw && t.end > t.offset + 1
                ? UInt8(KeySet.bucket(count: Int(t.end - t.offset) - 1, first: bytes[Int(t.offset) + 1], last: bytes[Int(t.end) - 1]))
                : UInt8(KeySet.bucket(keyText(k)))
            let duplicate: Bool
            if seen != nil {
                duplicate = !seen!.insert(Array(keyText(k).utf8)).inserted
            } else {
                // The object's earlier keys are on the tape already: walk them.
                var d = false
                let bucket = tokens[k].bucket
                if buckets & (1 << UInt64(bucket)) != 0 {
                    var s = me + 1
                    while s < k {
                        if tokens[s].bucket == bucket && sameKey(s, k) { d = true; break }
                        s = nextOnTape(s + 1)
                    }
                }
                buckets |= 1 << UInt64(bucket)
                duplicate = d
                if count >= 16 {
                    var all: Set<[UInt8]> = [Array(keyText(k).utf8)]
                    var s = me + 1
                    while s < k { all.insert(Array(keyText(s).utf8)); s = nextOnTape(s + 1) }
                    seen = all
                }
            }
            if duplicate {
                throw fail("duplicate key \"\(keyText(k))\" in one object", at: keyOffset)
            }
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("unexpected \(describeHere()); expected ':'") }
            i += 1
            skipSpace()
            try value()
            count += 1
            skipSpace()
            guard i < bytes.count else { throw fail("unexpected end of file; expected ',' or '}'") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; break }
            throw fail("unexpected \(describeHere()); expected ',' or '}'")
        }
        depth -= 1
        tokens[me].end = UInt32(tokens.count)
        tokens[me].count = count
    }

    mutating func array() throws(JSONSyntaxError) {
        let start = i
        try enter()
        i += 1
        let me = tokens.count
        tokens.append(JSONToken(offset: UInt32(start), kind: .array))
        var count: UInt32 = 0
        skipSpace()
        if i < bytes.count && bytes[i] == UInt8(ascii: "]") {
            i += 1; depth -= 1
            tokens[me].end = UInt32(tokens.count)
            return
        }
        while true {
            skipSpace()
            if i < bytes.count && bytes[i] == UInt8(ascii: "]") { throw fail("trailing comma before ']'") }
            if let tail, i == tail._withUnsafeGuaranteedRef({ $0.start }), let n = splice(tail.takeUnretainedValue()) {
                count += n  // the rest of this array, up to its closing bracket
            } else {
                try value()
                count += 1
            }
            skipSpace()
            guard i < bytes.count else { throw fail("unexpected end of file; expected ',' or ']'") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; break }
            throw fail("unexpected \(describeHere()); expected ',' or ']'")
        }
        depth -= 1
        tokens[me].end = UInt32(tokens.count)
        tokens[me].count = count
    }

    /// Appends a string token. Raw strings stay in the file; only ASCII is accepted without
    /// a check, anything else is validated strictly, since decoding later would silently
    /// repair bad bytes.
    mutating func string() throws(JSONSyntaxError) {
        let start = i
        i += 1
        var j = i
        var ascii = true
        // Eight bytes at a time while none is a quote, a backslash, a control byte or
        // non-ASCII (a word-wide zero-byte test); then straight to the first such byte (the
        // lowest flag is exact: false flags only occur above a true one), where the byte
        // loop below takes over.
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        if let base = bytes.baseAddress {
            while j + 8 <= bytes.count {
                // Little-endian, so that the lowest bits are the first byte on any machine.
                let w = UInt64(littleEndian: UnsafeRawPointer(base + j).loadUnaligned(as: UInt64.self))
                let q = w ^ (ones &* 0x22), bs = w ^ (ones &* 0x5C)
                let special = ((q &- ones) & ~q) | ((bs &- ones) & ~bs) | ((w &- ones &* 0x20) & ~w) | w
                let hit = special & highs
                if hit != 0 { j += hit.trailingZeroBitCount >> 3; break }
                j += 8
            }
        }
        while j < bytes.count {
            let b = bytes[j]
            if b == UInt8(ascii: "\"") {
                if !ascii && String(validating: text(i, j), as: UTF8.self) == nil {
                    throw fail("invalid UTF-8 in string", at: start)
                }
                tokens.append(JSONToken(offset: UInt32(start), kind: .string, end: UInt32(j)))
                i = j + 1
                return
            }
            if b == UInt8(ascii: "\\") || b < 0x20 { break }
            if b >= 0x80 { ascii = false }
            j += 1
        }
        var out: [UInt8] = Array(text(i, j))
        i = j
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                guard let s = String(validating: out, as: UTF8.self) else {
                    throw fail("invalid UTF-8 in string", at: start)
                }
                unescaped[tokens.count] = s
                tokens.append(JSONToken(offset: UInt32(start), kind: .string, raw: false, end: UInt32(i)))
                i += 1
                return
            }
            if b < 0x20 { throw fail("control character in string; escape it (\\n, \\t, \\u00XX)") }
            if b == UInt8(ascii: "\\") {
                i += 1
                guard i < bytes.count else { break }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                            throw fail("unpaired surrogate in \\u escape")
                        }
                        i += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("unpaired surrogate in \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw fail("unpaired surrogate in \\u escape")
                    }
                    out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
                default:
                    throw fail("invalid escape '\\\(Character(Unicode.Scalar(e)))' in string", at: i - 2)
                }
                continue
            }
            out.append(b)
            i += 1
        }
        throw fail("unterminated string", at: start)
    }

    mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw fail("incomplete \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let d: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw fail("invalid hex digit in \\u escape")
            }
            v = v * 16 + d
            i += 1
        }
        return v
    }

    /// Integers and plain decimals of at most 15 significant digits are computed while
    /// scanning: the mantissa and the power of ten are both exact doubles, so one division
    /// is correctly rounded (the same result as strtod). Anything else takes the general path.
    mutating func number() throws(JSONSyntaxError) {
        let start = i
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        guard i < bytes.count else { throw fail("incomplete number", at: start) }
        var mantissa: Int64 = 0
        var digits = 0
        var fraction = 0
        @inline(__always) func digit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            digits = 1
            if i < bytes.count, digit(bytes[i]) {
                throw fail("numbers may not have leading zeros", at: start)
            }
        } else {
            while i < bytes.count, digit(bytes[i]) {
                if digits < 16 { mantissa = mantissa &* 10 &+ Int64(bytes[i] &- UInt8(ascii: "0")) }
                digits += 1
                i += 1
            }
            if digits == 0 { throw fail("invalid number", at: start) }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            let from = i
            while i < bytes.count, digit(bytes[i]) {
                if digits < 16 { mantissa = mantissa &* 10 &+ Int64(bytes[i] &- UInt8(ascii: "0")) }
                digits += 1
                i += 1
            }
            fraction = i - from
            if fraction == 0 { throw fail("a decimal point must be followed by digits", at: start) }
        }
        var exponent = false
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            exponent = true
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            let from = i
            while i < bytes.count, digit(bytes[i]) { i += 1 }
            if i == from { throw fail("an exponent must have digits", at: start) }
        }
        if !exponent && digits <= 15 {
            // Integers (most numbers in a layout) need no division.
            let v = fraction == 0 ? Double(mantissa) : Double(mantissa) / exactPowersOfTen[fraction]
            tokens.append(JSONToken(offset: UInt32(start), number: negative ? -v : v))
            return
        }
        let literal = String(decoding: text(start, i), as: UTF8.self)
        guard let v = Double(literal), v.isFinite else {
            throw fail("number \(literal) is out of range (must be finite)", at: start)
        }
        tokens.append(JSONToken(offset: UInt32(start), number: v))
    }
}

private let exactPowersOfTen: [Double] = (0...22).map { k in (0..<k).reduce(1.0) { r, _ in r * 10 } }

/// Turns byte offsets into 1-based line:column, built once per file with errors.
public struct LineIndex: Sendable {
    var lineStarts: [Int] = [0]
    let bytes: [UInt8]

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        for (k, b) in bytes.enumerated() where b == 0x0A { lineStarts.append(k + 1) }
    }

    public func position(of offset: Int) -> (line: Int, column: Int) {
        var lo = 0, hi = lineStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if lineStarts[mid] <= offset { lo = mid } else { hi = mid - 1 }
        }
        // Columns count characters (UTF-8 scalars), not bytes, so they match an editor's.
        let start = lineStarts[lo]
        let end = min(max(offset, start), bytes.count)
        var column = 1
        for k in start..<end where bytes[k] & 0xC0 != 0x80 { column += 1 }
        return (lo + 1, column)
    }
}

/// The tape while it is written: grown by doubling, handed to the document without a copy.
struct TokenBuffer {
    var base: UnsafeMutablePointer<JSONToken>?
    var capacity = 0
    var count = 0

    mutating func reserve(_ n: Int) {
        guard n > capacity else { return }
        let grown = UnsafeMutablePointer<JSONToken>.allocate(capacity: n)
        preferHugePages(grown, count: n)
        if let base {
            grown.moveInitialize(from: base, count: count)
            base.deallocate()
        }
        base = grown
        capacity = n
    }

    @inline(__always)
    mutating func append(_ t: JSONToken) {
        if count == capacity { reserve(max(16, capacity * 2)) }
        (base! + count).initialize(to: t)
        count += 1
    }

    subscript(i: Int) -> JSONToken {
        @inline(__always) get { base![i] }
        @inline(__always) nonmutating set { base![i] = newValue }
    }

    /// Gives up ownership of the first `count` tokens. The allocation keeps its reserved
    /// capacity (pages neither written nor faulted in by `ParseHelper` cost nothing); it
    /// is freed with the document.
    mutating func take() -> UnsafeMutableBufferPointer<JSONToken> {
        if base == nil { reserve(1) }
        let b = UnsafeMutableBufferPointer(start: base, count: count)
        base = nil; capacity = 0; count = 0
        return b
    }

    mutating func free() {
        base?.deallocate()
        base = nil; capacity = 0; count = 0
    }

    /// Appends another tape's tokens, whose container ends count from `shift` here.
    mutating func appendShifted(_ other: TokenBuffer, by shift: UInt32) {
        reserve(count + other.count)
        guard let src = other.base, let dst = base.map({ $0 + count }) else { return }
        for k in 0..<other.count {
            var t = src[k]
            if t.kind == .object || t.kind == .array { t.end += shift }
            dst[k] = t
        }
        count += other.count
    }
}

/// The second thread's share of a large parse: the rest of a large array from near the
/// middle of the file, parsed while the main parse reads the first half. The array and the
/// element start are guessed from the text ("}, {" between two objects); the main parse
/// takes the tail only when it arrives at that very place at an element's start, which
/// proves the guess, so a guess inside a string or a wrong one costs time, never a
/// different document. A guess in an array nested in the large one (a row's cells) is
/// outgrown: when its tail ends with "] }, {", the enclosing array's next element starts
/// there, and the tail parse starts again from it (`run`).
final class TailParse: @unchecked Sendable {
    enum State: Int32 { case idle = 0, running, done, failed }
    struct Result {
        var tokens: TokenBuffer
        var unescaped: [Int: String]
        var objects: Int
        var deepest: Int
        /// Where the tail began and the offset of the array's closing bracket.
        var start: Int
        var close: Int
        var elements: UInt32
    }

    let bytes: UnsafeBufferPointer<UInt8>
    /// [state, start, cancelled]: the tail's state, where its current attempt began (-1
    /// none), and 1 once the main parse no longer needs it.
    private let flags = UnsafeMutablePointer<Int32>.allocate(capacity: 3)
    private var result: Result?

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        flags.initialize(to: State.idle.rawValue)
        (flags + 1).initialize(to: -1)
        (flags + 2).initialize(to: 0)
    }

    deinit {
        result?.tokens.free()
        flags.deallocate()
    }

    #if canImport(CSys)
    private func load(_ k: Int) -> Int32 { csys_flag_load(flags + k) }
    private func store(_ k: Int, _ v: Int32) { csys_flag_store(flags + k, v) }
    #else
    // Without the flags the tail never publishes a start, so the main parse never takes it.
    private func load(_ k: Int) -> Int32 { -1 }
    private func store(_ k: Int, _ v: Int32) {}
    #endif

    /// Where the current attempt began; the main parse checks it at each element start.
    var start: Int { Int(load(1)) }

    /// The main parse has ended: a tail still being parsed is abandoned.
    func cancel() { store(2, 1) }
    var cancelled: Bool { load(2) != 0 }

    /// Parses the tail; returns whether one was parsed (the main parse may still not take it).
    func run() -> Bool {
        store(0, State.running.rawValue)
        var at = Self.boundary(in: bytes, from: bytes.count / 2)
        var failures = 0
        while let s = at, failures < 8, !cancelled {
            store(1, Int32(s))
            var p = JSONParser(bytes: bytes)
            p.i = s
            p.cancel = flags + 2
            p.tokens.reserve((bytes.count - s) / 6 + 16)
            switch p.parseTail() {
            case .success(let elements):
                if let outer = Self.enclosingBoundary(in: bytes, after: p.i) {
                    p.tokens.free()
                    at = outer
                    continue
                }
                result = Result(tokens: p.tokens, unescaped: p.unescaped, objects: p.objects, deepest: p.deepest,
                                start: s, close: p.i, elements: elements)
                store(0, State.done.rawValue)
                return true
            case .failure:
                p.tokens.free()
                failures += 1
                at = cancelled ? nil : Self.boundary(in: bytes, from: s + 1)
            }
        }
        store(1, -1)
        store(0, State.failed.rawValue)
        return false
    }

    /// The main parse, at an element start equal to `start`: waits for the tail to end and
    /// takes it (the caller then owns its tokens) if it began at `position`. With the halves
    /// balanced the tail ends about when the main parse gets here; the wait stops early if
    /// the tail moves on to begin elsewhere, and cannot deadlock: `start` is set only by a
    /// tail parse under way.
    func take(at position: Int) -> Result? {
        while load(0) == State.running.rawValue && load(1) == Int32(position) { sched_yield() }
        guard load(0) == State.done.rawValue, let r = result, r.start == position else { return nil }
        result = nil
        return r
    }

    /// The first "{" after `from` that follows "}" and "," (with any spaces): likely the start
    /// of an array element after an object one. Looked for in the next MiB only.
    static func boundary(in bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        var k = max(from, 0)
        let end = min(bytes.count, k + (1 << 20))
        while k < end {
            if bytes[k] == UInt8(ascii: "}") {
                var j = skip(bytes, k + 1)
                if j < bytes.count && bytes[j] == UInt8(ascii: ",") {
                    j = skip(bytes, j + 1)
                    if j < bytes.count && bytes[j] == UInt8(ascii: "{") { return j }
                }
            }
            k += 1
        }
        return nil
    }

    /// After a tail's closing bracket at `close`: the next element of the array that holds
    /// the object holding this array ("] }, {"), if there is one.
    static func enclosingBoundary(in bytes: UnsafeBufferPointer<UInt8>, after close: Int) -> Int? {
        var j = skip(bytes, close + 1)
        guard j < bytes.count && bytes[j] == UInt8(ascii: "}") else { return nil }
        j = skip(bytes, j + 1)
        guard j < bytes.count && bytes[j] == UInt8(ascii: ",") else { return nil }
        j = skip(bytes, j + 1)
        return j < bytes.count && bytes[j] == UInt8(ascii: "{") ? j : nil
    }

    private static func skip(_ bytes: UnsafeBufferPointer<UInt8>, _ from: Int) -> Int {
        var j = from
        while j < bytes.count {
            switch bytes[j] {
            case 0x20, 0x0A, 0x0D, 0x09: j += 1
            default: return j
            }
        }
        return j
    }
}

/// Asks Linux to back a large buffer with 2 MiB pages where the system allows it on request
/// (transparent huge pages in "madvise" mode, Debian's default): one page fault per 2 MiB
/// instead of 512. Fresh memory cost a large load about 0.55 ms per MB in faults
/// (measured); elsewhere, or when refused, nothing changes.
func preferHugePages<T>(_ p: UnsafeMutablePointer<T>, count: Int) {
    #if os(Linux)
    let huge = 2 << 20
    let bytes = count * MemoryLayout<T>.stride
    guard bytes >= 2 * huge else { return }
    let start = (Int(bitPattern: p) + huge - 1) & ~(huge - 1)
    let end = (Int(bitPattern: p) + bytes) & ~(huge - 1)
    if end > start, let at = UnsafeMutableRawPointer(bitPattern: start) {
        _ = madvise(at, end - start, 14 /* MADV_HUGEPAGE */)
    }
    #endif
}

/// Words with counts, and pairs of words (the second seen after the first) with counts: the
/// shipped list of a language (`Words/en.words`) or the words a user has taught the
/// predictor. The text format is `COUNT WORD` and `COUNT WORD1 WORD2` lines
/// (`WordList+Text.swift`, Words/README.md).
///
/// Words are kept as they are spelled ("I", "London"); each also has a key, its lowercased
/// UTF-8, by which partial words are matched case-insensitively. Ids are indexes into
/// parallel arrays, so that a list of 50 000 words and 250 000 pairs is a few arrays rather
/// than hundreds of thousands of small objects, and loads in milliseconds.
public struct WordList: Sendable {
    /// Counts are whole numbers from 1 to this; adding past it stays at it.
    public static let maxCount = 1_000_000_000_000_000
    /// Words are at most this many characters long,
    public static let maxWordLength = 100
    /// and this many bytes of UTF-8 (a letter with hundreds of combining marks is one
    /// character, and would cost every keystroke that looks at it).
    public static let maxWordBytes = 400

    /// Every spelling the list knows, as a word or only in pairs, in UTF-8, back to back:
    /// id i's is spellingBytes[spellingOffsets[i]..<spellingOffsets[i + 1]].
    private(set) var spellingBytes: [UInt8] = []
    private(set) var spellingOffsets: [Int] = [0]
    /// How often each id was seen as a word; 0 for one seen only in pairs.
    private(set) var counts: [Int] = []
    /// The keys, back to back like the spellings.
    private(set) var keyBytes: [UInt8] = []
    private(set) var keyOffsets: [Int] = [0]
    /// Spelling → id: open addressing over the spellings' bytes (-1: empty). Loading looks
    /// up every word of 250 000 pairs; hashing bytes in place, without making a String for
    /// each, keeps that to a few milliseconds.
    private(set) var table: [Int32] = []
    /// Key → the first id with that key, open addressing like `table`; and for each id, the
    /// next id with the same key (-1: none). "The" finds "the", and "LONDON" "London",
    /// without looking at every spelling, however many the list has.
    private(set) var keyTable: [Int32] = []
    private(set) var sameKey: [Int32] = []
    /// The words seen after each id, with their counts.
    private(set) var successors: [[Successor]] = []
    /// The sum of the words' counts.
    private(set) var total = 0.0

    /// Words with a count (spellings seen only in pairs are not counted).
    public private(set) var wordCount = 0
    public private(set) var pairCount = 0

    /// An empty list.
    public init() {}

    struct Successor: Sendable {
        var id: Int32
        var count: Int
    }

    /// Whether `word` can be in a list: not empty, at most `maxWordLength` characters and
    /// `maxWordBytes` bytes, no spaces and no control characters (the format separates
    /// fields with spaces).
    public static func isValidWord(_ word: String) -> Bool {
        guard !word.isEmpty, word.utf8.count <= maxWordBytes,
              word.utf8.count <= maxWordLength || word.count <= maxWordLength else { return false }
        return !word.unicodeScalars.contains { $0.properties.isWhitespace || $0.properties.generalCategory == .control }
    }

    /// How often `word`, spelled exactly so, was seen as a word (0: never).
    public func count(of word: String) -> Int {
        id(of: word).map { counts[Int($0)] } ?? 0
    }

    /// How often `second` was seen after `first`, both spelled exactly so (0: never).
    public func count(of second: String, after first: String) -> Int {
        guard let f = id(of: first), let s = id(of: second) else { return 0 }
        return successors[Int(f)].first { $0.id == s }?.count ?? 0
    }

    /// The words, most frequent first; equal counts in the order of their UTF-8 bytes.
    public func sortedWords() -> [(word: String, count: Int)] {
        wordOrder().map { (spelling($0), counts[Int($0)]) }
    }

    /// The pairs, grouped by first word in the order of `sortedWords()` (first words seen
    /// only in pairs after them, in byte order), each group most frequent first.
    public func sortedPairs() -> [(first: String, second: String, count: Int)] {
        var pairs: [(first: String, second: String, count: Int)] = []
        pairs.reserveCapacity(pairCount)
        for first in pairOrder() {
            for s in sortedSuccessors(of: first) {
                pairs.append((spelling(first), spelling(s.id), s.count))
            }
        }
        return pairs
    }

    /// Adds `count` sightings of `word`; false (and nothing added) when it is not a valid
    /// word or `count` is not positive.
    @discardableResult
    public mutating func add(_ word: String, count: Int = 1) -> Bool {
        guard count > 0, Self.isValidWord(word) else { return false }
        let id = Int(id(creating: word))
        if counts[id] == 0 { wordCount += 1 }
        let added = min(count, Self.maxCount - counts[id])
        counts[id] += added
        total += Double(added)
        return true
    }

    /// Adds `count` sightings of `second` after `first`; false (and nothing added) when
    /// either is not a valid word or `count` is not positive. The words' own counts are
    /// left alone: a pair says what follows, a word's count how often it is used.
    @discardableResult
    public mutating func add(_ second: String, after first: String, count: Int = 1) -> Bool {
        guard count > 0, Self.isValidWord(first), Self.isValidWord(second) else { return false }
        let f = Int(id(creating: first)), s = id(creating: second)
        if let k = successors[f].firstIndex(where: { $0.id == s }) {
            successors[f][k].count += min(count, Self.maxCount - successors[f][k].count)
        } else {
            successors[f].append(Successor(id: s, count: min(count, Self.maxCount)))
            pairCount += 1
        }
        return true
    }

    /// Removes every spelling of `word` (case-insensitively) and every pair it is in; true
    /// if there was anything to remove.
    @discardableResult
    public mutating func remove(_ word: String) -> Bool {
        let key = wordKey(word)
        let gone = Set((0..<spellingCount).filter { key.elementsEqual(self.key(of: Int32($0))) }.map { Int32($0) })
        let pairsGone = gone.contains { !successors[Int($0)].isEmpty }
            || successors.contains { $0.contains { gone.contains($0.id) } }
        guard gone.contains(where: { counts[Int($0)] > 0 }) || pairsGone else { return false }
        // Built afresh in one pass: the kept pairs are already unique, so none is looked for
        // among its first word's others (which made a word with many successors quadratic).
        var kept = WordList()
        kept.reserveCapacity(words: spellingCount, bytes: spellingBytes.count)
        for id in wordOrder() where !gone.contains(id) {
            kept.setCount(counts[Int(id)], of: kept.id(creatingUTF8: spellingUTF8(id)))
        }
        var pairs: [(first: Int32, second: Successor)] = []
        pairs.reserveCapacity(pairCount)
        for first in pairOrder() where !gone.contains(first) {
            let keptFirst = kept.id(creatingUTF8: spellingUTF8(first))
            for s in sortedSuccessors(of: first) where !gone.contains(s.id) {
                pairs.append((keptFirst, Successor(id: kept.id(creatingUTF8: spellingUTF8(s.id)), count: s.count)))
            }
        }
        kept.appendPairs(pairs)
        self = kept
        return true
    }

    /// The list with every count, of words and of pairs, divided by 2^`times` (rounded
    /// down), and what comes to 0 dropped: a user's words aged, the old uses weighing less
    /// and those long unused gone.
    public func halved(times: Int = 1) -> WordList {
        let shift = min(max(times, 0), 62)
        var kept = WordList()
        kept.reserveCapacity(words: spellingCount, bytes: spellingBytes.count)
        for id in wordOrder() where counts[Int(id)] >> shift > 0 {
            kept.setCount(counts[Int(id)] >> shift, of: kept.id(creatingUTF8: spellingUTF8(id)))
        }
        var pairs: [(first: Int32, second: Successor)] = []
        for first in pairOrder() {
            let left = sortedSuccessors(of: first).filter { $0.count >> shift > 0 }
            guard !left.isEmpty else { continue }
            let keptFirst = kept.id(creatingUTF8: spellingUTF8(first))
            for s in left {
                pairs.append((keptFirst, Successor(id: kept.id(creatingUTF8: spellingUTF8(s.id)), count: s.count >> shift)))
            }
        }
        kept.appendPairs(pairs)
        return kept
    }

    // MARK: Lookups for the predictor

    var spellingCount: Int { counts.count }

    func spelling(_ id: Int32) -> String { String(decoding: spellingUTF8(id), as: UTF8.self) }

    func spellingUTF8(_ id: Int32) -> ArraySlice<UInt8> {
        spellingBytes[spellingOffsets[Int(id)]..<spellingOffsets[Int(id) + 1]]
    }

    func count(_ id: Int32) -> Int { counts[Int(id)] }

    func successors(of id: Int32) -> [Successor] { successors[Int(id)] }

    func key(of id: Int32) -> ArraySlice<UInt8> {
        keyBytes[keyOffsets[Int(id)]..<keyOffsets[Int(id) + 1]]
    }

    /// Whether id's key starts with `prefix` (a key).
    func key(of id: Int32, hasPrefix prefix: [UInt8]) -> Bool {
        let start = keyOffsets[Int(id)]
        guard keyOffsets[Int(id) + 1] - start >= prefix.count else { return false }
        for k in 0..<prefix.count where keyBytes[start + k] != prefix[k] { return false }
        return true
    }

    func id(of spelling: String) -> Int32? { id(ofUTF8: spelling.utf8) }

    /// The id of the spelling with these UTF-8 bytes.
    func id<C: Collection>(ofUTF8 bytes: C) -> Int32? where C.Element == UInt8 {
        guard !table.isEmpty else { return nil }
        let mask = table.count - 1
        var slot = Self.hash(bytes) & mask
        while true {
            let id = table[slot]
            if id < 0 { return nil }
            if spellingUTF8(id).elementsEqual(bytes) { return id }
            slot = (slot + 1) & mask
        }
    }

    /// FNV-1a: fast on short words, and the same in every run.
    static func hash<C: Collection>(_ bytes: C) -> Int where C.Element == UInt8 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: h ^ (h >> 29))
    }

    /// The id of `word` spelled exactly so, else of its most frequent spelling in any case
    /// ("The" finds "the"); nil if the list has no spelling of it.
    func id(matching word: String) -> Int32? {
        if let id = id(of: word) { return id }
        let key = wordKey(word)
        if let id = id(ofUTF8: key) { return id }
        guard var i = firstID(withKey: key) else { return nil }
        var best = i
        while sameKey[Int(i)] >= 0 {
            i = sameKey[Int(i)]
            if Self.precedes(i, best, in: self) { best = i }
        }
        return best
    }

    /// The first id whose key is `key`.
    func firstID(withKey key: [UInt8]) -> Int32? {
        guard !keyTable.isEmpty else { return nil }
        let mask = keyTable.count - 1
        var slot = Self.hash(key) & mask
        while true {
            let id = keyTable[slot]
            if id < 0 { return nil }
            if self.key(of: id).elementsEqual(key) { return id }
            slot = (slot + 1) & mask
        }
    }

    /// The word ids with a count, most frequent first, equal counts in byte order.
    func wordOrder() -> [Int32] {
        var order = (0..<Int32(spellingCount)).filter { counts[Int($0)] > 0 }
        let sorted = zip(order, order.dropFirst()).allSatisfy { !Self.precedes($0.1, $0.0, in: self) }
        if !sorted { order.sort { Self.precedes($0, $1, in: self) } }
        return order
    }

    /// More frequent first, then in byte order of the spellings.
    static func precedes(_ a: Int32, _ b: Int32, in list: WordList) -> Bool {
        let ca = list.counts[Int(a)], cb = list.counts[Int(b)]
        if ca != cb { return ca > cb }
        return list.spellingUTF8(a).lexicographicallyPrecedes(list.spellingUTF8(b))
    }

    /// The ids with successors: words in word order, then spellings seen only in pairs.
    private func pairOrder() -> [Int32] {
        let words = wordOrder().filter { !successors[Int($0)].isEmpty }
        let others = (0..<Int32(spellingCount)).filter { counts[Int($0)] == 0 && !successors[Int($0)].isEmpty }
            .sorted { spellingUTF8($0).lexicographicallyPrecedes(spellingUTF8($1)) }
        return words + others
    }

    private func sortedSuccessors(of id: Int32) -> [Successor] {
        let list = successors[Int(id)]
        let inOrder = zip(list, list.dropFirst()).allSatisfy { !successorPrecedes($0.1, $0.0) }
        return inOrder ? list : list.sorted(by: successorPrecedes)
    }

    private func successorPrecedes(_ a: Successor, _ b: Successor) -> Bool {
        if a.count != b.count { return a.count > b.count }
        return spellingUTF8(a.id).lexicographicallyPrecedes(spellingUTF8(b.id))
    }

    // MARK: Building

    /// The id of `spelling`, made if it is new (with no count and no successors).
    mutating func id(creating spelling: String) -> Int32 {
        id(creatingUTF8: spelling.utf8)
    }

    /// The id of the spelling with these UTF-8 bytes (valid UTF-8), made if it is new.
    mutating func id<C: Collection>(creatingUTF8 bytes: C) -> Int32 where C.Element == UInt8 {
        if let id = id(ofUTF8: bytes) { return id }
        let id = Int32(counts.count)
        spellingBytes.append(contentsOf: bytes)
        spellingOffsets.append(spellingBytes.count)
        counts.append(0)
        keyBytes.append(contentsOf: wordKey(utf8: bytes))
        keyOffsets.append(keyBytes.count)
        successors.append([])
        sameKey.append(-1)
        if (counts.count) * 2 > table.count { rehash(capacity: max(64, table.count * 2)) } else { insert(id) }
        return id
    }

    private mutating func insert(_ id: Int32) {
        let mask = table.count - 1
        var slot = Self.hash(spellingUTF8(id)) & mask
        while table[slot] >= 0 { slot = (slot + 1) & mask }
        table[slot] = id
        // By key: a new key gets a slot; another spelling of a known key joins its chain.
        let key = self.key(of: id)
        slot = Self.hash(key) & mask
        while true {
            let other = keyTable[slot]
            if other < 0 { keyTable[slot] = id; return }
            if self.key(of: other).elementsEqual(key) {
                sameKey[Int(id)] = sameKey[Int(other)]
                sameKey[Int(other)] = id
                return
            }
            slot = (slot + 1) & mask
        }
    }

    private mutating func rehash(capacity: Int) {
        var size = 64
        while size < capacity { size *= 2 }
        table = [Int32](repeating: -1, count: size)
        keyTable = [Int32](repeating: -1, count: size)
        sameKey = [Int32](repeating: -1, count: counts.count)
        for id in 0..<Int32(counts.count) { insert(id) }
    }

    /// For the parser: a count for a new word (its id has none yet).
    mutating func setCount(_ count: Int, of id: Int32) {
        counts[Int(id)] = count
        wordCount += 1
        total += Double(count)
    }

    /// For the parser: pairs not yet in the list, in order.
    mutating func appendPairs(_ pairs: [(first: Int32, second: Successor)]) {
        var sizes = [Int32](repeating: 0, count: counts.count)
        for p in pairs { sizes[Int(p.first)] += 1 }
        for id in sizes.indices where sizes[id] > 0 { successors[id].reserveCapacity(successors[id].count + Int(sizes[id])) }
        for p in pairs { successors[Int(p.first)].append(p.second) }
        pairCount += pairs.count
    }

    /// Whether some first word lists the same successor twice (only a parsed list can).
    func hasRepeatedPair() -> Bool {
        var mark = [Int32](repeating: -1, count: counts.count)
        for first in 0..<Int32(counts.count) {
            for s in successors[Int(first)] {
                if mark[Int(s.id)] == first { return true }
                mark[Int(s.id)] = first
            }
        }
        return false
    }

    mutating func reserveCapacity(words: Int, bytes: Int) {
        counts.reserveCapacity(words)
        spellingOffsets.reserveCapacity(words + 1)
        keyOffsets.reserveCapacity(words + 1)
        sameKey.reserveCapacity(words)
        successors.reserveCapacity(words)
        spellingBytes.reserveCapacity(bytes)
        keyBytes.reserveCapacity(bytes)
        if table.count < words * 2 { rehash(capacity: words * 2) }
    }
}

extension WordList: Equatable {
    /// The same words and pairs with the same counts, in whatever order they were added.
    public static func == (a: WordList, b: WordList) -> Bool {
        guard a.wordCount == b.wordCount, a.pairCount == b.pairCount else { return false }
        for id in 0..<Int32(a.spellingCount) where a.counts[Int(id)] > 0 {
            guard let theirs = b.id(ofUTF8: a.spellingUTF8(id)), b.counts[Int(theirs)] == a.counts[Int(id)] else { return false }
        }
        for first in 0..<Int32(a.spellingCount) where !a.successors[Int(first)].isEmpty {
            guard let bFirst = b.id(ofUTF8: a.spellingUTF8(first)) else { return false }
            var theirs: [Int32: Int] = [:]
            for s in b.successors[Int(bFirst)] { theirs[s.id] = s.count }
            for s in a.successors[Int(first)] {
                guard let bSecond = b.id(ofUTF8: a.spellingUTF8(s.id)), theirs[bSecond] == s.count else { return false }
            }
        }
        return true
    }
}

/// The key words are matched by: lowercased UTF-8, with the typographic apostrophe (’) as
/// the plain one, so that "Don’t" and "don't" are one word to match.
func wordKey<S: StringProtocol>(_ word: S) -> [UInt8] {
    wordKey(utf8: word.utf8)
}

/// The key of a word given as UTF-8 (valid).
func wordKey<C: Collection>(utf8 bytes: C) -> [UInt8] where C.Element == UInt8 {
    if bytes.allSatisfy({ $0 < 0x80 }) {
        return bytes.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
    }
    var scalars = String.UnicodeScalarView()
    for scalar in String(decoding: bytes, as: UTF8.self).lowercased().unicodeScalars {
        scalars.append(scalar == "\u{2019}" ? "'" : scalar)
    }
    return Array(String(scalars).utf8)
}

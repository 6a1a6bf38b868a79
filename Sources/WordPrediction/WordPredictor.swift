/// Word completion and next-word prediction from a language's word list and the words the
/// user has taught it: pure, deterministic, no clock and no files.
///
/// A word's score given the previous word p mixes the language's pair probability P(w | p)
/// (its count after p over all counts after p) with the word's own frequency, and the
/// user's counts move both in proportion to how many there are (`Model`): a word or a
/// pair typed once counts for little against the language, one typed often leads. The
/// user's counts age: past `ageLimit` words in all, every count is halved, so what was
/// typed long ago weighs less than what was typed lately, and what was typed once, long
/// ago, is forgotten. Equal scores are ordered by the UTF-8 bytes of their spellings.
public struct WordPredictor: Sendable {
    public let system: WordList
    public private(set) var user: WordList
    /// The system's words, most frequent first (equal counts in byte order): the first k
    /// with a prefix are its k likeliest by frequency alone.
    private let systemByCount: [Int32]
    /// The user's words a prediction looks at: the `shortlistSize` most frequent when the
    /// list was taken, and every word learned since. However many words a user has taught
    /// it, a keystroke costs the same: a word used less than the shortlist's is predicted
    /// from the language's list alone (or after its word, from its pairs).
    private var shortlist: [Int32]
    private var onShortlist: [Bool]

    /// How many of the user's words the predictions look at, at most (plus those learned
    /// since the list was read): far more than a person uses often.
    public static let shortlistSize = 20_000

    /// How much the pair probability counts against the word's own frequency, when the
    /// previous word has pairs. Keystroke savings on sample phrases hardly move between 0.8
    /// and 0.95; at 0.8 a very frequent word still showed where it never follows ("the"
    /// after "to the").
    static let pairWeight = 0.9
    /// How many words of the language's the user's counts are weighed against: the user's
    /// frequencies lead once they have typed more than this (see `Model`).
    static let userPrior = 100.0
    /// How many of the language's pairs after a word the user's pairs after it are weighed
    /// against.
    static let pairPrior = 8.0

    /// How many words the user's counts add up to, at most: past it they are halved
    /// (`learn`). Months of a switch user's typing; a person's vocabulary fits many times.
    public static let ageLimit = 100_000.0

    public init(system: WordList, user: WordList = WordList()) {
        self.system = system
        self.user = user
        systemByCount = system.wordOrder()
        (shortlist, onShortlist) = Self.shortlist(of: user)
    }

    /// This predictor's system list with another user list: the system's index is shared,
    /// not built again, so that a big list is ordered once however often users change.
    public func replacingUser(_ user: WordList) -> WordPredictor {
        var copy = self
        copy.user = user
        (copy.shortlist, copy.onShortlist) = Self.shortlist(of: user)
        return copy
    }

    /// Another predictor's system list (and its index) with this one's user list, as it is
    /// now: the language's words arriving after some were learned.
    public func replacingSystem(with other: WordPredictor) -> WordPredictor {
        var copy = other
        copy.user = user
        copy.shortlist = shortlist
        copy.onShortlist = onShortlist
        return copy
    }

    /// The ids of the user's `shortlistSize` most frequent words (all of them in a list of
    /// that size or less), and which ids are among them.
    static func shortlist(of user: WordList) -> ([Int32], [Bool]) {
        var ids = (0..<Int32(user.spellingCount)).filter { user.count($0) > 0 }
        if ids.count > shortlistSize {
            ids.sort { user.count($0) > user.count($1) }
            ids.removeLast(ids.count - shortlistSize)
        }
        var on = [Bool](repeating: false, count: user.spellingCount)
        for id in ids { on[Int(id)] = true }
        return (ids, on)
    }

    /// Up to `count` words for a caret after `textBefore` (the field's text before the
    /// caret; may be long — only its tail matters).
    ///
    /// If textBefore ends inside a word (letters, digits, apostrophe, hyphen), completions of
    /// that partial word: words starting with it, case-insensitively, the word itself
    /// included if it is a known word; spelled as the lists spell them ("I", "London").
    /// After a separator, or in an empty text, the likeliest next words. The previous word
    /// weighs in through pairs in both cases; after a sentence end or at the start there is
    /// none.
    public func predictions(after textBefore: String, count: Int) -> [String] {
        predictions(for: WordContext(textBefore: textBefore), count: count)
    }

    /// Up to `count` words for the partial word and previous word of `context`.
    public func predictions(for context: WordContext, count k: Int) -> [String] {
        guard k > 0 else { return [] }
        let system = self.system, user = self.user
        let prefix = wordKey(context.partial)
        let model = Model(system: system, user: user, previous: context.previous)
        var candidates = Candidates(system: system, user: user)

        // Every word that could be among the best is a candidate; the rest score by the
        // system's frequency alone (times a constant) and are beaten by its first k.
        var found = 0
        for id in systemByCount where found < k && system.key(of: id, hasPrefix: prefix) {
            candidates.add(system: id)
            found += 1
        }
        if !model.systemNext.isEmpty {
            var best = Best(k)
            for s in model.systemNext where system.key(of: s.id, hasPrefix: prefix) {
                let score = model.systemScore(uni: system.count(s.id), pair: s.count)
                if best.mayTake(score) { best.offer(score, system.spellingUTF8(s.id), s.id) }
            }
            for id in best.ids { candidates.add(system: id) }
        }
        // The user's: the most frequent with the prefix, and the likeliest after the previous
        // word; each bounded, so that a big list costs no more than a small one. (Twice k of
        // each: a word a little down both lists may still be among the best together.)
        var userBest = Best(2 * k)
        for id in shortlist where user.key(of: id, hasPrefix: prefix) {
            let score = Double(user.count(id))
            if userBest.mayTake(score) { userBest.offer(score, user.spellingUTF8(id), id) }
        }
        for id in userBest.ids { candidates.add(user: id) }
        if !model.userNext.isEmpty {
            var best = Best(2 * k)
            for s in model.userNext where user.key(of: s.id, hasPrefix: prefix) {
                let score = Double(s.count)
                if best.mayTake(score) { best.offer(score, user.spellingUTF8(s.id), s.id) }
            }
            for id in best.ids { candidates.add(user: id) }
        }

        // Their pair counts after the previous word, in one pass over its successors (the
        // ten thousand after "the": a binary search among a few candidates each).
        if !model.systemNext.isEmpty {
            let index = IDIndex(candidates.list.enumerated().compactMap { i, c in c.system.map { ($0, i) } })
            for s in model.systemNext { if let i = index[s.id] { candidates.list[i].systemPair = s.count } }
        }
        if !model.userNext.isEmpty {
            let index = IDIndex(candidates.list.enumerated().compactMap { i, c in c.user.map { ($0, i) } })
            for s in model.userNext { if let i = index[s.id] { candidates.list[i].userPair = s.count } }
        }

        var best = Best(k)
        for (i, c) in candidates.list.enumerated() {
            let score = model.score(
                systemUni: c.system.map { system.count($0) } ?? 0, systemPair: c.systemPair,
                userUni: c.user.map { user.count($0) } ?? 0, userPair: c.userPair)
            if score > 0 { best.offer(score, ArraySlice(c.spelling.utf8), Int32(i)) }
        }
        return best.ids.map { candidates.list[Int($0)].spelling }
    }

    /// A word the user committed, after `previous` (nil at the start of a sentence):
    /// counted in the user list, as a word and as a pair (and the list aged past
    /// `ageLimit`). A word either list knows in
    /// another case is counted as it is spelled there ("the" for a sentence's "The"); a new
    /// word capitalised only at a sentence start is learned in lowercase. Empty words and
    /// words with spaces are ignored.
    public mutating func learn(_ word: String, after previous: String?) {
        guard let word = Self.cleaned(word) else { return }
        let known = knownSpelling(word)
        var spelling = known ?? word
        if known == nil, previous == nil, word.first?.isUppercase == true, !word.dropFirst().contains(where: \.isUppercase) {
            spelling = word.lowercased()
        }
        // Aged before the word is counted: the word just typed is never the one forgotten.
        if user.total + 1 > Self.ageLimit {
            // Halved as often as it takes at once (a hand-made file may start far past it).
            var times = 1
            while times < 62 && user.total / Double(1 << times) + 1 > Self.ageLimit { times += 1 }
            user = user.halved(times: times)
            (shortlist, onShortlist) = Self.shortlist(of: user)
        }
        user.add(spelling)
        if let id = user.id(of: spelling) {
            while onShortlist.count <= Int(id) { onShortlist.append(false) }
            if !onShortlist[Int(id)] { onShortlist[Int(id)] = true; shortlist.append(id) }
        }
        if let previous = previous.flatMap(Self.cleaned) {
            user.add(spelling, after: knownSpelling(previous) ?? previous)
        }
    }

    /// Removes `word` (case-insensitively) and its pairs from the user list; true if it was
    /// there. The system list is not changed.
    @discardableResult
    public mutating func forget(_ word: String) -> Bool {
        guard user.remove(word) else { return false }
        // Ids change when a word goes.
        (shortlist, onShortlist) = Self.shortlist(of: user)
        return true
    }

    /// Empties the user list.
    public mutating func forgetAll() {
        user = WordList()
        (shortlist, onShortlist) = ([], [])
    }

    /// How a list already spells `word`: the user's spelling first, then the system's.
    private func knownSpelling(_ word: String) -> String? {
        if let id = user.id(matching: word) { return user.spelling(id) }
        if let id = system.id(matching: word) { return system.spelling(id) }
        return nil
    }

    private static func cleaned(_ word: String) -> String? {
        var trimmed = word.drop { $0.isWhitespace }
        while trimmed.last?.isWhitespace == true { trimmed = trimmed.dropLast() }
        return WordList.isValidWord(String(trimmed)) ? String(trimmed) : nil
    }
}

/// The numbers a prediction is scored with, given the previous word.
///
/// The user's counts are evidence that moves the language's probabilities, in proportion to
/// how much of it there is (additive smoothing with the language as the prior):
/// - a word: P(w) = (u(w) + a·S(w)) / (U + a), S the language's frequency, u the user's
///   count and U all of the user's counts, `a` = `WordPredictor.userPrior`. A word typed
///   once in the first minutes counts for little against "the" (3 % of English); after a
///   few hundred words the user's own frequencies lead.
/// - after the previous word p: B(w) = λ·S(w | p) + (1 − λ)·P(w), the language's pair
///   probability (λ = `pairWeight` when it knows pairs after p, else 0); then the user's
///   pairs after p move it: (u(p, w) + b·B(w)) / (U_p + b), `b` = `WordPredictor.pairPrior`.
///   A phrase the user has written twice ("switch access") comes back at once.
private struct Model {
    var systemNext: [WordList.Successor] = []
    var userNext: [WordList.Successor] = []
    var systemPairTotal = 0.0, userPairTotal = 0.0
    var systemTotal: Double, userTotal: Double
    var pairWeight = 0.0

    init(system: WordList, user: WordList, previous: String?) {
        if let previous {
            if let id = system.id(matching: previous) { systemNext = system.successors(of: id) }
            if let id = user.id(matching: previous) { userNext = user.successors(of: id) }
        }
        systemPairTotal = Double(systemNext.reduce(0) { $0 + $1.count })
        userPairTotal = Double(userNext.reduce(0) { $0 + $1.count })
        if systemPairTotal > 0 { pairWeight = WordPredictor.pairWeight }
        systemTotal = system.total
        userTotal = user.total
    }

    /// A word the user never typed (after p, none of the user's pairs): the score is the
    /// language's, scaled by constants, so that candidates found by the language's
    /// order alone are ranked as they would be by the full score.
    func systemScore(uni: Int, pair: Int) -> Double {
        score(systemUni: uni, systemPair: pair, userUni: 0, userPair: 0)
    }

    func score(systemUni: Int, systemPair: Int, userUni: Int, userPair: Int) -> Double {
        let language = systemTotal > 0 ? Double(systemUni) / systemTotal : 0
        let a = WordPredictor.userPrior, b = WordPredictor.pairPrior
        let word = (Double(userUni) + a * language) / (userTotal + a)
        let languagePair = systemPairTotal > 0 ? Double(systemPair) / systemPairTotal : 0
        let backoff = pairWeight * languagePair + (1 - pairWeight) * word
        return userPairTotal > 0 ? (Double(userPair) + b * backoff) / (userPairTotal + b) : backoff
    }
}

/// The words to score, each once, with its id in either list.
private struct Candidates {
    struct Candidate {
        var spelling: String
        var system: Int32?
        var user: Int32?
        var systemPair = 0
        var userPair = 0
    }

    let system: WordList
    let user: WordList
    var list: [Candidate] = []
    var index: [String: Int] = [:]

    init(system: WordList, user: WordList) {
        self.system = system
        self.user = user
    }

    mutating func add(system id: Int32) {
        let spelling = system.spelling(id)
        if index[spelling] != nil { return }
        index[spelling] = list.count
        list.append(Candidate(spelling: spelling, system: id, user: user.id(of: spelling)))
    }

    mutating func add(user id: Int32) {
        let spelling = user.spelling(id)
        if index[spelling] != nil { return }
        index[spelling] = list.count
        list.append(Candidate(spelling: spelling, system: system.id(of: spelling), user: id))
    }
}

/// Candidates by id, sorted for binary search.
private struct IDIndex {
    let entries: [(id: Int32, index: Int)]

    init(_ entries: [(Int32, Int)]) {
        self.entries = entries.map { (id: $0.0, index: $0.1) }.sorted { $0.id < $1.id }
    }

    subscript(id: Int32) -> Int? {
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].id < id { low = mid + 1 } else { high = mid }
        }
        return low < entries.count && entries[low].id == id ? entries[low].index : nil
    }
}

/// The best k by score, equal scores in byte order of the spellings.
private struct Best {
    let k: Int
    private var entries: [(score: Double, spelling: ArraySlice<UInt8>, id: Int32)] = []

    init(_ k: Int) { self.k = k }

    /// Whether an entry with this score could be taken (false: it cannot, whatever its
    /// spelling), so that most are turned away before their spelling is looked up.
    func mayTake(_ score: Double) -> Bool {
        entries.count < k || score >= entries[entries.count - 1].score
    }

    mutating func offer(_ score: Double, _ bytes: ArraySlice<UInt8>, _ id: Int32) {
        func before(_ a: (score: Double, spelling: ArraySlice<UInt8>, id: Int32)) -> Bool {
            score != a.score ? score > a.score : bytes.lexicographicallyPrecedes(a.spelling)
        }
        if entries.count == k, let last = entries.last, !before(last) { return }
        let at = entries.firstIndex { before($0) } ?? entries.count
        entries.insert((score, bytes, id), at: at)
        if entries.count > k { entries.removeLast() }
    }

    var ids: [Int32] { entries.map(\.id) }
}

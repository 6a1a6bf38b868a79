import ScanCore

// The lint of layouts: warnings (W18–W26) and notes (I25) about how a screen reads to a
// switch or VoiceOver user. They never block loading; a file with errors gets only those.

/// Trait words a label need not say (W24): the trait is spoken anyway.
let traitWords: [(Trait, [UInt8])] = ([(.button, "button"), (.link, "link"), (.image, "image"), (.header, "heading"), (.adjustable, "adjustable")]
    as [(Trait, String)]).map { ($0.0, Array($0.1.utf8)) }
/// Words that describe a gesture rather than its result (W24).
let gestureWords = ["double tap", "double-tap", "tap", "swipe", "flick", "click"]

extension LayoutReader {
    /// A modal view hides only its own siblings, so the siblings of its ancestors stay
    /// scannable: lists what the user would still reach.
    mutating func modalPitfall(_ tree: ElementTree, modal m: Int, axParent: [Int32]) {
        var leaks: [String] = []
        var cur = m
        while axParent[cur] >= 0 {
            let parent = Int(axParent[cur])
            if cur != m {
                for sibling in axMembers(tree, parent) where sibling != cur { collectAccessible(tree, sibling, into: &leaks) }
            }
            cur = parent
        }
        guard !leaks.isEmpty else { return }
        let shown = leaks.prefix(6).map { "\"\(excerpt($0))\"" }.joined(separator: ", ") + (leaks.count > 6 ? " and \(leaks.count - 6) more" : "")
        lints.report(.warning, "W21", info[m].idOffset, nodePath(m), tree[m].id,
                     "this modal view does not hide \(shown) (it hides only its own siblings); hide them with \"elementsHidden\", or set \"modalScope\": \"screen\"")
    }

    func collectAccessible(_ tree: ElementTree, _ i: Int, into out: inout [String]) {
        let n = tree[i]
        if n.hidden || !n.isVisible { return }
        if n.isAccessibilityElement { out.append(n.id); return }
        if n.elementsHidden { return }
        for c in axMembers(tree, i) { collectAccessible(tree, c, into: &out) }
    }

    mutating func lintNode(_ i: Int, _ tree: ElementTree, reachable: Bool) {
        // Borrowed in place: a copy would retain every field.
        let n = tree.nodes[i]
        let screen = tree.screenSize
        if n.isAccessibilityElement {
            guard reachable else { return }
            // Built only for a message.
            func p() -> String { nodePath(i) }
            if n.frame.width == 0 || n.frame.height == 0 {
                lints.report(.warning, "W22", info[i].idOffset, p(), n.id, "zero-area element: it cannot be seen or tapped")
            } else if n.frame.maxX <= 0 || n.frame.maxY <= 0 || n.frame.minX >= screen.width || n.frame.minY >= screen.height {
                lints.report(.warning, "W22", info[i].idOffset, p(), n.id, "element lies entirely off-screen")
            }
            if let l = n.label {
                if l.hasSuffix(".") { lints.report(.warning, "W24", info[i].idOffset, p(), n.id, "label ends with \".\"; labels are words, not sentences") }
                var digits = 0, longest = 0
                for b in l.utf8 {
                    if b &- 48 < 10 { digits += 1; longest = max(longest, digits) } else { digits = 0 }
                }
                if longest >= 5 { lints.report(.warning, "W24", info[i].idOffset, p(), n.id, "label has \(longest) digits in a row; they are read one by one") }
                if let (_, w) = traitWords.first(where: { n.traits.contains($0.0) && containsWord(l, $0.1) }) {
                    lints.report(.warning, "W24", info[i].idOffset, p(), n.id, "label contains the trait word \"\(String(decoding: w, as: UTF8.self))\", which is spoken anyway")
                }
            }
            if let h = n.hint, let first = h.first, !first.isUppercase || !h.hasSuffix(".") {
                lints.report(.warning, "W24", info[i].idOffset, p(), n.id, "a hint is a sentence: capitalised, ending with \".\"")
            }
            if let h = n.hint?.lowercased(), let g = gestureWords.first(where: { h.contains($0) }) {
                lints.report(.warning, "W24", info[i].idOffset, p(), n.id, "hint names a gesture (\"\(g)\"); say what happens, not how")
            }
            if n.respondsToUserInteraction == false && (!n.customActions.isEmpty || n.adjustable != nil) {
                lints.report(.warning, "W23", info[i].idOffset, p(), n.id, "\"respondsToUserInteraction\": false hides its actions from item mode")
            }
        } else if info[i].explicitFrame && reachable {
            for c in n.children where !n.frame.contains(tree[c].frame) && !tree[c].isVirtual {
                lints.report(.warning, "W19", info[c].idOffset, nodePath(c), tree[c].id,
                             "frame \(format(tree[c].frame)) sticks out of its container \"\(n.id)\" \(format(n.frame))")
            }
        }
        if n.children.count(where: { tree[$0].viewIsModal }) >= 2, let c = n.children.filter({ tree[$0].viewIsModal }).dropFirst().first {
            lints.report(.warning, "W21", info[c].idOffset, nodePath(c), tree[c].id, "several modal siblings; the last one wins")
        }
    }
}

/// Whether `text` has `word` (lowercase ASCII letters) as a whole word, ignoring case.
/// ASCII text, nearly every label, is scanned in place; other text is split on Unicode letters.
func containsWord(_ text: String, _ word: [UInt8]) -> Bool {
    // Letters of the current word that match `word` so far; -1 once it differs.
    var matched = 0
    for b in text.utf8 {
        if b >= 0x80 {
            return text.lowercased().split(whereSeparator: { !$0.isLetter }).contains(Substring(decoding: word, as: UTF8.self))
        }
        let lower = b | 0x20
        if lower >= 97 && lower <= 122 {
            matched = matched >= 0 && matched < word.count && word[matched] == lower ? matched + 1 : -1
        } else {
            if matched == word.count { return true }
            matched = 0
        }
    }
    return matched == word.count
}

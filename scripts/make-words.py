#!/usr/bin/env python3
"""Writes Words/en.words, SwitchScan's English word list, from wordfreq's English word
frequencies, pairs of words counted in WordNet's glosses, and SCOWL's capitals:

    large_en.msgpack.gz   wordfreq 3.1.1's English list (in the wheel's wordfreq/data/):
                          gzip'd msgpack "cBpack", words in frequency bins of one
                          centibel; CC BY-SA 4.0
    data.noun data.verb   WordNet 3.0's synsets (Debian's wordnet-base,
    data.adj data.adv     /usr/share/wordnet/): each line's gloss, after " | ", is a
                          definition and example sentences in double quotes
    --capitals LIST       plain word lists, one word a line (SCOWL, as Debian's
                          wamerican-large and wbritish-large ship it), used only to give
                          words their capitals: wordfreq's words are all lowercase

It downloads nothing; reading the cBpack needs the msgpack module (pip install msgpack).
Words/README.md says where the files come from and how to get them:

    pip download --no-deps wordfreq==3.1.1 && unzip -o wordfreq-3.1.1-py3-none-any.whl
    apt-get install wordnet-base wamerican-large wbritish-large
    python3 scripts/make-words.py wordfreq/data/large_en.msgpack.gz \\
        /usr/share/wordnet/data.noun /usr/share/wordnet/data.verb \\
        /usr/share/wordnet/data.adj /usr/share/wordnet/data.adv \\
        --capitals /usr/share/dict/american-english-large \\
        --capitals /usr/share/dict/british-english-large > Words/en.words

The output is deterministic: the same inputs give the same bytes.
"""

import argparse
import gzip
import re
import sys
import unicodedata

# Counts per this many words of text: a word in wordfreq's bin of -c centibels is used
# 10 ** (-c / 100) times a word, so "the" (-127 cB) gets 53,703,180. Only ratios matter
# to the predictor; at this scale the rarest kept bins are still a few hundred, so no two
# bins share a count.
SCALE = 1_000_000_000


def read_cbpack(path):
    """{word: count} from wordfreq's cBpack: a header, then one list of words for each
    centibel of frequency, from 0 cB (every word) down."""
    import msgpack  # only here: the rest of the script needs nothing beyond Python

    with gzip.open(path, "rb") as f:
        data = msgpack.load(f, raw=False, strict_map_key=False)
    header = data[0] if data else None
    if not isinstance(header, dict) or header.get("format") != "cB" or header.get("version") != 1:
        sys.exit(f"{path}: not a wordfreq cBpack (header {header!r})")
    counts = {}
    for centibels, words in enumerate(data[1:]):
        count = round(10 ** (-centibels / 100) * SCALE)
        if count < 1:
            break
        for word in words:
            word = unicodedata.normalize("NFC", word).lower()
            counts[word] = max(counts.get(word, 0), count)
    return counts


def glosses(paths):
    """The gloss of every synset line of WordNet data files (the text after " | "); the
    licence lines at the top start with spaces and have none."""
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith(" "):
                    continue
                _, bar, gloss = line.partition(" | ")
                if bar:
                    yield gloss.strip()


# Where a pair stops: sentence ends, ";" between a definition and its examples, quotes
# (" and `` ''), and brackets, commas and colons, across which two words are rarely a
# phrase ("existence (living or nonliving)").
BOUNDARY = re.compile(r"[.?!;\"`()\[\]{},:]|''")
# A word: letters, digits and apostrophes; anything else separates words.
WORD = re.compile(r"(?:[^\W_]|')+")


def gloss_pairs(texts):
    """{(word1, word2): count}: adjacent words, lowercased, never across a boundary."""
    counts = {}
    for text in texts:
        for stretch in BOUNDARY.split(text.lower()):
            words = [w.strip("'") for w in WORD.findall(unicodedata.normalize("NFC", stretch))]
            words = [w for w in words if w]
            for pair in zip(words, words[1:]):
                counts[pair] = counts.get(pair, 0) + 1
    return counts


def word_list(paths):
    """Every line of plain word lists (one word a line), e.g. SCOWL's as Debian ships them."""
    forms = set()
    for path in paths:
        with open(path, encoding="utf-8") as f:
            forms.update(unicodedata.normalize("NFC", line.strip()) for line in f if line.strip())
    return forms


def capitals(forms):
    """{lowercase word: spelling} for the words the lists have only with capitals, and
    never all in capitals ("London", "McDonald"; not "US", whose lowercase "us" must stay)."""
    lower = {w for w in forms if w == w.lower()}
    spelled = {}
    for w in sorted(forms):
        key = w.lower()
        if w == key or key in lower or (w == w.upper() and len(w) > 1):
            continue
        # Two capitalised forms of one word ("Mac", "MacOS"-like clashes): keep the one
        # closest to title case, then the first in code-point order; deterministic.
        rank = (w != w[:1].upper() + w[1:].lower(), w)
        if key not in spelled or rank < spelled[key][0]:
            spelled[key] = (rank, w)
    return {k: v[1] for k, v in spelled.items()}


def is_junk(word):
    """Single letters other than "a" and "i", tokens without a letter, and anything the
    word list format cannot hold (spaces, control characters, over 100 characters)."""
    if len(word) == 1 and word not in ("a", "i"):
        return True
    if len(word) > 100 or any(c.isspace() or unicodedata.category(c) == "Cc" for c in word):
        return True
    return not any(c.isalpha() for c in word)


def spell(word, capital):
    """The pronoun I and its contractions in capitals, then the dictionary's capitals."""
    if word == "i" or word.startswith("i'"):
        return "I" + word[1:]
    return capital.get(word, word)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("words", help="wordfreq's large_en.msgpack.gz")
    parser.add_argument("wordnet", nargs="+", help="WordNet's data.noun, data.verb, data.adj, data.adv")
    parser.add_argument("--capitals", metavar="LIST", action="append", default=[],
                        help="a word list (one word a line) giving words their capitals; repeatable")
    parser.add_argument("--words-kept", type=int, default=50_000,
                        help="keep the N most frequent words, and every other word as frequent as the last of them (50000)")
    parser.add_argument("--min-pair-count", type=int, default=2,
                        help="keep only the pairs seen at least this often (2: a pair seen once in the glosses is mostly noise)")
    parser.add_argument("--successors", type=int, default=0,
                        help="keep at most this many pairs per first word, the most frequent (0: all)")
    args = parser.parse_args()

    counts = read_cbpack(args.words)
    ranked = sorted((w for w in counts if not is_junk(w)), key=lambda w: (-counts[w], w))
    # wordfreq's bins hold hundreds of words of equal frequency down there: the bin of the
    # last word is kept whole rather than cut in alphabetical order.
    kept = ranked[: args.words_kept]
    if kept and len(ranked) > len(kept):
        last = counts[kept[-1]]
        kept += [w for w in ranked[len(kept):] if counts[w] == last]
    capital = capitals(word_list(args.capitals))
    spelled = {w: spell(w, capital) for w in kept}
    # The order WordList.serialized() writes: most frequent first, equal counts in code
    # point (UTF-8 byte) order of the spellings; so the file is its own serialization.
    kept.sort(key=lambda w: (-counts[w], spelled[w]))
    rank = {w: i for i, w in enumerate(kept)}

    pairs = [(a, b, n) for (a, b), n in gloss_pairs(glosses(args.wordnet)).items()
             if n >= args.min_pair_count and a in rank and b in rank]
    # Grouped by first word in the word order; within a group the likeliest first: most
    # frequent pair, then most frequent second word, so that a limit drops the rarest.
    pairs.sort(key=lambda p: (rank[p[0]], -p[2], rank[p[1]]))
    if args.successors > 0:
        seen = {}
        limited = []
        for p in pairs:
            seen[p[0]] = seen.get(p[0], 0) + 1
            if seen[p[0]] <= args.successors:
                limited.append(p)
        pairs = limited
    # Written as WordList.serialized() orders a group: equal counts in byte order.
    pairs.sort(key=lambda p: (rank[p[0]], -p[2], spelled[p[1]]))

    out = sys.stdout
    out.write("# SwitchScan word list: English. Format, sources and how it was made: Words/README.md.\n")
    out.write("# Word counts (per 10^9 words) from wordfreq 3.1.1's English list, by Robyn Speer,\n")
    out.write("# CC BY-SA 4.0; pairs counted in the glosses and examples of WordNet 3.0, Copyright 2006\n")
    out.write("# by Princeton University; capitals from SCOWL. This file is under CC BY-SA 4.0; notices,\n")
    out.write("# sources and licences in full: Words/LICENSE-en.txt.\n")
    out.write(f"# {len(kept)} words, then {len(pairs)} pairs (COUNT WORD1 WORD2: WORD2 after WORD1).\n")
    for w in kept:
        out.write(f"{counts[w]} {spelled[w]}\n")
    for a, b, n in pairs:
        out.write(f"{n} {spelled[a]} {spelled[b]}\n")


if __name__ == "__main__":
    main()

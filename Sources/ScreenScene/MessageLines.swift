import ScanCore

/// The message screen's message as a painter draws it in its tile: wrapped at spaces and
/// at its own line breaks, and when it does not all fit, its last lines (the words being
/// written now) after an ellipsis. Pure: `measure` is the painter's font.
public enum MessageLines {
    public static func lines(_ text: String, width: Int, fitting maxLines: Int, measure: (String) -> Int) -> [String] {
        guard width > 0, maxLines > 0 else { return [] }
        var out: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
                let candidate = line.isEmpty ? String(word) : line + " " + word
                if measure(candidate) <= width { line = candidate; continue }
                if !line.isEmpty { out.append(line) }
                // A word wider than the tile: cut where it stops fitting.
                var rest = String(word)
                while measure(rest) > width, rest.count > 1 {
                    var head = ""
                    for c in rest where measure(head + String(c)) <= width { head.append(c) }
                    if head.isEmpty { head = String(rest.first!) }
                    out.append(head)
                    rest.removeFirst(head.count)
                }
                line = rest
            }
            out.append(line)
        }
        // The text's own end (a line break just typed) shows as an empty last line.
        if out.count > maxLines {
            out = Array(out.suffix(maxLines))
            out[0] = "… " + out[0]
        }
        return out
    }
}

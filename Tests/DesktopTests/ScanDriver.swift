import Foundation
import Testing

/// One effect line of `switchscan run --output json`.
struct EffectLine: CustomStringConvertible {
    var raw: String
    var fields: [String: Any]

    init?(_ line: String) {
        guard let data = line.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        raw = line
        fields = object
    }

    var effect: String { fields["effect"] as? String ?? "" }
    var time: Double { fields["t"] as? Double ?? -1 }
    var label: String? { fields["label"] as? String }
    var item: String? { fields["item"] as? String }
    var kind: String? { fields["kind"] as? String }
    var text: String? { fields["text"] as? String }
    var frame: [Double]? { (fields["frame"] as? [NSNumber])?.map(\.doubleValue) }
    var description: String { raw }
}

/// Drives a live `switchscan run --desktop --output json --no-devices` through its standard
/// input, as a switch user would with the manual style: Tab moves, space selects.
final class ScanDriver {
    let process: LiveProcess
    /// The last highlight seen.
    private(set) var current: EffectLine?
    /// Every effect line read so far, in order.
    private(set) var seen: [EffectLine] = []

    /// Starts the run and waits for its first `first` effect (a highlight; a sweep in point mode).
    init(_ session: some SwitchscanHost, _ extra: [String], style: String = "manual", first: String = "highlight") throws {
        process = try session.startScan(["run", "--desktop", "--output", "json", "--no-devices", "--style", style] + extra)
        // Starting reads the bus and the window: on a machine busy with other sessions' big
        // windows that takes seconds, which is not what these tests are about.
        try next("the first \(first)", timeout: 20) { $0.effect == first }
    }

    /// Drives a run started by the test itself (an environment of its own), from its first
    /// `first` effect.
    init(attachedTo process: LiveProcess, first: String = "highlight") throws {
        self.process = process
        try next("the first \(first)", timeout: 20) { $0.effect == first }
    }

    /// Waits for the next effect line that matches (lines before it are passed over).
    @discardableResult
    func next(_ what: String, timeout: Double = 5, where predicate: @escaping (EffectLine) -> Bool) throws -> EffectLine {
        var found: EffectLine?
        _ = try process.waitForLine(what, timeout: timeout) { line in
            guard let e = EffectLine(line) else { return false }
            self.seen.append(e)
            if e.effect == "highlight" { self.current = e }
            if predicate(e) { found = e; return true }
            return false
        }
        return found!
    }

    /// Reads what the scanner printed in the last moments (an action's outcome, a change of
    /// the window), so that `current` is what is highlighted now.
    func settle(_ seconds: Double = 0.25) {
        _ = try? process.waitForLine("nothing (settling)", timeout: seconds) { line in
            guard let e = EffectLine(line) else { return false }
            self.seen.append(e)
            if e.effect == "highlight" { self.current = e }
            return false
        }
    }

    /// The first line read since `mark` (an index into `seen`) that matches, waiting for it
    /// if it has not come yet.
    @discardableResult
    func find(since mark: Int, _ what: String, timeout: Double = 5, where predicate: @escaping (EffectLine) -> Bool) throws -> EffectLine {
        if let e = seen[min(mark, seen.count)...].first(where: predicate) { return e }
        return try next(what, timeout: timeout, where: predicate)
    }

    /// Whether the highlight is on this label (an adjustable's is followed by its value).
    func isOn(_ label: String) -> Bool {
        guard let l = current?.label else { return false }
        return l == label || l.hasPrefix(label + ", ")
    }

    /// Moves the highlight (Tab presses) until it is on the item with this label.
    func go(to label: String, limit: Int = 40) throws {
        settle()
        for _ in 0..<limit {
            if isOn(label) { return }
            try process.send("\t")
            try next("a highlight after Tab") { $0.effect == "highlight" }
        }
        throw DesktopError("'\(label)' was not highlighted within \(limit) moves; last: \(current?.description ?? "none")")
    }

    /// Moves the highlight (Tab presses) until it is on the item with this id.
    /// A highlight of the same item is not the Tab's: that item drawn again where it moved
    /// (the keyboard's rows move down when its prediction row appears).
    func go(toItem id: String, limit: Int = 40) throws {
        settle(0.05)
        for _ in 0..<limit {
            if current?.item == id { return }
            let before = current?.item
            try process.send("\t")
            try next("a highlight after Tab") { $0.effect == "highlight" && $0.item != before }
        }
        throw DesktopError("item '\(id)' was not highlighted within \(limit) moves; last: \(current?.description ?? "none")")
    }

    /// Moves the highlight `count` times (Tab presses), each seen as a highlight: where
    /// highlights name no item (a secret keyboard), the place is counted.
    func step(_ count: Int) throws {
        settle(0.05)
        for _ in 0..<count {
            try process.send("\t")
            try next("a highlight after Tab") { $0.effect == "highlight" }
        }
    }

    /// A select press; returns the first effect line after it that matches.
    @discardableResult
    func select(expecting what: String, where predicate: @escaping (EffectLine) -> Bool) throws -> EffectLine {
        try process.send(" ")
        return try next(what, where: predicate)
    }

    /// Leaves the group scanned now by its exit item (Tab presses to it, then select).
    func leaveGroup(limit: Int = 40) throws {
        settle(0.05)
        for _ in 0..<limit where current?.kind != "exit" {
            // As in go(toItem:): the same item drawn again (the rows moved) is not the Tab's.
            let before = current?.item
            try process.send("\t")
            try next("a highlight after Tab") { $0.effect == "highlight" && $0.item != before }
        }
        guard current?.kind == "exit" else { throw DesktopError("no exit item within \(limit) moves; last: \(current?.description ?? "none")") }
        try select(expecting: "the group left") { $0.effect == "exitGroup" }
    }

    /// From an element highlighted now: its menu, Settings and more, the screen menu's
    /// Message; the message screen's keys, once shown.
    @discardableResult
    func openMessageScreen() throws -> EffectLine {
        try select(expecting: "the element's menu") { $0.effect == "menuOpen" }
        try next("its first entry") { $0.effect == "highlight" && $0.kind == "menuEntry" }
        try go(to: "Settings and more")
        try select(expecting: "the screen menu") { $0.effect == "menuOpen" && ($0.fields["entries"] as? [String])?.contains("message") == true }
        try next("its first entry") { $0.effect == "highlight" && $0.kind == "menuEntry" }
        try go(to: "Message")
        return try select(expecting: "the message screen") { e in
            e.effect == "keyboard" && ((e.fields["keys"] as? [[String: Any]]) ?? []).contains { $0["id"] as? String == "speak" }
        }
    }

    /// Selects the element highlighted now, then the menu entry with this title.
    func choose(_ entry: String) throws {
        try select(expecting: "the scanner menu") { $0.effect == "menuOpen" }
        try next("the menu's first entry") { $0.effect == "highlight" && $0.kind == "menuEntry" }
        try go(to: entry)
        try select(expecting: "the menu closing") { $0.effect == "menuClose" }
        settle()
    }

    /// The labels of one full cycle of the current scope, from the current item.
    func cycle(limit: Int = 60) throws -> [String] {
        guard let start = current?.item else { return [] }
        var labels = [current?.label ?? ""]
        for _ in 0..<limit {
            try process.send("\t")
            let e = try next("a highlight after Tab") { $0.effect == "highlight" }
            if e.item == start { return labels }
            labels.append(e.label ?? "")
        }
        throw DesktopError("no full cycle within \(limit) moves: \(labels)")
    }

    /// Taps a menu bar's menu, then an entry of it, each by its action, as a switch user
    /// does: into the menu bar (`bar`, its group's label), to `menu`, its Tap; once the menu
    /// is scanned (its first entry, `first`, highlighted), to `entry`, its Tap. Returns the
    /// place in `seen` from which the entry's outcome comes.
    @discardableResult
    func tapMenuEntry(_ entry: String, of menu: String, first: String, bar: String) throws -> Int {
        try go(to: bar, limit: 80)
        try select(expecting: "into the menu bar") { $0.effect == "enterGroup" }
        try next("its first item") { $0.effect == "highlight" }
        try go(to: menu)
        let title = current?.frame ?? []
        var mark = seen.count
        try choose("Tap")
        // (A menu read as it opens may show its Close entry first, just below the title, its
        // items a moment later.)
        try find(since: mark, "the \(menu) menu scanned") { e in
            e.effect == "highlight" && (e.label?.hasPrefix(first) == true
                || e.item?.hasSuffix("-close") == true && title.count == 4 && e.frame?.first == title[0] && e.frame?[1] == title[1] + title[3])
        }
        try go(to: entry)
        mark = seen.count
        try choose("Tap")
        return mark
    }

    /// From the element highlighted now (one switch, the default tap behaviour): its menu,
    /// Settings and more, the screen menu's Windows page, its first entry highlighted. The
    /// page's line.
    func openWindowsPage() throws -> EffectLine {
        try select(expecting: "the element's menu") { $0.effect == "menuOpen" }
        try next("its first entry") { $0.effect == "highlight" && $0.kind == "menuEntry" }
        try go(to: "Settings and more")
        try select(expecting: "the screen menu") { $0.effect == "menuOpen" && ($0.fields["entries"] as? [String])?.contains("windows") == true }
        try next("its first entry") { $0.effect == "highlight" && $0.kind == "menuEntry" }
        try go(to: "Windows")
        let page = try select(expecting: "the Windows page") { $0.effect == "menuOpen" }
        try next("its first entry") { $0.effect == "highlight" && $0.kind == "menuEntry" }
        return page
    }

    func stop() { _ = process.terminate() }
}

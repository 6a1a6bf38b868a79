import Testing
@testable import ScanCore

/// The screen menu's Windows page: what it lists, what it says, what it asks for.
@Suite("Windows page")
struct WindowsPageTests {
    let editor = ManagedWindow(id: "0x100", title: "Editor", active: true)
    let files = ManagedWindow(id: "0x200", title: "Files")
    let music = ManagedWindow(id: "0x300", title: "Music", minimized: true)

    /// A switch pressed and let go at `s`: what the press did.
    func click(_ engine: inout ScanEngine, _ action: SwitchAction, at s: Double) -> [TimedEffect] {
        let out = engine.handle(press(action, at: s), at: at(s))
        _ = engine.handle(release(action, at: s + 0.01), at: at(s + 0.01))
        return out
    }

    /// Manual scanning on a screen of buttons, the first one's menu open on its "Settings
    /// and more" entry (the one before Exit), selected: the screen menu's entries and titles.
    func openScreenMenu(_ engine: inout ScanEngine) -> (entries: [String], titles: [String])? {
        _ = click(&engine, .select, at: 0.1)
        _ = click(&engine, .previous, at: 0.2)
        _ = click(&engine, .previous, at: 0.3)
        return opened(click(&engine, .select, at: 0.4))
    }

    /// The screen menu opened, then its Windows entry selected (at 0.8 s): what that did.
    func openWindowsPage(_ engine: inout ScanEngine) -> [TimedEffect] {
        let entries = openScreenMenu(&engine)?.entries ?? []
        let k = entries.firstIndex(of: "windows") ?? 0
        for i in 0..<k { _ = click(&engine, .next, at: 0.5 + Double(i) * 0.05) }
        return click(&engine, .select, at: 0.8)
    }

    func manualEngine(_ ids: String..., windows: [ManagedWindow]) -> ScanEngine {
        var manual = ScanSettings()
        manual.style = .manual
        var engine = ScanEngine(tree: screen(ids.map { .button($0) }), settings: manual)
        engine.setWindows(windows)
        _ = engine.start(at: at(0))
        return engine
    }

    func opened(_ effects: [TimedEffect]) -> (entries: [String], titles: [String])? {
        for e in effects.reversed() {
            if case let .menuOpen(_, entries, titles) = e.effect { return (entries, titles) }
        }
        return nil
    }

    @Test func anElementsMenuLeadsToTheScreenMenu() {
        var engine = manualEngine("a", "b", windows: [])
        let menu = opened(click(&engine, .select, at: 0.1))
        #expect(menu?.entries == ["tap", "pointMode", "gestures", "screenMenu", "exit"])
        #expect(menu?.titles == ["Tap", "Point mode", "Gestures", "Settings and more", "Exit menu"])
        _ = click(&engine, .previous, at: 0.2)
        _ = click(&engine, .previous, at: 0.3)
        let screenMenu = opened(click(&engine, .select, at: 0.4))
        #expect(screenMenu?.entries.contains("windows") == false, "no windows: no Windows page")
    }

    @Test func thePageListsTheOtherWindowsThenTheActiveOnesCommands() {
        var engine = manualEngine("a", "b", windows: [files, editor, music])
        let out = openWindowsPage(&engine)
        let page = opened(out)
        #expect(page?.entries == ["window:0x200", "window:0x300", "closeWindow", "minimizeWindow", "maximizeWindow", "done"])
        #expect(page?.titles == ["Files", "Music, minimised", "Close window", "Minimise window", "Maximise window", "Done"])
        // The first entry is highlighted with its title, which speech says.
        #expect(out.last?.effect == .highlight(item: "window:0x200", kind: .menuEntry, frame: nil, label: "Files", context: nil))

        // Selecting Music asks for it, closes the page and goes on scanning this screen.
        _ = click(&engine, .next, at: 0.9)
        let chosen = click(&engine, .select, at: 1.0).map(\.effect)
        #expect(chosen.contains(.window(.activate, window: "0x300", title: "Music")))
        #expect(chosen.contains(.menuClose(element: nil)))
        #expect(engine.item.menu == nil)
        guard case .highlight(let item, .element, _, _, _, _)? = chosen.last else {
            Issue.record("scanning goes on: \(chosen)")
            return
        }
        #expect(item == "a")
    }

    @Test func aMaximisedWindowIsRestoredAndWithoutAnActiveOneThereAreNoCommands() {
        var big = editor
        big.maximized = true
        let untitled = ManagedWindow(id: "0x400", title: "")
        for (windows, entries, titles) in [
            ([big, files], ["window:0x200", "closeWindow", "minimizeWindow", "restoreWindow", "done"],
             ["Files", "Close window", "Minimise window", "Restore window size", "Done"]),
            ([untitled], ["window:0x400", "done"], ["Untitled window", "Done"]),
        ] {
            var engine = manualEngine("a", windows: windows)
            let page = opened(openWindowsPage(&engine))
            #expect(page?.entries == entries)
            #expect(page?.titles == titles)
        }
    }

    @Test func eachCommandNamesTheActiveWindow() {
        for (k, command) in [WindowCommand.close, .minimize, .maximize].enumerated() {
            var engine = manualEngine("a", windows: [editor, files])
            _ = openWindowsPage(&engine)
            // Past Files to the k-th command.
            for i in 0...k { _ = click(&engine, .next, at: 0.9 + Double(i) * 0.1) }
            let out = click(&engine, .select, at: 1.5).map(\.effect)
            #expect(out.contains(.window(command, window: "0x100", title: "Editor")), "\(command): \(out)")
        }
    }

    @Test func anOpenPageKeepsItsWindowsWhenTheScreenChanges() {
        var engine = manualEngine("a", "b", windows: [editor, files])
        let page = opened(openWindowsPage(&engine))
        _ = click(&engine, .next, at: 0.9)
        // Another window became active and the screen was read again: the page stays as it
        // was, on the same entry, and Close still names the window it was offered for.
        engine.setWindows([ManagedWindow(id: "0x200", title: "Files", active: true), music])
        let out = engine.replaceTree(screen(buttons("a", "b")), at: at(1.0))
        #expect(!out.contains { if case .menuOpen = $0.effect { return true } else { return false } }, "\(out)")
        #expect(page?.entries.contains("closeWindow") == true)
        let closed = click(&engine, .select, at: 1.1).map(\.effect)
        #expect(closed.contains(.window(.close, window: "0x100", title: "Editor")), "\(closed)")
    }

    @Test func aWindowListThatChangesIsShownTheNextTimeTheMenuOpens() {
        var engine = manualEngine("a", windows: [])
        #expect(openScreenMenu(&engine)?.entries.contains("windows") == false)
        engine.setWindows([editor, files])
        #expect(engine.windows == [editor, files])
        // Leave the screen menu, then open it again through the element's menu.
        _ = click(&engine, .exit, at: 0.45)
        _ = click(&engine, .select, at: 0.5)
        _ = click(&engine, .previous, at: 0.6)
        _ = click(&engine, .previous, at: 0.7)
        let again = opened(click(&engine, .select, at: 0.8))
        #expect(again?.entries.contains("windows") == true)
    }
}

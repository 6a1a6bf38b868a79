/// The scanner menu as data. A page is one array of items; an item carries its name, its
/// title, when the page offers it and what selecting it does. Adding a page is an array
/// here and the item that opens it on another page.
struct MenuItem: Sendable {
    /// How highlights, effects and scenarios name it (`tap`, `key:enter`, `window:0x200`).
    let name: String
    /// What is shown and said. Read at each highlight: a toggle names what selecting does
    /// next ("Speech off" once speech is on).
    let title: @Sendable (ScanSettings) -> String
    /// What selecting it does, with the menu still open: an item that leaves the menu
    /// closes it.
    let perform: @Sendable (inout ScanEngine, ScanEngine.MenuTarget) -> Void

    init(_ name: String, _ title: String, perform: @escaping @Sendable (inout ScanEngine, ScanEngine.MenuTarget) -> Void) {
        self.name = name
        self.title = { _ in title }
        self.perform = perform
    }

    init(_ name: String, title: @escaping @Sendable (ScanSettings) -> String,
         perform: @escaping @Sendable (inout ScanEngine, ScanEngine.MenuTarget) -> Void) {
        self.name = name
        self.title = title
        self.perform = perform
    }
}

/// A row of a page: an item with the condition under which the page offers it, or a list
/// read from the engine when the page opens (an element's custom actions, the windows).
struct MenuRow: Sendable {
    let items: @Sendable (ScanEngine, ScanEngine.MenuTarget) -> [MenuItem]

    /// An item the page offers when `offered` holds for the engine and the menu's target.
    static func item(_ item: MenuItem,
                     when offered: @escaping @Sendable (ScanEngine, ScanEngine.MenuTarget) -> Bool = { _, _ in true }) -> MenuRow {
        MenuRow { engine, target in offered(engine, target) ? [item] : [] }
    }

    static func list(_ items: @escaping @Sendable (ScanEngine, ScanEngine.MenuTarget) -> [MenuItem]) -> MenuRow {
        MenuRow(items: items)
    }
}

/// A menu page: the element menu (also a point's), the screen menu, or a page the screen
/// menu opens (each closed by its Done). Pages are constants, known by name.
struct MenuPage: Hashable, Sendable {
    let name: String
    /// The title of the item that opens it.
    let title: String
    let rows: [MenuRow]
    /// Keeps the items it opened with while the screen changes: the Windows page is not
    /// about the screen, and its commands name the window they act on.
    var keepsItems = false

    static func == (a: MenuPage, b: MenuPage) -> Bool { a.name == b.name }
    func hash(into h: inout Hasher) { h.combine(name) }

    /// The items offered now, in the page's order.
    func items(_ engine: ScanEngine, _ target: ScanEngine.MenuTarget) -> [MenuItem] {
        rows.flatMap { $0.items(engine, target) }
    }

    /// The item on another page that opens this one.
    var opener: MenuItem {
        let page = self
        return MenuItem(name, title) { engine, _ in
            engine.closeMenu()
            engine.openMenu(.page(page))
        }
    }
}

extension MenuPage {
    /// An element's menu, and a point's (whose element, if any, lends its actions).
    static let element = MenuPage(name: "element", title: "Actions", rows: [
        .item(.keyboard, when: { e, t in
            guard case .element(let n) = t else { return false }
            return e.keyboardProvider != nil && e.isTextField(n) && e.isEnabled(n)
        }),
        .item(.tap, when: { e, t in
            switch t {
            case .element(let n): return e.isEnabled(n)
            default: return true
            }
        }),
        .list { e, t in
            guard let n = e.targetNode(t) else { return [] }
            return e.tree[n].customActions.indices.map { MenuItem.customAction($0, named: e.tree[n].customActions[$0].name) }
        },
        .item(.increment, when: { e, t in e.isAdjustable(t) }),
        .item(.decrement, when: { e, t in e.isAdjustable(t) }),
        .item(.escape, when: { e, t in e.escapeHandler(for: t) != nil }),
        .item(.pointMode, when: { e, _ in e.mode == .item }),
        .item(.itemMode, when: { e, _ in e.mode == .point }),
        .item(.gestures),
        // One switch and the default tap behaviour reach menus of elements only: the
        // settings must be reachable from there too.
        .item(.screenMenu),
        .item(.exit),
    ])

    /// The screen menu: on a group, an exit item, alwaysTap's Menu item, or "Settings and
    /// more".
    static let screen = MenuPage(name: "screen", title: "Settings and more", rows: [
        .item(.escape, when: { e, t in e.escapeHandler(for: t) != nil }),
        .item(.keyboard, when: { e, _ in e.keyboardProvider != nil && e.presented == nil }),
        .item(.message, when: { e, _ in e.messageProvider != nil && e.presented == nil }),
        .item(.pointMode, when: { e, _ in e.mode == .item }),
        .item(.itemMode, when: { e, _ in e.mode == .point }),
        .item(settings.opener),
        .item(keys.opener),
        .item(windows.opener, when: { e, _ in !e.windows.isEmpty }),
        .item(.exit),
    ])

    /// What else the pointer can do at an element or a point (Apple's Gestures): an
    /// adjustable element's page steps, scrolling, the other clicks, a press held, a drag.
    /// Opened from the element menu, about the same target; its Exit goes back to scanning.
    static let gestures = MenuPage(name: "gestures", title: "Gestures", rows: [
        .item(.pageIncrement, when: { e, t in e.isAdjustable(t) }),
        .item(.pageDecrement, when: { e, t in e.isAdjustable(t) }),
        .list { _, _ in Gesture.allCases.map(MenuItem.gesture) },
        .item(.exit),
    ])

    /// The scan speed and the feedback.
    static let settings = MenuPage(name: "settings", title: "Settings", rows: [
        .item(.faster), .item(.slower), .item(.speech), .item(.sound), .item(.done),
    ])

    /// Keys sent to the focused application.
    static let keys = MenuPage(name: "keys", title: "Keys", rows: [
        .list { _, _ in SpecialKey.allCases.map(MenuItem.key) },
        .item(.done),
    ])

    /// The other windows in the window manager's order (stable, unlike stacking), then the
    /// active window's commands, each naming the window as it was when the page opened.
    static let windows = MenuPage(name: "windows", title: "Windows", rows: [
        .list { e, _ in e.windows.filter { !$0.active }.map(MenuItem.switchTo) },
        .list { e, _ in
            guard let active = e.windows.first(where: \.active) else { return [] }
            return [.close, .minimize, active.maximized ? .restore : .maximize].map { MenuItem.window($0, active) }
        },
        .item(.done),
    ], keepsItems: true)
}

// MARK: - the items

extension MenuItem {
    static let tap = MenuItem("tap", "Tap") { e, target in
        e.closeMenu()
        e.performTap(target)
    }

    static func customAction(_ i: Int, named name: String) -> MenuItem {
        MenuItem(name, name) { e, target in
            e.closeMenu()
            guard let n = e.targetNode(target) else { return }
            e.performCustomAction(i, of: n, target)
        }
    }

    static let increment = adjust(.increment)
    static let decrement = adjust(.decrement)
    static let pageIncrement = adjust(.pageIncrement)
    static let pageDecrement = adjust(.pageDecrement)

    static func adjust(_ direction: AdjustDirection) -> MenuItem {
        MenuItem(direction.rawValue, direction.title) { e, target in
            guard let n = e.targetNode(target) else { return }
            e.adjust(n, direction: direction)
            // The menu stays open on the same item, so repeated presses keep adjusting.
            e.rearmMenu()
        }
    }

    /// Opens the Gestures page about the same element or point.
    static let gestures = MenuItem("gestures", MenuPage.gestures.title) { e, target in
        e.closeMenu()
        e.openMenu(target, page: .gestures)
    }

    static func gesture(_ g: Gesture) -> MenuItem {
        MenuItem(g.rawValue, g.title) { e, target in e.performGesture(g, target) }
    }

    static let escape = MenuItem("escape", "Escape") { e, target in
        e.closeMenu()
        guard let h = e.escapeHandler(for: target) else { return }
        let outcome = e.runEffects(e.tree[h].onEscape ?? [], of: h)
        e.finishAction(target, focus: e.settings.resumeAt == .first ? .first : .same, outcome: outcome)
    }

    static let pointMode = MenuItem("pointMode", "Point mode") { e, target in
        e.closeMenu()
        // Where the host cannot point (nothing would show the sweep, or tap where it is),
        // the reason is said and scanning goes on where it was.
        if let why = e.pointModeRefusal {
            e.emit(.announce(why))
            e.returnFromMenu(target)
            return
        }
        e.enterPointMode()
    }

    static let itemMode = MenuItem("itemMode", "Item mode") { e, _ in
        e.closeMenu()
        e.leavePointMode()
    }

    static let screenMenu = MenuItem("screenMenu", "Settings and more") { e, _ in
        e.closeMenu()
        e.openMenu(.screen)
    }

    /// Opens the keyboard: for a text field (its menu), or for whatever has the focus (the
    /// screen menu).
    static let keyboard = MenuItem("keyboard", "Keyboard") { e, target in
        e.closeMenu()
        if case .element(let n) = target { e.openKeyboard(for: n) } else { e.openKeyboard(for: nil) }
    }

    /// Opens the message screen over the window: a message to write and have said, phrases,
    /// quick answers (docs/MESSAGES.md); its Hide comes back.
    static let message = MenuItem("message", "Message") { e, _ in
        e.closeMenu()
        e.openMessages()
    }

    static let exit = MenuItem("exit", "Exit menu") { e, target in
        e.closeMenu()
        e.returnFromMenu(target)
    }

    /// Closes a page.
    static let done = MenuItem("done", "Done") { e, _ in
        e.closeMenu()
        e.returnFromMenu(.screen)
    }

    static let faster = speed("faster", "Faster", faster: true)
    static let slower = speed("slower", "Slower", faster: false)

    static func speed(_ name: String, _ title: String, faster: Bool) -> MenuItem {
        MenuItem(name, title) { e, _ in
            e.changeSpeed(faster: faster)
            // The page stays open on the same item, so repeated presses keep changing it.
            e.rearmMenu()
        }
    }

    static let speech = toggle("speech", "Speech", \.feedback.speech) { .speech($0) }
    static let sound = toggle("sound", "Sound", \.feedback.sound) { .sound($0) }

    /// A feedback setting turned on or off; its title says what selecting does.
    static func toggle(_ name: String, _ word: String, _ setting: KeyPath<ScanSettings, Bool> & Sendable,
                       _ change: @escaping @Sendable (Bool) -> SettingChange) -> MenuItem {
        MenuItem(name, title: { $0[keyPath: setting] ? word + " off" : word + " on" }) { e, _ in
            let on = !e.settings[keyPath: setting]
            e.change(change(on))
            e.emit(.announce("\(word) \(on ? "on" : "off")"))
            e.emitHighlight()
            e.rearmMenu()
        }
    }

    static func key(_ k: SpecialKey) -> MenuItem {
        MenuItem("key:" + k.rawValue, k.title) { e, _ in
            e.emit(.key(k))
            // The page stays open on the key, so that it can be sent again.
            e.rearmMenu()
        }
    }

    static func switchTo(_ w: ManagedWindow) -> MenuItem {
        let title = w.title.isEmpty ? "Untitled window" : w.title
        return MenuItem("window:" + w.id, w.minimized ? title + ", minimised" : title) { e, _ in
            e.closeMenu()
            e.emit(.window(.activate, window: w.id, title: w.title))
            // The window manager answers with another active window, whose screen then
            // replaces this one; until then (or if it refuses) scanning goes on here.
            e.returnFromMenu(.screen)
        }
    }

    static func window(_ c: WindowCommand, _ w: ManagedWindow) -> MenuItem {
        MenuItem(c.rawValue + "Window", c.title) { e, _ in
            e.closeMenu()
            e.emit(.window(c, window: w.id, title: w.title))
            e.returnFromMenu(.screen)
        }
    }
}

extension SpecialKey {
    /// The Keys page's title for it.
    var title: String {
        switch self {
        case .escape: return "Escape key"
        case .enter: return "Enter"
        case .tab: return "Tab"
        case .up: return "Up"
        case .down: return "Down"
        case .left: return "Left"
        case .right: return "Right"
        }
    }
}

extension WindowCommand {
    /// The Windows page's title for it.
    var title: String {
        switch self {
        case .activate: return "Switch to window"
        case .close: return "Close window"
        case .minimize: return "Minimise window"
        case .maximize: return "Maximise window"
        case .restore: return "Restore window size"
        }
    }
}

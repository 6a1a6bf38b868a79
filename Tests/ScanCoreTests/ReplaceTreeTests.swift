import Testing
@testable import ScanCore

// `ScanEngine.replaceTree`: a new snapshot of the same window keeps the user's place by id
// (node indices differ between snapshots); another window starts over. Trees are built in
// code; every test asserts the exact effects.

/// A node of a test screen: a button, or a combined group of nodes.
indirect enum Spec {
    case button(String, label: String? = nil, frame: Rect? = nil)
    case group(String, [Spec])
}

/// Buttons are 100 × 40 on a row chosen by their id unless a frame is given, so that a
/// button inserted or removed moves no other; the screen scans in document order, so the
/// scan order is the spec order.
func screen(_ specs: [Spec], id: String = "window", title: String? = nil) -> ElementTree {
    var nodes: [ElementNode] = []
    var root = ElementNode(id: "root")
    root.label = title
    root.frame = Rect(x: 0, y: 0, width: 400, height: 800)
    root.activationPoint = root.frame.center
    nodes.append(root)
    func add(_ spec: Spec, parent: Int) -> Int {
        let index = nodes.count
        switch spec {
        case let .button(id, label, frame):
            var n = ElementNode(id: id)
            n.isAccessibilityElement = true
            n.label = label ?? id.uppercased()
            n.traits = TraitSet([.button])
            let row = id.unicodeScalars.reduce(0) { $0 &* 31 &+ Int($1.value) } & 15
            n.frame = frame ?? Rect(x: 0, y: Double(row) * 50, width: 100, height: 40)
            n.activationPoint = n.frame.center
            n.parent = parent
            nodes.append(n)
        case let .group(id, members):
            var n = ElementNode(id: id)
            n.navigationStyle = .combined
            n.parent = parent
            nodes.append(n)
            let children = members.map { add($0, parent: index) }
            nodes[index].children = children
            nodes[index].frame = children.dropFirst().reduce(nodes[children[0]].frame) { $0.union(nodes[$1].frame) }
            nodes[index].activationPoint = nodes[index].frame.center
        }
        return index
    }
    nodes[0].children = specs.map { add($0, parent: 0) }
    return ElementTree(screenID: id, size: (400, 800), naturalOrder: .document, nodes: nodes)
}

func buttons(_ ids: String...) -> [Spec] { ids.map { .button($0) } }

func at(_ s: Double) -> ScanInstant { .seconds(s) }

func press(_ action: SwitchAction, at s: Double) -> SwitchEvent { SwitchEvent(action, down: true, at: at(s)) }
func release(_ action: SwitchAction, at s: Double) -> SwitchEvent { SwitchEvent(action, down: false, at: at(s)) }

/// The highlight an element of `tree` gets.
func lit(_ id: String, in tree: ElementTree) -> Effect {
    let n = tree[tree.index(of: id)!]
    return .highlight(item: id, kind: .element, frame: n.frame, label: n.label, context: nil)
}

func litGroup(_ id: String, label: String, in tree: ElementTree) -> Effect {
    .highlight(item: id, kind: .group, frame: tree[tree.index(of: id)!].frame, label: label, context: nil)
}

func litEntry(_ name: String, _ title: String, of id: String, in tree: ElementTree) -> Effect {
    .highlight(item: name, kind: .menuEntry, frame: tree[tree.index(of: id)!].frame, label: title, context: id)
}

/// Effects at one instant.
func timed(_ s: Double, _ effects: Effect...) -> [TimedEffect] { effects.map { TimedEffect(at(s), $0) } }

@Suite("Replacing the tree")
struct ReplaceTreeTests {
    let abc = screen(buttons("a", "b", "c"))

    /// An engine started at 0 that has auto-scanned to `until`.
    func running(_ tree: ElementTree, until s: Double, settings: ScanSettings = ScanSettings()) -> ScanEngine {
        var engine = ScanEngine(tree: tree, settings: settings)
        _ = engine.start(at: .zero)
        _ = engine.handleDeadline(at: at(s))
        return engine
    }

    // MARK: same screen

    @Test func theSameElementAtAnotherIndexKeepsTheHighlightAndEmitsNothing() {
        var engine = running(abc, until: 1.5)  // on b since 1 s
        let inserted = screen(buttons("x", "a", "b", "c"))
        #expect(inserted.index(of: "b") != abc.index(of: "b"), "the test needs b at another index")
        #expect(engine.replaceTree(inserted, at: at(1.5)).scanned == [])
        #expect(engine.nextDeadline == at(2), "the dwell on b goes on")
        #expect(engine.handleDeadline(at: at(2)).scanned == timed(2, lit("c", in: inserted)), "b's successor follows b")
    }

    @Test func aRemovedHighlightedElementHandsTheCursorToTheNextItem() {
        var engine = running(abc, until: 1.5)
        let removed = screen(buttons("a", "c"))
        #expect(engine.replaceTree(removed, at: at(1.5)).scanned == timed(1.5, lit("c", in: removed)))
        #expect(engine.nextDeadline == at(2.5), "a new item: its dwell starts now")
    }

    @Test func aRemovedLastItemHandsTheCursorToThePreviousOne() {
        var engine = running(abc, until: 2.5)  // on c
        let removed = screen(buttons("a", "b"))
        #expect(engine.replaceTree(removed, at: at(2.7)).scanned == timed(2.7, lit("b", in: removed)))
        #expect(engine.nextDeadline == at(3.7))
    }

    @Test func aSiblingInsertedBeforeTheCursorInsideAGroupKeepsIt() {
        let before = screen([.group("g", buttons("a", "b", "c")), .button("d")])
        var engine = ScanEngine(tree: before)
        #expect(engine.start(at: .zero).scanned == timed(0, .scanStarted, litGroup("g", label: "A, B, C", in: before)))
        #expect(engine.handle(press(.select, at: 0.5), at: at(0.5)).scanned
                == timed(0.5, .enterGroup("g"), lit("a", in: before)))
        _ = engine.handle(release(.select, at: 0.6), at: at(0.6))
        #expect(engine.handleDeadline(at: at(1.7)).scanned == timed(1.5, lit("b", in: before)))
        let after = screen([.group("g", buttons("z", "a", "b", "c")), .button("d")])
        #expect(engine.replaceTree(after, at: at(1.8)).scanned == [])
        #expect(engine.nextDeadline == at(2.5))
        #expect(engine.handleDeadline(at: at(2.5)).scanned == timed(2.5, lit("c", in: after)))
    }

    @Test func aVanishedLastMemberOfAGroupContinuesAfterTheGroup() {
        let before = screen([.button("a"), .group("g", buttons("b", "c", "d")), .button("e")])
        var engine = ScanEngine(tree: before)
        _ = engine.start(at: .zero)
        _ = engine.handleDeadline(at: at(1))  // g
        _ = engine.handle(press(.select, at: 1.5), at: at(1.5))  // enter g: b
        _ = engine.handleDeadline(at: at(3.5))  // d at 3.5
        let after = screen([.button("a"), .group("g", buttons("b", "c")), .button("e")])
        #expect(engine.replaceTree(after, at: at(3.6)).scanned == timed(3.6, .exitGroup("g"), lit("e", in: after)))
        #expect(engine.nextDeadline == at(4.6))
    }

    @Test func theExitItemStaysTheExitItemOfItsGroup() {
        let before = screen([.group("g", buttons("a", "b")), .button("c")])
        var engine = ScanEngine(tree: before)
        _ = engine.start(at: .zero)
        _ = engine.handle(press(.select, at: 0.5), at: at(0.5))  // a
        let exit = engine.handleDeadline(at: at(2.5))  // b at 1.5, exit at 2.5
        #expect(exit.last == TimedEffect(at(2.5), .highlight(item: "exit", kind: .exit, frame: before[before.index(of: "g")!].frame,
                                                              label: "Exit group", context: "g")))
        let after = screen([.button("c0"), .group("g", buttons("a", "b")), .button("c")])
        #expect(engine.replaceTree(after, at: at(2.6)).scanned == [])
        #expect(engine.handleDeadline(at: at(3.5)).scanned == timed(3.5, lit("a", in: after)), "the cycle inside g goes on")
    }

    @Test func aMovedHighlightedElementIsHighlightedAgainWithoutRestartingItsDwell() {
        var engine = running(abc, until: 1.5)
        let moved = screen([.button("a"), .button("b", frame: Rect(x: 10.5, y: 60, width: 120, height: 40)), .button("c")])
        let effects = engine.replaceTree(moved, at: at(1.7)).scanned
        #expect(effects == timed(1.7, lit("b", in: moved)))
        #expect(effects.count == 1)
        if case .highlight(_, _, let frame, _, _, _)? = effects.first?.effect {
            #expect(frame == Rect(x: 10.5, y: 60, width: 120, height: 40))
        }
        #expect(engine.nextDeadline == at(2), "same item: the timer keeps its phase")
        // Nothing visible changes the second time.
        #expect(engine.replaceTree(moved, at: at(1.8)).scanned == [])
    }

    @Test func aRelabelledHighlightedElementIsHighlightedAgain() {
        var engine = running(abc, until: 1.5)
        let relabelled = screen([.button("a"), .button("b", label: "Send"), .button("c")])
        #expect(engine.replaceTree(relabelled, at: at(1.7)).scanned
                == timed(1.7, .highlight(item: "b", kind: .element, frame: abc[abc.index(of: "b")!].frame, label: "Send", context: nil)))
        #expect(engine.nextDeadline == at(2))
    }

    @Test func changesElsewhereEmitNothing() {
        var engine = running(abc, until: 1.5)
        let changed = screen([.button("a", label: "Other"), .button("b"), .button("c", frame: Rect(x: 200, y: 300, width: 10, height: 10))])
        #expect(engine.replaceTree(changed, at: at(1.7)).scanned == [])
        #expect(engine.nextDeadline == at(2))
    }

    // MARK: nothing to scan

    @Test func anEmptyScreenStopsAndItemsComingBackRestartAtTheFirst() {
        var engine = running(abc, until: 1.5)
        let empty = screen([])
        #expect(engine.replaceTree(empty, at: at(1.6)).scanned == timed(1.6, .scanStopped(.nothingToScan)))
        #expect(engine.nextDeadline == nil)
        #expect(engine.replaceTree(empty, at: at(1.7)).scanned == [], "still nothing: said once")
        let back = screen(buttons("c", "d"))
        #expect(engine.replaceTree(back, at: at(3)).scanned == timed(3, .scanStarted, lit("c", in: back)))
        #expect(engine.nextDeadline == at(4))
    }

    @Test func aScreenStoppedByItsLoopsDoesNotRestartByItself() {
        var engine = running(abc, until: 6)  // 2 loops of 3 items: stopped at 6 s
        #expect(!engine.isRunning)
        #expect(engine.replaceTree(screen(buttons("a", "b", "c", "d")), at: at(7)).scanned == [])
        #expect(engine.nextDeadline == nil)
    }

    // MARK: menus

    @Test func aMenuOnAnElementThatSurvivesStaysOpenOnIt() {
        var engine = running(abc, until: 1.5)
        #expect(engine.handle(press(.select, at: 1.5), at: at(1.5)).scanned
                == timed(1.5, .menuOpen(element: "b", entries: ["tap", "pointMode", "gestures", "screenMenu", "exit"], titles: ["Tap", "Point mode", "Gestures", "Settings and more", "Exit menu"]), litEntry("tap", "Tap", of: "b", in: abc)))
        _ = engine.handle(release(.select, at: 1.6), at: at(1.6))
        let inserted = screen(buttons("x", "a", "b", "c"))
        #expect(engine.replaceTree(inserted, at: at(1.7)).scanned == [])
        #expect(engine.nextDeadline == at(2.5))
        // Tap acts on b, at its index in the new tree.
        let tap = engine.handle(press(.select, at: 1.8), at: at(1.8))
        let b = inserted[inserted.index(of: "b")!]
        #expect(tap.prefix(2) == timed(1.8, .menuClose(element: "b"), .activate(element: "b", point: b.activationPoint, target: "b"))[...])
    }

    @Test func aMenuOnAMovedElementFollowsItsFrame() {
        var engine = running(abc, until: 1.5)
        _ = engine.handle(press(.select, at: 1.5), at: at(1.5))
        let moved = screen([.button("a"), .button("b", frame: Rect(x: 0, y: 500, width: 100, height: 40)), .button("c")])
        #expect(engine.replaceTree(moved, at: at(1.7)).scanned == timed(1.7, litEntry("tap", "Tap", of: "b", in: moved)))
        #expect(engine.nextDeadline == at(2.5))
    }

    @Test func aMenuOnAnElementThatVanishesClosesAndScanningGoesOnAfterIt() {
        var engine = running(abc, until: 1.5)
        _ = engine.handle(press(.select, at: 1.5), at: at(1.5))
        let removed = screen(buttons("a", "c"))
        #expect(engine.replaceTree(removed, at: at(1.7)).scanned
                == timed(1.7, .menuClose(element: "b"), lit("c", in: removed)))
        #expect(engine.nextDeadline == at(2.7))
    }

    @Test func aMenuWhoseActionsChangedIsOfferedAgain() {
        var engine = running(abc, until: 1.5)
        _ = engine.handle(press(.select, at: 1.5), at: at(1.5))
        _ = engine.handleDeadline(at: at(2.5))  // pointMode
        var withAction = screen(buttons("a", "b", "c"))
        withAction.update(withAction.index(of: "b")!) { $0.customActions = [CustomAction(name: "Delete")] }
        #expect(engine.replaceTree(withAction, at: at(2.7)).scanned
                == timed(2.7, .menuOpen(element: "b", entries: ["tap", "Delete", "pointMode", "gestures", "screenMenu", "exit"],
                                            titles: ["Tap", "Delete", "Point mode", "Gestures", "Settings and more", "Exit menu"]),
                         litEntry("pointMode", "Point mode", of: "b", in: withAction)))
        #expect(engine.nextDeadline == at(3.7))
    }

    // MARK: auto-tap and pause

    var autoTapSettings: ScanSettings {
        var s = ScanSettings()
        s.tapBehavior = .autoTap
        return s
    }

    @Test func aPendingAutoTapTapsItsElementAtItsNewIndex() {
        var engine = running(abc, until: 1.5, settings: autoTapSettings)
        #expect(engine.handle(press(.select, at: 1.5), at: at(1.5)).scanned == [])
        #expect(engine.nextDeadline == at(2.25))
        let inserted = screen(buttons("x", "a", "b", "c"))
        #expect(engine.replaceTree(inserted, at: at(1.7)).scanned == [])
        #expect(engine.nextDeadline == at(2.25))
        let b = inserted[inserted.index(of: "b")!]
        #expect(engine.handleDeadline(at: at(2.25)).first == TimedEffect(at(2.25), .activate(element: "b", point: b.activationPoint, target: "b")))
    }

    @Test func aPendingAutoTapOnAVanishedElementIsDroppedAndScanningGoesOn() {
        var engine = running(abc, until: 1.5, settings: autoTapSettings)
        _ = engine.handle(press(.select, at: 1.5), at: at(1.5))
        let removed = screen(buttons("a", "c"))
        #expect(engine.replaceTree(removed, at: at(1.7)).scanned == timed(1.7, lit("c", in: removed)))
        #expect(engine.nextDeadline == at(2.7), "no tap at 2.25; the scan timer runs again")
        #expect(engine.handleDeadline(at: at(2.7)).scanned == timed(2.7, lit("a", in: removed)))
    }

    @Test func whilePausedChangesAreSilentAndResumingShowsThem() {
        var engine = running(abc, until: 1.5)
        #expect(engine.handle(press(.pause, at: 1.6), at: at(1.6)).scanned == timed(1.6, .scanStopped(.paused)))
        _ = engine.handle(release(.pause, at: 1.7), at: at(1.7))
        let moved = screen([.button("x"), .button("a"), .button("b", frame: Rect(x: 0, y: 500, width: 100, height: 40))])
        #expect(engine.replaceTree(moved, at: at(2)).scanned == [])
        #expect(engine.handle(press(.pause, at: 3), at: at(3)).scanned == timed(3, .scanStarted, lit("b", in: moved)))
    }

    @Test func anotherScreenWhilePausedIsAnnouncedAndResumingStartsAtItsFirstItem() {
        var engine = running(abc, until: 1.5)
        _ = engine.handle(press(.pause, at: 1.6), at: at(1.6))
        _ = engine.handle(release(.pause, at: 1.7), at: at(1.7))
        let dialog = screen(buttons("ok", "cancel"), id: "dialog", title: "Quit?")
        #expect(engine.replaceTree(dialog, at: at(2)).scanned == timed(2, .announce("Quit?")))
        #expect(engine.handle(press(.pause, at: 3), at: at(3)).scanned == timed(3, .scanStarted, lit("ok", in: dialog)))
        #expect(engine.nextDeadline == at(4))
    }

    // MARK: another screen

    @Test func anotherScreenIsAnnouncedThenScannedFromItsFirstItem() {
        var engine = running(abc, until: 1.5)
        let dialog = screen(buttons("save", "discard", "cancel"), id: "dialog", title: "Save changes?")
        #expect(engine.replaceTree(dialog, at: at(1.7)).scanned
                == timed(1.7, .announce("Save changes?"), .scanStarted, lit("save", in: dialog)))
        #expect(engine.nextDeadline == at(2.7))
    }

    /// A menu's window (a combo box's list, a context menu) is announced when it opens;
    /// closing back to the window it opened over announces nothing (the user never left
    /// it), while a dialog that comes after, or another window, is announced.
    @Test func theWindowAMenuClosesBackToIsNotAnnouncedAgain() {
        let window = screen(buttons("a", "b", "c"), id: "window", title: "Editor")
        var menu = screen(buttons("open", "quit"), id: "menu", title: "menu")
        menu.isMenu = true
        let dialog = screen(buttons("cancel"), id: "dialog", title: "Open File")
        var engine = running(window, until: 0.5)
        #expect(engine.replaceTree(menu, at: at(1)).scanned == timed(1, .announce("menu"), .scanStarted, lit("open", in: menu)))
        #expect(engine.replaceTree(window, at: at(1.2)).scanned == timed(1.2, .scanStarted, lit("a", in: window)))
        #expect(engine.replaceTree(dialog, at: at(1.3)).scanned
                == timed(1.3, .announce("Open File"), .scanStarted, lit("cancel", in: dialog)))
        // Back from the dialog: announced. From a menu to another window: announced.
        #expect(engine.replaceTree(window, at: at(2)).scanned == timed(2, .announce("Editor"), .scanStarted, lit("a", in: window)))
        _ = engine.replaceTree(menu, at: at(3))
        let other = screen(buttons("x"), id: "other", title: "Other")
        #expect(engine.replaceTree(other, at: at(3.5)).scanned == timed(3.5, .announce("Other"), .scanStarted, lit("x", in: other)))
    }

    @Test func anotherScreenClosesTheMenuFirstAndAnUntitledOneIsNotAnnounced() {
        var engine = running(abc, until: 1.5)
        _ = engine.handle(press(.select, at: 1.5), at: at(1.5))
        let other = screen(buttons("b", "c"), id: "other")
        #expect(engine.replaceTree(other, at: at(1.7)).scanned
                == timed(1.7, .menuClose(element: "b"), .scanStarted, lit("b", in: other)))
    }

    @Test func anotherScreenInsideAGroupStartsAtTheTopLevel() {
        let before = screen([.group("g", buttons("a", "b")), .button("c")])
        var engine = ScanEngine(tree: before)
        _ = engine.start(at: .zero)
        _ = engine.handle(press(.select, at: 0.5), at: at(0.5))
        let other = screen([.group("g", buttons("a", "b")), .button("c")], id: "other", title: "Other")
        #expect(engine.replaceTree(other, at: at(0.7)).scanned
                == timed(0.7, .announce("Other"), .scanStarted, litGroup("g", label: "A, B", in: other)))
    }

    // MARK: point mode

    var pointSettings: ScanSettings {
        var s = ScanSettings()
        s.mode = .point
        return s
    }

    @Test func pointModeSweepsOnOverTheSameScreen() {
        var engine = ScanEngine(tree: abc, settings: pointSettings)
        _ = engine.start(at: .zero)
        let deadline = engine.nextDeadline
        #expect(engine.replaceTree(screen(buttons("x", "a", "c")), at: at(1)).scanned == [])
        #expect(engine.nextDeadline == deadline)
    }

    @Test func pointModeOnAnotherScreenAnnouncesAndSweepsAgain() {
        var engine = ScanEngine(tree: abc, settings: pointSettings)
        _ = engine.start(at: .zero)
        let dialog = screen(buttons("ok"), id: "dialog", title: "Print")
        let sweep = Sweep(axis: .x, phase: .line, start: at(1), lo: 0, hi: 400, speed: 100, passes: 2)
        #expect(engine.replaceTree(dialog, at: at(1)).scanned == timed(1, .announce("Print"), .sweep(sweep)))
        #expect(engine.nextDeadline == sweep.end)
    }

    // MARK: bookkeeping

    @Test func aPressAfterTheChangeActsOnTheElementByItsNewIndex() {
        var engine = running(abc, until: 1.5)
        let inserted = screen(buttons("x", "y", "a", "b", "c"))
        _ = engine.replaceTree(inserted, at: at(1.6))
        #expect(engine.handle(press(.select, at: 1.7), at: at(1.7)).scanned
                == timed(1.7, .menuOpen(element: "b", entries: ["tap", "pointMode", "gestures", "screenMenu", "exit"], titles: ["Tap", "Point mode", "Gestures", "Settings and more", "Exit menu"]), litEntry("tap", "Tap", of: "b", in: inserted)))
    }

    @Test func aPressFromBeforeTheChangeActsOnWhatIsHighlightedNow() {
        var engine = running(abc, until: 1)  // b at 1 s
        // The window changes, then a press from before the change is processed: the
        // history of steps over the old tree is gone, so it acts on what is there now.
        _ = engine.replaceTree(screen(buttons("x", "a", "b", "c")), at: at(1.2))
        let effects = engine.handle(press(.select, at: 0.9), at: at(1.3))
        #expect(effects.first?.effect == .menuOpen(element: "b", entries: ["tap", "pointMode", "gestures", "screenMenu", "exit"], titles: ["Tap", "Point mode", "Gestures", "Settings and more", "Exit menu"]))
    }
}

extension Array where Element == TimedEffect {
    /// The effects without the screens shown (`ScreenEffectTests` pins those): what the
    /// user sees the scan do.
    var scanned: [TimedEffect] { filter { if case .screen = $0.effect { false } else { true } } }
}

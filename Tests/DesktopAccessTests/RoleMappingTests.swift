import CAtspi
@testable import DesktopAccess
import ScanCore
import Testing

/// AT-SPI roles and names into the element model (docs/DESKTOP.md's table), and the ids.
@Suite struct RoleMappingTests {
    @Test func rolesBecomeTheirKinds() {
        let table: [(AtspiRole, RoleKind)] = [
            (ATSPI_ROLE_PUSH_BUTTON, .control), (ATSPI_ROLE_CHECK_BOX, .control), (ATSPI_ROLE_RADIO_MENU_ITEM, .control),
            (ATSPI_ROLE_PAGE_TAB, .control), (ATSPI_ROLE_COMBO_BOX, .control), (ATSPI_ROLE_TABLE_CELL, .control),
            (ATSPI_ROLE_LINK, .control), (ATSPI_ROLE_COLUMN_HEADER, .control),
            (ATSPI_ROLE_SLIDER, .adjustable), (ATSPI_ROLE_SPIN_BUTTON, .adjustable), (ATSPI_ROLE_SCROLL_BAR, .adjustable),
            (ATSPI_ROLE_ENTRY, .textEntry), (ATSPI_ROLE_PASSWORD_TEXT, .textEntry), (ATSPI_ROLE_TERMINAL, .textEntry),
            (ATSPI_ROLE_LABEL, .textBlock(heading: false)), (ATSPI_ROLE_PARAGRAPH, .textBlock(heading: false)),
            (ATSPI_ROLE_STATUS_BAR, .staticText), (ATSPI_ROLE_PROGRESS_BAR, .staticText),
            (ATSPI_ROLE_HEADING, .textBlock(heading: true)), (ATSPI_ROLE_HEADER, .heading), (ATSPI_ROLE_LANDMARK, .container(flatten: false)),
            (ATSPI_ROLE_FORM, .container(flatten: false)), (ATSPI_ROLE_DOCUMENT_WEB, .container(flatten: true)), (ATSPI_ROLE_IMAGE, .image), (ATSPI_ROLE_ICON, .image),
            (ATSPI_ROLE_FRAME, .window), (ATSPI_ROLE_DIALOG, .window), (ATSPI_ROLE_ALERT, .window),
            (ATSPI_ROLE_MENU, .popupMenu), (ATSPI_ROLE_POPUP_MENU, .popupMenu),
            (ATSPI_ROLE_PANEL, .container(flatten: true)), (ATSPI_ROLE_FILLER, .container(flatten: true)),
            (ATSPI_ROLE_SCROLL_PANE, .container(flatten: true)), (ATSPI_ROLE_TABLE_ROW, .container(flatten: true)),
            (ATSPI_ROLE_TOOL_BAR, .container(flatten: false)), (ATSPI_ROLE_LIST, .container(flatten: false)),
            (ATSPI_ROLE_TREE_TABLE, .container(flatten: false)), (ATSPI_ROLE_PAGE_TAB_LIST, .container(flatten: false)),
            (ATSPI_ROLE_SEPARATOR, .ignored), (ATSPI_ROLE_TOOL_TIP, .ignored), (ATSPI_ROLE_INVALID, .ignored),
        ]
        for (role, kind) in table {
            #expect(RoleMapping.kind(of: role) == kind, "role \(role.rawValue)")
        }
    }

    /// The keyboard's text rules by what the toolkits say of their fields: GTK 3's entry
    /// (single line) and text view (several), a file chooser's name, Firefox's and
    /// Chromium's input types, LibreOffice's paragraphs, passwords and terminals.
    @Test func fieldsTakeTheKindTheirRolesStatesAndAttributesSay() {
        struct Case {
            var role: AtspiRole, multi: Bool, single: Bool, attributes: [String: String], chooser: Bool, kind: TextEntryKind
            init(_ role: AtspiRole, _ multi: Bool, _ single: Bool, _ attributes: [String: String], _ chooser: Bool, _ kind: TextEntryKind) {
                (self.role, self.multi, self.single, self.attributes, self.chooser, self.kind) = (role, multi, single, attributes, chooser, kind)
            }
        }
        let table: [Case] = [
            Case(ATSPI_ROLE_ENTRY, false, true, ["toolkit": "gtk"], false, .line),              // GtkEntry
            Case(ATSPI_ROLE_TEXT, true, false, ["toolkit": "gtk"], false, .text),               // GtkTextView (mousepad)
            Case(ATSPI_ROLE_TEXT, false, true, [:], true, .fileName),                           // Save As's Name
            Case(ATSPI_ROLE_ENTRY, false, true, ["text-input-type": "email"], false, .email),   // <input type=email>
            Case(ATSPI_ROLE_ENTRY, false, true, ["text-input-type": "url"], false, .url),
            Case(ATSPI_ROLE_ENTRY, false, true, ["text-input-type": "tel"], false, .number),
            Case(ATSPI_ROLE_SPIN_BUTTON, false, true, ["text-input-type": "number"], false, .number),
            Case(ATSPI_ROLE_ENTRY, false, true, ["text-input-type": "search"], false, .line),
            Case(ATSPI_ROLE_ENTRY, true, false, [:], false, .text),                             // <textarea>
            Case(ATSPI_ROLE_PARAGRAPH, true, false, [:], false, .text),                         // LibreOffice Writer
            Case(ATSPI_ROLE_DOCUMENT_TEXT, false, false, [:], false, .text),
            Case(ATSPI_ROLE_PASSWORD_TEXT, false, true, [:], true, .password),
            Case(ATSPI_ROLE_ENTRY, false, true, ["text-input-type": "password"], false, .password),
            Case(ATSPI_ROLE_TERMINAL, true, false, [:], false, .terminal),
            Case(ATSPI_ROLE_ENTRY, false, false, [:], false, .text),                            // says nothing: prose
        ]
        for c in table {
            #expect(RoleMapping.textEntryKind(role: c.role, multiLine: c.multi, singleLine: c.single, attributes: c.attributes,
                                              inFileChooser: c.chooser) == c.kind, "\(c.role.rawValue) \(c.attributes)")
        }
    }

    /// A browser's internal frame is read from the application each time: a link followed
    /// swaps the document in it without a `children-changed`, which libatspi's cache of
    /// children follows. Every other container is read from the cache.
    @Test func aBrowsersInternalFrameIsReadFromTheApplication() {
        #expect(RoleMapping.readsChildrenLive(ATSPI_ROLE_INTERNAL_FRAME))
        for role in [ATSPI_ROLE_PANEL, ATSPI_ROLE_FILLER, ATSPI_ROLE_SCROLL_PANE, ATSPI_ROLE_DOCUMENT_WEB, ATSPI_ROLE_TOOL_BAR,
                     ATSPI_ROLE_FRAME, ATSPI_ROLE_PAGE_TAB_LIST] {
            #expect(!RoleMapping.readsChildrenLive(role), "role \(role.rawValue)")
        }
    }

    /// What the walk read of a node refines its role's kind: a field that cannot be
    /// edited is text, LibreOffice's editable document body a field, a slider without a
    /// Value a control, an unknown role holding nodes see-through, a label holding nothing
    /// one text, windows and menus containers of their own.
    @Test func whatIsReadOfANodeRefinesItsKind() {
        func final(_ role: AtspiRole, editable: Bool = true, children: Int = 0, value: Bool = true) -> RoleKind {
            RoleMapping.finalKind(RoleMapping.kind(of: role), role: role, editable: editable, childCount: children, hasValue: { value })
        }
        #expect(final(ATSPI_ROLE_ENTRY) == .textEntry)
        #expect(final(ATSPI_ROLE_ENTRY, editable: false) == .staticText)
        #expect(final(ATSPI_ROLE_DOCUMENT_TEXT, children: 3) == .textEntry)
        #expect(final(ATSPI_ROLE_DOCUMENT_TEXT, editable: false, children: 3) == .container(flatten: true))
        #expect(final(ATSPI_ROLE_SLIDER) == .adjustable)
        #expect(final(ATSPI_ROLE_SLIDER, value: false) == .control)
        #expect(final(ATSPI_ROLE_SEPARATOR) == .ignored)
        #expect(final(ATSPI_ROLE_SEPARATOR, children: 1) == .container(flatten: true))
        #expect(final(ATSPI_ROLE_LABEL) == .staticText)
        #expect(final(ATSPI_ROLE_HEADING) == .heading)
        #expect(final(ATSPI_ROLE_HEADING, children: 2) == .textBlock(heading: true))
        #expect(final(ATSPI_ROLE_DIALOG, children: 2) == .container(flatten: false))
        #expect(final(ATSPI_ROLE_POPUP_MENU, children: 2) == .container(flatten: false))
        // The Value interface is asked for only where it decides.
        var asked = false
        _ = RoleMapping.finalKind(.control, role: ATSPI_ROLE_PUSH_BUTTON, editable: false, childCount: 0, hasValue: { asked = true; return true })
        #expect(!asked)
    }

    /// Which roles hold what: popups hang off combo boxes, menu items and menu buttons;
    /// page tabs, list rows, expanders and tree rows hold content scanned after them;
    /// progress and level bars show their value; table cells have no hint read; scroll
    /// bars' ranges are not kept; an alert is modal; passwords and terminals take keys only.
    @Test func rolePredicates() {
        for role in [ATSPI_ROLE_COMBO_BOX, ATSPI_ROLE_MENU_ITEM, ATSPI_ROLE_PUSH_BUTTON_MENU] { #expect(RoleMapping.hostsPopups(role)) }
        for role in [ATSPI_ROLE_PUSH_BUTTON, ATSPI_ROLE_LIST_ITEM, ATSPI_ROLE_MENU] { #expect(!RoleMapping.hostsPopups(role)) }
        for role in [ATSPI_ROLE_PAGE_TAB, ATSPI_ROLE_LIST_ITEM, ATSPI_ROLE_TOGGLE_BUTTON, ATSPI_ROLE_TREE_ITEM] { #expect(RoleMapping.holdsContent(role)) }
        for role in [ATSPI_ROLE_PUSH_BUTTON, ATSPI_ROLE_COMBO_BOX, ATSPI_ROLE_TABLE_CELL] { #expect(!RoleMapping.holdsContent(role)) }
        #expect(RoleMapping.showsValue(ATSPI_ROLE_PROGRESS_BAR) && RoleMapping.showsValue(ATSPI_ROLE_LEVEL_BAR))
        #expect(!RoleMapping.showsValue(ATSPI_ROLE_SLIDER))
        #expect(RoleMapping.readsValueAsText(.staticText, role: ATSPI_ROLE_TEXT))
        #expect(RoleMapping.readsValueAsText(.staticText, role: ATSPI_ROLE_PROGRESS_BAR))
        #expect(!RoleMapping.readsValueAsText(.staticText, role: ATSPI_ROLE_LABEL))
        #expect(!RoleMapping.readsValueAsText(.textEntry, role: ATSPI_ROLE_TEXT))
        #expect(!RoleMapping.readsHint(ATSPI_ROLE_TABLE_CELL) && RoleMapping.readsHint(ATSPI_ROLE_PUSH_BUTTON))
        #expect(!RoleMapping.keepsRange(ATSPI_ROLE_SCROLL_BAR) && RoleMapping.keepsRange(ATSPI_ROLE_SLIDER))
        #expect(RoleMapping.isModal(role: ATSPI_ROLE_ALERT, modalState: false))
        #expect(RoleMapping.isModal(role: ATSPI_ROLE_DIALOG, modalState: true))
        #expect(!RoleMapping.isModal(role: ATSPI_ROLE_DIALOG, modalState: false))
        #expect(RoleMapping.isSecretEntry(ATSPI_ROLE_PASSWORD_TEXT) && RoleMapping.isSecretEntry(ATSPI_ROLE_TERMINAL))
        #expect(!RoleMapping.isSecretEntry(ATSPI_ROLE_ENTRY))
        #expect(RoleMapping.isDocumentBody(ATSPI_ROLE_DOCUMENT_TEXT) && !RoleMapping.isDocumentBody(ATSPI_ROLE_DOCUMENT_WEB))
        for role in ["menu bar", "menu", "menu item"] { #expect(RoleMapping.isMenuTitleParent(role)) }
        #expect(!RoleMapping.isMenuTitleParent("panel"))
        #expect(RoleMapping.menuTitleParents == Set([ATSPI_ROLE_MENU_BAR, ATSPI_ROLE_MENU, ATSPI_ROLE_MENU_ITEM].map { Atspi.roleName(of: $0) }),
                "the names are libatspi's")
    }

    /// A control is a link or a button (a column header a header too); checked, pressed
    /// and selected are chosen, except a menu item's selected, which is only where the
    /// pointer is.
    @Test func controlsTraits() {
        func traits(_ role: AtspiRole, link: Bool = false, checked: Bool = false, pressed: Bool = false, selected: Bool = false) -> TraitSet {
            RoleMapping.traits(role: role, kind: RoleMapping.kind(of: role), isLink: link, checked: checked, pressed: pressed, selected: selected)
        }
        #expect(traits(ATSPI_ROLE_PUSH_BUTTON) == TraitSet([.button]))
        #expect(traits(ATSPI_ROLE_LINK, link: true) == TraitSet([.link]))
        #expect(traits(ATSPI_ROLE_COLUMN_HEADER) == TraitSet([.button, .header]))
        #expect(traits(ATSPI_ROLE_CHECK_BOX, checked: true) == TraitSet([.button, .selected]))
        #expect(traits(ATSPI_ROLE_TOGGLE_BUTTON, pressed: true) == TraitSet([.button, .selected]))
        #expect(traits(ATSPI_ROLE_LIST_ITEM, selected: true) == TraitSet([.button, .selected]))
        #expect(traits(ATSPI_ROLE_MENU_ITEM, selected: true) == TraitSet([.button]))
        #expect(traits(ATSPI_ROLE_CHECK_MENU_ITEM, checked: true, selected: true) == TraitSet([.button, .selected]))
        #expect(traits(ATSPI_ROLE_SLIDER, selected: true) == TraitSet([.selected]), "not a control: no button")
    }

    @Test func everyRoleHasAKindAndWindowsAreFewRoles() {
        var windows = 0
        for raw in 0..<ATSPI_ROLE_LAST_DEFINED.rawValue {
            if RoleMapping.kind(of: AtspiRole(raw)) == .window { windows += 1 }
        }
        #expect(windows == 7)
    }

    /// On a web page, list items and table cells are text around links unless a list box's
    /// option or a grid's cell (selectable); elsewhere, as in toolkits, they are controls.
    @Test func pageListItemsAndCellsAreTextUnlessSelectable() {
        for role in [ATSPI_ROLE_LIST_ITEM, ATSPI_ROLE_TABLE_CELL] {
            #expect(RoleMapping.kind(of: role, inDocument: true, selectable: false) == .textBlock(heading: false))
            #expect(RoleMapping.kind(of: role, inDocument: true, selectable: true) == .control)
            #expect(RoleMapping.kind(of: role, inDocument: false, selectable: false) == .control)
        }
        #expect(RoleMapping.kind(of: ATSPI_ROLE_PUSH_BUTTON, inDocument: true, selectable: false) == .control)
        #expect(RoleMapping.isDocument(ATSPI_ROLE_DOCUMENT_WEB) && !RoleMapping.isDocument(ATSPI_ROLE_DOCUMENT_FRAME))
    }

    /// Browsers give every node the Hyperlink interface: only GTK's link buttons are links
    /// for it; a link is a link everywhere.
    @Test func buttonsInBrowsersAreButtons() {
        #expect(RoleMapping.isBrowser(toolkit: "Gecko") && RoleMapping.isBrowser(toolkit: "Chromium"))
        #expect(!RoleMapping.isBrowser(toolkit: "GTK") && !RoleMapping.isBrowser(toolkit: "Qt"))
        #expect(!RoleMapping.isLink(role: ATSPI_ROLE_PUSH_BUTTON, hasHyperlink: true, browser: true))
        #expect(RoleMapping.isLink(role: ATSPI_ROLE_PUSH_BUTTON, hasHyperlink: true, browser: false))
        #expect(!RoleMapping.isLink(role: ATSPI_ROLE_PUSH_BUTTON, hasHyperlink: false, browser: false))
        #expect(RoleMapping.isLink(role: ATSPI_ROLE_LINK, hasHyperlink: true, browser: true))
    }

    /// Each heading starts a group that runs to the next one; what comes before the first
    /// heading stays on its own.
    @Test func headingsSplitItemsIntoSections() {
        #expect(Walker.sections(isHeading: []) == [])
        #expect(Walker.sections(isHeading: [false, false]) == [[0, 1]])
        #expect(Walker.sections(isHeading: [false, true, false, false, true, false]) == [[0], [1, 2, 3], [4, 5]])
        #expect(Walker.sections(isHeading: [true, false, true, true]) == [[0, 1], [2], [3]])
    }

    @Test func toolkitInternalActionsAreLeftOut() {
        for name in ["", "clipboard.copy", "menu.popup", "window.close", "win.save", "app.quit", "text.undo", "SetFocus"] {
            #expect(RoleMapping.isInternalAction(name), "\(name)")
        }
        for name in ["click", "expand or contract", "activate", "menu", "windowed", "Press", "setfocus now"] {
            #expect(!RoleMapping.isInternalAction(name), "\(name)")
        }
    }

    /// GTK 3 pads menu items' names before their accelerators.
    @Test func namesLoseTheWhiteSpaceAroundThem() {
        let table = [("Open...      ", "Open..."), ("  Save As...\t", "Save As..."), ("New", "New"), ("   ", ""), ("", ""),
                     ("Btn 1", "Btn 1"), (" a b ", "a b")]
        for (name, trimmed) in table { #expect(RoleMapping.trimmed(name) == trimmed, "\(name.debugDescription)") }
    }

    @Test func aNameMadeOfTheSameWordsTwiceHasItsHalf() {
        let table: [(String, String?)] = [("7 7", "7"), ("× ×", "×"), ("mod mod", "mod"), ("( (", "("),
                                          ("Clear Display Clear Display", "Clear Display"), ("bye bye", "bye"),
                                          ("7", nil), ("7 8", nil), ("77", nil), ("7  7", nil), ("", nil), ("a b a", nil)]
        for (name, half) in table { #expect(RoleMapping.doubledHalf(name) == half, "\(name.debugDescription)") }
    }

    @Test func gtk4TypeNamesAreNoNames() {
        for name in ["GtkSwitch", "GtkImage", "GtkBox"] { #expect(RoleMapping.isTypeName(name), "\(name)") }
        for name in ["Gtk", "Gtkx", "Gtk Switch", "Gtk4 demo", "Save", "GTKSwitch", ""] {
            #expect(!RoleMapping.isTypeName(name), "\(name)")
        }
    }
}

/// Element ids: the application's bus name and the object's path, the same for a widget's
/// whole life, and valid layout ids.
@Suite struct ElementIDTests {
    @Test func anIdIsTheBusNameAndTheObjectsNumber() {
        #expect(Walker.id(bus: ":1.23", path: "/org/a11y/atspi/accessible/45") == "a1.23:45")
        #expect(Walker.id(bus: ":1.23", path: "/org/a11y/atspi/accessible/root") == "a1.23:root")
        #expect(Walker.id(bus: ":1.23", path: "/org/a11y/atspi/accessible/") == "a1.23:root")
        #expect(Walker.id(bus: "", path: "/org/a11y/atspi/accessible/7") == "a0:7")
        #expect(Walker.id(bus: "org.a11y.atspi.Registry", path: "/org/a11y/atspi/accessible/root") == "aorg.a11y.atspi.Registry:root")
    }

    @Test func otherPathsKeepTheirLettersAndDigits() {
        #expect(Walker.id(bus: ":1.4", path: "/org/gtk/Application/a11y/3_x-y") == "a1.4:org.gtk.Application.a11y.3_x-y")
        #expect(Walker.id(bus: ":1.4", path: "/a b/c") == "a1.4:a.b.c")
    }

    @Test func longPathsKeepTheirEndAndAHashUnder128Characters() {
        let stem = "/org/gtk/gtk4/" + String(repeating: "widget/", count: 30)
        let one = Walker.id(bus: ":1.88", path: stem + "1"), two = Walker.id(bus: ":1.88", path: stem + "2")
        #expect(one.count <= 128 && two.count <= 128, "\(one)")
        #expect(one != two)
        #expect(one == Walker.id(bus: ":1.88", path: stem + "1"))
        #expect(one.hasPrefix("a1.88:") && one.contains("widget.1."), "\(one)")
        // Differing only where the kept end does not reach: the hash tells them apart.
        let early = Walker.id(bus: ":1.88", path: "/x" + stem + "1")
        #expect(early != one)
    }
}

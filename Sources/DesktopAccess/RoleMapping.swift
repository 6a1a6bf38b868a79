import CAtspi
import ScanCore

/// How an AT-SPI role becomes part of the element model (docs/DESKTOP.md has the table).
enum RoleKind: Equatable {
    /// Acted on: a button, a toggle, a menu item, a tab, a list row…
    case control
    /// A value moved with increment / decrement (when its Value has a range).
    case adjustable
    /// Text typed into: activation gives it the keyboard focus.
    case textEntry
    /// Read, not acted on.
    case staticText, heading, image
    /// A block of text (a paragraph, a label, a heading, a web page's list item or table
    /// cell): read as text when it holds nothing else; see-through when it holds links,
    /// fields or buttons, which join the items around it.
    case textBlock(heading: Bool)
    /// Holds other nodes; `flatten` when it only arranges them (unnamed panels, fillers).
    case container(flatten: Bool)
    /// Top-level windows.
    case window
    /// A menu that opens over the window (a combo box's list, a submenu, a context menu).
    case popupMenu
    /// Nothing a switch user needs (separators, tooltips, unknown decorations).
    case ignored
}

enum RoleMapping {
    /// The kind of a node inside a web page (`inDocument`) or a toolkit's window. On a page,
    /// list items and table cells are text unless they can be selected (a list box's
    /// options, a grid's cells): a page's `<li>` and `<td>` only hold text and links.
    static func kind(of role: AtspiRole, inDocument: Bool, selectable: Bool) -> RoleKind {
        if inDocument && !selectable && (role == ATSPI_ROLE_LIST_ITEM || role == ATSPI_ROLE_TABLE_CELL) {
            return .textBlock(heading: false)
        }
        return kind(of: role)
    }

    /// Web pages' documents: inside them, what lies outside the viewport is kept (it is
    /// scrolled into view when reached).
    static func isDocument(_ role: AtspiRole) -> Bool { role == ATSPI_ROLE_DOCUMENT_WEB }

    /// Whether a control is a link. GTK 3's link buttons are push buttons with the Hyperlink
    /// interface; browsers give every node that interface, buttons included.
    static func isLink(role: AtspiRole, hasHyperlink: Bool, browser: Bool) -> Bool {
        role == ATSPI_ROLE_LINK || (role == ATSPI_ROLE_PUSH_BUTTON && hasHyperlink && !browser)
    }

    /// Toolkit names of browsers (Firefox's Gecko, Chromium and Electron's Chromium).
    static func isBrowser(toolkit: String) -> Bool {
        let t = toolkit.lowercased()
        return t == "gecko" || t.hasPrefix("chrom")
    }

    static func kind(of role: AtspiRole) -> RoleKind {
        switch role {
        case ATSPI_ROLE_PUSH_BUTTON, ATSPI_ROLE_PUSH_BUTTON_MENU, ATSPI_ROLE_TOGGLE_BUTTON, ATSPI_ROLE_CHECK_BOX,
             ATSPI_ROLE_RADIO_BUTTON, ATSPI_ROLE_MENU_ITEM, ATSPI_ROLE_CHECK_MENU_ITEM, ATSPI_ROLE_RADIO_MENU_ITEM,
             ATSPI_ROLE_TEAROFF_MENU_ITEM, ATSPI_ROLE_LINK, ATSPI_ROLE_PAGE_TAB, ATSPI_ROLE_COMBO_BOX,
             ATSPI_ROLE_LIST_ITEM, ATSPI_ROLE_TABLE_CELL, ATSPI_ROLE_TREE_ITEM, ATSPI_ROLE_TABLE_COLUMN_HEADER,
             ATSPI_ROLE_COLUMN_HEADER, ATSPI_ROLE_TABLE_ROW_HEADER, ATSPI_ROLE_ROW_HEADER, ATSPI_ROLE_EXTENDED:
            return .control
        case ATSPI_ROLE_SLIDER, ATSPI_ROLE_SPIN_BUTTON, ATSPI_ROLE_SCROLL_BAR, ATSPI_ROLE_DIAL:
            return .adjustable
        case ATSPI_ROLE_TEXT, ATSPI_ROLE_ENTRY, ATSPI_ROLE_PASSWORD_TEXT, ATSPI_ROLE_TERMINAL:
            return .textEntry
        case ATSPI_ROLE_LABEL, ATSPI_ROLE_STATIC, ATSPI_ROLE_CAPTION, ATSPI_ROLE_PARAGRAPH, ATSPI_ROLE_BLOCK_QUOTE,
             ATSPI_ROLE_DESCRIPTION_TERM, ATSPI_ROLE_DESCRIPTION_VALUE:
            return .textBlock(heading: false)
        case ATSPI_ROLE_HEADING:
            return .textBlock(heading: true)
        case ATSPI_ROLE_STATUS_BAR, ATSPI_ROLE_PROGRESS_BAR, ATSPI_ROLE_LEVEL_BAR, ATSPI_ROLE_ACCELERATOR_LABEL, ATSPI_ROLE_NOTIFICATION:
            return .staticText
        case ATSPI_ROLE_HEADER:
            return .heading
        case ATSPI_ROLE_IMAGE, ATSPI_ROLE_ICON, ATSPI_ROLE_ANIMATION, ATSPI_ROLE_DESKTOP_ICON:
            return .image
        case ATSPI_ROLE_FRAME, ATSPI_ROLE_DIALOG, ATSPI_ROLE_ALERT, ATSPI_ROLE_WINDOW, ATSPI_ROLE_FILE_CHOOSER,
             ATSPI_ROLE_COLOR_CHOOSER, ATSPI_ROLE_FONT_CHOOSER:
            return .window
        case ATSPI_ROLE_MENU, ATSPI_ROLE_POPUP_MENU:
            return .popupMenu
        case ATSPI_ROLE_PANEL, ATSPI_ROLE_FILLER, ATSPI_ROLE_VIEWPORT, ATSPI_ROLE_SCROLL_PANE, ATSPI_ROLE_SECTION,
             ATSPI_ROLE_LAYERED_PANE, ATSPI_ROLE_ROOT_PANE, ATSPI_ROLE_GLASS_PANE, ATSPI_ROLE_INTERNAL_FRAME,
             ATSPI_ROLE_OPTION_PANE, ATSPI_ROLE_SPLIT_PANE, ATSPI_ROLE_TABLE_ROW, ATSPI_ROLE_UNKNOWN,
             ATSPI_ROLE_HTML_CONTAINER, ATSPI_ROLE_DOCUMENT_FRAME, ATSPI_ROLE_DOCUMENT_WEB, ATSPI_ROLE_DOCUMENT_TEXT,
             ATSPI_ROLE_EMBEDDED, ATSPI_ROLE_REDUNDANT_OBJECT, ATSPI_ROLE_CANVAS, ATSPI_ROLE_DRAWING_AREA:
            return .container(flatten: true)
        case ATSPI_ROLE_TOOL_BAR, ATSPI_ROLE_MENU_BAR, ATSPI_ROLE_LIST, ATSPI_ROLE_LIST_BOX, ATSPI_ROLE_TREE,
             ATSPI_ROLE_TREE_TABLE, ATSPI_ROLE_TABLE, ATSPI_ROLE_PAGE_TAB_LIST, ATSPI_ROLE_FORM, ATSPI_ROLE_GROUPING,
             ATSPI_ROLE_INFO_BAR, ATSPI_ROLE_CALENDAR, ATSPI_ROLE_DIRECTORY_PANE, ATSPI_ROLE_LANDMARK,
             ATSPI_ROLE_ARTICLE, ATSPI_ROLE_PAGE, ATSPI_ROLE_DESCRIPTION_LIST, ATSPI_ROLE_TITLE_BAR:
            return .container(flatten: false)
        default:
            return .ignored
        }
    }

    /// The kind a node is scanned as, once what the walk read of it is known: a field
    /// that cannot be edited is text; a word processor's editable document body
    /// (LibreOffice Writer's) is one field to type into, its paragraphs its text; a value
    /// role without a Value is a control; an ignored role holding nodes is a see-through
    /// container; a text block holding nothing is one text; windows and menus are
    /// containers of their own.
    static func finalKind(_ kind: RoleKind, role: AtspiRole, editable: Bool, childCount: Int, hasValue: () -> Bool) -> RoleKind {
        var kind = kind
        if kind == .textEntry && !editable { kind = .staticText }
        if isDocumentBody(role) && editable { kind = .textEntry }
        if kind == .adjustable && !hasValue() { kind = .control }
        if kind == .ignored && childCount > 0 { kind = .container(flatten: true) }
        if case .textBlock(let heading) = kind, childCount == 0 { kind = heading ? .heading : .staticText }
        if kind == .window || kind == .popupMenu { kind = .container(flatten: false) }
        return kind
    }

    /// A word processor's document body: typed into as one field, whose text is its
    /// paragraphs' (it has no Text interface of its own) and which never says it is
    /// sensitive.
    static func isDocumentBody(_ role: AtspiRole) -> Bool { role == ATSPI_ROLE_DOCUMENT_TEXT }

    /// Whether a container's children are asked of the application each time rather than
    /// taken from libatspi's cache: a browser's internal frame holds the page's document, and
    /// a page followed to swaps in a new document with only that document's
    /// `accessible-parent` change (no `children-changed` on the frame, which the cache
    /// follows), so the cache keeps the old, gone document there.
    static func readsChildrenLive(_ role: AtspiRole) -> Bool { role == ATSPI_ROLE_INTERNAL_FRAME }

    /// The roles of what a closed menu is the title in (a menu bar's menus, a submenu):
    /// there the closed menu is a control that opens it; elsewhere it says nothing.
    static func isMenuTitleParent(_ role: String) -> Bool { menuTitleParents.contains(role) }
    /// (As `LiveNode.role` names them.)
    static let menuTitleParents: Set<String> = ["menu bar", "menu", "menu item"]

    /// Roles whose widgets show their value as their text: progress and level bars (and a
    /// read-only text's text is its value).
    static func showsValue(_ role: AtspiRole) -> Bool { role == ATSPI_ROLE_PROGRESS_BAR || role == ATSPI_ROLE_LEVEL_BAR }
    static func readsValueAsText(_ kind: RoleKind, role: AtspiRole) -> Bool {
        kind == .staticText && (role == ATSPI_ROLE_TEXT || showsValue(role))
    }

    /// Scroll bars' ranges change with their content: never kept between reads.
    static func keepsRange(_ role: AtspiRole) -> Bool { role != ATSPI_ROLE_SCROLL_BAR }

    /// Controls whose open menus hang off them as children (a combo box's list, a menu
    /// item's submenu, a menu button's menu).
    static func hostsPopups(_ role: AtspiRole) -> Bool {
        role == ATSPI_ROLE_COMBO_BOX || role == ATSPI_ROLE_MENU_ITEM || role == ATSPI_ROLE_PUSH_BUTTON_MENU
    }

    /// Controls that hold content of their own, scanned right after them in a see-through
    /// container: a page tab its page, a list row its buttons, an expander its content.
    static func holdsContent(_ role: AtspiRole) -> Bool {
        role == ATSPI_ROLE_PAGE_TAB || role == ATSPI_ROLE_LIST_ITEM || role == ATSPI_ROLE_TOGGLE_BUTTON || role == ATSPI_ROLE_TREE_ITEM
    }

    /// Whether a control's description is read as its hint: table cells (many, never
    /// cached) go without, they are rows of text.
    static func readsHint(_ role: AtspiRole) -> Bool { role != ATSPI_ROLE_TABLE_CELL }

    /// What a control is to a person: a link or a button, a column's header, and chosen
    /// (checked, pressed, selected) — a menu item is `selected` while the pointer or the
    /// keyboard is on it, which is no choice.
    static func traits(role: AtspiRole, kind: RoleKind, isLink: Bool, checked: Bool, pressed: Bool, selected: Bool) -> TraitSet {
        var t = TraitSet()
        if kind == .control {
            t.insert(isLink ? .link : .button)
            if role == ATSPI_ROLE_TABLE_COLUMN_HEADER || role == ATSPI_ROLE_COLUMN_HEADER { t.insert(.header) }
        }
        let hovered = role == ATSPI_ROLE_MENU_ITEM || role == ATSPI_ROLE_CHECK_MENU_ITEM || role == ATSPI_ROLE_RADIO_MENU_ITEM
        if checked || pressed || (selected && !hovered) { t.insert(.selected) }
        return t
    }

    /// A window that holds the user until it is answered: one that says it is modal, and
    /// any alert.
    static func isModal(role: AtspiRole, modalState: Bool) -> Bool { modalState || role == ATSPI_ROLE_ALERT }

    /// Fields whose text is never inserted through AT-SPI nor read back (a password field,
    /// a terminal): keys are typed into them.
    static func isSecretEntry(_ role: AtspiRole) -> Bool { role == ATSPI_ROLE_PASSWORD_TEXT || role == ATSPI_ROLE_TERMINAL }

    /// Actions tried, in order, as the element's tap. Any other action becomes a custom
    /// action in the scanner menu.
    static let primaryActions = ["click", "press", "activate", "toggle", "jump", "open", "check", "uncheck", "doDefault"]

    /// Toolkit-internal action names that mean nothing to a user (GTK 4's widget actions,
    /// Qt's SetFocus on every button).
    static func isInternalAction(_ name: String) -> Bool {
        // Gecko's clickAncestor clicks whatever handles the click above the node.
        if name.isEmpty || name == "SetFocus" || name == "clickAncestor" { return true }
        for prefix in ["clipboard.", "selection.", "menu.", "link.", "window.", "win.", "misc.", "text.", "app."]
            where name.hasPrefix(prefix) { return true }
        return false
    }

    /// A name without the white space around it (GTK 3 pads menu items' names before
    /// their accelerators: "Open...      ").
    static func trimmed(_ name: String) -> String {
        guard let first = name.firstIndex(where: { !$0.isWhitespace }),
              let last = name.lastIndex(where: { !$0.isWhitespace }) else { return "" }
        if first == name.startIndex && name.index(after: last) == name.endIndex { return name }
        return String(name[first...last])
    }

    /// The half of a name made of the same words twice ("7 7": GTK 4.8 names a button by
    /// its label twice); nil for any other name.
    static func doubledHalf(_ name: String) -> String? {
        let u = Array(name.utf8)
        guard u.count >= 3, u.count % 2 == 1, u[u.count / 2] == UInt8(ascii: " ") else { return nil }
        let half = u.count / 2
        guard u[..<half].elementsEqual(u[(half + 1)...]) else { return nil }
        return String(decoding: u[..<half], as: UTF8.self)
    }

    /// GTK 4 names unnamed widgets after their type ("GtkSwitch"): no label for a person.
    static func isTypeName(_ name: String) -> Bool {
        let u = Array(name.utf8)
        return u.count > 3 && u[0] == UInt8(ascii: "G") && u[1] == UInt8(ascii: "t") && u[2] == UInt8(ascii: "k")
            && u[3] >= UInt8(ascii: "A") && u[3] <= UInt8(ascii: "Z") && !name.contains(" ")
    }

    /// The object attributes `textEntryKind` reads: the HTML input type browsers give a
    /// field (Firefox and Chromium: `text-input-type`), and an input purpose where a
    /// toolkit gives one.
    static let textEntryAttributes = ["text-input-type", "input-purpose"]

    /// What is typed into an editable field (its keyboard's text rules, `TextEntryKind`),
    /// from what AT-SPI says of it: the role (a password field, a terminal); a web page's
    /// input type or a toolkit's input purpose (e-mail, URL, number, telephone, search);
    /// a field inside a file chooser (a file name); else several lines (prose) or one.
    /// A field that says neither is taken for prose, as an editor's body.
    static func textEntryKind(role: AtspiRole, multiLine: Bool, singleLine: Bool, attributes: [String: String],
                              inFileChooser: Bool) -> TextEntryKind {
        if role == ATSPI_ROLE_PASSWORD_TEXT { return .password }
        if role == ATSPI_ROLE_TERMINAL { return .terminal }
        let purpose = (attributes["text-input-type"] ?? attributes["input-purpose"] ?? "").lowercased()
        switch purpose {
        case "password", "pin": return .password
        case "email": return .email
        case "url": return .url
        case "number", "tel", "phone", "digits": return .number
        case "search", "name": return .line
        default: break
        }
        if inFileChooser && !multiLine { return .fileName }
        if multiLine || role == ATSPI_ROLE_DOCUMENT_TEXT || role == ATSPI_ROLE_PARAGRAPH { return .text }
        return singleLine ? .line : .text
    }
}

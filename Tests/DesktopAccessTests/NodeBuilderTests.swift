import CAtspi
@testable import DesktopAccess
import ScanCore
import Testing

/// What a widget becomes, from what was read of it: the walk's rules without a display.
@Suite struct NodeBuilderTests {
    static func states(_ s: AtspiStateType...) -> StateBits {
        StateBits(raw: s.reduce(0) { $0 | 1 << UInt64($1.rawValue) })
    }
    static let shown = states(ATSPI_STATE_SHOWING, ATSPI_STATE_VISIBLE, ATSPI_STATE_SENSITIVE)

    static func facts(_ role: AtspiRole, _ name: String = "", states: StateBits = shown, inDocument: Bool = false) -> ReadFacts {
        ReadFacts(id: "a1:7", role: role, states: states, name: name, childCount: 0, parent: 3, inDocument: inDocument)
    }

    @Test func onlyWhatShowsIsRead() {
        let visible = Self.states(ATSPI_STATE_VISIBLE)
        #expect(NodeBuilder.isShown(Self.shown, shownState: ATSPI_STATE_SHOWING, inDocument: false))
        #expect(!NodeBuilder.isShown(visible, shownState: ATSPI_STATE_SHOWING, inDocument: false))
        // GTK 4 says `visible`; a page keeps what is outside its viewport.
        #expect(NodeBuilder.isShown(visible, shownState: ATSPI_STATE_VISIBLE, inDocument: false))
        #expect(NodeBuilder.isShown(visible, shownState: ATSPI_STATE_SHOWING, inDocument: true))
        #expect(!NodeBuilder.isShown(Self.states(ATSPI_STATE_SHOWING, ATSPI_STATE_DEFUNCT), shownState: ATSPI_STATE_SHOWING, inDocument: false))
    }

    @Test func aNodeOutsideAPagesViewportIsMarkedOffscreen() {
        let f = Self.facts(ATSPI_ROLE_LINK, "More", states: Self.states(ATSPI_STATE_VISIBLE, ATSPI_STATE_SENSITIVE), inDocument: true)
        let node = NodeBuilder.base(f)
        #expect(node.offscreen && node.parent == 3 && node.id == "a1:7" && node.role == "link")
        #expect(!NodeBuilder.base(Self.facts(ATSPI_ROLE_LINK, "More", inDocument: true)).offscreen)
    }

    @Test func containersAreSeeThroughUnlessNamed() {
        let panel = NodeBuilder.container(Self.facts(ATSPI_ROLE_PANEL), flatten: true)
        #expect(panel.flatten && panel.label.isEmpty && !panel.isElement)
        let frame = NodeBuilder.container(Self.facts(ATSPI_ROLE_PANEL, "Options"), flatten: true)
        #expect(!frame.flatten && frame.label == "Options")
        // GTK 4 names an unnamed container after its type: that is no name.
        let typed = NodeBuilder.container(Self.facts(ATSPI_ROLE_PANEL, "GtkFrame"), flatten: true)
        #expect(typed.flatten && typed.label.isEmpty)
        let dialog = NodeBuilder.container(Self.facts(ATSPI_ROLE_DIALOG, "Save", states: Self.states(ATSPI_STATE_SHOWING, ATSPI_STATE_MODAL)),
                                           flatten: false)
        #expect(dialog.modal)
    }

    @Test func aTextIsItsNameElseItsDescriptionElseItsValue() {
        var asked = 0
        func description() -> String { asked += 1; return "  Ready  " }
        let named = NodeBuilder.text(Self.facts(ATSPI_ROLE_STATUS_BAR, "Saved"), kind: .staticText, value: nil,
                                     description: description(), roleWords: "status bar")
        #expect(named?.label == "Saved" && named?.traits == TraitSet([.staticText]) && named?.isElement == true)
        #expect(asked == 0, "the description is not read where the name says it")
        let described = NodeBuilder.text(Self.facts(ATSPI_ROLE_STATUS_BAR), kind: .staticText, value: nil,
                                         description: description(), roleWords: "status bar")
        #expect(described?.label == "Ready")
        // A progress bar says its value; with no name, its role says what it is.
        let progress = NodeBuilder.text(Self.facts(ATSPI_ROLE_PROGRESS_BAR, "GtkProgressBar"), kind: .staticText, value: "40%",
                                        description: "", roleWords: "progress bar")
        #expect(progress?.label == "progress bar" && progress?.value == "40%")
        #expect(NodeBuilder.text(Self.facts(ATSPI_ROLE_STATUS_BAR), kind: .staticText, value: nil,
                                 description: "", roleWords: "status bar") == nil, "nothing to say")
    }

    @Test func headingsAndImagesAreMarkedSoAndGreyedWhenInsensitive() {
        let heading = NodeBuilder.text(Self.facts(ATSPI_ROLE_HEADER, "Fonts"), kind: .heading, value: nil, description: "", roleWords: "")
        #expect(heading?.traits == TraitSet([.header]))
        let image = NodeBuilder.text(Self.facts(ATSPI_ROLE_IMAGE, "Logo", states: Self.states(ATSPI_STATE_SHOWING)), kind: .image,
                                     value: nil, description: "", roleWords: "")
        #expect(image?.traits == TraitSet([.image, .notEnabled]))
    }

    @Test func aPagesBulletsAndPunctuationSayNothing() {
        for text in ["•", ", ", "|"] {
            #expect(NodeBuilder.text(Self.facts(ATSPI_ROLE_STATIC, text, inDocument: true), kind: .staticText, value: nil,
                                     description: "", roleWords: "") == nil, "\(text)")
        }
        #expect(NodeBuilder.text(Self.facts(ATSPI_ROLE_STATIC, "•", inDocument: false), kind: .staticText, value: nil,
                                 description: "", roleWords: "") != nil, "outside a page a bullet is still read")
        #expect(NodeBuilder.text(Self.facts(ATSPI_ROLE_STATIC, "3 results", inDocument: true), kind: .staticText, value: nil,
                                 description: "", roleWords: "")?.label == "3 results")
    }

    @Test func aTextBlockWithOnlyTextIsOneText() {
        #expect(NodeBuilder.textBlock(Self.facts(ATSPI_ROLE_PARAGRAPH, "GtkLabel")).label.isEmpty)
        #expect(NodeBuilder.textBlock(Self.facts(ATSPI_ROLE_PARAGRAPH)).flatten)
        #expect(NodeBuilder.textBlockLeaf(Self.facts(ATSPI_ROLE_HEADING, "Results"), heading: true)?.traits == TraitSet([.header]))
        #expect(NodeBuilder.textBlockLeaf(Self.facts(ATSPI_ROLE_LABEL, "Name:"), heading: false)?.traits == TraitSet([.staticText]))
        #expect(NodeBuilder.textBlockLeaf(Self.facts(ATSPI_ROLE_LABEL), heading: false) == nil, "no name: its pieces are kept")
        #expect(NodeBuilder.textBlockLeaf(Self.facts(ATSPI_ROLE_LABEL, "GtkLabel"), heading: false) == nil)
    }

    @Test func aTapPerformsTheFirstPrimaryActionElseTheOnlyOne() {
        #expect(NodeBuilder.primaryAction(["SetFocus", "Press"], editable: false) == 1)
        #expect(NodeBuilder.primaryAction(["expand or collapse", "activate", "click"], editable: false) == 2)
        #expect(NodeBuilder.primaryAction(["doDefault"], editable: false) == 0)
        #expect(NodeBuilder.primaryAction(["scroll", "doDefault"], editable: false) == 1, "matched whatever its case")
        #expect(NodeBuilder.primaryAction(["expand or collapse"], editable: false) == 0)
        #expect(NodeBuilder.primaryAction(["win.close"], editable: false) == nil, "a toolkit's internal action is not a tap")
        #expect(NodeBuilder.primaryAction(["clickAncestor"], editable: false) == nil, "Gecko's click of whatever is above")
        #expect(NodeBuilder.primaryAction(["activate"], editable: true) == nil, "a field is focused, not submitted")
        #expect(NodeBuilder.primaryAction([], editable: false) == nil)
    }

    @Test func aButtonsOtherActionsAreItsCustomActionsOnce() {
        let c = NodeBuilder.control(Self.facts(ATSPI_ROLE_PUSH_BUTTON, "Open"), kind: .control,
                                    actions: ["click", "SetFocus", "menu", "menu", "app.quit"], traits: TraitSet([.button]), label: "Open")
        #expect(c.primaryAction == 0)
        #expect(c.node.customActions == ["menu"])
        #expect(c.node.isElement && c.node.traits == TraitSet([.button]) && c.node.respondsToUserInteraction == nil)
        #expect(c.reading == nil)
    }

    @Test func aControlWithoutActionsIsClicked() {
        // GTK 4's check boxes and list rows have no actions.
        let c = NodeBuilder.control(Self.facts(ATSPI_ROLE_CHECK_BOX, "Bold"), kind: .control, actions: [], traits: TraitSet([.button]), label: "Bold")
        #expect(c.primaryAction == nil && c.node.respondsToUserInteraction == true)
        let insensitive = NodeBuilder.control(Self.facts(ATSPI_ROLE_PUSH_BUTTON, "Undo", states: Self.states(ATSPI_STATE_SHOWING)),
                                              kind: .control, actions: ["click"], traits: TraitSet([.button]), label: "Undo")
        #expect(insensitive.node.traits == TraitSet([.button, .notEnabled]))
    }

    @Test func aFieldsTextIsReadWithTheOthersButAPasswordsNever() {
        let entry = NodeBuilder.control(Self.facts(ATSPI_ROLE_ENTRY, "Name"), kind: .textEntry, actions: ["activate", "copy"],
                                        traits: TraitSet([]), label: "Name", textEntry: .line, looksLikeSearch: true)
        #expect(entry.primaryAction == nil)
        #expect(entry.node.customActions == ["copy"], "activate would submit the field")
        #expect(entry.node.textEntry == .line && entry.node.respondsToUserInteraction == true)
        #expect(entry.node.traits == TraitSet([.searchField]))
        guard case .text = entry.reading else { Issue.record("a field's text is read: \(String(describing: entry.reading))"); return }
        let password = NodeBuilder.control(Self.facts(ATSPI_ROLE_PASSWORD_TEXT, "Password"), kind: .textEntry, actions: [],
                                           traits: TraitSet([]), label: "Password", textEntry: .password)
        #expect(password.reading == nil, "a password's text is never read")
        #expect(password.node.textEntry == .password)
        // LibreOffice's document body: never sensitive, its text in its paragraphs.
        let body = NodeBuilder.control(Self.facts(ATSPI_ROLE_DOCUMENT_TEXT, "", states: Self.states(ATSPI_STATE_SHOWING)),
                                       kind: .textEntry, actions: [], traits: TraitSet([]), label: "document", textEntry: .text)
        #expect(body.reading == nil && !body.node.traits.contains(.notEnabled))
    }

    @Test func anAdjustablesValueIsReadWithTheOthers() {
        let slider = NodeBuilder.control(Self.facts(ATSPI_ROLE_SLIDER, "Volume"), kind: .adjustable, actions: [],
                                         traits: TraitSet([]), label: "Volume")
        guard case .value(let role, let acts) = slider.reading else { Issue.record("no value read"); return }
        #expect(role == ATSPI_ROLE_SLIDER && !acts)
        #expect(slider.node.respondsToUserInteraction == nil, "its value decides")
    }

    @Test func aHintIsADescriptionThatSaysMoreThanTheLabel() {
        let button = { (d: String?) in
            NodeBuilder.control(Self.facts(ATSPI_ROLE_PUSH_BUTTON, "Save"), kind: .control, actions: ["click"], traits: TraitSet([.button]),
                                label: "Save", description: d).node.hint
        }
        #expect(button("Save the document") == "Save the document")
        #expect(button("Save") == nil)
        #expect(button("") == nil)
        #expect(button(nil) == nil)
        let cell = NodeBuilder.control(Self.facts(ATSPI_ROLE_TABLE_CELL, "3"), kind: .control, actions: ["activate"], traits: TraitSet([.button]),
                                       label: "3", description: "row 2").node
        #expect(cell.hint == nil, "a table cell's description is not a hint")
    }
}

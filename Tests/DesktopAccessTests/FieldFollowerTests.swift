@testable import DesktopAccess
import Testing

/// The rules of the field the keyboard types into, without a display: when its text is
/// read and when it counts as left.
@Suite struct FieldFollowerTests {
    @Test func aFieldFollowedIsReadAtOnceAndABurstOfTextEventsOnce() {
        var f = FieldFollower()
        #expect(f.follow("name") == [.readLater])
        #expect(f.textChanged("name") == [], "a read is on its way: it reads what the events made")
        #expect(f.readDue() == "name")
        #expect(f.textChanged("name") == [.readLater])
        #expect(f.textChanged("name") == [])
        #expect(f.textChanged("other") == [], "another field's text is not followed")
        #expect(f.readDue() == "name")
        #expect(f.follow(nil) == [])
        #expect(f.textChanged("name") == [])
        #expect(f.readDue() == nil)
    }

    @Test func anotherElementTakingTheFocusLeavesTheField() {
        var f = FieldFollower()
        _ = f.follow("name")
        var asked = 0
        #expect(f.focusChanged(on: "name") { asked += 1; return true } == [], "its own focus: kept")
        #expect(f.focusChanged(on: "ok") { asked += 1; return false } == [], "another that lost the focus: kept")
        #expect(f.focusChanged(on: "ok") { asked += 1; return true } == [.left])
        #expect(asked == 2, "the states are asked only where they decide")
        #expect(f.field == nil)
        #expect(f.focusChanged(on: "cancel") { true } == [], "nothing followed: nothing left")
    }

    /// A snapshot without the field leaves it only once the field says it lost the focus: a
    /// field whose window shows its suggestions keeps the focus, and an application that
    /// says nothing is no answer.
    @Test func aFieldNotShownIsLeftOnlyWhenItLostTheFocus() {
        var f = FieldFollower()
        _ = f.follow("search")
        var asked = false
        #expect(f.shown(containing: { $0 == "search" }, focused: { asked = true; return false }) == [])
        #expect(!asked, "shown: the states are not asked")
        #expect(f.shown(containing: { _ in false }, focused: { true }) == [], "suggestions over it: it keeps the focus")
        #expect(f.shown(containing: { _ in false }, focused: { nil }) == [], "no answer: kept")
        #expect(f.field == "search")
        #expect(f.shown(containing: { _ in false }, focused: { false }) == [.left])
        #expect(f.field == nil)
    }

    /// The host's leave (an application answering again after a stall) closes the keyboard
    /// whether it typed into a field or into the window; forgetting says nothing.
    @Test func theHostsLeaveClosesTheKeyboardAndForgettingSaysNothing() {
        var f = FieldFollower()
        _ = f.follow("body")
        #expect(f.leave() == [.left])
        #expect(f.field == nil)
        #expect(f.leave() == [.left], "a keyboard typing into the window, with no field followed")
        _ = f.follow("body")
        f.forget()
        #expect(f.field == nil)
        #expect(f.focusChanged(on: "ok") { true } == [] && f.shown(containing: { _ in false }, focused: { false }) == [])
    }
}

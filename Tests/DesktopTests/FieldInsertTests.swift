@testable import DesktopAccess
import ScanCore
import Testing

/// When the keyboard's text may go into a field through AT-SPI insert, when the keys sent
/// before it have arrived, and what an insert did, decided from the field's reads.
@Suite("Field insert")
struct FieldInsertTests {
    @Test func onlyToolkitsWhoseInsertActsAsTypingAreUsed() {
        #expect(FieldTyping.insertWorks(toolkit: "GTK", version: "3.24.38"))
        #expect(FieldTyping.insertWorks(toolkit: "Qt", version: "5.15.8"))
        #expect(FieldTyping.insertWorks(toolkit: "Qt", version: "6.4.2"))
        #expect(!FieldTyping.insertWorks(toolkit: "Qt", version: "5.12.1"))
        #expect(!FieldTyping.insertWorks(toolkit: "GTK", version: "4.8.3"))
        #expect(!FieldTyping.insertWorks(toolkit: "Gecko", version: "115.0"))
        #expect(!FieldTyping.insertWorks(toolkit: "", version: ""))
    }

    @Test func theTextExpectedFollowsTheKeysSent() {
        var f = FieldTyping()
        f.expected = "Hi "
        f.note(.deleted(1), at: ScanInstant(nanoseconds: 10))
        f.note(.typed(". "), at: ScanInstant(nanoseconds: 11))
        #expect(f.expected == "Hi. " && f.keysInFlight && f.lastKeyAt == ScanInstant(nanoseconds: 11))
        // Backspaces past the start of a field known whole delete nothing more.
        f.note(.deleted(9), at: ScanInstant(nanoseconds: 12))
        #expect(f.expected == "")
        // Enter, arrows, shortcuts: what they do to the text cannot be told.
        f.note(.other, at: ScanInstant(nanoseconds: 13))
        #expect(f.expected == nil)
        f.note(.typed("a"), at: ScanInstant(nanoseconds: 14))
        #expect(f.expected == nil)
        // Of a long text only its end is read: Backspaces beyond it leave the rest unknown.
        var long = FieldTyping()
        long.expected = String(repeating: "x", count: Atspi.textBeforeCaretLimit)
        long.note(.deleted(Atspi.textBeforeCaretLimit + 1), at: ScanInstant(nanoseconds: 1))
        #expect(long.expected == nil)
    }

    @Test func theKeysHaveArrivedWhenTheFieldShowsWhatTheyMake() {
        var f = FieldTyping()
        let field = FieldState(count: 3, caret: 3, selected: false)
        #expect(f.keysArrived(field, textBeforeCaret: "Hi ", previous: nil, at: ScanInstant(nanoseconds: 0)), "nothing sent")
        f.expected = "Hi "
        f.note(.deleted(1), at: ScanInstant(nanoseconds: 1_000_000_000))
        // The Backspace has not arrived yet.
        #expect(!f.keysArrived(field, textBeforeCaret: "Hi ", previous: nil, at: ScanInstant(nanoseconds: 1_001_000_000)))
        #expect(f.keysArrived(FieldState(count: 2, caret: 2, selected: false), textBeforeCaret: "Hi", previous: nil, at: ScanInstant(nanoseconds: 1_001_000_000)))
        // Text selected: typing would replace it, so the text alone does not tell.
        #expect(!f.keysArrived(FieldState(count: 2, caret: 2, selected: true), textBeforeCaret: "Hi", previous: nil, at: ScanInstant(nanoseconds: 1_001_000_000)))
        // Where the text cannot be told: the field unchanged from 100 ms after the last key.
        f.note(.other, at: ScanInstant(nanoseconds: 2_000_000_000))
        let after = FieldState(count: 3, caret: 0, selected: false)
        #expect(!f.keysArrived(after, textBeforeCaret: nil, previous: after, at: ScanInstant(nanoseconds: 2_050_000_000)))
        #expect(!f.keysArrived(after, textBeforeCaret: nil, previous: field, at: ScanInstant(nanoseconds: 2_150_000_000)))
        #expect(f.keysArrived(after, textBeforeCaret: nil, previous: after, at: ScanInstant(nanoseconds: 2_150_000_000)))
    }

    @Test func aLongTextIsComparedByItsEnd() {
        let limit = Atspi.textBeforeCaretLimit
        let read = String(repeating: "a", count: limit - 1) + "b"
        #expect(FieldTyping.same(read, "zz" + read))
        #expect(!FieldTyping.same("ab", "zzab"), "a short read is the whole text")
        #expect(!FieldTyping.same(read, String(repeating: "a", count: limit + 5)))
    }

    @Test func anInsertCountsOnlyWhenTheFieldReadsBackItsText() {
        let before = FieldState(count: 4, caret: 4, selected: false)
        let grown = FieldState(count: 7, caret: 7, selected: false)
        #expect(FieldTyping.outcome(of: "abc", before: before, after: grown, readBack: "abc") == .inserted)
        // "é" is one character, two bytes.
        #expect(FieldTyping.outcome(of: "é", before: before, after: FieldState(count: 5, caret: 5, selected: false), readBack: "é") == .inserted)
        // The application said yes and inserted nothing: keys.
        #expect(FieldTyping.outcome(of: "abc", before: before, after: before, readBack: "") == .useKeys)
        // Something else happened (cut short, changed): not typed again.
        #expect(FieldTyping.outcome(of: "abc", before: before, after: FieldState(count: 5, caret: 5, selected: false), readBack: "a") == .unconfirmed)
        #expect(FieldTyping.outcome(of: "abc", before: before, after: grown, readBack: "abd") == .unconfirmed)
        #expect(FieldTyping.outcome(of: "abc", before: before, after: nil, readBack: nil) == .unconfirmed)
    }
}

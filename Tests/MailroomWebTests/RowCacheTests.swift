import HTTP
import MailroomCore
import Testing
@testable import MailroomWeb

/// Rows come from the row cache only while they still show their message as it is: every page
/// here has an address of its own (`n=`), so it is rendered rather than answered whole from the
/// page cache, and its rows are the cached ones wherever they can be.
@Suite struct RowCacheTests {
    let inbox: TestApp

    init() throws {
        inbox = try TestApp("Alpha", "Bravo", "Charlie")
    }

    @Test func aRenderedPageTakesItsRowsFromTheCacheByteForByte() throws {
        let first = try inbox.get("/mailboxes/inbox?n=1").html
        let second = try inbox.get("/mailboxes/inbox?n=2").html
        for subject in ["Alpha", "Bravo", "Charlie"] {
            let row = try #require(first.row(inbox.id(subject)))
            #expect(second.row(inbox.id(subject)) == row)
            #expect(row.contains(subject))
        }
        #expect(first.rowIDs == inbox.ids("Alpha", "Bravo", "Charlie"))
        #expect(second.rowIDs == first.rowIDs)
    }

    @Test func aChangedMessageIsRenderedAgainAndTheOthersStay() throws {
        let before = try inbox.get("/mailboxes/inbox?n=1").html
        let bravo = inbox.id("Bravo")
        #expect(try #require(before.row(bravo)).contains("class=\"row unread\""))
        let flagged = try inbox.post("/mailboxes/inbox", [("mode", "active"), ("selected", bravo.description), ("action", "flag")])
        #expect(flagged.code == 303)
        let after = try inbox.get("/mailboxes/inbox?n=2").html
        let row = try #require(after.row(bravo))
        #expect(row.contains("class=\"row unread flagged\""))
        #expect(row.contains("Flagged"))
        #expect(after.row(inbox.id("Alpha")) == before.row(inbox.id("Alpha")))
        #expect(after.row(inbox.id("Charlie")) == before.row(inbox.id("Charlie")))
    }

    @Test func editModeRowsFollowTheirTicksFromOnePageToTheNext() throws {
        let alpha = inbox.id("Alpha")
        let ticked = try inbox.get("/mailboxes/inbox?mode=active&selected=\(alpha)&n=1").html
        #expect(ticked.checkedIDs == [alpha.description])
        let unticked = try inbox.get("/mailboxes/inbox?mode=active&n=2").html
        #expect(unticked.checkedIDs.isEmpty)
        #expect(unticked.checkboxes.count == 3)
        let again = try inbox.get("/mailboxes/inbox?mode=active&selected=\(alpha)&n=3").html
        #expect(again.row(alpha) == ticked.row(alpha))
        // The browsing rows were not replaced by the editing ones.
        let browsing = try inbox.get("/mailboxes/inbox?n=4").html
        #expect(browsing.checkboxes.isEmpty)
        #expect(try #require(browsing.row(alpha)).contains("href=\"/messages/\(alpha)\""))
    }

    @Test func aConfirmationIsNeverKeptInPlaceOfItsRow() throws {
        let bravo = inbox.id("Bravo")
        let browsing = try inbox.get("/mailboxes/inbox?n=1").html
        let confirming = try inbox.get("/mailboxes/inbox?mode=transient&row=\(bravo)&n=2").html
        #expect(try #require(confirming.row(bravo)).contains("confirming"))
        let after = try inbox.get("/mailboxes/inbox?n=3").html
        #expect(after.row(bravo) == browsing.row(bravo))
        #expect(!after.contains("confirming"))
    }

    @Test func aSearchShowsTheRowsItFindsFromTheSameCache() throws {
        _ = try inbox.get("/mailboxes/inbox?n=1")
        let found = try inbox.get("/mailboxes/inbox?q=bravo&n=2").html
        #expect(found.rowIDs == inbox.ids("Bravo"))
    }
}

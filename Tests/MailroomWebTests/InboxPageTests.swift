import HTTP
import MailroomCore
import Testing

/// The inbox as each edit mode renders it, from the URL alone.
struct InboxPageTests {
    let inbox: TestApp

    init() throws {
        inbox = try TestApp("Alpha", "Bravo", "Charlie")
    }

    // MARK: Inactive

    @Test func theInactivePageListsEveryRowTopToBottom() throws {
        let page = try inbox.get("/mailboxes/inbox")
        #expect(page.code == 200)
        #expect(page.html.rowIDs == inbox.ids("Alpha", "Bravo", "Charlie"))
        #expect(page.html.content(of: "h1") == "Inbox")
        #expect(page.html.content(of: "title") == "Inbox — Mailroom")
        #expect(page.html.contains("3 messages, 3 unread"))
    }

    @Test func theInactivePageHasAnEditLinkIntoActiveMode() throws {
        let html = try inbox.get("/mailboxes/inbox").html
        let edit = try #require(html.tag(id: "edit"))
        #expect(edit.hasPrefix("<a "))
        #expect(edit.attribute("href") == "/mailboxes/inbox?mode=active")
        #expect(!edit.has("disabled"))
        #expect(html.tag(id: "done") == nil)
    }

    @Test func inactiveRowsLinkToTheirMessage() throws {
        let html = try inbox.get("/mailboxes/inbox").html
        for subject in ["Alpha", "Bravo", "Charlie"] {
            let id = inbox.id(subject)
            let row = try #require(html.row(id))
            #expect(row.tags("a").first?.attribute("href") == "/messages/\(id)")
            #expect(row.contains(subject))
            // The swipe-to-delete link opens this row's confirmation.
            #expect(row.contains("href=\"/mailboxes/inbox?mode=transient&amp;row=\(id)\""))
        }
    }

    @Test func theInactivePageHasTheAddFormButNoCheckboxesOrToolbar() throws {
        let html = try inbox.get("/mailboxes/inbox").html
        let addForm = try #require(html.tag(id: "add-form"))
        #expect(addForm.attribute("method") == "post")
        #expect(addForm.attribute("action") == "/mailboxes/inbox")
        #expect(html.contains("<input type=\"hidden\" name=\"action\" value=\"add\">"))
        #expect(html.checkboxes.isEmpty)
        #expect(html.tag(id: "toolbar") == nil)
        #expect(!html.contains("Select All"))
    }

    @Test func aHeadRequestRendersTheSamePage() throws {
        let head = try inbox.head("/mailboxes/inbox")
        #expect(head.code == 200)
        #expect(head.contentType == "text/html; charset=utf-8")
    }

    // MARK: Active

    @Test func activeModeTicksExactlyTheSelectedRows() throws {
        let (alpha, charlie) = (inbox.id("Alpha"), inbox.id("Charlie"))
        let html = try inbox.get("/mailboxes/inbox?mode=active&selected=\(alpha)&selected=\(charlie)").html
        #expect(html.checkboxes.map(\.value) == inbox.ids("Alpha", "Bravo", "Charlie"))
        #expect(html.checkedIDs == inbox.ids("Alpha", "Charlie"))
        #expect(try #require(html.row(alpha)).contains("class=\"row unread selected\""))
        #expect(try #require(html.row(inbox.id("Bravo"))).contains("class=\"row unread\""))
    }

    @Test func activeModeShowsTheCountInTheHeadingAndTitle() throws {
        let html = try inbox.get("/mailboxes/inbox?mode=active&selected=\(inbox.id("Bravo"))&selected=\(inbox.id("Alpha"))").html
        #expect(html.content(of: "h1") == "2 Selected")
        #expect(html.content(of: "title") == "2 Selected — Inbox — Mailroom")
        #expect(html.buttonText(action: "delete") == "Delete (2)")
    }

    @Test func activeModeShowsTheToolbarAndNoLinksToMessages() throws {
        let html = try inbox.get("/mailboxes/inbox?mode=active").html
        #expect(html.tag(id: "toolbar") != nil)
        #expect(!html.contains("/messages/"))
        #expect(html.tag(id: "add-form") == nil)
        #expect(html.contains("<input type=\"hidden\" name=\"mode\" value=\"active\">"))
    }

    @Test func theDoneLinkGoesBackToThePlainInbox() throws {
        let html = try inbox.get("/mailboxes/inbox?mode=active&selected=\(inbox.id("Alpha"))").html
        let done = try #require(html.tag(id: "done"))
        #expect(done.attribute("href") == "/mailboxes/inbox")
        #expect(html.tag(id: "edit") == nil)
    }

    /// Which rows are ticked, and what the toolbar then says.
    @Test(arguments: [
        ([], "Select All", "0 Selected", "Delete (0)"),
        (["Bravo"], "Select All", "1 Selected", "Delete (1)"),
        (["Alpha", "Charlie"], "Select All", "2 Selected", "Delete (2)"),
        (["Alpha", "Bravo", "Charlie"], "Deselect All", "3 Selected", "Delete (3)"),
    ] as [([String], String, String, String)])
    func theToolbarFollowsTheSelection(ticked: [String], selectButton: String, heading: String, delete: String) throws {
        let query = ticked.map { "&selected=\(inbox.id($0))" }.joined()
        let html = try inbox.get("/mailboxes/inbox?mode=active" + query).html
        let selectAction = selectButton == "Select All" ? "select-all" : "deselect-all"
        let otherAction = selectButton == "Select All" ? "deselect-all" : "select-all"
        #expect(html.buttonText(action: selectAction) == selectButton)
        #expect(html.buttonText(action: otherAction) == nil)
        #expect(html.content(of: "h1") == heading)
        #expect(html.buttonText(action: "delete") == delete)
        let deleteButton = try #require(html.tag(id: "action-delete"))
        // Ticks made since the page loaded are known only to the browser: the server never says
        // a bulk button is disabled, since pressing it may act.
        #expect(deleteButton.attribute("aria-disabled") == nil)
        #expect(!html.contains("aria-disabled"))
    }

    @Test func theToolbarOffersTheOppositeOfWhatTheTickedRowsAre() throws {
        let bravo = inbox.id("Bravo")
        for action in ["mark-read", "flag"] {
            _ = try inbox.post("/mailboxes/inbox", [("mode", "active"), ("selected", bravo.description), ("action", action)])
        }
        let onlyBravo = try inbox.get("/mailboxes/inbox?mode=active&selected=\(bravo)").html
        #expect(onlyBravo.buttonText(action: "mark-unread") == "Mark Unread")
        #expect(onlyBravo.buttonText(action: "unflag") == "Unflag")
        #expect(onlyBravo.buttonText(action: "mark-read") == nil)
        let withAlpha = try inbox.get("/mailboxes/inbox?mode=active&selected=\(bravo)&selected=\(inbox.id("Alpha"))").html
        #expect(withAlpha.buttonText(action: "mark-read") == "Mark Read")
        #expect(withAlpha.buttonText(action: "flag") == "Flag")
    }

    @Test func unknownSelectedIDsAreDroppedFromTheRender() throws {
        let bravo = inbox.id("Bravo")
        let html = try inbox.get("/mailboxes/inbox?mode=active&selected=\(bravo)&selected=424242").html
        #expect(html.checkedIDs == [bravo.description])
        #expect(!html.contains("424242"))
        #expect(html.content(of: "h1") == "1 Selected")
        #expect(html.buttonText(action: "delete") == "Delete (1)")
    }

    @Test func selectionOutsideActiveModeIsIgnored() throws {
        let html = try inbox.get("/mailboxes/inbox?selected=\(inbox.id("Alpha"))").html
        #expect(html.checkboxes.isEmpty)
        #expect(html.content(of: "h1") == "Inbox")
    }

    @Test func editingRowsOfferMoveAndDeleteWithTheEdgesDisabled() throws {
        let html = try inbox.get("/mailboxes/inbox?mode=active").html
        let top = try #require(html.row(inbox.id("Alpha")))
        let bottom = try #require(html.row(inbox.id("Charlie")))
        let up = try #require(top.tags("button").first { $0.attribute("name") == "move-up" })
        let down = try #require(bottom.tags("button").first { $0.attribute("name") == "move-down" })
        #expect(up.has("disabled"))
        #expect(down.has("disabled"))
        let middle = try #require(html.row(inbox.id("Bravo")))
        #expect(middle.tags("button").filter { $0.has("disabled") }.isEmpty)
        #expect(middle.tags("button").contains { $0.attribute("name") == "delete" && $0.attribute("value") == inbox.id("Bravo").description })
    }

    // MARK: Transient

    @Test func transientModeOpensOneRowsConfirmation() throws {
        let bravo = inbox.id("Bravo")
        let html = try inbox.get("/mailboxes/inbox?mode=transient&row=\(bravo)").html
        let row = try #require(html.row(bravo))
        #expect(row.contains("confirming"))
        let confirm = try #require(row.tags("button").first { $0.attribute("name") == "delete" })
        #expect(confirm.attribute("value") == bravo.description)
        #expect(row.contains(">Delete</button>"))
        #expect(row.contains("<a class=\"button\" href=\"/mailboxes/inbox\">Cancel</a>"))
        // The post returns to the same state.
        #expect(row.contains("<input type=\"hidden\" name=\"mode\" value=\"transient\">"))
        #expect(row.contains("<input type=\"hidden\" name=\"row\" value=\"\(bravo)\">"))
        #expect(!row.contains("/messages/\(bravo)"))
    }

    @Test func transientModeLeavesTheOtherRowsAsLinks() throws {
        let html = try inbox.get("/mailboxes/inbox?mode=transient&row=\(inbox.id("Bravo"))").html
        for subject in ["Alpha", "Charlie"] {
            let row = try #require(html.row(inbox.id(subject)))
            #expect(!row.contains("confirming"))
            #expect(row.contains("href=\"/messages/\(inbox.id(subject))\""))
        }
        #expect(html.occurrences(of: "confirming") == 1)
        #expect(html.checkboxes.isEmpty)
        #expect(html.tag(id: "toolbar") == nil)
    }

    @Test func transientModeHeaderReadsDone() throws {
        let html = try inbox.get("/mailboxes/inbox?mode=transient&row=\(inbox.id("Alpha"))").html
        let done = try #require(html.tag(id: "done"))
        #expect(html.contains(">Done</a>"))
        #expect(done.attribute("href") == "/mailboxes/inbox")
        #expect(html.tag(id: "edit") == nil)
        #expect(html.content(of: "h1") == "Inbox")
    }

    @Test func aTransientRowThatNoLongerExistsRendersInactive() throws {
        let html = try inbox.get("/mailboxes/inbox?mode=transient&row=424242").html
        #expect(!html.contains("confirming"))
        #expect(html.tag(id: "edit")?.attribute("href") == "/mailboxes/inbox?mode=active")
        #expect(html.tag(id: "add-form") != nil)
        #expect(html.tag(id: "done") == nil)
    }

    // MARK: Bad queries

    @Test(arguments: [
        ("?mode=editing", "Unknown mode"),
        ("?mode=ACTIVE", "Unknown mode"),
        ("?mode=active&selected=abc", "“abc” is not a message id"),
        ("?mode=active&selected=01", "“01” is not a message id"),
        ("?mode=active&selected=-1", "is not a message id"),
        ("?mode=transient", "mode=transient needs the row"),
        ("?mode=transient&row=x", "“x” is not a message id"),
    ])
    func aBadQueryIsA400PageThatSaysWhy(query: String, message: String) throws {
        let response = try inbox.get("/mailboxes/inbox" + query)
        #expect(response.code == 400)
        #expect(response.contentType == "text/html; charset=utf-8")
        #expect(response.html.hasPrefix("<!DOCTYPE html>"))
        #expect(response.html.content(of: "h1") == "400 Bad Request")
        #expect(response.html.contains(message))
        #expect(response.html.contains("href=\"/mailboxes/inbox\""))
    }

    // MARK: Notices and dates

    @Test(arguments: [
        ("?done=added", "Message added."),
        ("?done=deleted&n=1", "1 message moved to Trash."),
        ("?done=deleted&n=3&gone=1", "3 messages moved to Trash. 1 was already gone."),
        ("?mode=active&done=nothing-selected", "Select one or more messages first."),
    ])
    func aNoticeInTheURLIsShownAsStatus(query: String, text: String) throws {
        let html = try inbox.get("/mailboxes/inbox" + query).html
        #expect(html.contains("<div class=\"notice\" role=\"status\" id=\"notice\"><span>\(text)</span>"))
    }

    @Test func anUnknownNoticeIsIgnored() throws {
        let html = try inbox.get("/mailboxes/inbox?done=hacked").html
        #expect(!html.contains("class=\"notice\""))
    }

    @Test func rowsShowTheTimeTodayTheDayThisYearAndTheYearBefore() throws {
        let dated = try TestApp(
            subjects: ["Today", "Yesterday", "Last year"],
            times: ["Today": fixedNow, "Yesterday": 1_764_235_800, "Last year": 1_732_780_800])
        let html = try dated.get("/mailboxes/inbox").html
        #expect(try #require(html.row(dated.id("Today"))).contains(">14:05</time>"))
        #expect(try #require(html.row(dated.id("Yesterday"))).contains(">Nov 27</time>"))
        #expect(try #require(html.row(dated.id("Last year"))).contains(">Nov 28, 2024</time>"))
        #expect(try #require(html.row(dated.id("Today"))).contains("datetime=\"2025-11-28T14:05:00Z\""))
    }
}

/// A mailbox with nothing in it cannot be edited.
struct EmptyInboxTests {
    let inbox: TestApp

    init() throws {
        inbox = try TestApp()
    }

    @Test(arguments: ["", "?mode=active", "?mode=active&selected=1", "?mode=transient&row=1"])
    func anEmptyMailboxShowsTheEmptyStateWithEditDisabled(query: String) throws {
        let response = try inbox.get("/mailboxes/inbox" + query)
        #expect(response.code == 200)
        let html = response.html
        #expect(html.tag(id: "empty") != nil)
        #expect(html.contains("No messages"))
        let edit = try #require(html.tag(id: "edit"))
        #expect(edit.hasPrefix("<button "))
        #expect(edit.has("disabled"))
        #expect(html.tag(id: "done") == nil)
        #expect(html.tag(id: "toolbar") == nil)
        #expect(!html.contains("mode=active"))
        #expect(html.content(of: "h1") == "Inbox")
        #expect(html.content(of: "title") == "Inbox — Mailroom")
    }

    @Test func anEmptyMailboxOpensTheAddForm() throws {
        let html = try inbox.get("/mailboxes/inbox").html
        #expect(html.contains("<details class=\"compose\" id=\"compose\" open>"))
    }
}

import MailroomCore
import Testing

/// DESIGN.md §2 "Deleting loses nothing", through the real server and the pages' own forms.
@Suite struct TrashAndUndoTests {
    /// Inbox 1…5 (2 and 4 read; 3 and 4 flagged), Archive 6, Projects (100) 7 and 8.
    static func server() throws -> TestServer {
        try TestServer(library: TestServer.library(
            inbox: ["Alpha", "Bravo", "Charlie", "Delta", "Echo"], archive: ["Old"],
            custom: [("Projects", ["Plan", "Budget"])], read: [2, 4], flagged: [3, 4]))
    }

    // MARK: Undo

    @Test func bulkDeleteThenUndoPutsTheInboxBackExactlyAsItWas() throws {
        let server = try Self.server()
        let tab = server.browser()
        try tab.get("/mailboxes/inbox")
        try tab.follow(linkID: "edit")
        let before = try #require(server.library[.inbox])

        let deleted = try tab.press(("action", "delete"), ticking: [1, 3, 4])
        #expect(tab.redirects.map(\.status) == [303])
        #expect(deleted.notice == "3 messages moved to Trash.")
        #expect(tab.queryIDs("undo") == [1, 3, 4])
        #expect(deleted.rowIDs == [2, 5])
        #expect(deleted.hasToolbar)
        #expect(server.ids(in: .trash) == [1, 3, 4])
        let undo = try #require(deleted.undoForm)
        #expect(deleted.element(id: "undo").map(deleted.text(of:)) == "Undo")
        #expect(undo.action == "/mailboxes/inbox")
        // One hidden field names them all, as compactly as the URL does.
        #expect(undo.values("id").count == 1)
        #expect(undo.ids("id") == [1, 3, 4])

        let undone = try tab.submit(undo)
        #expect(tab.redirects.map(\.status) == [303])
        #expect(undone.notice == "3 messages put back.")
        #expect(undone.undoForm == nil)
        #expect(undone.rowIDs == [1, 2, 3, 4, 5])
        #expect(undone.hasToolbar)
        #expect(server.library[.inbox] == before)
        #expect(server.library[.trash]?.isEmpty == true)
        // The flags came back with them.
        #expect(undone.rowIDs.filter { undone.rowClasses($0).contains("flagged") } == [3, 4])
        #expect(undone.rowIDs.filter { undone.rowClasses($0).contains("unread") } == [1, 3, 5])

        // Reloading the page after Undo changes nothing more.
        try tab.reload()
        #expect(server.library[.inbox] == before)
    }

    @Test func aRowsDeleteInEditModeOffersUndo() throws {
        let server = try Self.server()
        let tab = server.browser()
        try tab.get("/mailboxes/inbox?mode=active")
        let before = server.library

        let deleted = try tab.press(("delete", "3"), ticking: [1])
        #expect(deleted.notice == "1 message moved to Trash.")
        #expect(deleted.rowIDs == [1, 2, 4, 5])
        #expect(deleted.checkedIDs == [1])
        let undone = try tab.submit(try #require(deleted.undoForm))
        #expect(undone.notice == "1 message put back.")
        #expect(undone.rowIDs == [1, 2, 3, 4, 5])
        #expect(undone.checkedIDs == [1])
        #expect(server.library == before)
    }

    @Test func aConfirmedSwipeOffersUndo() throws {
        let server = try Self.server()
        let tab = server.browser()
        let inbox = try tab.get("/mailboxes/inbox")
        let before = server.library
        try tab.get(try #require(inbox.deleteLink(ofRow: 5)))

        let deleted = try tab.submit(try #require(tab.page.form(class: "confirm")), pressing: ("delete", "5"))
        #expect(deleted.notice == "1 message moved to Trash.")
        #expect(deleted.editButtonText == "Edit")
        let undone = try tab.submit(try #require(deleted.undoForm))
        #expect(undone.rowIDs == [1, 2, 3, 4, 5])
        #expect(server.library == before)
    }

    @Test func theMessagePagesDeleteOffersUndo() throws {
        let server = try Self.server()
        let tab = server.browser()
        try tab.get("/messages/4")
        let before = server.library

        let inbox = try tab.submit(try #require(tab.page.form(class: "bar-actions")), pressing: ("action", "delete"))
        #expect(tab.currentURL == "/mailboxes/inbox?done=deleted&n=1&undo=4")
        #expect(inbox.notice == "1 message moved to Trash.")
        #expect(inbox.rowIDs == [1, 2, 3, 5])
        let undone = try tab.submit(try #require(inbox.undoForm))
        #expect(undone.rowIDs == [1, 2, 3, 4, 5])
        #expect(server.library == before)
    }

    // MARK: Trash

    @Test func trashListsTheDeletedMessagesAndRestoreReturnsThemToTheirOldPlaces() throws {
        let server = try Self.server()
        let tab = server.browser()
        let before = server.library
        try tab.get("/mailboxes/inbox?mode=active")
        try tab.press(("action", "delete"), ticking: [2, 4])
        try tab.get("/mailboxes/100?mode=active")
        try tab.press(("delete", "8"))

        let trash = try tab.follow(linkID: "done")
        #expect(trash.heading == "Projects")
        let listed = try tab.get(try #require(trash.sidebar.first { $0.slug == "trash" }?.href))
        #expect(listed.heading == "Trash")
        #expect(listed.rowIDs == [8, 2, 4])
        #expect(listed.form(id: "add-form") == nil)
        #expect(listed.element(id: "empty-trash") != nil)

        let editing = try tab.follow(linkID: "edit")
        #expect(editing.toolbarButtonText("restore") == "Restore")
        #expect(editing.toolbarButtonText("delete") == "Delete Permanently (0)")
        #expect(editing.toolbarButtonText("archive") == nil)
        #expect(editing.form(id: "edit-form")?.options("target") == ["inbox", "archive", "100"])

        // One row's Restore, then the rest with the toolbar's.
        let one = try tab.press(("restore", "8"), ticking: [2])
        #expect(one.notice == "1 message put back.")
        #expect(one.rowIDs == [2, 4])
        #expect(one.checkedIDs == [2])
        #expect(server.library[MailboxID(rawValue: 100)] == before[MailboxID(rawValue: 100)])

        let rest = try tab.press(("action", "restore"), ticking: [4])
        #expect(rest.notice == "2 messages put back.")
        #expect(rest.isEmptyState)
        #expect(server.library == before)
    }

    @Test func deletePermanentlyInTrashRemovesMessagesForGood() throws {
        let server = try Self.server()
        let tab = server.browser()
        try tab.get("/mailboxes/inbox?mode=active")
        try tab.press(("action", "delete"), ticking: [1, 2, 3])

        try tab.get("/mailboxes/trash?mode=active")
        let bulk = try tab.press(("action", "delete"), ticking: [1, 3])
        #expect(bulk.notice == "2 messages deleted permanently.")
        #expect(bulk.undoForm == nil)
        #expect(bulk.rowIDs == [2])
        #expect(server.library.message(MessageID(1)) == nil)
        #expect(server.library.message(MessageID(3)) == nil)
        try tab.get("/messages/1")
        #expect(tab.status == 404)

        // A swipe in Trash says what it does.
        let trash = try tab.get("/mailboxes/trash")
        let confirming = try tab.get(try #require(trash.deleteLink(ofRow: 2)))
        let confirm = try #require(confirming.form(class: "confirm"))
        #expect(confirm.buttons.map(\.text) == ["Delete Permanently"])
        let emptied = try tab.submit(confirm, pressing: ("delete", "2"))
        #expect(emptied.notice == "1 message deleted permanently.")
        #expect(emptied.isEmptyState)
        #expect(server.library.message(MessageID(2)) == nil)
        #expect(server.ids(in: .inbox) == [4, 5])
    }

    @Test func emptyTrashAsksOnAPageOfItsOwnAndCancelChangesNothing() throws {
        let server = try Self.server()
        let tab = server.browser()
        try tab.get("/mailboxes/inbox?mode=active")
        try tab.press(("action", "delete"), ticking: [1, 5])
        let before = server.library

        try tab.get("/mailboxes/trash")
        let asking = try tab.follow(linkID: "empty-trash")
        #expect(tab.currentURL == "/mailboxes/trash/empty")
        #expect(tab.status == 200)
        #expect(asking.heading == "Empty Trash?")
        #expect(asking.text(of: try #require(asking.element(id: "confirm-question")))
            == "2 messages in Trash will be deleted permanently. This cannot be undone.")
        #expect(server.library == before)

        let back = try tab.follow(linkID: "cancel")
        #expect(tab.currentURL == "/mailboxes/trash")
        #expect(back.rowIDs == [1, 5])
        #expect(server.library == before)
    }

    @Test func emptyTrashWithoutConfirmIsRefusedAndWithItEmptiesTrash() throws {
        let server = try Self.server()
        let tab = server.browser()
        try tab.get("/mailboxes/inbox?mode=active")
        try tab.press(("action", "delete"), ticking: [1, 5])
        let before = server.library

        let refused = try tab.post("/mailboxes/trash/empty", fields: [])
        #expect(tab.status == 400)
        #expect(refused.heading == "400 Bad Request")
        #expect(server.library == before)
        try tab.post("/mailboxes/trash/empty", fields: [("confirm", "no")])
        #expect(tab.status == 400)
        #expect(server.library == before)

        try tab.get("/mailboxes/trash/empty")
        let emptied = try tab.submit(try #require(tab.page.form(class: "confirm")))
        #expect(tab.redirects.map(\.status) == [303])
        #expect(tab.currentURL == "/mailboxes/trash?done=emptied&n=2")
        #expect(emptied.notice == "Trash emptied: 2 messages deleted permanently.")
        #expect(emptied.isEmptyState)
        #expect(server.library[.trash]?.isEmpty == true)
        #expect(server.ids(in: .inbox) == [2, 3, 4])
        #expect(server.ids(in: .archive) == [6])
        #expect(server.ids(in: MailboxID(rawValue: 100)) == [7, 8])
    }

    // MARK: A failed save

    struct DiskFull: Error, CustomStringConvertible {
        var description: String { "disk full" }
    }

    @Test func aDeleteThatCannotBeSavedIsA500PageAndChangesNothing() throws {
        let library = TestServer.library(inbox: ["Alpha", "Bravo", "Charlie"])
        let server = try TestServer(library: library) { throw DiskFull() }
        let tab = server.browser()
        try tab.get("/mailboxes/inbox?mode=active")

        let page = try tab.press(("action", "delete"), ticking: [1, 2])
        #expect(tab.status == 500)
        #expect(tab.redirects.isEmpty)
        #expect(tab.response.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.heading == "500 Internal Server Error")
        #expect(page.elements(class: "error-message").first.map(page.text(of:))?.contains("nothing was changed") == true)
        #expect(page.links.contains("/mailboxes/inbox"))
        #expect(server.library == library)
        #expect(try tab.get("/mailboxes/inbox").rowIDs == [1, 2, 3])
    }
}

import HTTP
import MailroomCore
import MailroomWeb
import Synchronization
import Testing

/// DESIGN.md §2 "Deleting loses nothing": Delete moves messages to Trash and offers Undo; Trash
/// offers Restore and Delete Permanently; Empty Trash asks first.
struct TrashAndUndoTests {
    let app: TestApp
    /// The library as it was before any request.
    let original: Library

    init() throws {
        // Ids: Alpha 1 … Echo 5 in the Inbox, Old 6 in Archive, Plan 7 and Budget 8 in Projects (100).
        original = makeLibrary(
            inbox: ["Alpha", "Bravo", "Charlie", "Delta", "Echo"], archive: ["Old"],
            custom: [("Projects", ["Plan", "Budget"])], read: ["Bravo", "Delta"], flagged: ["Charlie", "Delta"])
        app = try TestApp(library: original)
    }

    private static let projects = MailboxID(rawValue: 100)

    private func id(_ subject: String) -> MessageID { app.anyID(subject) }

    /// The fields of edit mode with `subjects` ticked.
    private func active(_ subjects: String...) -> [(String, String)] {
        [("mode", "active")] + subjects.map { ("selected", id($0).description) }
    }

    private func ids(_ subjects: String...) -> [MessageID] { subjects.map { id($0) } }

    /// Follows `response`'s redirect and presses the Undo button of the page it leads to.
    private func pressUndo(after response: Response, sourceLocation: SourceLocation = #_sourceLocation) throws -> Response {
        let page = try app.get(try #require(response.location, sourceLocation: sourceLocation))
        let form = try #require(page.html.form(class: "undo"), "no Undo on \(response.location ?? "")",
                                sourceLocation: sourceLocation)
        return try app.post(form.action, form.fields)
    }

    // MARK: Delete offers Undo

    @Test func bulkDeleteMovesTheTickedMessagesToTrashAndOffersUndo() throws {
        let response = try app.post("/mailboxes/inbox", active("Bravo", "Delta") + [("action", "delete")])
        #expect(response.code == 303)
        #expect(try response.redirect() == Redirect("/mailboxes/inbox?mode=active&done=deleted&n=2", undo: ids("Bravo", "Delta")))
        #expect(app.subjects(in: .inbox) == ["Alpha", "Charlie", "Echo"])
        #expect(app.subjects(in: .trash) == ["Bravo", "Delta"])
        // Each remembers where it was.
        // Each remembers the mailbox it came from (its place there is its old rank, in the store).
        #expect(app.library[.trash]?.messages.map(\.origin?.mailbox) == [.inbox, .inbox])

        let html = try app.get(try #require(response.location)).html
        #expect(html.noticeText == "2 messages moved to Trash.")
        let undo = try #require(html.form(class: "undo"))
        #expect(undo.action == "/mailboxes/inbox")
        #expect(undo.fields.map(\.0) == ["mode", "action", "id"])
        #expect(undo.fields.dropLast().map { "\($0.0)=\($0.1)" } == ["mode=active", "action=undo"])
        // One hidden field names them all, in the compact form of the URLs.
        let undoIDs = try #require(undo.fields.last?.1)
        #expect(decodeIDList(undoIDs) == ids("Bravo", "Delta"))
        #expect(encodeIDList(ids("Bravo", "Delta")) == undoIDs)
        #expect(html.tag(id: "undo")?.hasPrefix("<button type=\"submit\"") == true)
        #expect(html.contains(">Undo</button>"))
    }

    /// Whatever was deleted, Undo puts every message back at its old place with the same flags.
    @Test(arguments: [["Alpha"], ["Echo"], ["Bravo", "Delta"], ["Alpha", "Charlie", "Echo"],
                      ["Alpha", "Bravo", "Charlie", "Delta", "Echo"]])
    func undoPutsEveryMessageBackExactlyAsItWas(deleted: [String]) throws {
        let fields = [("mode", "active")] + deleted.map { ("selected", id($0).description) } + [("action", "delete")]
        let response = try app.post("/mailboxes/inbox", fields)
        #expect(app.library[.inbox]?.count == 5 - deleted.count)

        let undone = try pressUndo(after: response)
        #expect(undone.code == 303)
        let mode = deleted.count == 5 ? "" : "mode=active&"
        #expect(undone.location == "/mailboxes/inbox?\(mode)done=restored&n=\(deleted.count)")
        #expect(app.library[.inbox]?.messages == original[.inbox]?.messages)
        #expect(app.library == original)
        let html = try app.get(try #require(undone.location)).html
        #expect(html.noticeText == (deleted.count == 1 ? "1 message put back." : "\(deleted.count) messages put back."))
        #expect(html.form(class: "undo") == nil)
    }

    @Test func aRowsDeleteInEditModeOffersUndo() throws {
        let response = try app.post("/mailboxes/inbox", active("Alpha") + [("delete", id("Charlie").description)])
        #expect(try response.redirect() == Redirect("/mailboxes/inbox?mode=active&done=deleted&n=1", selected: ids("Alpha"), undo: ids("Charlie")))
        #expect(app.subjects(in: .trash) == ["Charlie"])

        let undone = try pressUndo(after: response)
        // The ticks the page had when Undo was pressed come back too.
        #expect(try undone.redirect() == Redirect("/mailboxes/inbox?mode=active&done=restored&n=1", selected: ids("Alpha")))
        #expect(app.library == original)
    }

    @Test func aConfirmedSwipeOffersUndo() throws {
        let charlie = id("Charlie").description
        let response = try app.post("/mailboxes/inbox", [("mode", "transient"), ("row", charlie), ("delete", charlie)])
        #expect(try response.redirect() == Redirect("/mailboxes/inbox?done=deleted&n=1", undo: ids("Charlie")))
        let undone = try pressUndo(after: response)
        #expect(undone.location == "/mailboxes/inbox?done=restored&n=1")
        #expect(app.library == original)
    }

    @Test func theMessagePagesDeleteOffersUndo() throws {
        let delta = id("Delta")
        let response = try app.post("/messages/\(delta)", [("action", "delete")])
        #expect(response.code == 303)
        #expect(try response.redirect() == Redirect("/mailboxes/inbox?done=deleted&n=1", undo: [delta]))
        #expect(app.subjects(in: .trash) == ["Delta"])
        _ = try pressUndo(after: response)
        #expect(app.library == original)
    }

    @Test func deletingFromAMailboxOfOnesOwnOffersUndoThere() throws {
        let budget = id("Budget")
        let response = try app.post("/messages/\(budget)", [("action", "delete")])
        #expect(try response.redirect() == Redirect("/mailboxes/100?done=deleted&n=1", undo: [budget]))
        let undone = try pressUndo(after: response)
        #expect(undone.location == "/mailboxes/100?done=restored&n=1")
        #expect(app.library == original)
    }

    @Test func undoOfMessagesNoLongerInTrashSaysTheyAreGone() throws {
        let response = try app.post("/mailboxes/inbox", [("action", "undo"), ("id", id("Alpha").description), ("id", "424242")])
        #expect(response.code == 303)
        #expect(response.location == "/mailboxes/inbox?done=restored&gone=2")
        #expect(try app.get(try #require(response.location)).html.noticeText == "0 messages put back. 2 were already gone.")
        #expect(app.library == original)
    }

    @Test(arguments: [[("action", "undo")], [("action", "undo"), ("id", "x")], [("action", "undo"), ("id", "")],
                      [("action", "undo"), ("id", "1,x")], [("action", "undo"), ("id", "2-1")]] as [[(String, String)]])
    func undoWithoutValidIDsIsA400(fields: [(String, String)]) throws {
        let response = try app.post("/mailboxes/inbox", fields)
        #expect(response.code == 400)
        #expect(app.library == original)
    }

    // MARK: Trash

    @Test func trashListsTheDeletedMessagesWithRestoreAndDeletePermanently() throws {
        _ = try app.post("/mailboxes/inbox", active("Bravo") + [("action", "delete")])
        _ = try app.post("/mailboxes/100", active("Plan") + [("action", "delete")])
        #expect(app.subjects(in: .trash) == ["Plan", "Bravo"])

        let browsing = try app.get("/mailboxes/trash")
        #expect(browsing.code == 200)
        #expect(browsing.html.content(of: "h1") == "Trash")
        #expect(browsing.html.content(of: "title") == "Trash — Mailroom")
        #expect(browsing.html.rowIDs == [id("Plan").description, id("Bravo").description])
        #expect(browsing.html.tag(id: "add-form") == nil)
        #expect(browsing.html.tag(id: "empty-trash")?.attribute("href") == "/mailboxes/trash/empty")

        let editing = try app.get("/mailboxes/trash?mode=active&selected=\(id("Bravo"))").html
        #expect(editing.buttonText(action: "restore") == "Restore")
        #expect(editing.buttonText(action: "delete") == "Delete Permanently (1)")
        #expect(editing.buttonText(action: "archive") == nil)
        let row = try #require(editing.row(id("Plan")))
        #expect(row.tags("button").contains { $0.attribute("name") == "restore" && $0.attribute("value") == id("Plan").description })
        #expect(!row.contains("move-up"))
        let targets = editing.tags("option").compactMap { $0.attribute("value") }
        #expect(targets == ["inbox", "archive", "100"])
    }

    @Test func restoreReturnsEveryMessageToTheMailboxItCameFromAtItsOldOffset() throws {
        _ = try app.post("/mailboxes/inbox", active("Bravo", "Echo") + [("action", "delete")])
        _ = try app.post("/mailboxes/archive", active("Old") + [("action", "delete")])
        _ = try app.post("/mailboxes/100", [("mode", "active"), ("delete", id("Budget").description)])
        _ = try app.post("/mailboxes/inbox", active("Alpha") + [("action", "delete")])
        #expect(app.subjects(in: .trash) == ["Alpha", "Budget", "Old", "Bravo", "Echo"])

        let everything = ["Alpha", "Budget", "Old", "Bravo", "Echo"]
        let response = try app.post("/mailboxes/trash", [("mode", "active")] + everything.map { ("selected", id($0).description) }
            + [("action", "restore")])
        #expect(response.code == 303)
        #expect(response.location == "/mailboxes/trash?done=restored&n=5")
        #expect(app.library == original)
        #expect(try app.get(try #require(response.location)).html.noticeText == "5 messages put back.")
    }

    /// Delete one message, then another, then restore both at once: the Inbox is as it was.
    @Test func restoringMessagesDeletedOneAfterAnotherPutsThemBackInTheirOldOrder() throws {
        _ = try app.post("/mailboxes/inbox", active("Alpha") + [("action", "delete")])
        _ = try app.post("/mailboxes/inbox", active("Bravo") + [("action", "delete")])
        #expect(app.subjects(in: .trash) == ["Bravo", "Alpha"])

        let response = try app.post("/mailboxes/trash", active("Alpha", "Bravo") + [("action", "restore")])
        #expect(response.location == "/mailboxes/trash?done=restored&n=2")
        #expect(app.subjects(in: .inbox) == ["Alpha", "Bravo", "Charlie", "Delta", "Echo"])
        #expect(app.library == original)
    }

    @Test func restoringOneRowOrFromTheMessagePagePutsBackOnlyThatMessage() throws {
        _ = try app.post("/mailboxes/inbox", active("Bravo", "Delta") + [("action", "delete")])

        let row = try app.post("/mailboxes/trash", [("mode", "active"), ("restore", id("Bravo").description)])
        #expect(row.code == 303)
        #expect(row.location == "/mailboxes/trash?mode=active&done=restored&n=1")
        #expect(app.subjects(in: .inbox) == ["Alpha", "Bravo", "Charlie", "Echo"])
        #expect(app.subjects(in: .trash) == ["Delta"])

        let page = try app.get("/messages/\(id("Delta"))?keep=unread")
        #expect(page.html.tag(id: "back")?.attribute("href") == "/mailboxes/trash")
        #expect(page.html.buttonText(action: "restore") == "Restore")
        #expect(page.html.buttonText(action: "delete") == "Delete Permanently")
        let message = try app.post("/messages/\(id("Delta"))", [("action", "restore")])
        #expect(message.location == "/mailboxes/trash?done=restored&n=1")
        #expect(app.library == original)
    }

    /// Two messages deleted together; the lower one is restored first, on its own.
    @Test func restoringTheLaterOfTwoMessagesDeletedTogetherPutsItBetweenItsOldNeighbours() throws {
        _ = try app.post("/mailboxes/inbox", active("Bravo", "Delta") + [("action", "delete")])
        #expect(app.subjects(in: .inbox) == ["Alpha", "Charlie", "Echo"])

        _ = try app.post("/mailboxes/trash", [("mode", "active"), ("restore", id("Delta").description)])
        #expect(app.subjects(in: .inbox) == ["Alpha", "Charlie", "Delta", "Echo"])
        _ = try app.post("/mailboxes/trash", [("mode", "active"), ("restore", id("Bravo").description)])
        #expect(app.library == original)
    }

    @Test func restoringAMessageThatIsNotInTrashSaysItIsGone() throws {
        let response = try app.post("/mailboxes/trash", [("restore", id("Alpha").description)])
        #expect(response.location == "/mailboxes/trash?done=gone")
        #expect(app.library == original)
    }

    @Test func deletePermanentlyInTrashRemovesThemForGood() throws {
        _ = try app.post("/mailboxes/inbox", active("Alpha", "Bravo", "Delta") + [("action", "delete")])
        let (alpha, bravo, delta) = (id("Alpha"), id("Bravo"), id("Delta"))

        let bulk = try app.post("/mailboxes/trash", active("Bravo", "Delta") + [("action", "delete")])
        #expect(bulk.code == 303)
        #expect(bulk.location == "/mailboxes/trash?mode=active&done=destroyed&n=2")
        #expect(app.subjects(in: .trash) == ["Alpha"])
        #expect(app.library.message(bravo) == nil)
        #expect(app.library.message(delta) == nil)
        #expect(try app.get("/messages/\(bravo)").code == 404)
        let html = try app.get(try #require(bulk.location)).html
        #expect(html.noticeText == "2 messages deleted permanently.")
        #expect(html.form(class: "undo") == nil)

        // Nothing can bring them back.
        let undo = try app.post("/mailboxes/inbox", [("action", "undo"), ("id", bravo.description)])
        #expect(undo.location == "/mailboxes/inbox?done=restored&gone=1")
        #expect(app.subjects(in: .inbox) == ["Charlie", "Echo"])

        let row = try app.post("/mailboxes/trash", [("mode", "transient"), ("row", alpha.description), ("delete", alpha.description)])
        #expect(row.location == "/mailboxes/trash?done=destroyed&n=1")
        #expect(app.library[.trash]?.isEmpty == true)
        #expect(app.library.message(alpha) == nil)

        // Ids are never reused.
        _ = try app.post("/mailboxes/inbox", [("action", "add"), ("subject", "Foxtrot")])
        #expect(app.anyID("Foxtrot") == MessageID(9))
    }

    @Test func theMessagePagesDeleteInTrashIsPermanent() throws {
        _ = try app.post("/mailboxes/inbox", active("Echo") + [("action", "delete")])
        let echo = id("Echo")
        let response = try app.post("/messages/\(echo)", [("action", "delete")])
        #expect(response.location == "/mailboxes/trash?done=destroyed&n=1")
        #expect(app.library.message(echo) == nil)
    }

    @Test func addingToTrashIsRefused() throws {
        _ = try app.post("/mailboxes/inbox", active("Echo") + [("action", "delete")])
        let before = app.library
        let response = try app.post("/mailboxes/trash", [("action", "add"), ("subject", "Sneaky")])
        #expect((400..<500).contains(response.code))
        #expect(response.html.contains("Trash"))
        #expect(app.library == before)
    }

    // MARK: Empty Trash

    /// Bravo and Old in Trash.
    private func fillTrash() throws {
        _ = try app.post("/mailboxes/inbox", active("Bravo") + [("action", "delete")])
        _ = try app.post("/mailboxes/archive", active("Old") + [("action", "delete")])
    }

    @Test func emptyTrashFirstShowsAConfirmationPageAndChangesNothing() throws {
        try fillTrash()
        let before = app.library
        for response in [try app.get("/mailboxes/trash/empty"), try app.head("/mailboxes/trash/empty")] {
            #expect(response.code == 200)
            #expect(response.contentType == "text/html; charset=utf-8")
        }
        let html = try app.get("/mailboxes/trash/empty").html
        #expect(html.content(of: "h1") == "Empty Trash?")
        #expect(html.contains("2 messages in Trash will be deleted permanently."))
        let form = try #require(html.form(class: "confirm"))
        #expect(form.action == "/mailboxes/trash/empty")
        #expect(form.fields.map { "\($0.0)=\($0.1)" } == ["confirm=yes"])
        #expect(html.tag(id: "cancel")?.attribute("href") == "/mailboxes/trash")
        #expect(app.library == before)
    }

    @Test(arguments: [[], [("confirm", "no")], [("confirm", "")], [("action", "empty")]] as [[(String, String)]])
    func emptyTrashWithoutConfirmIsA400AndChangesNothing(fields: [(String, String)]) throws {
        try fillTrash()
        let before = app.library
        let response = try app.post("/mailboxes/trash/empty", fields)
        #expect(response.code == 400)
        #expect(response.html.content(of: "h1") == "400 Bad Request")
        #expect(app.library == before)
    }

    @Test func emptyTrashWithConfirmDeletesEverythingInTrashAndNothingElse() throws {
        try fillTrash()
        let response = try app.post("/mailboxes/trash/empty", [("confirm", "yes")])
        #expect(response.code == 303)
        #expect(response.location == "/mailboxes/trash?done=emptied&n=2")
        #expect(app.library[.trash]?.isEmpty == true)
        #expect(app.subjects(in: .inbox) == ["Alpha", "Charlie", "Delta", "Echo"])
        #expect(app.subjects(in: .archive) == [])
        #expect(app.subjects(in: Self.projects) == ["Plan", "Budget"])
        let html = try app.get(try #require(response.location)).html
        #expect(html.noticeText == "Trash emptied: 2 messages deleted permanently.")
        #expect(html.tag(id: "empty") != nil)
        #expect(html.tag(id: "empty-trash") == nil)
    }
}

/// A change that cannot be stored is not made: the post answers 500 with a page, and the library stays.
struct SaveFailureTests {
    struct DiskFull: Error, CustomStringConvertible {
        var description: String { "disk full" }
    }

    /// Counts the commits tried, so a test knows the failure really happened there.
    final class Attempts: Sendable {
        let count = Mutex(0)
    }

    static let posts: [(String, [(String, String)])] = [
        ("/mailboxes/inbox", [("mode", "active"), ("selected", "1"), ("selected", "2"), ("action", "delete")]),
        ("/mailboxes/inbox", [("mode", "active"), ("selected", "1"), ("action", "archive")]),
        ("/mailboxes/inbox", [("mode", "active"), ("selected", "1"), ("action", "flag")]),
        ("/mailboxes/inbox", [("action", "add"), ("subject", "New")]),
        ("/mailboxes/inbox", [("action", "undo"), ("id", "4")]),
        ("/mailboxes/trash", [("restore", "4")]),
        ("/mailboxes/trash", [("mode", "active"), ("selected", "4"), ("action", "delete")]),
        ("/mailboxes/trash/empty", [("confirm", "yes")]),
        ("/messages/2", [("action", "delete")]),
        ("/messages/2", [("action", "save"), ("subject", "Changed"), ("body", "")]),
        ("/mailboxes", [("action", "create"), ("name", "Receipts")]),
        ("/mailboxes", [("action", "rename"), ("mailbox", "100"), ("name", "Plans")]),
        ("/mailboxes/100/delete", [("confirm", "yes")]),
    ]

    @Test(arguments: posts)
    func aPostWhoseSaveFailsIsA500PageAndChangesNothing(target: String, fields: [(String, String)]) throws {
        // Alpha 1, Bravo 2, Charlie 3 in the Inbox; Delta 4 in Trash (from the Inbox); Plan 5 in Projects.
        var library = makeLibrary(inbox: ["Alpha", "Bravo", "Charlie", "Delta"], custom: [("Projects", ["Plan"])])
        try library.move([MessageID(4)], from: .inbox, to: .trash)
        let attempts = Attempts()
        let app = try TestApp(library: library) {
            attempts.count.withLock { $0 += 1 }
            throw DiskFull()
        }

        let response = try app.post(target, fields)
        #expect(response.code == 500)
        #expect(response.contentType == "text/html; charset=utf-8")
        #expect(response.html.hasPrefix("<!DOCTYPE html>"))
        #expect(response.html.content(of: "h1") == "500 Internal Server Error")
        #expect(response.html.contains("could not save this change, so nothing was changed"))
        #expect(response.html.contains("href=\"/mailboxes/inbox\""))
        #expect(attempts.count.withLock { $0 } == 1)
        #expect(app.library.mailboxes.map(\.messages).map { $0.map(\.id) } == library.mailboxes.map(\.ids))
        #expect(app.library.summaries == library.summaries)
        // The pages still show the library as it was.
        #expect(try app.get("/mailboxes/inbox").html.rowIDs == ["1", "2", "3"])
    }
}

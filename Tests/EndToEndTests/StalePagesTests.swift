import MailroomCore
import Testing

/// Two people, two tabs: a page rendered before someone else's change acts only on what still
/// exists, never on what it did not show, and says what it could not do.
@Suite struct StalePagesTests {
    @Test func aStaleBulkDeleteActsOnlyOnTheMessagesThatStillExistAndSaysSo() throws {
        let server = try TestServer(messages: 5)
        let alice = server.browser()
        let bob = server.browser()
        try alice.get("/mailboxes/inbox?mode=active")
        var form = try #require(alice.page.form(id: "edit-form"))
        for id in [1, 2, 3] { try form.tick(id) }

        // Meanwhile Bob deletes message 2 with a swipe.
        try bob.get("/mailboxes/inbox?mode=transient&row=2")
        try bob.submit(try #require(bob.page.form(class: "confirm")), pressing: ("delete", "2"))
        #expect(server.ids(in: .trash) == [2])

        let page = try alice.submit(form, pressing: ("action", "delete"))
        #expect(alice.status == 200)
        #expect(page.notice == "2 messages moved to Trash. 1 was already gone.")
        #expect(page.rowIDs == [4, 5])
        #expect(page.hasToolbar)
        #expect(server.ids(in: .inbox) == [4, 5])
        #expect(server.ids(in: .trash) == [1, 3, 2])
        // Alice's Undo offers back what she deleted, and only that.
        #expect(alice.queryIDs("undo") == [1, 3])
        let undone = try alice.submit(try #require(page.undoForm))
        #expect(undone.notice == "2 messages put back.")
        #expect(server.ids(in: .inbox) == [1, 3, 4, 5])
        #expect(server.ids(in: .trash) == [2])
    }

    @Test func aStaleArchiveActsOnlyOnTheMessagesThatStillExistAndSaysSo() throws {
        let server = try TestServer(messages: 4)
        let alice = server.browser()
        let bob = server.browser()
        try alice.get("/mailboxes/inbox?mode=active")
        var form = try #require(alice.page.form(id: "edit-form"))
        for id in [1, 2] { try form.tick(id) }

        try bob.get("/mailboxes/inbox?mode=active")
        try bob.press(("delete", "2"))

        let page = try alice.submit(form, pressing: ("action", "archive"))
        #expect(page.notice == "1 message moved to Archive. 1 was already gone.")
        #expect(page.rowIDs == [3, 4])
        #expect(server.ids(in: .archive) == [1])
        #expect(server.ids(in: .trash) == [2])
    }

    @Test func aStaleMoveToActsOnlyOnTheMessagesStillInThisMailbox() throws {
        let server = try TestServer(messages: 4)
        let alice = server.browser()
        let bob = server.browser()
        try alice.get("/mailboxes/inbox?mode=active")
        var form = try #require(alice.page.form(id: "edit-form"))
        for id in [1, 3, 4] { try form.tick(id) }

        // Bob archives 3; it still exists, but no longer in the Inbox that Alice is looking at.
        try bob.get("/mailboxes/inbox?mode=active")
        try bob.press(("action", "archive"), ticking: [3])
        #expect(server.ids(in: .archive) == [3])

        try form.choose("archive", in: "target")
        let page = try alice.submit(form, pressing: ("action", "move-to"))
        #expect(page.notice == "2 messages moved to Archive. 1 was already gone.")
        #expect(server.ids(in: .archive) == [1, 4, 3])
        #expect(server.ids(in: .inbox) == [2])
    }

    @Test func aSelectAllRenderedBeforeAnotherBrowserAddsDoesNotDeleteTheNewMessage() throws {
        let server = try TestServer(messages: 3)
        let alice = server.browser()
        let bob = server.browser()
        try alice.get("/mailboxes/inbox?mode=active")
        let all = try alice.press(("action", "select-all"))
        #expect(all.checkedIDs == [1, 2, 3])

        try bob.addMessage(subject: "Bob's news")
        #expect(server.ids(in: .inbox) == [4, 1, 2, 3])

        let page = try alice.press(("action", "delete"))
        #expect(page.notice == "3 messages moved to Trash.")
        #expect(page.rowIDs == [4])
        #expect(!page.isChecked(4))
        #expect(server.ids(in: .inbox) == [4])
        #expect(server.ids(in: .trash) == [1, 2, 3])
        #expect(alice.queryIDs("undo") == [1, 2, 3])
    }

    @Test func moveUpOnARowAnotherBrowserDeletedSaysSoAndChangesNothing() throws {
        let server = try TestServer(messages: 3)
        let alice = server.browser()
        let bob = server.browser()
        try alice.get("/mailboxes/inbox?mode=active")
        var form = try #require(alice.page.form(id: "edit-form"))
        try form.tick(1)

        try bob.get("/mailboxes/inbox?mode=active")
        try bob.press(("delete", "2"))
        let before = server.library

        let page = try alice.submit(form, pressing: ("move-up", "2"))
        #expect(alice.status == 200)
        #expect(page.notice == "That message was already deleted or moved.")
        #expect(page.rowIDs == [1, 3])
        #expect(page.checkedIDs == [1])
        #expect(page.hasToolbar)
        #expect(server.library == before)
    }

    @Test func undoAfterAnotherBrowserRestoredTheSameMessagesReportsThemGone() throws {
        let server = try TestServer(messages: 4)
        let alice = server.browser()
        let bob = server.browser()
        try alice.get("/mailboxes/inbox?mode=active")
        let deleted = try alice.press(("action", "delete"), ticking: [2, 3])
        let undo = try #require(deleted.undoForm)

        // Bob restores both from Trash before Alice presses Undo.
        try bob.get("/mailboxes/trash?mode=active")
        let restored = try bob.press(("action", "restore"), ticking: [2, 3])
        #expect(restored.notice == "2 messages put back.")
        #expect(server.ids(in: .inbox) == [1, 2, 3, 4])
        let before = server.library

        let page = try alice.submit(undo)
        #expect(alice.status == 200)
        #expect(page.notice == "0 messages put back. 2 were already gone.")
        #expect(page.rowIDs == [1, 2, 3, 4])
        #expect(server.library == before)
    }

    @Test func undoAfterAnotherBrowserRestoredSomeOfThemPutsBackTheRest() throws {
        let server = try TestServer(messages: 4)
        let alice = server.browser()
        let bob = server.browser()
        try alice.get("/mailboxes/inbox?mode=active")
        let deleted = try alice.press(("action", "delete"), ticking: [2, 3])

        try bob.get("/mailboxes/trash?mode=active")
        try bob.press(("restore", "3"))

        let page = try alice.submit(try #require(deleted.undoForm))
        #expect(page.notice == "1 message put back. 1 was already gone.")
        #expect(server.ids(in: .inbox) == [1, 2, 3, 4])
        #expect(server.library[.trash]?.isEmpty == true)
    }

    @Test func undoAfterAnotherBrowserEmptiedTrashReportsThemGone() throws {
        let server = try TestServer(messages: 3)
        let alice = server.browser()
        let bob = server.browser()
        try alice.get("/mailboxes/inbox?mode=active")
        let deleted = try alice.press(("action", "delete"), ticking: [1])

        try bob.get("/mailboxes/trash/empty")
        try bob.submit(try #require(bob.page.form(class: "confirm")))
        #expect(server.library.message(MessageID(1)) == nil)

        let page = try alice.submit(try #require(deleted.undoForm))
        #expect(page.notice == "0 messages put back. 1 was already gone.")
        #expect(server.ids(in: .inbox) == [2, 3])
    }
}

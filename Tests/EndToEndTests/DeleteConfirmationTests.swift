import Testing

/// Transient mode: the web form of swipe-to-delete, one row's confirmation at a time.
@Suite struct DeleteConfirmationTests {
    @Test func aRowsDeleteLinkOpensOnlyThatRowsConfirmationAndTheHeaderReadsDone() throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo", "Charlie"])
        let tab = server.browser()
        let inbox = try tab.get("/mailboxes/inbox")
        #expect(inbox.confirmingRowIDs.isEmpty)

        let confirming = try tab.get(try #require(inbox.deleteLink(ofRow: 2)))
        #expect(tab.queryValues("mode") == ["transient"])
        #expect(tab.queryValues("row") == ["2"])
        #expect(confirming.editButtonText == "Done")
        #expect(confirming.confirmingRowIDs == [2])
        #expect(confirming.rowClasses(2).contains("confirming"))
        #expect(!confirming.rowClasses(1).contains("confirming"))
        // The other rows stay ordinary rows; no toolbar, no checkboxes.
        #expect(confirming.messageLinks == ["/messages/1", "/messages/3"])
        #expect(!confirming.hasToolbar)
        #expect(!confirming.hasCheckboxes)
        #expect(server.mailbox.count == 3)
    }

    @Test func openingAnotherRowsConfirmationClosesTheFirst() throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo", "Charlie"])
        let tab = server.browser()
        try tab.get("/mailboxes/inbox?mode=transient&row=2")

        let other = try tab.get(try #require(tab.page.deleteLink(ofRow: 3)))
        #expect(other.confirmingRowIDs == [3])
        #expect(!other.rowClasses(2).contains("confirming"))
        #expect(tab.queryValues("row") == ["3"])
    }

    @Test func cancelClosesTheConfirmation() throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo", "Charlie"])
        let tab = server.browser()
        try tab.get("/mailboxes/inbox?mode=transient&row=2")

        let closed = try tab.get(try #require(tab.page.cancelLink))
        #expect(tab.currentURL == "/mailboxes/inbox")
        #expect(closed.confirmingRowIDs.isEmpty)
        #expect(closed.editButtonText == "Edit")
        #expect(closed.rowIDs == [1, 2, 3])
        #expect(server.mailbox.count == 3)
    }

    @Test func confirmingDeletesThatRowAndReturnsToBrowsing() throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo", "Charlie"])
        let tab = server.browser()
        try tab.get("/mailboxes/inbox?mode=transient&row=2")
        let form = try #require(tab.page.form(class: "confirm"))

        let after = try tab.submit(form, pressing: ("delete", "2"))
        #expect(tab.redirects.map(\.status) == [303])
        #expect(after.rowIDs == [1, 3])
        #expect(after.notice == "1 message moved to Trash.")
        #expect(after.confirmingRowIDs.isEmpty)
        #expect(after.editButtonText == "Edit")
        #expect(tab.queryValues("mode").isEmpty)
        #expect(server.mailbox.ids.map(\.rawValue) == [1, 3])
    }

    @Test func doneClosesTheConfirmationWithoutDeleting() throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo", "Charlie"])
        let tab = server.browser()
        try tab.get("/mailboxes/inbox?mode=transient&row=2")

        let closed = try tab.follow(linkID: "done")
        #expect(tab.currentURL == "/mailboxes/inbox")
        #expect(closed.confirmingRowIDs.isEmpty)
        #expect(closed.editButtonText == "Edit")
        #expect(!closed.hasToolbar)
        #expect(closed.rowIDs == [1, 2, 3])
    }

    @Test func aConfirmationForARowDeletedElsewhereCloses() throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo"])
        let alice = server.browser()
        let bob = server.browser()
        try alice.get("/mailboxes/inbox?mode=transient&row=2")
        try bob.get("/mailboxes/inbox?mode=transient&row=2")
        try bob.submit(try #require(bob.page.form(class: "confirm")), pressing: ("delete", "2"))

        let stale = try alice.submit(try #require(alice.page.form(class: "confirm")), pressing: ("delete", "2"))
        #expect(alice.status == 200)
        #expect(stale.notice == "That message was already deleted or moved.")
        #expect(stale.rowIDs == [1])
        #expect(stale.confirmingRowIDs.isEmpty)
    }
}

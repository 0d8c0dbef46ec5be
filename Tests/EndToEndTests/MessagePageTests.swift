import Testing
import MailroomCore

/// One message's page: reading marks it read, and its buttons change only that message.
@Suite struct MessagePageTests {
    @Test func openingAMessageMarksItRead() throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo", "Charlie"])
        let tab = server.browser()
        let inbox = try tab.get("/mailboxes/inbox")
        #expect(inbox.rowClasses(2).contains("unread"))

        let page = try tab.get(try #require(inbox.messageLinks.first { $0 == "/messages/2" }))
        #expect(tab.status == 200)
        #expect(page.title == "Bravo — Mailroom")
        #expect(page.heading == "Bravo")
        #expect(Self.actions(page) == ["mark-unread", "flag", "archive", "delete"])
        #expect(server.mailbox.message(.init(2))?.isUnread == false)

        let back = try tab.follow(linkID: "back")
        #expect(!back.rowClasses(2).contains("unread"))
        #expect(back.rowClasses(1).contains("unread"))
        #expect(back.rowClasses(3).contains("unread"))
    }

    @Test func editingTheSubjectAndBodySavesThem() throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo"])
        let tab = server.browser()
        try tab.get("/messages/2")
        var form = try #require(tab.page.form(id: "save-form"))
        try form.fill("subject", with: "Bravo, edited")
        try form.fill("body", with: "Line one\nLine two")

        let page = try tab.submit(form)
        #expect(tab.redirects.map(\.status) == [303])
        #expect(tab.currentURL == "/messages/2?done=saved")
        #expect(page.notice == "Changes saved.")
        #expect(page.heading == "Bravo, edited")
        let body = try #require(page.elements(class: "message-body").first)
        #expect(page.tags(inside: body).filter { $0.name == "p" }.map(page.text(of:)) == ["Line one", "Line two"])
        #expect(try tab.get("/mailboxes/inbox").html.contains("Bravo, edited"))
    }

    @Test func savingAnEmptySubjectIsRefusedAndKeepsTheTypedBody() throws {
        let server = try TestServer(subjects: ["Alpha"])
        let tab = server.browser()
        try tab.get("/messages/1")
        var form = try #require(tab.page.form(id: "save-form"))
        try form.fill("subject", with: "")
        try form.fill("body", with: "New body")

        let page = try tab.submit(form)
        #expect(tab.status == 422)
        #expect(page.formErrors == ["Subject can't be empty."])
        #expect(page.form(id: "save-form")?.values("body") == ["New body"])
        #expect(server.mailbox.message(.init(1))?.subject == "Alpha")
        #expect(server.mailbox.message(.init(1))?.body == "")
    }

    @Test func markUnreadStaysUnreadAfterTheRedirectAndAReload() throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo"])
        let tab = server.browser()
        try tab.get("/messages/1")

        let page = try tab.submit(try #require(tab.page.form(class: "bar-actions")), pressing: ("action", "mark-unread"))
        #expect(tab.redirects.map(\.status) == [303])
        #expect(Self.actions(page) == ["mark-read", "flag", "archive", "delete"])
        #expect(Self.meta(page).contains("Unread"))
        #expect(server.mailbox.message(.init(1))?.isUnread == true)

        let reloaded = try tab.reload()
        #expect(Self.actions(reloaded) == ["mark-read", "flag", "archive", "delete"])
        #expect(server.mailbox.message(.init(1))?.isUnread == true)
        #expect(try tab.get("/mailboxes/inbox").rowClasses(1).contains("unread"))
    }

    /// Only opening a message marks it read. Flagging one that was just marked unread is not
    /// opening it, yet the redirect after Flag goes to the plain message URL, whose GET marks it read.
    @Test
    func flaggingAMessageJustMarkedUnreadKeepsItUnread() throws {
        let server = try TestServer(subjects: ["Alpha"])
        let tab = server.browser()
        try tab.get("/messages/1")
        try tab.submit(try #require(tab.page.form(class: "bar-actions")), pressing: ("action", "mark-unread"))
        #expect(server.mailbox.message(.init(1))?.isUnread == true)

        let flagged = try tab.submit(try #require(tab.page.form(class: "bar-actions")), pressing: ("action", "flag"))
        #expect(server.mailbox.message(.init(1))?.isFlagged == true)
        #expect(server.mailbox.message(.init(1))?.isUnread == true, "Flag marked the message read")
        #expect(Self.actions(flagged) == ["mark-read", "unflag", "archive", "delete"])
    }

    @Test func flagAndUnflagShowOnThePageAndInTheList() throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo"])
        let tab = server.browser()
        try tab.get("/messages/2")

        let flagged = try tab.submit(try #require(tab.page.form(class: "bar-actions")), pressing: ("action", "flag"))
        #expect(tab.currentURL == "/messages/2")
        #expect(Self.actions(flagged) == ["mark-unread", "unflag", "archive", "delete"])
        #expect(flagged.element(id: "message")?.classes.contains("flagged") == true)
        #expect(Self.meta(flagged).contains("Flagged"))
        #expect(try tab.get("/mailboxes/inbox").rowClasses(2).contains("flagged"))

        try tab.get("/messages/2")
        let unflagged = try tab.submit(try #require(tab.page.form(class: "bar-actions")), pressing: ("action", "unflag"))
        #expect(Self.actions(unflagged) == ["mark-unread", "flag", "archive", "delete"])
        #expect(server.mailbox.message(.init(2))?.isFlagged == false)
    }

    @Test func deleteReturnsToTheInboxWithANotice() throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo", "Charlie"])
        let tab = server.browser()
        try tab.get("/messages/2")

        let inbox = try tab.submit(try #require(tab.page.form(class: "bar-actions")), pressing: ("action", "delete"))
        #expect(tab.redirects.map(\.status) == [303])
        #expect(tab.currentURL.hasPrefix("/mailboxes/inbox"))
        #expect(tab.queryValues("mode").isEmpty)
        #expect(inbox.notice == "1 message moved to Trash.")
        #expect(tab.queryIDs("undo") == [2])
        #expect(inbox.undoForm != nil)
        #expect(inbox.rowIDs == [1, 3])

        // The message was moved, not destroyed: its page now shows it in Trash.
        let trashed = try tab.get("/messages/2")
        #expect(tab.status == 200)
        #expect(trashed.element(id: "back")?["href"] == "/mailboxes/trash")
        #expect(Self.actions(trashed) == ["mark-unread", "flag", "restore", "delete"])
    }

    @Test(arguments: ["/messages/99", "/messages/0", "/messages/abc", "/messages/-1", "/messages/01"])
    func anUnknownMessageIsA404Page(path: String) throws {
        let server = try TestServer(subjects: ["Alpha"])
        let tab = server.browser()
        let page = try tab.get(path)
        #expect(tab.status == 404)
        #expect(tab.response.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.heading == "404 Not Found")
        #expect(page.links.contains("/mailboxes/inbox"))
        #expect(server.mailbox.count == 1)
    }

    // MARK: Helpers

    /// The actions offered in the header, in order.
    private static func actions(_ page: Page) -> [String] {
        page.form(class: "bar-actions")?.buttons.map(\.value) ?? []
    }

    /// The line under the subject: author, date, Flagged, Unread.
    private static func meta(_ page: Page) -> String {
        page.elements(class: "message-meta").first.map(page.text(of:)) ?? ""
    }
}

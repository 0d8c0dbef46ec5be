import HTTP
import MailroomCore
import Testing

/// One message's page: reading marks it read, and its forms change it.
struct MessagePageTests {
    let inbox: TestApp
    let alpha: MessageID
    /// Alpha's page.
    let page: String

    init() throws {
        inbox = try TestApp(subjects: ["Alpha", "Bravo"], bodies: ["Alpha": "First line\nSecond <line>"])
        alpha = inbox.id("Alpha")
        page = "/messages/\(alpha)"
    }

    private func post(_ fields: [(String, String)]) throws -> Response {
        try inbox.post(page, fields)
    }

    @Test func openingAMessageShowsItAndMarksItRead() throws {
        #expect(inbox.message("Alpha")?.isUnread == true)
        let response = try inbox.get(page)
        #expect(response.code == 200)
        #expect(response.contentType == "text/html; charset=utf-8")
        #expect(response.html.content(of: "h1") == "Alpha")
        #expect(response.html.content(of: "title") == "Alpha — Mailroom")
        #expect(response.html.contains("<p>First line</p><p>Second &lt;line&gt;</p>"))
        #expect(inbox.message("Alpha")?.isUnread == false)
        #expect(inbox.message("Bravo")?.isUnread == true)
    }

    @Test func keepUnreadLeavesItUnread() throws {
        let response = try inbox.get(page + "?keep=unread")
        #expect(response.code == 200)
        #expect(inbox.message("Alpha")?.isUnread == true)
        #expect(response.html.buttonText(action: "mark-read") == "Mark Read")
    }

    @Test func aHeadRequestLeavesItUnread() throws {
        let response = try inbox.head(page)
        #expect(response.code == 200)
        #expect(inbox.message("Alpha")?.isUnread == true)
    }

    @Test func theMessagePageLinksBackToTheInbox() throws {
        let html = try inbox.get(page).html
        #expect(html.tag(id: "back")?.attribute("href") == "/mailboxes/inbox")
        #expect(html.tag(id: "save-form")?.attribute("action") == page)
    }

    @Test(arguments: ["/messages/424242", "/messages/abc", "/messages/01", "/messages/0", "/messages/", "/messages/-3"])
    func anUnknownMessageIs404(target: String) throws {
        let response = try inbox.get(target)
        #expect(response.code == 404)
        #expect(response.contentType == "text/html; charset=utf-8")
        #expect(response.html.content(of: "h1") == "404 Not Found")
    }

    @Test(arguments: ["save", "mark-read", "mark-unread", "flag", "unflag"])
    func postingToAnUnknownMessageIs404(action: String) throws {
        let response = try inbox.post("/messages/424242", [("action", action), ("subject", "S"), ("body", "")])
        #expect(response.code == 404)
    }

    // MARK: Saving

    /// Alpha starts unread: saving is not opening, so the redirect keeps it unread.
    @Test func savingEditsTheMessageAndRedirectsWithANotice() throws {
        let response = try post([("action", "save"), ("subject", " New subject "), ("body", "New body")])
        #expect(response.code == 303)
        #expect(response.location == page + "?keep=unread&done=saved")
        let message = try #require(inbox.mailbox.message(alpha))
        #expect(message.subject == "New subject")
        #expect(message.body == "New body")
        #expect(try inbox.get(try #require(response.location)).html.contains("Changes saved."))
    }

    @Test(arguments: [
        ("", "Typed body", "Subject can't be empty."),
        ("  ", "Keep <me> & this", "Subject can't be empty."),
        (String(repeating: "s", count: 201), "x", "Subject is too long: at most 200 characters."),
        ("Fine", String(repeating: "b", count: 10_001), "Message is too long: at most 10000 characters."),
    ])
    func anInvalidSaveIsA422ThatKeepsWhatWasTyped(subject: String, body: String, problem: String) throws {
        let before = inbox.mailbox
        let response = try post([("action", "save"), ("subject", subject), ("body", body)])
        #expect(response.code == 422)
        let html = response.html
        #expect(html.tag(id: "subject")?.attribute("value") == subject)
        #expect(html.tag(id: "subject")?.attribute("aria-invalid") == "true")
        let escapedBody = body.replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        #expect(html.contains("maxlength=\"10000\">\n\(escapedBody)</textarea>"))
        #expect(html.tag(id: "form-errors")?.attribute("role") == "alert")
        #expect(html.contains("<li>\(problem)</li>"))
        #expect(html.contains("<details class=\"compose\" id=\"edit-message\" open>"))
        // The message itself is shown as it still is.
        #expect(html.content(of: "h1") == "Alpha")
        #expect(inbox.mailbox == before)
    }

    // MARK: Other actions

    @Test func markUnreadRedirectsToKeepUnread() throws {
        _ = try inbox.get(page)
        let response = try post([("action", "mark-unread")])
        #expect(response.code == 303)
        #expect(response.location == page + "?keep=unread")
        #expect(inbox.message("Alpha")?.isUnread == true)
        _ = try inbox.get(try #require(response.location))
        #expect(inbox.message("Alpha")?.isUnread == true)
    }

    /// Alpha starts unread and unflagged; only a message that is still unread keeps `keep=unread`.
    @Test(arguments: [("mark-read", false, false, ""), ("flag", true, true, "?keep=unread")])
    func markReadAndFlagRedirectToThePage(action: String, isUnread: Bool, isFlagged: Bool, query: String) throws {
        let response = try post([("action", action)])
        #expect(response.code == 303)
        #expect(response.location == page + query)
        #expect(inbox.message("Alpha")?.isUnread == isUnread)
        #expect(inbox.message("Alpha")?.isFlagged == isFlagged)
    }

    @Test func unflagClearsTheFlag() throws {
        _ = try post([("action", "flag")])
        #expect(try inbox.get(page).html.buttonText(action: "unflag") == "Unflag")
        let response = try post([("action", "unflag")])
        #expect(response.location == page)
        #expect(inbox.message("Alpha")?.isFlagged == false)
    }

    /// Delete moves the message to Trash: its page still exists, now in Trash, and the Inbox offers Undo.
    @Test func deletingRedirectsToTheInboxWithANotice() throws {
        let response = try post([("action", "delete")])
        #expect(response.code == 303)
        #expect(response.location == "/mailboxes/inbox?done=deleted&n=1&undo=\(alpha)")
        #expect(inbox.subjects == ["Bravo"])
        #expect(inbox.app.library[.trash]?.ids == [alpha])
        let trashed = try inbox.get(page)
        #expect(trashed.code == 200)
        #expect(trashed.html.tag(id: "back")?.attribute("href") == "/mailboxes/trash")
        let html = try inbox.get(try #require(response.location)).html
        #expect(html.contains("<span>1 message moved to Trash.</span>"))
        #expect(html.tag(id: "undo") != nil)
    }

    @Test func deletingAMessageThatIsGoneSaysSo() throws {
        let response = try inbox.post("/messages/424242", [("action", "delete")])
        #expect(response.location == "/mailboxes/inbox?done=gone")
    }

    @Test(arguments: [[], [("action", "launch")]] as [[(String, String)]])
    func aPostWithoutAKnownActionIs400(fields: [(String, String)]) throws {
        let response = try post(fields)
        #expect(response.code == 400)
        #expect(response.contentType == "text/html; charset=utf-8")
    }

    @Test func aPostWithTheWrongContentTypeIs415() throws {
        let response = try inbox.post(page, [("action", "delete")], contentType: "text/plain")
        #expect(response.code == 415)
        #expect(inbox.subjects == ["Alpha", "Bravo"])
    }

    @Test(arguments: [Method.put, .delete, .patch])
    func otherMethodsOnAMessageAre405WithAllow(method: Method) throws {
        let response = try inbox.respond(method, page)
        #expect(response.code == 405)
        #expect(response.headers["Allow"] == "GET, HEAD, POST")
        #expect(inbox.subjects == ["Alpha", "Bravo"])
    }
}

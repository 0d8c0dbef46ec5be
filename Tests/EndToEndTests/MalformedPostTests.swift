import Testing

/// A post the server cannot make sense of is a 400 that changes nothing.
@Suite struct MalformedPostTests {
    @Test(arguments: [
        ("/mailboxes/inbox", "action=add&subject=Hello%zzWorld"),
        ("/mailboxes/inbox", "action=add&subject=Hello%"),
        ("/mailboxes/inbox", "action=add&subject=%C3%28"),
        ("/mailboxes/inbox", "action=add&subject=A%00B"),
        ("/mailboxes/inbox", "mode=active&selected=1&action=delete&x=%G1"),
        ("/messages/1", "action=save&subject=Changed%2"),
    ])
    func aPostWithABadPercentEscapeIsA400AndChangesNothing(path: String, form: String) throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo"])
        let before = server.mailbox
        let response = try server.client().send(
            "POST", path, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array(form.utf8))
        #expect(response.status == 400)
        #expect(response.header("Content-Type") == "text/html; charset=utf-8")
        #expect(Page(html: response.text).heading == "400 Bad Request")
        #expect(server.mailbox == before)
    }

    @Test(arguments: ["99", "4", "-1", "two"])
    func aMoveToAnOutOfRangeOffsetIsA400AndChangesNothing(offset: String) throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo", "Charlie"])
        let before = server.mailbox
        let tab = server.browser()
        let page = try tab.post("/mailboxes/inbox", fields: [("action", "move"), ("id", "2"), ("to", offset)])
        #expect(tab.status == 400)
        #expect(tab.redirects.isEmpty)
        #expect(page.heading == "400 Bad Request")
        #expect(!(page.elements(class: "error-message").first.map(page.text(of:)) ?? "").isEmpty)
        #expect(server.mailbox == before)
    }

    @Test func aMoveToTheEndOffsetIsAllowed() throws {
        let server = try TestServer(subjects: ["Alpha", "Bravo", "Charlie"])
        let tab = server.browser()
        let page = try tab.post("/mailboxes/inbox", fields: [("action", "move"), ("id", "1"), ("to", "3")])
        #expect(tab.redirects.map(\.status) == [303])
        #expect(page.rowIDs == [2, 3, 1])
    }
}

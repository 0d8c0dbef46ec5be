import Testing

/// Refusals are small HTML pages a person can read, with the headers a script needs.
@Suite struct ErrorPageTests {
    @Test func aMissingPageIsAnHTML404() throws {
        let server = try TestServer(subjects: ["Alpha"])
        let response = try server.client().send("GET", "/no/such/page")
        #expect(response.status == 404)
        #expect(response.header("Content-Type") == "text/html; charset=utf-8")
        let page = Page(html: response.text)
        #expect(page.heading == "404 Not Found")
        #expect(page.links.contains("/mailboxes/inbox"))
    }

    @Test(arguments: [
        ("PUT", "/mailboxes/inbox", "GET, HEAD, POST"),
        ("DELETE", "/messages/1", "GET, HEAD, POST"),
        ("PATCH", "/messages/1", "GET, HEAD, POST"),
        ("POST", "/style.css", "GET, HEAD"),
        ("DELETE", "/style.css", "GET, HEAD"),
    ])
    func aWrongMethodIsAnHTML405WithAllow(method: String, path: String, allow: String) throws {
        let server = try TestServer(subjects: ["Alpha"])
        let before = server.mailbox
        let response = try server.client().send(method, path)
        #expect(response.status == 405)
        #expect(response.header("Allow") == allow)
        #expect(response.header("Content-Type") == "text/html; charset=utf-8")
        #expect(Page(html: response.text).heading == "405 Method Not Allowed")
        #expect(server.mailbox == before)
    }
}

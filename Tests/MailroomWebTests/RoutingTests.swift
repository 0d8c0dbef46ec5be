import HTTP
import MailroomCore
import Testing

/// Which address and method lead where.
struct RoutingTests {
    let inbox: TestApp

    init() throws {
        inbox = try TestApp("Alpha")
    }

    @Test func theRootRedirectsToTheInbox() throws {
        for response in [try inbox.get("/"), try inbox.head("/")] {
            #expect(response.code == 302)
            #expect(response.location == "/mailboxes/inbox")
        }
    }

    @Test(arguments: [
        "/nowhere", "/mailboxes/nope", "/mailboxes/99", "/mailboxes/100", "/mailboxes/inbox/", "/mailboxes//inbox",
        "/messages", "/messages/1/extra",
    ])
    func anUnknownAddressIsA404Page(target: String) throws {
        let response = try inbox.get(target)
        #expect(response.code == 404)
        #expect(response.contentType == "text/html; charset=utf-8")
        #expect(response.html.content(of: "h1") == "404 Not Found")
        #expect(response.html.contains("href=\"/mailboxes/inbox\""))
    }

    @Test func theErrorPageNamesTheStatusInTheTitle() throws {
        let html = try inbox.get("/nowhere").html
        #expect(html.content(of: "title") == "404 Not Found — Mailroom")
    }

    // "/" exists (GET redirects), so other methods are 405 with Allow, not a missing file's 404.
    @Test(arguments: [Method.post, .put, .delete])
    func otherMethodsOnTheRootAre405WithAllowNot404(method: Method) throws {
        let response = try inbox.respond(
            method, "/", headers: Headers([("Content-Type", "application/x-www-form-urlencoded")]), body: "action=edit")
        #expect(response.code == 405)
        #expect(response.headers["Allow"] == "GET, HEAD")
    }
}

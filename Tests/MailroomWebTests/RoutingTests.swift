import HTTP
@testable import MailroomWeb
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

    /// Each pattern once in each table, so no route hides another by accident.
    @Test func noPatternIsInATableTwice() {
        for patterns in [MailroomApp.routes.routes.map(\.pattern), MailroomApp.apiRoutes.routes.map(\.pattern)] {
            #expect(Set(patterns).count == patterns.count)
        }
    }

    /// Every page route refuses a method it does not list with the `Allow` the table gives it,
    /// for addresses that exist (an unknown mailbox would be a 404 first).
    @Test func everyPageRouteRefusesOtherMethodsWithItsAllow() throws {
        let example = ["slug": "inbox", "id": "1", "part": "0"]
        for route in MailroomApp.routes.routes {
            let path = route.pattern.split(separator: "/", omittingEmptySubsequences: false)
                .map { $0.first == ":" ? example[String($0.dropFirst()), default: "x"] : String($0) }
                .joined(separator: "/")
            let response = try inbox.respond(.put, path, headers: Headers(), body: "")
            #expect(response.code == 405, "\(path)")
            #expect(response.headers["Allow"] == route.allow, "\(path)")
        }
    }
}

import HTTP
import Testing

/// The ready-made responses.
struct ResponseTests {
    @Test(arguments: ["/mailboxes/inbox", "/mailboxes/inbox?mode=active&selected=1", "/messages/3?keep=unread"])
    func seeOtherIsA303ToTheLocation(location: String) {
        let response = Response.seeOther(location)
        #expect(response.status == .seeOther)
        #expect(response.status.code == 303)
        #expect(response.headers["Location"] == location)
        #expect(response.headers["Content-Type"] == "text/plain; charset=utf-8")
    }

    @Test func redirectUsesTheGivenStatus() {
        let response = Response.redirect(.found, to: "/mailboxes/inbox")
        #expect(response.status.code == 302)
        #expect(response.headers["location"] == "/mailboxes/inbox")
    }

    @Test func anHTMLResponseSaysUTF8() {
        let response = Response(html: Array("<p>é</p>".utf8))
        #expect(response.status == .ok)
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(response.body == Array("<p>é</p>".utf8))
    }

    @Test func aTextResponseSaysUTF8() {
        let response = Response(status: .notFound, text: "gone ✉️")
        #expect(response.status.code == 404)
        #expect(response.headers["Content-Type"] == "text/plain; charset=utf-8")
        #expect(response.body == Array("gone ✉️".utf8))
    }

    @Test func anHTTPErrorCarriesItsStatusMessageAndHeaders() {
        let error = HTTPError(.methodNotAllowed, "No.", headers: ["Allow": "GET, HEAD"])
        #expect(error.status.code == 405)
        #expect(error.message == "No.")
        #expect(error.headers["Allow"] == "GET, HEAD")
    }
}

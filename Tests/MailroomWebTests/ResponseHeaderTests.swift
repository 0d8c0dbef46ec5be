import HTTP
import MailroomCore
import Testing

/// What every response carries, whatever the page.
struct ResponseHeaderTests {
    let inbox: TestApp

    init() throws {
        inbox = try TestApp("Alpha", "Bravo")
    }

    /// One request of every kind the app answers: pages, redirects, files and refusals.
    private var everyKindOfResponse: [(String, Response)] {
        get throws {
            let id = inbox.id("Alpha")
            return [
                ("GET /", try inbox.get("/")),
                ("GET inbox", try inbox.get("/mailboxes/inbox")),
                ("HEAD inbox", try inbox.head("/mailboxes/inbox")),
                ("GET active", try inbox.get("/mailboxes/inbox?mode=active&selected=\(id)")),
                ("GET transient", try inbox.get("/mailboxes/inbox?mode=transient&row=\(id)")),
                ("GET message", try inbox.get("/messages/\(id)")),
                ("GET style.css", try inbox.get("/style.css")),
                ("400", try inbox.get("/mailboxes/inbox?mode=nope")),
                ("404 page", try inbox.get("/nowhere")),
                ("404 message", try inbox.get("/messages/424242")),
                ("405", try inbox.respond(.put, "/mailboxes/inbox")),
                ("415", try inbox.post("/mailboxes/inbox", [("action", "edit")], contentType: "text/plain")),
                ("422", try inbox.post("/mailboxes/inbox", [("action", "add"), ("subject", "")])),
                ("303", try inbox.post("/mailboxes/inbox", [("action", "edit")])),
            ]
        }
    }

    @Test func everyResponseHasTheSecurityHeaders() throws {
        for (name, response) in try everyKindOfResponse {
            let policy = response.headers["Content-Security-Policy"] ?? ""
            #expect(policy.contains("frame-ancestors 'none'"), "\(name)")
            #expect(policy.contains("default-src 'none'"), "\(name)")
            #expect(response.headers["X-Content-Type-Options"] == "nosniff", "\(name)")
            #expect(response.headers["Referrer-Policy"]?.isEmpty == false, "\(name)")
        }
    }

    @Test func everyResponseHasAContentTypeWithACharset() throws {
        for (name, response) in try everyKindOfResponse {
            let type = try #require(response.contentType, "\(name)")
            #expect(type.hasSuffix("; charset=utf-8"), "\(name): \(type)")
        }
    }

    @Test func everyPageIsHTMLInUTF8() throws {
        for (name, response) in try everyKindOfResponse where response.code != 302 && response.code != 303 && name != "GET style.css" {
            #expect(response.contentType == "text/html; charset=utf-8", "\(name)")
            #expect(response.html.hasPrefix("<!DOCTYPE html>"), "\(name)")
            #expect(response.html.contains("<meta charset=\"utf-8\">"), "\(name)")
        }
    }

    @Test func pagesAreRevalidatedButStaticFilesAreCached() throws {
        #expect(try inbox.get("/mailboxes/inbox").headers["Cache-Control"] == "no-cache")
        #expect(try inbox.get("/style.css").headers["Cache-Control"] == "public, max-age=300")
    }

    @Test func theStylesheetIsServedFromThePublicFolder() throws {
        let response = try inbox.get("/style.css")
        #expect(response.code == 200)
        #expect(response.contentType == "text/css; charset=utf-8")
        #expect(response.html == "body { margin: 0 }\n")
        #expect(try inbox.get("/mailboxes/inbox").html.contains("<link rel=\"stylesheet\" href=\"/style.css\">"))
    }

    @Test(arguments: ["/../style.css", "/.hidden", "//style.css", "/style.css/", "/missing.css"])
    func nothingElseIsServedFromThePublicFolder(target: String) throws {
        #expect(try inbox.get(target).code == 404)
    }

    @Test func postingToAStaticFileIs405() throws {
        let response = try inbox.post("/style.css", [("a", "b")])
        #expect(response.code == 405)
        #expect(response.headers["Allow"] == "GET, HEAD")
    }
}

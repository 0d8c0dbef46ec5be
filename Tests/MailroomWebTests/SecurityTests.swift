import HTTP
import MailroomCore
import MailroomWeb
import Testing

/// Host names, Origin/Referer and the form token, checked before any route runs.
@Suite struct SecurityTests {
    static let token = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

    let app: MailroomApp

    init() throws {
        var library = Library()
        try library.add(Draft(subject: "Keep me"), to: .inbox, at: 1)
        app = try MailroomApp(
            library: library, publicFolder: "/nonexistent", now: { 100 },
            security: SecurityPolicy(allowedHosts: ["127.0.0.1", "localhost", "::1"], formToken: Self.token))
    }

    func request(_ method: Method, _ target: String, headers: [(String, String)], body: String = "") throws -> Response {
        var all = Headers(headers.map { (name: $0.0, value: $0.1) })
        if method == .post { all.add("Content-Type", "application/x-www-form-urlencoded") }
        return app.respond(to: try Request(method: method, target: target, headers: all, body: Array(body.utf8)))
    }

    var subjects: [String] { app.library[.inbox]?.messages.map(\.subject) ?? [] }

    func html(_ response: Response) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test(arguments: ["127.0.0.1:8080", "localhost", "LOCALHOST:1", "[::1]:8080"])
    func ourOwnNamesAreServed(host: String) throws {
        #expect(try request(.get, "/mailboxes/inbox", headers: [("Host", host)]).status == .ok)
    }

    @Test(arguments: ["evil.example", "evil.example:8080", "127.0.0.1.evil.example", "[::2]:80"])
    func aForeignHostIsRefusedAsDNSRebinding(host: String) throws {
        let response = try request(.get, "/mailboxes/inbox", headers: [("Host", host)])
        #expect(response.status == .forbidden)
        #expect(html(response).contains("does not answer to the name"))
        #expect(!html(response).contains("Keep me"))
    }

    @Test func aRequestWithoutHostIsABadRequest() throws {
        #expect(try request(.get, "/mailboxes/inbox", headers: []).status == .badRequest)
    }

    @Test func everyPostFormCarriesTheToken() throws {
        let page = html(try request(.get, "/mailboxes/inbox", headers: [("Host", "127.0.0.1:8080")]))
        let forms = page.components(separatedBy: "<form method=\"post\"").count - 1
        // The search form is a GET (a search changes nothing) and carries no token into URLs.
        #expect(page.components(separatedBy: "<form method=\"get\"").count - 1 == 1)
        let tokens = page.components(separatedBy: "<input type=\"hidden\" name=\"csrf\" value=\"\(Self.token)\">").count - 1
        #expect(forms > 0)
        #expect(tokens == forms)
    }

    @Test func aPostWithTheTokenFromOurOwnPageIsAccepted() throws {
        let response = try request(
            .post, "/mailboxes/inbox",
            headers: [("Host", "127.0.0.1:8080"), ("Origin", "http://127.0.0.1:8080")],
            body: "action=add&subject=Hello&csrf=\(Self.token)")
        #expect(response.status == .seeOther)
        #expect(subjects == ["Hello", "Keep me"])
    }

    @Test(arguments: [
        ("Origin", "http://evil.example"),
        ("Origin", "null"),
        ("Origin", "http://127.0.0.1:9999"),
        ("Referer", "http://evil.example/page"),
        ("Referer", "http://127.0.0.1:8080.evil.example/"),
    ])
    func aPostFromAnotherSiteIsRefusedAndChangesNothing(header: String, value: String) throws {
        let response = try request(
            .post, "/mailboxes/inbox", headers: [("Host", "127.0.0.1:8080"), (header, value)],
            body: "action=add&subject=Forged&csrf=\(Self.token)")
        #expect(response.status == .forbidden)
        #expect(html(response).contains("nothing was changed"))
        #expect(subjects == ["Keep me"])
    }

    @Test(arguments: ["", "&csrf=", "&csrf=wrong", "&csrf=\(String(token.dropLast()))"])
    func aPostWithoutTheRightTokenIsRefusedAndChangesNothing(tokenField: String) throws {
        let response = try request(
            .post, "/mailboxes/inbox",
            headers: [("Host", "127.0.0.1:8080"), ("Origin", "http://127.0.0.1:8080")],
            body: "mode=active&selected=1&action=delete" + tokenField)
        #expect(response.status == .forbidden)
        #expect(html(response).contains("Reload the page"))
        #expect(subjects == ["Keep me"])
    }

    @Test func aScriptWithoutOriginOrRefererStillNeedsTheToken() throws {
        let refused = try request(.post, "/mailboxes/inbox", headers: [("Host", "localhost")], body: "action=add&subject=X")
        #expect(refused.status == .forbidden)
        let accepted = try request(
            .post, "/mailboxes/inbox", headers: [("Host", "localhost")], body: "action=add&subject=X&csrf=\(Self.token)")
        #expect(accepted.status == .seeOther)
        #expect(subjects == ["X", "Keep me"])
    }

    @Test func refusalsCarryTheSecurityHeaders() throws {
        let response = try request(.get, "/", headers: [("Host", "evil.example")])
        #expect(response.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
        #expect(response.headers["X-Content-Type-Options"] == "nosniff")
    }
}

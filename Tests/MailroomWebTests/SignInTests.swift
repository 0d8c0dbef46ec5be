import HTTP
import MailroomCore
import MailroomWeb
import Synchronization
import Testing

/// The optional password: every page but sign-in and static files needs a session.
@Suite struct SignInTests {
    final class Clock: Sendable {
        let seconds = Mutex<Int64>(1_000)
        var now: Int64 { seconds.withLock { $0 } }
        func advance(_ by: Int64) { seconds.withLock { $0 += by } }
    }

    final class Log: Sendable {
        let lines = Mutex<[String]>([])
        let warnings = Mutex<[String]>([])
    }

    let clock = Clock()
    let log = Log()
    let app: MailroomApp

    init() throws {
        var library = Library()
        try library.add(Draft(subject: "Secret"), to: .inbox, at: 1)
        let clock = clock
        let log = log
        app = try MailroomApp(
            library: library, publicFolder: "/nonexistent", now: { clock.now }, security: .off,
            signIn: SignIn(password: "hunter2", sessionSeconds: 3_600, log: { line in log.lines.withLock { $0.append(line) } },
                           warn: { line in log.warnings.withLock { $0.append(line) } }))
    }

    func get(_ target: String, cookie: String? = nil) throws -> Response {
        var headers = Headers()
        if let cookie { headers.add("Cookie", cookie) }
        return app.respond(to: try Request(method: .get, target: target, headers: headers))
    }

    func signIn(_ password: String, next: String = "/mailboxes/inbox", peer: String = "10.0.0.5") throws -> Response {
        var request = try Request(
            method: .post, target: "/signin",
            headers: Headers([(name: "Content-Type", value: "application/x-www-form-urlencoded")]),
            body: Array(FormData([("password", password), ("next", next)]).urlEncoded.utf8))
        request.peer = peer
        return app.respond(to: request)
    }

    func sessionCookie(_ response: Response) -> String? {
        response.headers["Set-Cookie"]?.split(separator: ";").first.map(String.init)
    }

    @Test func pagesRedirectToSignInAndRevealNothing() throws {
        let response = try get("/mailboxes/inbox?mode=active")
        #expect(response.status == .seeOther)
        #expect(response.headers["Location"] == "/signin?next=%2Fmailboxes%2Finbox%3Fmode%3Dactive")
        #expect(!String(decoding: response.body, as: UTF8.self).contains("Secret"))
        #expect(try get("/signin").status == .ok)
    }

    @Test func theRightPasswordGivesAStrictHttpOnlySessionAndReturnsToNext() throws {
        let response = try signIn("hunter2", next: "/mailboxes/archive")
        #expect(response.status == .seeOther)
        #expect(response.headers["Location"] == "/mailboxes/archive")
        let setCookie = try #require(response.headers["Set-Cookie"])
        #expect(setCookie.contains("HttpOnly"))
        #expect(setCookie.contains("SameSite=Strict"))
        let page = try get("/mailboxes/inbox", cookie: sessionCookie(response))
        #expect(page.status == .ok)
        #expect(String(decoding: page.body, as: UTF8.self).contains("Secret"))
    }

    @Test func pagesBehindThePasswordAreNeverMarkedToRepeat() throws {
        // A session ends without a commit (signing out, expiry): a server that sent a page
        // again for the same cookie would outlive it.
        let cookie = sessionCookie(try signIn("hunter2"))
        let page = try get("/mailboxes/inbox", cookie: cookie)
        #expect(page.status == .ok)
        #expect(page.repeatable == nil)
        #expect(try get("/mailboxes/inbox", cookie: cookie).repeatable == nil)
    }

    @Test(arguments: ["https://evil.example/", "//evil.example/x", "javascript:alert(1)"])
    func nextNeverLeadsToAnotherSite(next: String) throws {
        #expect(try signIn("hunter2", next: next).headers["Location"] == "/mailboxes/inbox")
    }

    @Test func aWrongPasswordIsRefusedLoggedAndSlowsThatClientDown() throws {
        let wrong = try signIn("guess")
        #expect(wrong.status == .forbidden)
        #expect(wrong.headers["Set-Cookie"] == nil)
        // A refusal is a warning, not an ordinary line.
        #expect(log.warnings.withLock { $0.contains { $0.contains("wrong password from 10.0.0.5") } })
        #expect(!log.lines.withLock { $0.contains { $0.contains("wrong password") } })

        // Even the right password waits out the lockout, which grows with each failure.
        let locked = try signIn("hunter2")
        #expect(locked.status.code == 429)
        #expect(locked.headers["Retry-After"] == "2")
        // Another client is not held up by this one's mistakes.
        #expect(try signIn("hunter2", peer: "10.0.0.6").status == .seeOther)

        clock.advance(2)
        #expect(try signIn("guess again").status == .forbidden)
        #expect(try signIn("hunter2").headers["Retry-After"] == "4")
        clock.advance(4)
        #expect(try signIn("hunter2").status == .seeOther)
    }

    @Test func sessionsExpire() throws {
        let cookie = sessionCookie(try signIn("hunter2"))
        #expect(try get("/mailboxes/inbox", cookie: cookie).status == .ok)
        clock.advance(3_600)
        #expect(try get("/mailboxes/inbox", cookie: cookie).status == .seeOther)
    }

    @Test func signingOutEndsTheSession() throws {
        let cookie = try #require(sessionCookie(try signIn("hunter2")))
        var request = try Request(
            method: .post, target: "/signout",
            headers: Headers([(name: "Cookie", value: cookie), (name: "Content-Type", value: "application/x-www-form-urlencoded")]))
        request.peer = "10.0.0.5"
        let response = app.respond(to: request)
        #expect(response.status == .seeOther)
        #expect(response.headers["Set-Cookie"]?.contains("Max-Age=0") == true)
        #expect(try get("/mailboxes/inbox", cookie: cookie).status == .seeOther)
    }

    @Test func aMadeUpSessionIsNotASession() throws {
        #expect(try get("/mailboxes/inbox", cookie: "mailroom_session=0123456789abcdef").status == .seeOther)
    }
}

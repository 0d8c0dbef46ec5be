import HTTP
import MailroomCore
import Testing

/// Which answers the app lets a server send again for the same request (`Response.repeatable`):
/// a list page until the next commit, and nothing that depends on more than the request.
@Suite struct RepeatableAnswerTests {
    @Test func aListPageRepeatsUntilTheNextCommit() throws {
        let inbox = try TestApp("Alpha", "Bravo")
        let page = try inbox.get("/mailboxes/inbox")
        #expect(page.status == .ok)
        let condition = try #require(page.repeatable)
        #expect(condition.isCurrent)
        // The same page asked again (now from the thread's memo) is marked too.
        #expect(try inbox.get("/mailboxes/inbox").repeatable?.isCurrent == true)
        _ = try inbox.post("/mailboxes/inbox", [("action", "add"), ("subject", "Charlie")])
        #expect(!condition.isCurrent)
        let after = try inbox.get("/mailboxes/inbox")
        #expect(String(decoding: after.body, as: UTF8.self).contains("Charlie"))
        #expect(after.repeatable?.isCurrent == true)
    }

    @Test func aChangeToAnotherMailboxEndsTheRepeatToo() throws {
        let app = try TestApp(library: makeLibrary(inbox: ["Alpha"], archive: ["Bravo"]))
        let condition = try #require(try app.get("/mailboxes/inbox").repeatable)
        _ = try app.post("/mailboxes/archive", [("action", "add"), ("subject", "Charlie")])
        // The sidebar's counts are on every page.
        #expect(!condition.isCurrent)
    }

    @Test func answersThatDependOnMoreThanTheRequestAreNeverMarked() throws {
        let inbox = try TestApp("Alpha", "Bravo")
        let page = try inbox.get("/mailboxes/inbox")
        let etag = try #require(page.headers["ETag"])
        let notModified = try inbox.respond(.get, "/mailboxes/inbox", headers: Headers([("If-None-Match", etag)]))
        #expect(notModified.status == .notModified)
        #expect(notModified.repeatable == nil)
        #expect(try inbox.get("/api/v1/messages").repeatable == nil)
        #expect(try inbox.get("/metrics").repeatable == nil)
        #expect(try inbox.get("/mailboxes/nowhere").repeatable == nil)
        let id = inbox.id("Alpha")
        #expect(try inbox.get("/messages/\(id)").repeatable == nil)
    }
}

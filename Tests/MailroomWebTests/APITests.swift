import Foundation
import HTTP
import MailroomCore
@testable import MailroomWeb
import Testing

/// `/api/v1/`: JSON for scripts, through `respond(to:)` as the server calls it.
@Suite struct APITests {
    let inbox: TestApp

    init() throws {
        inbox = try TestApp("Alpha", "Bravo", "Charlie")
    }

    private func json(_ response: Response, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        #expect(response.contentType == "application/json", sourceLocation: sourceLocation)
        let value = try JSONSerialization.jsonObject(with: Data(response.body))
        return try #require(value as? [String: Any], sourceLocation: sourceLocation)
    }

    private func post(_ target: String, _ body: String, type: String = "application/json") throws -> Response {
        try inbox.respond(.post, target, headers: Headers([("Content-Type", type)]), body: body)
    }

    private func subjects(_ object: [String: Any]) -> [String] {
        (object["messages"] as? [[String: Any]] ?? []).compactMap { $0["subject"] as? String }
    }

    @Test func theListComesInKeysetPagesNewestFirst() throws {
        let first = try json(try inbox.get("/api/v1/messages?limit=2"))
        #expect(subjects(first) == ["Alpha", "Bravo"])
        #expect(first["total"] as? Int == 3)
        #expect(first["mailbox"] as? String == "inbox")
        let next = try #require(first["next"] as? String)
        let second = try json(try inbox.get(next))
        #expect(subjects(second) == ["Charlie"])
        #expect(second["next"] is NSNull)
    }

    @Test func searchesUseThePagesGrammar() throws {
        let found = try json(try inbox.get("/api/v1/messages?q=subject%3Abravo"))
        #expect(subjects(found) == ["Bravo"])
        let bad = try inbox.get("/api/v1/messages?q=before%3Anot-a-date")
        #expect(bad.code == 400)
        #expect(try json(bad)["status"] as? Int == 400)
    }

    @Test func oneMessageWithItsTextAndNoChangeToItsReadState() throws {
        let id = inbox.id("Bravo")
        let message = try json(try inbox.get("/api/v1/messages/\(id)"))
        #expect(message["subject"] as? String == "Bravo")
        #expect(message["unread"] as? Bool == true)
        #expect(message["mailed"] as? Bool == false)
        #expect(inbox.message("Bravo")?.isUnread == true)
    }

    @Test func mailedMessagesCarryHeadersHTMLAttachmentsAndRaw() throws {
        let raw = Array("""
            From: Ann <ann@example.test>\r
            To: ops@example.test\r
            Subject: Signup\r
            Message-ID: <signup-1@example.test>\r
            Content-Type: text/html; charset=utf-8\r
            \r
            <p>Welcome <b>Ann</b></p>\r

            """.utf8)
        let ids = try inbox.app.receiveMail(raw, from: "ann@example.test", to: ["ops@example.test"], peer: "127.0.0.1")
        let id = try #require(ids.first)
        let message = try json(try inbox.get("/api/v1/messages/\(id)"))
        #expect(message["mailed"] as? Bool == true)
        #expect((message["html"] as? String)?.contains("<b>Ann</b>") == true)
        #expect((message["headers"] as? String)?.contains("Message-ID: <signup-1@example.test>") == true)
        #expect(message["message_id"] as? String == "signup-1@example.test" || message["message_id"] as? String == "<signup-1@example.test>")
        #expect((message["envelope"] as? [String: Any])?["to"] as? [String] == ["ops@example.test"])
        let rawLink = try #require(message["raw"] as? String)
        let download = try inbox.get(rawLink)
        #expect(download.code == 200)
        #expect(download.body == raw)
    }

    @Test func mailboxesWithTheirCounts() throws {
        let answer = try json(try inbox.get("/api/v1/mailboxes"))
        let boxes = try #require(answer["mailboxes"] as? [[String: Any]])
        let inboxCounts = try #require(boxes.first { $0["id"] as? String == "inbox" })
        #expect(inboxCounts["total"] as? Int == 3)
        #expect(inboxCounts["unread"] as? Int == 3)
        #expect(boxes.contains { $0["id"] as? String == "trash" })
    }

    @Test func anAttachmentDownloadsFromItsURL() throws {
        let raw = Array("""
            From: scanner@example.test\r
            To: ops@example.test\r
            Subject: Scan\r
            MIME-Version: 1.0\r
            Content-Type: multipart/mixed; boundary=b\r
            \r
            --b\r
            Content-Type: text/plain\r
            \r
            See attached.\r
            --b\r
            Content-Type: text/plain; name=notes.txt\r
            Content-Disposition: attachment; filename=notes.txt\r
            \r
            line one\r
            --b--\r

            """.utf8)
        let id = try #require(try inbox.app.receiveMail(raw, from: "s@example.test", to: ["ops@example.test"], peer: "127.0.0.1").first)
        let message = try json(try inbox.get("/api/v1/messages/\(id)"))
        let attachment = try #require((message["attachments"] as? [[String: Any]])?.first)
        #expect(attachment["name"] as? String == "notes.txt")
        let download = try inbox.get(try #require(attachment["url"] as? String))
        #expect(download.code == 200)
        #expect(download.html.hasPrefix("line one"))
        #expect(try inbox.get("/api/v1/messages/\(id)/parts/9").code == 404)
        // A message posted through the page has no raw source.
        #expect(try json(try inbox.get("/api/v1/messages/\(inbox.id("Alpha"))/raw"))["status"] as? Int == 404)
    }

    @Test func actionsByIdsCountWhatWasGone() throws {
        let alpha = inbox.id("Alpha"), bravo = inbox.id("Bravo")
        let answer = try json(try post("/api/v1/messages/read", "{\"ids\": [\(alpha), \(bravo), 999999]}"))
        #expect(answer["changed"] as? Int == 2)
        #expect(answer["gone"] as? Int == 1)
        #expect(inbox.message("Alpha")?.isUnread == false)
        #expect(inbox.message("Charlie")?.isUnread == true)
        _ = try json(try post("/api/v1/messages/flag", "{\"ids\": [\(bravo)]}"))
        #expect(inbox.message("Bravo")?.isFlagged == true)
        let deleted = try json(try post("/api/v1/messages/delete", "{\"ids\": [\(alpha)]}"))
        #expect(deleted["changed"] as? Int == 1)
        #expect(inbox.subjects == ["Bravo", "Charlie"])
        #expect(inbox.subjects(in: .trash) == ["Alpha"])
    }

    /// Mailpit re-runs a search when "delete all" is pressed; here a query acts on what matched
    /// at the revision the caller read, and mail that arrived since is left alone.
    @Test func anActionByQueryLeavesWhatArrivedAfterItsRevision() throws {
        let listed = try json(try inbox.get("/api/v1/messages?q=is%3Aunread"))
        let revision = try #require(listed["revision"] as? Int)
        _ = try inbox.post("/mailboxes/inbox", [("action", "add"), ("subject", "Delta")])
        let answer = try json(try post("/api/v1/messages/delete", "{\"q\": \"is:unread\", \"mailbox\": \"inbox\", \"revision\": \(revision)}"))
        #expect(answer["changed"] as? Int == 3)
        #expect(inbox.subjects == ["Delta"])
    }

    @Test(arguments: [
        ("{}", 400), ("{\"ids\": []}", 400), ("{\"ids\": \"1\"}", 400), ("{\"ids\": [1.5]}", 400), ("[1]", 400),
        ("{\"q\": 3}", 400), ("not json", 400), ("{\"q\": \"is:unread\", \"mailbox\": \"nowhere\"}", 404),
        ("{\"mailbox\": \"inbox\"}", 400), ("{\"q\": \" \"}", 400), ("{\"q\": \"   \", \"mailbox\": \"trash\"}", 400),
        ("{\"q\": \"\", \"all\": false}", 400),
    ])
    func badBodiesAreRefusedWithJSONAndChangeNothing(body: String, status: Int) throws {
        let before = inbox.library
        let answer = try post("/api/v1/messages/delete", body)
        #expect(answer.code == status)
        #expect(try json(answer)["status"] as? Int == status)
        #expect(inbox.library == before)
    }

    @Test func aFormBodyIsRefusedSinceAnySiteCouldPostIt() throws {
        let answer = try post("/api/v1/messages/delete", "ids=1", type: "application/x-www-form-urlencoded")
        #expect(answer.code == 415)
        #expect(inbox.subjects.count == 3)
    }

    @Test func unknownEndpointsAndMethodsAnswerJSON() throws {
        #expect(try inbox.get("/api/v1/nothing").code == 404)
        #expect(try json(try inbox.get("/api/v1/messages/424242"))["status"] as? Int == 404)
        let wrong = try inbox.respond(.post, "/api/v1/messages")
        #expect(wrong.code == 405)
        #expect(wrong.headers["Allow"] == "GET, HEAD")
    }

    @Test func waitAnswersAtOnceWithAMatchThatExists() throws {
        let found = try json(try inbox.get("/api/v1/wait?q=subject%3Acharlie&timeout=5"))
        #expect(found["subject"] as? String == "Charlie")
    }

    @Test func waitTimesOutWith408() throws {
        let answer = try inbox.get("/api/v1/wait?q=subject%3Anever&timeout=0")
        #expect(answer.code == 408)
        #expect(try json(answer)["status"] as? Int == 408)
        #expect(try inbox.get("/api/v1/wait").code == 400)
    }

    @Test func waitWakesForTheCommitThatBringsAMatch() async throws {
        let app = inbox.app
        let waiting = Task.detached {
            app.respond(to: try Request(method: .get, target: "/api/v1/wait?q=subject%3Aecho&timeout=20"))
        }
        // Posted once the wait is asleep or not: either way it must find Echo.
        _ = try inbox.post("/mailboxes/inbox", [("action", "add"), ("subject", "Echo")])
        let answer = try await waiting.value
        #expect(answer.code == 200)
        #expect(try json(answer)["subject"] as? String == "Echo")
    }

    @Test func healthAndMetrics() throws {
        let health = try inbox.get("/healthz")
        #expect(health.code == 200)
        #expect(health.html.hasPrefix("ok\n"))
        _ = try post("/api/v1/messages/read", "{\"ids\": [\(inbox.id("Alpha"))]}")
        let metrics = try inbox.get("/metrics")
        #expect(metrics.code == 200)
        #expect(metrics.contentType?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(metrics.html.contains("mailroom_posts_total 1\n"))
        #expect(metrics.html.contains("mailroom_messages{mailbox=\"inbox\"} 3\n"))
        #expect(metrics.html.contains("mailroom_commit_changes_bucket{le=\"+Inf\"}"))
        #expect(metrics.html.contains("process_resident_memory_bytes "))
        #expect(!metrics.html.contains("process_resident_memory_bytes 0\n"))
    }

    @Test func theEventStreamIsAnswered() throws {
        let stream = try inbox.get("/events")
        #expect(stream.code == 200)
        #expect(stream.isEventStream)
        #expect(try inbox.respond(.post, "/events").code == 405)
    }
}

/// The API behind a password: a token or a signed-in session, never a form from elsewhere.
@Suite final class APIAccessTests {
    let app: MailroomApp
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mailroom-api-\(UUID().uuidString)")

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    init() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        app = try MailroomApp(
            library: makeLibrary(inbox: ["Alpha"]), publicFolder: folder.path, now: { fixedNow },
            security: SecurityPolicy(allowedHosts: ["127.0.0.1"], formToken: "form-token"),
            signIn: SignIn(password: "hunter2", log: { _ in }), apiToken: "s3cret-token")
    }

    private func request(_ method: Method, _ target: String, _ fields: [(String, String)], body: String = "") throws -> Response {
        app.respond(to: try Request(method: method, target: target, headers: Headers(fields), body: Array(body.utf8)))
    }

    @Test func withoutTheTokenItIs401() throws {
        let answer = try request(.get, "/api/v1/messages", [("Host", "127.0.0.1")])
        #expect(answer.status.code == 401)
        #expect(answer.headers["WWW-Authenticate"] == "Bearer")
        let wrong = try request(.get, "/api/v1/messages", [("Host", "127.0.0.1"), ("Authorization", "Bearer s3cret-tokeN")])
        #expect(wrong.status.code == 401)
        #expect(try request(.get, "/metrics", [("Host", "127.0.0.1")]).status.code == 303)
    }

    @Test func theTokenOpensTheAPIAndMetrics() throws {
        let answer = try request(.get, "/api/v1/messages", [("Host", "127.0.0.1"), ("Authorization", "Bearer s3cret-token")])
        #expect(answer.status.code == 200)
        let metrics = try request(.get, "/metrics", [("Host", "127.0.0.1"), ("Authorization", "bearer s3cret-token")])
        #expect(metrics.status.code == 200)
        // The token is for scripts' endpoints, not a way into the pages.
        let page = try request(.get, "/mailboxes/inbox", [("Host", "127.0.0.1"), ("Authorization", "Bearer s3cret-token")])
        #expect(page.status.code == 303)
        #expect(try request(.get, "/healthz", [("Host", "127.0.0.1")]).status.code == 200)
    }

    @Test func aPostFromAnotherSiteIsRefusedEvenWithTheToken() throws {
        let answer = try request(.post, "/api/v1/messages/delete", [
            ("Host", "127.0.0.1"), ("Origin", "http://evil.example"), ("Content-Type", "application/json"),
            ("Authorization", "Bearer s3cret-token"),
        ], body: "{\"all\": true}")
        #expect(answer.status.code == 403)
        #expect(app.snapshot.messages.count == 1)
        let fine = try request(.post, "/api/v1/messages/delete", [
            ("Host", "127.0.0.1"), ("Content-Type", "application/json"), ("Authorization", "Bearer s3cret-token"),
        ], body: "{\"all\": true}")
        #expect(fine.status.code == 200)
        #expect(app.snapshot.messages.isEmpty)
    }
}

/// The JSON the API writes and reads.
@Suite struct JSONTests {
    @Test func aValueWrittenBeforeGoesInAsItIsAndReadsBackAsTheSame() throws {
        let row = JSON.object([("ID", .string("7")), ("Tags", .array([.string("a <b>")]))])
        let list = JSON.object([("messages", .array([.written(row.bytes), .written(row.bytes)]))])
        #expect(list.text == #"{"messages":["# + row.text + "," + row.text + "]}")
        #expect(try JSON.parse(list.bytes) == .object([("messages", .array([row, row]))]))
    }

    @Test func writtenJSONIsReadBackByFoundation() throws {
        let text = "quote \" backslash \\ tab \t newline \n control \u{1} tag <b> emoji 👋 separator \u{2028}"
        let value = JSON.object([("text", .string(text)), ("n", .number(-42)), ("list", .array([.bool(true), .null]))])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(value.text.utf8)) as? [String: Any])
        #expect(object["text"] as? String == text)
        #expect(object["n"] as? Int == -42)
        #expect(!value.text.contains("<b>"))
        #expect(try JSON.parse(Array(value.text.utf8)) == value)
    }

    @Test(arguments: [
        "{\"a\": [1, 2, {\"b\": null}], \"c\": \"\\u00e9\\ud83d\\udc4b\"}", " [ ] ", "\"x\"", "-0", "true",
    ])
    func validTextIsRead(text: String) throws {
        _ = try JSON.parse(Array(text.utf8))
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\" 1}", "01", "1.5", "1e3", "\"\\x\"", "\"\\ud83d\"", "\"a\nb\"", "nul", "{} {}",
        String(repeating: "[", count: 100) + String(repeating: "]", count: 100), "99999999999999999999",
    ])
    func invalidTextIsRefused(text: String) {
        #expect(throws: JSON.ParseError.self) { try JSON.parse(Array(text.utf8)) }
    }
}

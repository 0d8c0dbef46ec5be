import Foundation
import HTTP
import MailroomCore
@testable import MailroomWeb
import Testing

/// The Mailpit door over a real store, no socket: Mailpit's shapes, field by field, as its
/// published swagger names them, and Mailroom's rules where Mailpit would lose mail.
@Suite struct MailpitTests {
    let inbox: TestApp
    let mailpit: MailpitApp

    init() throws {
        inbox = try TestApp("Posted")
        mailpit = MailpitApp(web: inbox.app, version: "test")
    }

    @discardableResult
    func receive(_ subject: String, from: String = "Ann Lee <ann@example.test>", to: String = "desk@example.test",
                 extra: String = "", body: String = "Hello there.") throws -> MessageID {
        let text = "From: \(from)\r\nTo: \(to)\r\nSubject: \(subject)\r\nMessage-ID: <\(subject.lowercased().replacingOccurrences(of: " ", with: "."))@example.test>\r\n"
            + extra + "\r\n" + body + "\r\n"
        return try #require(try inbox.app.receiveMail(Array(text.utf8), from: "bounce@example.test",
                                                      to: ["desk@example.test", "hidden@example.test"], peer: "127.0.0.1").first)
    }

    func call(_ method: Method, _ target: String, body: String = "", headers: [(String, String)] = []) throws -> Response {
        let request = try Request(method: method, target: target, headers: Headers(headers + [("Host", "127.0.0.1:8025")]),
                                  body: Array(body.utf8))
        return mailpit.respond(to: request)
    }

    func json(_ response: Response) throws -> JSON {
        try JSON.parse(response.body)
    }

    @Test func theListHasMailpitsEnvelopeAndSummaries() throws {
        try receive("Second")
        let id = try receive("Third")
        let response = try call(.get, "/api/v1/messages?limit=2")
        #expect(response.status.code == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["X-Content-Type-Options"] == "nosniff")
        #expect(response.headers["Cache-Control"] == "no-store")
        let list = try json(response)
        #expect(list["total"] == .int(3))
        #expect(list["unread"] == .int(3))
        #expect(list["count"] == .int(2))
        #expect(list["messages_count"] == .int(3))
        #expect(list["messages_unread"] == .int(3))
        #expect(list["start"] == .int(0))
        #expect(list["tags"] == .array([]))
        guard case .array(let rows)? = list["messages"], let first = rows.first else { Issue.record("no messages"); return }
        #expect(rows.count == 2)
        guard case .object(let fields) = first else { Issue.record("not an object"); return }
        #expect(fields.map(\.0) == ["ID", "MessageID", "Read", "From", "To", "Cc", "Bcc", "ReplyTo", "Subject", "Created",
                                    "Username", "Tags", "Size", "Attachments", "Snippet"])
        #expect(first["ID"] == .string(String(id.rawValue)))
        #expect(first["MessageID"] == .string("third@example.test"))
        #expect(first["Read"] == .bool(false))
        #expect(first["From"] == .object([("Name", .string("Ann Lee")), ("Address", .string("ann@example.test"))]))
        #expect(first["To"] == .array([.object([("Name", .string("")), ("Address", .string("desk@example.test"))])]))
        #expect(first["Cc"] == .array([]))
        #expect(first["Bcc"] == .array([.object([("Name", .string("")), ("Address", .string("hidden@example.test"))])]))
        #expect(first["Subject"] == .string("Third"))
        #expect(first["Created"] == .string("2025-11-28T14:05:00+00:00"))
        #expect(first["Snippet"] == .string("Hello there."))
        #expect(first["Attachments"] == .int(0))
    }

    @Test func startPagesOnAndPastTheEndIsEmptyWithTheCountsKept() throws {
        for number in 1...5 { try receive("Mail \(number)") }
        var seen: [String] = []
        var start = 0
        while true {
            let page = try json(try call(.get, "/api/v1/messages?start=\(start)&limit=2"))
            guard case .array(let rows)? = page["messages"], !rows.isEmpty else { break }
            for row in rows { if case .string(let subject)? = row["Subject"] { seen.append(subject) } }
            start += rows.count
        }
        #expect(seen == ["Mail 5", "Mail 4", "Mail 3", "Mail 2", "Mail 1", "Posted"])
        // A jump straight to a position nobody paged to.
        let jumped = try json(try call(.get, "/api/v1/messages?start=3&limit=1"))
        #expect(jumped["messages"]?.first?["Subject"] == .string("Mail 2"))
        let past = try json(try call(.get, "/api/v1/messages?start=40"))
        #expect(past["messages"] == .array([]))
        #expect(past["total"] == .int(6))
    }

    @Test func readingAMessageMarksItReadAndGivesTextHTMLAndParts() throws {
        let id = try receive("Report", extra: "Content-Type: text/plain\r\n", body: "Your code is 123456")
        let message = try json(try call(.get, "/api/v1/message/\(id)"))
        #expect(message["ID"] == .string(String(id.rawValue)))
        #expect(message["Text"]?.string?.contains("Your code is 123456") == true)
        #expect(message["HTML"] == .string(""))
        #expect(message["ReturnPath"] == .string("bounce@example.test"))
        #expect(message["Inline"] == .array([]))
        #expect(message["Attachments"] == .array([]))
        #expect(message["Date"] != nil)
        #expect(inbox.library[.inbox]?.messages.first { $0.id == id }?.isUnread == false)
        let latest = try json(try call(.get, "/api/v1/message/latest"))
        #expect(latest["ID"] == .string(String(id.rawValue)))
        #expect(try call(.get, "/api/v1/message/999999").status.code == 404)
        #expect(try call(.get, "/api/v1/message/abc").status.code == 404)
    }

    @Test func headersAreGoStyleListsSortedByName() throws {
        let id = try receive("Headers", extra: "X-Long: one\r\n two\r\nmessage-id-extra: x\r\n")
        let headers = try json(try call(.get, "/api/v1/message/\(id)/headers"))
        #expect(headers["Subject"] == .array([.string("Headers")]))
        #expect(headers["Message-Id"] == .array([.string("<headers@example.test>")]))
        #expect(headers["X-Long"] == .array([.string("one two")]))
        guard case .object(let fields) = headers else { Issue.record("not an object"); return }
        #expect(fields.map(\.0) == fields.map(\.0).sorted())
    }

    @Test func searchTranslatesMailpitsWordsAndRefusesWhatMailroomCannotDo() throws {
        try receive("Invoice March", from: "Billing <billing@shop.test>")
        try receive("Lunch", from: "Bob <bob@example.test>")
        let found = try json(try call(.get, "/api/v1/search?query=" + "from:billing subject:invoice".urlQueryEncoded))
        #expect(found["messages_count"] == .int(1))
        #expect(found["messages"]?.first?["Subject"] == .string("Invoice March"))
        let addressed = try json(try call(.get, "/api/v1/search?query=" + "addressed:\"desk@example.test\" is:unread".urlQueryEncoded))
        #expect(addressed["messages_count"] == .int(2))
        let empty = try call(.get, "/api/v1/search?query=")
        #expect(empty.status.code == 400)
        #expect(String(decoding: empty.body, as: UTF8.self) == "Error: no search query")
        let refused = try call(.get, "/api/v1/search?query=larger:1mb")
        #expect(refused.status.code == 400)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("larger:"))
    }

    @Test func putMarksByIDsOrSearchOrAllAndMissingReadMeansUnread() throws {
        let one = try receive("One")
        let two = try receive("Two")
        #expect(try call(.put, "/api/v1/messages", body: "{\"ids\":[\"\(one)\"],\"read\":true}").status.code == 200)
        #expect(inbox.library[.inbox]?.messages.first { $0.id == one }?.isUnread == false)
        #expect(inbox.library[.inbox]?.messages.first { $0.id == two }?.isUnread == true)
        #expect(try call(.put, "/api/v1/messages", body: "{\"Read\":true}").status.code == 200)
        #expect(inbox.library[.inbox]?.messages.allSatisfy { !$0.isUnread } == true)
        #expect(try call(.put, "/api/v1/messages", body: "{\"Search\":\"subject:two\"}").status.code == 200)
        #expect(inbox.library[.inbox]?.messages.filter(\.isUnread).map(\.subject) == ["Two"])
        #expect(try call(.put, "/api/v1/messages", body: "").status.code == 400)
        #expect(try call(.put, "/api/v1/messages", body: "{\"IDs\":[\"\(one)\"],\"Search\":\"x\"}").status.code == 400)
    }

    @Test func deleteMovesToTrashOneOrAllAndNothingArrivedSinceIsTouched() throws {
        let one = try receive("One")
        try receive("Two")
        #expect(try call(.delete, "/api/v1/messages", body: "{\"IDs\":[\"\(one)\"]}").status.code == 200)
        #expect(inbox.subjects(in: .trash) == ["One"])
        #expect(try call(.delete, "/api/v1/messages").status.code == 200)
        #expect(inbox.subjects(in: .inbox) == [])
        #expect(Set(inbox.subjects(in: .trash)) == ["One", "Two", "Posted"])
        try receive("Three")
        #expect(try call(.delete, "/api/v1/search?query=subject:nothing").status.code == 200)
        #expect(inbox.subjects(in: .inbox) == ["Three"])
        #expect(try call(.delete, "/api/v1/search?query=three").status.code == 200)
        #expect(inbox.subjects(in: .inbox) == [])
    }

    @Test func theRestAnswersAsMailpitDoes() throws {
        #expect(try call(.get, "/api/v1/tags").body == Array("[]\n".utf8))
        #expect(try call(.get, "/api/v1/chaos").status.code == 400)
        #expect(try call(.get, "/livez").status.code == 200)
        #expect(try json(try call(.get, "/api/v1/info"))["Messages"] == .int(1))
        #expect(try json(try call(.get, "/api/v1/webui"))["MessageRelay"]?["Enabled"] == .bool(false))
        let release = try call(.post, "/api/v1/message/1/release", body: "{\"To\":[\"a@b.test\"]}")
        #expect(release.status.code == 400)
        #expect(String(decoding: release.body, as: UTF8.self).contains("relay"))
        let wrong = try call(.post, "/api/v1/messages")
        #expect(wrong.status.code == 405)
        #expect(wrong.headers["Allow"] == "GET, HEAD, PUT, DELETE")
        #expect(try call(.get, "/nowhere").status.code == 404)
    }

    @Test func viewsMarkReadAndToleratesADoubledSlash() throws {
        let id = try receive("Viewed", body: "Plain words")
        let text = try call(.get, "//view/\(id).txt")
        #expect(text.status.code == 200)
        #expect(String(decoding: text.body, as: UTF8.self).contains("Plain words"))
        #expect(try call(.get, "/view/\(id).html").status.code == 404)
        #expect(inbox.library[.inbox]?.messages.first { $0.id == id }?.isUnread == false)
    }

    @Test func sendStoresTheJSONAsMailAndAnswersItsID() throws {
        let body = """
            {"From": {"Name": "Zoë", "Email": "zoe@example.test"}, "To": [{"Email": "desk@example.test"}],
             "Bcc": ["audit@example.test"], "Subject": "Sent by API", "Text": "Plain", "HTML": "<p>Rich</p>",
             "Attachments": [{"Content": "aGVsbG8=", "Filename": "hi.txt", "ContentType": "text/plain"}],
             "Headers": {"X-Custom": "yes"}}
            """
        let response = try call(.post, "/api/v1/send", body: body)
        #expect(response.status.code == 200)
        let id = try #require(try json(response)["ID"]?.string)
        let message = try json(try call(.get, "/api/v1/message/\(id)"))
        #expect(message["Subject"] == .string("Sent by API"))
        #expect(message["From"] == .object([("Name", .string("Zoë")), ("Address", .string("zoe@example.test"))]))
        #expect(message["HTML"] == .string("<p>Rich</p>"))
        #expect(message["Bcc"] == .array([.object([("Name", .string("")), ("Address", .string("audit@example.test"))])]))
        #expect(message["Attachments"]?.first?["FileName"] == .string("hi.txt"))
        let headers = try json(try call(.get, "/api/v1/message/\(id)/headers"))
        #expect(headers["X-Custom"] == .array([.string("yes")]))

        let refused = try call(.post, "/api/v1/send", body: "{\"From\": {\"Email\": \"a@b.test\"}, \"Headers\": {\"To\": \"x\"}, \"To\": [{\"Email\": \"c@d.test\"}]}")
        #expect(refused.status.code == 400)
        #expect(try json(refused)["Error"] == .string("cannot overwrite header: \"To\""))
        let noFrom = try call(.post, "/api/v1/send", body: "{\"To\": [{\"Email\": \"c@d.test\"}]}")
        #expect(try json(noFrom)["Error"] == .string("error building message: from not set"))
    }

    @Test func aSnippetIsTwoHundredBytesOfWholeCharactersAndDots() {
        #expect(MailpitJSON.snippet("  Hello\r\n\tthere  ") == "Hello there")
        let long = String(repeating: "é", count: 150)
        let snippet = MailpitJSON.snippet(long)
        #expect(snippet == String(repeating: "é", count: 100) + "...")
        let odd = "a" + String(repeating: "é", count: 150)
        #expect(MailpitJSON.snippet(odd) == "a" + String(repeating: "é", count: 99) + "...")
    }

    @Test func keptAnswersAndPositionsGoOnceTheInboxHasChanged() throws {
        try receive("First")
        try receive("Second")
        #expect(try call(.get, "/api/v1/messages?start=1&limit=1").status.code == 200)
        #expect(mailpit.answers.held.entries == 1)
        #expect(mailpit.pages.positions.held.entries >= 1)
        inbox.app.service.dropStaleValues()
        #expect(mailpit.answers.held.entries == 1, "still current")
        try receive("Third")
        inbox.app.service.dropStaleValues()
        #expect(mailpit.answers.held.entries == 0)
        #expect(mailpit.pages.positions.held.entries == 0)
    }

    @Test func aKeptListIsAnsweredAgainUntilTheInboxChanges() throws {
        try receive("First")
        let first = try call(.get, "/api/v1/messages?limit=5")
        #expect(try call(.get, "/api/v1/messages?limit=5").body == first.body)
        #expect(mailpit.answers.hits.load(ordering: .relaxed) == 1)
        try receive("Second")
        let second = try json(try call(.get, "/api/v1/messages?limit=5"))
        #expect(second["total"] == .int(3))
        #expect(second["messages"]?.first?["Subject"] == .string("Second"))
        // Another Host is refused before anything kept is looked at.
        let request = try Request(method: .get, target: "/api/v1/messages?limit=5", headers: Headers([("Host", "evil.test")]))
        let guarded = MailpitApp(web: try MailroomApp(
            library: Library(), publicFolder: "/nonexistent", now: { fixedNow },
            security: SecurityPolicy(allowedHosts: ["127.0.0.1"], formToken: nil)), version: "test")
        #expect(guarded.respond(to: request).status.code == 403)
    }

    @Test func aChangeFromAnotherSiteIsRefused() throws {
        let response = try call(.delete, "/api/v1/messages", headers: [("Origin", "http://evil.test")])
        #expect(response.status.code == 403)
        #expect(inbox.subjects(in: .inbox) == ["Posted"])
    }
}

extension JSON {
    var first: JSON? {
        guard case .array(let values) = self else { return nil }
        return values.first
    }

    var string: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }
}

extension String {
    var urlQueryEncoded: String {
        addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? self
    }
}

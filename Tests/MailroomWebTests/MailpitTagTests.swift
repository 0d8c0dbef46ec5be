import HTTP
import MailroomCore
@testable import MailroomWeb
import Testing

/// Mailpit's tag calls and fields over Mailroom's tags, with Mailpit's answers and errors.
@Suite struct MailpitTagTests {
    let inbox: TestApp
    let mailpit: MailpitApp

    init() throws {
        inbox = try TestApp("Posted")
        mailpit = MailpitApp(web: inbox.app, version: "test")
    }

    func receive(_ subject: String, tags: String? = nil) throws -> MessageID {
        let text = "From: ann@example.test\r\nTo: desk@example.test\r\nSubject: \(subject)\r\n"
            + (tags.map { "X-Tags: \($0)\r\n" } ?? "") + "\r\nHello.\r\n"
        return try #require(try inbox.app.receiveMail(Array(text.utf8), from: "ann@example.test", to: ["desk@example.test"],
                                                      peer: "127.0.0.1").first)
    }

    func call(_ method: Method, _ target: String, body: String = "") throws -> Response {
        let request = try Request(method: method, target: target, headers: Headers([("Host", "127.0.0.1:8025")]), body: Array(body.utf8))
        return mailpit.respond(to: request)
    }

    func json(_ response: Response) throws -> JSON { try JSON.parse(response.body) }

    @Test func tagsShowOnSummariesMessagesListsAndInfo() throws {
        let tagged = try receive("Invoice", tags: "urgent, Accounts")
        _ = try receive("Plain")
        let list = try json(try call(.get, "/api/v1/messages"))
        #expect(list["tags"] == .array([.string("Accounts"), .string("urgent")]))
        guard case .array(let rows)? = list["messages"] else { Issue.record("no messages"); return }
        #expect(rows.map { $0["Tags"] } == [.array([]), .array([.string("Accounts"), .string("urgent")]), .array([])])
        let message = try json(try call(.get, "/api/v1/message/\(tagged)"))
        #expect(message["Tags"] == .array([.string("Accounts"), .string("urgent")]))
        let info = try json(try call(.get, "/api/v1/info"))
        #expect(info["Tags"] == .object([("Accounts", .int(1)), ("urgent", .int(1))]))
        #expect(try json(try call(.get, "/api/v1/tags")) == (try JSON.parse(Array(#"["Accounts","urgent"]"#.utf8))))
        let found = try json(try call(.get, "/api/v1/search?query=tag:accounts"))
        #expect(found["messages_count"] == .int(1))
    }

    @Test func putTagsReplacesEachMessagesTagsAndPrunesTagsLeftUnused() throws {
        let one = try receive("One", tags: "old")
        let two = try receive("Two")
        let response = try call(.put, "/api/v1/tags", body: #"{"IDs":["\#(one)","\#(two)","999"],"Tags":["new","Other"]}"#)
        #expect(response.status.code == 200)
        #expect(response.body == Array("ok".utf8))
        #expect(try json(try call(.get, "/api/v1/tags")) == (try JSON.parse(Array(#"["new","Other"]"#.utf8))))
        _ = try call(.put, "/api/v1/tags", body: #"{"IDs":["\#(one)"],"Tags":[]}"#)
        #expect(try json(try call(.get, "/api/v1/message/\(one)"))["Tags"] == .array([]))
        // Without IDs nothing changes; a bad body is Mailpit's 400.
        #expect(try call(.put, "/api/v1/tags", body: #"{"Tags":["x"]}"#).status.code == 200)
        #expect(try json(try call(.get, "/api/v1/tags")) == (try JSON.parse(Array(#"["new","Other"]"#.utf8))))
        #expect(try call(.put, "/api/v1/tags", body: "not json").status.code == 400)
        #expect(try call(.put, "/api/v1/tags", body: #"{"IDs":["\#(one)"],"Tags":["!!"]}"#).status.code == 400)
    }

    @Test func renameAndDeleteAnswerAsMailpitDoes() throws {
        _ = try receive("One", tags: "Team A, b")
        #expect(try call(.put, "/api/v1/tags/Team%20A", body: #"{"Name":"Team B"}"#).body == Array("ok".utf8))
        let taken = try call(.put, "/api/v1/tags/b", body: #"{"Name":"team b"}"#)
        #expect(taken.status.code == 400)
        #expect(String(decoding: taken.body, as: UTF8.self).contains("tag already exists: team b"))
        let missing = try call(.delete, "/api/v1/tags/nope")
        #expect(missing.status.code == 400)
        #expect(String(decoding: missing.body, as: UTF8.self).contains("tag not found: nope"))
        #expect(try call(.delete, "/api/v1/tags/B").body == Array("ok".utf8))
        #expect(try json(try call(.get, "/api/v1/tags")) == (try JSON.parse(Array(#"["Team B"]"#.utf8))))
        #expect(try call(.put, "/api/v1/tags/Team%20B", body: #"{"Name":"%%"}"#).status.code == 400)
    }

    @Test func aRowWrittenForOneListIsWrittenAnewOnceItsMessageChanges() throws {
        let id = try receive("Kept row")
        let path = "/api/v1/messages?limit=1"
        let first = try json(try call(.get, path))["messages"]
        #expect(first == .array([try json(try call(.get, path + "&again=1"))["messages"]?.arrayFirst ?? .null]))
        _ = try call(.put, "/api/v1/tags", body: #"{"IDs":["\#(id)"],"Tags":["later"]}"#)
        _ = try call(.put, "/api/v1/messages", body: #"{"IDs":["\#(id)"],"Read":true}"#)
        let row = try json(try call(.get, path + "&after=change"))["messages"]?.arrayFirst
        #expect(row?["Tags"] == .array([.string("later")]))
        #expect(row?["Read"] == .bool(true))
    }
}

extension JSON {
    fileprivate var arrayFirst: JSON? {
        guard case .array(let values) = self else { return nil }
        return values.first
    }
}

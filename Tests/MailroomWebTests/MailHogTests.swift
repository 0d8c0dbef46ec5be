import Foundation
import HTTP
import MailroomCore
@testable import MailroomWeb
import Testing

/// The MailHog door over a real store, no socket: MailHog's shapes, field by field, as its
/// `data.Message` names them, and Mailroom's rules where MailHog would lose mail.
@Suite struct MailHogTests {
    let inbox: TestApp
    let mailhog: MailHogApp

    init() throws {
        inbox = try TestApp("Posted")
        mailhog = MailHogApp(web: inbox.app)
    }

    static let multipart = """
        From: Ann <ann@example.test>\r
        To: desk@example.test\r
        Subject: With a note\r
        MIME-Version: 1.0\r
        Content-Type: multipart/mixed; boundary="b1"\r
        \r
        --b1\r
        Content-Type: text/plain\r
        \r
        Hello.\r
        --b1\r
        Content-Type: text/plain; name="note.txt"\r
        Content-Disposition: attachment; filename="note.txt"\r
        Content-Transfer-Encoding: base64\r
        \r
        aGVsbG8gYXR0YWNobWVudA==\r
        --b1--\r

        """

    @discardableResult
    func receive(_ raw: String) throws -> MessageID {
        try #require(try inbox.app.receiveMail(Array(raw.utf8), from: "ann@example.test", to: ["desk@example.test"], peer: "127.0.0.1").first)
    }

    func call(_ method: Method, _ target: String) throws -> Response {
        mailhog.respond(to: try Request(method: method, target: target, headers: Headers([("Host", "127.0.0.1:8025")])))
    }

    @Test func theV2ListHasMailHogsEnvelopeAndMessages() throws {
        let id = try receive(Self.multipart)
        let response = try call(.get, "/api/v2/messages?limit=1")
        #expect(response.headers["Content-Type"] == "text/json")
        let list = try JSON.parse(response.body)
        #expect(list["total"] == .int(2))
        #expect(list["count"] == .int(1))
        #expect(list["start"] == .int(0))
        guard case .array(let items)? = list["items"], let item = items.first, case .object(let fields) = item else {
            Issue.record("no items"); return
        }
        #expect(fields.map(\.0) == ["ID", "From", "To", "Content", "Created", "MIME", "Raw"])
        #expect(item["ID"] == .string(String(id.rawValue)))
        #expect(item["From"] == .object([("Relays", .null), ("Mailbox", .string("ann")), ("Domain", .string("example.test")), ("Params", .string(""))]))
        #expect(item["To"] == .array([.object([("Relays", .null), ("Mailbox", .string("desk")), ("Domain", .string("example.test")), ("Params", .string(""))])]))
        #expect(item["Content"]?["Headers"]?["Subject"] == .array([.string("With a note")]))
        #expect(item["Content"]?["MIME"] == .null)
        #expect(item["Raw"]?["From"] == .string("ann@example.test"))
        guard case .array(let parts)? = item["MIME"]?["Parts"] else { Issue.record("no parts"); return }
        #expect(parts.count == 2)
        #expect(parts[1]["Headers"]?["Content-Disposition"] == .array([.string("attachment; filename=\"note.txt\"")]))
    }

    @Test func aPartDownloadsDecoded() throws {
        let id = try receive(Self.multipart)
        let part = try call(.get, "/api/v1/messages/\(id)/mime/part/1/download")
        #expect(part.status.code == 200)
        #expect(part.body == Array("hello attachment".utf8))
        #expect(try call(.get, "/api/v1/messages/\(id)/mime/part/7/download").status.code == 404)
        let raw = try call(.get, "/api/v1/messages/\(id)/download")
        #expect(raw.headers["Content-Type"] == "message/rfc822")
    }

    @Test func searchByKindAndRefuseAnUnknownKind() throws {
        try receive(Self.multipart)
        let to = try JSON.parse(try call(.get, "/api/v2/search?kind=to&query=desk%40example.test").body)
        #expect(to["total"] == .int(1))
        let containing = try JSON.parse(try call(.get, "/api/v2/search?kind=containing&query=note").body)
        #expect(containing["total"] == .int(1))
        #expect(try call(.get, "/api/v2/search?kind=subject&query=x").status.code == 400)
        #expect(try call(.get, "/api/v2/search?kind=to&query=").status.code == 400)
    }

    @Test func deletesGoToTrashWithAnEmptyAnswer() throws {
        let id = try receive(Self.multipart)
        let one = try call(.delete, "/api/v1/messages/\(id)")
        #expect(one.status.code == 200)
        #expect(one.body.isEmpty)
        #expect(inbox.subjects(in: .trash) == ["With a note"])
        #expect(try call(.delete, "/api/v1/messages/\(id.rawValue + 1000)").status.code == 404)
        #expect(try call(.delete, "/api/v1/messages").status.code == 200)
        #expect(inbox.subjects(in: .inbox) == [])
        #expect(Set(inbox.subjects(in: .trash)) == ["With a note", "Posted"])
    }

    @Test func theV1ListIsAnArrayAndAnUnknownMessageIsNotFound() throws {
        try receive(Self.multipart)
        guard case .array(let all) = try JSON.parse(try call(.get, "/api/v1/messages").body) else { Issue.record("not an array"); return }
        #expect(all.count == 2)
        #expect(try call(.get, "/api/v1/messages/424242").status.code == 404)
        #expect(try call(.put, "/api/v1/messages").status.code == 404)
    }
}

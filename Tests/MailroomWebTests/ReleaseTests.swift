import Foundation
import HTTP
import MailroomCore
import MailroomService
import MailroomStore
@testable import MailroomWeb
import Testing

/// Release… and Forward… in the pages, the API's release and Mailpit's: what is queued, for
/// whom, refused when an address is not allowed, and the history on the message page.
@Suite struct ReleaseTests {
    let inbox: TestApp

    init() throws {
        inbox = try TestApp("Disk 91% full", "Backup done", "Lunch")
        inbox.app.service.useRelay(RelayPolicy(allowedRecipients: [".*@vendor\\.test"], hostName: "mailroom.test"))
    }

    private func queued(_ subject: String) throws -> [OutboundRow] {
        try inbox.app.service.outbound(of: inbox.id(subject))
    }

    @Test func withoutARelayNothingOffersToSendMailOut() throws {
        let plain = try TestApp("One")
        #expect(try plain.get("/mailboxes/inbox?mode=active").html.buttonText(action: "release") == nil)
        let page = try plain.get("/messages/\(plain.id("One"))").html
        #expect(page.tag(id: "forward") == nil)
        let refused = try plain.post("/messages/\(plain.id("One"))/forward", [("to", "a@vendor.test")])
        #expect(refused.code == 422)
        #expect(refused.html.contains("Mailroom has no relay configured"))
    }

    @Test func releaseAsksWhereToThenQueuesExactlyTheTicksAndKeepsEditing() throws {
        #expect(try inbox.get("/mailboxes/inbox?mode=active").html.buttonText(action: "release") == "Release…")
        let disk = inbox.id("Disk 91% full").description
        let lunch = inbox.id("Lunch").description
        let asked = try inbox.post("/mailboxes/inbox", [("mode", "active"), ("selected", disk), ("selected", lunch), ("action", "release")])
        let location = try #require(asked.headers["Location"])
        #expect(asked.code == 303)
        #expect(location.hasPrefix("/mailboxes/inbox/release?"))
        let page = try inbox.get(location).html
        #expect(page.contains("Disk 91% full") && page.contains("Lunch") && !page.contains("Backup done"))
        let form = try #require(page.form(class: "send-on-form"))
        let sent = try inbox.post(form.action, form.fields.filter { $0.0 != "to" } + [("to", "support@vendor.test")])
        #expect(sent.code == 303, "\(sent.html)")
        let back = try #require(sent.headers["Location"])
        #expect(back.hasPrefix("/mailboxes/inbox?mode=active"))
        let list = try inbox.get(back).html
        #expect(list.contains("2 messages queued to go out to support@vendor.test."))
        #expect(try queued("Disk 91% full").map(\.recipient) == ["support@vendor.test"])
        #expect(try queued("Lunch").map(\.state) == [.queued])
        #expect(try queued("Backup done").isEmpty)
    }

    @Test func anAddressNotAllowedIsRefusedOnThePageWithWhatWasTypedKept() throws {
        let disk = inbox.id("Disk 91% full").description
        let answer = try inbox.post("/mailboxes/inbox/release", [("mode", "active"), ("selected", disk), ("to", "eve@elsewhere.test")])
        #expect(answer.code == 422)
        let page = answer.html
        #expect(page.contains("eve@elsewhere.test"))
        #expect(page.tag(id: "send-on-problem") != nil)
        #expect(try queued("Disk 91% full").isEmpty)
    }

    @Test func forwardQueuesOneMessageAndItsPageShowsTheHistory() throws {
        let id = inbox.id("Backup done")
        let message = try inbox.get("/messages/\(id)?keep=unread").html
        #expect(message.tag(id: "forward") != nil)
        let form = try inbox.get("/messages/\(id)/forward").html
        #expect(form.contains("Forward “Backup done”"))
        let sent = try inbox.post("/messages/\(id)/forward", [("to", "ops@vendor.test")])
        #expect(sent.code == 303)
        let page = try inbox.get(try #require(sent.headers["Location"])).html
        #expect(page.contains("1 message queued to go out to ops@vendor.test."))
        let history = try #require(page.element(containing: "id=\"outbound\""))
        #expect(history.contains("ops@vendor.test"))
        #expect(history.contains("forwarded, queued"))
    }

    @Test func theAPIReleasesByIdsAndRefusesAddressesNotAllowed() throws {
        let id = inbox.id("Lunch")
        let answer = try inbox.respond(.post, "/api/v1/messages/release", headers: Headers([("Content-Type", "application/json")]),
                                       body: #"{"ids": [\#(id), 999], "to": ["a@vendor.test", "b@vendor.test"]}"#)
        #expect(answer.code == 200)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
        #expect(object["queued"] as? Int == 1)
        #expect(object["gone"] as? Int == 1)
        #expect(try queued("Lunch").map(\.recipient) == ["a@vendor.test", "b@vendor.test"])
        let refused = try inbox.respond(.post, "/api/v1/messages/release", headers: Headers([("Content-Type", "application/json")]),
                                        body: #"{"ids": [\#(id)], "to": "x@nowhere.test"}"#)
        #expect(refused.code == 400)
    }

    @Test func mailpitsReleaseQueuesTheMessage() throws {
        let mailpit = MailpitApp(web: inbox.app, version: "test")
        let id = inbox.id("Disk 91% full")
        func release(_ body: String) throws -> Response {
            mailpit.respond(to: try Request(method: .post, target: "/api/v1/message/\(id)/release",
                                            headers: Headers([("Host", "127.0.0.1:8025")]), body: Array(body.utf8)))
        }
        #expect(try release(#"{"To": ["ops@vendor.test"]}"#).body == Array("ok".utf8))
        #expect(try queued("Disk 91% full").map(\.cause) == ["mailpit"])
        #expect(try release(#"{"To": ["eve@elsewhere.test"]}"#).status.code == 400)
        #expect(try release(#"{"To": []}"#).status.code == 400)
    }
}

import MailroomCore
import MailroomService
import Testing

/// Mail handed to the service is parsed, routed, stored in the next group commit and announced.
@Suite struct ReceivingMailTests {
    @Test func aMessageIsStoredOnTopOfTheInboxAndAnnounced() throws {
        let service = try makeService(inbox: ["Older"])
        let ids = try service.deliver(rawMail("Toner low")).get()
        #expect(ids.count == 1)
        #expect(service.subjects(in: .inbox) == ["Toner low", "Older"])
        #expect(service.events.lastID == service.store.revision)
        #expect(service.events.events(after: service.store.revision - 1)?.first?.name == "change")
    }

    @Test func mailThatCannotBeReadIsKeptAsItCame() throws {
        let service = try makeService(inbox: [])
        _ = try service.deliver(Array("no header at all, just bytes".utf8)).get()
        #expect(service.library[.inbox]?.messages.count == 1)
    }

    @Test func aCommitThatFailsRefusesTheMessageAsUnavailable() throws {
        struct DiskFull: Error {}
        let service = try makeService(inbox: ["Kept"], beforeCommit: { throw DiskFull() })
        let outcome = service.deliver(rawMail("Lost"))
        guard case .failure(.unavailable(let reason)) = outcome else {
            Issue.record("expected unavailable, got \(outcome)")
            return
        }
        #expect(reason.contains("could not save"))
        #expect(service.subjects(in: .inbox) == ["Kept"])
    }
}

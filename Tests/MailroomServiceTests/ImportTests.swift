import MailroomCore
import MailroomService
import Testing

/// An import stores each message once, in the mailbox named, made when missing.
@Suite struct ImportTests {
    @Test func anImportMakesItsMailboxAndSkipsWhatItStoredBefore() throws {
        let service = try makeService(inbox: [])
        let messages = ["First", "Second"].map { MailImport.prepare(rawMail($0), sender: nil, now: fixedNow) }
        let first = try service.importMail(messages, into: "Old mail")
        #expect(first.added == 2)
        #expect(first.skipped == 0)
        #expect(service.library[first.mailbox]?.name == "Old mail")
        let again = try service.importMail(messages, into: "old mail")
        #expect(again.mailbox == first.mailbox)
        #expect(again.added == 0)
        #expect(again.skipped == 2)
    }

    @Test func trashCannotTakeAnImport() throws {
        let service = try makeService(inbox: [])
        let messages = [MailImport.prepare(rawMail("Bin"), sender: nil, now: fixedNow)]
        #expect(throws: ServiceError.refused("Mail cannot be imported into Trash; name another mailbox.")) {
            try service.importMail(messages, into: "Trash")
        }
    }
}

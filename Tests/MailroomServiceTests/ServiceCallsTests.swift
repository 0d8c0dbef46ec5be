import MailroomCore
import MailroomService
import Testing

/// The calls the doors make for one message, one mailbox, or messages named by id or search,
/// each durable on return and refused in the service's own words.
@Suite struct ServiceCallsTests {
    @Test func aTypedMessageGoesOnTopAndAnInvalidOneIsRefused() throws {
        let service = try makeService(inbox: ["One"])
        let id = try service.add(Draft(subject: "Two", body: "Hello"), to: .inbox)
        #expect(service.subjects(in: .inbox) == ["Two", "One"])
        #expect(service.library[.inbox]?.messages.first?.id == id)
        #expect(throws: ServiceError.self) { try service.add(Draft(subject: "  "), to: .inbox) }
        #expect(service.subjects(in: .inbox) == ["Two", "One"])
    }

    @Test func editingAMessageThatIsGoneIsNotFound() throws {
        let service = try makeService(inbox: ["One"])
        try service.edit(MessageID(1), with: Draft(subject: "Uno", body: "Changed"))
        #expect(service.subjects(in: .inbox) == ["Uno"])
        #expect(throws: ServiceError.notFound("There is no message 42.")) {
            try service.edit(MessageID(42), with: Draft(subject: "x", body: "y"))
        }
    }

    @Test func mailboxesAreMadeRenamedRoutedAndDeletedToTrash() throws {
        let service = try makeService(inbox: ["One"])
        let work = try service.createMailbox(named: "Work")
        #expect(throws: ServiceError.self) { try service.createMailbox(named: "work") }
        try service.renameMailbox(work, to: "Jobs")
        #expect(service.library[work]?.name == "Jobs")
        try service.setAddresses(["jobs@example.test"], for: work)
        _ = try service.deliver(rawMail("Offer", to: "jobs@example.test"), to: ["jobs@example.test"]).get()
        #expect(service.subjects(in: work) == ["Offer"])
        #expect(try service.deleteMailbox(work) == 1)
        #expect(service.subjects(in: .trash) == ["Offer"])
        #expect(throws: ServiceError.notFound("There is no mailbox \(work).")) { try service.renameMailbox(work, to: "Again") }
        #expect(try service.emptyTrash() == 1)
        #expect(service.subjects(in: .trash) == [])
    }

    @Test func markingSaysWhetherTheMessageWasStillWhereThePageShowedIt() throws {
        let service = try makeService(inbox: ["One"], archive: ["Two"])
        #expect(try service.mark(MessageID(1), .read, shownIn: .inbox) == .done(isUnread: false))
        #expect(try service.mark(MessageID(1), .unread, shownIn: nil) == .done(isUnread: true))
        #expect(try service.mark(MessageID(2), .flag, shownIn: .inbox) == .elsewhere)
        #expect(service.library[.archive]?.messages.first?.isFlagged == false)
        #expect(try service.mark(MessageID(9), .flag, shownIn: nil) == .gone)
        try service.markOpened(MessageID(2))
        #expect(service.library[.archive]?.messages.first?.isUnread == false)
    }

    @Test func oneMessageIsRemovedWithAnUndoAndRestored() throws {
        let service = try makeService(inbox: ["One", "Two"])
        let notice = try service.remove(MessageID(2), .delete, from: .inbox)
        #expect(notice.undo == [MessageID(2)])
        #expect(service.subjects(in: .trash) == ["Two"])
        _ = try service.remove(MessageID(2), .restore, from: .trash)
        #expect(service.subjects(in: .inbox) == ["One", "Two"])
    }

    @Test func idsAreActedOnWhereverTheyAreAndTheMissingCountedAsGone() throws {
        let service = try makeService(inbox: ["One"], archive: ["Two"])
        let tally = try service.run(.flag, on: [MessageID(1), MessageID(2), MessageID(77)], pageSize: 50)
        #expect(tally == Mailroom.Tally(changed: 2, gone: 1))
        #expect(service.library[.inbox]?.messages.first?.isFlagged == true)
        #expect(service.library[.archive]?.messages.first?.isFlagged == true)
    }

    @Test func aSearchActsOnlyOnWhatWasThereAtItsRevision() throws {
        let service = try makeService(inbox: ["Report one", "Other"])
        let asOf = service.store.revision
        _ = try service.deliver(rawMail("Report two")).get()
        let tally = try service.run(.removeSelected(.delete), matching: "report", in: .inbox, asOf: asOf, pageSize: 50)
        #expect(tally.changed == 1)
        #expect(service.subjects(in: .inbox) == ["Report two", "Other"])
        #expect(service.subjects(in: .trash) == ["Report one"])
    }
}

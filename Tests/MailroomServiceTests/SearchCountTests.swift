import MailroomCore
import MailroomService
import MailroomStore
import Testing

/// A search's pages count their matches once per revision of the mailbox: the count is kept
/// while nothing there changes, and counted again as soon as something does.
@Suite struct SearchCountTests {
    /// One page of `text`'s matches in `box`, as the doors read it.
    func page(_ service: Mailroom, _ text: String, in box: MailboxID = .inbox, from place: PagePlace = .top) throws -> ListSlice {
        let query = try SearchQuery(text)
        let revision = service.revision(of: box)
        return try service.read { reader throws(StoreError) in
            try service.search(query, in: box, from: place, limit: 2, reader: reader, revision: revision)
        }
    }

    @Test func everyPageOfOneSearchSaysTheCountMadeForTheFirst() throws {
        let service = try makeService(inbox: ["Paper jam 1", "Paper jam 2", "Paper jam 3", "Toner low"])
        let first = try page(service, "jam")
        #expect(first.total == 3 && first.rows.count == 2 && first.hasOlder)
        #expect(service.searchCountsKept == 0)
        let older = try page(service, "jam", from: .below(try #require(first.keys.last)))
        #expect(older.total == 3 && older.rows.map(\.subject) == ["Paper jam 1"])
        #expect(service.searchCountsKept == 1)
        // Another search is counted for itself.
        #expect(try page(service, "toner").total == 1)
        #expect(service.searchCountsKept == 1)
    }

    @Test func mailThatArrivesIsCountedAtOnce() throws {
        let service = try makeService(inbox: ["Paper jam 1", "Paper jam 2"])
        #expect(try page(service, "jam").total == 2)
        _ = try service.deliver(rawMail("Paper jam again")).get()
        let after = try page(service, "jam")
        #expect(after.total == 3)
        #expect(after.rows.first?.subject == "Paper jam again")
        #expect(service.searchCountsKept == 0)
    }

    @Test func aMessageMarkedReadIsCountedAgainForIsUnread() throws {
        let service = try makeService(inbox: ["Paper jam 1", "Paper jam 2"])
        #expect(try page(service, "jam is:unread").total == 2)
        _ = try service.run(.markRead, in: .inbox, state: ListState(mode: .active, selection: [MessageID(1)]), pageSize: 2)
        #expect(try page(service, "jam is:unread").total == 1)
        #expect(service.searchCountsKept == 0)
    }

    @Test func aChangeInAnotherMailboxKeepsTheCount() throws {
        let service = try makeService(inbox: ["Paper jam 1", "Paper jam 2"], archive: ["Paper jam filed"])
        #expect(try page(service, "jam").total == 2)
        _ = try service.run(.flag, in: .archive, state: ListState(mode: .active, selection: [MessageID(3)]), pageSize: 2)
        #expect(try page(service, "jam").total == 2)
        #expect(try page(service, "jam", in: .archive).total == 1)
        #expect(service.searchCountsKept == 1)
    }
}

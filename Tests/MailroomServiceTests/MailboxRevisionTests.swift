import MailroomCore
import MailroomService
import Testing

/// Caches are kept per mailbox: a change in one leaves every other mailbox's values.
@Suite struct MailboxRevisionTests {
    @Test func mailIntoTheInboxLeavesTheArchiveAtItsRevision() throws {
        let service = try makeService(inbox: ["One"], archive: ["Kept"])
        let (inbox, archive) = (service.revision(of: .inbox), service.revision(of: .archive))
        _ = try service.deliver(rawMail("New")).get()
        #expect(service.revision(of: .inbox) > inbox)
        #expect(service.revision(of: .archive) == archive)
    }

    @Test func aCommandThatCannotSayWhatItChangedMovesEveryMailbox() throws {
        let service = try makeService(inbox: ["One"], archive: ["Kept"])
        let archive = service.revision(of: .archive)
        try service.perform { transaction in _ = try transaction.setFlagged(true, for: [MessageID(1)], in: .inbox) }
        #expect(service.revision(of: .archive) > archive)
    }

    @Test func aCommandThatNamesItsMailboxMovesOnlyThatOne() throws {
        let service = try makeService(inbox: ["One"], archive: ["Kept"])
        let archive = service.revision(of: .archive)
        try service.perform(touching: ListCommand.flag.touches(in: .inbox)) { transaction in
            _ = try transaction.setFlagged(true, for: [MessageID(1)], in: .inbox)
        }
        #expect(service.revision(of: .inbox) == service.store.revision)
        #expect(service.revision(of: .archive) == archive)
    }

    @Test func aCachedValueOutlivesChangesToOtherMailboxes() throws {
        let service = try makeService(inbox: ["One"], archive: ["Kept"])
        let cache = RevisionCache<String, String>()
        cache.store("archive page", for: "top", in: .archive, revision: service.revision(of: .archive))
        cache.store("inbox page", for: "top", in: .inbox, revision: service.revision(of: .inbox))
        _ = try service.deliver(rawMail("New")).get()
        #expect(cache.value("top", in: .archive, revision: service.revision(of: .archive)) == "archive page")
        #expect(cache.value("top", in: .inbox, revision: service.revision(of: .inbox)) == nil)
        #expect(cache.hits.load(ordering: .relaxed) == 1)
    }

    @Test func staleValuesAreLetGoAtRestWhileCurrentOnesStay() throws {
        let service = try makeService(inbox: ["One"], archive: ["Kept"])
        let cache = RevisionCache<String, String>()
        service.dropsStale(cache)
        cache.store("archive page", for: "top", in: .archive, revision: service.revision(of: .archive), cost: 100)
        cache.store("inbox page", for: "top", in: .inbox, revision: service.revision(of: .inbox), cost: 300)
        service.dropStaleValues()
        #expect(cache.held == (2, 400), "nothing changed: everything kept is current")
        _ = try service.deliver(rawMail("New")).get()
        #expect(cache.held == (2, 400), "let go only when the service says")
        service.dropStaleValues()
        #expect(cache.held == (1, 100))
        #expect(cache.value("top", in: .archive, revision: service.revision(of: .archive)) == "archive page")
    }

    @Test func aShelfKeptAgainAtTheNewRevisionIsNotDropped() {
        let cache = RevisionCache<String, Int>()
        cache.store(1, for: "top", in: .inbox, revision: 1)
        cache.dropStale { _ in 1 }
        #expect(cache.held.entries == 1)
        // A value of the new revision is kept while the stale shelf is being found.
        cache.dropStale { _ in
            cache.store(2, for: "top", in: .inbox, revision: 2)
            return 2
        }
        #expect(cache.value("top", in: .inbox, revision: 2) == 2)
        cache.dropStale { _ in 3 }
        #expect(cache.held.entries == 0)
    }

    @Test func anOlderRevisionNeverReplacesANewerOne() {
        let cache = RevisionCache<String, Int>()
        cache.store(2, for: "top", in: .inbox, revision: 2)
        cache.store(1, for: "top", in: .inbox, revision: 1)
        #expect(cache.value("top", in: .inbox, revision: 2) == 2)
        #expect(cache.value("top", in: .inbox, revision: 1) == nil)
    }

    @Test func theCacheStartsOverPastItsBounds() {
        let cache = RevisionCache<Int, Int>(maxEntries: 2, maxCost: 10)
        cache.store(1, for: 1, in: .inbox, revision: 1)
        cache.store(2, for: 2, in: .archive, revision: 1)
        cache.store(3, for: 3, in: .archive, revision: 1)
        #expect(cache.value(1, in: .inbox, revision: 1) == nil)
        #expect(cache.value(3, in: .archive, revision: 1) == 3)
        cache.store(4, for: 4, in: .inbox, revision: 1, cost: 11)
        #expect(cache.value(4, in: .inbox, revision: 1) == nil)
    }
}

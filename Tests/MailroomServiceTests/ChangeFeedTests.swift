import Dispatch
import MailroomCore
import MailroomService
import Synchronization
import Testing

/// After each durable commit the service wakes waiters and publishes one event, in the words
/// the door chose.
@Suite struct ChangeFeedTests {
    @Test func eachCommitIsOneEventDescribedByTheDoor() throws {
        let library = Library(inbox: Mailbox())
        let service = try Mailroom(library: library, now: { fixedNow }, describeChange: { revision, counts in
            "revision \(revision), counts \(counts == nil ? "left out" : "given")"
        })
        let before = service.events.lastID
        _ = try service.deliver(rawMail("One")).get()
        let events = try #require(service.events.events(after: before))
        #expect(events.map(\.data) == ["revision \(before + 1), counts left out"])
        #expect(events.map(\.id) == [service.store.revision])
    }

    @Test func theCountsAreReadWhileSomeListListens() throws {
        let service = try Mailroom(library: Library(inbox: Mailbox()), now: { fixedNow }, describeChange: { _, counts in
            guard let counts else { return "none" }
            return counts.map { summary in "\(summary.name) \(summary.unreadCount)" }.joined(separator: ",")
        })
        service.metrics.eventClients.wrappingAdd(1, ordering: .relaxed)
        _ = try service.deliver(rawMail("One")).get()
        #expect(service.events.events(after: service.store.revision - 1)?.first?.data.contains("Inbox 1") == true)
    }

    @Test func aWaiterWakesWhenTheNextCommitLands() throws {
        let service = try makeService(inbox: [])
        let seen = service.store.revision
        let woke = Shared(false)
        let done = DispatchSemaphore(value: 0)
        let watch = service.commitWatch
        let store = service.store
        DispatchQueue.global().async {
            let passed = watch.wait(beyond: seen, revision: { store.revision }, until: .now() + .seconds(30))
            woke.value.withLock { $0 = passed }
            done.signal()
        }
        _ = try service.deliver(rawMail("One")).get()
        done.wait()
        #expect(woke.value.withLock { $0 })
        #expect(watch.sinceLastCommit() != nil)
    }
}

import MailroomCore
@testable import MailroomStore
import Testing

/// "All N" as a few statements: exactly the messages that were there at the revision, and an
/// Undo by batch that puts each back in its place, also when others took a place meanwhile.
@Suite struct EverythingTests {
    private func store(_ path: String, inbox count: Int) throws -> Store {
        let store = try Store(path: path)
        var library = Library()
        for index in (1...count).reversed() {
            try library.add(Draft(subject: "Message \(index)"), to: .inbox, at: Int64(index))
        }
        try store.write { try $0.replaceAll(with: library) }
        return store
    }

    private func inbox(_ store: Store) throws -> [Int64] {
        try store.library()[.inbox]?.ids.map(\.rawValue) ?? []
    }

    @Test func deletingEverythingAsOfARevisionLeavesWhatCameLaterAndUndoRestoresTheOrder() throws {
        try withTemporaryPath { path in
            let store = try store(path, inbox: 300)
            defer { store.close() }
            let before = try inbox(store)
            let revision = store.revision
            // After the page was read: one message arrives, one moves away to the Archive.
            try store.write { try $0.add(Draft(subject: "Late"), to: .inbox, at: 1_000) }
            try store.write { try $0.move([MessageID(before[10])], from: .inbox, to: .archive) }
            let (deleted, batch) = try store.write { transaction in
                (try transaction.move(Everything(in: .inbox, asOf: revision), to: .trash), transaction.lastDeletion)
            }
            #expect(deleted == 299)
            #expect(try store.library()[.inbox]?.messages.map(\.subject) == ["Late"])
            let tag = try #require(batch)
            let restored = try store.write { try $0.restore(trashedIn: tag) }
            #expect(restored == 299)
            let expected = [before.count + 1] .map(Int64.init) + before.filter { $0 != before[10] }
            #expect(try inbox(store) == expected)
            #expect(try store.library()[.trash]?.isEmpty == true)
            #expect(try store.integrityCheck() == "ok")
        }
    }

    @Test func undoOfABatchPutsMessagesWhosePlaceWasTakenJustAboveTheRowThatTookIt() throws {
        try withTemporaryPath { path in
            let store = try store(path, inbox: 40)
            defer { store.close() }
            let before = try inbox(store)
            let (deleted, batch) = try store.write { transaction in
                (try transaction.move(Everything(in: .inbox, asOf: store.revision), to: .trash), transaction.lastDeletion)
            }
            #expect(deleted == 40)
            // A new message in the emptied Inbox takes the first rank, which was the bottom
            // message's: that one goes back just above it, every other straight to its place.
            let late = try store.write { try $0.add(Draft(subject: "Late"), to: .inbox, at: 1_000) }
            let rank = try store.read { reader throws(StoreError) in try reader.page(of: .inbox, from: .top, limit: 1).keys }
            #expect(rank == [Rank.gap])
            #expect(try store.write { try $0.restore(trashedIn: try #require(batch)) } == 40)
            #expect(try inbox(store) == before + [late.id.rawValue])
        }
    }

    @Test func everythingThatMatchesASearchIsOnlyTheMatches() throws {
        try withTemporaryPath { path in
            let store = try store(path, inbox: 30)
            defer { store.close() }
            let query = try SearchQuery("\"message 1\"*")
            let flagged = try store.write { try $0.setFlagged(true, for: Everything(in: .inbox, asOf: store.revision, matching: query)) }
            let library = try store.library()
            let subjects = library[.inbox]?.messages.filter(\.isFlagged).map(\.subject).sorted() ?? []
            // "message 1" followed by a word starting with 1: none; "message" then "1*": 1, 10-19.
            #expect(flagged == subjects.count)
            #expect(subjects.allSatisfy { $0 == "Message 1" || $0.hasPrefix("Message 1") })
            #expect(subjects.count == 11)
        }
    }
}

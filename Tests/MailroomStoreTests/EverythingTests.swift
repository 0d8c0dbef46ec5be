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
            #expect(try store.integrityCheck() == "ok")
        }
    }

    /// Bulk statements keep the mailboxes' counts themselves (the per-row trigger is off while
    /// they run); every count must still agree with the rows, and single changes after them
    /// must be counted by the trigger again.
    @Test func bulkChangesKeepEveryMailboxsCountsTrue() throws {
        try withTemporaryPath { path in
            let store = try store(path, inbox: 50)
            defer { store.close() }
            func counts(_ box: MailboxID) throws -> (Int, Int)? {
                try store.read { reader throws(StoreError) in try reader.mailboxes() }
                    .first { $0.id == box }.map { ($0.count, $0.unreadCount) }
            }
            try store.write { try $0.setUnread(false, for: (1...10).map { MessageID(Int64($0)) }, in: .inbox) }
            #expect(try counts(.inbox)! == (50, 40))
            #expect(try store.write { try $0.setUnread(false, for: Everything(in: .inbox, asOf: store.revision)) } == 50)
            #expect(try counts(.inbox)! == (50, 0))
            try store.write { try $0.setUnread(true, for: (1...5).map { MessageID(Int64($0)) }, in: .inbox) }
            #expect(try counts(.inbox)! == (50, 5))
            let query = try SearchQuery("is:unread")
            #expect(try store.write { try $0.move(Everything(in: .inbox, asOf: store.revision, matching: query), to: .archive) } == 5)
            #expect(try counts(.inbox)! == (45, 0))
            #expect(try counts(.archive)! == (5, 5))
            let batch = try store.write { transaction in
                try transaction.move(Everything(in: .archive, asOf: store.revision), to: .trash)
                return transaction.lastDeletion
            }
            try store.write { try $0.move(Everything(in: .inbox, asOf: store.revision), to: .trash) }
            #expect(try counts(.archive)! == (0, 0))
            #expect(try counts(.trash)! == (50, 5))
            #expect(try store.write { try $0.restore(trashedIn: try #require(batch)) } == 5)
            #expect(try counts(.archive)! == (5, 5))
            #expect(try counts(.trash)! == (45, 0))
            try store.write { try $0.move([MessageID(1)], from: .archive, to: .inbox) }
            #expect(try counts(.inbox)! == (1, 1))
            #expect(try store.integrityCheck() == "ok")
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

    /// Headers and bodies live beside the rows that place them: every way of destroying a
    /// message takes both with it, and its words leave the search index.
    @Test func destroyingMessagesLeavesNoHeadersBodiesOrIndexEntriesBehind() throws {
        try withTemporaryPath { path in
            let store = try store(path, inbox: 30)
            defer { store.close() }
            func left(_ sql: String) throws -> Int { try store.read { reader throws(StoreError) in try reader.count(sql, []) } }
            func matches(_ word: String) throws -> Int {
                try left("SELECT count(*) FROM search WHERE search MATCH '\(word)'")
            }
            #expect(try matches("message") == 30)
            try store.write { try $0.move((1...20).map { MessageID(Int64($0)) }, from: .inbox, to: .trash) }
            try store.write { try $0.deletePermanently([MessageID(1), MessageID(2)]) }
            #expect(try left("SELECT count(*) FROM headers") == 28)
            let destroyed = try store.write { try $0.deletePermanently(Everything(in: .trash, asOf: store.revision, matching: try SearchQuery("1*"))) }
            #expect(destroyed == 9)
            #expect(try left("SELECT count(*) FROM headers") == 19)
            #expect(try store.write { try $0.emptyTrash() } == 9)
            for table in ["messages", "headers", "bodies"] {
                #expect(try left("SELECT count(*) FROM \(table)") == 10, "\(table)")
            }
            #expect(try matches("message") == 10)
            #expect(try matches("message AND 15") == 0)
            #expect(try matches("message AND 5") == 1)
        }
    }
}

import Glibc
import MailroomCore
@testable import MailroomStore
import Testing

/// `Tests/Fixtures/schema-2.sqlite` was written by the release before lists at any size (schema
/// 2), through its own pages: the sample Inbox, a mailbox "Projects" with two posts, one message
/// flagged, one deleted to Trash and one archived. Opening it with this build must keep every
/// message, flag, place, mailbox and Trash origin.
///
/// `Tests/Fixtures/schema-3.sqlite` is that file opened by the schema-3 release (commit 5ae26af),
/// which upgraded it, and then changed through that release's pages: message 6 deleted, 4
/// flagged, 2 marked read, and a message 9 ("After the upgrade", by Cy) added on top.
@Suite struct MigrationTests {
    static let fixtures = String(#filePath).split(separator: "/").dropLast(2).joined(separator: "/")
        .prepending("/") + "/Fixtures/"

    /// A copy of a fixture to open (opening migrates the file in place).
    private func withCopy(of name: String = "schema-2.sqlite", _ body: (String) throws -> Void) throws {
        let fixture = Self.fixtures + name
        let bytes = try #require(contents(of: fixture), "the fixture is missing at \(fixture)")
        try withTemporaryPath { path in
            let file = try #require(fopen(path, "wb"))
            _ = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
            fclose(file)
            try body(path)
        }
    }

    @Test func aSchemaTwoFileOpensMigratedWithEveryMessageInItsPlace() throws {
        try withCopy { path in
            #expect(try Database(path: path).userVersion == 2)
            let store = try Store(path: path)
            defer { store.close() }
            #expect(store.migratedFrom == 2)
            #expect(!store.isNew)
            let library = try store.library()
            #expect(library.mailboxes.map(\.name) == ["Inbox", "Archive", "Trash", "Projects"])
            #expect(library[.inbox]?.ids.map(\.rawValue) == [6, 4, 2, 1])
            #expect(library[.archive]?.ids.map(\.rawValue) == [5])
            #expect(library[.trash]?.ids.map(\.rawValue) == [3])
            #expect(library[MailboxID(rawValue: 100)]?.messages.map(\.subject) == ["Budget review", "Plan for Q1"])
            #expect(library.message(MessageID(2))?.isFlagged == true)
            #expect(library.message(MessageID(2))?.isUnread == true)
            #expect(library.message(MessageID(1))?.isUnread == false)
            #expect(library.message(MessageID(5))?.isFlagged == true)
            #expect(library.message(MessageID(7))?.body == "Draft the plan")
            #expect(library.message(MessageID(8))?.author == "Bob")
            #expect(library.message(MessageID(3))?.origin?.mailbox == .inbox)
            #expect(library.nextMessageID == 9)
            #expect(library.nextMailboxID == 101)
            // Counts are kept, not counted on a page load.
            let summaries = try store.read { reader throws(StoreError) in try reader.mailboxes() }
            #expect(summaries.map(\.count) == [4, 1, 1, 2])
            #expect(summaries.map(\.unreadCount) == [3, 1, 0, 2])
            #expect(try store.integrityCheck() == "ok")
            #expect(try store.setting("form-token", orMake: { "new" }) != "new", "the form token survives")
        }
    }

    @Test func aTrashedMessageFromSchemaTwoGoesBackToItsOldPlace() throws {
        try withCopy { path in
            let store = try Store(path: path)
            defer { store.close() }
            // Message 3 was between 4 (above) and 2 (below) when it was deleted.
            try store.write { try $0.restore([MessageID(3)]) }
            #expect(try store.library()[.inbox]?.ids.map(\.rawValue) == [6, 4, 3, 2, 1])
        }
    }

    @Test func theSearchIndexCoversMigratedMessages() throws {
        try withCopy { path in
            let store = try Store(path: path)
            defer { store.close() }
            let found = try store.read { reader throws(StoreError) in
                try reader.rows("WHERE m.id IN (SELECT rowid FROM search WHERE search MATCH ?) ORDER BY m.id", [.text("\"plan\"")])
            }
            #expect(found.map(\.message.id.rawValue) == [7])
        }
    }

    @Test func aSchemaThreeFileOpensWithItsMessagesSplitFromTheirHeadersAndNothingLost() throws {
        try withCopy(of: "schema-3.sqlite") { path in
            #expect(try Database(path: path).userVersion == 3)
            let store = try Store(path: path)
            defer { store.close() }
            #expect(store.migratedFrom == 3)
            #expect(try Database(path: path).userVersion == 5)
            let library = try store.library()
            #expect(library.mailboxes.map(\.name) == ["Inbox", "Archive", "Trash", "Projects"])
            #expect(library[.inbox]?.ids.map(\.rawValue) == [9, 4, 2, 1])
            #expect(library[.archive]?.ids.map(\.rawValue) == [5])
            #expect(library[.trash]?.ids.map(\.rawValue) == [6, 3])
            #expect(library[MailboxID(rawValue: 100)]?.messages.map(\.subject) == ["Budget review", "Plan for Q1"])
            #expect(library.message(MessageID(9))?.subject == "After the upgrade")
            #expect(library.message(MessageID(9))?.body == "Written by schema 3")
            #expect(library.message(MessageID(9))?.author == "Cy")
            #expect(library.message(MessageID(4))?.isFlagged == true)
            #expect(library.message(MessageID(2))?.isUnread == false)
            #expect(library.nextMessageID == 10)
            let summaries = try store.read { reader throws(StoreError) in try reader.mailboxes() }
            #expect(summaries.map(\.count) == [4, 1, 2, 2])
            #expect(summaries.map(\.unreadCount) == [2, 1, 1, 2])
            let found = try store.read { reader throws(StoreError) in
                try reader.rows("WHERE m.id IN (SELECT rowid FROM search WHERE search MATCH ?) ORDER BY m.id", [.text("schema")])
            }
            #expect(found.map(\.message.id.rawValue) == [9])
            #expect(try store.integrityCheck() == "ok")
            // Message 6 was on top when it was deleted; 9 has taken its rank since, so 6 goes
            // back just above it. Then it can be destroyed, words and all.
            try store.write { try $0.restore([MessageID(6)]) }
            #expect(try store.library()[.inbox]?.ids.map(\.rawValue) == [6, 9, 4, 2, 1])
            func matches(_ word: String) throws -> Int {
                try store.read { reader throws(StoreError) in
                    try reader.count("SELECT count(*) FROM search WHERE search MATCH ?", [.text(word)])
                }
            }
            #expect(try matches("password") == 1)
            try store.write { try $0.emptyTrash() }
            #expect(try matches("password") == 0)
            #expect(try store.integrityCheck() == "ok")
        }
    }

    @Test func aMigratedFileReopensWithoutMigratingAgain() throws {
        try withCopy { path in
            try Store(path: path).close()
            let again = try Store(path: path)
            defer { again.close() }
            #expect(again.migratedFrom == nil)
            #expect(try Database(path: path).userVersion == 5)
        }
    }
}

extension String {
    fileprivate func prepending(_ prefix: String) -> String { prefix + self }
}

import Glibc
import MailroomCore
@testable import MailroomStore
import Testing

/// `Tests/Fixtures/schema-2.sqlite` was written by the release before lists at any size (schema
/// 2), through its own pages: the sample Inbox, a mailbox "Projects" with two posts, one message
/// flagged, one deleted to Trash and one archived. Opening it with this build must keep every
/// message, flag, place, mailbox and Trash origin.
@Suite struct MigrationTests {
    static let fixture = String(#filePath).split(separator: "/").dropLast(2).joined(separator: "/")
        .prepending("/") + "/Fixtures/schema-2.sqlite"

    /// A copy of the fixture to open (opening migrates the file in place).
    private func withCopy(_ body: (String) throws -> Void) throws {
        let bytes = try #require(contents(of: Self.fixture), "the fixture is missing at \(Self.fixture)")
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

    @Test func aMigratedFileReopensWithoutMigratingAgain() throws {
        try withCopy { path in
            try Store(path: path).close()
            let again = try Store(path: path)
            defer { again.close() }
            #expect(again.migratedFrom == nil)
            #expect(try Database(path: path).userVersion == 4)
        }
    }
}

extension String {
    fileprivate func prepending(_ prefix: String) -> String { prefix + self }
}

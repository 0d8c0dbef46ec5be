import MailroomCore
@testable import MailroomStore
import Testing

@Suite struct AtomicSaveTests {
    /// A library with one saved message, and the store that holds it.
    private func storeWithOneMessage(at path: String) throws -> (Store, Library) {
        let store = try Store(path: path)
        var library = Library()
        try library.add(Draft(subject: "already there"), to: .inbox, at: 1)
        try store.save(library.changes(since: Library()))
        return (store, library)
    }

    private func orphan(subject: String = "orphan") -> StoredMessage {
        StoredMessage(
            message: Message(id: MessageID(999), subject: subject, createdAt: 5), mailbox: MailboxID(rawValue: 555),
            position: 0)
    }

    @Test func aSaveThatFailsHalfWayChangesNothingInTheFile() throws {
        try withTemporaryPath { path in
            let (store, library) = try storeWithOneMessage(at: path)
            var next = library
            try next.add(Draft(subject: "written first"), to: .inbox, at: 2)
            let box = try next.createMailbox(named: "New box")
            var changes = next.changes(since: library)
            // Sorted last, so the good rows before it are written, then undone.
            changes.savedMessages.append(orphan())

            let error = #expect(throws: StoreError.self) { try store.save(changes) }
            guard case .sqlite(let code, _, _) = error else {
                Issue.record("expected a SQLite error, got \(String(describing: error))")
                return
            }
            #expect(code == 787, "SQLITE_CONSTRAINT_FOREIGNKEY")

            let loaded = try store.load()
            #expect(Snapshot(loaded) == Snapshot(library))
            #expect(loaded[box] == nil)
            #expect(loaded.nextMessageID == library.nextMessageID)
            #expect(try store.integrityCheck() == "ok")

            // The store is still usable, and the same changes without the bad row go in.
            try store.save(next.changes(since: library))
            #expect(Snapshot(try store.load()) == Snapshot(next))
            store.close()
        }
    }

    @Test func deletingAMailboxThatStillHoldsMessagesFailsAndChangesNothing() throws {
        try withTemporaryPath { path in
            let (store, library) = try storeWithOneMessage(at: path)
            var next = library
            try next.renameMailbox(try next.createMailbox(named: "Doomed"), to: "Renamed")
            var changes = next.changes(since: library)
            changes.deletedMailboxes.append(.inbox)

            #expect(throws: StoreError.self) { try store.save(changes) }
            #expect(Snapshot(try store.load()) == Snapshot(library))
            store.close()
        }
    }

    @Test func theErrorForAFailingSaveNamesTheSQLButNotTheValuesBoundToIt() throws {
        try withTemporaryPath { path in
            let (store, library) = try storeWithOneMessage(at: path)
            var changes = library.changes(since: library)
            changes.savedMessages.append(orphan(subject: "TOP-SECRET-SUBJECT"))

            let error = #expect(throws: StoreError.self) { try store.save(changes) }
            let text = error?.description ?? ""
            #expect(text.contains("INSERT INTO messages"))
            #expect(text.contains("FOREIGN KEY constraint failed"))
            #expect(!text.contains("TOP-SECRET-SUBJECT"))
            #expect(!text.contains("555"))
            store.close()
        }
    }

    @Test func aFailingStatementReportsItsSQLTextWithPlaceholdersNotItsValues() throws {
        try withTemporaryPath { path in
            let database = try Database(path: path)
            try database.execute("CREATE TABLE notes (text TEXT NOT NULL CHECK (length(text) < 5))")
            let insert = try database.prepare("INSERT INTO notes (text) VALUES (?)")
            let error = #expect(throws: StoreError.self) { try insert.run([.text("a secret value")]) }
            guard case .sqlite(_, let message, let sql) = error else {
                Issue.record("expected a SQLite error, got \(String(describing: error))")
                return
            }
            #expect(sql == "INSERT INTO notes (text) VALUES (?)")
            #expect(message.contains("CHECK constraint failed"))
            #expect(error?.description.contains("a secret value") == false)
        }
    }

    @Test func aTransactionThatThrowsIsRolledBack() throws {
        try withTemporaryPath { path in
            let database = try Database(path: path)
            try database.execute("CREATE TABLE notes (text TEXT NOT NULL)")
            #expect(throws: StoreError.closed) {
                try database.transaction { () throws(StoreError) in
                    try database.execute("INSERT INTO notes VALUES ('gone')")
                    throw StoreError.closed
                }
            }
            let count = try database.prepare("SELECT count(*) FROM notes")
            #expect(try count.step())
            #expect(try count.integer(at: 0) == 0)
        }
    }

    @Test func textWithNULBytesAndEmptyStringsRoundTripExactly() throws {
        try withTemporaryPath { path in
            let database = try Database(path: path)
            try database.execute("CREATE TABLE notes (text TEXT NOT NULL)")
            let values = ["", "a\u{0}b", "✉️ Zoë", "'quoted' \"twice\""]
            let insert = try database.prepare("INSERT INTO notes VALUES (?)")
            for value in values { try insert.run([.text(value)]) }
            let select = try database.prepare("SELECT text FROM notes ORDER BY rowid")
            var read: [String] = []
            while try select.step() { read.append(try select.text(at: 0)) }
            #expect(read == values)
        }
    }
}

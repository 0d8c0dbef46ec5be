import MailroomCore
@testable import MailroomStore
import Testing

@Suite struct SchemaTests {
    @Test func aFreshFileMigratesToVersionOneAndLoadsAnEmptyLibraryWithTheThreeBuiltInMailboxes() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            let library = try store.load()
            #expect(library == Library())
            #expect(library.mailboxes.map(\.name) == ["Inbox", "Archive", "Trash"])
            #expect(library.mailboxes.allSatisfy { $0.isEmpty })
            #expect(library.nextMessageID == 1)
            #expect(library.nextMailboxID == MailboxID.firstCustom)
            store.close()
            #expect(try Database(path: path).userVersion == 1)
        }
    }

    @Test func migrationsAreInStrictlyIncreasingVersionOrderEndingAtTheCurrentOne() {
        let versions = Schema.migrations.map(\.version)
        #expect(versions == versions.sorted())
        #expect(Set(versions).count == versions.count)
        #expect(versions.first == 1)
        #expect(Schema.currentVersion == 1)
    }

    @Test func reopeningAnUpToDateFileRunsNoMigrationAndKeepsItsData() throws {
        try withTemporaryPath { path in
            var library = Library()
            let store = try Store(path: path)
            try library.add(Draft(subject: "kept"), to: .inbox, at: 1)
            try store.save(library.changes(since: Library()))
            store.close()
            let reopened = try Store(path: path)
            #expect(try reopened.load().message(MessageID(1))?.subject == "kept")
            reopened.close()
            #expect(try Database(path: path).userVersion == Schema.currentVersion)
        }
    }

    @Test func aFileFromANewerMailroomIsRefusedAndLeftUntouched() throws {
        try withTemporaryPath { path in
            do {
                let database = try Database(path: path)
                try database.execute("CREATE TABLE future (x)")
                try database.setUserVersion(99)
            }
            let before = contents(of: path)
            #expect(throws: StoreError.newerSchema(path: path, found: 99, known: 1)) {
                _ = try Store(path: path)
            }
            #expect(contents(of: path) == before)
            #expect(!fileExists(path + "-wal"))
            #expect(try Database(path: path).userVersion == 99)
        }
    }

    @Test func theNewerVersionErrorSaysWhatHappenedInASentence() {
        let error = StoreError.newerSchema(path: "/srv/mail.sqlite", found: 99, known: 1)
        #expect(error.description.contains("/srv/mail.sqlite"))
        #expect(error.description.contains("newer Mailroom"))
        #expect(error.description.contains("schema version 99, this build knows 1"))
    }
}

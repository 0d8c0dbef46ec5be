import MailroomCore
@testable import MailroomStore
import Testing

@Suite struct SchemaTests {
    @Test func aFreshFileMigratesToTheCurrentVersionAndLoadsAnEmptyLibraryWithTheThreeBuiltInMailboxes() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            #expect(store.isNew)
            let library = try store.library()
            #expect(library == Library())
            #expect(library.mailboxes.map(\.name) == ["Inbox", "Archive", "Trash"])
            #expect(library.mailboxes.allSatisfy { $0.isEmpty })
            #expect(library.nextMessageID == 1)
            #expect(library.nextMailboxID == MailboxID.firstCustom)
            store.close()
            #expect(try Database(path: path).userVersion == Schema.currentVersion)
        }
    }

    /// A file made by the first schema (before settings existed) gains the settings table and
    /// keeps every message, mailbox and counter.
    @Test func aVersionOneFileMigratesToVersionTwoAndKeepsItsData() throws {
        try withTemporaryPath { path in
            do {
                let database = try Database(path: path)
                try Schema.apply(Schema.migrations.filter { $0.version == 1 }, to: database)
                try database.execute("""
                    INSERT INTO mailboxes (id, name) VALUES (100, 'Projects');
                    INSERT INTO messages VALUES (7, 100, 0, 'old', 'body', 'Ann', 5, 1, 1, NULL, NULL, NULL);
                    UPDATE counters SET value = 8 WHERE name = 'next_message_id';
                    UPDATE counters SET value = 101 WHERE name = 'next_mailbox_id';
                    """)
                #expect(try database.userVersion == 1)
            }
            let store = try Store(path: path)
            #expect(!store.isNew)
            let library = try store.library()
            #expect(library[MailboxID(rawValue: 100)]?.name == "Projects")
            #expect(library.message(MessageID(7))?.subject == "old")
            #expect(library.message(MessageID(7))?.isFlagged == true)
            #expect(library.nextMessageID == 8)
            #expect(try store.setting("probe", orMake: { "made" }) == "made")
            store.close()
            #expect(try Database(path: path).userVersion == Schema.currentVersion)
        }
    }

    @Test func aSettingIsMadeOnceAndReadBackAfterAReopen() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            let first = try store.setting("form-token", orMake: { "abc" })
            #expect(try store.setting("form-token", orMake: { "other" }) == first)
            store.close()
            let reopened = try Store(path: path)
            #expect(!reopened.isNew)
            #expect(try reopened.setting("form-token", orMake: { "other" }) == "abc")
            reopened.close()
        }
    }

    @Test func migrationsAreInStrictlyIncreasingVersionOrderEndingAtTheCurrentOne() {
        let versions = Schema.migrations.map(\.version)
        #expect(versions == versions.sorted())
        #expect(Set(versions).count == versions.count)
        #expect(versions.first == 1)
        #expect(Schema.currentVersion == 14)
    }

    @Test func reopeningAnUpToDateFileRunsNoMigrationAndKeepsItsData() throws {
        try withTemporaryPath { path in
            var library = Library()
            let store = try Store(path: path)
            try library.add(Draft(subject: "kept"), to: .inbox, at: 1)
            try store.write { try $0.replaceAll(with: library) }
            store.close()
            let reopened = try Store(path: path)
            #expect(try reopened.library().message(MessageID(1))?.subject == "kept")
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
            #expect(throws: StoreError.newerSchema(path: path, found: 99, known: Schema.currentVersion)) {
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

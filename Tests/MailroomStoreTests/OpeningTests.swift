import CSQLite
import Glibc
import MailroomCore
@testable import MailroomStore
import Testing

@Suite struct OpeningTests {
    @Test func aSecondStoreOnTheSameFileIsRefusedWhileTheFirstIsOpenAndWorksAfterItCloses() throws {
        try withTemporaryPath { path in
            let first = try Store(path: path)
            #expect(throws: StoreError.locked(path: path)) { _ = try Store(path: path) }
            // Refused without harm: the first one still works.
            var library = try first.library()
            try library.add(Draft(subject: "still mine"), to: .inbox, at: 1)
            try first.write { try $0.replaceAll(with: library) }
            first.close()

            let second = try Store(path: path)
            #expect(try second.library().message(MessageID(1))?.subject == "still mine")
            second.close()
        }
    }

    /// SQLite takes the process-wide settings before it first initializes, however the process
    /// first reaches it: its allocations then share no counting lock between threads.
    @Test func sqliteCountsNoMemoryOnceAStoreHasBeenOpened() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            defer { store.close() }
            try store.write { _ = try $0.createMailbox(named: "Scans") }
            #expect(Database.isConfigured)
            #expect(sqlite3_memory_used() == 0)
        }
    }

    @Test func theLockedErrorSaysAnotherMailroomHasTheFile() {
        let text = StoreError.locked(path: "/srv/mail.sqlite").description
        #expect(text.contains("/srv/mail.sqlite"))
        #expect(text.contains("another Mailroom"))
    }

    @Test func aStoreUsedAfterCloseThrowsClosedRatherThanCrashing() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            store.close()
            store.close()
            #expect(throws: StoreError.closed) { _ = try store.library() }
        }
    }

    @Test(arguments: [16, 4096])
    func aFileThatIsNotADatabaseGivesAClearErrorAndIsLeftAlone(size: Int) {
        withTemporaryPath { path in
            let garbage = Array(String(repeating: "This is not a database. ", count: size / 24 + 1).utf8.prefix(size))
            write(garbage, to: path)
            let error = #expect(throws: StoreError.self) { _ = try Store(path: path) }
            #expect(error == .cannotOpen(path: path, reason: "it is not a SQLite database."))
            #expect(error?.description == "Cannot open \(path): it is not a SQLite database.")
            #expect(contents(of: path) == garbage)
        }
    }

    @Test func aPathInAMissingFolderGivesTheCannotOpenError() {
        let path = pathInMissingFolder()
        let error = #expect(throws: StoreError.self) { _ = try Store(path: path) }
        guard case .cannotOpen(let reported, let reason) = error else {
            Issue.record("expected .cannotOpen, got \(String(describing: error))")
            return
        }
        #expect(reported == path)
        #expect(reason == "No such file or directory.")
        #expect(error?.description == "Cannot open \(path): No such file or directory.")
    }

    struct Corruption: CustomTestStringConvertible, Sendable {
        let sql: String
        let complaint: String
        var testDescription: String { complaint }
    }

    static let corruptions = [
        Corruption(
            sql: "INSERT INTO messages VALUES (7, 1, 1, 0, 'yesterday', 1, 0, NULL, NULL, NULL); INSERT INTO headers VALUES (7, 's', '', '')",
            complaint: "the column “created_at” holds text where a whole number belongs"),
        Corruption(
            sql: "INSERT INTO messages VALUES (7, 1, 1, 0, 1, 2, 0, NULL, NULL, NULL); INSERT INTO headers VALUES (7, 's', '', '')",
            complaint: "message 7 has 2 for a yes/no field"),
        Corruption(
            sql: "INSERT INTO messages VALUES (7, 1, 1, 0, 1, 1, 0, NULL, NULL, NULL); INSERT INTO headers VALUES (7, NULL, '', '')",
            complaint: "the column “subject” holds nothing (NULL) where text belongs"),
    ]

    @Test(arguments: corruptions)
    func dataMailroomNeverWritesIsReportedAsInvalidNotCrashedOn(_ corruption: Corruption) throws {
        try withTemporaryPath { path in
            try Store(path: path).close()
            do {
                // A connection of our own, without the foreign keys and NOT NULLs Mailroom keeps.
                let database = try Database(path: path)
                try database.execute("PRAGMA writable_schema = ON")
                try database.execute("""
                    UPDATE sqlite_schema SET sql = replace(sql, 'NOT NULL', '') WHERE name IN ('messages', 'headers')
                    """)
                try database.execute("PRAGMA writable_schema = OFF")
            }
            try Database(path: path).execute(corruption.sql + "; INSERT INTO bodies (id, body) VALUES (7, 'b')")
            let store = try Store(path: path)
            #expect(throws: StoreError.invalidData(corruption.complaint)) { _ = try store.library() }
            store.close()
        }
    }

    /// Readers are never locked out (WAL): a backup or a look with the sqlite3 shell works while
    /// Mailroom serves; only a second Mailroom is refused, by its own lock on the file. The
    /// shell is one of `make test`'s packages: without it this test fails, it is never skipped.
    @Test func anotherProcessCanReadTheFileWhileAStoreHasItOpen() throws {
        #expect(fileExists("/usr/bin/sqlite3"), "the sqlite3 shell is missing: run make test-deps")
        try withTemporaryPath { path in
            let store = try Store(path: path)
            #expect(runSQLite3(path, "SELECT count(*) FROM messages;") == 0)
            #expect(runSQLite3(path, "SELECT count(*) FROM no_such_table;") != 0, "the shell's status says when it fails")
            #expect(throws: StoreError.locked(path: path)) { _ = try Store(path: path) }
            store.close()
        }
    }

    /// Runs the sqlite3 command-line shell, silenced, and returns its exit status.
    private func runSQLite3(_ path: String, _ sql: String) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let arguments = ["sqlite3", "-bail", path, sql]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/usr/bin/sqlite3", &actions, nil, &argv, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return (status >> 8) & 0xFF
    }
}

@Suite struct SettingsTests {
    @Test func anOpenStoreUsesTheWriteAheadLogFullSyncAndForeignKeys() throws {
        try withTemporaryPath { path in
            let store = try Store(path: path)
            // In its own function, so this test's reference to the connection is gone before close().
            try expectSettings(of: try #require(store.openDatabase))
            // Readers on other connections share the log's index through the -shm file.
            #expect(fileExists(path + "-shm"))
            store.close()
            let header = contents(of: path) ?? []
            #expect(header.count > 19 && header[18] == 2 && header[19] == 2, "the file says it uses WAL")
            #expect(!fileExists(path + "-wal"), "closing checkpoints and removes the log")
        }
    }

    private func expectSettings(of database: Database) throws {
        func setting(_ pragma: String) throws -> String {
            let statement = try database.prepare("PRAGMA \(pragma)")
            guard try statement.step() else { return "" }
            return try (try? statement.text(at: 0)) ?? String(statement.integer(at: 0))
        }
        #expect(try setting("journal_mode") == "wal")
        #expect(try setting("synchronous") == "2", "FULL")
        #expect(try setting("foreign_keys") == "1")
        #expect(try setting("locking_mode") == "normal")
    }
}

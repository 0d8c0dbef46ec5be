/// The tables Mailroom keeps, built up by numbered migrations.
///
/// The file's `PRAGMA user_version` says which migrations it has; each missing one runs in its
/// own transaction, which also records its version. Append new migrations; never edit old ones.
enum Schema {
    struct Migration {
        let version: Int32
        let sql: String
    }

    static let migrations: [Migration] = [
        Migration(version: 1, sql: """
            CREATE TABLE mailboxes (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL
            );
            INSERT INTO mailboxes (id, name) VALUES (1, 'Inbox'), (2, 'Archive'), (3, 'Trash');
            CREATE TABLE messages (
                id INTEGER PRIMARY KEY,
                mailbox INTEGER NOT NULL REFERENCES mailboxes(id),
                position INTEGER NOT NULL,
                subject TEXT NOT NULL,
                body TEXT NOT NULL,
                author TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                unread INTEGER NOT NULL,
                flagged INTEGER NOT NULL,
                origin_mailbox INTEGER,
                origin_offset INTEGER,
                origin_anchor INTEGER
            );
            CREATE INDEX messages_by_mailbox ON messages (mailbox, position);
            CREATE TABLE counters (
                name TEXT PRIMARY KEY,
                value INTEGER NOT NULL
            );
            INSERT INTO counters (name, value) VALUES ('next_message_id', 1), ('next_mailbox_id', 100);
            """),
        // Values that must outlive a restart, such as the secret that forms carry.
        Migration(version: 2, sql: """
            CREATE TABLE settings (
                name TEXT PRIMARY KEY,
                value TEXT NOT NULL
            );
            """),
    ]

    static var currentVersion: Int32 { migrations.last?.version ?? 0 }

    /// The migrations `database` still needs; a file from a newer Mailroom is refused, untouched.
    static func pendingMigrations(in database: Database) throws(StoreError) -> [Migration] {
        let version = try database.userVersion
        guard version <= currentVersion else {
            throw .newerSchema(path: database.path, found: version, known: currentVersion)
        }
        return migrations.filter { $0.version > version }
    }

    static func apply(_ pending: [Migration], to database: Database) throws(StoreError) {
        for migration in pending {
            try database.transaction { () throws(StoreError) in
                try database.execute(migration.sql)
                try database.setUserVersion(migration.version)
            }
        }
    }
}

extension Schema {
    /// The first tables: mailboxes, messages with dense positions, and the id counters.
    static let migration1 = Migration(version: 1, sql: """
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
        """)
}

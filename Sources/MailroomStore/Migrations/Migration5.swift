extension Schema {
    /// Mail that arrived over SMTP. Its raw bytes are kept once, however many mailboxes hold
    /// a copy (`raw_mail`), with what was parsed from them (`attachments` per raw message);
    /// each copy's own row in `mail` has the envelope and headers. Addresses route mail to
    /// mailboxes.
    static let migration5 = Migration(version: 5, sql: """
        CREATE TABLE raw_mail (
            id INTEGER PRIMARY KEY,
            bytes BLOB NOT NULL
        );
        CREATE TABLE attachments (
            raw INTEGER NOT NULL,
            part INTEGER NOT NULL,
            name TEXT,
            type TEXT NOT NULL,
            size INTEGER NOT NULL,
            content_id TEXT,
            PRIMARY KEY (raw, part)
        ) WITHOUT ROWID;
        CREATE TABLE mail (
            id INTEGER PRIMARY KEY,
            raw INTEGER NOT NULL,
            envelope_from TEXT NOT NULL,
            envelope_to TEXT NOT NULL,
            from_header TEXT NOT NULL,
            to_header TEXT NOT NULL,
            cc_header TEXT NOT NULL,
            sent_at INTEGER,
            message_id TEXT,
            html TEXT,
            size INTEGER NOT NULL,
            peer TEXT NOT NULL
        );
        CREATE INDEX mail_by_raw ON mail (raw);
        CREATE TABLE addresses (
            pattern TEXT NOT NULL,
            mailbox INTEGER NOT NULL,
            PRIMARY KEY (pattern, mailbox)
        ) WITHOUT ROWID;

        DROP TRIGGER forget_message;
        CREATE TRIGGER forget_message AFTER DELETE ON messages BEGIN
            DELETE FROM bodies WHERE id = OLD.id;
            DELETE FROM headers WHERE id = OLD.id;
            DELETE FROM mail WHERE id = OLD.id;
        END;
        -- The raw bytes go with the last copy that refers to them.
        CREATE TRIGGER forget_mail AFTER DELETE ON mail
        WHEN NOT EXISTS (SELECT 1 FROM mail WHERE raw = OLD.raw) BEGIN
            DELETE FROM raw_mail WHERE id = OLD.raw;
            DELETE FROM attachments WHERE raw = OLD.raw;
        END;
        CREATE TRIGGER forget_addresses AFTER DELETE ON mailboxes BEGIN
            DELETE FROM addresses WHERE mailbox = OLD.id;
        END;
        INSERT OR IGNORE INTO counters (name, value) VALUES ('next_raw_id', 1);

        -- The index's recipients are a mailed message's To, Cc and envelope recipients (a
        -- posted message has none), so to: finds mail. The mail row is written before the
        -- body, and goes after it.
        DROP TRIGGER index_body;
        DROP TRIGGER unindex_body;
        DROP TRIGGER reindex_body;
        DROP TRIGGER reindexed_body;
        DROP TRIGGER reindex_words;
        DROP TRIGGER reindexed_words;
        CREATE TRIGGER index_body AFTER INSERT ON bodies BEGIN
            INSERT INTO search (rowid, subject, author, recipients, body)
                SELECT id, subject, author, \(recipients("NEW")), NEW.body FROM headers WHERE id = NEW.id;
        END;
        CREATE TRIGGER unindex_body BEFORE DELETE ON bodies BEGIN
            INSERT INTO search (search, rowid, subject, author, recipients, body)
                SELECT 'delete', id, subject, author, \(recipients("OLD")), OLD.body FROM headers WHERE id = OLD.id;
        END;
        CREATE TRIGGER reindex_body BEFORE UPDATE OF body ON bodies BEGIN
            INSERT INTO search (search, rowid, subject, author, recipients, body)
                SELECT 'delete', id, subject, author, \(recipients("OLD")), OLD.body FROM headers WHERE id = OLD.id;
        END;
        CREATE TRIGGER reindexed_body AFTER UPDATE OF body ON bodies BEGIN
            INSERT INTO search (rowid, subject, author, recipients, body)
                SELECT id, subject, author, \(recipients("NEW")), NEW.body FROM headers WHERE id = NEW.id;
        END;
        CREATE TRIGGER reindex_words BEFORE UPDATE OF subject, author ON headers BEGIN
            INSERT INTO search (search, rowid, subject, author, recipients, body)
                SELECT 'delete', OLD.id, OLD.subject, OLD.author, \(recipients("OLD")), body FROM bodies WHERE id = OLD.id;
        END;
        CREATE TRIGGER reindexed_words AFTER UPDATE OF subject, author ON headers BEGIN
            INSERT INTO search (rowid, subject, author, recipients, body)
                SELECT NEW.id, NEW.subject, NEW.author, \(recipients("NEW")), body FROM bodies WHERE id = NEW.id;
        END;
        """)
}

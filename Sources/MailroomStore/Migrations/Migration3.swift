extension Schema {
    /// Lists at any size: a sparse rank per message instead of a dense position (a delete or
    /// a move writes only the rows it touches), the revision at which each message entered
    /// its mailbox (so "all N" means the N counted), bodies in a table of their own (a list
    /// page never reads one), counts kept by triggers, and a full-text index kept the same way.
    static let migration3 = Migration(version: 3, sql: """
        CREATE TABLE messages3 (
            id INTEGER PRIMARY KEY,
            mailbox INTEGER NOT NULL REFERENCES mailboxes(id),
            rank INTEGER NOT NULL,
            entered INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            unread INTEGER NOT NULL,
            flagged INTEGER NOT NULL,
            subject TEXT NOT NULL,
            author TEXT NOT NULL,
            preview TEXT NOT NULL,
            origin_mailbox INTEGER,
            origin_rank INTEGER,
            trashed_in INTEGER
        );
        INSERT INTO messages3
            SELECT m.id, m.mailbox, m.position * \(Rank.gap), 0, m.created_at, m.unread, m.flagged,
                   m.subject, m.author, substr(m.body, 1, \(Rank.previewLength)), m.origin_mailbox,
                   CASE WHEN m.origin_mailbox IS NULL THEN NULL ELSE COALESCE(
                       (SELECT a.position * \(Rank.gap) + \(Rank.gap / 2) FROM messages a
                        WHERE a.id = m.origin_anchor AND a.mailbox = m.origin_mailbox),
                       ((SELECT count(*) FROM messages c WHERE c.mailbox = m.origin_mailbox) - 1 - m.origin_offset)
                           * \(Rank.gap) + \(Rank.gap / 2)) END,
                   CASE WHEN m.origin_mailbox IS NULL THEN NULL ELSE 0 END
            FROM messages m;
        CREATE TABLE bodies (
            id INTEGER PRIMARY KEY,
            body TEXT NOT NULL
        );
        INSERT INTO bodies SELECT id, body FROM messages;
        DROP TABLE messages;
        ALTER TABLE messages3 RENAME TO messages;
        -- Not UNIQUE: a swap of two ranks passes through a moment where both rows hold one rank.
        CREATE INDEX messages_by_rank ON messages (mailbox, rank);
        CREATE INDEX messages_by_entry ON messages (mailbox, entered);
        -- Searches list a mailbox's matches newest first, by id.
        CREATE INDEX messages_by_id ON messages (mailbox, id);
        INSERT INTO counters (name, value) VALUES ('revision', 1), ('next_deletion', 1);

        ALTER TABLE mailboxes ADD COLUMN total INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE mailboxes ADD COLUMN unread INTEGER NOT NULL DEFAULT 0;
        UPDATE mailboxes SET
            total = (SELECT count(*) FROM messages WHERE mailbox = mailboxes.id),
            unread = (SELECT count(*) FROM messages WHERE mailbox = mailboxes.id AND unread = 1);
        CREATE TRIGGER count_added AFTER INSERT ON messages BEGIN
            UPDATE mailboxes SET total = total + 1, unread = unread + NEW.unread WHERE id = NEW.mailbox;
        END;
        CREATE TRIGGER count_removed AFTER DELETE ON messages BEGIN
            UPDATE mailboxes SET total = total - 1, unread = unread - OLD.unread WHERE id = OLD.mailbox;
        END;
        CREATE TRIGGER count_changed AFTER UPDATE OF mailbox, unread ON messages
        WHEN OLD.mailbox != NEW.mailbox OR OLD.unread != NEW.unread BEGIN
            UPDATE mailboxes SET total = total - 1, unread = unread - OLD.unread WHERE id = OLD.mailbox;
            UPDATE mailboxes SET total = total + 1, unread = unread + NEW.unread WHERE id = NEW.mailbox;
        END;

        CREATE VIRTUAL TABLE search USING fts5(
            subject, author, recipients, body, content = '', tokenize = 'unicode61 remove_diacritics 2');
        INSERT INTO search (rowid, subject, author, recipients, body)
            SELECT m.id, m.subject, m.author, '', b.body FROM messages m JOIN bodies b USING (id);
        -- The index holds no text of its own, so taking a row out of it needs the words it went in with.
        CREATE TRIGGER index_body AFTER INSERT ON bodies BEGIN
            INSERT INTO search (rowid, subject, author, recipients, body)
                SELECT id, subject, author, '', NEW.body FROM messages WHERE id = NEW.id;
        END;
        CREATE TRIGGER unindex_body BEFORE DELETE ON bodies BEGIN
            INSERT INTO search (search, rowid, subject, author, recipients, body)
                SELECT 'delete', id, subject, author, '', OLD.body FROM messages WHERE id = OLD.id;
        END;
        CREATE TRIGGER reindex_body BEFORE UPDATE OF body ON bodies BEGIN
            INSERT INTO search (search, rowid, subject, author, recipients, body)
                SELECT 'delete', id, subject, author, '', OLD.body FROM messages WHERE id = OLD.id;
        END;
        CREATE TRIGGER reindexed_body AFTER UPDATE OF body ON bodies BEGIN
            INSERT INTO search (rowid, subject, author, recipients, body)
                SELECT id, subject, author, '', NEW.body FROM messages WHERE id = NEW.id;
        END;
        CREATE TRIGGER reindex_words BEFORE UPDATE OF subject, author ON messages BEGIN
            INSERT INTO search (search, rowid, subject, author, recipients, body)
                SELECT 'delete', OLD.id, OLD.subject, OLD.author, '', body FROM bodies WHERE id = OLD.id;
        END;
        CREATE TRIGGER reindexed_words AFTER UPDATE OF subject, author ON messages BEGIN
            INSERT INTO search (rowid, subject, author, recipients, body)
                SELECT NEW.id, NEW.subject, NEW.author, '', body FROM bodies WHERE id = NEW.id;
        END;
        """)
}

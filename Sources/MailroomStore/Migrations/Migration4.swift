extension Schema {
    /// Where a message is apart from what it says: `messages` keeps only the narrow columns a
    /// move, a delete or a mark rewrites, and `headers` the subject, sender and preview. A
    /// delete of 100,000 messages scattered through a million then dirties about 30 MB of
    /// pages instead of 300 MB. Deleting a message takes its headers and body with it.
    /// Searches without words list matches in the mailbox's own order, as the list does.
    static let migration4 = Migration(version: 4, sql: """
        DROP TRIGGER index_body;
        DROP TRIGGER unindex_body;
        DROP TRIGGER reindex_body;
        DROP TRIGGER reindexed_body;
        CREATE TABLE headers (
            id INTEGER PRIMARY KEY,
            subject TEXT NOT NULL,
            author TEXT NOT NULL,
            preview TEXT NOT NULL
        );
        INSERT INTO headers SELECT id, subject, author, preview FROM messages;
        CREATE TABLE messages4 (
            id INTEGER PRIMARY KEY,
            mailbox INTEGER NOT NULL REFERENCES mailboxes(id),
            rank INTEGER NOT NULL,
            entered INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            unread INTEGER NOT NULL,
            flagged INTEGER NOT NULL,
            origin_mailbox INTEGER,
            origin_rank INTEGER,
            trashed_in INTEGER
        );
        INSERT INTO messages4
            SELECT id, mailbox, rank, entered, created_at, unread, flagged, origin_mailbox, origin_rank, trashed_in
            FROM messages;
        DROP TABLE messages;
        ALTER TABLE messages4 RENAME TO messages;
        -- One index, so a move updates two b-trees, not four: it orders every list and every
        -- search without words, and it holds what "all N as of a revision" counts.
        CREATE INDEX messages_by_rank ON messages (mailbox, rank, entered);

        CREATE TRIGGER count_added AFTER INSERT ON messages BEGIN
            UPDATE mailboxes SET total = total + 1, unread = unread + NEW.unread WHERE id = NEW.mailbox;
        END;
        CREATE TRIGGER count_removed AFTER DELETE ON messages BEGIN
            UPDATE mailboxes SET total = total - 1, unread = unread - OLD.unread WHERE id = OLD.mailbox;
        END;
        -- A statement that moves or marks thousands of rows at once adds up the counts itself,
        -- in one statement per mailbox, and sets this switch while it runs.
        INSERT INTO counters (name, value) VALUES ('counted_in_bulk', 0);
        CREATE TRIGGER count_changed AFTER UPDATE OF mailbox, unread ON messages
        WHEN (OLD.mailbox != NEW.mailbox OR OLD.unread != NEW.unread)
            AND (SELECT value FROM counters WHERE name = 'counted_in_bulk') = 0 BEGIN
            UPDATE mailboxes SET total = total - 1, unread = unread - OLD.unread WHERE id = OLD.mailbox;
            UPDATE mailboxes SET total = total + 1, unread = unread + NEW.unread WHERE id = NEW.mailbox;
        END;
        -- The body goes before the headers: taking it out of the index needs their words.
        CREATE TRIGGER forget_message AFTER DELETE ON messages BEGIN
            DELETE FROM bodies WHERE id = OLD.id;
            DELETE FROM headers WHERE id = OLD.id;
        END;

        CREATE TRIGGER index_body AFTER INSERT ON bodies BEGIN
            INSERT INTO search (rowid, subject, author, recipients, body)
                SELECT id, subject, author, '', NEW.body FROM headers WHERE id = NEW.id;
        END;
        CREATE TRIGGER unindex_body BEFORE DELETE ON bodies BEGIN
            INSERT INTO search (search, rowid, subject, author, recipients, body)
                SELECT 'delete', id, subject, author, '', OLD.body FROM headers WHERE id = OLD.id;
        END;
        CREATE TRIGGER reindex_body BEFORE UPDATE OF body ON bodies BEGIN
            INSERT INTO search (search, rowid, subject, author, recipients, body)
                SELECT 'delete', id, subject, author, '', OLD.body FROM headers WHERE id = OLD.id;
        END;
        CREATE TRIGGER reindexed_body AFTER UPDATE OF body ON bodies BEGIN
            INSERT INTO search (rowid, subject, author, recipients, body)
                SELECT id, subject, author, '', NEW.body FROM headers WHERE id = NEW.id;
        END;
        CREATE TRIGGER reindex_words BEFORE UPDATE OF subject, author ON headers BEGIN
            INSERT INTO search (search, rowid, subject, author, recipients, body)
                SELECT 'delete', OLD.id, OLD.subject, OLD.author, '', body FROM bodies WHERE id = OLD.id;
        END;
        CREATE TRIGGER reindexed_words AFTER UPDATE OF subject, author ON headers BEGIN
            INSERT INTO search (rowid, subject, author, recipients, body)
                SELECT NEW.id, NEW.subject, NEW.author, '', body FROM bodies WHERE id = NEW.id;
        END;
        """)
}

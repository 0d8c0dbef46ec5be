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
        // Lists at any size: a sparse rank per message instead of a dense position (a delete or
        // a move writes only the rows it touches), the revision at which each message entered
        // its mailbox (so "all N" means the N counted), bodies in a table of their own (a list
        // page never reads one), counts kept by triggers, and a full-text index kept the same way.
        Migration(version: 3, sql: """
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
            """),
        // Where a message is apart from what it says: `messages` keeps only the narrow columns a
        // move, a delete or a mark rewrites, and `headers` the subject, sender and preview. A
        // delete of 100,000 messages scattered through a million then dirties about 30 MB of
        // pages instead of 300 MB. Deleting a message takes its headers and body with it.
        // Searches without words list matches in the mailbox's own order, as the list does.
        Migration(version: 4, sql: """
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
            """),
        // Mail that arrived over SMTP. Its raw bytes are kept once, however many mailboxes hold
        // a copy (`raw_mail`), with what was parsed from them (`attachments` per raw message);
        // each copy's own row in `mail` has the envelope and headers. Addresses route mail to
        // mailboxes.
        Migration(version: 5, sql: """
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
            """),
        // Mail brought in by `mailroom import` carries the SHA-256 of its bytes, so importing the
        // same file again skips what is already here. The key goes with the raw bytes, so mail
        // deleted for good comes back if imported again.
        Migration(version: 6, sql: """
            ALTER TABLE raw_mail ADD COLUMN import_key BLOB;
            CREATE UNIQUE INDEX raw_mail_by_import_key ON raw_mail (import_key) WHERE import_key IS NOT NULL;
            """),
        // A body reaches the index through `searchable(...)` (SearchText): without its runs of
        // more than 255 ASCII letters and digits, which no search asks for and which cost the
        // index more than everything else in such a mail. Taking a body out passes it through
        // the same function, so it takes out what went in. Bodies indexed before this version
        // went in whole: taking one out now leaves its overlong runs behind in the index, where
        // they match nothing (searches meet the index's rows through `messages`, and ids are
        // never reused); such runs are rare, so the index is not rebuilt for them.
        //
        // Mail imported in bulk is indexed once per batch, by one statement, not by a trigger
        // a row (`indexed_in_bulk`, set only inside the importing transaction): a trigger that
        // writes the index makes every later statement of the transaction flush the index's
        // pending words to the file, which doubled the cost of storing a small message.
        Migration(version: 7, sql: """
            INSERT INTO counters (name, value) VALUES ('indexed_in_bulk', 0);
            DROP TRIGGER index_body;
            DROP TRIGGER unindex_body;
            DROP TRIGGER reindex_body;
            DROP TRIGGER reindexed_body;
            DROP TRIGGER reindex_words;
            DROP TRIGGER reindexed_words;
            CREATE TRIGGER index_body AFTER INSERT ON bodies
            WHEN (SELECT value FROM counters WHERE name = 'indexed_in_bulk') = 0 BEGIN
                INSERT INTO search (rowid, subject, author, recipients, body)
                    SELECT id, subject, author, \(recipients("NEW")), searchable(NEW.body) FROM headers WHERE id = NEW.id;
            END;
            CREATE TRIGGER unindex_body BEFORE DELETE ON bodies BEGIN
                INSERT INTO search (search, rowid, subject, author, recipients, body)
                    SELECT 'delete', id, subject, author, \(recipients("OLD")), searchable(OLD.body) FROM headers WHERE id = OLD.id;
            END;
            CREATE TRIGGER reindex_body BEFORE UPDATE OF body ON bodies BEGIN
                INSERT INTO search (search, rowid, subject, author, recipients, body)
                    SELECT 'delete', id, subject, author, \(recipients("OLD")), searchable(OLD.body) FROM headers WHERE id = OLD.id;
            END;
            CREATE TRIGGER reindexed_body AFTER UPDATE OF body ON bodies BEGIN
                INSERT INTO search (rowid, subject, author, recipients, body)
                    SELECT id, subject, author, \(recipients("NEW")), searchable(NEW.body) FROM headers WHERE id = NEW.id;
            END;
            CREATE TRIGGER reindex_words BEFORE UPDATE OF subject, author ON headers BEGIN
                INSERT INTO search (search, rowid, subject, author, recipients, body)
                    SELECT 'delete', OLD.id, OLD.subject, OLD.author, \(recipients("OLD")), searchable(body) FROM bodies WHERE id = OLD.id;
            END;
            CREATE TRIGGER reindexed_words AFTER UPDATE OF subject, author ON headers BEGIN
                INSERT INTO search (rowid, subject, author, recipients, body)
                    SELECT NEW.id, NEW.subject, NEW.author, \(recipients("NEW")), searchable(body) FROM bodies WHERE id = NEW.id;
            END;
            """),
        // A big plain mail's text is most of its raw bytes: kept in its body row too, every such
        // byte was written twice (half the file, half the import's writing, for a mailbox of
        // plain-text reports). A body can now be a part of its raw mail instead: `raw_start`
        // (counted from 0) and `raw_length`, with an empty `body`. Only a text that is those
        // bytes exactly is kept so (`Transaction.bodyInRaw`); everything that reads a body
        // reads it through `body(of:)`, and so do the triggers, which take out what went in.
        Migration(version: 8, sql: """
            ALTER TABLE bodies ADD COLUMN raw_start INTEGER;
            ALTER TABLE bodies ADD COLUMN raw_length INTEGER;
            DROP TRIGGER index_body;
            DROP TRIGGER unindex_body;
            DROP TRIGGER reindex_body;
            DROP TRIGGER reindexed_body;
            DROP TRIGGER reindex_words;
            DROP TRIGGER reindexed_words;
            CREATE TRIGGER index_body AFTER INSERT ON bodies
            WHEN (SELECT value FROM counters WHERE name = 'indexed_in_bulk') = 0 BEGIN
                INSERT INTO search (rowid, subject, author, recipients, body)
                    SELECT id, subject, author, \(recipients("NEW")), searchable(\(body(of: "NEW"))) FROM headers WHERE id = NEW.id;
            END;
            CREATE TRIGGER unindex_body BEFORE DELETE ON bodies BEGIN
                INSERT INTO search (search, rowid, subject, author, recipients, body)
                    SELECT 'delete', id, subject, author, \(recipients("OLD")), searchable(\(body(of: "OLD"))) FROM headers WHERE id = OLD.id;
            END;
            CREATE TRIGGER reindex_body BEFORE UPDATE OF body ON bodies BEGIN
                INSERT INTO search (search, rowid, subject, author, recipients, body)
                    SELECT 'delete', id, subject, author, \(recipients("OLD")), searchable(\(body(of: "OLD"))) FROM headers WHERE id = OLD.id;
            END;
            CREATE TRIGGER reindexed_body AFTER UPDATE OF body ON bodies BEGIN
                INSERT INTO search (rowid, subject, author, recipients, body)
                    SELECT id, subject, author, \(recipients("NEW")), searchable(\(body(of: "NEW"))) FROM headers WHERE id = NEW.id;
            END;
            CREATE TRIGGER reindex_words BEFORE UPDATE OF subject, author ON headers BEGIN
                INSERT INTO search (search, rowid, subject, author, recipients, body)
                    SELECT 'delete', OLD.id, OLD.subject, OLD.author, \(recipients("OLD")), searchable(\(body(of: "b"))) FROM bodies b WHERE b.id = OLD.id;
            END;
            CREATE TRIGGER reindexed_words AFTER UPDATE OF subject, author ON headers BEGIN
                INSERT INTO search (rowid, subject, author, recipients, body)
                    SELECT NEW.id, NEW.subject, NEW.author, \(recipients("NEW")), searchable(\(body(of: "b"))) FROM bodies b WHERE b.id = NEW.id;
            END;
            """),
        // Where each attachment's encoded content lies in its raw mail (`content_start` counted
        // from 0, `content_length`) and its transfer encoding, found by the parse at intake: a
        // download reads and decodes those bytes alone. Attachments stored before have none
        // (NULL); the first download of one finds them with one parse and records them, so
        // opening an old file never re-parses its mail.
        Migration(version: 9, sql: """
            ALTER TABLE attachments ADD COLUMN content_start INTEGER;
            ALTER TABLE attachments ADD COLUMN content_length INTEGER;
            ALTER TABLE attachments ADD COLUMN encoding TEXT;
            """),
    ]

    /// The text of the body row `row` (a table alias, `NEW` or `OLD`): its own, or the part of
    /// its raw mail it points at.
    static func body(of row: String) -> String {
        "(CASE WHEN \(row).raw_start IS NULL THEN \(row).body ELSE CAST(substr((SELECT r.bytes FROM mail x JOIN raw_mail r "
            + "ON r.id = x.raw WHERE x.id = \(row).id), \(row).raw_start + 1, \(row).raw_length) AS TEXT) END)"
    }

    /// A mailed message's recipients as the search index holds them; empty for a posted one.
    static func recipients(_ row: String) -> String {
        "coalesce((SELECT x.to_header || ' ' || x.cc_header || ' ' || replace(x.envelope_to, char(10), ' ') "
            + "FROM mail x WHERE x.id = \(row).id), '')"
    }

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
